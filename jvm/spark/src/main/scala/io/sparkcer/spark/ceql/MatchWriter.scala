package io.sparkcer.spark.ceql

import org.apache.spark.sql.catalyst.{InternalRow, ProjectingInternalRow}
import org.apache.spark.sql.catalyst.expressions.{Attribute, GenericInternalRow, UnsafeProjection}
import org.apache.spark.sql.catalyst.util.{ArrayData, GenericArrayData, MapData}
import org.apache.spark.sql.types.{DataType, Decimal}
import org.apache.spark.unsafe.types.{CalendarInterval, UTF8String, VariantVal}

import io.sparkcer.engine.eval.MatchOf

/**
 * Writes a match as an output row: the partition key, the order column at the first and last
 * event, then per variable a struct of its event's columns or an array of them.
 *
 * The output projection reads the match through views: the key and the order values where they are in the key
 * and the events, each variable's struct as a view of its event's columns, a list as an array of such views. So
 * each value is copied once, by the projection into the output row, and none is boxed on the way (this is the
 * path every match takes: a million matches are a million of these).
 *
 * @param keys      how many PARTITION BY columns the output has (the first fields of the key row)
 * @param variables per selected variable: the input columns of its struct, and whether it is single
 */
final class MatchWriter(
    keys: Int,
    orderOrdinal: Int,
    variables: Seq[(Seq[Attribute], Boolean)],
    input: Seq[Attribute],
    outputTypes: Array[DataType])
    extends (MatchOf[InternalRow] => InternalRow) {

  private val bindings = new Array[Any](variables.length)
  private val row = new MatchRow(outputTypes)
  private val project = UnsafeProjection.create(outputTypes)
  locally {
    val bound = new GenericInternalRow(bindings)
    for (v <- variables.indices) row.readFrom(keys + 2 + v, bound, v)
  }

  private val structs: Array[EventStruct] = variables.map { case (columns, _) =>
    new EventStruct(columns, input)
  }.toArray
  /** Per single variable, the view of its event that every match reuses; null for a list. */
  private val views: Array[ProjectingInternalRow] = variables.indices.map { v =>
    if (variables(v)._2) structs(v).view() else null
  }.toArray

  override def apply(m: MatchOf[InternalRow]): InternalRow = {
    if (keys > 0) {
      val key = m.partition.head.asInstanceOf[InternalRow]
      var i = 0
      while (i < keys) { row.readFrom(i, key, i); i += 1 }
    }
    row.readFrom(keys, m.start, orderOrdinal)
    row.readFrom(keys + 1, m.end, orderOrdinal)
    var v = 0
    while (v < bindings.length) {
      val bound = m.bindings(v)
      bindings(v) =
        if (views(v) != null) { views(v).project(bound.head); views(v) }
        else {
          val elements = new Array[Any](bound.length)
          var k = 0
          while (k < elements.length) { val e = structs(v).view(); e.project(bound(k)); elements(k) = e; k += 1 }
          new GenericArrayData(elements)
        }
      v += 1
    }
    project(row)
  }
}

/**
 * A row whose every field is read from a field of another row, as it is there: the output row of a match before
 * the projection copies it. Read-only.
 */
private final class MatchRow(types: Array[DataType]) extends InternalRow {
  private val rows = new Array[InternalRow](types.length)
  private val ordinals = new Array[Int](types.length)

  /** Field `i` is now field `ordinal` of `source`. */
  def readFrom(i: Int, source: InternalRow, ordinal: Int): Unit = { rows(i) = source; ordinals(i) = ordinal }

  override def numFields: Int = types.length
  override def setNullAt(i: Int): Unit = throw new UnsupportedOperationException("a match's row is read-only")
  override def update(i: Int, value: Any): Unit = throw new UnsupportedOperationException("a match's row is read-only")
  override def copy(): InternalRow =
    new GenericInternalRow(
      Array.tabulate[Any](types.length)(i => if (isNullAt(i)) null else InternalRow.copyValue(get(i, types(i)))))

  override def isNullAt(i: Int): Boolean = rows(i).isNullAt(ordinals(i))
  override def getBoolean(i: Int): Boolean = rows(i).getBoolean(ordinals(i))
  override def getByte(i: Int): Byte = rows(i).getByte(ordinals(i))
  override def getShort(i: Int): Short = rows(i).getShort(ordinals(i))
  override def getInt(i: Int): Int = rows(i).getInt(ordinals(i))
  override def getLong(i: Int): Long = rows(i).getLong(ordinals(i))
  override def getFloat(i: Int): Float = rows(i).getFloat(ordinals(i))
  override def getDouble(i: Int): Double = rows(i).getDouble(ordinals(i))
  override def getDecimal(i: Int, precision: Int, scale: Int): Decimal =
    rows(i).getDecimal(ordinals(i), precision, scale)
  override def getUTF8String(i: Int): UTF8String = rows(i).getUTF8String(ordinals(i))
  override def getBinary(i: Int): Array[Byte] = rows(i).getBinary(ordinals(i))
  override def getInterval(i: Int): CalendarInterval = rows(i).getInterval(ordinals(i))
  override def getVariant(i: Int): VariantVal = rows(i).getVariant(ordinals(i))
  override def getStruct(i: Int, numFields: Int): InternalRow = rows(i).getStruct(ordinals(i), numFields)
  override def getArray(i: Int): ArrayData = rows(i).getArray(ordinals(i))
  override def getMap(i: Int): MapData = rows(i).getMap(ordinals(i))
  override def get(i: Int, dataType: DataType): AnyRef = rows(i).get(ordinals(i), dataType)
}
