package io.sparkcer.spark.rowpattern

import org.apache.spark.sql.catalyst.analysis.UnresolvedAttribute
import org.apache.spark.sql.catalyst.expressions.{
  Alias, Ascending, Attribute, AttributeReference, CreateMap, Descending, If, IsNull, Literal, NullsFirst, NullsLast,
  RaiseError, SortOrder
}
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, Project}
import org.apache.spark.sql.classic.SparkSession
import org.apache.spark.sql.types.{
  BooleanType, ByteType, DateType, IntegerType, LongType, ShortType, TimestampNTZType, TimestampType
}

import io.sparkcer.engine.rowpattern.{RowPatternAnalysis, RowsPerMatch}
import io.sparkcer.spark.common.{CerErrors, SparkPredicate}
import io.sparkcer.engine.syntax.SqlFragment

/**
 * Analyzes a MATCH_RECOGNIZE clause over its resolved input into [[RowPatternRecognition]]: the pattern checked and
 * compiled (the engine's [[RowPatternAnalysis]]), PARTITION BY and ORDER BY as the input's columns, each DEFINE
 * condition and measure read by [[RowPatternExpressionAnalysis]], and the output columns of the standard's layouts.
 */
final class MatchRecognizeAnalysis(session: SparkSession, parsed: ParsedClause, input: LogicalPlan) {
  private val text = parsed.text
  private val clause = parsed.clause
  private val columns = input.output
  private val resolver = session.sessionState.conf.resolver

  def plan: RowPatternRecognition = {
    val spec = CerErrors.analyzing(RowPatternSpec(clause, text))
    val pattern = spec.analyzed
    val partitionKeys = clause.partitionBy.map(column(_, "PARTITION BY", "MATCH_RECOGNIZE_PARTITION_BY_MUST_BE_COLUMN"))
    val order = clause.orderBy.map { item =>
      val c = column(item.expression, "ORDER BY", "MATCH_RECOGNIZE_ORDER_BY_MUST_BE_COLUMN")
      val direction = if (item.ascending) Ascending else Descending
      SortOrder(
        c, direction, item.nullsFirst.fold(direction.defaultNullOrdering)(f => if (f) NullsFirst else NullsLast), Nil)
    }
    // MATCH_ROWTIME() reads the first ORDER BY column: a stream's event time.
    val eventTime = order.headOption.map(_.child.asInstanceOf[Attribute])
    checkWithin(eventTime)
    val defines = clause.defines.map { d =>
      val label = pattern.label(RowPatternAnalysis.canonical(d.variable)).get
      val e = new RowPatternExpressionAnalysis(session, pattern, text, columns, eventTime, Some(label))(d.condition)
      if (e.dataType != BooleanType)
        throw CerErrors.analysis(
          s"the condition of ${d.variable.value} is ${e.dataType.sql}, not BOOLEAN: DEFINE " +
            s"${d.variable.value} AS a condition, e.g. ${d.condition.text} > 0",
          d.condition.pos,
          text,
          d.condition.text.length
        )
      label -> e
    }
    val measures = clause.measures.map(m =>
      new RowPatternExpressionAnalysis(session, pattern, text, columns, eventTime, None)(m.expression))
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
    checkMeasureNames(output.filterNot(measured.contains))
    RowPatternRecognition(spec, partitionKeys, order, defines.map(_._1), defines.map(_._2), measures, output,
      timedRows(eventTime))
  }

  /**
   * The input, each row's time checked when WITHIN measures it on a table: a NULL time has no span from or to it,
   * and leaving its row out would change the matches the rows around it make (without WITHIN it sorts as ORDER BY
   * says), so the query fails on it, saying what to write. A stream leaves such rows out, as it leaves out rows
   * the watermark has passed.
   */
  private def timedRows(time: Option[Attribute]): LogicalPlan = (clause.within, time) match {
    case (Some(w), Some(t)) if t.nullable && !input.isStreaming =>
      val message = s"a row's ORDER BY time ${t.name} is NULL, and WITHIN ${w.text} measures the time of each " +
        s"row: leave such rows out first (WHERE ${t.name} IS NOT NULL) or give them a time (coalesce(${t.name}, ...))"
      val raise =
        RaiseError(Literal("USER_RAISED_EXCEPTION"), CreateMap(Seq(Literal("errorMessage"), Literal(message))),
          t.dataType)
      Project(input.output.map(c => if (c == t) Alias(If(IsNull(t), raise, t), t.name)(t.exprId) else c), input)
    case _ => input
  }

  /**
   * A measure is an output column: named like another (a PARTITION BY column, or any input column of ALL ROWS PER
   * MATCH), the output would hold two columns of one name, which no later reference could tell apart.
   */
  private def checkMeasureNames(others: Seq[Attribute]): Unit = clause.measures.foreach { m =>
    others.find(c => resolver(c.name, m.name.value)).foreach { c =>
      val kind = if (clause.partitionBy.exists(p => resolver(p.text.trim, c.name))) "a PARTITION BY column"
      else
        "an input column, which ALL ROWS PER MATCH outputs too"
      throw CerErrors.analysis(
        s"the measure ${m.name.value} is named like $kind, ${c.name}: the output would hold " +
          s"two columns named ${c.name}; name the measure apart, e.g. AS ${m.name.value}_measure",
        m.name.pos,
        text,
        m.name.value.length
      )
    }
  }

  /** WITHIN bounds a match's time span, measured on the first ORDER BY column: a time, or milliseconds. */
  private def checkWithin(time: Option[Attribute]): Unit = clause.within.foreach { w =>
    val measurable = time.exists(
      _.dataType match {
        case TimestampType | TimestampNTZType | DateType | ByteType | ShortType | IntegerType | LongType => true
        case _ => false
      })
    if (!measurable) throw CerErrors.analysis(
      s"WITHIN ${w.text} bounds the time from a match's first row to its last, " +
        "read from the first ORDER BY column, which " +
        time.fold("is missing: ORDER BY the rows' time")(t => s"is ${t.name}, ${t.dataType.sql}") + "; it must be a " +
        "TIMESTAMP, a DATE or an integer count of milliseconds: convert it in a subquery first, e.g. " +
        s"CAST(${time.fold("t")(_.name)} AS TIMESTAMP)",
      w.pos,
      text,
      w.text.length
    )
  }

  /** An input column, which PARTITION BY and ORDER BY name (MATCH_RECOGNIZE's output holds them as they are). */
  private def column(p: SqlFragment, clauseName: String, condition: String): Attribute = {
    val parsed =
      CerErrors.parsing(SparkPredicate.parse(p, SparkPredicate.Source(s"$clauseName item", p.text, p.pos), text,
          session.sessionState.sqlParser))
    parsed.expression match {
      case UnresolvedAttribute(Seq(name)) => columns.find(c => resolver(c.name, name)).getOrElse(
          throw CerErrors.analysis(
            s"unknown column '$name' in $clauseName; the columns are: ${columns.map(_.name).mkString(", ")}",
            p.pos, text, p.text.length))
      case other => throw CerErrors.analysis(
          s"$clauseName ${p.text}: MATCH_RECOGNIZE's $clauseName names columns " +
            s"($condition); compute ${other.sql} in a subquery first",
          p.pos,
          text,
          p.text.length
        )
    }
  }
}
