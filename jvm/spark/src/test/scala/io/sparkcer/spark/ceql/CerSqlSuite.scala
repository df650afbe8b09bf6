package io.sparkcer.spark.ceql

import org.apache.spark.sql.{AnalysisException, Row, SparkSession}
import org.apache.spark.sql.catalyst.parser.ParseException
import org.apache.spark.sql.catalyst.plans.physical.HashPartitioning
import org.apache.spark.sql.execution.FilterExec
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanHelper
import org.apache.spark.sql.execution.exchange.ShuffleExchangeExec
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import io.sparkcer.spark.common.CerConf
import io.sparkcer.spark.LocalSpark

/** End-to-end smoke tests of the SQL surface on a local[2] session (the pytest suite covers the rest). */
class CerSqlSuite extends AnyFunSuite with BeforeAndAfterAll with AdaptiveSparkPlanHelper {

  private lazy val spark: SparkSession = LocalSpark.session("spark.sql.shuffle.partitions" -> "3")

  override def beforeAll(): Unit = {
    import spark.implicits._
    def ts(t: Long): Option[Long] = Some(t)
    Seq(
      ("SELL", "INTC", 120.0, ts(1)),
      ("BUY", "INTC", 100.0, ts(2)),
      ("SELL", "RIMM", 90.0, ts(3)),
      ("BUY", "RIMM", 95.0, ts(4)),
      ("BUY", "INTC", 101.0, ts(5)),
      ("SELL", "INTC", 130.0, ts(6)),
      ("BUY", "INTC", 99.0, ts(20)),
      ("BUY", null, 1.0, ts(7)),
      ("SELL", "INTC", 500.0, None)
    ).toDF("event_type", "name", "price", "ts").repartition(2).createOrReplaceTempView("stocks")
  }

  private def sql(text: String) = spark.sql(text)

  test("SELECT ... PATTERN: one row per match, the keys, the match's bounds, then each variable") {
    val df = sql("SELECT * FROM stocks PATTERN SELL AS a ; BUY AS b FILTER a[price > 100] " +
      "PARTITION BY name ORDER BY ts WITHIN 10 [ts]")
    assert(df.columns.toSeq == Seq("name", "match_start", "match_end", "a", "b"))
    assert(df.schema("a").dataType.simpleString == "struct<event_type:string,name:string,price:double,ts:bigint>")
    val rows = df.select("name", "match_start", "match_end", "a.price", "b.price").orderBy("match_end").collect()
    assert(rows.toSeq == Seq(Row("INTC", 1L, 2L, 120.0, 100.0), Row("INTC", 1L, 5L, 120.0, 101.0)))
  }

  test("WHERE form, Kleene variable as an array, CORE's IN forms in predicates") {
    val df = sql("""SELECT s FROM stocks
        |WHERE (SELL AS s)+ ; BUY FILTER s[price IN RANGE(100, 200) AND name IN {'INTC'}]
        |PARTITION BY name ORDER BY ts""".stripMargin)
    assert(df.schema("s").dataType.simpleString.startsWith("array<struct<"))
    assert(df.columns.toSeq == Seq("name", "match_start", "match_end", "s"))
    // INTC: SELL@1 (120), BUY@2, BUY@5, SELL@6 (130), BUY@20; the price filter keeps both SELLs.
    val sells = df.collect().map(r => (r.getLong(2), r.getSeq[Row](3).map(_.getAs[Long]("ts")))).toSet
    assert(sells == Set((2L, Seq(1L)), (5L, Seq(1L)), (20L, Seq(1L)), (20L, Seq(6L)), (20L, Seq(1L, 6L))))
  }

  test("the table function inside larger SQL with GROUP BY") {
    val grouped = sql("""SELECT name, count(*) AS n FROM cer(TABLE(stocks) PARTITION BY (name) ORDER BY (ts),
        |  'SELL AS a ; BUY AS b FILTER a[price > 100] WITHIN 10 [ts]')
        |GROUP BY name""".stripMargin)
    assert(grouped.collect().toSeq == Seq(Row("INTC", 2L)))
    // The matches stay hash-partitioned by their key: GROUP BY name needs no second shuffle.
    val hashed = collect(grouped.queryExecution.executedPlan) {
      case e: ShuffleExchangeExec if e.outputPartitioning.isInstanceOf[HashPartitioning] => e
    }
    assert(hashed.size == 1, grouped.queryExecution.executedPlan)
    assert(sql("SELECT * FROM cer('stocks', 'SELL ; BUY PARTITION BY name ORDER BY ts WITHIN 2 EVENTS')").count() == 3)
  }

