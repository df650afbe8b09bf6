package io.sparkcer.spark.ceql

import org.apache.spark.sql.catalyst.expressions.{
  And, Ascending, Attribute, AttributeReference, Coalesce, Descending, EqualTo, Expression, Literal, Not, Or, SortOrder
}
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, Filter => Where}
import org.apache.spark.sql.cer.SparkInternals
import org.apache.spark.sql.classic.SparkSession
import org.apache.spark.sql.types._

import io.sparkcer.engine.analysis.{Analyzer, Relations, WindowKey, WindowSpec}
import io.sparkcer.engine.automaton.EventPredicate
import io.sparkcer.engine.ceql.{Filter, Window}
import io.sparkcer.spark.common.{CerConf, CerErrors, ExpressionResolver, SparkPredicate}

/**
 * Analyzes one CEQL query over its (single, resolved) input: the engine's analysis over the input's column
 * names, the automaton, then each guard as a Catalyst boolean expression resolved by Spark's analyzer against
 * the input, each condition relating events likewise ([[ConditionAnalysis]]), and the output attributes: the
 * PARTITION BY columns, `match_start`, `match_end`, then one column per selected variable.
 */
final class CerAnalysis(session: SparkSession, request: CerRequest, input: LogicalPlan) {
  private val conf = session.sessionState.conf
  private val text = request.text
  private val query = request.query
  private val columns: IndexedSeq[Attribute] = input.output.toIndexedSeq
  private val resolve = new ExpressionResolver(session, text)

  def plan: CerMatch = {
    val typeColumn = request.typeColumn.getOrElse(CerConf.eventTypeColumn(conf))
    // The time column only matters when nothing else orders the stream: a session-wide conf must not break
    // queries over inputs without that column.
    val needsTime = query.orderBy.isEmpty && !query.within.exists(_.isInstanceOf[Window.Attribute])
    val timeColumn = request.timeColumn.orElse(CerConf.timeColumn(conf)).filter(_ => needsTime)
    val analyzed = CerErrors.analyzing(Analyzer.analyze(query, text, columns.map(_.name),
        typeColumn, request.streamColumn, timeColumn))
    val pattern = CerPattern(analyzed, request.source, CerConf.pceaEnabled(conf))
    val nfa = CerErrors.analyzing(pattern.compiled.nfa)
    val eventColumns = columns.filterNot(a => request.streamColumn.exists(conf.resolver(a.name, _)))

    // A condition over one event (`s.volume > 5`) runs as a guard; it is analyzed as a condition first, so that its
    // errors are those of every condition (`price` alone: write s.price).
    val conditionAnalysis = new ConditionAnalysis(session, text, eventColumns, resolve)
    Filter.filters(query.pattern).flatMap(Filter.relations).map(_.condition).filterNot(Relations.relates)
      .foreach(conditionAnalysis(_))
    val conditions = nfa.conditions.map(conditionAnalysis(_))

    // Keys group rows as Spark's GROUP BY and joins do: -0.0 with 0.0, NaN with NaN.
    val keys = analyzed.partitionKeys.map { group =>
      SparkInternals.normalizedKey(
        if (group.size == 1) columns(group.head) else resolve(Coalesce(group.map(columns)), columns, None))
    }
    val order = analyzed.streamOrder.map { case (i, descending) =>
      SortOrder(columns(i), if (descending) Descending else Ascending)
    }
    checkWindow(analyzed.window, order.head)

    val typeOf = analyzed.typeColumn.map(columns)
    val streamOf = analyzed.streamColumn.map(columns)
    val guards = nfa.guards.map { g =>
      val typeTest = typeOf match {
        case Some(column) => resolve(EqualTo(column, Literal(g.eventType)), columns, None)
        case None if query.streams.size == 1 => Literal(g.eventType == CerRequest.typeOf(query.streams.head.value))
        case None => throw CerErrors.analysis(
            s"the input has no event type column '$typeColumn'; the columns are: ${columns.map(_.name).mkString(", ")}. " +
              s"Name the type column (the type_column argument of cer, or the conf ${CerConf.EventTypeColumn}), " +
              "or read a named table so that every row takes the table's name as its type")
      }
      val streamTest = g.stream.map { s =>
        streamOf match {
          case Some(column) => EqualTo(column, Literal(s))
          case None if query.streams.nonEmpty => Literal(true) // the engine checked that s is the FROM stream
          case None =>
            throw CerErrors.analysis(s"'$s>...' names a stream, but the input is one table without a name; " +
              "drop the stream name")
        }
      }
      (Seq(typeTest) ++ streamTest ++ g.predicates.map(predicate)).reduce(And)
    }

    // Events that no guard accepts change no match here: leave them out before the shuffle, where Spark can push
    // the condition into the scan, as it would a WHERE. Not on a stream, where Spark would push it below the
    // watermark, which must see every row; the stateful processor leaves them out instead.
    val relevant =
      if (pattern.compiled.ignoresUnguardedEvents && !input.isStreaming)
        Where(guards.reduce(Or), input)
      else input
    val tasks = CerConf.rangeSplitPartitions(conf, session.sparkContext.defaultParallelism)
    val (child, split) = RangeSplit(conf, tasks, pattern.compiled, order, relevant, input).getOrElse((relevant, Nil))
    val events = analyzed.outputs.map(o => if (o.attributes.isEmpty) eventColumns else o.attributes.map(columns))
    // Keys derived from equalities partition the evaluation but are not output columns: the query did not name them.
    val keyOutput = analyzed.partitionKeys.take(analyzed.declaredKeys).zip(keys).map { case (group, key) =>
      AttributeReference(columns(group.head).name, key.dataType, nullable = false)()
    }
    val bounds = Seq("match_start", "match_end").map(AttributeReference(_, order.head.dataType, nullable = false)())
    val variables = analyzed.outputs.zip(events).map { case (v, cols) =>
      val struct = StructType(cols.map(a => StructField(a.name, a.dataType, a.nullable)))
      AttributeReference(v.name, if (v.single) struct else ArrayType(struct, containsNull = false), nullable = false)()
    }
    checkOutputNames(bounds.map(_.name), variables.map(_.name))
    CerMatch(pattern, keys, order, guards, conditions, events, keyOutput ++ bounds ++ variables, split, child)
  }

