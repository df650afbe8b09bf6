package io.sparkcer.spark.rowpattern

import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.classic.SparkSession

import io.sparkcer.engine.ceql.CeqlException
import io.sparkcer.engine.rowpattern.MatchRecognizeParser
import io.sparkcer.spark.CerErrors

/**
 * Analyzer rule: a MATCH_RECOGNIZE clause ([[UnresolvedMatchRecognize]]), once Spark has resolved its input, becomes
 * [[RowPatternRecognition]], which a streaming input lowers to Spark's stateful `transformWithState`
 * ([[RowPatternStreaming]]).
 */
final case class ResolveMatchRecognize(session: SparkSession) extends Rule[LogicalPlan] {
  override def apply(plan: LogicalPlan): LogicalPlan = plan.resolveOperatorsUp {
    case u: UnresolvedMatchRecognize if u.child.resolved =>
      val found = u.clause match {
        case Left(id) => MatchRecognizeClauses(id).getOrElse(throw CerErrors.analysis(
          s"the MATCH_RECOGNIZE clause of this statement was parsed too long ago (clause $id); run the statement again"))
        case Right(text) =>
          val clause = try MatchRecognizeParser.parse(text) catch { case e: CeqlException => throw CerErrors.syntax(e) }
          MatchRecognizeClauses.Found(clause, text)
      }
      val recognized = new MatchRecognizeAnalysis(session, found, u.child).plan
      if (recognized.child.isStreaming) RowPatternStreaming.lower(recognized) else recognized
  }
}
