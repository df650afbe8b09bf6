package io.sparkcer.spark.rowpattern

import scala.collection.mutable

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.BindReferences
import org.apache.spark.sql.catalyst.expressions.BoundReference
import org.apache.spark.sql.types.StructType

import io.sparkcer.engine.rowpattern.RowPatternPartition
import io.sparkcer.spark.stream.{EventTimeProcessor, KeyedRun, RowCodec}

/**
 * MATCH_RECOGNIZE's run for one partition of a stream ([[io.sparkcer.spark.stream.EventTimeProcessor]]): the partition's
 * matching ([[RowPatternPartition]]) restored from its state, fed the rows that became final, told how far the
 * watermark has come, and saved back. It keeps the rows its undecided matches and navigation can still read, the
 * matcher's threads and the matches waiting for rows their measures read (NEXT); between its matches, the few rows
 * PREV reads back and its counters (MATCH_NUMBER counts on across batches), unless its query reads none of them.
 *
 * @param idleTimeout when set, a gap longer than this (in event-time units) between two rows of the key ends the
 *                    partition before the second, as if it had another PARTITION BY key
 */
final class RowPatternStreamRun(task: RowPatternTask, inputSchema: StructType, partitionIndex: Int,
    idleTimeout: Option[Long])
    extends KeyedRun {
  private val opened = new RowPatternTask.Opened(task, partitionIndex)
  private val rows = new RowCodec(inputSchema)
  private val out = mutable.Queue.empty[InternalRow]
  private var partition: RowPatternPartition[InternalRow, InternalRow] = _
  /** The event time of the partition's last row; NoRow before its first. */
  private var lastRow = RowPatternStreamRun.NoRow
  private val timeOrdinal =
    BindReferences.bindReference(task.order.head.child, task.input).asInstanceOf[BoundReference].ordinal
  val streamOrder: java.util.Comparator[InternalRow] = KeyedRun.streamOrder(task.totalOrder(task.input))

  /** A row without an event time has no place in the stream. */
  def kept(row: InternalRow): Boolean = !row.isNullAt(timeOrdinal)
  def eventTime(row: InternalRow): Long = row.getLong(timeOrdinal)

  def start(saved: Option[Array[Byte]]): Unit = {
    begin()
    saved.foreach { bytes =>
      val in = RowCodec.input(bytes)
      partition.load(in, rows)
      lastRow = in.readLong()
    }
  }

  def advance(ready: Array[InternalRow], watermark: Long): Iterator[InternalRow] = {
    ready.foreach { row =>
      val time = eventTime(row)
      if (endsBefore(time)) end()
      partition.push(row)
      lastRow = time
    }
    // No row at or below the watermark can come any more.
    if (endsBefore(watermark + 1)) end()
    // Rows after the watermark are later than it (the event time is in microseconds, the window in milliseconds).
    else partition.advanceTo(Math.floorDiv(watermark, EventTimeProcessor.MicrosPerMilli))
    val found = out.toVector
    out.clear()
    found.iterator
  }

  def saved(): Option[Array[Byte]] =
    if (!keeps) None
    else Some(
      RowCodec.bytes { out =>
        partition.save(out, rows)
        out.writeLong(lastRow)
      })

  def expiresAt: Option[Long] =
    if (!keeps) None
    else (partition.expiresAt.map(Math.multiplyExact(_, EventTimeProcessor.MicrosPerMilli)) ++
      idleTimeout.map(Math.addExact(lastRow, _))).minOption

  /** Whether the partition carries anything to the key's next row: not when it ended or has nothing to carry. */
  private def keeps: Boolean = lastRow != RowPatternStreamRun.NoRow && !partition.isEmpty

  /** Whether a row at `time` comes after a gap that ends the partition. */
  private def endsBefore(time: Long): Boolean =
    lastRow != RowPatternStreamRun.NoRow && idleTimeout.exists(time - lastRow > _)

  /** The partition ends, as a table's does: its matches are decided; the key's next row begins another. */
  private def end(): Unit = {
    partition.finish()
    begin()
  }

  private def begin(): Unit = {
    partition = opened.partition(out += _)
    lastRow = RowPatternStreamRun.NoRow
  }
}

private object RowPatternStreamRun {
  val NoRow: Long = Long.MinValue
}
