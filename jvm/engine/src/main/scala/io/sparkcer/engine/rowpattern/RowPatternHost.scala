package io.sparkcer.engine.rowpattern

/**
 * What a MATCH_RECOGNIZE query computes over rows of type R, and what those computations read of a match: its host
 * compiles DEFINE and MEASURES to it (Spark's expressions over `InternalRow`, or a test's functions), so that a
 * partition's matching ([[RowPatternPartition]]) runs without knowing how they are written. The [[Matcher]] asks the
 * conditions through the engine's [[LabelEvaluator]], which tries each condition the cheapest way the host allows:
 * once per row, on a running summary of the thread's rows, or on the whole match in a [[MatchFrame]].
 *
 * @tparam O an output row
 */
trait RowPatternHost[R, O] {
  /**
   * What the conditions keep of a match in the making, up to one of its rows, to read its other rows from: made once
   * per row of a thread's history, from the one before it ([[summarize]]), and shared by the threads that fork after.
   */
  type Summary

  /** What the conditions read of their match besides the row being tried, for the matcher's equivalent threads. */
  def reads: ConditionReads

  /**
   * Whether label's condition reads only its row and rows at physical offsets from it: it is evaluated once per row
   * ([[holdsAtRow]]), however many threads try the row, as a window function would be.
   */
  def perRow(label: Int): Boolean

  /** Whether label's condition reads the other rows of its match through the running summaries ([[holdsOnSummary]]). */
  def onSummary(label: Int): Boolean

  /** Whether the summaries hold anything: otherwise [[summarize]] is not called, and conditions read [[noRows]]. */
  def keepsSummaries: Boolean

  /** The summary of no rows: a thread's before its first row. */
  def noRows: Summary

  /**
   * The summary of a thread's rows up to `row`, made from the one before it ([[noRows]] for the first): row `index`
   * of the match, labelled `label`.
   */
  def summarize(previous: Summary, label: Int, index: Int, row: R): Summary

  /** How far the conditions read past their row (NEXT). */
  def conditionsAhead: Int

  /** How far the measures read past their match's last row (NEXT). */
  def measuresAhead: Int

  /** How far anything reads before the oldest row a match can still use (PREV). */
  def behind: Int

  /**
   * Whether a partition's next matches depend on its rows before them (PREV past a match's first row, MATCH_NUMBER,
   * the anchor `^`); otherwise a partition with no match under way carries nothing to its next row.
   */
  def readsPastMatches: Boolean

  /** WITHIN: each row's order value (milliseconds), and the bound a match's last row's minus its first's stays under. */
  def window: Option[(R => Long, Long)]

  /** A [[perRow]] label's condition at the row at `position`: no match to read. */
  def holdsAtRow(label: Int, position: Long, rows: PartitionRows[R]): Boolean

  /**
   * An [[onSummary]] label's condition, read from `summary`: the thread's rows' up to its row `current` (the one
   * being tried) of a match from `start`.
   */
  def holdsOnSummary(label: Int, summary: Summary, start: Long, current: Int, rows: PartitionRows[R]): Boolean

  /** Label's condition, at `frame`'s current row. */
  def holds(label: Int, frame: MatchFrame, rows: PartitionRows[R]): Boolean

  /** The output row for `row` of the match in `frame` (at its current row), its measures evaluated over the frame. */
  def matched(frame: MatchFrame, rows: PartitionRows[R], row: R): O

  /** The output row of a row in no match (ALL ROWS PER MATCH WITH UNMATCHED ROWS): its measures NULL. */
  def unmatched(row: R): O
}
