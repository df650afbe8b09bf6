package io.sparkcer.spark.common

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types.{ByteType, DataType, DateType, IntegerType, ShortType}

/** An order column's value (an integer, a DATE or a TIMESTAMP) read as a Long in the column's own units. */
object OrderColumn {
  def longOf(dataType: DataType): (InternalRow, Int) => Long = dataType match {
    case ByteType => _.getByte(_).toLong
    case ShortType => _.getShort(_).toLong
    case IntegerType | DateType => _.getInt(_).toLong
    case _ => _.getLong(_)
  }
}
