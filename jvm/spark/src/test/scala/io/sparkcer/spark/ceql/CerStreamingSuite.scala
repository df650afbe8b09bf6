package io.sparkcer.spark.ceql

import java.sql.Timestamp

import org.apache.spark.sql.{AnalysisException, DataFrame, Row, SparkSession}
import org.apache.spark.sql.execution.streaming.MemoryStream
import org.apache.spark.sql.streaming.StreamingQuery
import org.scalatest.funsuite.AnyFunSuite

import io.sparkcer.spark.{LocalSpark, RandomTicks}
import io.sparkcer.spark.stream.EventTimeProcessor

/**
 * CEQL on a stream (a MemoryStream fed batch by batch): the matches equal the batch query's on the same rows,
 * whatever the cut, late rows are dropped and counted, and the errors say what to write. The pytest suite covers
 * file sources, restarts from a checkpoint and the state size.
 */
class CerStreamingSuite extends AnyFunSuite {

  private lazy val spark: SparkSession = LocalSpark.streamingSession()

  private type Event = (String, String, Long, Timestamp)

  /** 400 events of 3 stocks, in time order. */
  private val events: Seq[Event] = RandomTicks(400, seed = 5).map(t => (t.side, t.name, t.id, t.ts))

  /** Rows far in the future move the watermark past every real event, so that all their matches are final. */
  private val flush: Seq[Event] = Seq(("FLUSH", "Z", 10000L, new Timestamp(10000000L)))

  /** Queries over the view `events`, in every SQL form. */
  private val queries = Seq(
    "SELECT * FROM events PATTERN SELL AS s ; BUY AS b ; BUY AS c FILTER c[id > 100] " +
      "PARTITION BY name ORDER BY ts, id WITHIN 2 SECONDS",
    "SELECT LAST * FROM events WHERE SELL AS s ; BUY+ AS b ; SELL AS e " +
      "PARTITION BY name ORDER BY ts, id WITHIN 1500 MILLISECONDS",
    "SELECT NEXT s, b FROM events WHERE SELL AS s ; BUY AS b ORDER BY ts, id WITHIN 1 SECONDS",
    "SELECT * FROM cer(TABLE(events) PARTITION BY (name) ORDER BY (ts, id), " +
      "'SELECT MAX * WHERE SELL AS s ; (BUY OR SELL)+ AS x WITHIN 5 EVENTS')",
    "SELECT * FROM events PATTERN SELL AS s ; BUY AS b PARTITION BY name ORDER BY ts, id WITHIN 800 MILLISECONDS " +
      "CONSUME BY ANY"
  )

  private def matches(query: String, input: DataFrame): DataFrame = {
    input.createOrReplaceTempView("events")
    spark.sql(query)
  }

  private def run(query: String, cuts: Seq[Int], delay: String = "1 second"): (Seq[Row], StreamingQuery) = {
    import spark.implicits._
    implicit val sqlContext: org.apache.spark.sql.SQLContext = spark.sqlContext
    val source = MemoryStream[Event]
    val input = source.toDF().toDF("event_type", "name", "id", "ts").withWatermark("ts", delay)
    val q = matches(query, input).writeStream.format("memory").queryName("out").outputMode("append").start()
    try {
      val bounds = (0 +: cuts :+ events.length).distinct.sorted
      bounds.zip(bounds.tail).foreach { case (a, b) => source.addData(events.slice(a, b)); q.processAllAvailable() }
      flush.foreach { e => source.addData(e); q.processAllAvailable() }
      source.addData(flush.map(e => e.copy(_4 = new Timestamp(e._4.getTime + 1)))); q.processAllAvailable()
      (spark.table("out").collect().toSeq, q)
    } finally q.stop()
  }

  private def batch(query: String): Seq[Row] = {
    import spark.implicits._
    matches(query, events.toDF("event_type", "name", "id", "ts")).collect().toSeq
  }

  private def same(a: Seq[Row], b: Seq[Row]): Boolean = a.map(_.toString).sorted == b.map(_.toString).sorted

  for ((query, i) <- queries.zipWithIndex) test(s"stream = batch, cut anywhere: $query") {
    val expected = batch(query)
    assert(expected.nonEmpty || query.contains("NEXT"), "the workload should produce matches")
    val random = new java.util.Random(i)
    val cuts = Seq.fill(8)(random.nextInt(events.length))
    val (got, _) = run(query, cuts)
    assert(same(got, expected), s"${got.length} matches from the stream, ${expected.length} from the table")
  }

