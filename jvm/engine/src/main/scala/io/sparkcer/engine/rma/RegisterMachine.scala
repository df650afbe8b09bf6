package io.sparkcer.engine.rma

import scala.collection.mutable

import io.sparkcer.engine.automaton.{DeterministicCea, SymbolTable, Transition, TransitionCache}
import io.sparkcer.engine.eval.{EventReader, EventRing, MatchBound, TooManyMatchesException, Work}

/**
 * What the register runs of one evaluator share: the deterministic automaton, built lazily as in CORE (RMA's
 * determinization, Alg. 5: the min-terms of a state's formulas are the symbols its runs meet, each computed once),
 * the register program, and the caller's reader, which evaluates conditions and aggregates.
 *
 * A run's symbol extends the event's guard bits with the outcome of each check on the transitions leaving its state,
 * evaluated against the run's registers: so the cached moves of the automaton serve every run, and a condition is
 * evaluated only where a transition that carries it can be taken; likewise a NONE's [[Judgement]], where a skip that
 * excludes it leaves the state and the event passes the NONE's guard. Each evaluation, one per combination of the
 * events its variables take, is one of [[Work.conditionChecks]]. NEXT, LAST and MAX compare runs of single NFA states
 * ([[RankedRegisterRun]], [[MaximalRegisterRun]]): for them a symbol is computed per NFA state ([[symbolAt]]) and
 * the transitions it enables are cached alike ([[enabled]]).
 */
