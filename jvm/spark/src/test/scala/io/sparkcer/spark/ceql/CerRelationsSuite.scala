package io.sparkcer.spark.ceql

import java.sql.Timestamp

import scala.collection.mutable

import org.apache.spark.sql.{AnalysisException, DataFrame, Row, SparkSession}
import org.apache.spark.sql.execution.streaming.MemoryStream
import org.apache.spark.sql.types.{ArrayType, StructType}
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import io.sparkcer.engine.{Event, LocalEngine}
import io.sparkcer.spark.common.{CerConf, CerErrors}
import io.sparkcer.spark.{PatternValidation, LocalSpark}

/**
 * Conditions relating events (n-ary conditions, as in RMA, Alevizos et al., §3) evaluated by Spark's expressions and
 * aggregate functions: each query's matches, through the PATTERN statement, the `cer` table function and a DataFrame
 * (as `df.cer` runs it), equal the engine's own on the same rows ([[LocalEngine]], with the engine's interpreter);
 * errors are placed in the query, in the analysis and in validation alike; on a stream, the matches are the table's
 * whatever the micro-batches and across a restart.
 */
class CerRelationsSuite extends AnyFunSuite with BeforeAndAfterAll {

  private lazy val spark: SparkSession = LocalSpark.session(
    "spark.sql.shuffle.partitions" -> "3",
    "spark.sql.streaming.stateStore.providerClass" ->
      "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider"
  )

  private type Stock = (String, String, Long, Double, Long, Long)
  /** A stock on a stream: its time a timestamp. */
  private type Trade = (String, String, Long, Double, Timestamp, Long)
  private val columns = IndexedSeq("event_type", "name", "volume", "price", "ts", "id")

  /** 150 trades of 3 stocks, `ts` 10 apart, each price a random walk in half dollars. */
  private val stocks: Seq[Stock] = {
    val random = new java.util.Random(11)
    val price = mutable.Map("INTC" -> 100.0, "RIMM" -> 50.0, "MSFT" -> 80.0)
    (1 to 150).map { i =>
      val name = Seq("INTC", "RIMM", "MSFT")(random.nextInt(3))
      price(name) += (random.nextInt(7) - 3) * 0.5
      (if (random.nextInt(3) == 0) "SELL" else "BUY", name, (1 + random.nextInt(10)) * 100L, price(name), i * 10L,
        i.toLong)
    }
  }

  override def beforeAll(): Unit = {
    import spark.implicits._
    stocks.toDF(columns: _*).repartition(2).createOrReplaceTempView("stocks")
  }

  /** A match as a line: the key, the bounds, then the ids of each variable's events. */
  private def line(keys: Seq[Any], start: Any, end: Any, ids: Seq[Seq[Any]]): String =
    (keys ++ Seq(start, end) ++ ids.map(_.mkString("[", ",", "]"))).mkString("|")

  /** The output rows as lines: the key and bound columns, then the variables' structs or arrays. */
  private def lines(df: DataFrame): Seq[String] = df.collect().toSeq.map { row =>
    val (variables, scalars) = row.schema.fields.indices.partition(i =>
      row.schema(i).dataType match {
        case _: StructType | _: ArrayType => true
        case _ => false
      })
    val ids = variables.map(i =>
      (if (row.schema(i).dataType.isInstanceOf[StructType]) Seq(row.getStruct(i))
       else row.getSeq[Row](i)).map(_.getAs[Long]("id")))
    line(scalars.dropRight(2).map(row.get), row.get(scalars(scalars.length - 2)), row.get(scalars.last), ids)
  }

  /** The engine's own matches of `pattern` over the same rows, in stream order. */
  private def engine(pattern: String): Seq[String] = {
    val ts = columns.indexOf("ts")
    def id(e: Event) = e.values(columns.indexOf("id"))
    val rows = stocks.sortBy(_._5).iterator.map(_.productIterator.toArray[Any])
    LocalEngine.compile(pattern, columns).run(rows)
      .map(m => line(m.partition, m.start.values(ts), m.end.values(ts), m.bindings.map(_.map(id)))).toSeq
  }

