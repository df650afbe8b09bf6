package io.sparkcer.spark.translate

import java.math.{BigDecimal => JavaBigDecimal, RoundingMode}

import scala.math.{max, min}

import org.apache.spark.QueryContext
import org.apache.spark.sql.catalyst.FunctionIdentifier
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult
import org.apache.spark.sql.catalyst.expressions.{BinaryExpression, Expression, ExpressionInfo, SupportQueryContext}
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenFallback
import org.apache.spark.sql.cer.SparkInternals
import org.apache.spark.sql.types._

import io.sparkcer.spark.common.CerErrors

/**
 * `/` as a source engine computes it, on the operands' Spark types: the SQL functions `cer_snowflake_divide` and
 * `cer_trino_divide`, which `spark_cer.translate` writes for Snowflake's and Trino's `/`. Spark's own `/` always
 * divides as DOUBLE or as a DECIMAL of Spark's scale; the engines divide integers, and scale decimals, by rules of
 * their own, and only Spark's analyzer knows the operands' types.
 *
 * Integral operands stand for the DECIMAL(p, 0) Spark widens them to where it needs a decimal (`DecimalType.forType`):
 * TINYINT as DECIMAL(3, 0), SMALLINT (5, 0), INT (10, 0), BIGINT (20, 0). A NULL literal takes the other operand's
 * type, as Trino types an untyped NULL. The result is NULL when an operand is. Whatever `spark.sql.ansi.enabled` says,
 * division by zero (but for Trino's DOUBLE and REAL division, IEEE 754's) and a result out of its type's range fail,
 * as in the engines, with the errors Spark's `/` raises under ANSI.
 */
final case class SourceDivision(left: Expression, right: Expression, engine: SourceEngine)
    extends BinaryExpression with SupportQueryContext with CodegenFallback {

  override def prettyName: String = engine.functionName

  override def nullIntolerant: Boolean = true

  /**
   * Operands that are not numbers are refused here, once they are resolved, with the function's own words: Spark's
   * type coercion leaves this function's arguments as they are (it declares no input types to cast them to).
   */
  override def checkInputDataTypes(): TypeCheckResult = {
    Seq("dividend" -> left, "divisor" -> right).foreach { case (role, operand) =>
      if (!operand.dataType.isInstanceOf[NumericType] && operand.dataType != NullType)
        throw CerErrors.analysis(s"${engine.functionName} takes numbers, the dividend and the divisor: its $role " +
          s"${operand.sql} is ${operand.dataType.sql}; convert it explicitly, e.g. CAST(${operand.sql} AS DOUBLE)")
    }
    TypeCheckResult.TypeCheckSuccess
  }

  override lazy val dataType: DataType = (left.dataType, right.dataType) match {
    case (NullType, NullType) => engine.resultType(IntegerType, IntegerType)
    case (NullType, divisor) => engine.resultType(divisor, divisor)
    case (dividend, NullType) => engine.resultType(dividend, dividend)
    case (dividend, divisor) => engine.resultType(dividend, divisor)
  }

  override def initQueryContext(): Option[QueryContext] = Some(origin.context)

  private def divisionByZero = SparkInternals.divideByZero(getContextOrNull())

  @transient private lazy val divide: (Any, Any) => Any = dataType match {
    case DoubleType => (dividend, divisor) =>
        val d = SourceDivision.double(divisor)
        if (d == 0 && engine.floatingDivisionByZeroFails) throw divisionByZero
        SourceDivision.double(dividend) / d
    // Only Trino divides as REAL, as IEEE 754 does: an infinity or NaN for a zero divisor.
    case FloatType => (dividend, divisor) => SourceDivision.float(dividend) / SourceDivision.float(divisor)
    case t: DecimalType => (dividend, divisor) =>
        val d = SourceDivision.exact(divisor)
        if (d.signum == 0) throw divisionByZero
        val quotient = SourceDivision.exact(dividend).divide(d, t.scale, RoundingMode.HALF_UP)
        SparkInternals.fitted(Decimal(quotient), t, getContextOrNull())
    case integral =>
      val t = SourceDivision.Integrals(integral)
      (dividend, divisor) => {
        val (a, b) = (dividend.asInstanceOf[Number].longValue, divisor.asInstanceOf[Number].longValue)
        if (b == 0) throw divisionByZero
        // The one quotient of two values of a type that the type cannot hold: its least value divided by -1.
        if (b == -1 && a == t.least) throw SparkInternals.integralDivideOverflow(getContextOrNull())
        t.narrowed(a / b)
      }
  }

  protected override def nullSafeEval(dividend: Any, divisor: Any): Any = divide(dividend, divisor)

  override protected def withNewChildrenInternal(newLeft: Expression, newRight: Expression): SourceDivision =
    copy(left = newLeft, right = newRight)
}

