package io.sparkcer.spark.rowpattern

import java.util.Locale

import scala.collection.mutable

import org.apache.spark.sql.AnalysisException
import org.apache.spark.sql.catalyst.analysis.{UnresolvedAttribute, UnresolvedFunction, UnresolvedStar}
import org.apache.spark.sql.catalyst.expressions.{
  Alias, Attribute, AttributeReference, Cast, CommonExpressionRef, Expression, Literal, RuntimeReplaceable, With
}
import org.apache.spark.sql.catalyst.FunctionIdentifier
import org.apache.spark.sql.catalyst.expressions.aggregate.{
  AggregateExpression, AggregateFunction, AnyValue, First, Last
}
import org.apache.spark.sql.catalyst.plans.logical.{Aggregate, LocalRelation}
import org.apache.spark.sql.catalyst.trees.CurrentOrigin
import org.apache.spark.sql.classic.SparkSession
import org.apache.spark.sql.types.{IntegerType, LongType, NumericType, StringType, TimestampNTZType, TimestampType}

import io.sparkcer.engine.rowpattern.{AnalyzedRowPattern, MatchRecognizeParser}
import io.sparkcer.spark.common.{CerErrors, ExpressionResolver, SparkPredicate}
import io.sparkcer.engine.syntax.SqlFragment

/**
 * Reads a DEFINE condition or a measure (Spark SQL parsed by Spark) into a [[RowPatternExpression]]: each reference to
 * the match — a column through a pattern variable (`A.price`) or the universal one (`price`), `FIRST`, `LAST`, `PREV`,
 * `NEXT` (nested as `PREV(LAST(A.price, 1), 2)`), `CLASSIFIER`, `MATCH_NUMBER` and aggregates over a variable's rows
 * (`sum(A.price)`, `count(*)`, any of Spark's aggregate functions) — becomes a value computed per evaluation
 * ([[MatchValue]]), and what remains is an expression over those values, resolved by Spark's analyzer.
 *
 * The rules are the standard's, as Trino applies them: a navigation or aggregate reads one variable's rows (or the
 * universal variable's), and all its columns through that variable; PREV and NEXT take a row, FIRST and LAST a
 * variable's row counted within the match; offsets are non-negative integer literals; RUNNING (the default) counts up
 * to the current row, FINAL over the whole match, which a DEFINE condition may not.
 *
 * MATCH_ROWTIME() (Flink's) is the time of the match's last row: FINAL LAST of the first ORDER BY column, a timestamp.
 *
 * @param eventTime the first ORDER BY column, if any
 * @param defining the label whose DEFINE condition this is; None for a measure
 */
