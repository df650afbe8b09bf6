package io.sparkcer.engine.rma

import java.io.{DataInput, DataOutput}

import io.sparkcer.engine.eval.{EventRing, Run, Work}
import io.sparkcer.engine.eval.MatchSink
import io.sparkcer.engine.tecs.{Enumerator, RunSlots, Tecs, UnionList}

/**
 * CORE's Algorithm 1 on a register match automaton, for one partition: a run is a state of the deterministic
 * automaton together with its registers (RMA's configuration [i, q, γ]), and every partial match that reached that
 * state with those registers shares the run's union-list of tECS nodes, since their futures are alike. So runs
 * split only where conditions tell their events apart: a pattern whose conditions read few registers keeps CORE's
 * sharing (a rising run `(B AS b)+ FILTER b.price > prev(b.price)` has one run per last b, however many rising
 * subsets end there), and per event the work is one symbol and one cached transition per run.
 *
 * @param events the partition's events: registers hold positions, and conditions read the events there
 * @param work   counts each run moved with its union-list's entries, and each move's target (the machine counts the
 *               checks)
 */
final class RegisterRun[E <: AnyRef](machine: RegisterMachine[E], events: EventRing[E], enumerator: Enumerator,
    work: Work)
    extends Run {
  private val cea = machine.cea
  private val isFinal: Int => Boolean = cea.isFinal
  private val tecs = new Tecs(work, maxNodes = machine.bound.nodes)
  def liveNodes: Int = tecs.liveNodes
  def maxOutputDepth: Int = tecs.maxOutputDepth
  private var current = new RunTable
  private var next = new RunTable

  def activeStates: Int = current.count

  def read(position: Long, symbol: Int, bits: Array[Long], key: Long, threshold: Long, sink: MatchSink): Int = {
    tecs.reclaim(threshold)
    tecs.beginEvent(key)
    next.reset()

    // A run may begin at this event, with empty registers, from a bottom node of its own.
    val start = machine.empty
    val begin = cea.moves(cea.initial, machine.symbol(cea.initial, bits, start, events, position), machine.bits)
    if (!begin.isEmpty) step(begin, start, -1, tecs.newBottom(position, key), key, position, threshold)

    var i = 0
    while (i < current.count) {
      val partial = current.lists(i)
      partial.expire(threshold)
      if (!partial.isEmpty) {
        work.transitions += partial.length
        val registers = current.registers(i)
        val moves = cea.moves(current.states(i), machine.symbol(current.states(i), bits, registers, events, position),
          machine.bits)
        if (!moves.isEmpty)
          step(moves, registers, i, -1, partial.maxStart, position, threshold)
      }
      i += 1
    }

    if (next.count > machine.bound.perEvent) throw machine.tooManyRuns(events(position))
    val swap = current; current = next; next = swap
    if (sink == null) 0 else current.enumerateFinal(isFinal, tecs, enumerator, threshold, sink)
  }

  /**
   * ExecTrans with registers: each marking move writes the event into the registers its label names. `slot` is the
   * run's slot in `current` (-1 for a run that begins at this event, from `bottom`, a bottom node); a move that adds
   * nothing to the match hands its matches on as CeaRun does ([[io.sparkcer.engine.tecs.RunSlots.addTo]]).
   */
  private def step(moves: io.sparkcer.engine.automaton.Moves, registers: Registers, slot: Int, bottom: Int,
      maxStart: Long, position: Long, threshold: Long): Unit = {
    work.transitions += 1 + moves.markTargets.length
    if (slot >= 0 && machine.extendsMatch(moves.markLabels))
      current.merged(slot, tecs, threshold) // before it is handed on
    if (moves.unmarked >= 0)
      current.addTo(next.list(moves.unmarked, registers), slot, bottom, maxStart, tecs, threshold)
    var k = 0
    while (k < moves.markTargets.length) {
      val label = moves.markLabels(k)
      val target = next.list(moves.markTargets(k), machine.after(label, registers, position, events))
      if (machine.addsToMatch(label))
        target.insert(
          tecs, tecs.extend(current.node(slot, bottom, tecs, threshold), position, label), maxStart, threshold)
      else current.addTo(target, slot, bottom, maxStart, tecs, threshold)
      k += 1
    }
  }

  def expire(threshold: Long): Unit = {
    tecs.reclaim(threshold)
    current.expire(threshold)
  }

  def save(out: DataOutput): Unit = {
    tecs.save(out)
    val live = (0 until current.count).filterNot(current.lists(_).isEmpty)
    out.writeInt(live.length)
    live.foreach { i =>
      cea.writeState(out, current.states(i))
      current.registers(i).save(out, machine.saveAccumulator)
      current.lists(i).save(out)
    }
  }

  def load(in: DataInput): Unit = {
    tecs.load(in)
    current.reset()
    for (_ <- 0 until in.readInt()) {
      val state = cea.readState(in)
      val registers = Registers.load(machine.program, in, machine.loadAccumulator)
      current.list(state, registers).load(in)
    }
  }

  /** The runs after one event, in the order they were first reached, found by state and registers. */
  private final class RunTable extends RunSlots {
    var registers = new Array[Registers](8)
    private val slots = new java.util.HashMap[RunKey, Integer]()

    override protected def grown(capacity: Int): Unit = registers = java.util.Arrays.copyOf(registers, capacity)

    def reset(): Unit = { count = 0; slots.clear() }

    def list(state: Int, regs: Registers): UnionList = {
      val key = new RunKey(state, regs)
      val slot = slots.get(key)
      if (slot != null) lists(slot)
      else {
        val i = addSlot(state)
        registers(i) = regs
        slots.put(key, i)
        lists(i)
      }
    }
  }
}

/** A run's identity: its deterministic state and its registers. */
private final class RunKey(val state: Int, val registers: Registers) {
  override val hashCode: Int = state * 31 + registers.hashCode
  override def equals(o: Any): Boolean = o match {
    case k: RunKey => k.state == state && k.registers == registers
    case _ => false
  }
}
