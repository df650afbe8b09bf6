package io.sparkcer.spark.stream

import java.io.{ByteArrayInputStream, ByteArrayOutputStream, DataInput, DataInputStream, DataOutput, DataOutputStream}

import org.apache.spark.sql.Row
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.encoders.ExpressionEncoder
import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.types.StructType

import io.sparkcer.engine.eval.EventCodec
import io.sparkcer.spark.common.UnsafeRowBytes

/**
 * Rows of one schema between Spark's external rows, internal rows and the bytes of saved state (where they are also
 * the engine's events: [[EventCodec]]).
 */
final class RowCodec(schema: StructType) extends EventCodec[InternalRow] {
  private val serializer = ExpressionEncoder(schema).createSerializer()
  private val fields = schema.length

  def toInternal(row: Row): InternalRow = serializer(row).copy()

  def write(row: InternalRow, out: DataOutput): Unit =
    UnsafeRowBytes.write(row.asInstanceOf[UnsafeRow], out)
  def read(in: DataInput): InternalRow = UnsafeRowBytes.read(in, fields)

  /** Rows as one value. */
  def encode(rows: Array[InternalRow]): Array[Byte] = RowCodec.bytes { out =>
    out.writeInt(rows.length); rows.foreach(write(_, out))
  }
  def decode(value: Array[Byte]): Iterator[InternalRow] = {
    val in = RowCodec.input(value)
    Iterator.fill(in.readInt())(read(in))
  }
}

object RowCodec {
  def bytes(write: DataOutputStream => Unit): Array[Byte] = {
    val buffer = new ByteArrayOutputStream()
    val out = new DataOutputStream(buffer)
    write(out)
    out.flush()
    buffer.toByteArray
  }

  def input(value: Array[Byte]): DataInputStream = new DataInputStream(new ByteArrayInputStream(value))
}
