package io.sparkcer.spark.translate

import org.apache.spark.sql.catalyst.FunctionIdentifier
import org.apache.spark.sql.catalyst.expressions.{Cast, DateDiff, Expression, ExpressionInfo, Subtract}
import org.apache.spark.sql.types._

import io.sparkcer.spark.common.CerErrors

/**
 * `-` as Snowflake and Oracle compute it, on the operands' Spark types: the SQL functions `cer_snowflake_subtract` and
 * `cer_oracle_subtract`, which `spark_cer.translate` writes for their `-`. In both engines a DATE minus a DATE is the
 * number of days between them, where Spark's is an interval; every other subtraction means what Spark's does, but
 * that Snowflake has no TIMESTAMP minus a TIMESTAMP (or a DATE).
 *
 * Not an expression of its own but a function builder: Spark's analyzer builds a function only once its arguments
 * are resolved (`ResolveFunctions` skips a call until they are), so the builder reads their types and returns the
 * expression Spark itself would write for the engine's meaning, `datediff(a, b)` or `a - b`, which the analyzer then
 * coerces as if written so and EXPLAIN shows as such.
 */
object SourceSubtraction {

  /** The engine whose `-` a call computes. */
  sealed abstract class Engine(val functionName: String, val name: String) {

    /** Why the engine does not subtract these types, where it does not (Spark would give an interval). */
    def refusal(minuend: DataType, subtrahend: DataType): Option[String]

    def usage: String

    def examples: String =
      s"""
        |    Examples:
        |      > SELECT $functionName(DATE'2024-03-01', DATE'2024-02-01');
        |       29
        |      > SELECT $functionName(DATE'2024-03-01', 1);
        |       2024-02-29
        |      > SELECT $functionName(7, 2.5);
        |       4.5
        |  """.stripMargin
  }

  /**
   * Snowflake's `-`, https://docs.snowflake.com/en/sql-reference/operators-arithmetic: a DATE minus a DATE is an
   * integer number of days; a TIMESTAMP is subtracted with DATEDIFF, not `-`.
   */
  case object Snowflake extends Engine("cer_snowflake_subtract", "Snowflake") {
    def refusal(minuend: DataType, subtrahend: DataType): Option[String] =
      if (mayBeDatetime(minuend) && mayBeDatetime(subtrahend) && (isTimestamp(minuend) || isTimestamp(subtrahend)))
        Some("Snowflake's `-` does not subtract timestamps; write DATEDIFF(second, b, a) (or another date part), " +
          "which spark_cer.translate translates")
      else None

    def usage: String = s"$functionName(a, b) - Subtracts as Snowflake's `-`: a DATE minus a DATE is the number of " +
      "days from b to a (an INT); a TIMESTAMP minus a TIMESTAMP or DATE is refused (Snowflake writes DATEDIFF); " +
      "anything else is Spark's `a - b` (used by spark_cer.translate)."
  }

  /**
   * Oracle's `-`, Oracle Database SQL Language Reference, Datetime/Interval Arithmetic: a DATE minus a DATE is a
   * number of days. A TIMESTAMP minus a TIMESTAMP is an INTERVAL DAY TO SECOND there as in Spark.
   */
  case object Oracle extends Engine("cer_oracle_subtract", "Oracle") {
    def refusal(minuend: DataType, subtrahend: DataType): Option[String] = None

    def usage: String = s"$functionName(a, b) - Subtracts as Oracle's `-`: a DATE minus a DATE is the number of " +
      "days from b to a (an INT); anything else is Spark's `a - b` (used by spark_cer.translate)."
  }

  def description(engine: Engine): (FunctionIdentifier, ExpressionInfo, Seq[Expression] => Expression) = (
    FunctionIdentifier(engine.functionName),
    new ExpressionInfo(SourceSubtraction.getClass.getName.stripSuffix("$"), null, engine.functionName, engine.usage,
      "", engine.examples, "", "datetime_funcs", "", "", ""),
    arguments => build(engine, arguments))

  private def build(engine: Engine, arguments: Seq[Expression]): Expression = arguments match {
    case Seq(a, b) =>
      if (!a.resolved || !b.resolved)
        throw CerErrors.analysis(s"${engine.functionName}: its arguments ${a.sql} and ${b.sql} must be resolved first")
      (a.dataType, b.dataType) match {
        case (DateType, DateType) => DateDiff(a, b)
        // A string against a date is read as a date, as both engines coerce it.
        case (DateType, StringType) => DateDiff(a, Cast(b, DateType))
        case (StringType, DateType) => DateDiff(Cast(a, DateType), b)
        case (x, y) => engine.refusal(x, y) match {
            case Some(why) => throw CerErrors.analysis(s"${engine.functionName}(${a.sql}, ${b.sql}): $why")
            case None => Subtract(a, b)
          }
      }
    case _ => throw CerErrors.analysis(s"${engine.functionName} takes two arguments, a and b (a - b), not " +
        s"${arguments.length}")
  }

  private def isTimestamp(t: DataType): Boolean = t == TimestampType || t == TimestampNTZType

  /** A date, a timestamp, or a string that may hold one. */
  private def mayBeDatetime(t: DataType): Boolean = isTimestamp(t) || t == DateType || t == StringType
}