  test("EXPLAIN shows the operator, the automaton and the query") {
    val plan = sql("EXPLAIN SELECT * FROM stocks PATTERN SELL ; BUY PARTITION BY name ORDER BY ts WITHIN 10 [ts]")
      .collect().head.getString(0)
    assert(plan.contains("CerMatch"), plan)
    assert(plan.contains("CEA with"), plan)
    assert(plan.contains("window 10 on ts"), plan)
    assert(plan.contains("Exchange hashpartitioning(name"), plan)
    // The path's bound: CORE's here, CEL's for a strategy, PCEA's for equalities it keys.
    assert(
      plan.contains("per event a constant number of steps, matches enumerated with output-linear delay (CORE)"), plan)
    def explained(query: String) = sql(s"EXPLAIN $query").collect().head.getString(0)
    assert(
      explained("SELECT LAST * FROM stocks PATTERN SELL ; BUY ORDER BY ts WITHIN 10 [ts]")
        .contains("at most one match (CEL, Algorithms 5 and 6)"))
    val pcea = explained("SELECT * FROM stocks PATTERN SELL AS s ; BUY AS b ; SELL AS t FILTER s.name = b.name AND " +
      "b.price = t.price ORDER BY ts WITHIN 10 [ts]")
    assert(pcea.contains("an insertion in a union tree (logarithmic in the runs of a key)"), pcea)
  }

  test("NULL keys are left out and counted in the operator's metrics, never a crash") {
    val df = sql("SELECT * FROM stocks PATTERN SELL ; BUY PARTITION BY name ORDER BY ts")
    assert(df.collect().length == 5) // INTC: 1→2, 1→5, 1→20, 6→20; RIMM: 3→4
    val exec = collectFirst(df.queryExecution.executedPlan) { case e: CerExec => e }.get
    assert(exec.metrics("numEvents").value == 9)
    assert(exec.metrics("numLeftOut").value == 2) // a NULL name, a NULL ts
    assert(exec.metrics("numOutputRows").value == 5)
  }

  test("the operator's metrics count the engine's work: transitions per event, enumeration steps per match") {
    val df = sql("SELECT * FROM stocks PATTERN SELL ; BUY PARTITION BY name ORDER BY ts")
    df.collect()
    val metrics = collectFirst(df.queryExecution.executedPlan) { case e: CerExec => e }.get.metrics
    // 7 events read on CORE's path: each moves at least the pre-start state, and 5 matches of 2 events are enumerated.
    assert(metrics("transitions").value >= 7, metrics)
    assert(metrics("enumerationSteps").value >= 5 * 3 && metrics("enumerationSteps").value <= 5 * 3 * 4, metrics)
    assert(metrics("droppedMatches").value == 0 && metrics("conditionChecks").value == 0, metrics)
    val correlated = sql("SELECT * FROM stocks PATTERN SELL AS s ; BUY AS b FILTER b.price > s.price " +
      "PARTITION BY name ORDER BY ts WITHIN 100 [ts]")
    correlated.collect()
    val checked = collectFirst(correlated.queryExecution.executedPlan) { case e: CerExec => e }.get.metrics
    assert(checked("conditionChecks").value > 0, checked)
  }

  test("a chain's metrics count the races each path won, a partition's first events read by both") {
    spark.range(3000).selectExpr("IF(id % 3 = 0, 'SELL', 'BUY') AS event_type", "id % 7 AS price", "id AS ts")
      .createOrReplaceTempView("trades")
    val df =
      sql("SELECT * FROM trades PATTERN SELL AS s ; BUY AS b FILTER b.price > s.price ORDER BY ts WITHIN 20 [ts]")
    assert(df.collect().nonEmpty)
    val metrics = collectFirst(df.queryExecution.executedPlan) { case e: CerExec => e }.get.metrics
    assert(metrics("lazyChainWins").value + metrics("registerWins").value > 0, metrics)
    // The estimate the choice was made on: both paths' work over the events they both read.
    assert(metrics("raceEvents").value > 0, metrics)
    assert(metrics("lazyChainRaceWork").value > 0 && metrics("registerRaceWork").value > 0, metrics)
  }

  test("rows no atom accepts are filtered out before the shuffle, unless the pattern reads them") {
    // A file source: Spark would evaluate a filter over local rows while planning.
    val dir = java.nio.file.Files.createTempDirectory("cer-filter").resolve("stocks").toString
    spark.table("stocks").write.parquet(dir)
    spark.read.parquet(dir).createOrReplaceTempView("stock_files")
    def run(pattern: String) = {
      val df = sql(
        s"SELECT * FROM stock_files PATTERN $pattern FILTER a[price > 100] PARTITION BY name ORDER BY ts WITHIN 10 [ts]")
      val rows = df.collect()
      val plan = df.queryExecution.executedPlan
      val filters = collect(plan) { case f: FilterExec => f }
      val shuffled =
        collect(plan) { case e: ShuffleExchangeExec => e }.flatMap(e => collect(e) { case f: FilterExec => f })
      (rows.length, collectFirst(plan) { case e: CerExec => e.metrics("numEvents").value }.get, filters, shuffled)
    }
    // SELL RIMM 90 is no `a` (price) and no `b` (type): 8 of the 9 rows reach the operator.
    val (matches, events, filters, belowShuffle) = run("SELL AS a ; BUY AS b")
    assert((matches, events) == (2, 8))
    assert(filters.nonEmpty && belowShuffle == filters, filters)
    // With `:`, every row matters: a SELL then another row is no SELL followed right by a BUY.
    val (contiguous, all, none, _) = run("SELL AS a : BUY AS b")
    assert((contiguous, all, none) == (1, 9, Nil))
  }

