package io.sparkcer.spark.ceql

import org.apache.spark.sql.catalyst.expressions.{Alias, Literal}
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, Project, Union}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.classic.SparkSession

import io.sparkcer.spark.common.CerConf

/**
 * Analyzer rule: once Spark has resolved a CEQL query's inputs, merges several streams into one (by column
 * name, with a column naming each row's stream, and the stream's name as type where a stream has no type
 * column), then analyzes the query over the input's columns into a [[CerMatch]], which a streaming input
 * lowers to Spark's stateful `transformWithState` ([[StreamingCer]]).
 */
final case class ResolveCer(session: SparkSession) extends Rule[LogicalPlan] {

  override def apply(plan: LogicalPlan): LogicalPlan = plan.resolveOperatorsUp {
    case call: CerCall if call.childrenResolved => CerTableFunction.request(call)
    case u: UnresolvedCer if u.childrenResolved && u.children.length > 1 => merge(u)
    case u: UnresolvedCer if u.childrenResolved =>
      val matched = new CerAnalysis(session, u.request, u.children.head).plan
      if (matched.child.isStreaming) StreamingCer.lower(matched) else matched
  }

  private def merge(u: UnresolvedCer): UnresolvedCer = {
    val typeColumn = u.request.typeColumn.getOrElse(CerConf.eventTypeColumn(conf))
    val streams = u.children.zip(u.request.streams).map { case (input, stream) =>
      val hasType = input.output.exists(a => conf.resolver(a.name, typeColumn))
      val added = Alias(Literal(stream), CerRequest.StreamColumn)() +:
        (if (hasType) Nil else Seq(Alias(Literal(CerRequest.typeOf(stream)), typeColumn)()))
      Project(input.output ++ added, input)
    }
    UnresolvedCer(
      u.request.copy(typeColumn = Some(typeColumn), streamColumn = Some(CerRequest.StreamColumn)),
      Seq(Union(streams, byName = true, allowMissingCol = true)))
  }
}
