package io.sparkcer.spark.stream

import org.apache.spark.sql.catalyst.expressions.{Ascending, Attribute, SortOrder}
import org.apache.spark.sql.catalyst.plans.logical.EventTimeWatermark
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.{TimestampNTZType, TimestampType}

import io.sparkcer.spark.common.CerErrors

/**
 * What a pattern over a stream (CEQL or MATCH_RECOGNIZE) asks of its input before it becomes `transformWithState`:
 * the RocksDB state store, and an event time (a watermarked timestamp) that leads the stream order. `query` names
 * the query in the messages ("a CEQL query"), `call` where the user writes it ("cer(...)").
 */
object StreamingInput {
  private val RocksDbProvider = "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider"

  /** `transformWithState` keeps several state variables, which only the RocksDB state store can (Spark 4.0). */
  def checkStateStore(query: String): Unit = {
    val provider = SQLConf.get.stateStoreProviderClass
    if (!provider.contains("RocksDB"))
      throw CerErrors.analysis(s"$query on a stream keeps its state with Spark's transformWithState, which " +
        s"needs the RocksDB state store, not $provider: set ${SQLConf.STATE_STORE_PROVIDER_CLASS.key}=" +
        s"$RocksDbProvider before the query starts (spark_cer.session() and spark_cer.configure() do)")
  }

  /** The event time is the first stream-order column: an ascending timestamp that carries the watermark. */
  def checkEventTime(order: Seq[SortOrder], input: Seq[Attribute], query: String, call: String): Unit = {
    val first = order.head
    val column = first.child.asInstanceOf[Attribute]
    def watermarked(a: Attribute) = a.metadata.contains(EventTimeWatermark.delayKey)
    if (!watermarked(column)) {
      val problem = input.find(watermarked) match {
        case Some(other) =>
          s"the stream's watermark is on ${other.name}, but its stream order starts with ${column.name}: a stream " +
            s"is read in event-time order, so order it by ${other.name} first (ORDER BY ${other.name}, ...), or set " +
            s"the watermark on ${column.name}"
        case None =>
          s"$query on a stream needs a watermark on its event time, the first stream-order column " +
            s"${column.name}: call withWatermark(\"${column.name}\", \"10 seconds\") (the delay you allow for late " +
            s"rows) on the streaming DataFrame before $call; a row is read once the watermark passes it"
      }
      throw CerErrors.analysis(problem)
    }
    if (!Seq(TimestampType, TimestampNTZType).contains(column.dataType) || first.direction != Ascending)
      throw CerErrors.analysis(s"the event time of a stream, ${column.name}, must be a TIMESTAMP in ascending " +
        s"order; it is ${column.dataType.sql}${if (first.direction != Ascending) " DESC" else ""}")
  }
}
