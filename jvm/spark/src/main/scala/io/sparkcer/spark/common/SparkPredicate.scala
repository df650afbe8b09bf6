package io.sparkcer.spark.common

import org.apache.spark.sql.catalyst.analysis.{Resolver, UnresolvedAttribute}
import org.apache.spark.sql.catalyst.expressions.{Between, BinaryComparison, Expression, In, Literal, UnaryMinus}
import org.apache.spark.sql.catalyst.parser.{ParseException, ParserInterface}
import org.apache.spark.sql.catalyst.trees.Origin
import org.apache.spark.sql.types.{DataType, NumericType, StringType, StructField}

import io.sparkcer.engine.ceql.{Condition, Filter, Slot}
import io.sparkcer.engine.syntax.{PatternException, Position, SqlFragment}

/**
 * Spark SQL text of a query read by Spark's own expression parser, so that every Spark expression works in it:
 * a `var[predicate]`, a condition relating events, or the argument of one of its aggregates. Errors are placed in
 * the query: Spark's positions in the Spark text are mapped back through CORE's rewrites
 * ([[io.sparkcer.engine.ceql.SqlFragment.queryOffset]]).
 *
 * @param source how messages name the text, and where it stands in the query
 */
final case class SparkPredicate(predicate: SqlFragment, source: SparkPredicate.Source, expression: Expression,
    query: String) {

  /** Every column the predicate names must be one of `columns`; the error names them all. */
  def checkColumns(columns: Seq[String], resolver: Resolver): Unit =
    expression.foreach {
      case a: UnresolvedAttribute if !columns.exists(resolver(_, a.nameParts.head)) =>
        throw new PatternException(s"unknown column '${a.nameParts.head}'; the columns are: ${columns.mkString(", ")}",
          positionOf(a.origin), query, a.nameParts.head.length)
      case _ =>
    }

  /**
   * In a condition relating events (or an aggregate's argument) every column is read through the variable whose
   * event it is, `b.price`; `variables` are those it may name (`b` alone is the whole event, a struct), and `slots`
   * the names that stand for its aggregate and `prev` calls. The errors name the columns.
   */
  def checkReferences(variables: Seq[String], slots: Seq[String], columns: Seq[String], resolver: Resolver): Unit =
    expression.foreach {
      case a: UnresolvedAttribute =>
        val (head, parts) = (a.nameParts.head, a.nameParts)
        val names = columns.mkString(", ")
        if (variables.exists(resolver(_, head))) {
          if (parts.size > 1 && !columns.exists(resolver(_, parts(1))))
            throw new PatternException(s"unknown column '${parts(1)}' of $head; the columns are: $names",
              positionOf(a.origin, head.length + 1), query, parts(1).length)
        } else if (!(parts.size == 1 && slots.exists(resolver(_, head)))) {
          val v = variables.headOption.getOrElse("b")
          val problem =
            if (columns.exists(resolver(_, head))) s"'$head' needs the variable whose event it reads: write $v.$head"
            else s"unknown column '$head'; the columns are: $names, each read through a variable ($v.column)"
          throw new PatternException(problem, positionOf(a.origin), query, head.length)
        }
      case _ =>
    }

  /**
   * In a MATCH_RECOGNIZE expression a column is read through a pattern variable (`A.price`) or of the current row
   * (`price`); a variable alone is an argument (`CLASSIFIER(A)`). Every column must be one of `columns`.
   */
  def checkMatchColumns(variables: Seq[String], columns: Seq[String], resolver: Resolver): Unit =
    expression.foreach {
      case a: UnresolvedAttribute =>
        val qualified = variables.exists(resolver(_, a.nameParts.head))
        val column = if (qualified) a.nameParts.lift(1) else Some(a.nameParts.head)
        column.filterNot(c => columns.exists(resolver(_, c))).foreach { c =>
          throw new PatternException(
            s"unknown column '$c' in ${source.described}; the columns are: " +
              s"${columns.mkString(", ")}",
            positionOf(a.origin, if (qualified) a.nameParts.head.length + 1 else 0),
            query,
            c.length
          )
        }
      case _ =>
    }

  /**
   * Spark would compare a STRING column with a number by casting each value, failing on the first row that is
   * not a number (ANSI mode) or reading it as NULL: a mistake in a pattern, refused here with its position.
   *
   * @param typeOf the name (as messages write it) and type of a column the predicate names, if it is one
   */
  def checkComparisons(typeOf: UnresolvedAttribute => Option[(String, DataType)]): Unit = {
    def number(e: Expression): Boolean = e match {
      case Literal(_, _: NumericType) => true
      case UnaryMinus(Literal(_, _: NumericType), _) => true
      case a: UnresolvedAttribute => typeOf(a).exists(_._2.isInstanceOf[NumericType])
      case _ => false
    }
    def check(a: Expression, b: Expression): Unit = Seq(a -> b, b -> a).foreach {
      case (x: UnresolvedAttribute, y) if number(y) =>
        typeOf(x).filter(_._2 == StringType).foreach { case (name, _) =>
          throw new PatternException(
            s"type mismatch in ${source.described}: $name is a STRING compared with a " +
              s"number; compare it with a string ('...'), or convert it explicitly, e.g. double($name)",
            positionOf(x.origin),
            query,
            name.length
          )
        }
      case _ =>
    }
    expression.foreach {
      case c: BinaryComparison => check(c.left, c.right)
      case In(value, list) => list.foreach(check(value, _))
      case b: Between => check(b.input, b.lower); check(b.input, b.upper)
      case _ =>
    }
  }

  /** Where a node of the parsed text (`skip` characters into it) stands in the query; the text's start when unknown. */
  def positionOf(origin: Origin, skip: Int = 0): Position = SparkPredicate.position(predicate, query, origin, skip)
}

