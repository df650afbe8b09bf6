package io.sparkcer.spark.rowpattern

import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.classic.SparkSession

import io.sparkcer.engine.rowpattern.MatchRecognizeParser
import io.sparkcer.spark.common.CerErrors
import io.sparkcer.engine.syntax.PatternException

/**
 * Analyzer rule: a MATCH_RECOGNIZE clause ([[UnresolvedMatchRecognize]]), once Spark has resolved its input, becomes
 * [[RowPatternRecognition]], which a streaming input lowers to Spark's stateful `transformWithState`
 * ([[RowPatternStreaming]]).
 */
final case class ResolveMatchRecognize(session: SparkSession) extends Rule[LogicalPlan] {
  override def apply(plan: LogicalPlan): LogicalPlan = plan.resolveOperatorsUp {
    case u: UnresolvedMatchRecognize if u.child.resolved =>
      val parsed = u.clause.fold(identity,
        text =>
          try ParsedClause(MatchRecognizeParser.parse(text), text)
          catch { case e: PatternException => throw CerErrors.syntax(e) })
      val recognized = new MatchRecognizeAnalysis(session, parsed, u.child).plan
      if (recognized.child.isStreaming) RowPatternStreaming.lower(recognized) else recognized
  }
}
