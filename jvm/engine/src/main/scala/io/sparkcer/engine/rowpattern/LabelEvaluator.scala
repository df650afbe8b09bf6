package io.sparkcer.engine.rowpattern

/**
 * The DEFINE conditions as the [[Matcher]] asks them (the part Trino's `LabelEvaluator` plays), tried on the
 * partition's rows the cheapest way the host allows ([[RowPatternHost]]): a condition of one row once per row,
 * however many threads try it; a condition that reads its match on the thread's running summaries, made once per row of a history
 * and kept on it; any other on the whole match, in a [[MatchFrame]]. Each reads the rows within the span of the
 * match it is tried in ([[HeldRows.within]]).
 *
 * @param labels the number of pattern variables
 * @tparam S the host's running summary
 */
final class LabelEvaluator[R, S](host: RowPatternHost[R, _] { type Summary = S }, rows: HeldRows[R], labels: Int) {
  private val frame = new MatchFrame
  private val ahead = host.conditionsAhead

  /**
   * Per label of one row ([[RowPatternHost.perRow]]): the last row it was evaluated on, the first row past the span
   * it read within (a later start's span may see further rows), and the answer.
   */
  private val evaluatedAt = Array.fill(labels)(-1L)
  private val evaluatedWithin = new Array[Long](labels)
  private val answer = new Array[Boolean](labels)

  /**
   * The rows of their matches that the conditions have read: each row a running summary was made for, each row of a
   * match read for a condition that reads its match row by row.
   */
  var rowsRead = 0L

  def reads: ConditionReads = host.reads

  /**
   * Whether `label`'s condition reads nothing of its match but where it began (its row and rows at physical offsets
   * from it): then the matcher asks [[holdsAtRow]], before it makes the row's label node, which a row that fails does
   * not need.
   */
  def perRow(label: Int): Boolean = host.perRow(label)

  /** A [[perRow]] label's condition at partition position `position`, in a match that began at `start`. */
  def holdsAtRow(start: Long, label: Int, position: Long): Boolean = {
    rows.within(start, position, ahead)
    if (evaluatedAt(label) == position && evaluatedWithin(label) == rows.horizon) answer(label)
    else {
      val holds = host.holdsAtRow(label, position, rows)
      evaluatedAt(label) = position
      evaluatedWithin(label) = rows.horizon
      answer(label) = holds
      holds
    }
  }

  /**
   * Whether the row at partition position `start + row.length - 1` may take `row.label`, in a match that began at
   * `start` and labelled its rows before it `row.previous` (null: none), the match that would be number `number`.
   * Asked only for labels with a condition.
   */
  def holds(start: Long, row: LabelNode[S], number: Long): Boolean = {
    val label = row.label
    rows.within(start, start + row.length - 1, ahead)
    if (host.onSummary(label)) host.holdsOnSummary(label, summary(start, row), start, row.length - 1, rows)
    else {
      rowsRead += row.length
      // The number is known only where the conditions read it: the matcher then tries one start at a time.
      frame.tryRow(start, row, if (host.reads.number) number else 0L)
      host.holds(label, frame, rows)
    }
  }

  /**
   * The running summary of a thread's rows up to `row`, that row included, made once per row of the history and
   * kept on it; after a load the history has none, and they are made again from the oldest row up.
   */
  private def summary(start: Long, row: LabelNode[S]): S =
    if (!host.keepsSummaries) host.noRows
    else {
      var missing = List.empty[LabelNode[S]]
      var n = row
      while (n != null && n.summary == null) { missing ::= n; n = n.previous }
      var s = if (n == null) host.noRows else n.summary
      for (m <- missing) {
        s = host.summarize(s, m.label, m.length - 1, rows(start + m.length - 1))
        m.summary = s
        rowsRead += 1
      }
      s
    }
}
