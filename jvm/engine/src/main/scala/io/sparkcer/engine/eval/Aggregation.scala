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
}
