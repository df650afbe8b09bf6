package io.sparkcer.spark

import org.apache.spark.sql.{Encoders, Row}
import org.apache.spark.sql.catalyst.expressions.{Alias, Ascending, Attribute, Literal}
import org.apache.spark.sql.catalyst.plans.logical.{EventTimeWatermark, LogicalPlan, Project, TransformWithState, UpdateEventTimeWatermarkColumn}
import org.apache.spark.sql.catalyst.types.DataTypeUtils
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.streaming.{OutputMode, TimeMode}
import org.apache.spark.sql.types.{TimestampNTZType, TimestampType}

/**
 * A CEQL query over a streaming input becomes Spark's own `transformWithState` (Spark gives its state store,
 * checkpoints, watermarks and late-row dropping only to its own stateful operators) grouped by the PARTITION BY
 * keys, with [[CerStatefulProcessor]] running the engine in event-time mode, in append mode.
 */
object StreamingCer {
  private val MicrosPerMilli = 1000L

  def lower(m: CerMatch): LogicalPlan = {
    checkStateStore()
    checkEventTime(m)
    checkWindow(m)
    // Without PARTITION BY (or with CONSUME BY ANY, which spans the keys) the whole stream is one group.
    val keys =
      if (m.pattern.grouped) m.partitionKeys.zipWithIndex.map { case (k, i) => Alias(k, s"__cer_key$i")() }
      else Seq(Alias(Literal(0), "__cer_stream_key")())
    val input = m.child.output
    val inputSchema = DataTypeUtils.fromAttributes(input)
    val outputSchema = DataTypeUtils.fromAttributes(m.output)
    val task = m.task(input, CerConf.matchBound(SQLConf.get))
    val matches = TransformWithState[Row, Row, Row](
      keys.map(_.toAttribute), input, new CerStatefulProcessor(task, inputSchema, outputSchema, MicrosPerMilli),
      TimeMode.EventTime(), OutputMode.Append(), Project(input ++ keys, m.child))(
      Encoders.row(DataTypeUtils.fromAttributes(keys.map(_.toAttribute))), Encoders.row(inputSchema),
      Encoders.row(outputSchema))
    // A match is emitted in the batch whose watermark reaches its last event, so match_end is the output's event
    // time: a windowed aggregation or another stateful operator can follow (Spark checks it per row).
    UpdateEventTimeWatermarkColumn(matches.output(m.pattern.analyzed.declaredKeys + 1), None, matches)
  }

  /** `transformWithState` keeps several state variables, which only the RocksDB state store can (Spark 4.0). */
  private def checkStateStore(): Unit = {
    val provider = SQLConf.get.stateStoreProviderClass
    if (!provider.contains("RocksDB"))
      throw CerErrors.analysis(s"a CEQL query on a stream keeps its state with Spark's transformWithState, which " +
        s"needs the RocksDB state store, not $provider: set ${SQLConf.STATE_STORE_PROVIDER_CLASS.key}=" +
        s"$RocksDbProvider before the query starts (spark_cer.session() and spark_cer.configure() do)")
  }

  private val RocksDbProvider = "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider"

  /** The event time is the first stream-order column: an ascending timestamp that carries the watermark. */
  private def checkEventTime(m: CerMatch): Unit = {
    val first = m.order.head
    val column = first.child.asInstanceOf[Attribute]
    def watermarked(a: Attribute) = a.metadata.contains(EventTimeWatermark.delayKey)
    if (!watermarked(column)) {
      val problem = m.child.output.find(watermarked) match {
        case Some(other) =>
          s"the stream's watermark is on ${other.name}, but its stream order starts with ${column.name}: a stream " +
            s"is read in event-time order, so order it by ${other.name} first (ORDER BY ${other.name}, ...), or set " +
            s"the watermark on ${column.name}"
        case None =>
          s"a CEQL query on a stream needs a watermark on its event time, the first stream-order column " +
            s"${column.name}: call withWatermark(\"${column.name}\", \"10 seconds\") (the delay you allow for late " +
            "rows) on the streaming DataFrame before cer(...); a match is reported once the watermark passes its " +
            "last event"
      }
      throw CerErrors.analysis(problem)
    }
    if (!Seq(TimestampType, TimestampNTZType).contains(column.dataType) || first.direction != Ascending)
      throw CerErrors.analysis(s"the event time of a stream, ${column.name}, must be a TIMESTAMP in ascending " +
        s"order; it is ${column.dataType.sql}${if (first.direction != Ascending) " DESC" else ""}")
  }

  /** A window bounds what each key keeps; without one the state would grow with the stream. */
  private def checkWindow(m: CerMatch): Unit =
    if (m.pattern.analyzed.window.isEmpty)
      throw CerErrors.analysis("a CEQL query on a stream needs WITHIN, which bounds the state kept for each key: " +
        s"add a window, e.g. WITHIN 10 MINUTES (a span of the event time ${m.order.head.child.asInstanceOf[Attribute].name}) " +
        "or WITHIN 1000 EVENTS")
}
