package io.sparkcer.spark

import org.apache.spark.sql.AnalysisException
import org.apache.spark.sql.catalyst.expressions.{Alias, And, Ascending, Attribute, AttributeReference, Coalesce, Descending, EqualTo, Expression, Literal, Or, SortOrder, SubqueryExpression}
import org.apache.spark.sql.catalyst.plans.logical.{LocalRelation, LogicalPlan, Project, Filter => Where}
import org.apache.spark.sql.classic.SparkSession
import org.apache.spark.sql.types._

import io.sparkcer.engine.analysis.{Analyzer, WindowKey, WindowSpec}
import io.sparkcer.engine.ceql.{CeqlException, Filter, Position, Window}

/**
 * Analyzes one CEQL query over its (single, resolved) input: the engine's analysis over the input's column
 * names, the automaton, then each guard as a Catalyst boolean expression resolved by Spark's analyzer against
 * the input, and the output attributes of DESIGN §4.
 */
final class CerAnalysis(session: SparkSession, request: CerRequest, input: LogicalPlan) {
  private val conf = session.sessionState.conf
  private val text = request.text
  private val query = request.query
  private val columns: IndexedSeq[Attribute] = input.output.toIndexedSeq

  def plan: CerMatch = {
    val typeColumn = request.typeColumn.getOrElse(CerConf.eventTypeColumn(conf))
    // The time column only matters when nothing else orders the stream: a session-wide conf must not break
    // queries over inputs without that column.
    val needsTime = query.orderBy.isEmpty && !query.within.exists(_.isInstanceOf[Window.Attribute])
    val timeColumn = request.timeColumn.orElse(CerConf.timeColumn(conf)).filter(_ => needsTime)
    val analyzed = engine(Analyzer.analyze(query, text, columns.map(_.name),
      typeColumn, request.streamColumn, timeColumn))
    val pattern = CerPattern(analyzed, request.source)
    val nfa = engine(pattern.compiled.nfa)

    val keys = analyzed.partitionKeys.map { group =>
      if (group.size == 1) columns(group.head) else resolve(Coalesce(group.map(columns)), None)
    }
    val order = analyzed.streamOrder.map { case (i, descending) =>
      SortOrder(columns(i), if (descending) Descending else Ascending)
    }
    checkWindow(analyzed.window, order.head)

    val typeOf = analyzed.typeColumn.map(columns)
    val streamOf = analyzed.streamColumn.map(columns)
    val guards = nfa.guards.map { g =>
      val typeTest = typeOf match {
        case Some(column) => resolve(EqualTo(column, Literal(g.eventType)), None)
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
          case None => throw CerErrors.analysis(s"'$s>...' names a stream, but the input is one table without a name; " +
            "drop the stream name")
        }
      }
      (Seq(typeTest) ++ streamTest ++ g.predicates.map(predicate)).reduce(And)
    }

    val eventColumns = columns.filterNot(a => request.streamColumn.exists(conf.resolver(a.name, _)))
    // Events that no guard accepts change no match here: leave them out before the shuffle, where Spark can push
    // the condition into the scan, as it would a WHERE. Not on a stream, where Spark would push it below the
    // watermark, which must see every row; the stateful processor leaves them out instead.
    val relevant =
      if (pattern.compiled.ignoresUnguardedEvents && guards.forall(_.deterministic) && !input.isStreaming)
        Where(guards.reduce(Or), input)
      else input
    val (child, split) = RangeSplit(conf, pattern.compiled, order, relevant).getOrElse((relevant, Nil))
    val events = analyzed.outputs.map(o => if (o.attributes.isEmpty) eventColumns else o.attributes.map(columns))
    val keyOutput = analyzed.partitionKeys.zip(keys).map { case (group, key) =>
      AttributeReference(columns(group.head).name, key.dataType, nullable = false)()
    }
    val bounds = Seq("match_start", "match_end").map(AttributeReference(_, order.head.dataType, nullable = false)())
    val variables = analyzed.outputs.zip(events).map { case (v, cols) =>
      val struct = StructType(cols.map(a => StructField(a.name, a.dataType, a.nullable)))
      AttributeReference(v.name, if (v.single) struct else ArrayType(struct, containsNull = false), nullable = false)()
    }
    CerMatch(pattern, keys, order, guards, events, keyOutput ++ bounds ++ variables, split, child)
  }

  private def engine[A](f: => A): A = try f catch { case e: CeqlException => throw CerErrors.analysis(e) }

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
      if (!ok) throw CerErrors.analysis(s"the window measures the order column ${column.name}, which is " +
        s"${column.dataType.sql}; it must be $wanted", query.within.get.pos, text, "WITHIN".length)
      if (duration && order.direction == Descending) throw CerErrors.analysis(
        s"a time-span window needs the stream in ascending ${column.name} order: drop DESC", query.within.get.pos, text)
    case _ =>
  }

  /** A `var[predicate]`: parsed by Spark, its columns checked, resolved by Spark, and checked to be boolean. */
  private def predicate(p: Filter.OnVariable): Expression = {
    val parsed = try SparkPredicate.parse(p, text, session.sessionState.sqlParser) catch {
      case e: CeqlException => throw CerErrors.syntax(e)
    }
    engine(parsed.checkColumns(columns.map(_.name), conf.resolver))
    engine(parsed.checkComparisons(columns.map(a => StructField(a.name, a.dataType)), conf.resolver))
    val resolved = resolve(parsed.expression, Some(parsed))
    if (resolved.dataType != BooleanType)
      throw CerErrors.analysis(s"the predicate ${parsed.written} is ${resolved.dataType.sql}, not BOOLEAN: a filter " +
        s"must be a condition, e.g. ${p.variable.value}[${p.text} > 0]", p.pos, text, parsed.written.length)
    resolved
  }

  /**
   * Resolves an expression over the input's columns with Spark's analyzer (functions, type coercion), on a
   * stand-in relation with the input's attributes, so that the result refers to the input directly.
   */
  private def resolve(e: Expression, from: Option[SparkPredicate]): Expression = {
    val analyzer = session.sessionState.analyzer
    val probe = Project(Seq(Alias(e, "cer_guard")()), LocalRelation(columns))
    val analyzed = try {
      val plan = analyzer.execute(probe)
      analyzer.checkAnalysis(plan)
      plan
    } catch {
      case ex: AnalysisException if from.isDefined =>
        // Spark's own error (its condition kept), placed in the query like ours.
        val p = from.get
        val placed = new CeqlException(s"in the predicate ${p.written}: ${ex.message.trim}", p.filter.pos, text,
          p.written.length)
        throw ex.copy(message = placed.getMessage, line = None, startPosition = None, context = Array.empty,
          messageParameters = ex.messageParameters ++ CerErrors.place(placed))
    }
    analyzed match {
      case Project(Seq(Alias(resolved, _)), _: LocalRelation) if !SubqueryExpression.hasSubquery(resolved) => resolved
      case _ =>
        val where = from.map(p => s"the predicate ${p.written}").getOrElse(e.sql)
        val pos = from.map(_.filter.pos).getOrElse(Position.Unknown)
        throw CerErrors.analysis(s"$where must be a condition on one event: aggregate, window and generator " +
          "functions and subqueries are not allowed in it", pos, text, from.fold(1)(_.written.length))
    }
  }
}
