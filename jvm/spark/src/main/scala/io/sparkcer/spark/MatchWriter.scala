package io.sparkcer.spark

import org.apache.spark.sql.catalyst.{InternalRow, ProjectingInternalRow}
import org.apache.spark.sql.catalyst.expressions.{Attribute, GenericInternalRow, UnsafeProjection}
import org.apache.spark.sql.catalyst.types.DataTypeUtils
import org.apache.spark.sql.catalyst.util.GenericArrayData
import org.apache.spark.sql.types.DataType

import io.sparkcer.engine.eval.MatchOf

/**
 * Writes a match as an output row (DESIGN §4): the partition key, the order column at the first and last
 * event, then per variable a struct of its event's columns or an array of them.
 *
 * A single variable's struct is a view of its event's columns, which the output projection writes straight
 * into the output row: each value is copied once. The elements of a list are structs of their own.
 *
 * @param variables per selected variable: the input columns of its struct, and whether it is single
 */
final class MatchWriter(
    keyTypes: Array[DataType],
    orderOrdinal: Int,
    orderType: DataType,
    variables: Seq[(Seq[Attribute], Boolean)],
    input: Seq[Attribute],
    outputTypes: Array[DataType])
    extends (MatchOf[InternalRow] => InternalRow) {

  private val values = new Array[Any](outputTypes.length)
  private val row = new GenericInternalRow(values)
  private val project = UnsafeProjection.create(outputTypes)

  private val views: Array[ProjectingInternalRow] = variables.map { case (columns, single) =>
    if (single) ProjectingInternalRow(DataTypeUtils.fromAttributes(columns), columns.map(c => input.indexWhere(_.exprId == c.exprId)))
    else null
  }.toArray
  private val elements: Array[UnsafeProjection] = variables.map { case (columns, single) =>
    if (single) null else UnsafeProjection.create(columns, input)
  }.toArray

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
    while (v < views.length) {
      val bound = m.bindings(v)
      values(i + v) =
        if (views(v) != null) { views(v).project(bound.head); views(v) }
        else new GenericArrayData(bound.map(elements(v)(_).copy()).toArray[Any])
      v += 1
    }
    project(row)
  }
}
