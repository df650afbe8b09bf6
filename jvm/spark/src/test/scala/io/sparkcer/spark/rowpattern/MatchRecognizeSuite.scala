package io.sparkcer.spark.rowpattern

import org.apache.spark.sql.{AnalysisException, Row, SparkSession}
import org.apache.spark.sql.catalyst.parser.ParseException
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanHelper
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import io.sparkcer.engine.rowpattern.ProgramCompiler
import io.sparkcer.spark.common.CerConf
import io.sparkcer.spark.LocalSpark

/**
 * MATCH_RECOGNIZE through spark.sql on a local session: the peers' worked examples with their exact rows (Trino's
 * V-shape, Flink's logical offsets, aggregates and NULLs, the Spark fork's golden cases), each output layout, the
 * clause wherever a table stands, and errors placed in the statement.
 */
class MatchRecognizeSuite extends AnyFunSuite with BeforeAndAfterAll with AdaptiveSparkPlanHelper {

  private lazy val spark: SparkSession = LocalSpark.session("spark.sql.shuffle.partitions" -> "3")

  override def beforeAll(): Unit = {
    import spark.implicits._
    // Trino's orders example: a V-shape per customer.
    Seq((1, 1, 100.0), (1, 2, 90.0), (1, 3, 80.0), (1, 4, 85.0), (1, 5, 95.0), (1, 6, 110.0), (1, 7, 100.0),
      (2, 1, 50.0), (2, 2, 40.0), (2, 3, 45.0), (2, 4, 60.0))
      .toDF("custkey", "orderdate", "totalprice").repartition(2).createOrReplaceTempView("orders")
    // Flink's testLogicalOffsets.
    Seq(("ACME", 1L, 19, 1), ("ACME", 2L, 17, 2), ("ACME", 3L, 13, 3), ("ACME", 4L, 20, 4), ("ACME", 5L, 20, 5),
      ("ACME", 6L, 26, 6), ("ACME", 7L, 20, 7), ("ACME", 8L, 25, 8))
      .toDF("symbol", "tstamp", "price", "tax").createOrReplaceTempView("ticker")
    // The Spark fork's golden tables.
    Seq((1L, 100L), (2L, 110L), (3L, 120L), (4L, 50L)).toDF("ts", "price").createOrReplaceTempView("quant_test")
    Seq((1L, 50L), (2L, 150L), (3L, 60L), (4L, 200L), (5L, 10L)).toDF("ts", "price").createOrReplaceTempView(
      "group_test")
    // Flink's testAggregatesWithNullInputs.
    Seq((1, "a", Some(10)), (2, "z", Some(10)), (3, "b", None), (4, "c", None), (5, "d", Some(3)), (6, "c", Some(3)),
      (7, "c", Some(3)), (8, "c", Some(3)), (9, "c", Some(2)))
      .toDF("id", "name", "price").createOrReplaceTempView("nulls")
  }

  private def sql(text: String) = spark.sql(text)

  test("Trino's V-shape: ONE ROW PER MATCH, SUBSET, PREV, navigation through a variable") {
    val df = sql(
      """SELECT * FROM orders MATCH_RECOGNIZE(
        |  PARTITION BY custkey
        |  ORDER BY orderdate
        |  MEASURES A.totalprice AS starting_price, LAST(B.totalprice) AS bottom_price,
        |           LAST(U.totalprice) AS top_price
        |  ONE ROW PER MATCH
        |  AFTER MATCH SKIP PAST LAST ROW
        |  PATTERN (A B+ C+ D+)
        |  SUBSET U = (C, D)
        |  DEFINE
        |    B AS totalprice < PREV(totalprice),
        |    C AS totalprice > PREV(totalprice) AND totalprice <= A.totalprice,
        |    D AS totalprice > PREV(totalprice)
        |)""".stripMargin)
    assert(df.columns.toSeq == Seq("custkey", "starting_price", "bottom_price", "top_price"))
    // Customer 1: 100 90 80 85 95 110 (A=100, B=90 80, C=85 95, D=110); customer 2: 50 40 45 60 (C=45, D=60).
    assert(df.orderBy("custkey").collect().toSeq == Seq(Row(1, 100.0, 80.0, 110.0), Row(2, 50.0, 40.0, 60.0)))
  }

  test("Flink's logical offsets: DOWN{2,} UP with LAST(DOWN.price, 1) and FIRST over an expression") {
    // Flink reports only the second match: its greedy quantifier never gives back a row that the next variable could
    // take (13 stays a DOWN). The standard's preferred match backtracks (DOWN = 19 17, UP = 13), as Trino does.
    val df = sql(
      """SELECT * FROM ticker MATCH_RECOGNIZE (
        |  ORDER BY tstamp
        |  MEASURES FIRST(DOWN.tstamp) AS start_tstamp, LAST(DOWN.tstamp) AS bottom_tstamp, UP.tstamp AS end_tstamp,
        |           FIRST(DOWN.price + DOWN.tax + 1) AS bottom_total, UP.price + UP.tax AS end_total
        |  ONE ROW PER MATCH
        |  AFTER MATCH SKIP PAST LAST ROW
        |  PATTERN (DOWN{2,} UP)
        |  DEFINE
        |    DOWN AS price < LAST(DOWN.price, 1) OR LAST(DOWN.price, 1) IS NULL,
        |    UP AS price < FIRST(DOWN.price)
        |) AS T""".stripMargin)
    assert(df.collect().toSeq == Seq(Row(1L, 2L, 3L, 21, 16), Row(6L, 7L, 8L, 33, 33)))
  }

