package io.sparkcer.spark.ceql

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types.StructType

import io.sparkcer.spark.stream.{KeyedRun, RowCodec}

/**
 * A CEQL query's run for one key of a stream ([[io.sparkcer.spark.stream.EventTimeProcessor]]): the engine's
 * evaluator, its state (the window's events, the tECS and the active states) restored and saved per key. A match is
 * output when its last event is read. Per event: CORE's constant update; per key and batch in which it has work,
 * reading and writing its state, which is proportional to the events inside its window.
 */
final class CerStreamRun(task: CerTask, inputSchema: StructType, partitionIndex: Int) extends KeyedRun {
  private val opened = task.open(partitionIndex)
  private val evaluator = opened.evaluator
  private val rows = new RowCodec(inputSchema)
  private val timeOrdinal = task.orderOrdinals.head
  val streamOrder: java.util.Comparator[InternalRow] = KeyedRun.streamOrder(task.totalOrder(task.input))

  /** Rows placed in the stream that the engine will read (not those it passes by). */
  def kept(row: InternalRow): Boolean = task.ordered(row) && evaluator.reads(row)
  def eventTime(row: InternalRow): Long = row.getLong(timeOrdinal)

  def start(saved: Option[Array[Byte]]): Unit = saved match {
    case Some(bytes) => evaluator.load(RowCodec.input(bytes), rows)
    case None => evaluator.reset()
  }

  def advance(ready: Array[InternalRow], watermark: Long): Iterator[InternalRow] = {
    val found = opened.matches(ready.iterator).map(_.copy()).toVector // the writer reuses its row
    evaluator.advanceTo(watermark)
    found.iterator
  }

  def saved(): Option[Array[Byte]] = if (evaluator.isEmpty) None else Some(RowCodec.bytes(evaluator.save(_, rows)))
  def expiresAt: Option[Long] = evaluator.expiresAt
}
