package io.sparkcer.spark

import java.sql.Timestamp

import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.execution.streaming.MemoryStream
import org.scalatest.funsuite.AnyFunSuite

/**
 * Keys and order as Spark reads them. Floating-point keys group as Spark's GROUP BY, joins and window partitions do
 * (-0.0 is 0.0, NaN is NaN) in every CEQL and MATCH_RECOGNIZE form, on tables and streams; and rows that tie on ORDER
 * BY are read in an order that does not depend on how the input is partitioned ([[TotalOrder]]).
 */
class KeysAndOrderSuite extends AnyFunSuite {

  private lazy val spark: SparkSession = LocalSpark.streamingSession()

  /** An A and then a B whose keys `d` are `first` and `second`, and a C with the key of the A. */
  private def pair(first: String, second: String): DataFrame = spark.sql(
    s"SELECT * FROM VALUES ('A', 1L, CAST('$first' AS DOUBLE)), ('B', 2L, CAST('$second' AS DOUBLE)), " +
      s"('C', 3L, CAST('$first' AS DOUBLE)) AS t(event_type, t, d)")

  private val ceql = Seq(
    "derived partition" -> "SELECT * FROM p PATTERN A AS a ; B AS b FILTER a.d = b.d ORDER BY t",
    "three variables" -> "SELECT * FROM p PATTERN A AS a ; B AS b ; C AS c FILTER a.d = b.d AND b.d = c.d ORDER BY t",
    "conjunction" -> "SELECT * FROM p PATTERN A AS a AND B AS b FILTER a.d = b.d ORDER BY t",
    "PARTITION BY" -> "SELECT * FROM p PATTERN A AS a ; B AS b PARTITION BY d ORDER BY t",
    "cer(...)" -> "SELECT * FROM cer(TABLE(p) PARTITION BY (d) ORDER BY (t), 'A AS a ; B AS b')"
  )

  private val matchRecognize = "SELECT * FROM p MATCH_RECOGNIZE (PARTITION BY d ORDER BY t MEASURES A.t AS a_t, " +
    "B.t AS b_t PATTERN (A B) DEFINE A AS event_type = 'A', B AS event_type = 'B')"

  for ((first, second) <- Seq("0.0" -> "-0.0", "-0.0" -> "0.0", "NaN" -> "NaN");
    (form, query) <- ceql :+ ("MATCH_RECOGNIZE" -> matchRecognize))
    test(s"$first and $second are one key: $form") {
      pair(first, second).createOrReplaceTempView("p")
      val rows = spark.sql(query).collect()
      assert(rows.length == 1, s"$query over d = $first, $second")
    }

  test("a key's value in the output is the normalized one, as GROUP BY gives it") {
    pair("-0.0", "0.0").createOrReplaceTempView("p")
    val d =
      spark.sql("SELECT * FROM p PATTERN A AS a ; B AS b PARTITION BY d ORDER BY t").select("d").head().getDouble(0)
    assert(java.lang.Double.compare(d, 0.0) == 0, s"$d")
  }

  test("on a stream too: the state is kept per normalized key") {
    import spark.implicits._
    implicit val sqlContext: org.apache.spark.sql.SQLContext = spark.sqlContext
    val source = MemoryStream[(String, Double, Timestamp)]
    val input = source.toDF().toDF("event_type", "d", "ts").withWatermark("ts", "1 second")
    input.createOrReplaceTempView("s")
    val queries = Seq(
      "SELECT * FROM s PATTERN A AS a ; B AS b PARTITION BY d ORDER BY ts WITHIN 10 SECONDS",
      "SELECT * FROM s MATCH_RECOGNIZE (PARTITION BY d ORDER BY ts MEASURES A.ts AS a_ts PATTERN (A B) " +
        "WITHIN INTERVAL '10' SECOND DEFINE A AS event_type = 'A', B AS event_type = 'B')"
    )
    for ((query, i) <- queries.zipWithIndex) {
      val q = spark.sql(query).writeStream.format("memory").queryName(s"zero$i").outputMode("append").start()
      try {
        Seq(Seq(("A", 0.0, new Timestamp(1000))), Seq(("B", -0.0, new Timestamp(2000))),
          Seq(("F", 1.0, new Timestamp(60000)))).foreach { rows => source.addData(rows); q.processAllAvailable() }
        assert(spark.table(s"zero$i").count() == 1, query)
      } finally q.stop()
    }
  }

