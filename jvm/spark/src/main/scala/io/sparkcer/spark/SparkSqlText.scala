package io.sparkcer.spark

import io.sparkcer.engine.ceql.Expr

/**
 * Writes a CEQL predicate as Spark SQL, for Spark's own expression parser: CORE's forms become Spark's
 * (`IN {..}` → `IN (..)`, `IN RANGE(a, b)` and `a..b` → `BETWEEN a AND b`); every operation is parenthesised,
 * so CEQL's precedence is kept whatever Spark's is. Columns are backquoted, doubles get Spark's `D` suffix.
 */
object SparkSqlText {

  def apply(e: Expr): String = e match {
    case Expr.Column(name) => quote(name.value)
    case Expr.Literal(value, _) => literal(value)
    case Expr.Negate(x, _) => s"(- ${apply(x)})"
    case Expr.Not(x, _) => s"(NOT ${apply(x)})"
    case Expr.Arithmetic(op, l, r, _) => s"(${apply(l)} ${op.symbol} ${apply(r)})"
    case Expr.Comparison(op, l, r, _) => s"(${apply(l)} ${op.symbol} ${apply(r)})"
    case Expr.And(l, r, _) => s"(${apply(l)} AND ${apply(r)})"
    case Expr.Or(l, r, _) => s"(${apply(l)} OR ${apply(r)})"
    case Expr.InSet(x, values, negated, _) => s"(${apply(x)} ${not(negated)}IN (${values.map(apply).mkString(", ")}))"
    case Expr.InRange(x, lo, hi, negated, _) => s"(${apply(x)} ${not(negated)}BETWEEN ${apply(lo)} AND ${apply(hi)})"
    case Expr.Like(x, p, regex, negated, _) => s"(${apply(x)} ${not(negated)}${if (regex) "RLIKE" else "LIKE"} ${apply(p)})"
    case Expr.IsNull(x, negated, _) => s"(${apply(x)} IS ${not(negated)}NULL)"
    case Expr.Call(function, arguments, _) => s"${function.value}(${arguments.map(apply).mkString(", ")})"
  }

  private def not(negated: Boolean): String = if (negated) "NOT " else ""

  private def quote(name: String): String = "`" + name.replace("`", "``") + "`"

  private def literal(value: Any): String = value match {
    case null => "NULL"
    case b: java.lang.Boolean => if (b) "TRUE" else "FALSE"
    case n: java.lang.Long if n.longValue == n.intValue => n.toString
    case n: java.lang.Long if n.longValue == Long.MinValue => "CAST('-9223372036854775808' AS BIGINT)"
    case n: java.lang.Long => s"${n}L"
    case d: java.lang.Double => s"${d}D"
    case s: String => "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'"
    case other => throw new IllegalArgumentException(s"unexpected literal $other")
  }
}
