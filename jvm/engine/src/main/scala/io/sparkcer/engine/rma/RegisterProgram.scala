package io.sparkcer.engine.rma

/**
 * What the registers of a run hold and how transitions change and read them: the register part of a register match
 * automaton (RMA paper, Def. 4.1 and 4.2), for the automaton [[Placement]] builds.
 *
 * A run's registers ([[Registers]]) are of three kinds: single registers (one event, by its position: a variable's
 * event, the one before the current (`prev`), or the [[Hardest]] of a repeating variable's events), lists (every
 * event a repeating variable bound in the current instance of a scope) and accumulators (an aggregate's running
 * value). A transition's label carries its [[Actions]] (RMA's write set R, plus resets and accumulation); its checks
 * read the registers and the current event (RMA's register selection rs) and evaluate a condition.
 *
 * Runs are one per automaton state and register contents (RMA's configurations), so they grow as the registers'
 * contents can differ: a single register holds one of the window's n events, an accumulator of count, min, max,
 * first or last one of about n values; but a list that may take several events holds one of up to 2^n subsets, and
 * so may a sum or an average (the sums of subsets can all differ). [[perSubset]] names those.
 *
 * @param singles      how many single registers a run has
 * @param lists        how many list registers
 * @param accumulators per accumulator, the condition and the slot of the aggregate it computes
 * @param actions      per label of the automaton, what reading an event with it does to the registers
 * @param checks       per check (bit `guards + k` of a symbol), what it evaluates
 * @param perSubset    the registers that may hold a value per subset of a repeating variable's events in the window,
 *                     each as the condition that needs it and what it keeps ([[RunGrowth]])
 * @param judgements   the NONEs judged against the registers, their bits after the checks', and the events that the
 *                     waits before and after an unselected variable's chosen take pass by no more ([[ExistentialTakes]])
 * @param existential  the labels of those takes and of their challenges: runs they keep apart repeat no row
 */
final class RegisterProgram(
    val singles: Int,
    val lists: Int,
    val accumulators: IndexedSeq[(Int, Int)],
    val actions: IndexedSeq[Actions],
    val checks: IndexedSeq[Check],
    val guards: Int,
    val perSubset: Seq[String],
    val judgements: IndexedSeq[Judgement] = IndexedSeq.empty,
    val existential: Set[Int] = Set.empty) {
  /** The symbol's words: the guards' bits, then the checks', then the judgements'. */
  val words: Int = math.max(1, (guards + checks.length + judgements.length + 63) >>> 6)

  /** The NONEs' judgements, without those of chosen takes. */
  def nones: IndexedSeq[Judgement] = judgements.filterNot(_.ofTake)

  /** How many registers a run has, of every kind. */
  def registers: Int = singles + lists + accumulators.length

  /** How the runs grow with the window, for EXPLAIN and for the errors at the bounds. */
  def growth: String =
    if (perSubset.isEmpty) "runs polynomial in the window, each register holding one of its events or values"
    else s"runs up to 2^n over the window's n events, as ${perSubset.mkString(" and ")}"
}

/**
 * A NONE(...) whose conditions relate its event to events bound before it, judged as a run waits between its
 * neighbours: bit `bit` of the run's symbol is set when the event passes one of `guards` (the NONE's types, with the
 * tests of its event alone) and every one of `checks` holds against the run's registers, the event as the NONE's
 * ([[Source.Current]]). The skips of the gap exclude the bit, so the run cannot wait past such an event, exactly as the
 * lazy chain rejects a combination with one between its neighbours. A condition that holds vacuously (a variable that
 * the match left unbound, in an alternative of an OR) makes every such event excluded, as CEL's semantics reads it.
 * `ofTake`: not a NONE's, but the events an unselected variable's chosen take reads, which the waits around it pass
 * by no more ([[ExistentialTakes]]).
 */
final case class Judgement(bit: Int, guards: Seq[Int], checks: Seq[Check], ofTake: Boolean = false)

/**
 * A single register that stands for every event a repeating variable bound, in a condition that is an order
 * comparison one side of which reads that variable's events alone ([[io.sparkcer.engine.analysis.OrderComparison]]):
 * the condition holds for every one of those events exactly when it holds for the one whose side is hardest to
 * satisfy (`(A AS a)+ ; C AS c FILTER a.v <= c.v + 10`: the a of largest v), so the register keeps that one, and
 * runs split per hardest event instead of per subset of the events. Each event bound to the variable challenges the
 * one held ([[io.sparkcer.engine.eval.EventReader.compareHardness]]): the harder stays, on a tie the one held. Values
 * that the comparison cannot order against each other (strings against numbers, in the engine's interpreter) leave
 * nothing that satisfies the condition: the register is then [[Registers.Unsatisfiable]].
 *
 * @param side the side of the comparison (0: left, 1: right) that reads the variable's events
 */
final case class Hardest(register: Int, condition: Int, side: Int)

/**
 * What reading an event with one label does to a run's registers, in three steps: the scopes the transition enters
 * afresh are reset (before its checks read the registers), then the event is written to single registers, appended
 * to lists, added to accumulators and offered to [[Hardest]] registers, and last the registers that no check ahead
 * reads any more are dropped (so that runs that differ only in them become one, and their events can go).
 *
 * @param accumulate  the accumulators the event is added to (the argument of their slot, on the event)
 * @param keepHardest the hardest-event registers the event challenges
 * @param keepEasiest the registers of an unselected variable's event that the event challenges, the easier staying
 *                    ([[ExistentialTakes]])
 */
