package io.sparkcer.spark

import org.apache.spark.sql.catalyst.analysis.{Resolver, UnresolvedAttribute}
import org.apache.spark.sql.catalyst.expressions.{Between, BinaryComparison, Expression, In, Literal, UnaryMinus}
import org.apache.spark.sql.catalyst.parser.{ParseException, ParserInterface}
import org.apache.spark.sql.catalyst.trees.Origin
import org.apache.spark.sql.types.{NumericType, StringType, StructField}

import io.sparkcer.engine.ceql.{CeqlException, Filter, Position}

/**
 * A `var[predicate]` read by Spark's own expression parser (DESIGN §3: every Spark expression works in a
 * predicate), with errors placed in the query: Spark's positions in the predicate's Spark text are mapped back
 * through CORE's rewrites ([[io.sparkcer.engine.ceql.Predicate.queryOffset]]).
 */
final case class SparkPredicate(filter: Filter.OnVariable, expression: Expression, query: String) {
  private def predicate = filter.predicate

  /** `var[predicate]` as written, for messages. */
  def written: String = s"${filter.variable.value}[${predicate.text}]"

  /** Every column the predicate names must be one of `columns`; the error names them all. */
  def checkColumns(columns: Seq[String], resolver: Resolver): Unit =
    expression.foreach {
      case a: UnresolvedAttribute if !columns.exists(resolver(_, a.nameParts.head)) =>
        throw new CeqlException(s"unknown column '${a.nameParts.head}'; the columns are: ${columns.mkString(", ")}",
          positionOf(a.origin), query, a.nameParts.head.length)
      case _ =>
    }

  /**
   * Spark would compare a STRING column with a number by casting each value, failing on the first row that is
   * not a number (ANSI mode) or reading it as NULL: a mistake in a pattern, refused here with its position.
   */
  def checkComparisons(schema: Seq[StructField], resolver: Resolver): Unit = {
    def stringColumn(e: Expression): Option[UnresolvedAttribute] = e match {
      case a: UnresolvedAttribute if a.nameParts.size == 1 =>
        schema.find(f => resolver(f.name, a.name)).filter(_.dataType == StringType).map(_ => a)
      case _ => None
    }
    def number(e: Expression): Boolean = e match {
      case Literal(_, _: NumericType) => true
      case UnaryMinus(Literal(_, _: NumericType), _) => true
      case a: UnresolvedAttribute if a.nameParts.size == 1 =>
        schema.exists(f => resolver(f.name, a.name) && f.dataType.isInstanceOf[NumericType])
      case _ => false
    }
    def check(a: Expression, b: Expression): Unit = Seq(a -> b, b -> a).foreach { case (x, y) =>
      stringColumn(x).filter(_ => number(y)).foreach { c =>
        throw new CeqlException(s"type mismatch in the predicate $written: ${c.name} is a STRING compared with a " +
          s"number; compare it with a string ('...'), or convert it explicitly, e.g. double(${c.name})",
          positionOf(c.origin), query, c.name.length)
      }
    }
    expression.foreach {
      case c: BinaryComparison => check(c.left, c.right)
      case In(value, list) => list.foreach(check(value, _))
      case b: Between => check(b.input, b.lower); check(b.input, b.upper)
      case _ =>
    }
  }

  /** Where a node of the parsed predicate stands in the query; the predicate's start when Spark does not say. */
  private def positionOf(origin: Origin): Position = SparkPredicate.position(filter, query, origin)
}

object SparkPredicate {

  /** Parses `filter`'s predicate with `parser` (the session's, or Spark's plain SQL parser without a session). */
  def parse(filter: Filter.OnVariable, query: String, parser: ParserInterface): SparkPredicate = {
    val p = filter.predicate
    val expression = try parser.parseExpression(p.sparkSql) catch {
      case e: ParseException =>
        val problem = s"Spark SQL cannot parse the predicate ${filter.variable.value}[${p.text}]: ${e.message.trim}"
        throw new CeqlException(problem, position(filter, query, e.start), query)
      case _: StackOverflowError =>
        throw new CeqlException(s"the predicate of ${filter.variable.value}[...] is too deeply nested for Spark's " +
          "parser; write it with fewer levels", p.pos, query, p.text.length)
    }
    SparkPredicate(filter, expression, query)
  }

  /** The query position of a place Spark gives in a predicate's Spark text (line and column, or an offset). */
  private def position(filter: Filter.OnVariable, query: String, origin: Origin): Position = {
    val p = filter.predicate
    val lines = p.sparkSql.split("\n", -1)
    val offset = origin.startIndex.orElse {
      for (line <- origin.line if line >= 1 && line <= lines.length; column <- origin.startPosition)
        yield lines.take(line - 1).map(_.length + 1).sum + column
    }
    offset.filter(o => o >= 0 && o <= p.sparkSql.length)
      .map(o => Position.advance(query, p.pos, p.queryOffset(o)))
      .getOrElse(p.pos)
  }
}
