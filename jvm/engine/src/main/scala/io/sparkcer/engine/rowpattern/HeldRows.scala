package io.sparkcer.engine.rowpattern

import scala.collection.mutable

/**
 * The rows a partition's matching holds ([[RowPatternPartition]]): those read and not yet dropped, seen through the
 * span of the match being read. Under WITHIN, NEXT from a condition or measure of a match that began at row s reads
 * NULL for a row whose time is at or past s's plus the bound: such a row can never be part of the match.
 *
 * @param window WITHIN: each row's order value (milliseconds), and the bound on a match's span
 */
private[rowpattern] final class HeldRows[R](window: Option[(R => Long, Long)]) extends PartitionRows[R] {
  private val rows = mutable.ArrayDeque.empty[R]
  /** The position of the oldest row held. */
  private var first = 0L
  /** The rows read: the position of the next. */
  private var read = 0L
  private var spanEnd = Long.MaxValue

  /** The first row past the span of the match being read: rows from it on read NULL ([[within]]). */
  def horizon: Long = spanEnd

  def holds(position: Long): Boolean = position >= first && position < read && position < spanEnd
  def apply(position: Long): R = rows((position - first).toInt)

  /** The rows read so far. */
  def count: Long = read

  def +=(row: R): Unit = { rows += row; read += 1 }

  /** Drops the rows before `position`. */
  def dropBefore(position: Long): Unit = while (first < position && rows.nonEmpty) { rows.removeHead(); first += 1 }

  /**
   * Reads the rows as a match that began at `start` sees them from its row `from`, looking at most `ahead` rows past
   * it (how far its navigation reads): none past the match's span.
   */
  def within(start: Long, from: Long, ahead: Int): Unit = spanEnd = window.fold(Long.MaxValue) {
    case (millis, span) =>
      var q = from + 1
      if (ahead > 0) {
        val end = millis(apply(start)) + span
        while (q <= from + ahead && q < read && millis(apply(q)) < end) q += 1
      }
      q
  }

  /** The position of the oldest row held. */
  def oldest: Long = first

  /** The rows held, oldest first. */
  def iterator: Iterator[R] = rows.iterator

  /** Makes these fresh rows hold `count` rows read by `row`, the oldest at `first` ([[oldest]], [[iterator]]). */
  def load(first: Long, count: Long, row: => R): Unit = {
    require(read == 0, "rows are loaded when fresh")
    this.first = first
    read = count
    for (_ <- first until count) rows += row
  }
}
