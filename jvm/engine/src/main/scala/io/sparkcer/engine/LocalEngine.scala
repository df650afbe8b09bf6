package io.sparkcer.engine

import io.sparkcer.engine.analysis.{Analyzer, WindowKey}
import io.sparkcer.engine.automaton.SymbolTable
import io.sparkcer.engine.ceql.CeqlParser
import io.sparkcer.engine.eval.{Aggregation, EventReader, MatchBound}
import io.sparkcer.engine.plan.{CompiledPattern, EvaluatorMetrics}
import io.sparkcer.engine.expr.{Expr, ExprInterpreter, ExprParser}
import io.sparkcer.engine.syntax.{PatternException, Position}

/** Per-call settings of the analysis that a query does not state itself. */
final case class EngineOptions(
    typeColumn: String = "event_type",
    streamColumn: Option[String] = None,
    timeColumn: Option[String] = None,
    /** Whether chains of single events with conditions may be evaluated lazily (CompiledPattern's `lazyChains`). */
    lazyChains: Boolean = true,
    /** Whether equalities are evaluated by a PCEA where one can (CompiledPattern's `equalityPcea`). */
    equalityPcea: Boolean = true,
    /** Whether such chains run lazily or with registers by cost, else always lazily (CompiledPattern's `chainsByCost`). */
    chainsByCost: Boolean = true)

/** The engine on its own rows: compile a CEQL statement against a list of columns, then run it over rows in stream order. */
object LocalEngine {
  /** @param matchBound the most matches one event may complete (an evaluation setting: the analysis never reads it) */
  def compile(query: String, columns: IndexedSeq[String], options: EngineOptions = EngineOptions(),
      matchBound: MatchBound = MatchBound.Default): LocalQuery = {
    val analyzed = Analyzer.analyze(CeqlParser.parse(query), query, columns, options.typeColumn, options.streamColumn,
      options.timeColumn)
    val compiled = new LocalQuery(
      new CompiledPattern(analyzed, options.lazyChains, options.equalityPcea, options.chainsByCost), matchBound)
    compiled.reader // compiles the guards now, so that their errors surface here
    compiled
  }
}

final class LocalQuery private[engine] (val pattern: CompiledPattern, val matchBound: MatchBound) {
  private val analyzed = pattern.analyzed

  /** The selected variables, in output order. */
  def outputVariables: IndexedSeq[String] = analyzed.outputs.map(_.name)

  /** Counters of the last `run`. */
  var metrics: EvaluatorMetrics = new EvaluatorMetrics

  /** Runs over rows already in stream order; a match is produced when its last event is read. Event.seq = row index. */
  def run(rows: Iterator[Array[Any]]): Iterator[Match] = {
    val evaluator = pattern.newEvaluator(reader, grouped = false, matchBound)
    metrics = evaluator.metrics
    val declared = analyzed.declaredKeys
    evaluator.matches(rows.zip(Iterator.iterate(0L)(_ + 1)).map { case (values, index) => new Event(index, values) })
      .map(m => if (m.partition.length == declared) m else m.copy(partition = m.partition.take(declared)))
  }

