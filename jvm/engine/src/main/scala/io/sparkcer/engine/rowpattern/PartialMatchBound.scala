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

  /**
   * The error once `read` rows are read again, over the bound, at position `at`: each row since position `since`
   * began a match that stayed undecided, and `apart` says why none could stand for another.
   */
  def exceeded(read: Long, at: Long, since: Long, apart: String, within: Boolean): RowPatternException = {
    val shorter = if (within) "Shorten WITHIN" else "Bound the span of a match (PATTERN (...) WITHIN INTERVAL ...)"
    new RowPatternException(s"MATCH_RECOGNIZE has read $read rows of a partition again, over the $setting of $rows, " +
      s"at row ${at + 1} (counted from 1): each row since row ${since + 1} began a match that stayed undecided while " +
      s"the one before it failed, too many partial matches at once to hold side by side, and $apart, so that no " +
      s"match can stand for another. $shorter, give the first variable a condition that fewer rows pass, or raise " +
      setting)
  }
}

object PartialMatchBound {
  /** Tens of seconds of work at most. */
  val DefaultRows = 20000000L
  /** For the engine's own API and tests, where the bound is an argument of the [[Matcher]]. */
  val Default: PartialMatchBound = PartialMatchBound(DefaultRows, "bound (Matcher)")
}
