package io.sparkcer.spark.rowpattern

import org.apache.spark.sql.catalyst.analysis.UnresolvedAttribute
import org.apache.spark.sql.catalyst.expressions.{Ascending, Attribute, AttributeReference, Descending, NullsFirst, NullsLast, SortOrder}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.classic.SparkSession
import org.apache.spark.sql.types.BooleanType

import io.sparkcer.engine.ceql.Predicate
import io.sparkcer.engine.rowpattern.{RowPatternAnalysis, RowsPerMatch}
import io.sparkcer.spark.{CerErrors, SparkPredicate}

/**
 * Analyzes a MATCH_RECOGNIZE clause over its resolved input into [[RowPatternRecognition]]: the pattern checked and
 * compiled (the engine's [[RowPatternAnalysis]]), PARTITION BY and ORDER BY as the input's columns, each DEFINE
 * condition and measure read by [[RowPatternExpressionAnalysis]], and the output columns of the standard's layouts.
 */
final class MatchRecognizeAnalysis(session: SparkSession, found: MatchRecognizeClauses.Found, input: LogicalPlan) {
  private val text = found.text
  private val clause = found.clause
  private val columns = input.output
  private val resolver = session.sessionState.conf.resolver

  def plan: RowPatternRecognition = {
    val spec = CerErrors.analyzing(RowPatternSpec(clause, text))
    val pattern = spec.analyzed
    val partitionKeys = clause.partitionBy.map(column(_, "PARTITION BY", "MATCH_RECOGNIZE_PARTITION_BY_MUST_BE_COLUMN"))
    val order = clause.orderBy.map { item =>
      val c = column(item.expression, "ORDER BY", "MATCH_RECOGNIZE_ORDER_BY_MUST_BE_COLUMN")
      val direction = if (item.ascending) Ascending else Descending
      SortOrder(c, direction, item.nullsFirst.fold(direction.defaultNullOrdering)(f => if (f) NullsFirst else NullsLast), Nil)
    }
    // MATCH_ROWTIME() reads the first ORDER BY column: a stream's event time.
    val eventTime = order.headOption.map(_.child.asInstanceOf[Attribute])
    val defines = clause.defines.map { d =>
      val label = pattern.label(RowPatternAnalysis.canonical(d.variable)).get
      val e = new RowPatternExpressionAnalysis(session, pattern, text, columns, eventTime, Some(label))(d.condition)
      if (!e.deterministic)
        throw CerErrors.analysis(s"the condition of ${d.variable.value} is not deterministic " +
          "(MATCH_RECOGNIZE_NONDETERMINISTIC_DEFINE): the matcher may try a row more than once, and a condition must " +
          "answer alike each time; compute the random value in a subquery first", d.condition.pos, text,
          d.condition.text.length)
      if (e.dataType != BooleanType)
        throw CerErrors.analysis(s"the condition of ${d.variable.value} is ${e.dataType.sql}, not BOOLEAN: DEFINE " +
          s"${d.variable.value} AS a condition, e.g. ${d.condition.text} > 0", d.condition.pos, text, d.condition.text.length)
      label -> e
    }
    val measures = clause.measures.map(m => new RowPatternExpressionAnalysis(session, pattern, text, columns, eventTime, None)(m.expression))
    clause.measures.groupBy(m => m.name.value.toLowerCase).foreach { case (_, ms) =>
      if (ms.length > 1) throw CerErrors.analysis(s"two measures are named ${ms(1).name.value}; name them apart",
        ms(1).name.pos, text, ms(1).name.value.length)
    }
    val measured = clause.measures.zip(measures).map { case (m, e) =>
      AttributeReference(m.name.value, e.dataType, nullable = true)()
    }
    val output = clause.rowsPerMatch match {
      case RowsPerMatch.One => partitionKeys ++ measured
      case _ =>
        val ordered = order.map(_.child.asInstanceOf[Attribute]).filterNot(partitionKeys.contains).distinct
        partitionKeys ++ ordered ++ measured ++ columns.filterNot(c => partitionKeys.contains(c) || ordered.contains(c))
    }
    RowPatternRecognition(spec, partitionKeys, order, defines.map(_._1), defines.map(_._2), measures, output, input)
  }

  /** An input column, which PARTITION BY and ORDER BY name (MATCH_RECOGNIZE's output holds them as they are). */
  private def column(p: Predicate, clauseName: String, condition: String): Attribute = {
    val parsed = CerErrors.parsing(SparkPredicate.parse(p, SparkPredicate.Source(s"$clauseName item", p.text, p.pos), text,
      session.sessionState.sqlParser))
    parsed.expression match {
      case UnresolvedAttribute(Seq(name)) => columns.find(c => resolver(c.name, name)).getOrElse(
        throw CerErrors.analysis(s"unknown column '$name' in $clauseName; the columns are: ${columns.map(_.name).mkString(", ")}",
          p.pos, text, p.text.length))
      case other => throw CerErrors.analysis(s"$clauseName ${p.text}: MATCH_RECOGNIZE's $clauseName names columns " +
        s"($condition); compute ${other.sql} in a subquery first", p.pos, text, p.text.length)
    }
  }
}
