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
    work: Work) extends Run {
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
        Triple.of(same, equal, largerIfMarked).map(l -> _)
      }
      // This run skips the event: runs of E or S that mark it become strictly larger.
      val largerIfSkipped = marked(t) ++ skipped(t) ++ marked(s) ++ marked(e)
      val equalIfSkipped = skipped(e)
      val continuing = skipped(s)
      if (s.contains(initial)) {
        val started = continuing - initial
        new Moves(Triple.of(started, equalIfSkipped + initial, largerIfSkipped), marks,
          Triple.of(Set(initial), equalIfSkipped ++ started, largerIfSkipped))
      } else new Moves(Triple.of(continuing, equalIfSkipped, largerIfSkipped), marks, None)
    }
  }

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
      require(state < nfa.stateCount, s"the saved run is in automaton state $state, this query's automaton has " +
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
     * A run at a configuration that a strictly larger run also holds is dominated for good (every continuation of it
     * is open to the larger run), so it is dropped; likewise E need not repeat what S or T already hold.
     */
    def of(s: Set[RunKey], e: Set[RunKey], t: Set[RunKey]): Option[Triple] = {
      val own = s -- t
      if (own.isEmpty) None else Some(Triple(own, e -- own -- t, t))
    }
  }

  /** What one event does to a run: the run it skips into, those it marks into by label, and the pre-start's next. */
  final class Moves(val unmarked: Option[Triple], val marks: Seq[(Int, Triple)], val nextPreStart: Option[Triple]) {
    def isEmpty: Boolean = unmarked.isEmpty && marks.isEmpty
  }
}
