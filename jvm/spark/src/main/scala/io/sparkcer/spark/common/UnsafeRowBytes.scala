package io.sparkcer.spark.common

import java.io.{DataInput, DataOutput}

import org.apache.spark.sql.catalyst.expressions.UnsafeRow

/** An UnsafeRow in saved state (the events of a stream's window, an aggregate's buffer): its length, then its bytes. */
object UnsafeRowBytes {
  def write(row: UnsafeRow, out: DataOutput): Unit = {
    val bytes = row.getBytes
    out.writeInt(bytes.length)
    out.write(bytes)
  }

  def read(in: DataInput, fields: Int): UnsafeRow = {
    val bytes = new Array[Byte](in.readInt())
    in.readFully(bytes)
    val row = new UnsafeRow(fields)
    row.pointTo(bytes, bytes.length)
    row
  }
}
