package io.sparkcer.engine.eval

import io.sparkcer.engine.analysis.{AnalyzedQuery, WindowKey}
import io.sparkcer.engine.automaton.{DeterministicCea, MaxCea, Nfa, NfaCompiler, SubsetCea}
import io.sparkcer.engine.ceql.{Consumption, Strategy}

/**
 * A query ready to evaluate, independent of how events are represented: its automaton, its guards (which the
 * caller evaluates, with the engine's interpreter or with Spark's compiled expressions) and its clauses.
 */
final class CompiledPattern(val analyzed: AnalyzedQuery) {
  val strategy: Strategy = analyzed.query.strategy
  val nfa: Nfa = NfaCompiler.compile(
    analyzed.query.pattern, analyzed.outputs.map(_.name), strategy == Strategy.Strict, analyzed.text)
  val consumption: Consumption = analyzed.query.consumeBy
  /** At most this many matches per completing event. */
  val limit: Long = if (strategy == Strategy.Any) 1L else analyzed.query.limit.getOrElse(Long.MaxValue)
  /**
   * Whether events that satisfy no guard may be left out of the stream without changing any match: the
   * automaton only skips them ([[Nfa.skipsUnguardedEvents]]), no window counts them, and no ANY or LIMIT picks
   * the first matches in an enumeration order that the skipped steps could shape. The evaluator then passes them
   * by, and Spark filters them out before the shuffle.
   */
  val ignoresUnguardedEvents: Boolean = nfa.skipsUnguardedEvents && strategy != Strategy.Any &&
    analyzed.query.limit.isEmpty && !analyzed.window.exists(_.key == WindowKey.Position)
  /** Different runs can project onto the same row only under MAX, whose runs keep unselected marks apart. */
  val deduplicate: Boolean = strategy == Strategy.Max

  /** A fresh evaluation state for one partition, sharing `cea`'s lazily built transition table. */
  def newRun(cea: => DeterministicCea): Run = strategy match {
    case Strategy.Next => new PriorityRun(nfa, lastFirst = false)
    case Strategy.Last => new PriorityRun(nfa, lastFirst = true)
    case _ => new CeaRun(cea)
  }

  /** The deterministic automaton a task builds as it goes; one per task, shared by its partitions. */
  def newDeterministicCea(): DeterministicCea = strategy match {
    case Strategy.Max => new MaxCea(nfa)
    case _ => new SubsetCea(nfa)
  }

  def describe: String =
    s"${strategy.keyword} over a ${nfa.stateCount}-state CEA with ${nfa.guards.length} guards" +
      analyzed.window.fold("")(w => w.key match {
        case WindowKey.Position => s", window ${w.amount} events"
        case WindowKey.Column(i, _) => s", window ${w.amount} on ${analyzed.columns(i)}"
      })
}
