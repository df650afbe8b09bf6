package io.sparkcer.engine.rowpattern

import io.sparkcer.engine.syntax.Name

/** Where the [[Matcher]]'s search goes on after a match, as the clause's AFTER MATCH SKIP says. */
private[rowpattern] object AfterMatchSkip {
  /**
   * The first start to try after match `number`, of the rows from `start` labelled `labels` (its first `length`);
   * a [[RowPatternException]] where the standard makes the skip an error: to a variable not in the match, or to the
   * match's first row, which would find the same match again.
   */
  def resume(pattern: AnalyzedRowPattern, number: Long, start: Long, length: Int, labels: Array[Int]): Long =
    pattern.clause.skip match {
      case SkipTo.PastLastRow => start + math.max(length, 1)
      case SkipTo.NextRow => start + 1
      case SkipTo.First(v) => target(pattern, number, start, length, labels, v, first = true)
      case SkipTo.Last(v) => target(pattern, number, start, length, labels, v, first = false)
    }

  private def target(pattern: AnalyzedRowPattern, number: Long, start: Long, length: Int, labels: Array[Int],
      variable: Name, first: Boolean): Long = {
    val vars = pattern.labelsOf(RowPatternAnalysis.canonical(variable)).get
    val rows = (0 until length).filter(i => vars(labels(i)))
    if (rows.isEmpty)
      throw new RowPatternException(
        s"AFTER MATCH SKIP failed: pattern variable ${variable.value} is not present in match " +
          s"$number (" + (if (length == 0) s"empty, at row ${start + 1}"
                          else s"rows ${start + 1} to ${start + length}") +
          " of its partition, counted from 1)")
    val to = start + (if (first) rows.head else rows.last)
    if (to == start)
      throw new RowPatternException(s"AFTER MATCH SKIP failed: cannot skip to first row of match $number (it would " +
        s"find the same match again, for ever): skip TO NEXT ROW, or to a variable that cannot take the match's first row")
    to
  }
}
