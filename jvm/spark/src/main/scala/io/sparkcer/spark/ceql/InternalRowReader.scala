package io.sparkcer.spark.ceql

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BasePredicate, UnsafeProjection}
import org.apache.spark.sql.types._

import io.sparkcer.engine.automaton.SymbolTable
import io.sparkcer.engine.eval.{Aggregation, EventReader}
import io.sparkcer.spark.common.OrderColumn

/**
 * How the engine reads Spark rows: guards are compiled predicates, conditions relating events are compiled by
 * [[CerCondition.Bound]], the partition key is an UnsafeRow (copied only when the key changes), the window key is
 * the order column as a long.
 *
 * @param conditions the automaton's conditions relating events, in order
 * @param key        the PARTITION BY projection, or null without PARTITION BY
 * @param window     the ordinal and type of the order column, for windows over it
 * @param context    the ordinal of the column marking context rows, when the stream is split in ranges
 * @param location   a row's partition and stream-order values, for error messages
 */
final class InternalRowReader(guards: Array[BasePredicate], conditions: Array[CerCondition.Bound],
    key: UnsafeProjection, window: Option[(Int, DataType)], context: Option[Int], location: InternalRow => String)
    extends EventReader[InternalRow] {

  override def classify(row: InternalRow, symbol: Array[Long]): Unit = {
    var g = 0
    while (g < guards.length) {
      if (guards(g).eval(row)) SymbolTable.set(symbol, g)
      g += 1
    }
  }

  private var lastKey: IndexedSeq[Any] = _

  override def partitionKey(row: InternalRow): IndexedSeq[Any] = {
    val k = key(row)
    if (k.anyNull) null
    else {
      if (lastKey == null || lastKey.head != k) lastKey = Vector(k.copy())
      lastKey
    }
  }

  private val (ordinal, readKey): (Int, (InternalRow, Int) => Long) = window match {
    case None => (-1, (_, _) => throw new IllegalStateException("no window column"))
    case Some((i, dataType)) => (i, OrderColumn.longOf(dataType))
  }

  override def windowKey(row: InternalRow): Long = readKey(row, ordinal)

  override def hasWindowKey(row: InternalRow): Boolean = ordinal < 0 || !row.isNullAt(ordinal)

  private val contextOrdinal = context.getOrElse(-1)

  override def isContext(row: InternalRow): Boolean = contextOrdinal >= 0 && row.getBoolean(contextOrdinal)

  override def describe(row: InternalRow): String = location(row)

  override def holds(condition: Int, events: Array[AnyRef], slots: Array[Any]): Boolean =
    conditions(condition).holds(events, slots)

  override def argument(condition: Int, slot: Int, event: InternalRow): Any =
    conditions(condition).argument(slot, event)

  override def aggregation(condition: Int, slot: Int): Aggregation = conditions(condition).aggregation(slot)

  override def operand(condition: Int, side: Int, event: InternalRow): AnyRef =
    conditions(condition).operand(side, event)

  override def compareHardness(condition: Int, side: Int, a: InternalRow, b: InternalRow): Int =
    conditions(condition).compareHardness(side, a, b)

  override def compareSlotValues(condition: Int, slot: Int, a: Any, b: Any): Int =
    conditions(condition).compareSlotValues(slot, a, b)

  /** Timestamps are microseconds; integer order columns of time-span windows count milliseconds. */
  override val windowUnitsPerMilli: Long = window match {
    case Some((_, TimestampType | TimestampNTZType)) => 1000L
    case _ => 1L
  }
}