object SourceDivision {

  def description(engine: SourceEngine): (FunctionIdentifier, ExpressionInfo, Seq[Expression] => Expression) = (
    FunctionIdentifier(engine.functionName),
    new ExpressionInfo(classOf[SourceDivision].getName, null, engine.functionName, engine.usage, "",
      engine.examples, "", "math_funcs", "", "", ""),
    {
      case Seq(dividend, divisor) => SourceDivision(dividend, divisor, engine)
      case arguments => throw CerErrors.analysis(s"${engine.functionName} takes two arguments, the dividend and the " +
          s"divisor, not ${arguments.length}")
    })

  /**
   * An integral type: its least value, a quotient in its range as a value of the type, and the DECIMAL(p, 0) Spark
   * widens it to (`DecimalType.forType`).
   */
  private[translate] final case class Integral(least: Long, narrowed: Long => Any, asDecimal: DecimalType)

  private[translate] val Integrals: Map[DataType, Integral] = Map(
    ByteType -> Integral(Byte.MinValue.toLong, _.toByte, DecimalType(3, 0)),
    ShortType -> Integral(Short.MinValue.toLong, _.toShort, DecimalType(5, 0)),
    IntegerType -> Integral(Int.MinValue.toLong, _.toInt, DecimalType(10, 0)),
    LongType -> Integral(Long.MinValue, identity, DecimalType(20, 0))
  )

  // An operand's value, a number as Spark holds it: a Decimal, or a boxed primitive (Byte to Double).

  /** As a DOUBLE, as Spark casts it. */
  private def double(value: Any): Double = value match {
    case d: Decimal => d.toDouble
    case n => n.asInstanceOf[Number].doubleValue
  }

  /** As a REAL (FloatType), as Spark casts it. */
  private def float(value: Any): Float = value match {
    case d: Decimal => d.toFloat
    case n => n.asInstanceOf[Number].floatValue
  }

  /** An exact operand's value: a DECIMAL, or an integer. */
  private def exact(value: Any): JavaBigDecimal = value match {
    case d: Decimal => d.toJavaBigDecimal
    case n => JavaBigDecimal.valueOf(n.asInstanceOf[Number].longValue)
  }
}

/** The engine whose `/` a [[SourceDivision]] computes, or (Trino's `avg`) whose quotient of a sum by a count. */
sealed abstract class SourceEngine(val functionName: String) {

  /** The type of the quotient of numbers of these types, which also says how they divide. */
  def resultType(dividend: DataType, divisor: DataType): DataType

  /** Whether a DOUBLE division by zero fails, rather than giving an infinity or NaN. */
  def floatingDivisionByZeroFails: Boolean

  def usage: String

  def examples: String

  /** The Examples section of `DESCRIBE FUNCTION EXTENDED`: calls with their arguments, and what each gives. */
  protected def examplesOf(calls: (String, String)*): String = calls.map { case (arguments, result) =>
    s"      > SELECT $functionName($arguments);\n       $result\n"
  }.mkString("\n    Examples:\n", "", "  ")
}

object SourceEngine {

  private def isFloating(t: DataType): Boolean = t == DoubleType || t == FloatType

  private def isIntegral(t: DataType): Boolean = SourceDivision.Integrals.contains(t)

  /**
   * The DECIMAL quotient of exact operands (an integer as DECIMAL(p, 0)), in both engines: the dividend's leading
   * digits plus the divisor's scale, then `scale(s1, s2)` digits, at most 38 in all (never fewer than the scale, as
   * the leading digits are never negative).
   */
  private def decimalQuotient(dividend: DataType, divisor: DataType)(scale: (Int, Int) => Int): DecimalType = {
    val (d1, d2) = (asDecimal(dividend), asDecimal(divisor))
    val s = scale(d1.scale, d2.scale)
    DecimalType(min(DecimalType.MAX_PRECISION, d1.precision - d1.scale + d2.scale + s), s)
  }

  private def asDecimal(t: DataType): DecimalType = t match {
    case d: DecimalType => d
    case integral => SourceDivision.Integrals(integral).asDecimal
  }

