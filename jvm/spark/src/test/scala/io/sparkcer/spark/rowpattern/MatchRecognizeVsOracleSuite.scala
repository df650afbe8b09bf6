package io.sparkcer.spark.rowpattern

import scala.util.Random

import org.apache.spark.sql.{Row, SparkSession}
import org.scalatest.funsuite.AnyFunSuite

import io.sparkcer.engine.oracle.{RandomRowPatternCase, RowPatternOracle}
import io.sparkcer.engine.rowpattern.{MatchRecognizeParser, RowPatternAnalysis, RowsPerMatch}
import io.sparkcer.spark.LocalSpark

/**
 * MATCH_RECOGNIZE through spark.sql against the brute-force reading of the standard in the engine's test tree
 * ([[RowPatternOracle]]): random clauses (every pattern construct, skip, SUBSET, WITHIN) over two partitions of random
 * rows, each condition written in SQL for Spark (DEFINE with PREV, NEXT, LAST and FIRST with offsets, count, sum, max,
 * CLASSIFIER and MATCH_NUMBER()) and as a function for the oracle; measures with MATCH_NUMBER() in an aggregate,
 * any_value and a scalar subquery besides. The rows must be the oracle's: ONE ROW PER MATCH with the match's
 * number, first and last order values and length, ALL ROWS PER MATCH WITH UNMATCHED ROWS with each row's match and
 * label; a skip the standard forbids must fail the query.
 */
class MatchRecognizeVsOracleSuite extends AnyFunSuite {

  private lazy val spark: SparkSession = LocalSpark.session("spark.sql.shuffle.partitions" -> "2")

  /**
   * A partition's rows in the order Spark reads them: by time, and rows at the same time (a window's times may tie)
   * by their value, the one other column the query reads ([[TotalOrder]]).
   */
  private def readOrder(rows: IndexedSeq[Int], time: IndexedSeq[Long]): (IndexedSeq[Int], IndexedSeq[Long]) = {
    val order = rows.indices.sortBy(i => (time(i), rows(i)))
    (order.map(rows), order.map(time))
  }

