package io.sparkcer.spark

import java.io.{ByteArrayInputStream, ByteArrayOutputStream, DataInput, DataInputStream, DataOutput, DataOutputStream}

import org.apache.spark.TaskContext
import org.apache.spark.sql.{Encoders, Row}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.encoders.ExpressionEncoder
import org.apache.spark.sql.catalyst.expressions.{BindReferences, UnsafeRow}
import org.apache.spark.sql.catalyst.expressions.codegen.GenerateOrdering
import org.apache.spark.sql.streaming.{ExpiredTimerInfo, ListState, OutputMode, StatefulProcessor, TimeMode, TimerValues, TTLConfig, ValueState}
import org.apache.spark.sql.types.StructType

import io.sparkcer.engine.eval.EventCodec

/**
 * A CEQL query on a stream, as the stateful processor of Spark's `transformWithState` (one grouping key per
 * PARTITION BY key; one for the whole stream without PARTITION BY or with CONSUME BY ANY).
 *
 * Rows arrive in micro-batches, in no order. A row is only read by the engine once it is final: its event time
 * is at or below the watermark, so no row that precedes it in the stream can still come (Spark drops later ones
 * as late). Until then it waits in `pending`. Each key has one event-time timer, at the time its next pending row
 * becomes final or its window empties; when it fires, the final rows are sorted in stream order and read by the
 * engine, whose state (the window's events, the tECS and the active states) is restored from `engine` and saved
 * back. A match is reported once, when its last event is read, so the union of the batches' output is the batch
 * query's result. A key with nothing left in its window leaves the state store.
 *
 * Per event: one append to `pending`, then CORE's constant update. Per key and batch in which its timer fires:
 * reading and writing its saved state, which is proportional to the events inside its window.
 *
 * @param eventTimeUnitsPerMilli the event-time column's units per millisecond (timestamps are microseconds)
 */
final class CerStatefulProcessor(task: CerTask, inputSchema: StructType, outputSchema: StructType,
    eventTimeUnitsPerMilli: Long) extends StatefulProcessor[Row, Row, Row] {

  @transient private var pending: ListState[Array[Byte]] = _
  @transient private var engine: ValueState[Array[Byte]] = _
  @transient private var wakeAt: ValueState[Long] = _
  @transient private lazy val runtime = new CerStatefulProcessor.Runtime(task, inputSchema, outputSchema)

  override def init(outputMode: OutputMode, timeMode: TimeMode): Unit = {
    val handle = getHandle
    pending = handle.getListState[Array[Byte]]("pending", Encoders.BINARY, TTLConfig.NONE)
    engine = handle.getValueState[Array[Byte]]("engine", Encoders.BINARY, TTLConfig.NONE)
    wakeAt = handle.getValueState[Long]("wakeAt", Encoders.scalaLong, TTLConfig.NONE)
  }

  override def handleInputRows(key: Row, rows: Iterator[Row], timerValues: TimerValues): Iterator[Row] = {
    val placed = rows.map(runtime.toEvent).filter(runtime.kept).toArray[InternalRow]
    if (placed.nonEmpty) {
      // One list entry per batch: the state store merges each appended value on its own.
      pending.appendValue(runtime.encode(placed))
      wake(placed.iterator.map(runtime.eventTime).min)
    }
    Iterator.empty
  }

  override def handleExpiredTimer(key: Row, timerValues: TimerValues, expired: ExpiredTimerInfo): Iterator[Row] = {
    wakeAt.clear() // Spark deletes the timer that fired
    val watermark = Math.multiplyExact(timerValues.getCurrentWatermarkInMs(), eventTimeUnitsPerMilli)
    val (ready, waiting) = pending.get().flatMap(runtime.decode).toArray.partition(runtime.eventTime(_) <= watermark)
    val evaluator = runtime.opened.evaluator
    if (engine.exists()) runtime.load(engine.get()) else evaluator.reset()
    java.util.Arrays.sort(ready, runtime.streamOrder)
    val found = runtime.opened.matches(ready.iterator).map(runtime.toRow).toVector
    evaluator.advanceTo(watermark)

    if (waiting.isEmpty) pending.clear() else pending.put(Array(runtime.encode(waiting)))
    if (evaluator.isEmpty) engine.clear() else engine.update(runtime.save())
    (waiting.iterator.map(runtime.eventTime) ++ evaluator.expiresAt).minOption.foreach(wake)
    found.iterator
  }

  /** Keeps the key's one timer at the earliest moment it has work: when the watermark reaches `eventTime`. */
  private def wake(eventTime: Long): Unit = {
    // Timers fire once the watermark (milliseconds) is above them; the work is due once it is at eventTime.
    val at = -Math.floorDiv(-eventTime, eventTimeUnitsPerMilli) - 1
    if (!wakeAt.exists() || at < wakeAt.get()) {
      if (wakeAt.exists()) getHandle.deleteTimer(wakeAt.get())
      getHandle.registerTimer(at)
      wakeAt.update(at)
    }
  }

  override def toString: String = s"CerStatefulProcessor(${task.pattern})"
}

private object CerStatefulProcessor {
  /** One task's compiled query and row conversions, made when the task reads its first row. */
  final class Runtime(task: CerTask, inputSchema: StructType, outputSchema: StructType) extends EventCodec[InternalRow] {
    val opened: CerTask.Opened = task.open(Option(TaskContext.get()).fold(0)(_.partitionId()))
    private val toInternal = ExpressionEncoder(inputSchema).createSerializer()
    private val toExternal = ExpressionEncoder(outputSchema).resolveAndBind().createDeserializer()
    private val fields = inputSchema.length
    private val timeOrdinal = task.orderOrdinals.head
    val streamOrder: java.util.Comparator[InternalRow] =
      GenerateOrdering.generate(task.order.map(BindReferences.bindReference(_, task.input)))

    def toEvent(row: Row): InternalRow = toInternal(row).copy()
    /** Rows placed in the stream that the engine will read (not those it passes by): they wait in `pending`. */
    def kept(row: InternalRow): Boolean = task.ordered(row) && opened.evaluator.reads(row)
    def toRow(row: InternalRow): Row = toExternal(row)
    def eventTime(row: InternalRow): Long = row.getLong(timeOrdinal)

    def write(event: InternalRow, out: DataOutput): Unit = UnsafeRowBytes.write(event.asInstanceOf[UnsafeRow], out)
    def read(in: DataInput): InternalRow = UnsafeRowBytes.read(in, fields)

    /** Rows waiting for the watermark, as one value. */
    def encode(rows: Array[InternalRow]): Array[Byte] = bytes { out => out.writeInt(rows.length); rows.foreach(write(_, out)) }
    def decode(value: Array[Byte]): Iterator[InternalRow] = {
      val in = input(value)
      Iterator.fill(in.readInt())(read(in))
    }

    def save(): Array[Byte] = bytes(opened.evaluator.save(_, this))
    def load(saved: Array[Byte]): Unit = opened.evaluator.load(input(saved), this)

    private def bytes(write: DataOutputStream => Unit): Array[Byte] = {
      val buffer = new ByteArrayOutputStream()
      val out = new DataOutputStream(buffer)
      write(out)
      out.flush()
      buffer.toByteArray
    }

    private def input(value: Array[Byte]) = new DataInputStream(new ByteArrayInputStream(value))
  }
}
