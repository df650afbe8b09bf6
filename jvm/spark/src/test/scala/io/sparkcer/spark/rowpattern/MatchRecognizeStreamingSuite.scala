package io.sparkcer.spark.rowpattern

import java.nio.file.Files
import java.sql.Timestamp

import scala.collection.mutable

import org.apache.spark.sql.{AnalysisException, DataFrame, Row, SparkSession}
import org.apache.spark.sql.execution.streaming.MemoryStream
import org.scalatest.funsuite.AnyFunSuite

import io.sparkcer.spark.common.CerConf
import io.sparkcer.spark.{LocalSpark, RandomTicks}

/**
 * MATCH_RECOGNIZE on a stream (a MemoryStream fed batch by batch): the rows equal the table's on the same rows,
 * whatever the micro-batch cuts, and across a restart from the checkpoint; MATCH_ROWTIME; late rows dropped; the
 * errors say what to write.
 */
class MatchRecognizeStreamingSuite extends AnyFunSuite {

  private lazy val spark: SparkSession = LocalSpark.streamingSession()

  private type Tick = (String, Long, Int, Timestamp)

  /** 300 prices of 3 stocks, in time order. */
  private val ticks: Seq[Tick] = RandomTicks(300, seed = 13).map(t => (t.name, t.id, t.price, t.ts))

  /**
   * A stock of its own, far in the future, moves the watermark past every real row's time and WITHIN bound, so that
   * every match of the real stocks is decided; its own rows are left out of the comparison.
   */
  private val flush: Seq[Tick] =
    Seq(("Z", 10000L, 0, new Timestamp(10000000L)), ("Z", 10001L, 0, new Timestamp(10000001L)))

  /** Clauses over the view `ticks` (name, id, price, ts): every output layout, skip, navigation and aggregate. */
  private val clauses = Seq(
    """PARTITION BY name ORDER BY ts, id
      |MEASURES FIRST(A.id) AS first_id, LAST(B.price) AS bottom, LAST(C.price) AS top, MATCH_NUMBER() AS n,
      |         MATCH_ROWTIME() AS rowtime
      |ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW
      |PATTERN (A B+ C+) WITHIN INTERVAL '2' SECONDS
      |DEFINE B AS price < PREV(price), C AS price > PREV(price)""",
    """PARTITION BY name ORDER BY ts, id
      |MEASURES CLASSIFIER() AS label, RUNNING count(*) AS k, FINAL sum(U.price) AS total
      |ALL ROWS PER MATCH AFTER MATCH SKIP TO NEXT ROW
      |PATTERN (A+? B{1,3} C*) WITHIN INTERVAL '1500' MILLISECONDS
      |SUBSET U = (A, C)
      |DEFINE A AS price >= 15, B AS price < 15 AND price >= FIRST(A.price) - 5, C AS avg(B.price) < price""",
    """PARTITION BY name ORDER BY ts, id
      |MEASURES CLASSIFIER() AS label, MATCH_NUMBER() AS n
      |ALL ROWS PER MATCH WITH UNMATCHED ROWS AFTER MATCH SKIP TO LAST B
      |PATTERN (A (A | B)* B {- C -}) WITHIN INTERVAL '1' SECONDS
      |DEFINE A AS price > PREV(price, 2), B AS price <= LAST(A.price), C AS price = 19""",
    """PARTITION BY name ORDER BY ts, id
      |MEASURES FIRST(id) AS first_id, LAST(id) AS last_id, max(price) AS high
      |ONE ROW PER MATCH
      |PATTERN (PERMUTE(A, B) C* | D) WITHIN INTERVAL '900' MILLISECONDS
      |DEFINE A AS price < 13, B AS price > 16, C AS price BETWEEN 13 AND 16, D AS price = 19""",
    """PARTITION BY name ORDER BY ts, id
      |MEASURES CLASSIFIER() AS label
      |ALL ROWS PER MATCH SHOW EMPTY MATCHES
      |PATTERN (^A B*) WITHIN INTERVAL '3' SECONDS
      |DEFINE A AS price > 12, B AS price > A.price"""
  )

  private def recognize(clause: String, input: DataFrame): DataFrame = {
    input.createOrReplaceTempView("ticks")
    spark.sql(s"SELECT * FROM ticks MATCH_RECOGNIZE (${clause.stripMargin})")
  }