  private[engine] lazy val reader: EventReader[Event] = {
    val columns = analyzed.columns
    val conditions = new ConditionInterpreter(pattern.nfa.conditions, columns, analyzed.text)
    val fromStreams = analyzed.query.streams.map(_.value)
    val typeOf: Array[Any] => Any = analyzed.typeColumn match {
      case Some(i) => row => row(i)
      case None if fromStreams.size == 1 => val name = fromStreams.head; _ => name
      case None =>
        throw new PatternException(
          s"the input has no event type column; the columns are: ${columns.mkString(", ")}. Name the type column " +
            "(typeColumn=...), or name the stream in FROM so that every row takes the stream's name as its type",
          Position.Unknown,
          analyzed.text
        )
    }
    val streamOf: Array[Any] => Any = analyzed.streamColumn match {
      case Some(i) => row => row(i)
      case None => _ => fromStreams.headOption.orNull
    }
    // Guards grouped by event type: an event is tested only against the guards of its own type.
    val byType: Map[Any, Array[(Int, Option[String], Array[Any] => Boolean)]] =
      pattern.nfa.guards.zipWithIndex.map { case (g, i) =>
        val predicates = g.predicates.map { p =>
          val (variable, predicate) = (p.filter.variable, p.filter.predicate)
          val resolve: Expr.Reference => Int = {
            case Expr.Attribute(v, name) if v.value != variable.value =>
              throw new PatternException(
                s"a filter on ${variable.value} reads only its own event: write " +
                  s"${variable.value}.${name.value}, or relate the events in a condition of their own",
                v.pos,
                predicate.sparkSql,
                v.value.length
              )
            case r => Analyzer.column(r.column, columns, predicate.sparkSql)
          }
          predicate.readIn(analyzed.text) {
            val parsed = ExprParser.parse(predicate)
            ExprInterpreter.compilePredicate(if (p.negated) Expr.Not(parsed, parsed.pos) else parsed, resolve,
              predicate.sparkSql)
          }
        }.toArray
        (g.eventType: Any, (i, g.stream, (row: Array[Any]) => predicates.forall(_(row))))
      }.groupBy(_._1).map { case (t, gs) => t -> gs.map(_._2).toArray }
    val partitionKeys = analyzed.partitionKeys.map(_.toArray).toArray
    val windowColumn = analyzed.window.map(_.key).collect { case WindowKey.Column(i, _) => i }
    val located = (analyzed.partitionKeys.flatten ++ analyzed.streamOrder.map(_._1)).distinct

    new EventReader[Event] {
      def classify(event: Event, symbol: Array[Long]): Unit = {
        val row = event.values
        val candidates = byType.getOrElse(typeOf(row), null)
        if (candidates != null) {
          var k = 0
          while (k < candidates.length) {
            val (g, stream, test) = candidates(k)
            if (stream.forall(_ == streamOf(row)) && test(row)) SymbolTable.set(symbol, g)
            k += 1
          }
        }
      }
      def partitionKey(event: Event): IndexedSeq[Any] = {
        val key = partitionKeys.map(group => group.iterator.map(event.values(_)).find(_ != null).orNull)
        if (key.contains(null)) null else key.toIndexedSeq
      }
      def hasWindowKey(event: Event): Boolean = windowColumn.forall(event.values(_) != null)
      def windowKey(event: Event): Long = LocalQuery.windowValue(event.values(windowColumn.get))
      override def describe(event: Event): String =
        located.map(i => s"${columns(i)} = ${event.values(i)}").mkString(", ")
      override def holds(condition: Int, events: Array[AnyRef], slots: Array[Any]): Boolean = {
        val rows = new Array[Array[Any]](events.length)
        var i = 0
        while (i < rows.length) { rows(i) = events(i).asInstanceOf[Event].values; i += 1 }
        conditions.holds(condition, rows, slots)
      }
      override def argument(condition: Int, slot: Int, event: Event): Any =
        conditions.argument(condition, slot, event.values)
      override def aggregation(condition: Int, slot: Int): Aggregation = conditions.aggregation(condition, slot)
      override def operand(condition: Int, side: Int, event: Event): AnyRef =
        conditions.operand(condition, side, event.values)
      override def compareHardness(condition: Int, side: Int, a: Event, b: Event): Int =
        conditions.compareHardness(condition, side, a.values, b.values)
      override def compareSlotValues(condition: Int, slot: Int, a: Any, b: Any): Int =
        conditions.compareSlotValues(a, b)
    }
  }
}

object LocalQuery {
  /** A window key in milliseconds (timestamps) or in the column's own unit (integers). */
  def windowValue(v: Any): Long = v match {
    case l: java.lang.Long => l
    case i: java.lang.Integer => i.longValue
    case t: java.sql.Timestamp => t.getTime
    case t: java.time.Instant => t.toEpochMilli
    case d: java.lang.Double if d == math.floor(d) && !d.isInfinite => d.longValue
    case other =>
      throw new IllegalArgumentException(s"a window needs an integer or timestamp order column, found '$other'")
  }
}
