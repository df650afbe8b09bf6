package io.sparkcer.engine.rowpattern

/** The rows of a partition that its matching still holds, by position in the partition (from 0). */
trait PartitionRows[R] {
  /** Whether the row at `position` is held (read, and not dropped). */
  def holds(position: Long): Boolean
  def apply(position: Long): R
}

/**
 * What a MATCH_RECOGNIZE query computes over rows of type R, and what those computations read of a match: its host
 * compiles DEFINE and MEASURES to it (Spark's expressions over `InternalRow`, or a test's functions), so that a
 * partition's matching ([[RowPatternPartition]]) runs without knowing how they are written.
 *
 * @tparam O an output row
 */
trait RowPatternFunctions[R, O] {
  /** What the conditions read of their match besides the row being tried, for the matcher's equivalent threads. */
  def reads: ConditionReads

  /**
   * Whether label's condition reads only its row and rows at physical offsets from it: it is evaluated once per row
   * ([[holdsAtRow]]), however many threads try the row, as a window function would be.
   */
  def perRow(label: Int): Boolean

  /** Whether label's condition reads the other rows of its match through the running summaries ([[summarize]]). */
  def onSummary(label: Int): Boolean

  /** Whether the conditions keep a running summary per row of a thread's history (else [[summarize]] is not called). */
  def keepsSummaries: Boolean

  /** How far the conditions read past their row (NEXT), and the measures past their match's last row. */
  def conditionsAhead: Int
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

  /**
   * The running summary of a thread's rows up to `row`, made from the one before it (null for the first): row
   * `index` of the match, labelled `label`. Made once per row of a history and kept on it ([[LabelNode.summary]]).
   */
  def summarize(previous: AnyRef, label: Int, index: Int, row: R): AnyRef

  /** Label's condition, read from the summary of the thread's rows up to its row `current` of a match from `start`. */
  def holdsOnSummary(label: Int, summary: AnyRef, start: Long, current: Int, rows: PartitionRows[R]): Boolean

  /** A [[perRow]] label's condition at the row at `position`: no match to read. */
  def holdsAtRow(label: Int, position: Long, rows: PartitionRows[R]): Boolean

  /** Label's condition, at `frame`'s current row. */
  def holds(label: Int, frame: MatchFrame, rows: PartitionRows[R]): Boolean

  /** The output row for `row` of the match in `frame` (at its current row), its measures evaluated over the frame. */
  def matched(frame: MatchFrame, rows: PartitionRows[R], row: R): O

  /** The output row of a row in no match (ALL ROWS PER MATCH WITH UNMATCHED ROWS): its measures NULL. */
  def unmatched(row: R): O
}