  private def table(clause: String): Seq[Row] = {
    import spark.implicits._
    recognize(clause, ticks.toDF("name", "id", "price", "ts")).collect().toSeq
  }

  /**
   * The clause over the ticks as a stream cut before the rows `cuts`, with the flush at the end; `restartAt` stops the
   * query after that many batches and starts it again from its checkpoint. Each batch's rows are kept by batch id,
   * so that a batch replayed after the restart counts once.
   */
  private def stream(clause: String, cuts: Seq[Int], restartAt: Option[Int] = None): Seq[Row] =
    run(clause, ticks, cuts, restartAt)._1

  /**
   * The clause over `rows` as a stream, as [[stream]] describes; also the number of rows the operator keeps in the
   * state store at the end.
   */
  private def run(clause: String, rows: Seq[Tick], cuts: Seq[Int], restartAt: Option[Int] = None): (Seq[Row], Long) = {
    import spark.implicits._
    implicit val sqlContext: org.apache.spark.sql.SQLContext = spark.sqlContext
    val source = MemoryStream[Tick]
    val input = source.toDF().toDF("name", "id", "price", "ts").withWatermark("ts", "1 second")
    val checkpoint = Files.createTempDirectory("mr-stream").toString
    val batches = mutable.Map.empty[Long, Seq[Row]]
    def start() = recognize(clause, input).writeStream.option("checkpointLocation", checkpoint)
      .foreachBatch { (df: DataFrame, id: Long) => batches(id) = df.collect().toSeq; () }.start()
    var query = start()
    try {
      val bounds = (0 +: cuts :+ rows.length).distinct.sorted
      val parts = bounds.zip(bounds.tail).map { case (a, b) => rows.slice(a, b) } ++ flush.map(Seq(_))
      for ((part, k) <- parts.zipWithIndex) {
        if (restartAt.contains(k)) { query.stop(); query = start() }
        source.addData(part)
        query.processAllAvailable()
      }
      val kept = query.lastProgress.stateOperators.map(_.numRowsTotal).sum
      (batches.toSeq.sortBy(_._1).flatMap(_._2).filterNot(_.getAs[String]("name") == "Z"), kept)
    } finally query.stop()
  }

  private def withIdleTimeout[T](timeout: String)(body: => T): T = {
    spark.conf.set(CerConf.STREAM_PARTITION_IDLE_TIMEOUT.key, timeout)
    try body
    finally spark.conf.unset(CerConf.STREAM_PARTITION_IDLE_TIMEOUT.key)
  }

  private def same(a: Seq[Row], b: Seq[Row]): Boolean = a.map(_.toString).sorted == b.map(_.toString).sorted

  for ((clause, i) <- clauses.zipWithIndex) test(s"stream = table, cut anywhere: clause $i") {
    val expected = table(clause)
    assert(expected.length >= 3, s"the workload should produce rows: $expected") // ^ matches once per stock
    val random = new java.util.Random(i)
    val got = stream(clause, Seq.fill(6)(random.nextInt(ticks.length)))
    assert(
      same(got, expected),
      s"${got.length} rows from the stream, ${expected.length} from the table\n" +
        s"only in the stream: ${got.diff(expected).take(5)}\nonly in the table: ${expected.diff(got).take(5)}"
    )
  }

  test("stream = table across a restart from the checkpoint, in the middle of matches") {
    for ((clause, i) <- clauses.zipWithIndex.take(3)) {
      val random = new java.util.Random(100 + i)
      val got = stream(clause, Seq.fill(5)(random.nextInt(ticks.length)), restartAt = Some(3))
      assert(same(got, table(clause)), s"clause $i")
    }
  }

  test("NEXT past a match's span reads NULL: a stock's last rows are decided as the watermark passes, stream = table") {
    // N's condition reads the next row, which for a stock's last row never comes: once the watermark passes that row
    // by the bound, any next row is past the span of every match that could read it.
    val clause = """PARTITION BY name ORDER BY ts, id
      |MEASURES FIRST(id) AS first_id, LAST(id) AS last_id, NEXT(LAST(price)) AS after
      |ONE ROW PER MATCH
      |PATTERN (N+ X) WITHIN INTERVAL '1' SECONDS
      |DEFINE N AS NEXT(price) >= price"""
    val expected = table(clause)
    val lastIds = ticks.groupBy(_._1).values.map(_.map(_._2).max).toSet
    assert(
      expected.exists(r => lastIds.contains(r.getAs[Long]("last_id"))), "a stock's last match ends at its last row")
    for (seed <- 0 until 2) {
      val random = new java.util.Random(300 + seed)
      val got = stream(clause, Seq.fill(6)(random.nextInt(ticks.length)), restartAt = Some(2 + seed))
      assert(
        same(got, expected),
        s"${got.length} rows from the stream, ${expected.length} from the table\n" +
          s"only in the stream: ${got.diff(expected).take(5)}\nonly in the table: ${expected.diff(got).take(5)}"
      )
    }
  }

