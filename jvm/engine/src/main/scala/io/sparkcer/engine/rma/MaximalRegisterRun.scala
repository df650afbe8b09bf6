package io.sparkcer.engine.rma

import java.io.{DataInput, DataOutput}

import scala.collection.mutable

import io.sparkcer.engine.automaton.{Nfa, Transition}
import io.sparkcer.engine.eval.{EventRing, Run, Work}
import io.sparkcer.engine.eval.MatchSink
import io.sparkcer.engine.tecs.{Enumerator, RunSlots, Tecs, UnionList}

/**
 * MAX with conditions relating events, for one partition: the MAX construction of the CEL paper as
 * [[io.sparkcer.engine.automaton.MaxCea]] extends it (S, E, T), over RMA configurations (NFA state, registers) rather
 * than NFA states. A run is a triple of sets of configurations: S those of its own partial matches, E those of runs
 * that mark exactly its events (with other labels or starts), T those of runs that mark a strict superset of them;
 * it is reported where S holds a final configuration and T none. Runs with the same triple share a union-list, as
 * CORE's deterministic states do; since registers take values from the events, the moves are computed per event
 * (each configuration's symbol once, shared by the runs that hold it) rather than cached.
 *
 * MAX chooses before the window applies, so T keeps the configurations of larger runs that started before the window
 * (a larger match the window drops still hides the smaller one), and the pre-start run those of every run begun:
 * they grow with the stream. The partition's [[EventRing]] keeps the events their registers name after the window
 * lets them go, as for NEXT and LAST ([[RankedRegisterRun]]), and they count against the bound on a partition's
 * partial matches.
 *
 * @param work counts each configuration of each run moved with each move, and the configurations visited to find
 *             the events still named (the machine counts the checks)
 */
