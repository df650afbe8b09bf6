package io.sparkcer.engine.rowpattern

/** Where the [[Matcher]]'s results go, in the order of their rows. */
trait RowPatternSink {
  /**
   * A match: its number (from 1 in the partition), its first row's position, and per row its label and whether an
   * exclusion `{- -}` left it out of ALL ROWS PER MATCH's output. An empty match has length 0 and stands at `start`.
   * The arrays are the matcher's, reused after the call.
   */
  def matched(number: Long, start: Long, length: Int, labels: Array[Int], excluded: Array[Boolean]): Unit
  /** A row in no match (reported only for ALL ROWS PER MATCH WITH UNMATCHED ROWS). */
  def unmatched(position: Long): Unit
}
