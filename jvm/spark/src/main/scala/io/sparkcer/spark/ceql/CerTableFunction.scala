package io.sparkcer.spark.ceql

import org.apache.spark.sql.catalyst.FunctionIdentifier
import org.apache.spark.sql.catalyst.analysis.{UnresolvedAttribute, UnresolvedRelation}
import org.apache.spark.sql.catalyst.expressions.{
  Attribute, Descending, Expression, ExpressionInfo, FunctionTableSubqueryArgumentExpression, SortOrder
}
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, OneRowRelation, UnaryNode}
import org.apache.spark.sql.types.StringType

import io.sparkcer.engine.ceql.{CeqlParser, OrderKey}
import io.sparkcer.spark.common.CerErrors
import io.sparkcer.engine.syntax.{Name, PatternException, Position}

/**
 * The table function `cer(input, pattern [, type_column [, time_column]])`: `input` is a TABLE argument, whose
 * PARTITION BY and ORDER BY act as the pattern's, or a table name; `pattern` is a CEQL query without FROM.
 *
 * The builder only records the call ([[CerCall]]); [[ResolveCer]] checks it, so that errors reach the user as
 * raised (Spark appends a position to any error thrown by a table function builder).
 */
object CerTableFunction {
  val FunctionName = "cer"

  private val usage =
    "cer(TABLE(t) [PARTITION BY (k, ...)] [ORDER BY (ts)], pattern [, type_column [, time_column]]), " +
      "cer('table', pattern [, type_column [, time_column]]) - One row per match of the CEQL pattern over the input."

  def description: (FunctionIdentifier, ExpressionInfo, Seq[Expression] => LogicalPlan) = (
    FunctionIdentifier(FunctionName),
    new ExpressionInfo(
      getClass.getName.stripSuffix("$"), null, FunctionName, usage, "", "", "", "table_funcs", "", "", ""),
    build)

  def build(arguments: Seq[Expression]): LogicalPlan = arguments.headOption match {
    case Some(t: FunctionTableSubqueryArgumentExpression) =>
      CerCall(validInput = true, None, t.partitionByExpressions, t.orderByExpressions, arguments.tail, t.plan)
    case Some(name) if name.foldable && name.dataType.isInstanceOf[StringType] && name.eval() != null =>
      val table = name.eval().toString
      CerCall(validInput = true, Some(table), Nil, Nil, arguments.tail, UnresolvedRelation(table.split('.').toSeq))
    case _ => CerCall(validInput = false, None, Nil, Nil, arguments, OneRowRelation())
  }

  /** The query a call asks for, or the error it deserves. */
  def request(call: CerCall): UnresolvedCer = {
    val arguments = call.arguments
    if (!call.validInput || arguments.isEmpty || arguments.length > 3)
      throw CerErrors.analysis(s"$FunctionName takes an input (TABLE(t) or a table name) and a pattern, then " +
        s"optionally the type column and the time column; e.g. $FunctionName(TABLE(events) PARTITION BY (id) " +
        s"ORDER BY (ts), 'A ; B WITHIN 5 MINUTES', 'event_type', 'ts')")
    val text = string(arguments.head, "pattern").getOrElse(
      throw CerErrors.analysis(s"the pattern argument of $FunctionName must not be NULL"))
    val parsed =
      try CeqlParser.parse(text)
      catch { case e: PatternException => throw CerErrors.syntax(e) }
    if (parsed.streams.nonEmpty)
      throw CerErrors.analysis(s"leave FROM out of the pattern: the input is the first argument of $FunctionName",
        parsed.streams.head.pos, text, parsed.streams.head.value.length)
    val partitionBy = call.partitionBy.map(e => Seq(column(e, "PARTITION BY")))
    val orderBy = call.orderBy.map(o => OrderKey(column(o.child, "ORDER BY"), o.direction == Descending))
    if (partitionBy.nonEmpty && parsed.partitionBy.nonEmpty)
      throw CerErrors.analysis("PARTITION BY is given twice, on the TABLE argument and in the pattern: keep one")
    if (orderBy.nonEmpty && parsed.orderBy.nonEmpty)
      throw CerErrors.analysis("ORDER BY is given twice, on the TABLE argument and in the pattern: keep one")
    val query = parsed.copy(
      streams = call.table.map(Name(_, Position.Unknown)).toSeq,
      partitionBy = if (partitionBy.nonEmpty) partitionBy else parsed.partitionBy,
      orderBy = if (orderBy.nonEmpty) orderBy else parsed.orderBy
    )
    val typeColumn = arguments.lift(1).flatMap(string(_, "type_column"))
    val timeColumn = arguments.lift(2).flatMap(string(_, "time_column"))
    UnresolvedCer(CerRequest(text, text, query, call.table.toSeq, typeColumn, timeColumn), Seq(call.child))
  }

  /** A constant string argument; None for NULL. */
  private def string(e: Expression, what: String): Option[String] =
    if (e.foldable && e.dataType.isInstanceOf[StringType]) Option(e.eval()).map(_.toString)
    else if (e.foldable && e.eval() == null) None
    else throw CerErrors.analysis(s"the $what argument of $FunctionName must be a string literal, found ${e.sql}; " +
      s"e.g. $FunctionName(TABLE(events), 'A ; B', 'event_type', 'ts')")

  private def column(e: Expression, clause: String): Name = e match {
    case a: UnresolvedAttribute => Name(a.nameParts.last, Position.Unknown)
    case a: Attribute => Name(a.name, Position.Unknown)
    case other => throw CerErrors.analysis(
        s"$clause of the TABLE argument of $FunctionName takes columns, found ${other.sql}; compute it in a subquery first")
  }
}

/**
 * A call of the `cer` table function as written: the input (a TABLE argument's plan or a named table), the
 * TABLE argument's PARTITION BY and ORDER BY, and the other arguments (all of them when the input is not valid).
 */
final case class CerCall(
    validInput: Boolean,
    table: Option[String],
    partitionBy: Seq[Expression],
    orderBy: Seq[SortOrder],
    arguments: Seq[Expression],
    child: LogicalPlan)
    extends UnaryNode {
  override def output: Seq[Attribute] = Nil
  override lazy val resolved: Boolean = false
  override protected def withNewChildInternal(newChild: LogicalPlan): CerCall = copy(child = newChild)
}