  test("Flink's aggregates over NULLs: sum, count of a variable's column, count(*) and of a universal column") {
    val df = sql(
      """SELECT * FROM nulls MATCH_RECOGNIZE (
        |  ORDER BY id
        |  MEASURES SUM(A.price) AS sumA, COUNT(A.id) AS countAId, COUNT(A.price) AS countAPrice,
        |           COUNT(*) AS countAll, COUNT(price) AS countAllPrice, LAST(id) AS endId
        |  AFTER MATCH SKIP PAST LAST ROW
        |  PATTERN (A+ C)
        |  DEFINE A AS SUM(A.price) < 30, C AS C.name = 'c'
        |)""".stripMargin)
    assert(df.collect().toSeq == Seq(Row(29L, 7L, 5L, 8L, 6L, 8)))
  }

  test("the Spark fork's golden cases: A+, A+ B, (A B)+, (A B)+ C") {
    def span(table: String, pattern: String, define: String) = sql(
      s"SELECT * FROM $table MATCH_RECOGNIZE (ORDER BY ts MEASURES FIRST(ts) AS start_ts, LAST(ts) AS end_ts " +
        s"PATTERN ($pattern) DEFINE $define)").collect().toSeq
    assert(span("quant_test", "A+", "A AS price > 80") == Seq(Row(1L, 3L)))
    assert(span("quant_test", "A+ B", "A AS price > 80, B AS price <= 80") == Seq(Row(1L, 4L)))
    assert(span("group_test", "(A B)+", "A AS price < 100, B AS price >= 100") == Seq(Row(1L, 4L)))
    assert(span("group_test", "(A B)+ C", "A AS price < 100, B AS price >= 100, C AS price < 50") == Seq(Row(1L, 5L)))
  }

  test(
    "ALL ROWS PER MATCH: partition, order, measures, the other columns; RUNNING and FINAL; CLASSIFIER, MATCH_NUMBER") {
    val df = sql(
      """SELECT * FROM orders MATCH_RECOGNIZE(
        |  PARTITION BY custkey ORDER BY orderdate
        |  MEASURES CLASSIFIER() AS label, MATCH_NUMBER() AS m, RUNNING LAST(totalprice) AS so_far,
        |           FINAL LAST(totalprice) AS last_price, RUNNING count(*) AS n
        |  ALL ROWS PER MATCH
        |  PATTERN (A B+)
        |  DEFINE B AS totalprice < PREV(totalprice)
        |) WHERE custkey = 1""".stripMargin)
    assert(df.columns.toSeq == Seq("custkey", "orderdate", "label", "m", "so_far", "last_price", "n", "totalprice"))
    assert(df.collect().toSeq == Seq(
      Row(1, 1, "A", 1L, 100.0, 80.0, 1L, 100.0),
      Row(1, 2, "B", 1L, 90.0, 80.0, 2L, 90.0),
      Row(1, 3, "B", 1L, 80.0, 80.0, 3L, 80.0),
      Row(1, 6, "A", 2L, 110.0, 100.0, 1L, 110.0),
      Row(1, 7, "B", 2L, 100.0, 100.0, 2L, 100.0)
    ))
  }

  test("empty matches shown, omitted, and unmatched rows") {
    def rows(mode: String) = sql(
      s"""SELECT orderdate, m, label FROM orders MATCH_RECOGNIZE(
        |  PARTITION BY custkey ORDER BY orderdate
        |  MEASURES MATCH_NUMBER() AS m, CLASSIFIER() AS label
        |  ALL ROWS PER MATCH $mode
        |  PATTERN (B*)
        |  DEFINE B AS totalprice < PREV(totalprice)
        |) WHERE custkey = 2""".stripMargin).collect().toSeq
    // Customer 2: 50 40 45 60: an empty match at 50, B at 40, empty matches at 45 and 60.
    assert(rows("SHOW EMPTY MATCHES") == Seq(Row(1, 1L, null), Row(2, 2L, "B"), Row(3, 3L, null), Row(4, 4L, null)))
    assert(rows("OMIT EMPTY MATCHES") == Seq(Row(2, 2L, "B")))
    val unmatched = sql(
      """SELECT orderdate, m FROM orders MATCH_RECOGNIZE(
        |  PARTITION BY custkey ORDER BY orderdate
        |  MEASURES MATCH_NUMBER() AS m
        |  ALL ROWS PER MATCH WITH UNMATCHED ROWS
        |  PATTERN (B+)
        |  DEFINE B AS totalprice < PREV(totalprice)
        |) WHERE custkey = 2""".stripMargin).collect().toSeq
    assert(unmatched == Seq(Row(1, null), Row(2, 1L), Row(3, null), Row(4, null)))
  }

