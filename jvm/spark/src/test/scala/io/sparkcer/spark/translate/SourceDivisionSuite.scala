package io.sparkcer.spark.translate

import java.math.{BigDecimal => JavaBigDecimal}

import org.apache.spark.SparkThrowable
import org.apache.spark.sql.{AnalysisException, Row, SparkSession}
import org.apache.spark.sql.types._
import org.scalatest.funsuite.AnyFunSuite

import io.sparkcer.spark.LocalSpark

/**
 * `cer_snowflake_divide` and `cer_trino_divide` through spark.sql: each engine's `/`, its value and its type, on
 * integers of each width, DECIMALs of several scales, DOUBLE and REAL; Trino's average (`cer_trino_average`); NULLs;
 * division by zero and overflow failing whatever spark.sql.ansi.enabled says; arguments refused; the functions inside
 * a MATCH_RECOGNIZE clause.
 */
class SourceDivisionSuite extends AnyFunSuite {

  private lazy val spark: SparkSession = LocalSpark.session()

  /**
   * The value of `expression` and its type: folded into a constant by the optimizer, and computed in a task on a
   * table's row, where constants are not folded.
   */
  private def eval(expression: String): (Any, DataType) = {
    val constant = spark.sql(s"SELECT $expression AS q")
    val value = constant.collect().head.get(0)
    val inTask = inATask(spark.sql(s"SELECT $expression AS q FROM range(1)").collect().head.get(0))
    assert(inTask == value || value.isInstanceOf[Double] && value.asInstanceOf[Double].isNaN &&
        inTask.asInstanceOf[Double].isNaN, s"$expression in a task: $inTask")
    (value, constant.schema.head.dataType)
  }

  private def inATask[A](body: => A): A =
    withConf("spark.sql.optimizer.excludedRules", "org.apache.spark.sql.catalyst.optimizer.ConstantFolding")(body)

  private def withConf[A](key: String, value: String)(body: => A): A = {
    val before = spark.conf.getOption(key)
    spark.conf.set(key, value)
    try body
    finally before.fold(spark.conf.unset(key))(spark.conf.set(key, _))
  }

  private def assertDivides(expression: String, value: Any, dataType: DataType): Unit =
    assert(eval(expression) == (value, dataType), expression)

  private def dec(text: String) = new JavaBigDecimal(text)

  /** The error condition `expression` fails with (in a task as well as folded into a constant). */
  private def condition(expression: String): String = {
    def thrown(query: String): String = {
      val e = intercept[Exception](spark.sql(query).collect())
      Iterator.iterate[Throwable](e)(_.getCause).takeWhile(_ != null).collectFirst {
        case s: SparkThrowable if s.getCondition != null => s.getCondition
      }.getOrElse(fail(s"$query failed without an error condition", e))
    }
    val constant = thrown(s"SELECT $expression")
    assert(inATask(thrown(s"SELECT $expression FROM range(1)")) == constant, expression)
    constant
  }

  private def withAnsi[A](enabled: Boolean)(body: => A): A = withConf("spark.sql.ansi.enabled", enabled.toString)(body)

  test("Snowflake: integers divide into a DECIMAL of scale 6, rounded half up") {
    val int = DecimalType(16, 6) // INT as DECIMAL(10, 0): 10 leading digits, scale max(0, min(0 + 6, 12))
    assertDivides("cer_snowflake_divide(1, 3)", dec("0.333333"), int)
    assertDivides("cer_snowflake_divide(2, 3)", dec("0.666667"), int)
    assertDivides("cer_snowflake_divide(7, 2)", dec("3.500000"), int)
    assertDivides("cer_snowflake_divide(50, 4)", dec("12.500000"), int)
    assertDivides("cer_snowflake_divide(0, 5)", dec("0.000000"), int)
    assertDivides("cer_snowflake_divide(-2, 3)", dec("-0.666667"), int)
    assertDivides("cer_snowflake_divide(2, -3)", dec("-0.666667"), int)
    assertDivides("cer_snowflake_divide(-7, -2)", dec("3.500000"), int)
    assertDivides("cer_snowflake_divide(1, 100000000)", dec("0.000000"), int)
    assertDivides("cer_snowflake_divide(1L, 3)", dec("0.333333"), DecimalType(26, 6))
    assertDivides("cer_snowflake_divide(CAST(1 AS TINYINT), CAST(8 AS SMALLINT))", dec("0.125000"), DecimalType(9, 6))
    assertDivides("cer_snowflake_divide(9223372036854775807L, 1)", dec("9223372036854775807.000000"),
      DecimalType(26, 6))
  }

