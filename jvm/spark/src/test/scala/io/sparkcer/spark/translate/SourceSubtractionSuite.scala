package io.sparkcer.spark.translate

import java.sql.Date
import java.time.Duration

import org.apache.spark.sql.{AnalysisException, Row, SparkSession}
import org.apache.spark.sql.types._
import org.scalatest.funsuite.AnyFunSuite

import io.sparkcer.spark.LocalSpark

/**
 * `cer_snowflake_subtract` and `cer_oracle_subtract` through spark.sql: a DATE minus a DATE is a number of days (Spark's
 * `-` gives an interval), a string against a date is read as a date, Snowflake refuses a TIMESTAMP, and everything
 * else is Spark's own `-`, coerced as Spark coerces it; inside a MATCH_RECOGNIZE clause too.
 */
class SourceSubtractionSuite extends AnyFunSuite {

  private lazy val spark: SparkSession = LocalSpark.session()

  private def value(expression: String): (Any, DataType) = {
    val df = spark.sql(s"SELECT $expression AS v")
    (df.collect().head.get(0), df.schema.head.dataType)
  }

  private val engines = Seq("cer_snowflake_subtract", "cer_oracle_subtract")

  test("a DATE minus a DATE is the number of days between them, an INT, in both engines") {
    for (f <- engines) {
      assert(value(s"$f(DATE'2024-03-01', DATE'2024-02-01')") == (29, IntegerType), f)
      assert(value(s"$f(DATE'2024-02-01', DATE'2024-03-01')") == (-29, IntegerType), f)
      assert(value(s"$f(DATE'2024-03-01', '2024-02-28')") == (2, IntegerType), f)
      assert(value(s"$f('2024-03-01', DATE'2024-02-28')") == (2, IntegerType), f)
      assert(value(s"$f(DATE'2024-03-01', CAST(NULL AS DATE))") == (null, IntegerType), f)
      val plan = spark.sql(s"SELECT $f(d, e) FROM VALUES (DATE'2024-03-01', DATE'2024-02-01') AS t(d, e)")
      assert(plan.queryExecution.analyzed.toString.contains("datediff(d"), plan.queryExecution.analyzed)
    }
  }

  test("anything else is Spark's `-`, coerced as Spark coerces it") {
    for (f <- engines) {
      assert(value(s"$f(7, 2)") == (5, IntegerType), f)
      assert(value(s"$f(7, 2.5)") == (new java.math.BigDecimal("4.5"), DecimalType(3, 1)), f)
      assert(value(s"$f(7.5D, 2)") == (5.5, DoubleType), f)
      assert(value(s"$f(DATE'2024-03-01', 1)") == (Date.valueOf("2024-02-29"), DateType), f)
      assert(value(s"$f(NULL, 1)")._1 == null, f)
    }
    assert(value("cer_oracle_subtract(TIMESTAMP'2024-01-02 00:00:00', TIMESTAMP'2024-01-01 12:00:00')") ==
      (Duration.ofHours(12), DayTimeIntervalType(DayTimeIntervalType.DAY, DayTimeIntervalType.SECOND)))
  }

  test("Snowflake refuses a TIMESTAMP minus a TIMESTAMP or a DATE, saying to write DATEDIFF") {
    for (args <- Seq(
        "TIMESTAMP'2024-01-02 00:00:00', TIMESTAMP'2024-01-01 00:00:00'",
        "DATE'2024-01-02', TIMESTAMP_NTZ'2024-01-01 00:00:00'",
        "TIMESTAMP'2024-01-02 00:00:00', '2024-01-01'"
      )) {
      val e = intercept[AnalysisException](spark.sql(s"SELECT cer_snowflake_subtract($args)").collect())
      assert(e.getMessage.contains("Snowflake's `-` does not subtract timestamps; write DATEDIFF(second, b, a)"),
        e.getMessage)
    }
  }

  test("a call without two arguments is refused; DESCRIBE FUNCTION documents each") {
    for (call <- Seq("cer_snowflake_subtract(1)", "cer_oracle_subtract(1, 2, 3)")) {
      val e = intercept[AnalysisException](spark.sql(s"SELECT $call").collect())
      assert(e.getMessage.contains("takes two arguments, a and b (a - b)"), e.getMessage)
    }
    for (f <- engines) {
      val text = spark.sql(s"DESCRIBE FUNCTION EXTENDED $f").collect().map(_.getString(0)).mkString("\n")
      assert(text.contains(s"$f(a, b) - Subtracts as") && text.contains(s"SELECT $f(DATE'2024-03-01'"), text)
    }
  }

  test("inside MATCH_RECOGNIZE: a DEFINE condition and a measure") {
    val df = spark.sql(
      """SELECT * FROM (VALUES (DATE'2024-01-01'), (DATE'2024-01-02'), (DATE'2024-01-05')) AS t(d)
        |MATCH_RECOGNIZE (
        |  ORDER BY d
        |  MEASURES cer_snowflake_subtract(LAST(d), FIRST(d)) AS days
        |  ONE ROW PER MATCH
        |  PATTERN (A B+)
        |  DEFINE B AS cer_oracle_subtract(d, PREV(d)) = 1
        |)""".stripMargin)
    assert(df.schema.map(_.dataType) == Seq(IntegerType))
    assert(df.collect().toSeq == Seq(Row(1)))
  }
}