final class RegisterMachine[E <: AnyRef](val cea: DeterministicCea, val program: RegisterProgram,
    reader: EventReader[E], val bound: MatchBound, work: Work) {
  private val symbols = new SymbolTable(program.words)
  /** The bits of the symbol [[symbol]] computed last. */
  val bits = new Array[Long](program.words)
  val empty: Registers = Registers.empty(program)
  private val aggregations = program.accumulators.map { case (condition, slot) => reader.aggregation(condition, slot) }
  /** Per label: whether reading an event with it adds the event to the match (it binds a selected variable). */
  private val outputs = cea.nfa.labels.map(_.nonEmpty).toArray
  /** Per deterministic state: what its transitions carry. */
  private val carriedByState = mutable.ArrayBuffer.empty[Carried]
  /** The same per NFA state. */
  private val carriedByNfaState = new Array[Carried](cea.nfa.stateCount)
  /** Per NFA state and symbol, the transitions the symbol enables. */
  private val enabledMoves = new TransitionCache[Array[Transition]]

  def addsToMatch(label: Int): Boolean = outputs(label)

  /** Whether one of `labels` adds the event to the match: the run's matches are then extended, so merged first. */
  def extendsMatch(labels: Array[Int]): Boolean = {
    var k = 0
    while (k < labels.length && !outputs(labels(k))) k += 1
    k < labels.length
  }

  /** When one run's registers make every condition ahead at least as easy as another's ([[Dominance]]). */
  val dominance: Dominance = Dominance.of(program, cea.nfa.conditions)

  /** Whether registers `y` make every condition ahead at least as easy as `x`; each comparison a condition check. */
  def noHarder(y: Registers, x: Registers, events: EventRing[E]): Boolean =
    dominance.noHarder(y, x, hardness.of(events))

  /** What two runs hold compared, for [[Dominance]]: one instance, pointed at each partition's events. */
  private final class Hardness extends Dominance.Hardness {
    private var events: EventRing[E] = _
    def of(events: EventRing[E]): Hardness = { this.events = events; this }
    def ofEvents(condition: Int, side: Int, a: Long, b: Long): Int = {
      work.conditionChecks += 1
      reader.compareHardness(condition, side, events(a), events(b))
    }
    def ofPrevious(condition: Int, slot: Int, largerIsHarder: Boolean, a: Long, b: Long): Int = {
      work.conditionChecks += 1
      val (x, y) = (reader.argument(condition, slot, events(a)), reader.argument(condition, slot, events(b)))
      if (x == null) { if (y == null) 0 else 1 } // NULL satisfies no comparison: the hardest
      else if (y == null) -1
      else directed(reader.compareSlotValues(condition, slot, x, y), largerIsHarder)
    }
    def ofAggregates(accumulator: Int, largerIsHarder: Boolean, a: AnyRef, b: AnyRef): Int = {
      work.conditionChecks += 1
      val (x, y) = (aggregations(accumulator).result(a), aggregations(accumulator).result(b))
      if (x == null || y == null) { if (x == y) 0 else EventReader.Unordered }
      else {
        val (condition, slot) = program.accumulators(accumulator)
        directed(reader.compareSlotValues(condition, slot, x, y), largerIsHarder)
      }
    }
    /** Values' own order as hardness: the larger harder, or easier. */
    private def directed(order: Int, largerIsHarder: Boolean): Int =
      if (order == EventReader.Unordered || largerIsHarder) order else -order
    def satisfies(accumulator: Int, state: AnyRef): Boolean = {
      work.conditionChecks += 1
      reader.holds(program.accumulators(accumulator)._1, Array.empty, Array(aggregations(accumulator).result(state)))
    }
  }
  private val hardness = new Hardness

  /** Past the bound on the runs of a partition: where it happened, what keeps the runs apart, what to write instead. */
  def tooManyRuns(event: E): TooManyMatchesException = new TooManyMatchesException(
    s"the event at ${reader.describe(event)} leaves more than ${bound.perEvent} partial matches that its conditions " +
      s"keep apart (each keeps other events in its registers), the bound ${bound.setting}: ${program.growth}. " +
      (if (program.perSubset.isEmpty) "" else s"${RegisterMachine.remedies}. ") +
      s"A shorter window (WITHIN) or PARTITION BY bounds them; or raise ${bound.setting}.")

  /**
   * Past the bound on what NEXT, LAST or MAX keeps of a partition: the runs that may still be chosen over another or
   * contain another, those that started before the window included, since the strategy chooses before the window
   * applies.
   */
  def tooManyKept(event: E, strategy: String, kept: Int): TooManyMatchesException = new TooManyMatchesException(
    s"at the event at ${reader.describe(event)}, SELECT $strategy keeps $kept partial matches of its partition, more " +
      s"than the bound ${bound.nodesSetting} (${bound.nodes}): with conditions relating events (" +
      s"${cea.nfa.conditions.map(_.text).mkString(", ")}) a partial match is kept while it may still be chosen over " +
      "another (NEXT, LAST) or contain another (MAX), even after it has left the window, because the strategy " +
      "chooses among the matches of an event before the window drops them; so they grow with the stream, not the " +
      "window. PARTITION BY keeps them per key; SELECT ALL with LIMIT n keeps none outside the window; or raise " +
      s"${bound.nodesSetting}.")

  /** The symbol of an event for a run in deterministic state `state` with registers `registers`. */
  def symbol(state: Int, guards: Array[Long], registers: Registers, events: EventRing[E], position: Long): Int =
    symbolWith(carriedAt(state), guards, registers, events, position)

  /** The symbol of an event for a run in NFA state `state` with registers `registers`. */
  def symbolAt(state: Int, guards: Array[Long], registers: Registers, events: EventRing[E], position: Long): Int = {
    if (carriedByNfaState(state) == null) carriedByNfaState(state) = carriedBy(Seq(state))
    symbolWith(carriedByNfaState(state), guards, registers, events, position)
  }

  /** The transitions of NFA state `state` that `symbol`, computed last by [[symbolAt]], enables. */
  def enabled(state: Int, symbol: Int): Array[Transition] = {
    var moves = enabledMoves.get(state, symbol)
    if (moves == null) {
      moves = cea.nfa.transitions(state).filter(_.enabledBy(bits)).toArray
      enabledMoves.put(state, symbol, moves)
    }
    moves
  }

  private def symbolWith(carried: Carried, guards: Array[Long], registers: Registers, events: EventRing[E],
      position: Long): Int = {
    java.util.Arrays.fill(bits, 0L)
    System.arraycopy(guards, 0, bits, 0, guards.length)
    var i = 0
    while (i < carried.checks.length) {
      val (check, carriers) = carried.checks(i)
      if (carriers.exists { case (g, negated) => g < 0 || SymbolTable.has(guards, g) != negated } &&
        holds(prepared(check), registers, events, position)) SymbolTable.set(bits, program.guards + check)
      i += 1
    }
    i = 0
    while (i < carried.judgements.length) {
      val judgement = carried.judgements(i)
      if (judged(judgement, guards, registers, events, position)) SymbolTable.set(bits, judgement.bit)
      i += 1
    }
    symbols.intern(bits)
  }

  /** The registers after reading the event at `position` with `label`. */
  def after(label: Int, registers: Registers, position: Long, events: EventRing[E]): Registers =
    registers.after(program.actions(label), position, updating.at(events, position), Phase.All)

  /** What the event at one position does to accumulators and hardest events: one instance, pointed at each in turn. */
  private final class Updating extends Registers.Updates {
    private var events: EventRing[E] = _
    private var position = 0L
    def at(events: EventRing[E], position: Long): Updating = { this.events = events; this.position = position; this }

    def accumulate(i: Int, state: AnyRef): AnyRef = {
      val (condition, slot) = program.accumulators(i)
      val aggregation = aggregations(i)
      aggregation.update(if (state == null) aggregation.zero else state,
        if (aggregation.readsValue) reader.argument(condition, slot, events(position)) else null)
    }

    /** The harder of the event and the one held; each comparison is one of [[Work.conditionChecks]]. */
    def harder(h: Hardest, held: Long): Long =
      if (held == Registers.Empty) position
      else if (held == Registers.Unsatisfiable) held
      else {
        work.conditionChecks += 1
        val order = reader.compareHardness(h.condition, h.side, events(position), events(held))
        if (order == EventReader.Unordered) Registers.Unsatisfiable else if (order > 0) position else held
      }

    /**
     * The easier of the event and the one held, on a tie the one held; each comparison is one of
     * [[Work.conditionChecks]]. Values the comparison cannot order (a string against a number, which a column of
     * Spark's never holds) keep the one held.
     */
    def easier(e: Hardest, held: Long): Long =
      if (held == Registers.Empty) position
      else {
        work.conditionChecks += 1
        val order = reader.compareHardness(e.condition, e.side, events(position), events(held))
        if (order != EventReader.Unordered && order < 0) position else held
      }
  }
  private val updating = new Updating

  def saveAccumulator(i: Int, state: AnyRef, out: java.io.DataOutput): Unit = aggregations(i).write(state, out)
  def loadAccumulator(i: Int, in: java.io.DataInput): AnyRef = aggregations(i).read(in)

  /** A check made ready to evaluate: its sources as arrays, and the arrays its evaluation fills, kept for reuse. */
  private final class Prepared(val check: Check) {
    val sources: Array[Source] = check.sources.toArray
    val slotSources: Array[SlotSource] = check.slots.toArray
    val actions: Actions = program.actions(check.label)
    val needsCurrent: Boolean = sources.exists(s => s == Source.Current || s.isInstanceOf[Source.CurrentOrList])
    val choice = new Array[AnyRef](sources.length)
    val slots = new Array[Any](slotSources.length)
  }
  private val prepared = program.checks.map(new Prepared(_)).toArray

  /** A NONE's judgement made ready: its guards and its checks as arrays. */
  private final class PreparedJudgement(judgement: Judgement) {
    val bit: Int = judgement.bit
    val guards: Array[Int] = judgement.guards.toArray
    val checks: Array[Prepared] = judgement.checks.map(new Prepared(_)).toArray
  }
  private val judgements = program.judgements.map(new PreparedJudgement(_))

  /**
   * Whether the event is one a NONE excludes for this run: it passes one of the NONE's guards and every check of its
   * conditions against the run's registers. Loops, not closures: this runs per run and event while a run waits in the
   * NONE's gap.
   */
  private def judged(judgement: PreparedJudgement, guards: Array[Long], registers: Registers, events: EventRing[E],
      position: Long): Boolean = {
    var g = 0
    while (g < judgement.guards.length && !SymbolTable.has(guards, judgement.guards(g))) g += 1
    var c = 0
    while (g < judgement.guards.length && c < judgement.checks.length &&
      holds(judgement.checks(c), registers, events, position)) c += 1
    g < judgement.guards.length && c == judgement.checks.length
  }

  /**
   * What the transitions leaving some NFA states carry: their checks, each with the guards (guard, negated) of the
   * transitions carrying it, and the judgements their skips exclude.
   */
  private final class Carried(val checks: Array[(Int, Array[(Int, Boolean)])], val judgements: Array[PreparedJudgement])

  /**
   * Whether a check holds: its condition for every combination of the events its variables take (vacuously when a
   * variable has none yet: that combination is checked when its last event arrives).
   */
  private def holds(check: Prepared, registers: Registers, events: EventRing[E], position: Long): Boolean = {
    val regs = registers.after(check.actions, position, updating.at(events, position), check.check.phase)
    if (waiting(check, regs)) return true
    var k = 0
    while (k < check.slots.length) {
      check.slotSources(k) match {
        case SlotSource.Previous(r) =>
          if (regs.singles(r) < 0) return true // no previous event: nothing to check yet
          check.slots(k) = reader.argument(check.check.condition, k, events(regs.singles(r)))
        case SlotSource.Aggregate(a) =>
          val state = regs.accumulators(a)
          check.slots(k) = aggregations(a).result(if (state == null) aggregations(a).zero else state)
      }
      k += 1
    }
    combinations(check, 0, usedCurrent = false, regs, events, position)
  }

  /** Whether a variable of the check has no event yet: its combinations are checked when their last event arrives. */
  private def waiting(check: Prepared, regs: Registers): Boolean = {
    var i = 0
    while (i < check.sources.length) {
      check.sources(i) match {
        case Source.Single(r) if regs.singles(r) == Registers.Empty => return true
        case Source.Each(l) if regs.lists(l) == null => return true
        case _ =>
      }
      i += 1
    }
    false
  }

  /** Whether the condition holds for every choice of events from source `i` on, those before it chosen. */
  private def combinations(check: Prepared, i: Int, usedCurrent: Boolean, regs: Registers, events: EventRing[E],
      position: Long): Boolean =
    // A combination of events bound earlier only was checked when its last event arrived.
    if (i == check.sources.length)
      (check.needsCurrent && !usedCurrent) || {
        work.conditionChecks += 1; reader.holds(check.check.condition, check.choice, check.slots)
      }
    else check.sources(i) match {
      case Source.Current =>
        check.choice(i) = events(position)
        combinations(check, i + 1, usedCurrent = true, regs, events, position)
      case Source.CurrentOrList(l) =>
        check.choice(i) = events(position)
        combinations(check, i + 1, usedCurrent = true, regs, events, position) &&
        everyOf(check, i, regs.lists(l), usedCurrent, regs, events, position)
      case Source.Single(r) =>
        regs.singles(r) != Registers.Unsatisfiable && {
          check.choice(i) = events(regs.singles(r))
          combinations(check, i + 1, usedCurrent, regs, events, position)
        }
      case Source.Each(l) => everyOf(check, i, regs.lists(l), usedCurrent, regs, events, position)
    }

  /** Whether the combinations hold with each event of `list` as the choice of source `i`. */
  private def everyOf(check: Prepared, i: Int, list: PositionList, usedCurrent: Boolean, regs: Registers,
      events: EventRing[E], position: Long): Boolean = {
    var l = list
    while (l != null) {
      check.choice(i) = events(l.head)
      if (!combinations(check, i + 1, usedCurrent, regs, events, position)) return false
      l = l.tail
    }
    true
  }

  private def carriedAt(state: Int): Carried = {
    while (carriedByState.length <= state) carriedByState += null
    if (carriedByState(state) == null) carriedByState(state) = carriedBy(cea.keyOf(state).toSeq)
    carriedByState(state)
  }

  /** What the transitions leaving NFA states `states` carry. */
  private def carriedBy(states: Seq[Int]): Carried = {
    val transitions = states.flatMap(cea.nfa.transitions(_))
    val carriers = for (t <- transitions; c <- t.checks) yield (c - program.guards) -> (t.guard -> t.negated)
    new Carried(
      carriers.groupBy(_._1).toArray.sortBy(_._1).map { case (c, ts) => c -> ts.map(_._2).distinct.toArray },
      judgements.filter(j => transitions.exists(_.excludes.contains(j.bit))).toArray
    )
  }
}

object RegisterMachine {
  /** What to write instead of conditions whose registers keep a value per subset of a repeating variable's events. */
  val remedies: String = "A condition that relates each event of a repeating variable to another event keeps only " +
    "the hardest of them when it is an order comparison one side of which reads that variable alone (b.price < " +
    "s.price rather than b.price - s.price < 0); an aggregate of fewer values keeps fewer runs (max, min or count " +
    "rather than sum or avg)"
}
