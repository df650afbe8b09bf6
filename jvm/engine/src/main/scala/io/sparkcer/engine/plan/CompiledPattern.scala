package io.sparkcer.engine.plan

import io.sparkcer.engine.analysis.{AnalyzedQuery, WindowKey}
import io.sparkcer.engine.automaton.{Nfa, NfaCompiler}
import io.sparkcer.engine.chain.Chains
import io.sparkcer.engine.ceql.{Consumption, Strategy}
import io.sparkcer.engine.eval.{EventReader, MatchBound}
import io.sparkcer.engine.pcea.PceaPlan
import io.sparkcer.engine.rma.RegisterProgram

/**
 * A query ready to evaluate, independent of how events are represented: its automaton, its guards (which the
 * caller evaluates, with the engine's interpreter or with Spark's compiled expressions), its clauses, how it is
 * evaluated ([[Evaluation]], chosen by [[Planner]]), and what they allow an evaluator and its caller to do without
 * changing a match. Every such rule is stated here, once.
 *
 * @param lazyChains   whether a chain of single events with conditions may be evaluated lazily ([[Planner.plan]])
 * @param equalityPcea whether equalities are evaluated by a PCEA where one can ([[Planner.plan]])
 * @param chainsByCost whether such a chain races the registers on each partition, else runs lazily ([[Planner.plan]])
 */
final class CompiledPattern(val analyzed: AnalyzedQuery, lazyChains: Boolean = true, equalityPcea: Boolean = true,
    chainsByCost: Boolean = true) {
  val strategy: Strategy = analyzed.query.strategy
  /** How the pattern is evaluated: the evaluator, what EXPLAIN says of it, its bound and its counters. */
  val evaluation: Evaluation = Planner.plan(
    analyzed,
    NfaCompiler.compile(analyzed.query.pattern,
      analyzed.outputs.map(_.name), strategy == Strategy.Strict, analyzed.text),
    lazyChains,
    equalityPcea,
    chainsByCost
  )
  /** The automaton: CORE's CEA, with the checks and register actions of its conditions where it runs with registers. */
  val nfa: Nfa = evaluation.nfa
  /** Equalities keyed by a PCEA (Pinto and Riveros), where the pattern runs on one. */
  def pcea: Option[PceaPlan] = evaluation.pcea
  /** The registers of a pattern with conditions relating events that runs on the automaton (RMA), alone or raced. */
  def registers: Option[RegisterProgram] = evaluation.registers
  /** A chain of single events with conditions, or an OR of them, evaluated lazily, alone or raced. */
  def chain: Option[Chains] = evaluation.chain
  val consumption: Consumption = analyzed.query.consumeBy

  // ---- What the strategy, the consumption and the window allow ----------------------------------------------

  /** At most this many matches per completing event: one under ANY (the first the enumeration yields), n with LIMIT n. */
  val limit: Long = if (strategy == Strategy.Any) 1L else analyzed.query.limit.getOrElse(Long.MaxValue)

  /** Whether to de-duplicate the rows of one event ([[Evaluation.deduplicates]]). */
  val deduplicate: Boolean = evaluation.deduplicates

  /**
   * Whether events that satisfy no guard may be left out of the stream without changing any match: the
   * automaton only skips them ([[Nfa.skipsUnguardedEvents]]), no window counts them, and no ANY or LIMIT picks
   * the first matches in an enumeration order that the skipped steps could shape. The evaluator then passes them
   * by, and Spark filters them out before the shuffle.
   */
  val ignoresUnguardedEvents: Boolean = nfa.skipsUnguardedEvents && strategy != Strategy.Any &&
    analyzed.query.limit.isEmpty && !analyzed.window.exists(_.key == WindowKey.Position)

  /**
   * Whether a partition whose events have all left a column window may be forgotten whole (evicted when idle,
   * dropped at a watermark): only when nothing outside the window matters, so not under NEXT, LAST or MAX, whose
   * choice among the matches ending at an event looks at runs of any age.
   */
  val forgetsIdlePartitions: Boolean = Set[Strategy](Strategy.All, Strategy.Any, Strategy.Strict).contains(strategy)

  /**
   * Whether the partitions may be evaluated one after another, each on its own (Spark sorts by the PARTITION BY
   * keys and reads one key at a time): not under CONSUME BY ANY, where a match in one partition discards the
   * partial matches of all the others, which needs every key in one stream order.
   */
  val readsPartitionsApart: Boolean = analyzed.partitionKeys.nonEmpty && consumption != Consumption.Any

  /**
   * Whether the stream may be cut into ranges of the window's column, each evaluated on its own after reading the
   * window before it as context: only where the matches ending at an event depend on the events of one window
   * alone. So ALL and STRICT (ANY and LIMIT keep the first matches in an enumeration order that older events
   * shape; NEXT, LAST and MAX compare with runs of any age), no consumption (a match discards what came before it,
   * possibly in an earlier range), and a window on a column (WITHIN n EVENTS counts from the partition's start).
   */
  val readsRangesApart: Boolean = (strategy == Strategy.All || strategy == Strategy.Strict) &&
    analyzed.query.limit.isEmpty && consumption == Consumption.Nothing &&
    analyzed.window.exists(_.key.isInstanceOf[WindowKey.Column])

  // ---- Evaluation ----------------------------------------------------------------------------------------------

  /**
   * An evaluator of this pattern over events of type E, the one every caller uses: it runs the [[evaluation]] on each
   * partition.
   *
   * @param grouped the events arrive one partition after another (allowed when [[readsPartitionsApart]])
   * @param bound   the most matches one event may complete; past it, [[TooManyMatchesException]]
   */
  def newEvaluator[E <: AnyRef](reader: EventReader[E], grouped: Boolean, bound: MatchBound): Evaluator[E] =
    new PatternEvaluator[E](this, reader, grouped, bound)

  /** What EXPLAIN says of the pattern's evaluation: the strategy, the automaton, its evaluator, window and bound. */
  def describe: String =
    analyzed.maxAsAll.fold("")(n => s"MAX read as ALL (every match has $n events, so none contains another): ") +
      analyzed.singleEventAggregates.map(r =>
        s"${r.describe} (${r.variable} is not selected, and some of its events " +
          "satisfy the condition exactly when one does): ").mkString +
      s"${strategy.keyword} over a ${nfa.stateCount}-state CEA with ${nfa.guards.length} guards" +
      analyzed.derivedPartition.fold("")(d =>
        s", partitioned by ${d.attributes.mkString(", ")} (from " +
          s"${d.equalities.mkString(" AND ")}: equal across every event)") +
      (if (evaluation.describe.isEmpty) "" else s", ${evaluation.describe}") +
      analyzed.window.fold("")(w =>
        w.key match {
          case WindowKey.Position => s", window ${w.amount} events"
          case WindowKey.Column(i, _) => s", window ${w.amount} on ${analyzed.columns(i)}"
        }) + evaluation.bound.fold("")(b => s"; $b")
}