  /** The matches of `pattern` in every form equal the engine's, and there are some. */
  private def sameAsEngine(pattern: String): Seq[String] = {
    val expected = engine(pattern).sorted
    assert(expected.nonEmpty, s"the data should give matches of $pattern")
    val statement = spark.sql(s"SELECT * FROM stocks PATTERN $pattern")
    val function = spark.sql(s"SELECT * FROM cer(TABLE(stocks), '$pattern')")
    // df.cer: the DataFrame as the TABLE argument, the pattern a parameter (python/spark_cer/dataframe.py)
    spark.table("stocks").where("id > 0").createOrReplaceTempView("cer_input")
    val dataFrame = spark.sql("SELECT * FROM cer(TABLE(cer_input), :pattern, NULL, NULL)", Map("pattern" -> pattern))
    for ((form, df) <- Seq("PATTERN" -> statement, "cer" -> function, "DataFrame" -> dataFrame)) {
      val got = lines(df).sorted
      val same = got == expected
      assert(
        same,
        s"$form: ${got.size} matches, the engine ${expected.size}; first differences: " +
          s"${got.diff(expected).take(3)} / ${expected.diff(got).take(3)}"
      )
    }
    // A plan that reads no column of the matches still gives the columns that the conditions read.
    assert(spark.sql(s"SELECT count(*) FROM cer(TABLE(stocks), '$pattern')").head().getLong(0) == expected.size)
    expected
  }

  test("a SELL then a BUY of the same name at a higher price, within a window") {
    sameAsEngine("SELL AS s ; BUY AS b FILTER b.price > s.price * 1.01 AND b.name = s.name ORDER BY ts WITHIN 100 [ts]")
    sameAsEngine("SELL AS s ; BUY AS b FILTER b.price > s.price PARTITION BY name ORDER BY ts WITHIN 100 [ts]")
  }

  test("three rising prices: prev") {
    val found = sameAsEngine("(BUY AS b)+ FILTER b.price > prev(b.price) AND count(b) = 3 PARTITION BY name " +
      "ORDER BY ts WITHIN 200 [ts]")
    assert(found.forall(_.count(_ == ',') == 2), found.take(3))
  }

  test("a burst whose sum(volume) passes a bound") {
    sameAsEngine("SELL AS s ; (BUY AS b)+ FILTER sum(b.volume) > 2 * s.volume PARTITION BY name ORDER BY ts " +
      "WITHIN 6 EVENTS")
  }

  test("count, avg, first and last") {
    sameAsEngine("SELL AS s ; (BUY AS b)+ ; SELL AS e FILTER count(b) >= 2 AND avg(b.price) < e.price AND " +
      "first(b.volume) < last(b.volume) PARTITION BY name ORDER BY ts WITHIN 8 EVENTS")
    sameAsEngine("(BUY AS b)+ ; SELL AS s FILTER min(b.price) > s.price - 2 AND max(b.price * b.volume) > 30000 " +
      "PARTITION BY name ORDER BY ts WITHIN 5 EVENTS")
  }

  test("count(b.x) counts the events whose x is not NULL, count(b) every event") {
    import spark.implicits._
    Seq(("A", 1, Some(1L)), ("A", 2, None), ("A", 3, Some(2L)), ("A", 4, Some(3L)), ("A", 5, Some(4L)))
      .toDF("event_type", "ts", "x").createOrReplaceTempView("counted")
    def matches(condition: String): Seq[Seq[Int]] =
      spark.sql(s"SELECT * FROM counted PATTERN (A AS a)+ FILTER count(a) = 3 AND $condition ORDER BY ts " +
        "WITHIN 3 EVENTS").collect().toSeq.map(
        _.getAs[scala.collection.Seq[Row]]("a").toSeq.map(_.getAs[Int]("ts"))).sortBy(_.head)
    assert(matches("count(a.x) = 3") == Seq(Seq(3, 4, 5)))
    assert(matches("count(a.x) = 2") == Seq(Seq(1, 2, 3), Seq(2, 3, 4)))
  }

  test("an order comparison over a repeating variable: its hardest event stands for all, selected or not") {
    // Spark's coercion (a Long against a Double) and ordering decide which b is the hardest, as they decide the
    // comparison; the engine's interpreter gives the same matches.
    for (select <- Seq("*", "s"); condition <- Seq("b.price <= s.price + 1", "s.volume < b.volume")) {
      val query = s"SELECT $select FROM stocks PATTERN (BUY AS b)+ ; SELL AS s FILTER $condition PARTITION BY name " +
        "ORDER BY ts WITHIN 60 [ts]"
      val expected = engine(query.replace("FROM stocks PATTERN", "FROM S WHERE")).sorted
      assert(expected.nonEmpty, s"the data should give matches of $query")
      assert(lines(spark.sql(query)).sorted == expected, query)
    }
  }

