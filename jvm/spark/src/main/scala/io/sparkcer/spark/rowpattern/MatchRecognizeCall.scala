package io.sparkcer.spark.rowpattern

import org.apache.spark.sql.catalyst.FunctionIdentifier
import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression, ExpressionInfo, FunctionTableSubqueryArgumentExpression, IntegerLiteral}
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, UnaryNode}
import org.apache.spark.sql.types.StringType

import io.sparkcer.spark.CerErrors

/**
 * The table function `__cer_mr(TABLE(relation), clause)` that stands for a MATCH_RECOGNIZE clause: `clause` is the
 * number [[MatchRecognizeStatement]] gave a clause it took out of a statement, or the clause's text itself (what
 * `DataFrame.match_recognize` passes, so that errors are placed in that text). Its builder only records the call with
 * the relation's plan as child ([[UnresolvedMatchRecognize]]); [[ResolveMatchRecognize]] analyzes the clause once
 * Spark has resolved the relation.
 */
object MatchRecognizeCall {
  val FunctionName = "__cer_mr"

  def description: (FunctionIdentifier, ExpressionInfo, Seq[Expression] => LogicalPlan) = (
    FunctionIdentifier(FunctionName),
    new ExpressionInfo(getClass.getName.stripSuffix("$"), null, FunctionName,
      "The place of a MATCH_RECOGNIZE clause in a statement, for spark-cer's parser; not to be called.", "", "", "",
      "table_funcs", "", "", ""),
    build)

  private def build(arguments: Seq[Expression]): LogicalPlan = arguments match {
    case Seq(t: FunctionTableSubqueryArgumentExpression, IntegerLiteral(id)) => UnresolvedMatchRecognize(Left(id), t.plan)
    case Seq(t: FunctionTableSubqueryArgumentExpression, text) if text.foldable && text.dataType == StringType &&
        text.eval() != null => UnresolvedMatchRecognize(Right(text.eval().toString), t.plan)
    case _ => throw CerErrors.analysis(s"$FunctionName(TABLE(t), clause) stands for t MATCH_RECOGNIZE (clause): write " +
      "that instead")
  }
}

/**
 * A MATCH_RECOGNIZE clause over its input, not analyzed yet: number `clause` of [[MatchRecognizeClauses]], or the
 * clause's text.
 */
final case class UnresolvedMatchRecognize(clause: Either[Int, String], child: LogicalPlan) extends UnaryNode {
  override def output: Seq[Attribute] = Nil
  override lazy val resolved: Boolean = false
  override protected def withNewChildInternal(newChild: LogicalPlan): UnresolvedMatchRecognize = copy(child = newChild)
}