  test("the clause stands wherever a table does: joins, CTEs, subqueries, views; EXPLAIN names the operator") {
    val clause = "MATCH_RECOGNIZE (PARTITION BY custkey ORDER BY orderdate MEASURES LAST(B.totalprice) AS low " +
      "PATTERN (A B+) DEFINE B AS totalprice < PREV(totalprice)) AS v"
    val joined =
      sql(s"SELECT o.custkey, v.low FROM (SELECT * FROM orders) $clause JOIN orders o ON o.custkey = v.custkey " +
        "AND o.orderdate = 1 ORDER BY o.custkey, v.low")
    assert(joined.collect().toSeq == Seq(Row(1, 80.0), Row(1, 100.0), Row(2, 40.0)))
    val cte = sql(s"WITH lows AS (SELECT * FROM orders $clause) SELECT count(*) FROM lows")
    assert(cte.collect().head.getLong(0) == 3L)
    sql(s"CREATE OR REPLACE TEMP VIEW lows AS SELECT * FROM orders $clause")
    assert(sql("SELECT max(low) FROM lows").collect().head.getDouble(0) == 100.0)
    val plan = sql(s"EXPLAIN SELECT * FROM orders $clause").collect().head.getString(0)
    assert(plan.contains("MatchRecognize") && plan.contains("PATTERN (A B+)"), plan)
    assert(sql("SELECT * FROM orders WHERE totalprice > 100").count() == 1, "Spark's own statements stay Spark's")
    val function = intercept[AnalysisException](sql("SELECT match_recognize(1)").collect()).getMessage
    assert(function.contains("UNRESOLVED_ROUTINE"), s"a function of that name is Spark's to resolve: $function")
  }

  test("a view and a cached query keep the clause as written, and read it again wherever they are read") {
    // Before, a view kept the call the clause was parsed into, which named a clause kept in a map of the driver's:
    // read again after a restart, or 10,000 clauses later, it failed. Now the plan carries the clause, and the view's
    // text is the statement's.
    val clause = "MATCH_RECOGNIZE (PARTITION BY custkey ORDER BY orderdate MEASURES LAST(B.totalprice) AS low " +
      "PATTERN (A B+) DEFINE B AS totalprice < PREV(totalprice)) AS v"
    sql(s"CREATE OR REPLACE TEMP VIEW written_lows AS SELECT * FROM orders $clause")
    val text = spark.sessionState.catalog.getTempViewOrPermanentTableMetadata(
      org.apache.spark.sql.catalyst.TableIdentifier("written_lows")).viewText.getOrElse("")
    assert(text == s"SELECT * FROM orders $clause", text)
    assert(sql("SELECT max(low) FROM written_lows").collect().head.getDouble(0) == 100.0)
    sql(s"CACHE TABLE cached_lows AS SELECT * FROM orders $clause")
    try assert(sql("SELECT count(*) FROM cached_lows").collect().head.getLong(0) == 3L)
    finally sql("UNCACHE TABLE cached_lows")
    val described = sql(s"DESCRIBE QUERY SELECT * FROM orders $clause").collect().map(_.getString(0)).toSeq
    assert(described.contains("low"), described)
    val called = intercept[AnalysisException](sql("SELECT * FROM __cer_mr(TABLE(orders), 0)").collect()).getMessage
    assert(called.contains("stands for t MATCH_RECOGNIZE (clause)"), called)
  }

  test("before the clause as Trino's and Oracle's examples write it: VALUES or a query with an alias naming its " +
    "columns, and a table function's call") {
    def run(relation: String, order: String, define: String) = sql(s"SELECT * FROM $relation MATCH_RECOGNIZE (" +
      s"ORDER BY $order MEASURES count(*) AS n PATTERN (A+) DEFINE A AS $define)").collect().toSeq
    assert(run("(VALUES (1, 2), (2, 3), (3, 1)) t(id, value)", "id", "value > 1") == Seq(Row(2L)))
    assert(run("(SELECT id, id * 2 FROM range(4)) AS s(k, doubled)", "k", "doubled >= 2") == Seq(Row(3L)))
    assert(run("range(4)", "id", "id >= 1") == Seq(Row(3L)))
    assert(run("range(4) AS r", "id", "id >= 2") == Seq(Row(2L)))
    // A sampled relation: the sample is the relation's, read in a FROM clause (every row of a 100 percent sample, none
    // of a 0 rows one), an alias after it or not.
    spark.range(4).createOrReplaceTempView("four")
    assert(run("four TABLESAMPLE (100 PERCENT)", "id", "id >= 1") == Seq(Row(3L)))
    assert(run("four TABLESAMPLE (100 PERCENT) REPEATABLE (7) AS f", "id", "id >= 2") == Seq(Row(2L)))
    assert(run("(SELECT * FROM four) TABLESAMPLE (4 ROWS) s", "id", "id >= 3") == Seq(Row(1L)))
    assert(run("four TABLESAMPLE (0 ROWS)", "id", "id >= 0") == Seq())
  }

  test("a pathological pattern stays linear: (A+)+ B over 20,000 rows that all pass A and none B") {
    spark.range(20000).selectExpr("id AS ts", "1 AS v").createOrReplaceTempView("flat")
    val df = sql("SELECT * FROM flat MATCH_RECOGNIZE (ORDER BY ts MEASURES count(*) AS n PATTERN ((A+)+ B) " +
      "DEFINE A AS v = 1, B AS v = 2)")
    assert(df.count() == 0)
  }