  /**
   * Snowflake's `/`, https://docs.snowflake.com/en/sql-reference/operators-arithmetic ("Scale and precision in
   * arithmetic operations", Division): a FLOAT operand makes it a FLOAT (DOUBLE) division; exact numbers L1.S1 / L2.S2
   * (L leading digits, S scale) give L1 + S2 leading digits and scale max(S1, min(S1 + 6, 12)), the quotient rounded
   * half up, at most 38 digits. Any division by zero is an error, a FLOAT one too.
   */
  case object Snowflake extends SourceEngine("cer_snowflake_divide") {
    def resultType(dividend: DataType, divisor: DataType): DataType =
      if (isFloating(dividend) || isFloating(divisor)) DoubleType
      else decimalQuotient(dividend, divisor)((s1, _) => max(s1, min(s1 + 6, 12)))

    def floatingDivisionByZeroFails: Boolean = true

    def usage: String = s"$functionName(dividend, divisor) - Divides as Snowflake's `/`: DOUBLE when an operand is " +
      "FLOAT or DOUBLE; otherwise a DECIMAL (integers as DECIMAL(p, 0)) with L1 + S2 leading digits and scale " +
      "max(S1, min(S1 + 6, 12)), rounded half up. Division by zero and overflow are errors (used by " +
      "spark_cer.translate)."

    def examples: String = examplesOf("1, 3" -> "0.333333", "CAST(1 AS DECIMAL(10, 2)), 3" -> "0.33333333",
      "7, 2.0D" -> "3.5")
  }

  /**
   * Trino's `/`, https://trino.io/docs/current/functions/math.html (integer division truncates) and
   * https://trino.io/docs/current/language/types.html (decimal arithmetic): integers divide as integers, truncated
   * toward zero, in the wider of their types; a DOUBLE operand makes a DOUBLE division, else a REAL one a REAL
   * division, both IEEE 754's (a zero divisor gives an infinity or NaN); DECIMALs (an integer as DECIMAL(p, 0)) give
   * scale max(s1, s2) and precision min(38, p1 - s1 + s2 + max(s1, s2)), the quotient rounded half up. An integer or
   * DECIMAL division by zero, and a quotient out of its type's range, are errors.
   */
  case object Trino extends SourceEngine("cer_trino_divide") {
    def resultType(dividend: DataType, divisor: DataType): DataType = (dividend, divisor) match {
      case (DoubleType, _) | (_, DoubleType) => DoubleType
      case (FloatType, _) | (_, FloatType) => FloatType
      case (a, b) if isIntegral(a) && isIntegral(b) => if (a.defaultSize >= b.defaultSize) a else b
      case _ => decimalQuotient(dividend, divisor)((s1, s2) => max(s1, s2))
    }

    def floatingDivisionByZeroFails: Boolean = false

    def usage: String = s"$functionName(dividend, divisor) - Divides as Trino's `/`: integers as integers, " +
      "truncated toward zero, in the wider type; DOUBLE (or REAL) when an operand is; otherwise a DECIMAL of scale " +
      "max(s1, s2) and precision min(38, p1 - s1 + s2 + max(s1, s2)), rounded half up. Integer and DECIMAL division " +
      "by zero and overflow are errors (used by spark_cer.translate)."

    def examples: String = examplesOf("7, 2" -> "3", "-7, 2" -> "-3", "CAST(10 AS DECIMAL(5, 2)), 4" -> "2.50")
  }

  /**
   * Trino's `avg`, https://trino.io/docs/current/functions/aggregate.html, as its sum divided by its count: the
   * average of DECIMALs keeps their scale, rounded half up (Spark's adds four decimals); any other number's is a DOUBLE.
   * The dividend is the SUM Spark computes (of a DECIMAL(p, s) a DECIMAL(p + 10, s), which keeps the scale; of
   * integers a BIGINT; of DOUBLEs and REALs a DOUBLE), the divisor the COUNT; with no rows the SUM is NULL, and so is
   * the average.
   */
  case object TrinoAverage extends SourceEngine("cer_trino_average") {
    def resultType(dividend: DataType, divisor: DataType): DataType = dividend match {
      case d: DecimalType => d
      case _ => DoubleType
    }

    def floatingDivisionByZeroFails: Boolean = false

    def usage: String = s"$functionName(sum, count) - Trino's avg as its SUM divided by its COUNT: of DECIMALs a " +
      "DECIMAL of the sum's scale, rounded half up; of other numbers a DOUBLE (used by spark_cer.translate)."

    def examples: String = examplesOf("CAST(5 AS DECIMAL(12, 2)), 3" -> "1.67", "3L, 2" -> "1.5")
  }
}