  /** Ticks of 3 stocks with many rows at each time: only the id (which the queries read) tells them apart. */
  private lazy val ties: DataFrame = {
    import spark.implicits._
    RandomTicks(3000, seed = 11).map(t => (t.side, t.name, t.id, t.price, t.ts.getTime / 1000))
      .toDF("event_type", "name", "id", "price", "ts")
  }

  /** The query's rows over `ticks` hashed by id into `partitions`: each count of them shuffles the ties anew. */
  private def under(partitions: Int, query: String): Seq[String] = {
    ties.repartition(partitions, ties("id")).createOrReplaceTempView("ticks")
    spark.sql(query).collect().map(_.toString).toSeq.sorted
  }

  private val contiguous = Seq(
    "SELECT * FROM ticks PATTERN SELL AS s : BUY AS b : BUY AS c PARTITION BY name ORDER BY ts",
    "SELECT * FROM ticks PATTERN SELL AS s : BUY AS b ORDER BY ts WITHIN 3 EVENTS",
    "SELECT * FROM ticks MATCH_RECOGNIZE (PARTITION BY name ORDER BY ts MEASURES FIRST(S.id) AS s, count(B.id) AS n " +
      "PATTERN (S B+) DEFINE S AS event_type = 'SELL', B AS event_type = 'BUY')",
    "SELECT * FROM ticks MATCH_RECOGNIZE (ORDER BY ts MEASURES FIRST(S.id) AS s, LAST(B.price) AS p " +
      "ALL ROWS PER MATCH PATTERN (S B{2}) DEFINE S AS event_type = 'SELL', B AS event_type = 'BUY')"
  )

  for (query <- contiguous) test(s"ties in ORDER BY do not change the result with the input's partitioning: $query") {
    val one = under(1, query)
    assert(one.nonEmpty)
    for (n <- Seq(7, 23)) assert(under(n, query) == one, s"over $n input partitions")
  }

  test("EXPLAIN names the tie-break, and the columns that cannot break a tie") {
    ties.createOrReplaceTempView("ticks")
    val plan =
      spark.sql("SELECT * FROM ticks PATTERN SELL AS s : BUY AS b ORDER BY ts").queryExecution.executedPlan.toString
    assert(plan.contains("ORDER BY [ts#") && plan.contains("ties broken by [event_type#"), plan)
    assert(!plan.contains("keep their input order"), plan)
    ties.selectExpr("*", "map('k', id) AS m").createOrReplaceTempView("mapped")
    val mapped = spark.sql("SELECT * FROM mapped MATCH_RECOGNIZE (ORDER BY ts MEASURES A.m AS m PATTERN (A B) " +
      "DEFINE B AS B.price > A.price)").queryExecution.executedPlan.toString
    assert(mapped.contains("rows that differ only in [m#") && mapped.contains("keep their input order"), mapped)
    // A partition's rows share its keys: a key breaks no tie, and the sort does not compare it twice.
    for (query <- Seq(
        "SELECT * FROM ticks PATTERN SELL AS s : BUY AS b PARTITION BY name ORDER BY ts",
        "SELECT * FROM ticks MATCH_RECOGNIZE (PARTITION BY name ORDER BY ts MEASURES A.price AS p PATTERN (A B) " +
          "DEFINE B AS B.price > A.price)"
      )) {
      val keyed = spark.sql(query).queryExecution.executedPlan
      val tieBreak = "ties broken by \\[([^\\]]*)\\]".r.findFirstMatchIn(keyed.toString).map(_.group(1))
      assert(tieBreak.exists(t => t.contains("price#") && !t.contains("name#")), keyed)
      val required = spark.sql(query).queryExecution.sparkPlan.requiredChildOrdering.flatten
      assert(required.count(_.child.references.exists(_.name == "name")) == 1, required)
    }
  }

  test("NULLs in a tie-break column do not leave a row out") {
    spark.sql("SELECT * FROM VALUES ('A', 1L, NULL), ('B', 1L, 2L) AS t(event_type, ts, id)").createOrReplaceTempView(
      "n")
    assert(spark.sql("SELECT * FROM n PATTERN A AS a ; B AS b ORDER BY ts").count() == 1)
  }
}
