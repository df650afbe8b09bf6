package io.sparkcer.engine

/** One input row of the engine's own representation: `seq` is its index in the input, `values` follow the schema. */
final class Event(val seq: Long, val values: Array[Any]) {
  override def toString: String = values.mkString(s"#$seq(", ", ", ")")
}
