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

  // ---- Conditions relating events (only called for patterns that have them: CompiledPattern.nfa.conditions) ----

  /**
   * Whether condition `condition` holds (TRUE, not NULL) when its variables are bound to `events` (in the order of
   * [[io.sparkcer.engine.ceql.Condition.variables]]) and its slots have the values `slots`.
   */
  def holds(condition: Int, events: Array[AnyRef], slots: Array[Any]): Boolean =
    throw new UnsupportedOperationException("this reader evaluates no conditions")

  /** The argument of slot `slot` of condition `condition` (`b.price` of `prev(b.price)`) on one event. */
  def argument(condition: Int, slot: Int, event: E): Any =
    throw new UnsupportedOperationException("this reader evaluates no conditions")

  /**
   * One side (0: left, 1: right) of condition `condition`, an equality `a.x = b.y`, on an event of that side's
   * variable, as a key: values that SQL's `=` finds equal are `equals` (and have one hash code), NULL is null.
   */
  def operand(condition: Int, side: Int, event: E): AnyRef =
    throw new UnsupportedOperationException("this reader evaluates no conditions")

  /** The aggregate of slot `slot` of condition `condition`. */
  def aggregation(condition: Int, slot: Int): Aggregation =
    throw new UnsupportedOperationException("this reader evaluates no conditions")

  /**
   * For condition `condition`, an order comparison ([[io.sparkcer.engine.analysis.OrderComparison]]: <, <=, > or
   * >=; its other side may read slots), how hard side `side` (0: left, 1: right), which reads one variable's event
   * alone, is to satisfy when read on event `a`, against when read on event
   * `b`: negative, zero or positive as a's value is easier, as hard or harder, harder meaning that fewer values of the
   * other side satisfy the comparison (`x <= y`: a larger x, a smaller y), in the order the comparison itself uses.
   * NULL is the hardest (nothing satisfies it); [[EventReader.Unordered]] when the comparison cannot order the two
   * values (then no value of the other side satisfies it with both).
   */
  def compareHardness(condition: Int, side: Int, a: E, b: E): Int =
    throw new UnsupportedOperationException("this reader evaluates no conditions")

  /**
   * Two values of slot `slot` of condition `condition` (`prev`'s argument on an event, or an aggregate's result),
   * neither NULL, in their own order: negative, zero or positive as `a` is less, equal or greater, in the order the
   * condition's comparison uses; [[EventReader.Unordered]] when they cannot be ordered.
   */
  def compareSlotValues(condition: Int, slot: Int, a: Any, b: Any): Int =
    throw new UnsupportedOperationException("this reader evaluates no conditions")
}

object EventReader {
  /** What [[EventReader.compareHardness]] answers for two values that the comparison cannot order. */
  val Unordered: Int = Int.MinValue
}
