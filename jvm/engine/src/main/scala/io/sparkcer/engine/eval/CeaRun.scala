package io.sparkcer.engine.eval

import java.io.{DataInput, DataOutput}

import io.sparkcer.engine.automaton.DeterministicCea
import io.sparkcer.engine.tecs.{Enumerator, MatchSink, Tecs, UnionList}

/**
 * CORE's Algorithm 1 for one partition: the active states of the deterministic automaton, each with the
 * union-list of the partial matches that reached it. Runs that have not started yet live in a single pre-start
 * state (processed first, so union-lists fill in decreasing order of maximum start, as the algorithm requires).
 * Each active state passes its partial matches on as one merged node, so a union-list never holds more entries
 * than there are active states. Per event the work is one cached transition lookup and a few tECS operations
 * per active state: independent of the window and of how many partial matches there are.
 */
final class CeaRun(cea: DeterministicCea) extends Run {
  val tecs = new Tecs()
  private var preStart = cea.initial
  private var current = new States
  private var next = new States

  def activeStates: Int = current.count

  def advance(position: Long, symbol: Int, bits: Array[Long], key: Long, threshold: Long): Unit = {
    tecs.reclaim(threshold)
    tecs.beginEvent(key)
    next.reset(cea.stateCount)

    val begin = cea.moves(preStart, symbol, bits)
    if (begin.start >= 0 || begin.markTargets.nonEmpty) {
      val bottom = tecs.newBottom(position, key)
      if (begin.start >= 0) next.list(begin.start).insert(tecs, bottom, key, threshold)
      var k = 0
      while (k < begin.markTargets.length) {
        val label = begin.markLabels(k)
        val node = if (label == 0) bottom else tecs.extend(bottom, position, label)
        next.list(begin.markTargets(k)).insert(tecs, node, key, threshold)
        k += 1
      }
    }
    preStart = begin.pass

    var i = 0
    while (i < current.count) {
      val partial = current.lists(i)
      partial.expire(threshold)
      if (!partial.isEmpty) {
        val m = cea.moves(current.states(i), symbol, bits)
        val merged = current.merged(i, tecs, threshold)
        if (m.pass >= 0) next.list(m.pass).insert(tecs, merged, partial.maxStart, threshold)
        var k = 0
        while (k < m.markTargets.length) {
          val label = m.markLabels(k)
          val node = if (label == 0) merged else tecs.extend(merged, position, label)
          next.list(m.markTargets(k)).insert(tecs, node, partial.maxStart, threshold)
          k += 1
        }
      }
      i += 1
    }
    val swap = current; current = next; next = swap
  }

  def emit(position: Long, threshold: Long, enumerator: Enumerator, sink: MatchSink): Int = {
    var total = 0
    var i = 0
    var open = true
    while (open && i < current.count) {
      if (cea.isFinal(current.states(i))) {
        val root = current.merged(i, tecs, threshold)
        if (root >= 0) {
          total += enumerator.enumerate(tecs, root, threshold, sink)
          open = !enumerator.stopped
        }
      }
      i += 1
    }
    total
  }

  def expire(threshold: Long): Unit = {
    tecs.reclaim(threshold)
    for (i <- 0 until current.count) current.lists(i).expire(threshold)
  }

  /** Deterministic states are saved by their keys; the per-event merged nodes are made again on demand. */
  def save(out: DataOutput): Unit = {
    tecs.save(out)
    writeState(out, preStart)
    val live = (0 until current.count).filterNot(current.lists(_).isEmpty)
    out.writeInt(live.length)
    live.foreach { i => writeState(out, current.states(i)); current.lists(i).save(out) }
  }

  def load(in: DataInput): Unit = {
    tecs.load(in)
    preStart = readState(in)
    current.reset(cea.stateCount)
    for (_ <- 0 until in.readInt()) current.list(readState(in)).load(in)
  }

  private def writeState(out: DataOutput, state: Int): Unit = {
    val key = cea.keyOf(state)
    out.writeInt(key.length)
    key.foreach(out.writeInt)
  }

  private def readState(in: DataInput): Int = cea.stateOf(Array.fill(in.readInt())(in.readInt()))

  /** The active states of one event, in the order they were first reached (CORE's ordered hash table). */
  private final class States {
    var states = new Array[Int](8)
    var lists: Array[UnionList] = Array.fill(8)(new UnionList)
    private var mergedNodes = new Array[Int](8)
    var count = 0
    private var slotOf = new Array[Int](16)
    private var stampOf = new Array[Int](16)
    private var stamp = 0

    def reset(stateCount: Int): Unit = {
      count = 0
      stamp += 1
      if (stateCount > slotOf.length) {
        val size = math.max(stateCount, slotOf.length * 2)
        slotOf = java.util.Arrays.copyOf(slotOf, size)
        stampOf = java.util.Arrays.copyOf(stampOf, size)
      }
    }

    /** The union-list of a deterministic state, created (empty, at the end of the order) on first use. */
    def list(state: Int): UnionList = {
      if (state >= slotOf.length) reset0(state)
      if (stampOf(state) != stamp) {
        if (count == states.length) {
          states = java.util.Arrays.copyOf(states, count * 2)
          mergedNodes = java.util.Arrays.copyOf(mergedNodes, count * 2)
          lists = java.util.Arrays.copyOf(lists, count * 2)
          for (j <- count until lists.length) lists(j) = new UnionList
        }
        stampOf(state) = stamp
        slotOf(state) = count
        states(count) = state
        mergedNodes(count) = -1
        lists(count).clear()
        count += 1
      }
      lists(slotOf(state))
    }

    /** The list of slot i as one node, computed once per event (marking moves and output both need it). */
    def merged(i: Int, tecs: Tecs, threshold: Long): Int = {
      if (mergedNodes(i) < 0) mergedNodes(i) = lists(i).merge(tecs, threshold)
      mergedNodes(i)
    }

    private def reset0(state: Int): Unit = {
      val size = math.max(state + 1, slotOf.length * 2)
      slotOf = java.util.Arrays.copyOf(slotOf, size)
      stampOf = java.util.Arrays.copyOf(stampOf, size)
    }
  }
}
