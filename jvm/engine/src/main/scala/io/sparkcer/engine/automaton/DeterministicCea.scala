package io.sparkcer.engine.automaton

import scala.collection.mutable

/**
 * What one event does to the runs of one deterministic state p (Δ(p, t, ∘) and Δ(p, t, •) of CORE's Algorithm 1).
 * `unmarked` is the state reached without marking the event (-1: none); from the pre-start state, the state of
 * runs that begin at this event without marking it (a leading NOT, or an event no output variable selects).
 * Marking moves are parallel arrays: label l (0: no selected variable) leads to `markTargets`. `nextPreStart` is
 * where the pre-start state itself goes (-1 from any other state): it changes under MAX, which remembers what the
 * runs not yet started have skipped.
 */
final class Moves(val unmarked: Int, val markLabels: Array[Int], val markTargets: Array[Int], val nextPreStart: Int) {
  /** Whether the event moves no run on: then a run cannot begin at it either. */
  def isEmpty: Boolean = unmarked < 0 && markTargets.length == 0
  /** Whether a marking move adds the event to the match (a label other than 0): the runs' matches are extended. */
  val extending: Boolean = markLabels.exists(_ != 0)
}

/**
 * The I/O-deterministic automaton that CORE's Algorithm 1 runs, built lazily as the stream asks for it (CORE
 * §4.4): a state is interned the first time it is reached and its moves are computed once per symbol, then
 * cached, so the per-event cost is a table lookup per active state. Subclasses define what a state is: a set of
 * NFA states (subset construction) or a pair of sets (the MAX construction of the CEL paper).
 */
abstract class DeterministicCea(val nfa: Nfa) {
  private val ids = mutable.HashMap.empty[StateKey, Int]
  private val keys = mutable.ArrayBuffer.empty[Array[Int]]
  private val finals = mutable.ArrayBuffer.empty[Boolean]
  private val table = new TransitionCache[Moves]

  /** The pre-start state the stream begins in. */
  val initial: Int = intern(initialKey)

  def stateCount: Int = keys.length
  def isFinal(state: Int): Boolean = finals(state)

  /**
   * What a state stands for (its NFA states), and back: state numbers depend on the order the stream reached
   * them in, so a run saved by one task is restored in another through the keys.
   */
  def keyOf(state: Int): Array[Int] = if (state < 0) Array.emptyIntArray else keys(state)
  def stateOf(key: Array[Int]): Int = intern(key)

  /** Writes a state as its key, which [[readState]] reads back in any process. */
  def writeState(out: java.io.DataOutput, state: Int): Unit = {
    val key = keyOf(state)
    out.writeInt(key.length)
    key.foreach(out.writeInt)
  }

  def readState(in: java.io.DataInput): Int = stateOf(Array.fill(in.readInt())(in.readInt()))

  def moves(state: Int, symbol: Int, bits: Array[Long]): Moves = {
    var m = table.get(state, symbol)
    if (m == null) { m = computeMoves(keys(state), bits.clone()); table.put(state, symbol, m) }
    m
  }

  protected def initialKey: Array[Int]
  protected def isFinalKey(key: Array[Int]): Boolean
  protected def computeMoves(key: Array[Int], symbol: Array[Long]): Moves

  /** Interns a state given by its key; -1 for an empty key (no run). */
  protected final def intern(key: Array[Int]): Int =
    if (key.isEmpty) -1
    else
      ids.getOrElseUpdate(new StateKey(key), {
          keys += key
          finals += isFinalKey(key)
          keys.length - 1
        })

  /** The NFA states reached from `from` by transitions enabled by the symbol that satisfy `take`. */
  protected final def step(from: Iterable[Int], symbol: Array[Long])(take: Transition => Boolean): Set[Int] =
    (for {
      q <- from.iterator
      t <- nfa.transitions(q).iterator
      if take(t) && t.enabledBy(symbol)
    } yield t.target).toSet

  protected final def sorted(states: Set[Int]): Array[Int] = states.toArray.sorted

  protected final def labelsMarkedFrom(from: Iterable[Int], symbol: Array[Long]): Seq[Int] =
    from.iterator.flatMap(q => nfa.transitions(q)).filter(t => t.marks && t.enabledBy(symbol)).map(_.label)
      .toSeq.distinct.sorted
}

private final class StateKey(val states: Array[Int]) {
  override val hashCode: Int = java.util.Arrays.hashCode(states)
  override def equals(o: Any): Boolean = o match {
    case k: StateKey => java.util.Arrays.equals(states, k.states)
    case _ => false
  }
}