  test("conditions that read the match read each of its rows once, however long the match") {
    def conditionRows(rows: Int, define: String): (Seq[Row], Long) = {
      spark.range(rows).selectExpr("id AS ts", "1 AS v").createOrReplaceTempView("flat")
      val df =
        sql(s"SELECT * FROM flat MATCH_RECOGNIZE (ORDER BY ts MEASURES count(*) AS n PATTERN (A B+) DEFINE $define)")
      val result = df.collect().toSeq
      val exec = collectFirst(df.queryExecution.executedPlan) { case e: RowPatternRecognitionExec => e }.get
      (result, exec.metrics("conditionRowsRead").value)
    }
    // Navigation through a variable, FIRST with an offset, aggregates of a variable and of the match, CLASSIFIER of
    // the match's rows at logical offsets: one running summary per row of the one match, which covers every later
    // start as it grows.
    val (one, read) = conditionRows(
      50000,
      "B AS v >= A.v AND v >= coalesce(FIRST(B.v, 1), 0) AND avg(B.v) >= 1 AND " +
        "count(*) > 1 AND FIRST(CLASSIFIER(), 1) = 'B' AND LAST(CLASSIFIER(), 1) IN ('A', 'B')"
    )
    assert(one == Seq(Row(50000L)) && read <= 2L * 50000, s"$read rows read")
    // PREV(CLASSIFIER()) reads a label the summary does not keep: such a condition reads its match row by row.
    val (again, quadratic) = conditionRows(2000, "B AS v >= A.v AND PREV(CLASSIFIER()) IN ('A', 'B')")
    assert(again == Seq(Row(2000L)) && quadratic > 2000L * 1999 / 2, s"$quadratic rows read")
  }

  test("AFTER MATCH SKIP TO NEXT ROW over one long run of A+: each match a suffix of the last, held once") {
    // Each start held its own partial match: 4,000 rows passed the bound on partial-match rows, 15,000 ran out of memory;
    // then the matches, all decided at the partition's end, were copied to wait for output: 30,000 ran out of memory.
    spark.range(30000).selectExpr("id AS ts").createOrReplaceTempView("flat")
    val rows =
      sql("SELECT * FROM flat MATCH_RECOGNIZE (ORDER BY ts MEASURES FIRST(ts) AS first_ts, LAST(ts) AS last_ts, " +
        "MATCH_NUMBER() AS n AFTER MATCH SKIP TO NEXT ROW PATTERN (A+))").collect()
    assert(rows.length == 30000 && rows.forall(r => r.getLong(0) == r.getLong(2) - 1 && r.getLong(1) == 29999))
  }

  test("a match that keeps every start alive until its end: one match of every row, the row reads linear in them") {
    // N rows of v = 1 then one of v = 0, B reading A's row and its own average: every start stays alive until C,
    // where the first start's match covers the rest. Held side by side, 3,163 rows passed the bound of 5,000,000 rows.
    val rows = 200000
    spark.range(rows + 1).selectExpr("id AS ts", s"CASE WHEN id < $rows THEN 1 ELSE 0 END AS v")
      .createOrReplaceTempView("plateau")
    val df = sql("SELECT * FROM plateau MATCH_RECOGNIZE (ORDER BY ts MEASURES count(*) AS n, count(B.*) AS bs " +
      "PATTERN (A B+ C) DEFINE B AS v >= A.v AND avg(B.v) >= A.v, C AS v < A.v)")
    assert(df.collect().toSeq == Seq(Row(rows + 1L, rows - 1L)))
    val exec = collectFirst(df.queryExecution.executedPlan) { case e: RowPatternRecognitionExec => e }.get
    val read = exec.metrics("conditionRowsRead").value
    assert(read <= 3L * rows, s"$read rows read by the conditions over ${rows + 1} rows")
  }

  test("MATCH_NUMBER() in DEFINE is the number of the match tried, counted per partition, as Trino reads it") {
    // Rising runs of v, the third run of each partition not taken: its match would be number 3. From 1: the first
    // partition's runs are rows 1-3, 4-5 and 6-8; the second's 1-2, 3-4 and 5-6.
    import spark.implicits._
    Seq(("x", 1, 1), ("x", 2, 2), ("x", 3, 3), ("x", 4, 1), ("x", 5, 2), ("x", 6, 1), ("x", 7, 2), ("x", 8, 3),
      ("y", 1, 5), ("y", 2, 6), ("y", 3, 5), ("y", 4, 6), ("y", 5, 5), ("y", 6, 6))
      .toDF("p", "ts", "v").createOrReplaceTempView("runs")
    val rows = sql("SELECT * FROM runs MATCH_RECOGNIZE (PARTITION BY p ORDER BY ts MEASURES MATCH_NUMBER() AS n, " +
      "FIRST(ts) AS first_ts, LAST(ts) AS last_ts PATTERN (A B+) DEFINE B AS v > PREV(v) AND MATCH_NUMBER() <= 2)")
    assert(rows.collect().toSet == Set(Row("x", 1L, 1, 3), Row("x", 2L, 4, 5), Row("y", 1L, 1, 2), Row("y", 2L, 3, 4)))
    // Beside an aggregate: the second match would need four rows, which no run of either partition has.
    val partial = sql("SELECT * FROM runs MATCH_RECOGNIZE (PARTITION BY p ORDER BY ts MEASURES MATCH_NUMBER() AS n, " +
      "count(*) AS len PATTERN (A B+) DEFINE B AS v > PREV(v) AND MATCH_NUMBER() * 2 <= count(*))")
    assert(partial.collect().toSet == Set(Row("x", 1L, 3L), Row("y", 1L, 2L)))
  }