  test("Snowflake: DECIMALs keep L1 + S2 leading digits and scale max(S1, min(S1 + 6, 12))") {
    assertDivides("cer_snowflake_divide(CAST(1 AS DECIMAL(10, 2)), 3)", dec("0.33333333"), DecimalType(16, 8))
    assertDivides("cer_snowflake_divide(CAST(2 AS DECIMAL(10, 7)), 3)", dec("0.666666666667"), DecimalType(15, 12))
    assertDivides("cer_snowflake_divide(CAST(1 AS DECIMAL(20, 15)), 3)", dec("0.333333333333333"),
      DecimalType(20, 15))
    // The divisor's scale adds leading digits: 1 / 0.3 (DECIMAL(1, 1)) has 10 + 1 of them.
    assertDivides("cer_snowflake_divide(1, 0.3)", dec("3.333333"), DecimalType(17, 6))
    assertDivides("cer_snowflake_divide(1.5, 0.25)", dec("6.0000000"), DecimalType(10, 7))
    assertDivides("cer_snowflake_divide(-1.05, 2)", dec("-0.52500000"), DecimalType(9, 8))
    // At most 38 digits.
    assertDivides("cer_snowflake_divide(CAST(1 AS DECIMAL(38, 0)), 3)", dec("0.333333"), DecimalType(38, 6))
  }

  test("Snowflake: a FLOAT or DOUBLE operand makes it a DOUBLE division") {
    assertDivides("cer_snowflake_divide(1, 3.0D)", 1.0 / 3, DoubleType)
    assertDivides("cer_snowflake_divide(7.0D, 2)", 3.5, DoubleType)
    assertDivides("cer_snowflake_divide(CAST(1 AS FLOAT), 4)", 0.25, DoubleType)
    assertDivides("cer_snowflake_divide(CAST(1.5 AS DECIMAL(2, 1)), -2.0D)", -0.75, DoubleType)
  }

  test("Trino: integers divide as integers, truncated toward zero, in the wider type") {
    assertDivides("cer_trino_divide(7, 2)", 3, IntegerType)
    assertDivides("cer_trino_divide(-7, 2)", -3, IntegerType)
    assertDivides("cer_trino_divide(7, -2)", -3, IntegerType)
    assertDivides("cer_trino_divide(-7, -2)", 3, IntegerType)
    assertDivides("cer_trino_divide(1, 3)", 0, IntegerType)
    assertDivides("cer_trino_divide(7, 2L)", 3L, LongType)
    assertDivides("cer_trino_divide(9223372036854775807L, 2)", 4611686018427387903L, LongType)
    assertDivides("cer_trino_divide(CAST(7 AS TINYINT), CAST(2 AS TINYINT))", 3.toByte, ByteType)
    assertDivides("cer_trino_divide(CAST(-7 AS TINYINT), CAST(2 AS SMALLINT))", (-3).toShort, ShortType)
    assertDivides("cer_trino_divide(CAST(-128 AS TINYINT), CAST(1 AS TINYINT))", (-128).toByte, ByteType)
  }

  test("Trino: DECIMALs give scale max(s1, s2) and precision p1 - s1 + s2 + max(s1, s2), rounded half up") {
    assertDivides("cer_trino_divide(1.0, 3.0)", dec("0.3"), DecimalType(3, 1))
    assertDivides("cer_trino_divide(CAST(10 AS DECIMAL(5, 2)), 4)", dec("2.50"), DecimalType(5, 2))
    assertDivides("cer_trino_divide(2.0, 3)", dec("0.7"), DecimalType(2, 1))
    assertDivides("cer_trino_divide(-2.0, 3)", dec("-0.7"), DecimalType(2, 1))
    assertDivides("cer_trino_divide(1.00, 0.3)", dec("3.33"), DecimalType(4, 2))
    // An integer is DECIMAL(p, 0): INT (10, 0), BIGINT (20, 0).
    assertDivides("cer_trino_divide(10, 4.0)", dec("2.5"), DecimalType(12, 1))
    assertDivides("cer_trino_divide(10L, 0.03)", dec("333.33"), DecimalType(24, 2))
    assertDivides("cer_trino_divide(CAST(1 AS DECIMAL(20, 15)), 3)", dec("0.333333333333333"), DecimalType(20, 15))
    assertDivides("cer_trino_divide(CAST(5 AS DECIMAL(38, 0)), 0.5)", dec("10.0"), DecimalType(38, 1))
  }

  test("Trino: a DOUBLE operand makes a DOUBLE division, a REAL one a REAL division, IEEE 754's by zero") {
    assertDivides("cer_trino_divide(7, 2.0D)", 3.5, DoubleType)
    assertDivides("cer_trino_divide(2.5, 2.0D)", 1.25, DoubleType)
    assertDivides("cer_trino_divide(CAST(1 AS FLOAT), 3.0D)", 1.0 / 3, DoubleType)
    assertDivides("cer_trino_divide(CAST(1 AS FLOAT), 3)", 1.0f / 3, FloatType)
    assertDivides("cer_trino_divide(1.5, CAST(2 AS FLOAT))", 0.75f, FloatType)
    assertDivides("cer_trino_divide(1.0D, 0)", Double.PositiveInfinity, DoubleType)
    assertDivides("cer_trino_divide(-1.0D, 0)", Double.NegativeInfinity, DoubleType)
    val (nan, nanType) = eval("cer_trino_divide(0.0D, 0.0D)")
    assert(nan.asInstanceOf[Double].isNaN && nanType == DoubleType)
    assertDivides("cer_trino_divide(CAST(1 AS FLOAT), 0)", Float.PositiveInfinity, FloatType)
  }