  test("a partition idle for longer than spark.cer.streaming.partitionIdleTimeout ends: stream = table by sessions") {
    import spark.implicits._
    // The table's partitions split where a stock's rows are more than 800 ms apart.
    ticks.toDF("name", "id", "price", "ts").createOrReplaceTempView("raw_ticks")
    val sessions = spark.sql(
      """SELECT name, id, price, ts, sum(CASE WHEN unix_micros(ts) - gap > 800000 THEN 1 ELSE 0 END)
        |  OVER (PARTITION BY name ORDER BY ts, id) AS session
        |FROM (SELECT *, lag(unix_micros(ts)) OVER (PARTITION BY name ORDER BY ts, id) AS gap FROM raw_ticks)""".stripMargin)
    assert(sessions.select("name", "session").distinct().count() >= 9, "the workload should split each stock")
    val withNext = clauses.head.replace("MATCH_ROWTIME() AS rowtime", "NEXT(C.price) AS after")
    for ((clause, i) <- Seq(withNext, clauses(2), clauses(4)).zipWithIndex) {
      sessions.createOrReplaceTempView("ticks")
      val bySession = clause.replace("PARTITION BY name", "PARTITION BY name, session")
      val expected =
        spark.sql(s"SELECT * FROM ticks MATCH_RECOGNIZE (${bySession.stripMargin})").drop("session").collect().toSeq
      val random = new java.util.Random(200 + i)
      val got = withIdleTimeout("800ms")(stream(clause, Seq.fill(5)(random.nextInt(ticks.length)), restartAt = Some(2)))
      assert(
        same(got, expected),
        s"clause $i: ${got.length} rows from the stream, ${expected.length} from the table\n" +
          s"only in the stream: ${got.diff(expected).take(5)}\nonly in the table: ${expected.diff(got).take(5)}"
      )
      assert(got != stream(clause, Nil), s"clause $i: the partitions' ends should change the rows")
    }
  }

  test("a key's state leaves the state store once its partition carries nothing to its next rows") {
    def kept(clause: String, rows: Seq[Tick]) = run(clause, rows, Seq(100, 200))._2
    val reads = clauses.head // PREV and MATCH_NUMBER read rows before a match
    val readsNothing = clauses(3)
    val flushAlone = kept(reads, Nil)
    assert(kept(reads, ticks) > flushAlone, "a partition that PREV reads back into keeps state between matches")
    assert(withIdleTimeout("800ms")(kept(reads, ticks)) == flushAlone, "the stocks' partitions ended")
    assert(kept(readsNothing, ticks) == kept(readsNothing, Nil), "no state is kept between matches")
  }

