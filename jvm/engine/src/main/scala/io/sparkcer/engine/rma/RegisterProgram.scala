package io.sparkcer.engine.rma

/**
 * What the registers of a run hold and how transitions change and read them: the register part of a register match
 * automaton (RMA paper, Def. 4.1 and 4.2), for the automaton [[Placement]] builds.
 *
 * A run's registers ([[Registers]]) are of three kinds: single registers (one event, by its position), lists (every
 * event a repeating variable bound in the current instance of a scope) and accumulators (an aggregate's running
 * value). A transition's label carries its [[Actions]] (RMA's write set R, plus resets and accumulation); its checks
 * read the registers and the current event (RMA's register selection rs) and evaluate a condition.
 *
 * @param singles      how many single registers a run has
 * @param lists        how many list registers
 * @param accumulators per accumulator, the condition and the slot of the aggregate it computes
 * @param actions      per label of the automaton, what reading an event with it does to the registers
 * @param checks       per check (bit `guards + k` of a symbol), what it evaluates
 */
final class RegisterProgram(
    val singles: Int,
    val lists: Int,
    val accumulators: IndexedSeq[(Int, Int)],
    val actions: IndexedSeq[Actions],
    val checks: IndexedSeq[Check],
    val guards: Int) {
  /** The symbol's words: the guards' bits, then the checks'. */
  val words: Int = math.max(1, (guards + checks.length + 63) >>> 6)
}

/**
 * What reading an event with one label does to a run's registers, in three steps: the scopes the transition enters
 * afresh are reset (before its checks read the registers), then the event is written to single registers, appended
 * to lists and added to accumulators, and last the registers that no check ahead reads any more are dropped (so that
 * runs that differ only in them become one, and their events can go).
 *
 * @param accumulate the accumulators the event is added to (the argument of their slot, on the event)
 */
final case class Actions(reset: RegisterSet, write: Seq[Int], append: Seq[Int], accumulate: Seq[Int], drop: RegisterSet) {
  val isEmpty: Boolean = reset.isEmpty && write.isEmpty && append.isEmpty && accumulate.isEmpty && drop.isEmpty
  // As arrays, for the loops of Registers.after, which every run takes at every event.
  private[rma] val writes: Array[Int] = write.toArray
  private[rma] val appends: Array[Int] = append.toArray
  private[rma] val accumulates: Array[Int] = accumulate.toArray
}

object Actions {
  val None: Actions = Actions(RegisterSet.None, Nil, Nil, Nil, RegisterSet.None)
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
  /** The event of a single register; none yet: the condition has nothing to check. */
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
    phase: Phase)
