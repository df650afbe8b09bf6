package io.sparkcer.engine.rowpattern

/**
 * The most rows of a partition that the [[Matcher]] may read again for starts it deferred, and the setting its user
 * raises it with (a conf), which the error names. The matcher runs a thread from every row; when the DEFINE
 * conditions read other rows of the match (`B AS price > A.price`), no later start's thread can stand for an earlier
 * one's, so over a long run of rows that keeps every start alive each start holds its own labels: past a point the
 * later starts are deferred, and read their rows again only if the tried start's match does not cover them. A run
 * that keeps every start alive and ends none (`A B+ C` where C never comes) reads its rows again for each start:
 * quadratic, so past the bound the query fails, saying what to write, rather than run for hours.
 */
final case class PartialMatchBound(rows: Long, setting: String) {
  require(rows >= 1, s"$setting must be at least 1, not $rows")
}

object PartialMatchBound {
  /** Tens of seconds of work at most. */
  val DefaultRows = 20000000L
  /** For the engine's own API and tests, where the bound is an argument of the [[Matcher]]. */
  val Default: PartialMatchBound = PartialMatchBound(DefaultRows, "bound (Matcher)")
}
