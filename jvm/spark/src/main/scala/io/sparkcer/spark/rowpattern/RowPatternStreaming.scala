package io.sparkcer.spark.rowpattern

import org.apache.spark.sql.catalyst.expressions.SubqueryExpression
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.internal.SQLConf

import io.sparkcer.engine.rowpattern.RowPattern
import io.sparkcer.spark.common.{CerConf, CerErrors}
import io.sparkcer.spark.stream.{EventTimeProcessor, StreamingInput}

/**
 * MATCH_RECOGNIZE over a streaming input becomes Spark's `transformWithState` grouped by PARTITION BY (one group
 * without it), its processor running the matcher per partition ([[RowPatternStreamRun]]) in event-time mode, in
 * append mode, as a CEQL query does ([[io.sparkcer.spark.ceql.StreamingCer]]).
 *
 * A stream's partitions never end, so a preferred match is decided when no row that could make a better one can
 * come: the watermark passes the first row of the match by WITHIN's bound. That bound is what keeps the state of
 * each partition small, so a streaming MATCH_RECOGNIZE needs one; the anchor `$` (the partition's last row) never
 * comes, so it is refused. A partition ends only after an idle gap, when `spark.cer.streaming.partitionIdleTimeout`
 * gives one.
 */
object RowPatternStreaming {
  def lower(r: RowPatternRecognition): LogicalPlan = {
    val clause = r.pattern.clause
    val text = r.pattern.text
    StreamingInput.checkStateStore("MATCH_RECOGNIZE")
    if (r.order.isEmpty)
      throw CerErrors.analysis(
        "MATCH_RECOGNIZE on a stream reads each partition in event-time order: write ORDER BY " +
          "the watermarked time column first",
        clause.pos,
        text,
        "MATCH_RECOGNIZE".length
      )
    StreamingInput.checkEventTime(r.order, r.child.output, "MATCH_RECOGNIZE", "MATCH_RECOGNIZE")
    if (clause.within.isEmpty)
      throw CerErrors.analysis(
        "MATCH_RECOGNIZE on a stream needs a bound on the span of a match, which decides its " +
          "matches as the watermark passes and bounds the state kept per partition: write PATTERN (...) WITHIN INTERVAL " +
          s"'10' MINUTES (a span of the event time ${r.order.head.child.sql})",
        clause.pattern.pos,
        text,
        1
      )
    RowPattern.parts(clause.pattern).collectFirst { case end: RowPattern.PartitionEnd => end }.foreach { end =>
      throw CerErrors.analysis("the anchor $ matches at the last row of a partition, which a stream never reaches: " +
          "leave it out, or run the query on a table", end.pos, text, 1)
    }
    // The task is made here, at analysis, where a table's operator makes it once Spark has computed its subqueries.
    (r.defines ++ r.measures).find(e => SubqueryExpression.hasSubquery(e)).foreach { e =>
      throw CerErrors.analysis(
        s"${e.written} holds a subquery, which MATCH_RECOGNIZE reads on a table, not on a " +
          "stream: join its value to the stream's rows before the clause and refer to that column",
        clause.pos,
        text,
        "MATCH_RECOGNIZE".length
      )
    }
    val task = r.task(r.child.output, CerConf.partialMatchBound(SQLConf.get))
    val idleTimeout = CerConf.streamPartitionIdleTimeoutMillis(SQLConf.get)
    val name = s"MATCH_RECOGNIZE ${r.pattern.describe}" +
      idleTimeout.fold("")(ms => s", a partition ends after ${ms} ms without rows")
    EventTimeProcessor.transformWithState(r.clusterKeys, r.child, r.output, name) {
      (inputSchema, partitionIndex) =>
        new RowPatternStreamRun(
          task, inputSchema, partitionIndex, idleTimeout.map(Math.multiplyExact(_, EventTimeProcessor.MicrosPerMilli)))
    }
  }

}