final class MaximalRegisterRun[E <: AnyRef](machine: RegisterMachine[E], events: EventRing[E], enumerator: Enumerator,
    work: Work)
    extends Run {
  import MaximalRegisterRun._

  private val nfa = machine.cea.nfa
  private val tecs = new Tecs(work, maxNodes = machine.bound.nodes)
  def liveNodes: Int = tecs.liveNodes
  def maxOutputDepth: Int = tecs.maxOutputDepth
  private val initial = new RunKey(Nfa.Initial, machine.empty)
  private var preStart = Triple(Set(initial), Set.empty, Set.empty)
  private var current = new Runs
  private var next = new Runs
  private var sweepAt = RankedRegisterRun.MinSweep
  events.keepExpired()

  def activeStates: Int = current.count

  def read(position: Long, symbol: Int, bits: Array[Long], key: Long, threshold: Long, sink: MatchSink): Int = {
    tecs.reclaim(threshold)
    tecs.beginEvent(key)
    next.reset()
    coverings.clear()
    val step = new Step(bits, position)

    val begin = step.moves(preStart)
    if (!begin.isEmpty) execTrans(begin, -1, tecs.newBottom(position, key), key, position, threshold)
    preStart = begin.nextPreStart.get

    var i = 0
    while (i < current.count) {
      val partial = current.lists(i)
      partial.expire(threshold)
      if (!partial.isEmpty) {
        work.transitions += partial.length
        execTrans(step.moves(current.triples(i)), i, -1, partial.maxStart, position, threshold)
      }
      i += 1
    }

    val kept = preStart.size + next.configurations
    if (kept > machine.bound.nodes) throw machine.tooManyKept(events(position), "MAX", kept)
    val swap = current; current = next; next = swap
    if (events.keptCount > sweepAt) sweep()
    if (sink == null) 0 else current.enumerateFinal(current.isFinal, tecs, enumerator, threshold, sink)
  }

  /** CORE's ExecTrans, as [[io.sparkcer.engine.tecs.CeaRun]] does it, onto the runs found by triple. */
  private def execTrans(moves: Moves, slot: Int, bottom: Int, maxStart: Long, position: Long,
      threshold: Long): Unit = {
    work.transitions += 1 + moves.marks.length
    if (slot >= 0 && moves.marks.exists(m => machine.addsToMatch(m._1))) current.merged(slot, tecs, threshold)
    moves.unmarked.foreach(target => current.addTo(next.list(target), slot, bottom, maxStart, tecs, threshold))
    for ((label, target) <- moves.marks)
      if (machine.addsToMatch(label))
        next.list(target).insert(tecs, tecs.extend(current.node(slot, bottom, tecs, threshold), position, label),
          maxStart, threshold)
      else current.addTo(next.list(target), slot, bottom, maxStart, tecs, threshold)
  }

  /**
   * The moves of one event, each configuration's enabled transitions and registers after them computed once and
   * shared by every run that holds it. The sets follow [[io.sparkcer.engine.automaton.MaxCea]]'s construction.
   */
  private final class Step(bits: Array[Long], position: Long) {
    private val enabledOf = mutable.HashMap.empty[RunKey, Array[Transition]]

    private def enabled(c: RunKey): Array[Transition] = enabledOf.getOrElseUpdate(c, {
        work.transitions += 1
        machine.enabled(c.state, machine.symbolAt(c.state, bits, c.registers, events, position))
      })

    private def markedBy(from: Set[RunKey])(take: Transition => Boolean): Set[RunKey] =
      for (c <- from; t <- enabled(c) if t.marks && take(t))
        yield new RunKey(t.target, machine.after(t.label, c.registers, position, events))
    private def marked(from: Set[RunKey]): Set[RunKey] = markedBy(from)(_ => true)
    private def skipped(from: Set[RunKey]): Set[RunKey] =
      for (c <- from; t <- enabled(c) if !t.marks) yield new RunKey(t.target, c.registers)

    def moves(triple: Triple): Moves = {
      val Triple(s, e, t) = triple
      // This run marks the event with label l: runs that mark it too stay equal, those that skip it drop out.
      val largerIfMarked = marked(t)
      val labels = s.toSeq.flatMap(c => enabled(c).filter(_.marks).map(_.label)).distinct.sorted
      val marks = labels.flatMap { l =>
        val same = markedBy(s)(_.label == l)
        val equal = marked(e) ++ markedBy(s)(_.label != l)
        Triple.of(same, equal, largerIfMarked, covers).map(l -> _)
      }
      // This run skips the event: runs of E or S that mark it become strictly larger.
      val largerIfSkipped = marked(t) ++ skipped(t) ++ marked(s) ++ marked(e)
      val equalIfSkipped = skipped(e)
      val continuing = skipped(s)
      if (s.contains(initial)) {
        val started = continuing - initial
        new Moves(Triple.of(started, equalIfSkipped + initial, largerIfSkipped, covers), marks,
          Triple.of(Set(initial), equalIfSkipped ++ started, largerIfSkipped, covers))
      } else new Moves(Triple.of(continuing, equalIfSkipped, largerIfSkipped, covers), marks, None)
    }
  }

  /**
   * Whether configuration `y` covers `x` ([[Triple.of]]), where the dominance compares more than equality; each pair
   * compared once per event, as the runs of an event share their configurations.
   */
  private val covers: Option[Covering] = Option.when(machine.dominance.compares)(
    new Covering(
      c => (c.state, machine.dominance.alike(c.registers)),
      (y, x) =>
        y == x || coverings.computeIfAbsent((y, x),
          _ => java.lang.Boolean.valueOf(machine.noHarder(y.registers, x.registers, events))).booleanValue
    ))
  /** The pairs compared at this event. */
  private val coverings = new java.util.HashMap[(RunKey, RunKey), java.lang.Boolean]

  /** Tells the partition's events which positions the registers still name; amortized over the events kept since. */
  private def sweep(): Unit = {
    val named = new java.util.HashSet[java.lang.Long]
    def name(c: RunKey): Unit = {
      c.registers.singles.foreach(p => if (p >= 0) named.add(p))
      c.registers.lists.foreach { l =>
        var rest = l
        while (rest != null) { named.add(rest.head); rest = rest.tail }
      }
    }
    preStart.all.foreach(name)
    for (i <- 0 until current.count) current.triples(i).all.foreach(name)
    work.transitions += preStart.size + current.configurations
    events.keepOnly(named)
    sweepAt = math.max(RankedRegisterRun.MinSweep, 2 * events.keptCount)
  }

  def expire(threshold: Long): Unit = {
    tecs.reclaim(threshold)
    current.expire(threshold)
  }

  def save(out: DataOutput): Unit = {
    tecs.save(out)
    write(out, preStart)
    val live = (0 until current.count).filterNot(current.lists(_).isEmpty)
    out.writeInt(live.length)
    live.foreach { i => write(out, current.triples(i)); current.lists(i).save(out) }
  }

  def load(in: DataInput): Unit = {
    tecs.load(in)
    preStart = read(in)
    current.reset()
    for (_ <- 0 until in.readInt()) current.list(read(in)).load(in)
  }

  private def write(out: DataOutput, triple: Triple): Unit =
    Seq(triple.s, triple.e, triple.t).foreach { set =>
      out.writeInt(set.size)
      set.foreach { c => out.writeInt(c.state); c.registers.save(out, machine.saveAccumulator) }
    }

  private def read(in: DataInput): Triple = {
    def set() = Seq.fill(in.readInt()) {
      val state = in.readInt()
      require(state < nfa.stateCount,
        s"the saved run is in automaton state $state, this query's automaton has " +
          s"${nfa.stateCount}: the query changed")
      new RunKey(state, Registers.load(machine.program, in, machine.loadAccumulator))
    }.toSet
    val (s, e, t) = (set(), set(), set())
    Triple(s, e, t)
  }

  /** The runs after one event, in the order they were first reached, found by triple. */
  private final class Runs extends RunSlots {
    var triples = new Array[Triple](8)
    private var finals = new Array[Boolean](8)
    private val slots = new java.util.HashMap[Triple, Integer]()
    /** The configurations the runs hold, summed over their triples. */
    var configurations = 0

    override protected def grown(capacity: Int): Unit = {
      triples = java.util.Arrays.copyOf(triples, capacity)
      finals = java.util.Arrays.copyOf(finals, capacity)
    }

    val isFinal: Int => Boolean = i => finals(i)

    def reset(): Unit = { count = 0; configurations = 0; slots.clear() }

    def list(triple: Triple): UnionList = {
      val slot = slots.get(triple)
      if (slot != null) lists(slot)
      else {
        val i = addSlot(count)
        triples(i) = triple
        finals(i) = triple.s.exists(c => nfa.finals(c.state)) && !triple.t.exists(c => nfa.finals(c.state))
        configurations += triple.size
        slots.put(triple, i)
        lists(i)
      }
    }
  }
}