  test("an aggregate over an unselected iteration is read over one event: the engine's rows, and EXPLAIN says so") {
    // Some subset of the b's satisfies each condition exactly when one b does, so the row (s, e) is found once per
    // match rather than once per subset; Spark evaluates the call's argument on that b, as a condition or as a guard.
    for (condition <- Seq("avg(b.price) < e.price - 1", "max(b.volume) BETWEEN s.volume AND e.volume",
        "min(b.price) > 100")) {
      val query = s"SELECT s, e FROM stocks PATTERN SELL AS s ; (BUY AS b)+ ; SELL AS e FILTER $condition " +
        "PARTITION BY name ORDER BY ts WITHIN 8 EVENTS"
      val expected = engine(query.replace("FROM stocks PATTERN", "FROM S WHERE")).sorted
      assert(expected.nonEmpty, s"the data should give matches of $query")
      assert(lines(spark.sql(query)).sorted == expected, query)
      val plan = spark.sql(s"EXPLAIN $query").collect().head.getString(0)
      assert(plan.contains(s"$condition read over one event of b"), plan)
    }
  }

  test("the hardest event: NULL is the hardest, strings compare as Spark compares them") {
    import spark.implicits._
    Seq(("A", 1, "b", Some(2L)), ("A", 2, "a", None), ("A", 3, "c", Some(1L)), ("C", 4, "bb", Some(2L)))
      .toDF("event_type", "ts", "s", "x").createOrReplaceTempView("hardest")
    def matches(condition: String): Seq[Seq[Int]] =
      spark.sql(s"SELECT a FROM hardest PATTERN (A AS a)+ ; C AS c FILTER $condition ORDER BY ts WITHIN 4 EVENTS")
        .collect().toSeq.map(_.getAs[scala.collection.Seq[Row]]("a").toSeq.map(_.getAs[Int]("ts"))).sortBy(_.toString)
    assert(matches("a.s < c.s") == Seq(Seq(1), Seq(1, 2), Seq(2)))
    assert(matches("a.x <= c.x") == Seq(Seq(1), Seq(1, 3), Seq(3)))
  }

  test("NOT over a condition, and a condition over one event as a guard") {
    sameAsEngine("SELL AS s ; BUY AS b FILTER NOT (b.price > s.price) PARTITION BY name ORDER BY ts WITHIN 60 [ts]")
    sameAsEngine("SELL AS s ; BUY AS b FILTER s.volume > 500 AND b.price >= s.price PARTITION BY name ORDER BY ts " +
      "WITHIN 100 [ts]")
    sameAsEngine("SELL AS s ; BUY AS b FILTER NOT (s.volume > 500 OR b.volume < 300) PARTITION BY name ORDER BY ts " +
      "WITHIN 60 [ts]")
  }

  test("EXPLAIN shows the conditions as Spark resolved them") {
    val plan = spark.sql("EXPLAIN SELECT * FROM stocks PATTERN (BUY AS b)+ FILTER b.price > prev(b.price) AND " +
      "sum(b.volume) > 1000 PARTITION BY name ORDER BY ts WITHIN 5 EVENTS").collect().head.getString(0)
    assert(plan.contains("conditions [(b.price > prev(b.price)), (sum(b.volume) > 1000)]"), plan)
    assert(plan.contains("registers (RMA)"), plan)
  }

  test("equalities run on a PCEA (EXPLAIN says so): the engine's matches, and the general evaluator's") {
    val chain =
      "SELL AS s ; BUY AS b ; SELL AS e FILTER s.name = b.name AND b.volume = e.volume ORDER BY ts WITHIN 80 [ts]"
    // name relates every event: a partition; volume relates b and t, operands of AND: the PCEA's q-tree.
    val conjunction = "SELL AS s AND BUY AS b AND SELL AS t FILTER s.name = b.name AND b.name = t.name AND " +
      "b.volume = t.volume ORDER BY ts WITHIN 60 [ts]"
    for ((pattern, plan) <- Seq(chain -> "keys {s.name = b.name}, {b.volume = e.volume} along the sequence",
        conjunction -> "q-tree ()[(s), {b.volume = t.volume}[(b), (t)]]")) {
      val explained = spark.sql(s"EXPLAIN SELECT * FROM stocks PATTERN $pattern").collect().head.getString(0)
      assert(explained.contains("equality correlation by PCEA") && explained.contains(plan), explained)
      val matches = sameAsEngine(pattern)
      spark.conf.set(CerConf.PCEA_ENABLED.key, "false")
      try {
        val general = spark.sql(s"EXPLAIN SELECT * FROM stocks PATTERN $pattern").collect().head.getString(0)
        assert(!general.contains("by PCEA (") && general.contains("not by PCEA: PCEA is turned off"), general)
        assert(lines(spark.sql(s"SELECT * FROM stocks PATTERN $pattern")).sorted == matches)
      } finally spark.conf.unset(CerConf.PCEA_ENABLED.key)
    }
  }