  test("Trino's average: a DECIMAL sum over a count keeps the sum's scale, rounded half up; other sums a DOUBLE") {
    assertDivides("cer_trino_average(CAST(5 AS DECIMAL(12, 2)), 3L)", dec("1.67"), DecimalType(12, 2))
    assertDivides("cer_trino_average(CAST(-5 AS DECIMAL(12, 2)), 3L)", dec("-1.67"), DecimalType(12, 2))
    assertDivides("cer_trino_average(CAST(1 AS DECIMAL(20, 0)), 2L)", dec("1"), DecimalType(20, 0)) // 0.5 up
    assertDivides("cer_trino_average(3L, 2L)", 1.5, DoubleType)
    assertDivides("cer_trino_average(1.0D, 4L)", 0.25, DoubleType)
    val q = spark.sql("SELECT cer_trino_average(SUM(x), COUNT(x)) AS a, AVG(x) AS spark FROM " +
      "(SELECT CAST(v AS DECIMAL(5, 2)) AS x FROM VALUES (1), (2), (2), (NULL) AS t(v))")
    assert(q.schema.head.dataType == DecimalType(15, 2))
    assert(q.collect().head == Row(dec("1.67"), dec("1.666667")), "Spark's AVG adds four decimals")
    assert(
      spark.sql("SELECT cer_trino_average(SUM(x), COUNT(x)) FROM VALUES (CAST(NULL AS DECIMAL(5, 2))) AS t(x)")
        .collect().head.isNullAt(0),
      "no values: NULL"
    )
  }

  test("NULL when an operand is NULL; a NULL literal takes the other operand's type") {
    assertDivides("cer_snowflake_divide(CAST(NULL AS INT), 3)", null, DecimalType(16, 6))
    assertDivides("cer_snowflake_divide(NULL, 3)", null, DecimalType(16, 6))
    assertDivides("cer_snowflake_divide(1.0D, NULL)", null, DoubleType)
    assertDivides("cer_snowflake_divide(NULL, 0)", null, DecimalType(16, 6))
    assertDivides("cer_trino_divide(7, CAST(NULL AS BIGINT))", null, LongType)
    assertDivides("cer_trino_divide(NULL, 2)", null, IntegerType)
    assertDivides("cer_trino_divide(CAST(NULL AS DECIMAL(5, 2)), 0)", null, DecimalType(5, 2))
    assertDivides("cer_trino_divide(NULL, NULL)", null, IntegerType)
    val rows = spark.sql("SELECT cer_trino_divide(a, b), cer_snowflake_divide(a, b) " +
      "FROM VALUES (7, 2), (NULL, 2), (7, NULL) AS t(a, b)").collect().toSeq
    assert(rows == Seq(Row(3, dec("3.500000")), Row(null, null), Row(null, null)))
  }

  test("division by zero fails as Spark's ANSI `/` does, whatever spark.sql.ansi.enabled says") {
    for (ansi <- Seq(true, false)) withAnsi(ansi) {
      for (call <- Seq(
          "cer_snowflake_divide(1, 0)",
          "cer_snowflake_divide(1.5, 0.0)",
          "cer_snowflake_divide(1.0D, 0)",
          "cer_snowflake_divide(1, CAST(0 AS FLOAT))",
          "cer_trino_divide(1, 0)",
          "cer_trino_divide(0L, 0)",
          "cer_trino_divide(CAST(1 AS TINYINT), CAST(0 AS TINYINT))",
          "cer_trino_divide(1.5, 0)",
          "cer_trino_divide(CAST(0 AS DECIMAL(5, 2)), 0.0)"
        ))
        assert(condition(call) == "DIVIDE_BY_ZERO", s"$call, ANSI $ansi")
    }
    val message = intercept[Exception](spark.sql("SELECT cer_trino_divide(id, id) FROM range(1)").collect())
      .getMessage
    assert(message.contains("cer_trino_divide(id, id)"), s"the error shows the call: $message")
  }

