package io.sparkcer.engine.rma

import java.io.{DataInput, DataOutput}

import io.sparkcer.engine.automaton.{Nfa, Transition}
import io.sparkcer.engine.eval.{EventRing, Run, Work}
import io.sparkcer.engine.eval.MatchSink
import io.sparkcer.engine.tecs.{Enumerator, Tecs}

/**
 * NEXT and LAST with conditions relating events, for one partition: the CEL paper's Algorithms 5 and 6 (what
 * [[io.sparkcer.engine.priority.PriorityRun]] runs over NFA states) over RMA configurations, an NFA state with its
 * registers. Configurations are kept in priority order, in groups that carry one complex event each, rebuilt per
 * event: for NEXT the marking moves of each group, then its other moves, group after group; for LAST the marking
 * moves of every group before any other move. Registers make a configuration's future depend on more than its state,
 * so one is pruned only where a higher one has the same state and registers that make every condition ahead at least
 * as easy (the same registers, or events no harder to satisfy in an order comparison: [[Dominance]]): then every
 * continuation of the lower is one of the higher, and ≤next and ≤last keep the higher above it under any common
 * extension. At an event the highest configuration in a final state holds the strategy's match, reported if it lies
 * in the window.
 *
 * The strategy chooses before the window applies (CORE's clause order), so a configuration whose match started
 * before the window is kept, without its tECS node, as long as it may still outrank another: its own matches are
 * dropped by the window, and so are the matches it outranks. Its registers still name events by position, so the
 * partition's [[EventRing]] keeps those events after the window lets them go ([[EventRing.keepExpired]]), and is told
 * now and then which ones are still named. Of those, one that another dominates goes whatever the two's ranks, where
 * no configuration of a match in the window ranks between them ([[dropDominatedExpired]]): what is kept of the past is
 * then bounded by the values the registers hold (the events', or an aggregate's), not by the stream, except where a
 * sum or a count keeps runs apart under LAST. They count against the bound on a partition's partial matches
 * ([[io.sparkcer.engine.eval.MatchBound.nodes]]).
 *
 * @param lastFirst LAST's order (else NEXT's)
 * @param events    the partition's events: registers hold positions, and conditions read the events there
 * @param work      counts each configuration moved with each move it tries, and the configurations visited to find
 *                  the events still named (the machine counts the checks)
 */
