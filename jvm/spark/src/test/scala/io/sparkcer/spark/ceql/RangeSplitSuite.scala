package io.sparkcer.spark.ceql

import java.sql.Timestamp

import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.catalyst.expressions.Literal
import org.apache.spark.sql.catalyst.plans.physical.HashPartitioning
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanHelper
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import io.sparkcer.spark.common.CerConf
import io.sparkcer.spark.LocalSpark

/**
 * A windowed query without PARTITION BY runs on ranges of the order column in parallel, and reports exactly the
 * matches of the single-task plan: whatever the range length (down to one window, where every range reads a
 * whole range of context), with timestamp and integer order columns, ties on the order column at range edges,
 * contiguous and negated atoms, Kleene plus and STRICT. Queries whose matches depend on more than one window
 * keep the single task.
 */
class RangeSplitSuite extends AnyFunSuite with BeforeAndAfterAll with AdaptiveSparkPlanHelper {

  private lazy val spark: SparkSession = LocalSpark.session(CerConf.RANGE_SPLIT_PARTITIONS.key -> "4")

  override def beforeAll(): Unit = {
    import spark.implicits._
    val random = new java.util.Random(3)
    var t = 0L
    val rows = (1 to 3000).map { id =>
      t += random.nextInt(3) // ties: several events in one time unit, some at range edges
      (Seq("A", "B", "C")(random.nextInt(3)), id.toLong, random.nextInt(100), t, new Timestamp(t * 1000))
    }
    rows.toDF("event_type", "id", "x", "t", "ts").repartition(3).createOrReplaceTempView("events")
  }

  private val queries = Seq(
    "SELECT * FROM events PATTERN A AS a ; B AS b ; C AS c FILTER a[x > 50] ORDER BY t, id WITHIN 6 [t]",
    "SELECT * FROM events PATTERN A AS a ; B+ AS b ; C AS c ORDER BY ts, id WITHIN 5 SECONDS",
    "SELECT * FROM events PATTERN A AS a : B AS b ; NOT(A) ; C AS c ORDER BY t, id WITHIN 9 [t]",
    "SELECT STRICT * FROM events PATTERN (A OR B)+ AS r ; C AS c FILTER c[x < 30] ORDER BY ts, id WITHIN 4 SECONDS",
    "SELECT NONE FROM events PATTERN A ; A ; A ORDER BY t, id WITHIN 3 [t]"
  )

  /** The rows, the operator, and the count (a plan that reads no column of the matches: columns get pruned). */
  private def run(query: String, windowsPerRange: Option[Int]): (Seq[Row], Option[CerExec]) = {
    windowsPerRange match {
      case Some(n) =>
        spark.conf.set(CerConf.RANGE_SPLIT_ENABLED.key, "true")
        spark.conf.set(CerConf.RANGE_SPLIT_WINDOWS_PER_RANGE.key, n.toString)
      case None => spark.conf.set(CerConf.RANGE_SPLIT_ENABLED.key, "false")
    }
    try {
      val df = spark.sql(query)
      val exec = collectFirst(df.queryExecution.executedPlan) { case e: CerExec => e }
      val rows = df.collect().toSeq
      assert(spark.sql(query).count() == rows.length)
      (rows, exec)
    } finally {
      spark.conf.unset(CerConf.RANGE_SPLIT_ENABLED.key)
      spark.conf.unset(CerConf.RANGE_SPLIT_WINDOWS_PER_RANGE.key)
    }
  }

  private def sorted(rows: Seq[Row]): Seq[String] = rows.map(_.toString).sorted

  for (query <- queries) test(s"ranges in parallel = one task: $query") {
    val (single, exec) = run(query, None)
    assert(single.nonEmpty, "the workload should produce matches")
    assert(exec.get.split.isEmpty)
    // Up to 32 windows the longest range decides the width; at 100,000 windows the stream's span does.
    for (windows <- Seq(1, 2, 7, 32, 100000)) {
      val (split, splitExec) = run(query, Some(windows))
      assert(splitExec.get.split.nonEmpty, s"$windows windows per range: the query should be split")
      assert(
        sorted(split) == sorted(single), s"$windows windows per range: ${split.length} vs ${single.length} matches")
    }
  }

  test("the split runs in several tasks; context rows are read, not reported") {
    val query = queries.head
    val df = { spark.conf.set(CerConf.RANGE_SPLIT_WINDOWS_PER_RANGE.key, "4"); spark.sql(query) }
    try {
      assert(df.rdd.getNumPartitions == 4)
      val plan = df.queryExecution.executedPlan.toString
      assert(plan.contains("hashpartitioning(__cer_task"), plan)
      assert(plan.contains("in ranges of t"), plan)
      df.collect()
      val exec = collectFirst(df.queryExecution.executedPlan) { case e: CerExec => e }.get
      // Every row the pattern can read once (others are filtered out before the shuffle), plus a context copy of
      // those within a window (6) before a range edge (every 24).
      val relevant = spark.sql("SELECT * FROM events WHERE event_type <> 'A' OR x > 50").count()
      val events = exec.metrics("numEvents").value
      assert(events > relevant && events < relevant * 1.5, s"$events events read, $relevant rows a guard accepts")
    } finally spark.conf.unset(CerConf.RANGE_SPLIT_WINDOWS_PER_RANGE.key)
  }

  test("a stream a few windows long is cut by its span: every task gets as many rows") {
    // The span (about 3,000) is 10 windows of 300: 32 windows a range would leave one range, in one task. Cut by
    // the span, it makes two ranges per task, and range i goes to task i mod 4.
    val query = "SELECT * FROM events PATTERN A AS a ; B AS b ; C AS c FILTER a[x > 90] ORDER BY t, id WITHIN 300 [t]"
    val (single, _) = run(query, None)
    val df = spark.sql(query)
    val rows = df.collect().toSeq
    assert(sorted(rows) == sorted(single))
    val exec = collectFirst(df.queryExecution.executedPlan) { case e: CerExec => e }.get
    val perTask = exec.child.execute().mapPartitions(rows => Iterator(rows.size)).collect().toSeq
    assert(perTask.length == 4 && perTask.min > 0, perTask)
    assert(perTask.max <= perTask.min * 1.3, s"rows per task: $perTask")
  }

  test("the task keys are hashed to the tasks they name") {
    for (tasks <- 1 to 64) {
      val keys = RangeSplit.taskKeys(tasks)
      val hashed = keys.map(k => HashPartitioning(Seq(Literal(k)), tasks).partitionIdExpression.eval())
      assert(hashed == (0 until tasks), s"$tasks tasks: keys $keys go to $hashed")
    }
  }

  test("queries whose matches depend on more than one window keep one task") {
    for (query <- Seq(
        "SELECT LAST * FROM events PATTERN A ; B ORDER BY t, id WITHIN 6 [t]",
        "SELECT ANY * FROM events PATTERN A ; B ORDER BY t, id WITHIN 6 [t]",
        "SELECT * FROM events PATTERN A ; B ORDER BY t, id WITHIN 6 [t] LIMIT 2",
        "SELECT * FROM events PATTERN A ; B ORDER BY t, id WITHIN 6 [t] CONSUME BY ANY",
        "SELECT * FROM events PATTERN A ; B ORDER BY t, id WITHIN 6 EVENTS",
        "SELECT * FROM events PATTERN A ; B ORDER BY t, id"
      )) {
      val (_, exec) = run(query, Some(32))
      assert(exec.get.split.isEmpty, query)
    }
  }

}