  test("MATCH_ROWTIME() is the time of the match's last row") {
    val rows = table(clauses.head)
    val ids = ticks.map(t => t._2 -> t._4).toMap
    val last = spark.sql(
      s"SELECT * FROM ticks MATCH_RECOGNIZE (${clauses.head.stripMargin.replace(
          "MATCH_ROWTIME() AS rowtime", "MATCH_ROWTIME() AS rowtime, LAST(id) AS last_id")})").collect()
    assert(last.nonEmpty && last.forall(r => r.getAs[Timestamp]("rowtime") == ids(r.getAs[Long]("last_id"))))
    assert(rows.map(_.getAs[Timestamp]("rowtime")).forall(_ != null))
  }

  test("late rows are dropped and counted, never matched") {
    import spark.implicits._
    implicit val sqlContext: org.apache.spark.sql.SQLContext = spark.sqlContext
    val source = MemoryStream[Tick]
    val input = source.toDF().toDF("name", "id", "price", "ts").withWatermark("ts", "1 second")
    val q = recognize(
      """PARTITION BY name ORDER BY ts MEASURES FIRST(id) AS a, LAST(id) AS b PATTERN (U D)
      |WITHIN INTERVAL '60' SECONDS DEFINE U AS price > 15, D AS price < 15""",
      input
    )
      .writeStream.format("memory").queryName("mr_late").outputMode("append").start()
    try {
      def at(ms: Long) = new Timestamp(ms)
      Seq(
        Seq(("A", 1L, 18, at(1000))),
        Seq(("A", 2L, 10, at(5000))),
        Seq(("A", 3L, 19, at(2000))), // late: the watermark is 4 s
        Seq(("A", 4L, 17, at(30000))),
        Seq(("A", 5L, 12, at(40000))),
        Seq(("Z", 6L, 0, at(200000)))
      ).foreach { rows =>
        source.addData(rows); q.processAllAvailable()
      }
      val rows = spark.table("mr_late").collect().map(r => (r.getAs[Long]("a"), r.getAs[Long]("b"))).toSet
      assert(rows == Set((1L, 2L), (4L, 5L)))
      assert(q.recentProgress.flatMap(_.stateOperators).map(_.numRowsDroppedByWatermark).sum == 1)
    } finally q.stop()
  }

  test("a partition's saved state carries its layout version, and one of another layout is refused") {
    import spark.implicits._
    val recognized = recognize(clauses.head, ticks.toDF("name", "id", "price", "ts")).queryExecution.analyzed
      .collectFirst { case r: RowPatternRecognition => r }.get
    val task = recognized.task(recognized.child.output, CerConf.partialMatchBound(spark.sessionState.conf))
    def run() = new RowPatternStreamRun(task, recognized.child.schema, 0, None)
    val first = run()
    first.start(None)
    val rowOf = org.apache.spark.sql.catalyst.expressions.UnsafeProjection.create(recognized.child.schema)
    val some = ticks.take(5).map { case (name, id, price, ts) =>
      rowOf(org.apache.spark.sql.catalyst.InternalRow(org.apache.spark.unsafe.types.UTF8String.fromString(name), id,
          price, ts.getTime * 1000L)).copy()
    }
    first.advance(some.toArray, watermark = 0L)
    val bytes = first.saved().getOrElse(fail("a partition with rows under way keeps a state"))
    run().start(Some(bytes)) // read back as written
    bytes(3) = (bytes(3) + 1).toByte // the format, an Int written first, one more
    val refused = intercept[IllegalStateException](run().start(Some(bytes))).getMessage
    val format = io.sparkcer.engine.rowpattern.RowPatternPartition.Format
    assert(refused.contains(s"saved state format ${format + 1}, expected $format") &&
        refused.contains("new checkpoint location"), refused)
  }

  test("errors say what to write: a watermark, WITHIN, no $, ORDER BY the event time, no subquery") {
    import spark.implicits._
    implicit val sqlContext: org.apache.spark.sql.SQLContext = spark.sqlContext
    val raw = MemoryStream[Tick].toDF().toDF("name", "id", "price", "ts")
    def message(input: DataFrame, clause: String) = intercept[AnalysisException](recognize(clause, input)).getMessage
    assert(message(raw, "ORDER BY ts PATTERN (A) WITHIN INTERVAL '1' SECOND DEFINE A AS price > 1")
        .contains("withWatermark(\"ts\""))
    val watermarked = raw.withWatermark("ts", "1 second")
    val within = message(watermarked, "ORDER BY ts PATTERN (A B) DEFINE A AS price > 1")
    assert(within.contains("WITHIN INTERVAL") && within.contains("line 1"), within)
    val end = message(watermarked, "ORDER BY ts PATTERN (A $) WITHIN INTERVAL '1' SECOND DEFINE A AS price > 1")
    assert(end.contains("anchor $") && end.contains("never"), end)
    assert(message(watermarked, "ORDER BY id PATTERN (A) WITHIN INTERVAL '1' SECOND")
        .contains("watermark is on ts, but its stream order starts with id"))
    assert(message(watermarked, "PATTERN (A) WITHIN INTERVAL '1' SECOND").contains("ORDER BY"))
    // On a table Spark computes a scalar subquery before the operator runs; a stream's operator is made at analysis.
    val subquery = message(watermarked,
      "ORDER BY ts PATTERN (A) WITHIN INTERVAL '1' SECOND " +
        "DEFINE A AS price > (SELECT 1)")
    assert(subquery.contains("price > (SELECT 1) holds a subquery") && subquery.contains("join its value"), subquery)
  }
}