  test("random clauses and conditions in SQL give the oracle's rows") {
    val random = new Random(20261126L)
    val cases = 120
    var matched, failed = 0
    for (i <- 0 until cases) {
      val c = RandomRowPatternCase(random)
      val other = RandomRowPatternCase(random)
      val partitions = Seq(readOrder(c.rows, c.time), (other.rows, other.rows.indices.map(_.toLong)))
      val analyzed = RowPatternAnalysis.analyze(MatchRecognizeParser.parse(c.text), c.text)
      val allRows = analyzed.clause.rowsPerMatch == RowsPerMatch.AllWithUnmatched
      val expected = partitions.zipWithIndex.map { case ((rows, time), p) =>
        p -> RowPatternOracle.run(analyzed.clause, analyzed.labels, analyzed.subsets, rows,
          analyzed.labels.map(c.conditions.get), c.window.map { case (_, bound) => (time, bound) })
      }
      import spark.implicits._
      partitions.zipWithIndex.flatMap { case ((rows, time), p) => rows.indices.map(k => (p, time(k), rows(k))) }
        .toDF("p", "t", "v").createOrReplaceTempView("cases")
      // Under ALL ROWS, measures read row after row: RUNNING ones of the first and last variables, and a FINAL one.
      // (The universal variable's when the pattern has none.) FIRST reads the whole match, RUNNING too, as Trino's.
      val (x, y) = (analyzed.labels.headOption, analyzed.labels.lastOption)
      def column(variable: Option[String], name: String) = variable.fold(name)(v => s"$v.$name")
      // Besides: MATCH_NUMBER() in an aggregate's argument, any_value, and an uncorrelated scalar subquery.
      val top = "(SELECT max(v) FROM cases) AS top"
      val measures = if (allRows) s"MATCH_NUMBER() AS m, CLASSIFIER() AS label, count(${column(x, "*")}) AS cx, " +
        s"sum(v) AS sv, LAST(${column(x, "v")}) AS lx, FIRST(${column(y, "v")}) AS fy, FINAL max(v) AS mx, " +
        s"sum(MATCH_NUMBER() * 1000 + v) AS mv, $top"
      else s"MATCH_NUMBER() AS m, FIRST(t) AS first_t, LAST(t) AS last_t, count(*) AS n, " +
        s"sum(MATCH_NUMBER() * 1000 + v) AS mv, any_value(MATCH_NUMBER()) AS am, $top"
      val topValue = partitions.flatMap(_._1).maxOption.map(Int.box).orNull
      val query =
        s"SELECT * FROM cases MATCH_RECOGNIZE (PARTITION BY p ORDER BY t MEASURES $measures ${c.text} ${c.define})"
      val context = s"case $i: $query\nrows ${partitions.map(_._1.mkString(" ")).mkString(" | ")}"
      val failure = expected.flatMap(_._2).collectFirst { case RowPatternOracle.Failed(message) => message }
      failure match {
        case Some(message) =>
          failed += 1
          val e = intercept[Exception](spark.sql(query).collect())
          val words = if (message.contains("not present")) "is not present in match" else "cannot skip to first row"
          assert(e.getMessage.contains(words), s"$context\n${e.getMessage}")
        case None =>
          val rows = spark.sql(query).collect().toSeq
          val want = expected.flatMap { case (p, events) =>
            val time = partitions(p)._2
            events.flatMap {
              case RowPatternOracle.Matched(number, start, labels, excluded) if allRows =>
                val v = partitions(p)._1.slice(start, start + labels.length)
                def rowsOf(name: Option[String], upTo: Int) =
                  (0 to upTo).filter(i => name.forall(_ == analyzed.labels(labels(i))))
                def numbered(rows: Int) = number * 1000 * rows + v.take(rows).map(_.toLong).sum
                if (labels.isEmpty)
                  Seq(Row(p, time(start), number, null, 0L, null, null, null, null, null, topValue,
                      partitions(p)._1(start)))
                else labels.indices.filterNot(excluded).map(k =>
                  Row(
                    p,
                    time(start + k),
                    number,
                    analyzed.labels(labels(k)),
                    rowsOf(x, k).length.toLong,
                    v.take(k + 1).map(_.toLong).sum,
                    rowsOf(x, k).lastOption.map(i => Int.box(v(i))).orNull,
                    rowsOf(y, labels.length - 1).headOption.map(i => Int.box(v(i))).orNull,
                    v.max,
                    numbered(k + 1),
                    topValue,
                    v(
                      k)
                  ))
              case RowPatternOracle.Matched(number, start, labels, _) =>
                val (first, last) = if (labels.isEmpty) (null, null) else (time(start), time(start + labels.length - 1))
                val v = partitions(p)._1.slice(start, start + labels.length)
                val (mv, am) =
                  if (labels.isEmpty) (null, null) else (number * 1000 * v.length + v.map(_.toLong).sum, number)
                Seq(Row(p, number, first, last, labels.length.toLong, mv, am, topValue))
              case RowPatternOracle.Unmatched(position) if allRows =>
                // Every measure of an unmatched row is NULL, the subquery's too.
                Seq(Row(p, time(position), null, null, null, null, null, null, null, null, null,
                    partitions(p)._1(position)))
              case other => fail(s"$context: $other")
            }
          }
          def sorted(rs: Seq[Row]) = rs.map(_.toString).sorted
          assert(sorted(rows) == sorted(want), context)
          if (want.nonEmpty) matched += 1
      }
    }
    assert(matched > 40 && failed > 5, s"$matched cases with rows, $failed with a skip error")
    info(s"$cases cases: $matched with rows, $failed ending in a skip error")
  }
}
