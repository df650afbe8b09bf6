package io.sparkcer.spark.stream

import org.apache.spark.TaskContext
import org.apache.spark.sql.{Encoders, Row}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.encoders.ExpressionEncoder
import org.apache.spark.sql.catalyst.expressions.{Alias, Attribute, Expression, Literal}
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, Project, TransformWithState}
import org.apache.spark.sql.catalyst.types.DataTypeUtils
import org.apache.spark.sql.streaming.{
  ExpiredTimerInfo, ListState, OutputMode, StatefulProcessor, TimeMode, TimerValues, TTLConfig, ValueState
}
import org.apache.spark.sql.types.StructType

/**
 * A pattern over a stream (CEQL or MATCH_RECOGNIZE), as the stateful processor of Spark's `transformWithState`, one
 * grouping key per PARTITION BY key (one for the whole stream without PARTITION BY). What runs per key is a
 * [[KeyedRun]]; this class gives it its rows in stream order, once each, and keeps its state.
 *
 * Rows arrive in micro-batches, in no order. A row is only read once it is final: its event time is at or below the
 * watermark, so no row that precedes it in the stream can still come (Spark drops later ones as late). Until then it
 * waits in `pending`. Each key has one event-time timer, at the time its next pending row becomes final or its run
 * has something to decide when the watermark passes ([[KeyedRun.expiresAt]]); when it fires, the final rows are
 * sorted in stream order and read by the run, restored from `state` and saved back. Each output row is produced
 * once, so the union of the batches' output is the batch query's result. A key whose run keeps nothing leaves the
 * state store.
 *
 * The processor made at analysis is a template ([[OneProcessorPerExecution]]): each execution of the plan runs a
 * [[copyForOneExecution]] of it, since Spark's driver keeps a handle in the processor while it plans a query.
 *
 * @param open makes one task's run, given the task's partition index
 * @param eventTimeUnitsPerMilli the event-time column's units per millisecond (timestamps are microseconds)
 * @param name what EXPLAIN shows: the language and the query
 * @param isTemplate whether this is the processor in the analyzed plan, which no execution runs
 */
final class EventTimeProcessor(open: Int => KeyedRun, inputSchema: StructType, outputSchema: StructType,
    eventTimeUnitsPerMilli: Long, name: String, val isTemplate: Boolean = true)
    extends StatefulProcessor[Row, Row, Row] {

  def copyForOneExecution: EventTimeProcessor =
    new EventTimeProcessor(open, inputSchema, outputSchema, eventTimeUnitsPerMilli, name, isTemplate = false)

  @transient private var pending: ListState[Array[Byte]] = _
  @transient private var state: ValueState[Array[Byte]] = _
  @transient private var wakeAt: ValueState[Long] = _
  @transient private lazy val run = open(Option(TaskContext.get()).fold(0)(_.partitionId()))
  @transient private lazy val rows = new RowCodec(inputSchema)
  @transient private lazy val toExternal = ExpressionEncoder(outputSchema).resolveAndBind().createDeserializer()

  override def init(outputMode: OutputMode, timeMode: TimeMode): Unit = {
    val handle = getHandle
    pending = handle.getListState[Array[Byte]]("pending", Encoders.BINARY, TTLConfig.NONE)
    // Named "engine" since the first release: a checkpoint written then still restores.
    state = handle.getValueState[Array[Byte]]("engine", Encoders.BINARY, TTLConfig.NONE)
    wakeAt = handle.getValueState[Long]("wakeAt", Encoders.scalaLong, TTLConfig.NONE)
  }

  override def handleInputRows(key: Row, input: Iterator[Row], timerValues: TimerValues): Iterator[Row] = {
    val placed = input.map(rows.toInternal).filter(run.kept).toArray[InternalRow]
    if (placed.nonEmpty) {
      // One list entry per batch: the state store merges each appended value on its own.
      pending.appendValue(rows.encode(placed))
      wake(placed.iterator.map(run.eventTime).min)
    }
    Iterator.empty
  }

  override def handleExpiredTimer(key: Row, timerValues: TimerValues, expired: ExpiredTimerInfo): Iterator[Row] = {
    wakeAt.clear() // Spark deletes the timer that fired
    val watermark = Math.multiplyExact(timerValues.getCurrentWatermarkInMs(), eventTimeUnitsPerMilli)
    val (ready, waiting) = pending.get().flatMap(rows.decode).toArray.partition(run.eventTime(_) <= watermark)
    run.start(if (state.exists()) Some(state.get()) else None)
    java.util.Arrays.sort(ready, run.streamOrder)
    val found = run.advance(ready, watermark).map(toExternal).toVector

    if (waiting.isEmpty) pending.clear() else pending.put(Array(rows.encode(waiting)))
    run.saved() match {
      case Some(bytes) => state.update(bytes)
      case None => state.clear()
    }
    (waiting.iterator.map(run.eventTime) ++ run.expiresAt).minOption.foreach(wake)
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

  override def toString: String = s"EventTimeProcessor($name)"
}

object EventTimeProcessor {
  /** A timestamp's units (microseconds) per millisecond, the unit of Spark's watermark. */
  val MicrosPerMilli = 1000L

  /**
   * Spark's `transformWithState` over `child`, grouped by `keys` (the whole stream as one group when there are none),
   * running `open(inputSchema, partitionIndex)` per key in event-time mode, in append mode, with rows of `output`.
   */
  def transformWithState(keys: Seq[Expression], child: LogicalPlan, output: Seq[Attribute], name: String)(
      open: (StructType, Int) => KeyedRun): LogicalPlan = {
    val grouping =
      if (keys.nonEmpty) keys.zipWithIndex.map { case (k, i) => Alias(k, s"__cer_key$i")() }
      else Seq(Alias(Literal(0), "__cer_stream_key")())
    val input = child.output
    val inputSchema = DataTypeUtils.fromAttributes(input)
    val outputSchema = DataTypeUtils.fromAttributes(output)
    TransformWithState[Row, Row, Row](
      grouping.map(_.toAttribute),
      input,
      new EventTimeProcessor(open(inputSchema, _), inputSchema, outputSchema, MicrosPerMilli, name),
      TimeMode.EventTime(),
      OutputMode.Append(),
      Project(input ++ grouping, child)
    )(
      Encoders.row(DataTypeUtils.fromAttributes(grouping.map(_.toAttribute))), Encoders.row(inputSchema),
      Encoders.row(outputSchema))
  }
}
