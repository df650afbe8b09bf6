package io.sparkcer.spark.ceql

import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, UpdateEventTimeWatermarkColumn}
import org.apache.spark.sql.internal.SQLConf

import io.sparkcer.spark.common.{CerConf, CerErrors}
import io.sparkcer.spark.stream.{EventTimeProcessor, StreamingInput}

/**
 * A CEQL query over a streaming input becomes Spark's own `transformWithState` (Spark gives its state store,
 * checkpoints, watermarks and late-row dropping only to its own stateful operators) grouped by the PARTITION BY
 * keys, with [[EventTimeProcessor]] running the engine ([[CerStreamRun]]) in event-time mode, in append mode.
 */
object StreamingCer {
  def lower(m: CerMatch): LogicalPlan = {
    StreamingInput.checkStateStore("a CEQL query")
    StreamingInput.checkEventTime(m.order, m.child.output, "a CEQL query", "cer(...)")
    checkWindow(m)
    // Without PARTITION BY (or with CONSUME BY ANY, which spans the keys) the whole stream is one group.
    val keys = if (m.pattern.grouped) m.partitionKeys else Nil
    val task = m.task(m.child.output, CerConf.matchBound(SQLConf.get))
    val matches = EventTimeProcessor.transformWithState(keys, m.child, m.output, s"CEQL ${task.pattern}") {
      (inputSchema, partitionIndex) => new CerStreamRun(task, inputSchema, partitionIndex)
    }
    // A match is emitted in the batch whose watermark reaches its last event, so match_end is the output's event
    // time: a windowed aggregation or another stateful operator can follow (Spark checks it per row).
    UpdateEventTimeWatermarkColumn(matches.output(m.pattern.analyzed.declaredKeys + 1), None, matches)
  }

  /** A window bounds what each key keeps; without one the state would grow with the stream. */
  private def checkWindow(m: CerMatch): Unit =
    if (m.pattern.analyzed.window.isEmpty)
      throw CerErrors.analysis("a CEQL query on a stream needs WITHIN, which bounds the state kept for each key: " +
        s"add a window, e.g. WITHIN 10 MINUTES (a span of the event time ${m.order.head.child.asInstanceOf[
            Attribute].name}) " +
        "or WITHIN 1000 EVENTS")
}