  test("a run that keeps every start alive and matches none fails once it has read too many rows again, naming the " +
    "conf") {
    spark.range(1000).selectExpr("id AS ts", "1 AS v").createOrReplaceTempView("flat")
    val query = "SELECT * FROM flat MATCH_RECOGNIZE (ORDER BY ts MEASURES count(*) AS n PATTERN (A B+ C) " +
      "DEFINE B AS v >= A.v, C AS v = 2)"
    assert(sql(query).collect().isEmpty)
    spark.conf.set(CerConf.MAX_PARTIAL_MATCH_ROWS.key, "10000")
    try {
      val e = intercept[Exception](sql(query).collect())
      assert(e.getMessage.contains("rows of a partition again") &&
          e.getMessage.contains(CerConf.MAX_PARTIAL_MATCH_ROWS.key), e.getMessage)
    } finally spark.conf.unset(CerConf.MAX_PARTIAL_MATCH_ROWS.key)
  }

  test("a query compiles its pattern once, at analysis; too large a PERMUTE is refused before it is written out") {
    val before = ProgramCompiler.compilations
    val df =
      sql("SELECT * FROM orders MATCH_RECOGNIZE (PARTITION BY custkey ORDER BY orderdate MEASURES count(*) AS n " +
        "PATTERN (A B+) DEFINE B AS totalprice < PREV(totalprice))")
    assert(df.collect().toSet == Set(Row(1, 3L), Row(1, 2L), Row(2, 2L)))
    assert(ProgramCompiler.compilations - before == 1, "the tasks run the program analysis compiled")
    val permute = intercept[AnalysisException](
      sql("SELECT * FROM orders MATCH_RECOGNIZE (ORDER BY orderdate " +
        s"PATTERN (PERMUTE(${('A' to 'L').mkString(", ")})))")).getMessage
    assert(permute.contains("PERMUTE of 12 items") && permute.contains("up to 7 of these fit"), permute)
  }

  test("functions that Spark's optimizer rewrites (BETWEEN, nvl, count_if) in DEFINE and MEASURES") {
    val df = sql("SELECT * FROM quant_test MATCH_RECOGNIZE (ORDER BY ts MEASURES count_if(A.price > 105) AS big, " +
      "nvl(LAST(B.price), -1) AS after PATTERN (A+ B?) DEFINE A AS price BETWEEN 100 AND 120, B AS price < 60)")
    assert(df.collect().toSeq == Seq(Row(2L, 50L)))
  }

  test("errors: placed in the statement, with the peers' error names where they have one") {
    def analysisError(text: String) = intercept[AnalysisException](sql(text).collect()).getMessage
    def syntaxError(text: String) = intercept[ParseException](sql(text)).getMessage
    val dup = analysisError("SELECT * FROM quant_test MATCH_RECOGNIZE (ORDER BY ts PATTERN (A B) " +
      "DEFINE A AS price > 50, A AS price > 100)")
    assert(dup.contains("DUPLICATE_PATTERN_VARIABLE") && dup.contains("line 1, column"), dup)
    val mixed =
      analysisError("SELECT * FROM quant_test MATCH_RECOGNIZE (ORDER BY ts MEASURES LAST(A.price - B.price) " +
        "AS d PATTERN (A B) DEFINE A AS price > 50)")
    assert(mixed.contains("MATCH_RECOGNIZE_AGGREGATE_MIXED_QUALIFIERS"), mixed)
    val column =
      analysisError("SELECT * FROM quant_test MATCH_RECOGNIZE (ORDER BY ts PATTERN (A) DEFINE A AS prize > 1)")
    assert(column.contains("unknown column 'prize'") && column.contains("ts, price"), column)
    val partition = analysisError("SELECT * FROM quant_test MATCH_RECOGNIZE (PARTITION BY price + 1 ORDER BY ts " +
      "PATTERN (A))")
    assert(partition.contains("MATCH_RECOGNIZE_PARTITION_BY_MUST_BE_COLUMN"), partition)
    val syntax =
      syntaxError("SELECT * FROM quant_test MATCH_RECOGNIZE (ORDER BY ts\nPATTERN (A+ |) DEFINE A AS price > 1)")
    assert(syntax.contains("line 2, column 14") && syntax.contains("a pattern variable") && syntax.contains(
        "found ')'"), syntax)
    val skip = intercept[Exception](
      sql("SELECT * FROM quant_test MATCH_RECOGNIZE (ORDER BY ts " +
        "AFTER MATCH SKIP TO FIRST A PATTERN (A+ B) DEFINE A AS price > 80)").collect()).getMessage
    assert(skip.contains("cannot skip to first row of match"), skip)
  }