  test("a PCEA's keys are Spark's equality: coerced types, -0.0 = 0.0, strings copied out of their rows") {
    import spark.implicits._
    Seq(
      ("A", 1, Some(2), None, "x"),
      ("B", 2, None, Some(2.0), "x"),
      ("A", 3, Some(0), None, "yy"),
      ("B", 4, None, Some(-0.0), "yy"),
      ("B", 5, None, Some(2.5), "x"),
      ("B", 6, None, Some(0.0), "x")
    )
      .toDF("event_type", "ts", "k", "d", "s").createOrReplaceTempView("keyed")
    def run(condition: String): Set[(Int, Int)] = {
      val df = spark.sql(s"SELECT * FROM keyed PATTERN A AS a ; B AS b FILTER $condition ORDER BY ts WITHIN 9 EVENTS")
      df.collect().map(r => (r.getAs[Row]("a").getAs[Int]("ts"), r.getAs[Row]("b").getAs[Int]("ts"))).toSet
    }
    /** The matches on the PCEA, which are the general evaluator's. */
    def matches(condition: String): Set[(Int, Int)] = {
      val plan = spark.sql(s"EXPLAIN SELECT * FROM keyed PATTERN A AS a ; B AS b FILTER $condition ORDER BY ts " +
        "WITHIN 9 EVENTS").collect().head.getString(0)
      assert(plan.contains("by PCEA ("), plan)
      val found = run(condition)
      spark.conf.set(CerConf.PCEA_ENABLED.key, "false")
      try assert(run(condition) == found)
      finally spark.conf.unset(CerConf.PCEA_ENABLED.key)
      found
    }
    assert(matches("a.k = b.d") == Set((1, 2), (3, 4), (3, 6)))
    assert(matches("a.s = b.s") == Set((1, 2), (1, 5), (1, 6), (3, 4)))
    assert(matches("a.k = b.d AND a.s = b.s") == Set((1, 2), (3, 4)))
  }

  /** On a stream, the matches of `query` over `trades` are the table's, whatever the micro-batches, across a restart. */
  private def streamsLikeTable(query: String): Unit = {
    import spark.implicits._
    implicit val sqlContext: org.apache.spark.sql.SQLContext = spark.sqlContext
    val trades: Seq[Trade] = stocks.map { case (kind, name, volume, price, ts, id) =>
      (kind, name, volume, price, new Timestamp(1000 + ts * 10), id)
    }
    // Rows far in the future move the watermark past every trade, so that all their matches are final.
    val flush: Seq[Trade] =
      Seq(("FLUSH", "Z", 0L, 0.0, new Timestamp(10000000L), 0L), ("FLUSH", "Z", 0L, 0.0, new Timestamp(10000001L), 0L))
    val names = Seq("event_type", "name", "volume", "price", "ts", "id")
    trades.toDF(names: _*).createOrReplaceTempView("trades")
    val expected = spark.sql(query).collect().toSeq.map(_.toString).sorted
    assert(expected.nonEmpty)

    for (seed <- 1 to 2) {
      val source = MemoryStream[Trade]
      val checkpoint = java.nio.file.Files.createTempDirectory("cer-relations").toString
      val found = mutable.ArrayBuffer.empty[String]
      val collect: (DataFrame, Long) => Unit =
        (batch, _) => found.synchronized(found ++= batch.collect().map(_.toString))
      def start() = {
        source.toDF().toDF(names: _*).withWatermark("ts", "1 second").createOrReplaceTempView("trades")
        spark.sql(query).writeStream.foreachBatch(collect).option("checkpointLocation", checkpoint).start()
      }
      val random = new java.util.Random(seed)
      val cuts = (0 +: Seq.fill(8)(random.nextInt(trades.length)) :+ trades.length).distinct.sorted
      val batches = cuts.zip(cuts.tail).map { case (a, b) => trades.slice(a, b) } ++ flush.map(Seq(_))
      // The query stops halfway and starts again from its checkpoint: the engine's state, aggregates included.
      val (before, after) = batches.splitAt(batches.length / 2)
      for (part <- Seq(before, after)) {
        val running = start()
        try part.foreach { rows => source.addData(rows); running.processAllAvailable() }
        finally running.stop()
      }
      val same = found.sorted == expected
      assert(same, s"${found.size} matches from the stream, ${expected.size} from the table")
    }
  }

  test("on a stream: the table's matches, whatever the micro-batches, across a restart") {
    streamsLikeTable("SELECT * FROM trades PATTERN SELL AS s ; (BUY AS b)+ FILTER b.price > prev(b.price) AND " +
      "sum(b.volume) > s.volume AND avg(b.price) > s.price PARTITION BY name ORDER BY ts, id WITHIN 3 SECONDS")
  }

