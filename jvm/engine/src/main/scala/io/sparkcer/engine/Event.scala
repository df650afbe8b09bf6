package io.sparkcer.engine

/** One input row of the engine's own representation: `seq` is its index in the input, `values` follow the schema. */
final class Event(val seq: Long, val values: Array[Any]) {
  override def toString: String = values.mkString(s"#$seq(", ", ", ")")
}

/**
 * One reported match over events of type E: the partition key, the first and the last event it read and, per
 * output variable, the events bound to it in stream order.
 */
final case class MatchOf[+E](partition: IndexedSeq[Any], start: E, end: E, bindings: IndexedSeq[IndexedSeq[E]])