  /**
   * The output's columns are the PARTITION BY columns, match_start, match_end and the selected variables:
   * two of one name would be two columns that no later reference could tell apart.
   */
  private def checkOutputNames(bounds: Seq[String], variables: Seq[String]): Unit = {
    def same(a: String)(b: String) = conf.resolver(a, b)
    query.partitionBy.map(_.head).foreach { key =>
      bounds.find(same(key.value)).foreach { bound =>
        throw CerErrors.analysis(
          s"PARTITION BY ${key.value}: the output holds a column $bound of its own (the time " +
            s"of the match's first or last event); rename the input column first, e.g. " +
            s"df.withColumnRenamed(\"${key.value}\", \"${key.value}_0\")",
          key.pos,
          text,
          key.value.length
        )
      }
      variables.find(same(key.value)).foreach { variable =>
        throw CerErrors.analysis(
          s"PARTITION BY ${key.value}: the pattern's variable $variable is an output column " +
            s"too, and the output would hold two columns named ${key.value}; name the variable apart, e.g. " +
            s"AS ${variable}_event",
          key.pos,
          text,
          key.value.length
        )
      }
    }
    variables.find(v => bounds.exists(same(v))).foreach { variable =>
      throw CerErrors.analysis(s"the variable $variable is named like the output column that holds the time of the " +
        s"match's first or last event; name it apart, e.g. AS ${variable}_event")
    }
  }

  /** A window reads the order column as a number: an integer, or a timestamp for time spans. */
  private def checkWindow(window: Option[WindowSpec], order: SortOrder): Unit = window.foreach {
    case WindowSpec(_, WindowKey.Column(_, duration)) =>
      val column = order.child.asInstanceOf[Attribute]
      val ok = column.dataType match {
        case ByteType | ShortType | IntegerType | LongType => true
        case TimestampType | TimestampNTZType => duration
        case DateType => !duration
        case _ => false
      }
      val wanted =
        if (duration) "a TIMESTAMP or an integer count of milliseconds"
        else "an integer (for a TIMESTAMP write a time span, e.g. WITHIN 10 SECONDS)"
      if (!ok) throw CerErrors.analysis(
        s"the window measures the order column ${column.name}, which is " +
          s"${column.dataType.sql}; it must be $wanted",
        query.within.get.pos,
        text,
        "WITHIN".length
      )
      if (duration && order.direction == Descending) throw CerErrors.analysis(
        s"a time-span window needs the stream in ascending ${column.name} order: drop DESC", query.within.get.pos, text)
    case _ =>
  }

  /** A `var[predicate]` (or its negation): parsed by Spark, its columns checked, resolved, and checked to be boolean. */
  private def predicate(p: EventPredicate): Expression = {
    val f = p.filter
    val parsed = CerErrors.parsing(SparkPredicate.parse(f, text, session.sessionState.sqlParser))
    CerErrors.analyzing(parsed.checkColumns(columns.map(_.name), conf.resolver))
    CerErrors.analyzing(
      parsed.checkComparisons(
        SparkPredicate.columnTypes(columns.map(a => StructField(a.name, a.dataType)), conf.resolver)))
    val resolved = resolve(parsed.expression, columns, Some(parsed))
    if (resolved.dataType != BooleanType)
      throw CerErrors.analysis(
        s"${parsed.source.described} is ${resolved.dataType.sql}, not BOOLEAN: a filter " +
          s"must be a condition, e.g. ${f.variable.value}[${f.text} > 0]",
        f.pos,
        text,
        parsed.source.length
      )
    if (p.negated) Not(resolved) else resolved
  }
}