/**
 * Subset construction (ALL, ANY and STRICT). Runs that differ only in events no selected variable binds are
 * the same output, so an unlabelled mark is folded into the non-marking move: each deterministic run is then one
 * distinct row, which keeps enumeration duplicate-free.
 */
final class SubsetCea(nfa: Nfa) extends DeterministicCea(nfa) {
  protected def initialKey: Array[Int] = Array(Nfa.Initial)
  protected def isFinalKey(key: Array[Int]): Boolean = key.exists(nfa.finals)

  protected def computeMoves(key: Array[Int], symbol: Array[Long]): Moves = {
    val preStart = key.sameElements(initialKey)
    val unlabelled = step(key, symbol)(t => !t.marks || t.label == 0) - Nfa.Initial
    val marks =
      labelsMarkedFrom(key, symbol).filter(_ != 0).map(l => l -> intern(sorted(step(key, symbol)(_.label == l))))
    val onward = intern(sorted(unlabelled))
    new Moves(
      unmarked = onward,
      markLabels = marks.map(_._1).toArray,
      markTargets = marks.map(_._2).toArray,
      nextPreStart = if (preStart) initial else -1)
  }
}

/**
 * The MAX selection: a run is reported only if no other run ending at the same event marks a strict superset of
 * its events. It extends the (S, T) construction of the CEL paper (digest §A5), where S holds the NFA states of
 * the run and T those of runs whose events strictly contain its own, with a third set E: the states of runs that
 * mark exactly the same events but differ in labels or in where they started. The paper's runs all share one
 * start and carry no labels; ours split on both, and a run of E that marks an event this run skips becomes a
 * strict superset, so E is what keeps MAX exact across those splits. The key is S, -1, E, -1, T.
 */
final class MaxCea(nfa: Nfa) extends DeterministicCea(nfa) {
  protected def initialKey: Array[Int] = Array(Nfa.Initial, -1, -1)

  protected def isFinalKey(key: Array[Int]): Boolean = {
    val (s, _, t) = split(key)
    s.exists(nfa.finals) && !t.exists(nfa.finals)
  }

  protected def computeMoves(key: Array[Int], symbol: Array[Long]): Moves = {
    val (s, e, t) = split(key)
    val preStart = s.contains(Nfa.Initial)
    def marked(from: Iterable[Int]) = step(from, symbol)(_.marks)
    def skipped(from: Iterable[Int]) = step(from, symbol)(!_.marks)

    // This run marks the event with label l: runs that mark it too stay equal, those that skip it drop out.
    val largerIfMarked = marked(t)
    val marks = labelsMarkedFrom(s, symbol).flatMap { l =>
      val same = step(s, symbol)(_.label == l)
      val equal = marked(e) ++ step(s, symbol)(x => x.marks && x.label != l)
      val target = intern(triple(same, equal, largerIfMarked))
      if (target < 0) None else Some(l -> target)
    }
    // This run skips the event: runs of E or S that mark it become strictly larger.
    val largerIfSkipped = marked(t) ++ skipped(t) ++ marked(s) ++ marked(e)
    val equalIfSkipped = skipped(e)
    val continuing = skipped(s)
    val (nextPreStart, unmarked) =
      if (preStart) {
        val started = continuing - Nfa.Initial
        (intern(triple(Set(Nfa.Initial), equalIfSkipped ++ started, largerIfSkipped)),
          intern(triple(started, equalIfSkipped + Nfa.Initial, largerIfSkipped)))
      } else (-1, intern(triple(continuing, equalIfSkipped, largerIfSkipped)))
    new Moves(unmarked, marks.map(_._1).toArray, marks.map(_._2).toArray, nextPreStart)
  }

  private def split(key: Array[Int]): (Array[Int], Array[Int], Array[Int]) = {
    val i = key.indexOf(-1)
    val j = key.indexOf(-1, i + 1)
    (key.take(i), key.slice(i + 1, j), key.drop(j + 1))
  }

  /**
   * A run at a state that a strictly larger run also occupies is dominated for good (every continuation of it is
   * open to the larger run), so it is dropped; likewise E need not repeat what S or T already hold.
   */
  private def triple(s: Set[Int], e: Set[Int], t: Set[Int]): Array[Int] = {
    val own = s -- t
    if (own.isEmpty) Array.emptyIntArray
    else (sorted(own) :+ -1) ++ (sorted(e -- own -- t) :+ -1) ++ sorted(t)
  }
}
