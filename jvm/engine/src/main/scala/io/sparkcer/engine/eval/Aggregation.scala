package io.sparkcer.engine.eval

import java.io.{DataInput, DataOutput}

/**
 * One aggregate of a condition (`sum(b.volume)`, `count(b)`, ...), computed as events are bound: a state per run,
 * updated with the argument's value on each event. States are immutable (runs that branch share them) and compare
 * by value (runs with equal registers are one run). The caller implements it, with its own types and arithmetic:
 * Spark's aggregate functions, or the engine's interpreter.
 */
trait Aggregation {
  /** The state before any event: the aggregate of no events is `result(zero)` (count 0, otherwise NULL). */
  def zero: AnyRef
  /** The state after one more event whose argument is `value` (for `count(b)`, the value is ignored). */
  def update(state: AnyRef, value: Any): AnyRef
  def result(state: AnyRef): Any
  def write(state: AnyRef, out: DataOutput): Unit
  def read(in: DataInput): AnyRef
  /** Whether [[update]] reads the value: when not, the caller need not evaluate the argument. */
  def readsValue: Boolean = true
}

object Aggregation {
  /**
   * `count`: the events, or (`skipsNulls`, `count(b.x)`) those whose value is not NULL. The same in every caller,
   * SQL's count being exact: a boxed Long, which compares by value.
   */
  final class Count(skipsNulls: Boolean) extends Aggregation {
    val zero: AnyRef = java.lang.Long.valueOf(0L)
    def update(state: AnyRef, value: Any): AnyRef =
      if (skipsNulls && value == null) state else java.lang.Long.valueOf(state.asInstanceOf[java.lang.Long] + 1)
    def result(state: AnyRef): Any = state
    def write(state: AnyRef, out: DataOutput): Unit = out.writeLong(state.asInstanceOf[java.lang.Long])
    def read(in: DataInput): AnyRef = java.lang.Long.valueOf(in.readLong())
    override def readsValue: Boolean = skipsNulls
  }
}