final case class Actions(reset: RegisterSet, write: Seq[Int], append: Seq[Int], accumulate: Seq[Int],
    keepHardest: Seq[Hardest], drop: RegisterSet, keepEasiest: Seq[Hardest] = Nil) {
  val isEmpty: Boolean = reset.isEmpty && write.isEmpty && append.isEmpty && accumulate.isEmpty &&
    keepHardest.isEmpty && drop.isEmpty && keepEasiest.isEmpty

  /**
   * Whether the actions only make the conditions ahead harder to satisfy, never easier, and add nothing else: they
   * append to lists and challenge hardest events (every condition must hold for each event of a list, and for the
   * hardest), and drop what nothing ahead reads; they reset, write and accumulate nothing.
   */
  def onlyConstrain: Boolean = reset.isEmpty && write.isEmpty && accumulate.isEmpty && keepEasiest.isEmpty

  /** Whether the actions add the event to one of `registers`: append it to a list, or challenge a hardest event. */
  def adds(registers: RegisterSet): Boolean =
    append.exists(registers.lists.contains) || keepHardest.exists(h => registers.singles.contains(h.register))

  // As arrays, for the loops of Registers.after, which every run takes at every event.
  private[rma] val writes: Array[Int] = write.toArray
  private[rma] val appends: Array[Int] = append.toArray
  private[rma] val accumulates: Array[Int] = accumulate.toArray
  private[rma] val challenges: Array[Hardest] = keepHardest.toArray
  private[rma] val easiest: Array[Hardest] = keepEasiest.toArray
}

object Actions {
  val None: Actions = Actions(RegisterSet.None, Nil, Nil, Nil, Nil, RegisterSet.None)
}

/** Some registers of each kind. */
final case class RegisterSet(singles: Seq[Int], lists: Seq[Int], accumulators: Seq[Int]) {
  val isEmpty: Boolean = singles.isEmpty && lists.isEmpty && accumulators.isEmpty
  private[rma] val singleArray: Array[Int] = singles.toArray
  private[rma] val listArray: Array[Int] = lists.toArray
  private[rma] val accumulatorArray: Array[Int] = accumulators.toArray
  def ++(other: RegisterSet): RegisterSet = RegisterSet((singles ++ other.singles).distinct.sorted,
    (lists ++ other.lists).distinct.sorted, (accumulators ++ other.accumulators).distinct.sorted)
  def --(other: RegisterSet): RegisterSet = RegisterSet(singles.filterNot(other.singles.contains),
    lists.filterNot(other.lists.contains), accumulators.filterNot(other.accumulators.contains))
}

object RegisterSet {
  val None: RegisterSet = RegisterSet(Nil, Nil, Nil)
}

/**
 * How far a transition's [[Actions]] are applied before a check reads the registers: not at all (a scope being left is
 * checked as it was), after the resets (a condition checked as its variable is bound, in a scope just entered), or
 * after the writes (an aggregate checked as the match ends, the last event included).
 */
sealed trait Phase
object Phase {
  case object Before extends Phase
  case object Reset extends Phase
  case object Write extends Phase
  case object All extends Phase
}

/** Where a check finds the event of one of its condition's variables. */
sealed trait Source
object Source {
  /** The event being read. */
  case object Current extends Source
  /** The event being read, or (when another variable takes the current event) one of a list's events. */
  final case class CurrentOrList(list: Int) extends Source
  /**
   * The event of a single register: the variable's one event, or the [[Hardest]] of its events. None yet: the
   * condition has nothing to check; [[Registers.Unsatisfiable]]: it fails.
   */
  final case class Single(register: Int) extends Source
  /** Each event of a list register, in turn (the condition must hold for every one). */
  final case class Each(list: Int) extends Source
}

/** Where a check finds the value of one of its condition's slots. */
sealed trait SlotSource
object SlotSource {
  /** `prev(b.attr)`: the slot's argument on the event of a single register (the previous b); none: nothing to check. */
  final case class Previous(register: Int) extends SlotSource
  /** An aggregate: the accumulator's value. */
  final case class Aggregate(accumulator: Int) extends SlotSource
}

/**
 * One condition placed on transitions (RMA's last-bound placement, made dynamic: it is checked whenever an event is
 * bound to one of its variables, against every combination of the events already bound to the others; so each
 * combination is checked once, when its last event arrives). Aggregates are checked when their scope is left.
 *
 * @param label the label of the transitions it sits on, whose actions apply up to `phase` before the check
 */
final case class Check(condition: Int, sources: Seq[Source], slots: Seq[SlotSource], label: Int,
    phase: Phase) {
  /** The registers it reads. */
  def reads: RegisterSet = RegisterSet(
    (sources.collect { case Source.Single(r) => r } ++ slots.collect { case SlotSource.Previous(r) =>
      r
    }).distinct.sorted,
    sources.collect { case Source.Each(l) => l; case Source.CurrentOrList(l) => l }.distinct.sorted,
    slots.collect { case SlotSource.Aggregate(a) => a }.distinct.sorted
  )
}

object Liveness {
  /**
   * The registers live at each of `states` states: those `reads` names there (a state and what is read in it), and
   * those live where one of `edges` (from, to) leads. A least fixpoint.
   */
  def of(states: Int, reads: Seq[(Int, RegisterSet)], edges: Seq[(Int, Int)]): IndexedSeq[RegisterSet] = {
    val live = Array.fill(states)(RegisterSet.None)
    for ((q, registers) <- reads) live(q) = live(q) ++ registers
    var changed = true
    while (changed) {
      changed = false
      for ((q, target) <- edges) {
        val more = live(q) ++ live(target)
        if (more != live(q)) { live(q) = more; changed = true }
      }
    }
    live.toIndexedSeq
  }
}