final class RankedRegisterRun[E <: AnyRef](machine: RegisterMachine[E], lastFirst: Boolean, events: EventRing[E],
    enumerator: Enumerator, work: Work)
    extends Run {
  import RankedRegisterRun._

  private val nfa = machine.cea.nfa
  private val tecs = new Tecs(work, maxNodes = machine.bound.nodes)
  def liveNodes: Int = tecs.liveNodes
  def maxOutputDepth: Int = tecs.maxOutputDepth
  private var current = new Ranking
  private var next = new Ranking
  current.add(Nfa.Initial, machine.empty, NotStarted, 0L, opensGroup = true)
  /** Per configuration of `current`, the transitions the event enables. */
  private var enabled = new Array[Array[Transition]](8)
  /** How many kept events may pile up before the run says which it still names. */
  private var sweepAt = MinSweep
  events.keepExpired()

  def activeStates: Int = current.count

  def read(position: Long, symbol: Int, bits: Array[Long], key: Long, threshold: Long, sink: MatchSink): Int = {
    tecs.reclaim(threshold)
    tecs.beginEvent(key)
    expireNodes(threshold)
    if (enabled.length < current.count) enabled = new Array[Array[Transition]](current.count * 2)
    var i = 0
    while (i < current.count) {
      val q = current.states(i)
      enabled(i) = machine.enabled(q, machine.symbolAt(q, bits, current.registers(i), events, position))
      i += 1
    }
    work.transitions += current.count
    next.reset()
    val step = new Step(position, key)
    if (lastFirst) {
      step.claim(0, current.count, marking = true)
      step.claim(0, current.count, marking = false)
    } else {
      var g = 0
      while (g < current.count) {
        var end = g + 1
        while (end < current.count && !current.opensGroup(end)) end += 1
        step.claim(g, end, marking = true)
        step.claim(g, end, marking = false)
        g = end
      }
    }
    if (machine.dominance.compares) dropDominatedExpired()
    if (next.count > machine.bound.nodes)
      throw machine.tooManyKept(events(position), if (lastFirst) "LAST" else "NEXT", next.count)
    val swap = current; current = next; next = swap
    if (events.keptCount > sweepAt) sweep()
    if (sink == null) 0 else output(threshold, sink)
  }

  /** The moves of one event from `current` into `next`, each tried once. */
  private final class Step(position: Long, key: Long) {
    private var bottom = -1

    /** The moves that mark the event (or not) of the configurations `from` until `until`, as one group per group. */
    def claim(from: Int, until: Int, marking: Boolean): Unit = {
      var opens = true
      var i = from
      while (i < until) {
        if (current.opensGroup(i)) opens = true
        val moves = enabled(i)
        var k = 0
        while (k < moves.length) {
          val t = moves(k)
          if (t.marks == marking) {
            work.transitions += 1
            if (move(i, t, opens)) opens = false
          }
          k += 1
        }
        i += 1
      }
    }

    /**
     * Adds the configuration `t` leads configuration `i` to, unless a higher one holds it, opening a group if `opens`;
     * whether it was added.
     */
    private def move(i: Int, t: Transition, opens: Boolean): Boolean = {
      val registers = current.registers(i)
      val after = if (t.marks) machine.after(t.label, registers, position, events) else registers
      val base = current.nodes(i)
      // A move that changes neither state nor registers (a skip) was checked against every configuration above it
      // when it was made; only those made since, by changing moves, can dominate it now.
      val changed = t.marks || t.target != current.states(i)
      if (next.holds(t.target, after) || dominated(t.target, after, changed)) false
      else {
        val node =
          if (base == Expired) Expired
          else if (current.states(i) == Nfa.Initial && t.target == Nfa.Initial) NotStarted
          else {
            val from =
              if (base != NotStarted) base else { if (bottom < 0) bottom = tecs.newBottom(position, key); bottom }
            if (t.marks && machine.addsToMatch(t.label)) tecs.extend(from, position, t.label) else from
          }
        val start = if (base == NotStarted) key else current.starts(i)
        next.add(t.target, after, node, start, opens, changed)
        true
      }
    }
  }

  /**
   * Whether a configuration already in `next` (so ranked higher) in the same state makes every condition ahead at least
   * as easy ([[Dominance]]): then each continuation of this one is one of that one's, ranked below it, never chosen.
   * Only the configurations made by changing moves are compared with one that did not change (see [[Step]]).
   */
  private def dominated(state: Int, registers: Registers, changed: Boolean): Boolean = machine.dominance.compares && {
    var j = next.first(state, changed)
    while (j >= 0 && !machine.noHarder(next.registers(j), registers, events)) j = next.after(j, changed)
    j >= 0
  }

  /**
   * The configurations whose match started before the window (expired: their own matches are the window's to drop),
   * each dominated ([[Dominance]]) by another expired one in the same state with no configuration of a match in the
   * window ranked between the two, whichever of the two ranks higher. ≤next and ≤last compare two complex events at
   * the latest (LAST) or earliest (NEXT) position where they differ, so a configuration made later, whose events all
   * come later, ranks between the extensions of two kept ones by the same events never: it differs from both first
   * where they agree. Neither can one made now by the same events from a configuration that is not between them. So
   * at any event to come, whenever the dominated one would be the highest configuration in a final state, and no
   * match reported, the one that dominates it is in a final state too, with none reported between: the dominated one
   * decides nothing and goes. Under NEXT every expired configuration ranks above every other (its earliest event is
   * before the window, theirs in it), so what is kept of the past is one antichain of the dominance per state, which
   * the values the registers hold bound, not the stream; under LAST, one per run of expired configurations between
   * two others.
   */
  private def dropDominatedExpired(): Unit = {
    val kept = new java.util.HashMap[(Int, Dominance.Alike), java.util.ArrayList[Integer]]
    val dropped = new Array[Boolean](next.count)
    var any = false
    var i = 0
    while (i < next.count) {
      if (next.nodes(i) >= 0) kept.clear() // a match in the window, ranked between the expired ones above and below
      else if (next.nodes(i) == Expired) {
        val same = kept.computeIfAbsent((next.states(i), machine.dominance.alike(next.registers(i))),
          _ => new java.util.ArrayList[Integer])
        var k = 0
        while (k < same.size && !machine.noHarder(next.registers(same.get(k)), next.registers(i), events)) k += 1
        work.transitions += same.size
        if (k < same.size) { dropped(i) = true; any = true }
        else {
          val it = same.iterator()
          while (it.hasNext) {
            val j: Int = it.next()
            if (machine.noHarder(next.registers(i), next.registers(j), events)) {
              dropped(j) = true; any = true; it.remove()
            }
          }
          same.add(i)
        }
      }
      i += 1
    }
    if (any) next.retain(dropped)
  }

  /**
   * The highest configuration in a final state holds the strategy's match; none is reported when it started before
   * the window (the match the strategy chose is the window's to drop).
   */
  private def output(threshold: Long, sink: MatchSink): Int = {
    var i = 0
    while (i < current.count && !nfa.finals(current.states(i))) i += 1
    if (i < current.count && current.nodes(i) >= 0 && current.starts(i) > threshold)
      enumerator.enumerate(tecs, current.nodes(i), threshold, sink)
    else 0
  }

  /** Configurations whose match started at or below the threshold keep their rank but lose their tECS node. */
  private def expireNodes(threshold: Long): Unit = {
    var i = 0
    while (i < current.count) {
      if (current.nodes(i) >= 0 && current.starts(i) <= threshold) current.nodes(i) = Expired
      i += 1
    }
  }

  /** Tells the partition's events which positions the registers still name; amortized over the events kept since. */
  private def sweep(): Unit = {
    val named = new java.util.HashSet[java.lang.Long]
    var i = 0
    while (i < current.count) {
      val r = current.registers(i)
      r.singles.foreach(p => if (p >= 0) named.add(p))
      r.lists.foreach { l =>
        var rest = l
        while (rest != null) { named.add(rest.head); rest = rest.tail }
      }
      i += 1
    }
    work.transitions += current.count
    events.keepOnly(named)
    sweepAt = math.max(MinSweep, 2 * events.keptCount)
  }

  def expire(threshold: Long): Unit = {
    tecs.reclaim(threshold)
    expireNodes(threshold)
  }

  /** Every configuration is saved, those past the window too: they still decide what wins later. */
  def save(out: DataOutput): Unit = {
    tecs.save(out)
    out.writeInt(current.count)
    for (i <- 0 until current.count) {
      out.writeInt(current.states(i))
      current.registers(i).save(out, machine.saveAccumulator)
      out.writeInt(current.nodes(i))
      out.writeLong(current.starts(i))
      out.writeBoolean(current.opensGroup(i))
    }
  }

  def load(in: DataInput): Unit = {
    tecs.load(in)
    current.reset()
    for (_ <- 0 until in.readInt()) {
      val state = in.readInt()
      require(state < nfa.stateCount,
        s"the saved run is in automaton state $state, this query's automaton has " +
          s"${nfa.stateCount}: the query changed")
      val registers = Registers.load(machine.program, in, machine.loadAccumulator)
      val node = in.readInt()
      val start = in.readLong()
      current.add(state, registers, node, start, in.readBoolean())
    }
  }

  /**
   * Configurations in priority order, highest first, each with the tECS node of its match ([[NotStarted]] before
   * one begins, [[Expired]] once it started before the window) and the window key of its start; `opensGroup` marks
   * the first of each group. Found by state and registers, so that a lower one is not added.
   */
  private final class Ranking {
    var count = 0
    var states = new Array[Int](8)
    var registers = new Array[Registers](8)
    var nodes = new Array[Int](8)
    var starts = new Array[Long](8)
    var opensGroup = new Array[Boolean](8)
    private val index = new java.util.HashSet[RunKey]()
    /**
     * Per NFA state its configurations, highest first, as a list through `below` (-1 ends it), `last` its lowest; and
     * likewise those made by a move that changed their state or registers (`freshTop`, `freshBelow`, `freshLast`).
     */
    private val top = Array.fill(nfa.stateCount)(-1)
    private val last = Array.fill(nfa.stateCount)(-1)
    private var below = new Array[Int](8)
    private val freshTop = Array.fill(nfa.stateCount)(-1)
    private val freshLast = Array.fill(nfa.stateCount)(-1)
    private var freshBelow = new Array[Int](8)

    def reset(): Unit = {
      for (i <- 0 until count) {
        val q = states(i)
        top(q) = -1; last(q) = -1; freshTop(q) = -1; freshLast(q) = -1
      }
      count = 0
      index.clear()
    }

    /** The highest configuration in `state` (of those made by a changing move, unless `all`), or -1. */
    def first(state: Int, all: Boolean): Int = if (all) top(state) else freshTop(state)
    /** The configuration below `i` in its state (of those made by a changing move, unless `all`), or -1. */
    def after(i: Int, all: Boolean): Int = if (all) below(i) else freshBelow(i)

    def holds(state: Int, regs: Registers): Boolean = index.contains(new RunKey(state, regs))

    /**
     * Adds a configuration below the others; it opens a group when it is the first its group adds. `fresh`: its move
     * changed its state or registers (a saved one counts as such).
     */
    def add(state: Int, regs: Registers, node: Int, start: Long, opensGroup: Boolean, fresh: Boolean = true): Unit = {
      if (count == states.length) grow()
      states(count) = state
      registers(count) = regs
      nodes(count) = node
      starts(count) = start
      this.opensGroup(count) = opensGroup
      index.add(new RunKey(state, regs))
      below(count) = -1
      if (top(state) < 0) top(state) = count else below(last(state)) = count
      last(state) = count
      freshBelow(count) = -1
      if (fresh) {
        if (freshTop(state) < 0) freshTop(state) = count else freshBelow(freshLast(state)) = count
        freshLast(state) = count
      }
      count += 1
    }

    /** Keeps the configurations not `dropped`, in their order; a group whose first goes opens at its next kept one. */
    def retain(dropped: Array[Boolean]): Unit = {
      val (s, r, n, st, o) = (states.clone(), registers.clone(), nodes.clone(), starts.clone(), opensGroup.clone())
      val fresh = new Array[Boolean](count)
      for (q <- 0 until nfa.stateCount) {
        var j = freshTop(q)
        while (j >= 0) { fresh(j) = true; j = freshBelow(j) }
      }
      val was = count
      reset()
      var opens = false
      var i = 0
      while (i < was) {
        opens ||= o(i)
        if (!dropped(i)) { add(s(i), r(i), n(i), st(i), opens, fresh(i)); opens = false }
        i += 1
      }
    }

    private def grow(): Unit = {
      val n = count * 2
      states = java.util.Arrays.copyOf(states, n)
      registers = java.util.Arrays.copyOf(registers, n)
      nodes = java.util.Arrays.copyOf(nodes, n)
      starts = java.util.Arrays.copyOf(starts, n)
      opensGroup = java.util.Arrays.copyOf(opensGroup, n)
      below = java.util.Arrays.copyOf(below, n)
      freshBelow = java.util.Arrays.copyOf(freshBelow, n)
    }
  }
}

private object RankedRegisterRun {
  final val NotStarted = -2
  final val Expired = -1
  /** The fewest kept events worth a sweep. */
  final val MinSweep = 64
}
