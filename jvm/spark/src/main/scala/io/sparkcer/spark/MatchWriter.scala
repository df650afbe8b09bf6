package io.sparkcer.spark

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{GenericInternalRow, UnsafeProjection}
import org.apache.spark.sql.catalyst.util.GenericArrayData
import org.apache.spark.sql.types.DataType

import io.sparkcer.engine.MatchOf

/**
 * Writes a match as an output row (DESIGN §4): the partition key, the order column at the first and last
 * event, then per variable a struct of its event's columns or an array of them.
 *
 * @param variables per selected variable: the projection of an event onto its struct, and whether it is single
 */
final class MatchWriter(
    keyTypes: Array[DataType],
    orderOrdinal: Int,
    orderType: DataType,
    variables: Array[(UnsafeProjection, Boolean)],
    outputTypes: Array[DataType])
    extends (MatchOf[InternalRow] => InternalRow) {

  private val values = new Array[Any](outputTypes.length)
  private val row = new GenericInternalRow(values)
  private val project = UnsafeProjection.create(outputTypes)

  override def apply(m: MatchOf[InternalRow]): InternalRow = {
    var i = 0
    if (keyTypes.nonEmpty) {
      val key = m.partition.head.asInstanceOf[InternalRow]
      while (i < keyTypes.length) { values(i) = key.get(i, keyTypes(i)); i += 1 }
    }
    values(i) = m.start.get(orderOrdinal, orderType)
    values(i + 1) = m.end.get(orderOrdinal, orderType)
    i += 2
    var v = 0
    while (v < variables.length) {
      val (struct, single) = variables(v)
      val bound = m.bindings(v)
      // A single struct is copied by the output projection; array elements must be copies of their own.
      values(i + v) = if (single) struct(bound.head) else new GenericArrayData(bound.map(struct(_).copy()).toArray[Any])
      v += 1
    }
    project(row)
  }
}
