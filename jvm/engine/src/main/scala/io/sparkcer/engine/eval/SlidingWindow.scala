package io.sparkcer.engine.eval

import io.sparkcer.engine.analysis.{WindowKey, WindowSpec}

/**
 * The WITHIN clause as the evaluator slides it. Each event has a window key: its order column's value under a
 * column window, else its position in its partition's substream. A match is kept when last.key - first.key is
 * below the window's amount, so an event with key k leaves out every run that started at or below k - amount.
 *
 * @param unitsPerMilli how many window-key units make a millisecond, to measure a time span in the column's unit
 */
final class SlidingWindow(window: Option[WindowSpec], unitsPerMilli: Long) {
  /** Whether the window measures a column, so that an event without a value cannot be placed in it. */
  val onColumn: Boolean = window.exists(_.key.isInstanceOf[WindowKey.Column])

  private val unbounded = window.isEmpty
  private val amount: Long = window.fold(0L) { w =>
    w.key match {
      case WindowKey.Column(_, true) => Math.multiplyExact(w.amount, unitsPerMilli)
      case _ => w.amount
    }
  }

  /** For an event with window key `key`: a run that started at or below the threshold is out of its window. */
  def threshold(key: Long): Long = if (unbounded) Long.MinValue else key - amount

  /** The window key from which an event with window key `key` is out of every later event's window. */
  def expiry(key: Long): Long = Math.addExact(key, amount)
}