  test("on a stream, a PCEA's runs are saved and restored with the checkpoint") {
    streamsLikeTable("SELECT * FROM trades PATTERN SELL AS s ; (BUY AS b)+ ; SELL AS e FILTER s.name = b.name AND " +
      "b.name = e.name AND b.volume = e.volume ORDER BY ts, id WITHIN 3 SECONDS")
  }

  /** Per FILTER: where its error points (the first occurrence of a text), how many characters, and the problem. */
  private val errors = Seq(
    ("SELL AS s ; BUY AS b FILTER b.pricee > s.price", "pricee", 6,
      "unknown column 'pricee' of b; the columns are: event_type, name, volume, price, ts, id"),
    ("SELL AS s ; BUY AS b FILTER b.price > price", "price ORDER", 5,
      "'price' needs the variable whose event it reads: write b.price"),
    ("SELL AS s ; BUY AS b FILTER s.volume > volume + 5", "volume +", 6,
      "'volume' needs the variable whose event it reads: write s.volume"),
    ("(BUY AS b)+ ; SELL AS s FILTER sum(b.volumee) > s.volume", "volumee", 7, "unknown column 'volumee' of b"),
    ("SELL AS s ; BUY AS b FILTER b.price + s.price", "b.price + s.price", 17,
      "the condition b.price + s.price is DOUBLE, not BOOLEAN"),
    ("SELL AS s ; BUY AS b FILTER b.name > s.price", "b.name", 6,
      "type mismatch in the condition b.name > s.price: b.name is a STRING compared with a number"),
    ("(BUY AS b)+ ; SELL AS s FILTER max(b.name) > 5", "max(b.name)", 11,
      "type mismatch in the condition max(b.name) > 5: max(b.name) is a STRING compared with a number"),
    ("(BUY AS b)+ ; SELL AS s FILTER sum(b.name) > s.price", "sum(b.name)", 11,
      "sum(b.name) is over STRING values, not numbers: convert them explicitly, e.g. sum(double(b.name))"),
    ("(BUY AS b)+ ; SELL AS s FILTER stddev(b.price) > s.price", "stddev", 25,
      "the condition stddev(b.price) > s.price may not use Spark's aggregate, window or generator functions"),
    ("SELL AS s ; BUY AS b FILTER b.price > nothing(s.price)", "b.price > nothing", 26,
      "in the condition b.price > nothing(s.price): [UNRESOLVED_ROUTINE]")
  )

  /** The problem and place of a validation's answer, as (problem, column, length). */
  private def validated(query: String, schema: Option[StructType], columns: Option[Seq[String]]): (String, Int, Int) = {
    val json = new com.fasterxml.jackson.databind.ObjectMapper()
    val request = json.createObjectNode().put("query", query)
    schema.foreach(s => request.put("schema", s.json))
    columns.foreach(cs => cs.foldLeft(request.putArray("columns"))(_.add(_)))
    val answer = json.readTree(PatternValidation(json.writeValueAsString(request),
        Some(spark.asInstanceOf[org.apache.spark.sql.classic.SparkSession])))
    assert(!answer.get("ok").asBoolean, answer)
    (answer.get("problem").asText, answer.get("column").asInt, answer.get("length").asInt)
  }

  for ((filter, at, length, problem) <- errors) test(s"errors are placed in the query: $filter") {
    val pattern = s"$filter ORDER BY ts WITHIN 5 EVENTS"
    val statement = s"SELECT * FROM stocks PATTERN $pattern"
    val e = intercept[AnalysisException](spark.sql(statement))
    val column = statement.indexOf(at) + 1
    assert(e.getMessage.startsWith(s"line 1, column $column: $problem"), e.getMessage)
    assert(CerErrors.placeOf(e, statement).get.length == length, e.getMessage)
    // The validator analyzes the query as Spark runs it; without a session's schema it checks the names alone.
    val query = s"SELECT * FROM stocks WHERE $pattern"
    val place = (query.indexOf(at) + 1, length)
    val (validatedProblem, validatedColumn, validatedLength) =
      validated(query, Some(spark.table("stocks").schema), None)
    assert(validatedProblem.startsWith(problem) && (validatedColumn, validatedLength) == place, validatedProblem)
    if (problem.contains("variable whose event") || problem.startsWith("unknown column"))
      assert(validated(query, None, Some(columns)) == ((e.getMessageParameters.get("cerProblem"), place._1, place._2)))
  }
}
