package io.sparkcer.engine.plan

import io.sparkcer.engine.analysis.{AnalyzedQuery, Relations, WindowKey}
import io.sparkcer.engine.automaton.{Nfa, NfaCompiler, Transition}
import io.sparkcer.engine.chain.{ChainCost, ChainPath, Chains}
import io.sparkcer.engine.ceql.{Consumption, Strategy}
import io.sparkcer.engine.eval.{EventReader, MatchBound}
import io.sparkcer.engine.pcea.{PceaCompiler, PceaPlan}
import io.sparkcer.engine.rma.{Dominance, Placement, RegisterProgram}
import io.sparkcer.engine.syntax.PatternException

/**
 * A query ready to evaluate, independent of how events are represented: its automaton, its guards (which the
 * caller evaluates, with the engine's interpreter or with Spark's compiled expressions), its clauses, and what they
 * allow an evaluator and its caller to do without changing a match. Every such rule is stated here, once.
 *
 * Conditions relating events choose the evaluator: equalities that a PCEA can key ([[PceaCompiler]]) run on one,
 * other chains of single events (or an OR of them) lazily ([[Chains]]) or with registers, whichever costs less on each partition
 * ([[ChainCost]]), anything else with registers on the automaton (RMA). NEXT, LAST and MAX compare runs, which neither
 * a PCEA nor the lazy chain keeps apart (both take SELECT ALL only): with conditions they run with registers, ranked
 * ([[io.sparkcer.engine.rma.RankedRegisterRun]]) or compared by inclusion ([[io.sparkcer.engine.rma.MaximalRegisterRun]]).
 *
 * A NONE(...) that tests its event alone is part of the automaton (its skips exclude such events), so every evaluator
 * takes it. One whose conditions relate its event to the match's events is judged against them: where they name only
 * variables bound before it, those events are in a run's registers when a candidate comes, and the registers judge it
 * there (its gap's skips do not pass it: [[io.sparkcer.engine.rma.Judgement]]), so the pattern runs with registers as
 * any other, under every clause, or on the lazy chain where it takes the pattern. One that names a later variable
 * cannot be judged when it comes, only kept in a list until that variable is bound, a run per list content: the lazy
 * chain's buffer holds those events once for every run, and judges them only where a match is complete around them.
 * So a pattern with such a NONE runs on the lazy chain or is refused, saying what it needs.
 *
 * @param lazyChains   whether a chain of single events with conditions may be evaluated lazily; without, it runs
 *                     with registers on the automaton, as every other pattern with conditions
 * @param equalityPcea whether equalities are evaluated by a PCEA where one can; without, they are conditions as any
 * @param chainsByCost whether such a chain runs on whichever of the lazy chain and the registers does less work on
 *                     each partition; without, always lazily
 */
