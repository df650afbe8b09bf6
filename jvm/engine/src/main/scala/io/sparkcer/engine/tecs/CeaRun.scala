package io.sparkcer.engine.tecs

import java.io.{DataInput, DataOutput}

import io.sparkcer.engine.automaton.{DeterministicCea, Moves}
import io.sparkcer.engine.eval.{MatchSink, Run, Work}

/**
 * CORE's Algorithm 1 for one partition: the active states of the deterministic automaton, each with the
 * union-list of the partial matches that reached it (the paper's ordered hash table T, here `States`).
 * Runs that have not started yet live in a single pre-start state (the paper's q0), processed first, so that
 * union-lists fill in decreasing order of maximum start, as the algorithm requires. Each active state passes its
 * partial matches on as one merged node, so a union-list never holds more entries than there are active states.
 * Per event the work is one cached transition lookup and a few tECS operations per active state: independent of
 * the window and of how many partial matches there are.
 *
 * Where this departs from the paper's text: the window is a threshold on window keys (a run that started at or
 * below it is out), which also frees the tECS nodes no live run can reach; a run begins only at an event that
 * moves it (the paper makes a bottom node for every event); and ExecTrans adds the unmarked move before the marking
 * ones (the paper: marking first), which fixes the order of the next event's active states, so the enumeration
 * order that ANY and LIMIT pick from.
 *
 * @param enumerator the task's enumerator, shared by its partitions (Algorithm 2 of the paper)
 * @param maxNodes   the most tECS nodes alive at once ([[MatchBound.nodes]])
 * @param work       counts each active state moved with its union-list's entries, and each move's target
 */
final class CeaRun(cea: DeterministicCea, enumerator: Enumerator, maxNodes: Int, work: Work) extends Run {
  private val tecs = new Tecs(work, maxNodes = maxNodes)
  def liveNodes: Int = tecs.liveNodes
  def maxOutputDepth: Int = tecs.maxOutputDepth
  private var preStart = cea.initial
  private val isFinal: Int => Boolean = cea.isFinal
  private var current = new States // T: the active states after the last event read
  private var next = new States // T': those after the event being read

  def activeStates: Int = current.count

  /** The loop body of Algorithm 1 (lines 5-12) for the event at `position`, j in the paper. */
  def read(position: Long, symbol: Int, bits: Array[Long], key: Long, threshold: Long, sink: MatchSink): Int = {
    tecs.reclaim(threshold)
    tecs.beginEvent(key)
    next.reset(cea.stateCount)

    // Lines 7-8: a run may begin at this event, from a bottom node of its own.
    val begin = cea.moves(preStart, symbol, bits)
    if (!begin.isEmpty) execTrans(begin, -1, tecs.newBottom(position, key), key, position, threshold)
    preStart = begin.nextPreStart

    // Lines 9-10: every active state moves its partial matches on, in the order the states were first reached.
    var i = 0
    while (i < current.count) {
      val partial = current.lists(i)
      partial.expire(threshold)
      if (!partial.isEmpty) {
        work.transitions += partial.length
        execTrans(cea.moves(current.states(i), symbol, bits), i, -1, partial.maxStart, position, threshold)
      }
      i += 1
    }

    val swap = current; current = next; next = swap // line 11
    // Line 12, unless the event is only context.
    if (sink == null) 0 else current.enumerateFinal(isFinal, tecs, enumerator, threshold, sink)
  }

  /**
   * ExecTrans (lines 13-21): the partial matches of the active state in slot `slot` of `current` (with `slot` -1, the
   * new bottom node `bottom`), `maxStart` their latest start, move to the target of each of the state's moves,
   * extended by the event where the move marks it with a selected variable. Add (lines 22-27) is `States.list`,
   * which opens a target's union-list on first use, then [[RunSlots.addTo]] or, for an extended node,
   * [[UnionList.insert]]; the slot's merged node (line 14) is made only when a move needs it.
   */
  private def execTrans(moves: Moves, slot: Int, bottom: Int, maxStart: Long, position: Long,
      threshold: Long): Unit = {
    work.transitions += 1 + moves.markTargets.length
    if (slot >= 0 && moves.extending) current.merged(slot, tecs, threshold) // before its entries are handed on
    if (moves.unmarked >= 0) current.addTo(next.list(moves.unmarked), slot, bottom, maxStart, tecs, threshold)
    var k = 0
    while (k < moves.markTargets.length) {
      val label = moves.markLabels(k)
      val target = next.list(moves.markTargets(k))
      if (label == 0) current.addTo(target, slot, bottom, maxStart, tecs, threshold)
      else target.insert(tecs, tecs.extend(current.node(slot, bottom, tecs, threshold), position, label), maxStart,
        threshold)
      k += 1
    }
  }

  def expire(threshold: Long): Unit = {
    tecs.reclaim(threshold)
    current.expire(threshold)
  }

  /** Deterministic states are saved by their keys; the per-event merged nodes are made again on demand. */
  def save(out: DataOutput): Unit = {
    tecs.save(out)
    cea.writeState(out, preStart)
    val live = (0 until current.count).filterNot(current.lists(_).isEmpty)
    out.writeInt(live.length)
    live.foreach { i => cea.writeState(out, current.states(i)); current.lists(i).save(out) }
  }

  def load(in: DataInput): Unit = {
    tecs.load(in)
    preStart = cea.readState(in)
    current.reset(cea.stateCount)
    for (_ <- 0 until in.readInt()) current.list(cea.readState(in)).load(in)
  }

  /** The active states of one event, in the order they were first reached, found by state. */
  private final class States extends RunSlots {
    private var slotOf = new Array[Int](16)
    private var stampOf = new Array[Int](16)
    private var stamp = 0

    def reset(stateCount: Int): Unit = {
      count = 0
      stamp += 1
      if (stateCount > slotOf.length) fit(stateCount - 1)
    }

    /** The union-list of a deterministic state, created (empty, at the end of the order) on first use. */
    def list(state: Int): UnionList = {
      if (state >= slotOf.length) fit(state)
      if (stampOf(state) != stamp) {
        stampOf(state) = stamp
        slotOf(state) = addSlot(state)
      }
      lists(slotOf(state))
    }

    private def fit(state: Int): Unit = {
      val size = math.max(state + 1, slotOf.length * 2)
      slotOf = java.util.Arrays.copyOf(slotOf, size)
      stampOf = java.util.Arrays.copyOf(stampOf, size)
    }
  }
}
