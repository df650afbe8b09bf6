package io.sparkcer.spark

import org.apache.spark.sql.AnalysisException
import org.apache.spark.sql.catalyst.expressions.{Alias, Attribute, Expression, SubqueryExpression}
import org.apache.spark.sql.catalyst.plans.logical.{LocalRelation, Project}
import org.apache.spark.sql.classic.SparkSession

import io.sparkcer.engine.ceql.{CeqlException, Position}

/**
 * Resolves an expression of a query with Spark's analyzer (functions, type coercion) on a stand-in relation with
 * the given attributes, so that the result refers to them directly: the input's columns for guards, the structs
 * of the events and the slots for conditions relating events ([[ConditionAnalysis]]).
 */
final class ExpressionResolver(session: SparkSession, text: String) {

  /** @param from the text `e` was parsed from, where Spark's errors are placed; None for expressions of our own */
  def apply(e: Expression, over: Seq[Attribute], from: Option[SparkPredicate]): Expression = {
    val analyzer = session.sessionState.analyzer
    def placed[A](step: => A): A = try step catch {
      case ex: AnalysisException if from.isDefined =>
        // Spark's own error (its condition kept), placed in the query like ours.
        val source = from.get.source
        val placed = new CeqlException(s"in ${source.described}: ${ex.message.trim}", source.pos, text, source.length)
        throw ex.copy(message = placed.getMessage, line = None, startPosition = None, context = Array.empty,
          messageParameters = ex.messageParameters ++ CerErrors.place(placed))
    }
    // The plan's shape is checked before Spark's checks, whose errors about aggregates speak of GROUP BY.
    val analyzed = placed(analyzer.execute(Project(Seq(Alias(e, "cer_guard")()), LocalRelation(over))))
    analyzed match {
      case Project(Seq(Alias(resolved, _)), _: LocalRelation) if !SubqueryExpression.hasSubquery(resolved) =>
        placed(analyzer.checkAnalysis(analyzed))
        resolved
      case _ =>
        val source = from.map(_.source)
        throw CerErrors.analysis(s"${source.fold(e.sql)(_.described)} may not use Spark's aggregate, window or " +
          "generator functions, nor subqueries: it is evaluated on events as they come (a condition's own " +
          "aggregates, count, sum, avg, min, max, first and last, range over the events of a variable, e.g. " +
          "sum(b.volume) > 100)", source.fold(Position.Unknown)(_.pos), text, source.fold(1)(_.length))
    }
  }
}
