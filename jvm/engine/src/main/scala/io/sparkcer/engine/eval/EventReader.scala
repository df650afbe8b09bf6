package io.sparkcer.engine.eval

/** How a caller reads an event of type E. */
trait EventReader[-E] {
  /** Sets bit g of `symbol` iff the event satisfies guard g (all other bits are clear on entry). */
  def classify(event: E, symbol: Array[Long]): Unit
  /** The partition key, or null to leave the event out (a NULL key). Only called with PARTITION BY. */
  def partitionKey(event: E): IndexedSeq[Any]
  /** The window key (the order column, as a long in its own unit); only called for column windows. */
  def windowKey(event: E): Long
  /** How many window-key units make a millisecond, for time-span windows (1 for epoch millis, 1000 for micros). */
  def windowUnitsPerMilli: Long = 1L
  /** False when the window key is NULL: the event cannot be placed in the window and is counted as dropped. */
  def hasWindowKey(event: E): Boolean
  /**
   * True for an event read only as context: it advances the runs, but the matches it completes are reported by
   * whoever owns it (a task evaluating one range of the stream reads the window before its range this way).
   */
  def isContext(event: E): Boolean = false
  /** Where the event is, as its user would find it (its partition and stream-order values), for error messages. */
  def describe(event: E): String = String.valueOf(event)
}