object SparkPredicate {

  /** What a text is (`predicate`) and how it is written (`s[price > 1]`), at `pos`: what messages name and underline. */
  final case class Source(kind: String, written: String, pos: Position) {
    def described: String = s"the $kind $written"
    def length: Int = written.length
  }

  object Source {
    def apply(filter: Filter.OnVariable): Source =
      Source("predicate", s"${filter.variable.value}[${filter.text}]", filter.pos)
    def apply(condition: Condition): Source = Source("condition", condition.text, condition.pos)
    def apply(slot: Slot, argument: SqlFragment): Source =
      Source(s"argument of ${slot.function.name}", argument.text, argument.pos)
  }

  /** The columns of a relation as [[SparkPredicate.checkComparisons]] looks them up: by a one-part name. */
  def columnTypes(schema: Seq[StructField], resolver: Resolver): UnresolvedAttribute => Option[(String, DataType)] = {
    case a if a.nameParts.size == 1 => schema.find(f => resolver(f.name, a.name)).map(f => a.name -> f.dataType)
    case _ => None
  }

  /** Parses `filter`'s predicate with `parser` (the session's, or Spark's plain SQL parser without a session). */
  def parse(filter: Filter.OnVariable, query: String, parser: ParserInterface): SparkPredicate =
    parse(filter.predicate, Source(filter), query, parser)

  /** Parses the Spark text of `p`, which `source` names in messages. */
  def parse(p: SqlFragment, source: Source, query: String, parser: ParserInterface): SparkPredicate = {
    val expression =
      try parser.parseExpression(p.sparkSql)
      catch {
        case e: ParseException =>
          val problem = s"Spark SQL cannot parse ${source.described}: ${e.message.trim}"
          throw new PatternException(problem, position(p, query, e.start, 0), query)
        case _: StackOverflowError =>
          throw new PatternException(
            s"the ${source.kind} is too deeply nested for Spark's parser; write it with fewer " +
              "levels", p.pos, query, p.text.length)
      }
    SparkPredicate(p, source, expression, query)
  }

  /** The query position of a place Spark gives in a Spark text (line and column, or an offset), moved by `skip`. */
  private def position(p: SqlFragment, query: String, origin: Origin, skip: Int): Position = {
    val lines = p.sparkSql.split("\n", -1)
    val offset = origin.startIndex.orElse {
      for (line <- origin.line if line >= 1 && line <= lines.length; column <- origin.startPosition)
        yield lines.take(line - 1).map(_.length + 1).sum + column
    }
    offset.map(_ + skip).filter(o => o >= 0 && o <= p.sparkSql.length)
      .map(o => Position.advance(query, p.pos, p.queryOffset(o)))
      .getOrElse(p.pos)
  }
}