  test("several streams merge by name; a stream without a type column gives its rows its name as type") {
    import spark.implicits._
    Seq(("a", 1L), ("b", 3L)).toDF("k", "ts").createOrReplaceTempView("sells")
    Seq(("a", 2L, "x"), ("b", 4L, "y")).toDF("k", "ts", "note").createOrReplaceTempView("buys")
    val df = sql("SELECT s, b[note] FROM sells, buys WHERE sells AS s ; buys>buys AS b PARTITION BY k ORDER BY ts")
    assert(df.schema("b").dataType.simpleString == "struct<note:string>")
    assert(df.select("k", "b.note").collect().toSet == Set(Row("a", "x"), Row("b", "y")))
  }

  test("the order may come from spark.cer.timeColumn; without any order the query is refused") {
    val e = intercept[AnalysisException](sql("SELECT * FROM stocks PATTERN SELL ; BUY"))
    assert(e.getMessage.contains("the stream has no order"), e.getMessage)
    spark.conf.set(CerConf.TIME_COLUMN.key, "ts")
    try assert(sql("SELECT * FROM stocks PATTERN SELL ; BUY PARTITION BY name").count() == 5)
    finally spark.conf.unset(CerConf.TIME_COLUMN.key)
  }

  test("CONSUME BY ANY reads every key in one ordered pass") {
    val df = sql("SELECT NONE FROM stocks PATTERN SELL ; BUY PARTITION BY name ORDER BY ts CONSUME BY ANY")
    val plan = df.queryExecution.executedPlan.toString
    assert(plan.contains("Exchange SinglePartition") && !plan.contains("hashpartitioning"), plan)
    // INTC S1 B2 completes (all runs reset), RIMM S3 B4, then INTC S6 B20.
    assert(df.collect().map(r => (r.getString(0), r.getLong(1), r.getLong(2))).toSet ==
      Set(("INTC", 1L, 2L), ("RIMM", 3L, 4L), ("INTC", 6L, 20L)))
  }

  test("syntax errors are ParseExceptions with line, column and caret") {
    val e = intercept[ParseException](sql("SELECT * FROM stocks PATTERN SELL AS a ; BUYY b"))
    assert(e.getMessage.contains("line 1, column 47"), e.getMessage)
    assert(e.getMessage.contains("^"), e.getMessage)
    // plain SQL stays Spark's
    assert(sql("SELECT * FROM stocks WHERE price > 100").count() == 4)
  }

  test("analysis errors name the columns and the predicate") {
    val unknown =
      intercept[AnalysisException](sql("SELECT * FROM stocks PATTERN SELL AS a FILTER a[pricee > 1] ORDER BY ts"))
    assert(unknown.getMessage.contains("unknown column 'pricee'; the columns are: event_type, name, price, ts"),
      unknown.getMessage)
    val notBoolean =
      intercept[AnalysisException](sql("SELECT * FROM stocks PATTERN SELL AS a FILTER a[price + 1] ORDER BY ts"))
    assert(notBoolean.getMessage.contains("not BOOLEAN"), notBoolean.getMessage)
  }

  test("an output column named twice is refused, at PARTITION BY or naming the variable") {
    def error(text: String) = intercept[AnalysisException](sql(text).collect()).getMessage
    val variable = "SELECT * FROM stocks PATTERN SELL AS name ; BUY AS b PARTITION BY name ORDER BY ts"
    val key = error(variable)
    assert(
      key.contains(s"line 1, column ${variable.indexOf("BY name") + 4}") &&
        key.contains("the pattern's variable name is an output column too") && key.contains("AS name_event"),
      key
    )
    sql("CREATE OR REPLACE TEMPORARY VIEW stocks_by_start AS SELECT *, name AS match_start FROM stocks")
    val start = error("SELECT * FROM stocks_by_start PATTERN SELL ; BUY PARTITION BY match_start ORDER BY ts")
    assert(
      start.contains("the output holds a column match_start of its own") &&
        start.contains("df.withColumnRenamed(\"match_start\", \"match_start_0\")"),
      start
    )
    val end = error("SELECT * FROM stocks PATTERN SELL ; BUY AS match_end ORDER BY ts")
    assert(end.contains("the variable match_end is named like the output column"), end)
  }

  test("a CEQL statement inside another statement is refused at PATTERN, with the table function to write") {
    val ceql = "SELECT * FROM stocks PATTERN SELL ; BUY ORDER BY ts"
    for (outer <- Seq("CREATE TEMPORARY VIEW cer_nested AS %s", "CACHE TABLE cer_nested AS %s",
        "SELECT count(*) FROM (%s)")) {
      val text = outer.format(ceql)
      val message = intercept[ParseException](sql(text)).getMessage
      assert(
        message.contains(s"line 1, column ${text.indexOf("PATTERN") + 1}") &&
          message.contains("is a statement of its own") && message.contains("SELECT * FROM cer(TABLE(stocks)"),
        message
      )
    }
  }
}