  test("late rows are dropped, counted and never matched") {
    import spark.implicits._
    implicit val sqlContext: org.apache.spark.sql.SQLContext = spark.sqlContext
    val source = MemoryStream[Event]
    val input = source.toDF().toDF("event_type", "name", "id", "ts").withWatermark("ts", "1 second")
    val q = matches(
      "SELECT * FROM events PATTERN SELL AS s ; BUY AS b PARTITION BY name ORDER BY ts WITHIN 60 SECONDS", input)
      .writeStream.format("memory").queryName("late").outputMode("append").start()
    try {
      def at(ms: Long) = new Timestamp(ms)
      Seq(
        Seq(("SELL", "A", 1L, at(1000))),
        Seq(("BUY", "A", 2L, at(5000))),
        Seq(("SELL", "A", 3L, at(2000))), // late: the watermark is 4 s; it would pair with BUY 2 and BUY 4
        Seq(("BUY", "A", 4L, at(30000))),
        Seq(("BUY", "A", 5L, at(60000)))
      ).foreach { rows =>
        source.addData(rows); q.processAllAvailable()
      }
      val rows = spark.table("late").selectExpr("s.id", "b.id").collect().map(r => (r.getLong(0), r.getLong(1))).toSet
      assert(rows == Set((1L, 2L), (1L, 4L)))
      val dropped = q.recentProgress.flatMap(_.stateOperators).map(_.numRowsDroppedByWatermark).sum
      assert(dropped == 1)
    } finally q.stop()
  }

  test("one DataFrame feeds two queries: each execution runs a processor of its own") {
    import spark.implicits._
    implicit val sqlContext: org.apache.spark.sql.SQLContext = spark.sqlContext
    val source = MemoryStream[Event]
    val input = source.toDF().toDF("event_type", "name", "id", "ts").withWatermark("ts", "1 second")
    val found = matches(queries.head, input)
    def processor(plan: org.apache.spark.sql.catalyst.plans.logical.LogicalPlan): EventTimeProcessor = {
      val found = plan.collect {
        case t: org.apache.spark.sql.catalyst.plans.logical.TransformWithState =>
          t.statefulProcessor.asInstanceOf[EventTimeProcessor]
      }
      assert(found.size == 1, plan)
      found.head
    }
    val template = processor(found.queryExecution.analyzed)
    val optimizer = spark.sessionState.optimizer
    val first = processor(optimizer.execute(found.queryExecution.analyzed))
    val second = processor(optimizer.execute(found.queryExecution.analyzed))
    assert(template.isTemplate && !first.isTemplate && !second.isTemplate)
    assert(Set(template, first, second).size == 3, "Spark's driver keeps a query's handle in its processor")
    assert(processor(found.queryExecution.analyzed) eq template, "the analyzed plan keeps its template")

    // Two queries on the DataFrame, started together, each with its own rows.
    val (a, b) = (found.writeStream.format("memory").queryName("twice_a").outputMode("append").start(),
      found.writeStream.format("memory").queryName("twice_b").outputMode("append").start())
    try {
      (events ++ flush).grouped(100).foreach { rows =>
        source.addData(rows); a.processAllAvailable(); b.processAllAvailable()
      }
      source.addData(flush.map(e => e.copy(_4 = new Timestamp(e._4.getTime + 1))))
      a.processAllAvailable(); b.processAllAvailable()
      val expected = batch(queries.head)
      assert(same(spark.table("twice_a").collect().toSeq, expected))
      assert(same(spark.table("twice_b").collect().toSeq, expected))
    } finally { a.stop(); b.stop() }
  }

  test("errors say what to write: watermark, window, event time") {
    import spark.implicits._
    implicit val sqlContext: org.apache.spark.sql.SQLContext = spark.sqlContext
    val stream = MemoryStream[Event].toDF().toDF("event_type", "name", "id", "ts")
    def message(input: DataFrame, clauses: String) =
      intercept[AnalysisException](matches(s"SELECT * FROM events PATTERN SELL ; BUY ORDER BY ts $clauses",
          input)).getMessage
    assert(message(stream, "WITHIN 1 SECONDS").contains("withWatermark(\"ts\""))
    val watermarked = stream.withWatermark("ts", "1 second")
    assert(message(watermarked, "").contains("needs WITHIN"))
    val other = stream.withColumn("t2", $"ts").withWatermark("t2", "1 second")
    assert(message(other, "WITHIN 1 SECONDS").contains("watermark is on t2, but its stream order starts with ts"))
  }
}
