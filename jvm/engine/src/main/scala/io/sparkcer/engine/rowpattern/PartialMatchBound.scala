package io.sparkcer.engine.rowpattern

/**
 * The most rows that the partial matches of a partition may hold together besides the oldest one's, and the setting
 * its user raises it with (a conf), which the error names. The [[Matcher]] runs a thread from every row; when the
 * DEFINE conditions read other rows of the match (`B AS price > A.price`), no later start's thread can stand for an
 * earlier one's, so over a long run of rows that keep every start alive and end none (`A B+ C` where C never comes)
 * each start holds its own labels for every row since it: memory quadratic in the run. Past the bound the query
 * fails, saying what to write, before that exhausts memory. The oldest start is not counted: one long match is linear.
 */
final case class PartialMatchBound(rows: Long, setting: String) {
  require(rows >= 1, s"$setting must be at least 1, not $rows")
}

object PartialMatchBound {
  /** About 200 MB of label histories (a node of 40 bytes per row per start). */
  val DefaultRows = 5000000L
  /** For the engine's own API and tests, where the bound is an argument of the [[Matcher]]. */
  val Default: PartialMatchBound = PartialMatchBound(DefaultRows, "bound (Matcher)")
}
