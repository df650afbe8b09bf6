package io.sparkcer.spark.rowpattern

import scala.collection.mutable

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.BindReferences
import org.apache.spark.sql.catalyst.expressions.BoundReference
import org.apache.spark.sql.catalyst.expressions.codegen.GenerateOrdering
import org.apache.spark.sql.types.StructType

import io.sparkcer.spark.{KeyedRun, RowCodec}

/**
 * MATCH_RECOGNIZE's run for one partition of a stream ([[io.sparkcer.spark.EventTimeProcessor]]): the partition's
 * matching ([[RowPatternTask.Partition]]) restored from its state, fed the rows that became final, told how far the
 * watermark has come, and saved back. It keeps the rows its undecided matches and navigation can still read, the
 * matcher's threads and the matches waiting for rows their measures read (NEXT); between its matches, the few rows
 * PREV reads back and its counters (MATCH_NUMBER counts on across batches).
 */
final class RowPatternStreamRun(task: RowPatternTask, inputSchema: StructType, partitionIndex: Int) extends KeyedRun {
  private val opened = new RowPatternTask.Opened(task, partitionIndex)
  private val rows = new RowCodec(inputSchema)
  private val out = mutable.Queue.empty[InternalRow]
  private var partition: RowPatternTask.Partition = _
  private val timeOrdinal =
    BindReferences.bindReference(task.order.head.child, task.input).asInstanceOf[BoundReference].ordinal
  val streamOrder: java.util.Comparator[InternalRow] =
    GenerateOrdering.generate(task.order.map(BindReferences.bindReference(_, task.input)))

  /** A row without an event time has no place in the stream. */
  def kept(row: InternalRow): Boolean = !row.isNullAt(timeOrdinal)
  def eventTime(row: InternalRow): Long = row.getLong(timeOrdinal)

  def start(saved: Option[Array[Byte]]): Unit = {
    partition = new RowPatternTask.Partition(opened, out)
    saved.foreach(bytes => partition.load(RowCodec.input(bytes), rows))
  }

  def advance(ready: Array[InternalRow], watermark: Long): Iterator[InternalRow] = {
    ready.foreach(partition.add)
    // Rows after the watermark are later than it (the event time is in microseconds, the window in milliseconds).
    partition.expire(Math.floorDiv(watermark, RowPatternStreamRun.MicrosPerMilli))
    val found = out.toVector
    out.clear()
    found.iterator
  }

  def saved(): Option[Array[Byte]] = Some(RowCodec.bytes(partition.save(_, rows)))
  def expiresAt: Option[Long] = partition.expiresAt.map(Math.multiplyExact(_, RowPatternStreamRun.MicrosPerMilli))
}

private object RowPatternStreamRun {
  val MicrosPerMilli = 1000L
}