final class CompiledPattern(val analyzed: AnalyzedQuery, lazyChains: Boolean = true, equalityPcea: Boolean = true,
    chainsByCost: Boolean = true) {
  val strategy: Strategy = analyzed.query.strategy
  /** NEXT and LAST: one match per event, the highest in the strategy's order among the runs of the NFA. */
  val ranked: Boolean = strategy == Strategy.Next || strategy == Strategy.Last
  private val compiled: Nfa = NfaCompiler.compile(
    analyzed.query.pattern, analyzed.outputs.map(_.name), strategy == Strategy.Strict, analyzed.text)
  /** The PCEA of the pattern's equalities, or why there is none (for EXPLAIN). */
  private val pceaOrReason: Either[String, PceaPlan] =
    if (equalityPcea) PceaCompiler.compile(analyzed, compiled) else Left("PCEA is turned off")
  /** Equalities keyed by a PCEA (Pinto and Riveros): hash joins of each event with the runs it extends. */
  val pcea: Option[PceaPlan] = pceaOrReason.toOption
  private val chainShape = if (lazyChains && pcea.isEmpty) Chains.of(analyzed, compiled) else None
  /** NONEs whose conditions name a variable bound after them: only the lazy chain judges them. */
  private val judgedLazily = compiled.gaps.filterNot(g => g.onAutomaton || g.onRegisters)
  judgedLazily.headOption.filter(_ => chainShape.isEmpty).foreach { g =>
    throw new PatternException(s"NONE(... FILTER ...) relates its event '${g.variable}' to the events of the match " +
      s"(${g.conditions.map(compiled.conditions(_).text).mkString(" AND ")}), naming " +
      s"${g.later.map(v => s"'$v'").mkString(", ")} bound after it, " +
      "which only the lazy chain judges: it takes a sequence of single events, each bound to a variable of its own " +
      "(A AS a ; NONE(B AS b FILTER b.acct = c.acct) ; C AS c), with conditions on no repeating variable, under SELECT " +
      "ALL (the default) with a WITHIN window and no LIMIT or CONSUME BY" +
      (if (lazyChains) "" else " (the lazy chain is turned off here)") + ". A NONE whose conditions name only variables " +
      "bound before it (NONE(B AS b FILTER b.acct = a.acct)) runs with any pattern and clause, judged against the " +
      "registers, and so does one that tests its event alone (NONE(B FILTER B.amount > 100))", g.exclusion.pos,
      analyzed.text, 4)
  }
  // The general evaluators keep the events a condition relates to a repeating variable's until the match ends.
  if (pcea.isEmpty) Relations.requireBounded(analyzed.query, analyzed.text)
  private val placed =
    if (compiled.hasRegisters && pcea.isEmpty && judgedLazily.isEmpty && (chainShape.isEmpty || chainsByCost))
      Some(Placement.place(compiled, ranked || strategy == Strategy.Max))
    else None
  /** The automaton: CORE's CEA, with the checks and register actions of its conditions where it runs with registers. */
  val nfa: Nfa = placed.fold(compiled)(_.nfa)
  /**
   * The registers of a pattern with conditions relating events that runs on the automaton (RMA), None otherwise; with
   * a [[chain]] too, the partitions choose between them.
   */
  val registers: Option[RegisterProgram] = placed.map(_.program)
  /**
   * A sequence or conjunction of single events with conditions, or an OR of them: evaluated lazily, from buffered
   * events (lazy chain NFA).
   */
  val chain: Option[Chains] = chainShape.map(_.labelledAs(compiled, nfa))
    // Never raced against registers whose runs repeat no row, when its own matches would: the repeats are work
    // that the registers do not do, and grow with the window. Nor where it searches for witnesses: there the
    // registers' one run per match (ExistentialTakes) keeps the witness in a register, where the chain searches for
    // it per row.
    .filter(c => registers.isEmpty || registersRepeatRows ||
      !repeatsRows(c) && c.alternatives.forall(_.witnesses.isEmpty))
  val consumption: Consumption = analyzed.query.consumeBy

  // ---- What the strategy, the consumption and the window allow ----------------------------------------------

  /** At most this many matches per completing event: one under ANY (the first the enumeration yields), n with LIMIT n. */
  val limit: Long = if (strategy == Strategy.Any) 1L else analyzed.query.limit.getOrElse(Long.MaxValue)

  /**
   * Whether to de-duplicate the rows of one event: different runs can project onto the same row only under MAX,
   * whose runs keep unselected marks apart (the subset construction folds them, so each run is one row); with
   * registers, unless [[rowsTellRunsApart]]; in a lazy chain with an event no selected variable binds where it is
   * not searched for as a witness, or an OR of chains whose matches no atom-to-atom check tells apart
   * ([[repeatsRows]]); and in a
   * PCEA, whose runs are labelled by atoms, unless [[PceaPlan.rowsTellRunsApart]]. Where a chain races, only while
   * the path leading repeats rows ([[deduplicates]]).
   */
  val deduplicate: Boolean = strategy == Strategy.Max || registersRepeatRows || chainRepeatsRows ||
    pcea.exists(!_.rowsTellRunsApart)

  /** Whether the rows of one event repeat on a chain's path ([[io.sparkcer.engine.chain.AdaptiveChainRun.leading]]). */
  def deduplicates(path: ChainPath): Boolean = strategy == Strategy.Max || (path match {
    case ChainPath.Lazy => chainRepeatsRows
    case ChainPath.Registers => registersRepeatRows
  })

  private lazy val registersRepeatRows: Boolean = registers.isDefined && !ranked && !rowsTellRunsApart
  private lazy val chainRepeatsRows: Boolean = chain.exists(repeatsRows)
  /**
   * An event no selected variable binds repeats no row where it is the first or the last of a sequence (the row's
   * start or end) or a witness ([[io.sparkcer.engine.chain.ChainPlan.witnesses]]); elsewhere (under AND, or beside an
   * iteration) it does.
   */
  private def repeatsRows(chain: Chains): Boolean =
    chain.mayRepeatRows(atom => nfa.labels(atom.label).toSet) || chain.alternatives.exists { plan =>
      plan.atoms.indices.exists { i =>
        nfa.labels(plan.atoms(i).label).isEmpty && !plan.witnesses.contains(i) && !plan.bounds(i)
      }
    }

  /**
   * Whether a row names the one run it came from, with registers: every label an event is read with binds a selected
   * variable, but for the event a match starts with (the row's start), which one label alone may read without
   * binding any; and where two labels bind the same ones, one can only end a match and the other only come before
   * its end (as the copy of a transition that checks an aggregate as the match ends does). Then a row gives the
   * events its run read and the label of each, from which the registers and the states follow.
   *
   * Otherwise runs keep apart the events of unselected variables (in their registers) or the alternatives of an OR of
   * conditions (in their labels' actions), with one row, and the rows they repeat are dropped (and counted,
   * [[Work.dropped]]). Most of that is gone before evaluation: the takes that a skip dominates are removed
   * ([[io.sparkcer.engine.rma.DominatedTakes]]), an unselected variable read by one order comparison is taken once per
   * match, keeping its easiest event ([[io.sparkcer.engine.rma.ExistentialTakes]]: its labels are left out here), and
   * an OR's alternatives share their labels ([[io.sparkcer.engine.rma.JoinedLabels]]). What remains: an unselected
   * variable that two comparisons (or another kind of condition, or an aggregate that no one of its events can stand
   * for, [[io.sparkcer.engine.analysis.SingleEventAggregates]]) read; two unselected variables in
   * a row with one of them read; an OR whose alternatives take an unselected event under different conditions
   * (`b.v > a.v OR b.k > a.k`).
   */
  private def rowsTellRunsApart: Boolean = {
    // Label 0 binds nothing and does nothing: the deterministic automaton reads it as a skip.
    val marking = nfa.transitions.flatten.filter(_.label > 0)
    def ends(t: Transition) = nfa.finals(t.target)
    def continues(t: Transition) = nfa.readsAhead(t.target)
    val labels = marking.map(_.label).distinct
    // The take of an unselected variable made once per match, keeping the easiest event, splits no row.
    val chosen = registers.fold(Set.empty[Int])(_.existential)
    val (selecting, unselected) = labels.filterNot(chosen).partition(nfa.labels(_).nonEmpty)
    // An event read into no selected variable: only as a match's first, and there in one way (a label, NOT, label 0).
    val unselectedLater = nfa.transitions.indices.exists(q =>
      q != Nfa.Initial && nfa.transitions(q).exists(t => unselected.contains(t.label)))
    val unselectedFirst = nfa.transitions(Nfa.Initial).filter(t => t.reads && (!t.marks || nfa.labels(t.label).isEmpty))
    (unselected.isEmpty || (!unselectedLater && unselectedFirst.map(_.label).distinct.size == 1)) &&
      selecting.groupBy(nfa.labels(_)).values.forall { same =>
        same.count(l => marking.exists(t => t.label == l && ends(t))) <= 1 &&
          same.count(l => marking.exists(t => t.label == l && continues(t))) <= 1
      }
  }

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
   * An evaluator of this pattern over events of type E, the one every caller uses: CORE's, on tECS.
   *
   * @param grouped the events arrive one partition after another (allowed when [[readsPartitionsApart]])
   * @param bound   the most matches one event may complete; past it, [[TooManyMatchesException]]
   */
  def newEvaluator[E <: AnyRef](reader: EventReader[E], grouped: Boolean, bound: MatchBound): Evaluator[E] =
    new PatternEvaluator[E](this, reader, grouped, bound)

  def describe: String =
    analyzed.maxAsAll.fold("")(n => s"MAX read as ALL (every match has $n events, so none contains another): ") +
    analyzed.singleEventAggregates.map(r => s"${r.describe} (${r.variable} is not selected, and some of its events " +
      "satisfy the condition exactly when one does): ").mkString +
    s"${strategy.keyword} over a ${nfa.stateCount}-state CEA with ${nfa.guards.length} guards" +
      analyzed.derivedPartition.fold("")(d => s", partitioned by ${d.attributes.mkString(", ")} (from " +
        s"${d.equalities.mkString(" AND ")}: equal across every event)") +
      pcea.fold("")(p => s", ${p.describe}") +
      ((chain, registers) match {
        case (Some(c), Some(r)) => s", ${ChainCost.describe(c, describe(r))}"
        case (Some(c), None) => s", ${c.describe}"
        case (None, Some(r)) => s", ${describe(r)}"
        case (None, None) => ""
      }) +
      // MAX de-duplicates its rows whatever the path, as EXPLAIN does not say without conditions either.
      (if ((registersRepeatRows || pcea.exists(!_.rowsTellRunsApart)) && strategy != Strategy.Max)
        ", and rows repeated by runs that unselected events or an OR of conditions keep apart dropped (counted)"
      else "") +
      (if (nfa.conditions.nonEmpty && pcea.isEmpty) pceaOrReason.left.toOption.fold("")(r => s" (not by PCEA: $r)") else "") +
      analyzed.window.fold("")(w => w.key match {
        case WindowKey.Position => s", window ${w.amount} events"
        case WindowKey.Column(i, _) => s", window ${w.amount} on ${analyzed.columns(i)}"
      }) + guarantee

  /** What the path bounds, for EXPLAIN (the README's table of guarantees says the same). */
  private def guarantee: String =
    if (pcea.isDefined) "; per event a hash lookup per equality and an insertion in a union tree (logarithmic in the " +
      "runs of a key), matches enumerated with output-linear delay (PCEA)"
    else if (chain.isDefined || registers.isDefined) ""
    else strategy match {
      case Strategy.Next | Strategy.Last => "; per event a constant number of steps, at most one match (CEL, Algorithms " +
        "5 and 6)"
      case Strategy.Max => "; per event a constant number of steps over the subset automaton (CEL, Algorithm 7), " +
        "matches enumerated with output-linear delay"
      case _ => "; per event a constant number of steps, matches enumerated with output-linear delay (CORE)"
    }

  private def describe(registers: RegisterProgram): String =
    s"${nfa.conditions.length} conditions relating events checked on ${registers.checks.length} transitions with " +
      s"${registers.registers} registers (RMA), " +
      (if (registers.nones.isEmpty) ""
      else s"${registers.nones.length} NONE(...) relating its event to earlier ones judged against the registers " +
        "as a run waits in its gap, ") +
      (if (registers.existential.isEmpty) ""
      else s"${registers.judgements.count(_.ofTake)} take of an unselected variable made once per match, the later events " +
        "challenging it for the easiest (so its runs repeat no row), ") +
      (if (ranked) s"${strategy.keyword} over configurations (NFA state, registers) in priority order, kept past the " +
        "window while they may outrank another (the strategy chooses before the window), " + kept(registers)
      else if (strategy == Strategy.Max) "MAX over sets of configurations (NFA state, registers): each run's own, " +
        "those of runs marking the same events and those of larger runs, kept past the window (the strategy chooses " +
        "before the window), " + kept(registers)
      else registers.growth)

  /**
   * What NEXT, LAST and MAX keep of the configurations: an antichain of [[io.sparkcer.engine.rma.Dominance]] where an
   * order relates what their registers hold, else every one that may still be chosen, for as long as the stream.
   */
  private def kept(registers: RegisterProgram): String =
    if (!Dominance.of(registers, nfa.conditions).compares)
      "no order relating what their registers hold, so they grow with the stream"
    else "a configuration let go once another in its state makes every condition ahead as easy (" + (strategy match {
      case Strategy.Max => "one of its set, or of a larger run"
      case _ => "one ranked above it, or one past the window too with no match in the window ranked between them"
    }) + "), so they grow with the values the registers hold, not the stream"
}
