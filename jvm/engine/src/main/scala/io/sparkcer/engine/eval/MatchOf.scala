package io.sparkcer.engine.eval

/**
 * One reported match over events of type E: the partition key, the first and the last event it read and, per
 * output variable, the events bound to it in stream order.
 */
final case class MatchOf[+E](partition: IndexedSeq[Any], start: E, end: E, bindings: IndexedSeq[IndexedSeq[E]])
