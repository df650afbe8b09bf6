package io.sparkcer.spark.rowpattern

import org.apache.spark.sql.catalyst.FunctionIdentifier
import org.apache.spark.sql.catalyst.expressions.{
  Attribute, Expression, ExpressionInfo, FunctionTableSubqueryArgumentExpression
}
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, UnaryNode}
import org.apache.spark.sql.types.StringType

import io.sparkcer.engine.rowpattern.MatchRecognize
import io.sparkcer.spark.common.CerErrors

/**
 * The table function `__cer_mr(TABLE(relation), clause)` that stands for a MATCH_RECOGNIZE clause: in a statement,
 * `clause` is the number [[MatchRecognizeStatement]] gave a clause it took out, and the call is replaced by the clause
 * as soon as Spark has parsed the statement ([[MatchRecognizeStatement.Rewritten.bind]]); from
 * `DataFrame.match_recognize`, it is the clause's text itself, so that errors are placed in that text.
 * Its builder records the call with the relation's plan as child ([[UnresolvedMatchRecognize]]);
 * [[ResolveMatchRecognize]] analyzes the clause once Spark has resolved the relation.
 */
object MatchRecognizeCall {
  val FunctionName = "__cer_mr"

  def description: (FunctionIdentifier, ExpressionInfo, Seq[Expression] => LogicalPlan) = (
    FunctionIdentifier(FunctionName),
    new ExpressionInfo(
      getClass.getName.stripSuffix("$"),
      null,
      FunctionName,
      "The place of a MATCH_RECOGNIZE clause in a statement, for spark-cer's parser; not to be called.",
      "",
      "",
      "",
      "table_funcs",
      "",
      "",
      ""
    ),
    build)

  private def build(arguments: Seq[Expression]): LogicalPlan = arguments match {
    case Seq(t: FunctionTableSubqueryArgumentExpression, text)
        if text.foldable && text.dataType == StringType &&
          text.eval() != null => UnresolvedMatchRecognize(Right(text.eval().toString), t.plan)
    case _ =>
      throw CerErrors.analysis(s"$FunctionName(TABLE(t), clause) stands for t MATCH_RECOGNIZE (clause): write " +
        "that instead")
  }
}

/** A MATCH_RECOGNIZE clause, and the text it was parsed from (its positions refer to it). */
final case class ParsedClause(clause: MatchRecognize, text: String)

/**
 * A MATCH_RECOGNIZE clause over its input, not analyzed yet: parsed, or its text (parsed by the analyzer's rule, whose
 * syntax errors stay syntax errors: a table function's builder would have Spark's analyzer rewrap them).
 */
final case class UnresolvedMatchRecognize(clause: Either[ParsedClause, String], child: LogicalPlan) extends UnaryNode {
  override def output: Seq[Attribute] = Nil
  override lazy val resolved: Boolean = false
  override protected def withNewChildInternal(newChild: LogicalPlan): UnresolvedMatchRecognize = copy(child = newChild)
}
