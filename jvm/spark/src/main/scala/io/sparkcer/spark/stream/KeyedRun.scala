package io.sparkcer.spark.stream

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.BindReferences
import org.apache.spark.sql.catalyst.expressions.codegen.GenerateOrdering

import io.sparkcer.spark.common.TotalOrder

/** What a stream operator runs for one key at a time, in one task; the [[EventTimeProcessor]] keeps its state. */
trait KeyedRun {
  /** Whether a row takes part: the others are passed by, never kept. */
  def kept(row: InternalRow): Boolean
  /** The row's event time, in the event-time column's units. */
  def eventTime(row: InternalRow): Long
  def streamOrder: java.util.Comparator[InternalRow]
  /** Takes up a key: its saved state, or none for a key seen first. */
  def start(saved: Option[Array[Byte]]): Unit
  /**
   * Reads the key's rows that became final (in stream order), then lets the watermark pass: no row at or below it can
   * come any more. Returns the output rows.
   */
  def advance(ready: Array[InternalRow], watermark: Long): Iterator[InternalRow]
  /** The key's state to keep, or None when it keeps nothing. */
  def saved(): Option[Array[Byte]]
  /** The event time at which the watermark's passing has something to decide, if any. */
  def expiresAt: Option[Long]
}

object KeyedRun {
  /** The stream order of rows of its input: ORDER BY, then its tie-break, compiled. */
  def streamOrder(order: TotalOrder): java.util.Comparator[InternalRow] =
    GenerateOrdering.generate(order.sortOrder.map(BindReferences.bindReference(_, order.input)))
}