  test("a quotient out of its type's range fails, whatever spark.sql.ansi.enabled says") {
    for (ansi <- Seq(true, false)) withAnsi(ansi) {
      for (call <- Seq(
          "cer_trino_divide(-2147483648, -1)",
          "cer_trino_divide(-9223372036854775808L, -1)",
          "cer_trino_divide(-9223372036854775808L, -1L)",
          "cer_trino_divide(CAST(-128 AS TINYINT), CAST(-1 AS TINYINT))",
          "cer_trino_divide(CAST(-32768 AS SMALLINT), CAST(-1 AS SMALLINT))"
        ))
        assert(condition(call) == "ARITHMETIC_OVERFLOW", s"$call, ANSI $ansi")
      val max = "CAST('99999999999999999999999999999999999999' AS DECIMAL(38, 0))"
      for (call <- Seq(
          s"cer_trino_divide($max, 0.1)",
          s"cer_snowflake_divide($max, 1)",
          "cer_snowflake_divide(CAST('1000000000000000000000000000000000' AS DECIMAL(38, 0)), 1)"
        ))
        assert(condition(call) == "NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION", s"$call, ANSI $ansi")
    }
    // The greatest value that fits: 32 leading digits and scale 6.
    assertDivides(
      "cer_snowflake_divide(CAST('99999999999999999999999999999999' AS DECIMAL(38, 0)), 1)",
      dec("99999999999999999999999999999999.000000"),
      DecimalType(38, 6)
    )
  }

  test("an operand that is not a number, or a call without two arguments, is refused with the function's name") {
    def refusal(query: String) = intercept[AnalysisException](spark.sql(query).collect()).getMessage
    val string = refusal("SELECT cer_snowflake_divide('7', 2)")
    assert(string.contains("cer_snowflake_divide takes numbers") && string.contains("its dividend '7' is STRING"),
      string)
    val column = refusal("SELECT cer_trino_divide(id, CAST(id AS STRING)) FROM range(1)")
    assert(column.contains("cer_trino_divide takes numbers") && column.contains("is STRING"), column)
    val date = refusal("SELECT cer_trino_divide(DATE'2024-01-01', 2)")
    assert(date.contains("cer_trino_divide takes numbers") && date.contains("is DATE"), date)
    for (call <- Seq("cer_trino_divide(1)", "cer_snowflake_divide(1, 2, 3)", "cer_snowflake_divide()")) {
      val arity = refusal(s"SELECT $call")
      assert(arity.contains("takes two arguments, the dividend and the divisor"), arity)
    }
  }

  test("DESCRIBE FUNCTION documents each") {
    for (name <- Seq("cer_snowflake_divide", "cer_trino_divide", "cer_trino_average")) {
      val text = spark.sql(s"DESCRIBE FUNCTION EXTENDED $name").collect().map(_.getString(0)).mkString("\n")
      assert(text.contains(s"$name(") && text.contains(" - ") && text.contains(s"SELECT $name("), text)
    }
  }

  test("inside MATCH_RECOGNIZE: a DEFINE condition and a measure") {
    val df = spark.sql(
      """SELECT * FROM (VALUES (1, 10), (2, 7)) AS t(id, v) MATCH_RECOGNIZE (
        |  ORDER BY id
        |  MEASURES cer_snowflake_divide(LAST(v), 4) AS q, cer_trino_divide(FIRST(v), LAST(v)) AS r
        |  ONE ROW PER MATCH
        |  PATTERN (A B)
        |  DEFINE B AS cer_trino_divide(v, 2) = 3
        |)""".stripMargin)
    assert(df.schema.map(_.dataType) == Seq(DecimalType(16, 6), IntegerType))
    assert(df.collect().toSeq == Seq(Row(dec("1.750000"), 1)))
    val none = spark.sql("SELECT * FROM (VALUES (1, 10), (2, 8)) AS t(id, v) MATCH_RECOGNIZE (ORDER BY id " +
      "MEASURES LAST(v) AS last_v PATTERN (A B) DEFINE B AS cer_trino_divide(v, 2) = 3)")
    assert(none.collect().isEmpty, "8 / 2 is 4")
    val refused = intercept[AnalysisException](
      spark.sql("SELECT * FROM (VALUES (1, 'x')) AS t(id, v) " +
        "MATCH_RECOGNIZE (ORDER BY id MEASURES LAST(v) AS w PATTERN (A) DEFINE A AS cer_trino_divide(v, 2) = 3)")
        .collect()).getMessage
    assert(refused.contains("cer_trino_divide takes numbers"), refused)
    val byZero = intercept[Exception](
      spark.sql("SELECT * FROM (VALUES (1, 0)) AS t(id, v) MATCH_RECOGNIZE " +
        "(ORDER BY id MEASURES cer_snowflake_divide(1, LAST(v)) AS q PATTERN (A) DEFINE A AS v = 0)").collect())
    assert(Iterator.iterate[Throwable](byZero)(_.getCause).takeWhile(_ != null).exists(
        _.getMessage.contains(
          "DIVIDE_BY_ZERO")), byZero.getMessage)
  }
}