private object MaximalRegisterRun {
  /** A run's configurations: its own (S), those of runs marking the same events (E), those of larger runs (T). */
  final case class Triple(s: Set[RunKey], e: Set[RunKey], t: Set[RunKey]) {
    override val hashCode: Int = scala.util.hashing.MurmurHash3.productHash(this)
    def size: Int = s.size + e.size + t.size
    def all: Iterator[RunKey] = s.iterator ++ e.iterator ++ t.iterator
  }

  object Triple {
    /**
     * A run at a configuration that a strictly larger run covers is dominated for good (every continuation of it is
     * open to the larger run), so it is dropped; likewise a configuration another of its set covers, and one of E
     * that S or T covers. `covers(y, x)`: y is x, or in x's state with registers that make every condition ahead at
     * least as easy ([[Dominance]]): then every continuation of x is one of y, with the same events and labels. So
     * what S, E and T are for is unchanged: whether S or T reaches a final state, and which configurations a mark
     * or a skip moves into T, are decided by the configurations that cover the others. What they keep of the runs
     * begun is an antichain per state, which the window, not the stream, bounds.
     */
    def of(s: Set[RunKey], e: Set[RunKey], t: Set[RunKey], covers: Option[Covering]): Option[Triple] =
      covers match {
        case None => // only equal configurations cover each other
          val own = s -- t
          if (own.isEmpty) None else Some(Triple(own, e -- own -- t, t))
        case Some(covering) =>
          val larger = covering.antichain(t)
          val byLarger = covering.coveredBy(larger)
          val own = covering.antichain(s.filterNot(byLarger))
          if (own.isEmpty) None
          else {
            val byOwn = covering.coveredBy(own)
            Some(Triple(own, covering.antichain(e.filterNot(c => byOwn(c) || byLarger(c))), larger))
          }
      }
  }

  /**
   * When one configuration covers another ([[Triple.of]]): `covers(y, x)`, for configurations in one state whose
   * registers are alike where they must be (`key`); only those are compared.
   */
  final class Covering(key: RunKey => AnyRef, covers: (RunKey, RunKey) => Boolean) {
    /** The configurations of `set` that no other covers (of those that cover each other, one). */
    def antichain(set: Set[RunKey]): Set[RunKey] =
      if (set.size < 2) set
      else set.groupBy(key).valuesIterator.flatMap { same =>
        if (same.size < 2) same
        else same.foldLeft(List.empty[RunKey]) { (kept, c) =>
          if (kept.exists(covers(_, c))) kept else c :: kept.filterNot(covers(c, _))
        }
      }.toSet

    /** Whether a configuration of `set` covers `x`. */
    def coveredBy(set: Set[RunKey]): RunKey => Boolean =
      if (set.isEmpty) _ => false
      else {
        val byKey = set.groupBy(key)
        x => set.contains(x) || byKey.get(key(x)).exists(_.exists(covers(_, x)))
      }
  }

  /** What one event does to a run: the run it skips into, those it marks into by label, and the pre-start's next. */
  final class Moves(val unmarked: Option[Triple], val marks: Seq[(Int, Triple)], val nextPreStart: Option[Triple]) {
    def isEmpty: Boolean = unmarked.isEmpty && marks.isEmpty
  }
}