final class RowPatternExpressionAnalysis(session: SparkSession, pattern: AnalyzedRowPattern, text: String,
    input: Seq[Attribute], eventTime: Option[Attribute], defining: Option[Int]) {
  private val resolver = session.sessionState.conf.resolver
  private val resolve = new ExpressionResolver(session, text, scalarSubqueries = true)
  private val columns = input.map(_.name)
  /** The label of each row an aggregate ranges over, as CLASSIFIER() in its argument reads it ([[MatchValue.Aggregate]]). */
  private val rowLabel = AttributeReference("CLASSIFIER()", StringType, nullable = false)()
  /**
   * The number of the match an aggregate's rows belong to, as MATCH_NUMBER() in its argument reads it: in a measure,
   * the match's; in a condition, the number of the match tried.
   */
  private val rowNumber = AttributeReference("MATCH_NUMBER()", LongType, nullable = false)()

  def apply(written: SqlFragment): RowPatternExpression = {
    val source =
      SparkPredicate.Source(defining.fold("measure")(l => s"condition of ${pattern.labels(l)}"), written.text,
        written.pos)
    val parsed = CerErrors.parsing(SparkPredicate.parse(written, source, text, session.sessionState.sqlParser))
    val values = mutable.ArrayBuffer.empty[MatchValue]
    val names = mutable.ArrayBuffer.empty[String]
    def fail(problem: String): Nothing =
      throw CerErrors.analysis(s"in ${source.described}: $problem", written.pos, text,
        written.text.length)

    /**
     * A call or reference as the query writes it: Spark's parser keeps where each node stands in the text it reads,
     * which has RUNNING and FINAL rewritten into functions of our own, so that place is mapped back to the written text.
     */
    def asWritten(e: Expression): String = (e.origin.startIndex, e.origin.stopIndex) match {
      case (Some(from), Some(to)) if from >= 0 && to < parsed.predicate.sparkSql.length && from <= to =>
        val p = parsed.predicate
        p.text.substring(p.queryOffset(from) - p.pos.offset, p.queryOffset(to) - p.pos.offset + 1)
      case _ => e.sql
    }

    def slot(v: MatchValue): Expression = {
      values += v
      names += s"__mr_value_${values.length - 1}"
      UnresolvedAttribute(Seq(names.last))
    }

    /** The variable a name stands for (a pattern or SUBSET variable), as its labels. */
    def variable(name: String): Option[Set[Int]] =
      pattern.labels.indices.find(l => resolver(pattern.labels(l), name)).map(Set(_))
        .orElse(pattern.subsets.find(s => resolver(s._1, name)).map(_._2))

    /** The variable CLASSIFIER's argument names (None: it has none, the universal variable). */
    def classified(c: Expression): Option[Set[Int]] = navigation(c).map(_._2) match {
      case Some(Seq()) => None
      case Some(Seq(UnresolvedAttribute(Seq(v)))) if variable(v).isDefined => variable(v)
      case _ => fail(s"${asWritten(c)}: CLASSIFIER takes at most one argument, a pattern variable of PATTERN or SUBSET")
    }

    /**
     * The one variable (None: the universal) whose rows `e` reads, through its columns' qualifiers and CLASSIFIER's
     * argument, and `e` reading them unqualified (`CLASSIFIER(A)` as `CLASSIFIER()`).
     */
    def ofOneVariable(e: Expression, call: String): (Option[Set[Int]], Expression) = {
      val used = mutable.LinkedHashSet.empty[Option[Set[Int]]]
      val stripped = e.transformDown {
        case c if isClassifier(c) =>
          used += classified(c)
          CurrentOrigin.withOrigin(c.origin)(UnresolvedFunction("classifier", Nil, isDistinct = false))
        case a: UnresolvedAttribute if a.nameParts.length > 1 && variable(a.nameParts.head).isDefined =>
          used += variable(a.nameParts.head)
          UnresolvedAttribute(a.nameParts.tail)
        case a: UnresolvedAttribute => used += None; a
        case UnresolvedStar(Some(Seq(v))) if variable(v).isDefined => used += variable(v); UnresolvedStar(None)
      }
      if (used.size > 1)
        fail(s"$call reads the rows of several pattern variables (MATCH_RECOGNIZE_AGGREGATE_MIXED_QUALIFIERS); it " +
          "reads one variable's rows: write one call per variable")
      (used.headOption.flatten, stripped)
    }

    def offset(args: Seq[Expression], at: Int, default: Int, call: String): Int = args.lift(at) match {
      case None => default
      case Some(Literal(n: Int, IntegerType)) if n >= 0 => n
      case Some(other) => fail(s"the offset of $call is ${asWritten(other)}; it is a non-negative integer literal")
    }

    def mode(running: Option[Boolean], call: String): Boolean = {
      if (running.contains(false) && defining.isDefined)
        fail(s"FINAL $call in a DEFINE condition: a condition sees the match up to its row; write RUNNING or nothing")
      running.getOrElse(true)
    }

    /** FIRST or LAST: a pointer within the match, and the value it reads. */
    def logical(name: String, args: Seq[Expression], running: Option[Boolean]): (Pointer, Expression) = {
      val call = s"${name.toUpperCase(Locale.ROOT)}(...)"
      if (args.isEmpty || args.length > 2) fail(s"$call takes a value and an optional offset")
      val (labels, value) = ofOneVariable(args.head, call)
      if (value.exists(v => navigation(v).isDefined && !isClassifier(v)))
        fail(s"$call may not hold another navigation; PREV and NEXT may hold FIRST and LAST, not the other way")
      (Pointer(labels, name == "last", offset(args, 1, 0, call), 0, mode(running, call)), value)
    }

    /** A value read at a pointer: a column expression, or CLASSIFIER. */
    def at(pointer: Pointer, value: Expression, written: String): Expression =
      if (isClassifier(value)) slot(MatchValue.Classifier(pointer, written))
      else {
        if (value.exists(isClassifier))
          fail(s"$written: a navigation reads columns of one row, or its CLASSIFIER() alone; write the expression " +
            "around the navigation, as lower(LAST(CLASSIFIER()))")
        if (value.exists(navigation(_).isDefined))
          fail(s"$written: a navigation reads columns of one row, not other navigations")
        checkColumns(value, written)
        slot(MatchValue.Column(pointer, executable(resolve(value, input, Some(parsed))), written))
      }

    def lower(e: Expression, running: Option[Boolean]): Expression = navigation(e) match {
      case Some(("running" | "final", args)) =>
        if (args.length != 1 || !(navigation(args.head).exists(n => isLogical(n._1)) || isAggregate(args.head)))
          fail("RUNNING and FINAL go before FIRST, LAST or an aggregate")
        lower(args.head, Some(navigation(e).exists(_._1 == "running")))
      case Some((name @ ("first" | "last"), args)) =>
        val (pointer, value) = logical(name, args, running)
        at(pointer, value, asWritten(e))
      case Some((step @ ("prev" | "next"), args)) =>
        val call = s"${step.toUpperCase(Locale.ROOT)}(...)"
        if (args.isEmpty || args.length > 2) fail(s"$call takes a value and an optional offset")
        val rows = offset(args, 1, 1, call) * (if (step == "prev") -1 else 1)
        val (pointer, value) = navigation(args.head) match {
          case Some((inner @ ("first" | "last"), innerArgs)) => logical(inner, innerArgs, running)
          case Some((semantics @ ("running" | "final"), Seq(inner)))
              if navigation(inner).exists(n => isLogical(n._1)) =>
            val (name, innerArgs) = navigation(inner).get
            logical(name, innerArgs, Some(semantics == "running"))
          case _ =>
            val (labels, stripped) = ofOneVariable(args.head, call)
            (Pointer(labels, last = true, 0, 0, running = true), stripped)
        }
        at(pointer.copy(physical = rows), value, asWritten(e))
      case Some(("classifier", _)) =>
        val (labels, value) = ofOneVariable(e, "CLASSIFIER")
        at(Pointer(labels, last = true, 0, 0, running = true), value, asWritten(e))
      case Some(("match_rowtime", args)) =>
        if (args.nonEmpty) fail("MATCH_ROWTIME() takes no argument: it is the time of the match's last row")
        if (defining.isDefined) fail("MATCH_ROWTIME() in a DEFINE condition: a match has no last row until it is found")
        val time = eventTime.filter(t => Seq(TimestampType, TimestampNTZType).contains(t.dataType)).getOrElse(
          fail(
            "MATCH_ROWTIME() is the time of the match's last row, read from the first ORDER BY column, which is " +
              eventTime.fold("missing: ORDER BY the rows' time")(t =>
                s"${t.name}, ${t.dataType.sql}, not a TIMESTAMP")))
        at(Pointer(None, last = true, 0, 0, running = false), UnresolvedAttribute(Seq(time.name)), asWritten(e))
      case Some(("match_number", _)) => slot(MatchValue.Number)
      case _ => e match {
          case f: UnresolvedFunction if isAggregate(f) => slot(aggregate(f, running))
          case a: UnresolvedAttribute =>
            val (labels, stripped) = ofOneVariable(a, a.sql)
            at(Pointer(labels, last = true, 0, 0, running = true), stripped, asWritten(a))
          case s: UnresolvedStar => fail(s"${s.sql} stands only inside count(...)")
          case other => other.withNewChildren(other.children.map(lower(_, None)))
        }
    }

    def aggregate(f: UnresolvedFunction, running: Option[Boolean]): MatchValue.Aggregate = {
      val call = asWritten(f)
      if (f.isDistinct) fail(s"$call: DISTINCT aggregates are not supported over a match's rows")
      if (f.filter.isDefined)
        fail(s"$call: FILTER is not supported over a match's rows; put the condition in the value")
      // A copy is placed where the call is written, as Spark places what its analyzer builds from it (a cast).
      val (labels, stripped) = ofOneVariable(CurrentOrigin.withOrigin(f.origin)(f.copy(filter = None)), call)
      // CLASSIFIER() in the argument is each row's label, and MATCH_NUMBER() its match's number (in a condition, the
      // number of the match tried), columns the aggregate's rows carry.
      val labelled = stripped.transformUp {
        case c if isClassifier(c) =>
          CurrentOrigin.withOrigin(c.origin)(AttributeReference(rowLabel.name, StringType,
              nullable = false)(rowLabel.exprId))
        case n if navigation(n).exists(_._1 == "match_number") =>
          if (navigation(n).get._2.nonEmpty) fail(s"${asWritten(n)}: MATCH_NUMBER() takes no argument")
          CurrentOrigin.withOrigin(n.origin)(AttributeReference(rowNumber.name, LongType, nullable = false)(
              rowNumber.exprId))
      }
      labelled.children.foreach(
        _.foreach { u =>
          if (navigation(u).isDefined || isAggregate(u))
            fail(
              s"$call may not hold ${asWritten(u)}: an aggregate reads the columns of each row it ranges over, and " +
                "its label (CLASSIFIER())")
        })
      checkColumns(labelled, call)
      MatchValue.Aggregate(labels, resolveAggregate(labelled, call), rowLabel, rowNumber, mode(running, call), call)
    }

    def checkColumns(e: Expression, call: String): Unit = e.foreach {
      case a: UnresolvedAttribute if !columns.exists(resolver(_, a.nameParts.head)) =>
        val named =
          if (pattern.labels.exists(resolver(_, a.nameParts.head))) " (a pattern variable alone is no value)" else ""
        fail(
          s"unknown column '${a.nameParts.mkString(".")}' in $call$named; the columns are: ${columns.mkString(", ")}, " +
            s"read through a pattern variable (A.column) or of the current row (column); the variables are " +
            s"${(pattern.labels ++ pattern.subsets.keys).mkString(", ")}")
      case _ =>
    }

    def resolveAggregate(call: Expression, written: String): AggregateFunction = {
      val analyzer = session.sessionState.analyzer
      val plan =
        try analyzer.execute(Aggregate(Nil, Seq(Alias(call, "value")()), LocalRelation(input :+ rowLabel :+ rowNumber)))
        catch { case e: AnalysisException => fail(s"$written: ${e.message.trim}") }
      // The rule of every condition and measure first, which Spark's check would word as one of GROUP BY.
      val aggregated = plan.collectFirst { case a: Aggregate => a.aggregateExpressions.head }.get
      ExpressionResolver.notEvaluableOnEvents(aggregated).foreach(problem => fail(s"$written $problem"))
      stringsAsNumbers(call, aggregated).foreach { argument =>
        throw CerErrors.analysis(
          s"in ${source.described}: " +
            ExpressionResolver.notNumbers(written, asWritten(argument), StringType),
          parsed.positionOf(call.origin),
          text,
          written.length
        )
      }
      try analyzer.checkAnalysis(plan)
      catch { case e: AnalysisException => fail(s"$written: ${e.message.trim}") }
      val function = aggregated.collectFirst {
        case AggregateExpression(function, _, false, None, _) => function
      }.getOrElse(fail(s"$written is not an aggregate over the match's rows"))
      executable(function).asInstanceOf[AggregateFunction]
    }

    /**
     * The argument of an aggregate `call` that is STRING where the aggregate takes numbers (`sum(A.symbol)`): Spark's
     * type coercion would cast it, and the cast fail on the first value that is no number (ANSI mode) or read it as
     * NULL, at run time, in the middle of matching. An argument the query casts itself (`CAST(A.symbol AS DOUBLE)`,
     * `double(A.symbol)`) is what it asks for.
     */
    def stringsAsNumbers(call: Expression, analyzed: Expression): Option[Expression] = {
      val function = analyzed.collectFirst { case a: AggregateExpression => a.aggregateFunction }
      val written = call.children.filterNot(_.isInstanceOf[UnresolvedStar])
      function.filter(_.children.length == written.length).flatMap(
        _.children.zip(written).collectFirst {
          case (Cast(value, _: NumericType, _, _), argument) if value.dataType == StringType && !isCast(argument) =>
            argument
        })
    }

    val lowered = lower(asCalls(parsed.expression), None)
    val inputs = values.zip(names).map { case (v, name) => AttributeReference(name, v.dataType)() }
    val expression = executable(resolve(lowered, inputs.toSeq, Some(parsed), names.zip(values.map(_.sql)).toMap))
    RowPatternExpression(expression, values.toSeq, inputs.toSeq, written.text)
  }

  /**
   * `e` with the aggregates Spark's grammar builds itself, rather than as calls by name, written as calls: it reads
   * `any_value(x)` (Trino's arbitrary) into its aggregate, as it does FIRST and LAST, which [[navigation]] reads.
   */
  private def asCalls(e: Expression): Expression = e.transformUp {
    case a @ AggregateExpression(AnyValue(child, ignoreNulls), _, false, None, _) =>
      CurrentOrigin.withOrigin(a.origin)(UnresolvedFunction("any_value",
          child +: (if (ignoreNulls) Seq(Literal(true)) else Nil), isDistinct = false))
  }

  /**
   * The expression as it is evaluated. Before a plan runs, Spark's optimizer replaces the functions defined by others
   * (`BETWEEN`, `nvl`, `count_if`, ...: RuntimeReplaceable), and turns a value they share (`With`: BETWEEN reads its
   * operand twice) into a column computed below; these expressions are evaluated by our operator, outside the plan,
   * so the shared value is written in each place it is read.
   */
  private def executable(e: Expression): Expression = e match {
    case r: RuntimeReplaceable => executable(r.replacement)
    case w: With =>
      val shared = w.defs.map(d => d.id -> executable(d.child)).toMap
      executable(w.child.transform { case r: CommonExpressionRef => shared(r.id) })
    case _ => e.mapChildren(executable)
  }

  /**
   * A row pattern function's name (lower case) and arguments, when `e` calls one. Spark's grammar reads `FIRST(x)` and
   * `LAST(x)` into its aggregates First and Last; with an offset they are calls like the others.
   */
  private def navigation(e: Expression): Option[(String, Seq[Expression])] = e match {
    case AggregateExpression(First(child, false), _, false, None, _) => Some(("first", Seq(child)))
    case AggregateExpression(Last(child, false), _, false, None, _) => Some(("last", Seq(child)))
    case f: UnresolvedFunction if f.nameParts.length == 1 =>
      val n = f.nameParts.head.toLowerCase(Locale.ROOT)
      val own = Map(MatchRecognizeParser.Running -> "running", MatchRecognizeParser.Final -> "final")
      own.get(n).orElse(Some(n).filter(Set("first", "last", "prev", "next", "classifier", "match_number",
            "match_rowtime")))
        .map(_ -> f.arguments)
    case _ => None
  }

  private def isClassifier(e: Expression): Boolean = navigation(e).exists(_._1 == "classifier")

  private def isLogical(name: String): Boolean = name == "first" || name == "last"

  /** Whether `e` is a cast as written: `CAST(x AS t)`, or a function that is one (`double(x)`). */
  private def isCast(e: Expression): Boolean = e match {
    case _: Cast => true
    case f: UnresolvedFunction => f.nameParts.length == 1 &&
      session.sessionState.functionRegistry.lookupFunction(FunctionIdentifier(f.nameParts.head))
        .exists(_.getClassName == classOf[Cast].getName)
    case _ => false
  }

  private def isAggregate(e: Expression): Boolean = e match {
    case f: UnresolvedFunction => navigation(f).isEmpty && f.nameParts.length == 1 &&
      session.sessionState.functionRegistry.lookupFunction(FunctionIdentifier(f.nameParts.head)).exists(
        _.getGroup == "agg_funcs")
    case _ => false
  }
}
