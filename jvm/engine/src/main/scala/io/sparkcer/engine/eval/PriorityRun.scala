package io.sparkcer.engine.eval

import java.io.{DataInput, DataOutput}

import io.sparkcer.engine.automaton.Nfa
import io.sparkcer.engine.tecs.{Enumerator, MatchSink, Tecs}

/**
 * NEXT and LAST selection (Algorithms 5 and 6 of the CEL paper), run on the non-deterministic automaton without
 * determinizing it. The NFA states are kept in a priority order of disjoint groups; all states of a group carry
 * the same complex event, and an earlier group's complex event is larger under ≤next (or ≤last). Each state holds
 * at most one tECS node, and a state reached from two groups keeps the claim of the higher one, which is why the
 * highest final group holds the maximum. NEXT ranks a group's marking successors just above its non-marking
 * ones; LAST ranks every marking successor above every non-marking one. Linear in the automaton per event.
 *
 * A run whose start has left the window keeps its place in the order (the strategy chooses before the window
 * filters) but carries no node any more, so nothing outside the window is kept.
 *
 * @param maxNodes the most tECS nodes alive at once ([[MatchBound.nodes]])
 * @param work     counts each transition of a state in the order that the event is tried on
 */
final class PriorityRun(nfa: Nfa, lastFirst: Boolean, enumerator: Enumerator, maxNodes: Int, work: Work)
    extends Run {
  import PriorityRun._

  private val tecs = new Tecs(maxNodes = maxNodes)
  def liveNodes: Int = tecs.liveNodes
  def maxOutputDepth: Int = tecs.maxOutputDepth
  private val n = nfa.stateCount
  private var node = Array.fill(n)(NotStarted)
  private var nodeKey = new Array[Long](n)
  private var fresh = Array.fill(n)(NotStarted)
  private var freshKey = new Array[Long](n)
  private var order = Array(Array(Nfa.Initial)) // groups, highest priority first
  private val placed = new Array[Int](n)       // stamp of the event that placed the state
  private var stamp = 0

  def activeStates: Int = order.map(_.length).sum

  def read(position: Long, symbol: Int, bits: Array[Long], key: Long, threshold: Long, sink: MatchSink): Int = {
    advance(position, bits, key, threshold)
    if (sink == null) 0 else output(threshold, sink)
  }

  private def advance(position: Long, bits: Array[Long], key: Long, threshold: Long): Unit = {
    tecs.reclaim(threshold)
    tecs.beginEvent(key)
    stamp += 1
    var bottom = -1
    def startHere(): Int = { if (bottom < 0) bottom = tecs.newBottom(position, key); bottom }
    val groups = Array.newBuilder[Array[Int]]

    def claim(group: Array[Int], marking: Boolean): Unit = {
      val claimed = Array.newBuilder[Int]
      for (q <- group) work.transitions += nfa.transitions(q).length
      for (q <- group; t <- nfa.transitions(q) if t.marks == marking && t.enabledBy(bits) && placed(t.target) != stamp) {
        val p = t.target
        placed(p) = stamp
        claimed += p
        val base = node(q)
        if (q == Nfa.Initial && p == Nfa.Initial) { fresh(p) = NotStarted }
        else if (base == Expired || (base >= 0 && nodeKey(q) <= threshold)) { fresh(p) = Expired }
        else {
          val (from, fromKey) = if (base == NotStarted) (startHere(), key) else (base, nodeKey(q))
          fresh(p) = if (marking && t.label > 0) tecs.extend(from, position, t.label) else from
          freshKey(p) = fromKey
        }
      }
      val b = claimed.result()
      if (b.nonEmpty) groups += b
    }

    if (lastFirst) { order.foreach(claim(_, marking = true)); order.foreach(claim(_, marking = false)) }
    else order.foreach { g => claim(g, marking = true); claim(g, marking = false) }
    order = groups.result()
    val (n0, k0) = (node, nodeKey)
    node = fresh; nodeKey = freshKey
    fresh = n0; freshKey = k0
  }

  def expire(threshold: Long): Unit = {
    tecs.reclaim(threshold)
    for (q <- 0 until n if node(q) >= 0 && nodeKey(q) <= threshold) node(q) = Expired
  }

  /** The priority order is saved even when every run in it has expired: it still decides what wins later. */
  def save(out: DataOutput): Unit = {
    tecs.save(out)
    out.writeInt(n)
    for (q <- 0 until n) { out.writeInt(node(q)); out.writeLong(nodeKey(q)) }
    out.writeInt(order.length)
    order.foreach { group => out.writeInt(group.length); group.foreach(out.writeInt) }
  }

  def load(in: DataInput): Unit = {
    tecs.load(in)
    val saved = in.readInt()
    require(saved == n, s"the saved run has $saved automaton states, this query's automaton $n: the query changed")
    for (q <- 0 until n) { node(q) = in.readInt(); nodeKey(q) = in.readLong() }
    order = Array.fill(in.readInt())(Array.fill(in.readInt())(in.readInt()))
  }

  /** The maximum under the order is the complex event of the highest group that holds a final state. */
  private def output(threshold: Long, sink: MatchSink): Int =
    order.iterator.flatMap(_.find(nfa.finals)).nextOption() match {
      case Some(f) if node(f) >= 0 && nodeKey(f) > threshold => enumerator.enumerate(tecs, node(f), threshold, sink)
      case _ => 0
    }
}

private object PriorityRun {
  final val NotStarted = -2
  final val Expired = -1
}