  test("one rule in CEQL and MATCH_RECOGNIZE: no value that is not deterministic, placed with what to write; a SQL " +
    "function is inlined") {
    def analysisError(text: String) = intercept[AnalysisException](sql(text).collect()).getMessage
    def recognize(clauses: String) = s"SELECT * FROM quant_test MATCH_RECOGNIZE (ORDER BY ts $clauses)"
    val random = recognize("PATTERN (A) DEFINE A AS price > rand()")
    val define = analysisError(random)
    assert(
      define.contains("the condition of A price > rand() calls rand(), which is not deterministic") &&
        define.contains(s"line 1, column ${random.indexOf("price >") + 1}") &&
        define.contains("df.withColumn(\"r\", rand())"),
      define
    )
    val measure = analysisError(recognize("MEASURES rand() AS r PATTERN (A) DEFINE A AS price > 1"))
    assert(measure.contains("the measure rand() calls rand()") && measure.contains("subquery in FROM"), measure)
    val uuid = analysisError(recognize("MEASURES uuid() AS u PATTERN (A) DEFINE A AS price > 1"))
    assert(uuid.contains("the measure uuid() calls uuid()") && !uuid.contains("NULLS FIRST"), uuid)
    val aggregate = analysisError(recognize("MEASURES sum(A.price * rand()) AS s PATTERN (A+) DEFINE A AS price > 1"))
    assert(aggregate.contains("sum(A.price * rand()) calls rand()"), aggregate)
    val guard = "SELECT * FROM quant_test PATTERN quant_test AS a FILTER a[price > rand()] ORDER BY ts"
    val ceql = analysisError(guard)
    assert(
      ceql.contains("the predicate a[price > rand()] calls rand(), which is not deterministic") &&
        ceql.contains(s"line 1, column ${guard.indexOf("a[") + 1}"),
      ceql
    )
    val condition = analysisError("SELECT * FROM quant_test PATTERN quant_test AS a ; quant_test AS b " +
      "FILTER b.price > a.price * rand() ORDER BY ts")
    assert(condition.contains("the condition b.price > a.price * rand() calls rand()"), condition)

    sql("CREATE TEMPORARY FUNCTION cer_raised(p BIGINT) RETURNS BIGINT RETURN p + 5")
    assert(sql(recognize("MEASURES cer_raised(LAST(A.price)) AS top PATTERN (A+) DEFINE A AS cer_raised(price) > 110"))
      .collect().toSeq == Seq(Row(125L)))
    assert(sql("SELECT * FROM quant_test PATTERN quant_test AS a FILTER a[cer_raised(price) > 120] ORDER BY ts")
      .select("a.ts").collect().toSeq == Seq(Row(3L)))
  }

  test("an output column named twice, and WITHIN over an order column that is no time, are refused where written") {
    def error(text: String, at: String) = {
      val message = intercept[AnalysisException](sql(text).collect()).getMessage
      assert(message.contains(s"line 1, column ${text.indexOf(at) + 1}"), message)
      message
    }
    val byKey = "SELECT * FROM orders MATCH_RECOGNIZE (PARTITION BY custkey ORDER BY orderdate " +
      "MEASURES LAST(A.totalprice) AS custkey PATTERN (A) DEFINE A AS totalprice > 0)"
    val key = error(byKey, "custkey PATTERN")
    assert(key.contains("the measure custkey is named like a PARTITION BY column, custkey") &&
        key.contains("AS custkey_measure"), key)
    val allRows = "SELECT * FROM orders MATCH_RECOGNIZE (PARTITION BY custkey ORDER BY orderdate " +
      "MEASURES LAST(A.totalprice) AS TotalPrice ALL ROWS PER MATCH PATTERN (A) DEFINE A AS totalprice > 0)"
    val column = error(allRows, "TotalPrice")
    assert(column.contains("an input column, which ALL ROWS PER MATCH outputs too, totalprice"), column)
    val string = "SELECT * FROM (SELECT string(ts) AS t, price FROM quant_test) MATCH_RECOGNIZE (ORDER BY t " +
      "PATTERN (A B) WITHIN INTERVAL '1' SECOND DEFINE A AS price > 0)"
    val within = error(string, "INTERVAL")
    assert(
      within.contains("WITHIN INTERVAL '1' SECOND bounds the time") && within.contains(
        "first ORDER BY column, which is t, STRING") && within.contains("CAST(t AS TIMESTAMP)"),
      within
    )
  }

  test("a NULL time under WITHIN fails the query, saying what to write, instead of reading as 0") {
    val query = "SELECT * FROM (SELECT CAST(IF(ts = 3, NULL, ts * 1000) AS BIGINT) AS t, price FROM quant_test) " +
      "MATCH_RECOGNIZE (ORDER BY t MEASURES count(*) AS n PATTERN (A B+) WITHIN INTERVAL '10' SECOND " +
      "DEFINE A AS price >= 100)"
    val message = intercept[Exception](sql(query).collect()).getMessage
    assert(message.contains("a row's ORDER BY time t is NULL, and WITHIN INTERVAL '10' SECOND measures") &&
        message.contains("WHERE t IS NOT NULL"), message)
    assert(sql(query.replace("WITHIN INTERVAL '10' SECOND ", "")).collect().nonEmpty)
  }

  test("WITHIN over an INT or SMALLINT order column reads its milliseconds, negative ones too") {
    for (t <- Seq("INT", "SMALLINT", "BIGINT")) {
      val spans = sql(s"SELECT * FROM (SELECT CAST(ms AS $t) AS t FROM VALUES (-5), (-4), (-2), (2) AS v(ms)) " +
        "MATCH_RECOGNIZE (ORDER BY t MEASURES FIRST(t) AS first_t, LAST(t) AS last_t ONE ROW PER MATCH " +
        "PATTERN (A+) WITHIN INTERVAL '3' MILLISECONDS DEFINE A AS true)").collect().map(r =>
        (r.getAs[Number](0).longValue, r.getAs[Number](1).longValue)).toSeq
      assert(spans == Seq((-5L, -4L), (-2L, -2L), (2L, 2L)), s"$t: $spans")
    }
  }

  test("Spark's errors in a condition word the match's values as the query writes them") {
    // The problem as the Python package raises it (Scala's getMessage also prints Spark's plan of the stand-ins).
    val problem = intercept[AnalysisException](
      sql("SELECT * FROM quant_test MATCH_RECOGNIZE (ORDER BY ts " +
        "PATTERN (A B) DEFINE B AS LAST(A.price) = TRUE)").collect()).getMessageParameters.get("cerProblem")
    assert(problem.contains("in the condition of B") && problem.contains("Cannot resolve \"(LAST(A.price) = true)\"") &&
        !problem.contains("__mr_value"), problem)
  }

  test("an aggregate over a STRING column is refused at the call, with the cast to write; Spark's run-time errors " +
    "in an aggregate name the query, not the table function it runs as") {
    def refused(clauses: String, call: String): String = {
      val text = s"SELECT * FROM ticker MATCH_RECOGNIZE (PARTITION BY symbol ORDER BY tstamp $clauses)"
      val message = intercept[AnalysisException](sql(text)).getMessageParameters.get("cerProblem")
      assert(message.contains(s"$call is over STRING values, not numbers"), message)
      val place = intercept[AnalysisException](sql(text)).getMessage
      assert(place.contains(s"line 1, column ${text.indexOf(call) + 1}"), place)
      message
    }
    val measure = refused("MEASURES sum(A.symbol) AS s PATTERN (A+) DEFINE A AS price > 0", "sum(A.symbol)")
    assert(measure.contains("in the measure sum(A.symbol)") && measure.contains("e.g. sum(double(A.symbol))"), measure)
    val define = refused("PATTERN (A+ B) DEFINE B AS avg(A.symbol || 'x') > 1", "avg(A.symbol || 'x')")
    assert(define.contains("in the condition of B") && define.contains("avg(double(A.symbol || 'x'))"), define)
    for (cast <- Seq("CAST(A.symbol AS DOUBLE)", "double(A.symbol)"))
      assert(sql(s"SELECT * FROM ticker MATCH_RECOGNIZE (ORDER BY tstamp MEASURES sum($cast) AS s PATTERN (A+) " +
        "DEFINE A AS price > 0)").schema.fieldNames.toSeq == Seq("s"))

    val overflow = intercept[ArithmeticException](
      sql("SELECT * FROM ticker MATCH_RECOGNIZE (ORDER BY tstamp " +
        "MEASURES sum(A.price * 1e36BD) AS s PATTERN (A+) DEFINE A AS price > 0)").collect()).getMessage
    assert(overflow.contains("sum(A.price * 1e36BD)") && !overflow.contains(MatchRecognizeCall.FunctionName), overflow)
  }

  // Labels A B B C C on rows 1 to 5; row 6 is in no match.
  private val kinds = "(SELECT * FROM VALUES (1, 'a'), (2, 'b'), (3, 'b'), (4, 'c'), (5, 'c'), (6, 'x') AS v(ts, kind))"

  test("CLASSIFIER is a value: inside FIRST, LAST, PREV and NEXT, RUNNING and FINAL, and in aggregates as each row's " +
    "label; PREV and NEXT hold RUNNING or FINAL FIRST and LAST") {
    val df = sql(
      s"""SELECT * FROM $kinds MATCH_RECOGNIZE (
        |  ORDER BY ts
        |  MEASURES FINAL LAST(CLASSIFIER()) AS fin, LAST(CLASSIFIER(), 3) AS back3, lower(LAST(CLASSIFIER())) AS low,
        |           FIRST(CLASSIFIER(U), 2) AS u2, NEXT(CLASSIFIER()) AS nxt, PREV(CLASSIFIER(B)) AS before_b,
        |           RUNNING array_agg(CLASSIFIER(A)) AS a_labels,
        |           concat_ws('', RUNNING array_agg(lower(CLASSIFIER(U)))) AS u_labels,
        |           PREV(RUNNING LAST(B.ts)) AS before_last_b, PREV(FINAL LAST(ts), 2) AS two_before_end
        |  ALL ROWS PER MATCH
        |  PATTERN (A B+ C+)
        |  SUBSET U = (B, C)
        |  DEFINE A AS kind = 'a', B AS kind = 'b', C AS kind = 'c'
        |)""".stripMargin)
    // Running, each measure stands at its row: LAST(CLASSIFIER(), 3) is the label 3 rows back; FIRST(CLASSIFIER(U), 2)
    // U's third row (row 4) on every row, as FIRST reads the whole match (Trino's reading); NEXT reads the next row's
    // label, NULL past the match's end (row 6).
    // PREV(CLASSIFIER(B)) is the label of the row before B's last (none on row 1); PREV(RUNNING LAST(B.ts)) the ts
    // before B's last so far; PREV(FINAL LAST(ts), 2) two rows before the match's last (ts 3) on every row.
    assert(df.select("ts", "fin", "back3", "low", "u2", "nxt", "before_b", "a_labels", "u_labels", "before_last_b",
      "two_before_end").collect().toSeq == Seq(
      Row(1, "C", null, "a", "C", "B", null, Seq("A"), "", null, 3),
      Row(2, "C", null, "b", "C", "B", "A", Seq("A"), "b", 1, 3),
      Row(3, "C", null, "b", "C", "C", "B", Seq("A"), "bb", 2, 3),
      Row(4, "C", "A", "c", "C", "C", "B", Seq("A"), "bbc", 2, 3),
      Row(5, "C", "B", "c", "C", null, "B", Seq("A"), "bbcc", 2, 3)
    ))
  }

  test("a condition that reads its own row's CLASSIFIER() is a condition of one row, asked once per row") {
    // CLASSIFIER() in A's own condition is 'A': with v > PREV(v), A reads its row and the one before, no history.
    val rows = sql("SELECT * FROM quant_test MATCH_RECOGNIZE (ORDER BY ts MEASURES count(*) AS n, " +
      "CLASSIFIER() AS last_label PATTERN (A+ B) DEFINE A AS CLASSIFIER() = 'A' AND price > coalesce(PREV(price), 0), " +
      "B AS lower(CLASSIFIER()) = 'b')").collect().toSeq
    assert(rows == Seq(Row(4L, "B")))
  }

  test("FIRST with a logical offset reads the whole match under ALL ROWS PER MATCH, RUNNING too, as Trino does") {
    // Trino's FIRST(value, 2) names the match's third row from its first row on; LAST(value, 1) stays running.
    val df = sql(s"""SELECT * FROM $kinds MATCH_RECOGNIZE (ORDER BY ts
        |  MEASURES FIRST(ts, 2) AS third, RUNNING FIRST(B.ts, 1) AS second_b, LAST(ts, 1) AS before, FIRST(C.ts) AS c
        |  ALL ROWS PER MATCH PATTERN (A B+ C+)
        |  DEFINE A AS kind = 'a', B AS kind = 'b', C AS kind = 'c')""".stripMargin)
    assert(df.select("ts", "third", "second_b", "before", "c").collect().toSeq == Seq(
      Row(1, 3, 3, null, 4), Row(2, 3, 3, 1, 4), Row(3, 3, 3, 2, 4), Row(4, 3, 3, 3, 4), Row(5, 3, 3, 4, 4)))
    // In DEFINE the match ends at the row being tried: FIRST(ts, 2) is NULL on the first two rows.
    val tried = sql(s"SELECT * FROM $kinds MATCH_RECOGNIZE (ORDER BY ts MEASURES count(*) AS n ONE ROW PER MATCH " +
      "PATTERN (A+) DEFINE A AS FIRST(ts, 2) IS NULL)")
    assert(tried.collect().toSeq == Seq(Row(2L), Row(2L), Row(2L)))
  }

  test("CLASSIFIER inside FIRST and LAST in DEFINE reads the match up to its row, the running summary kept per row") {
    // A+ takes a row while the match has no fourth row: FIRST(CLASSIFIER(), 3) names the row being tried from the
    // fourth on, labelled A. So matches of at most three rows.
    val capped =
      sql(s"SELECT * FROM $kinds MATCH_RECOGNIZE (ORDER BY ts MEASURES FIRST(ts) AS first_ts, count(*) AS n " +
        "PATTERN (A+) DEFINE A AS FIRST(CLASSIFIER(), 3) IS NULL)")
    assert(capped.collect().toSeq == Seq(Row(1, 3L), Row(4, 3L)))
    // B follows an A or a B, C a B: LAST(CLASSIFIER(), 1) is the row before's label, FIRST(CLASSIFIER(U)) U's first.
    // Rows 2 and 3 are B, row 4 C; row 5, a 'c' after a C, ends the match (how long the match runs: the complexity
    // test above).
    val chained = sql(s"SELECT * FROM $kinds MATCH_RECOGNIZE (ORDER BY ts MEASURES count(*) AS n, " +
      "concat_ws('', array_agg(CLASSIFIER())) AS labels PATTERN (A (B | C)+) SUBSET U = (B, C) " +
      "DEFINE A AS kind = 'a', B AS kind = 'b' AND LAST(CLASSIFIER(), 1) IN ('A', 'B'), " +
      "C AS LAST(CLASSIFIER(), 1) = 'B' AND FIRST(CLASSIFIER(U)) = 'B' AND kind = 'c')")
    assert(chained.collect().toSeq == Seq(Row(4L, "ABBC")))
  }

  test("errors show RUNNING and FINAL as written, never the functions they are read as") {
    def problem(clauses: String): String = intercept[AnalysisException](
      sql("SELECT * FROM quant_test " +
        s"MATCH_RECOGNIZE (ORDER BY ts $clauses)")).getMessageParameters.get("cerProblem")
    val inAggregate = problem("MEASURES sum(RUNNING LAST(A.price)) AS s PATTERN (A+) DEFINE A AS price > 0")
    assert(inAggregate.contains("sum(RUNNING LAST(A.price)) may not hold RUNNING LAST(A.price)") &&
        !inAggregate.contains("__mr"), inAggregate)
    val inPrev = problem("MEASURES PREV(FINAL count(*)) AS s PATTERN (A+) DEFINE A AS price > 0")
    assert(inPrev.contains("PREV(FINAL count(*))") && !inPrev.contains("__mr"), inPrev)
    val inside = problem("MEASURES LAST(lower(CLASSIFIER())) AS s PATTERN (A+) DEFINE A AS price > 0")
    assert(inside.contains("write the expression around the navigation"), inside)
  }
}
