package io.sparkcer.engine.priority

import java.io.{DataInput, DataOutput}

import io.sparkcer.engine.automaton.Nfa
import io.sparkcer.engine.eval.{MatchSink, Run, Work}
import io.sparkcer.engine.tecs.{Enumerator, Tecs}

/**
 * NEXT and LAST selection (Algorithms 5 and 6 of the CEL paper), run on the non-deterministic automaton without
 * determinizing it. The NFA states are kept in a priority order of disjoint groups; all states of a group carry
 * the same complex event, and an earlier group's complex event is larger under ≤next (or ≤last). Each state holds
 * at most one tECS node, and a state reached from two groups keeps the claim of the higher one, which is why the
 * highest final group holds the maximum. The orders and their steps are shared by the runs of every partition
 * ([[PriorityOrders]], built and cached as the stream asks): per event, one lookup and one move per state held.
 *
 * A run whose start has left the window keeps its place in the order (the strategy chooses before the window
 * filters) but carries no node any more, so nothing outside the window is kept.
 *
 * @param maxNodes the most tECS nodes alive at once ([[MatchBound.nodes]])
 * @param work     counts each state moved
 */
final class PriorityRun(orders: PriorityOrders, stateCount: Int, enumerator: Enumerator, maxNodes: Int, work: Work)
    extends Run {
  import PriorityRun._

  private val tecs = new Tecs(work, maxNodes = maxNodes)
  def liveNodes: Int = tecs.liveNodes
  def maxOutputDepth: Int = tecs.maxOutputDepth
  private var node = Array.fill(stateCount)(NotStarted)
  private var nodeKey = new Array[Long](stateCount)
  private var fresh = Array.fill(stateCount)(NotStarted)
  private var freshKey = new Array[Long](stateCount)
  private var order = orders.initial
  private var held = 1

  def activeStates: Int = held

  def read(position: Long, symbol: Int, bits: Array[Long], key: Long, threshold: Long, sink: MatchSink): Int = {
    advance(position, symbol, bits, key, threshold)
    if (sink == null) 0 else output(threshold, sink)
  }

  private def advance(position: Long, symbol: Int, bits: Array[Long], key: Long, threshold: Long): Unit = {
    tecs.reclaim(threshold)
    tecs.beginEvent(key)
    val step = orders.step(order, symbol, bits)
    var bottom = -1
    var k = 0
    while (k < step.targets.length) {
      val (q, p) = (step.sources(k), step.targets(k))
      val base = node(q)
      if (q == Nfa.Initial && p == Nfa.Initial) fresh(p) = NotStarted
      else if (base == Expired || (base >= 0 && nodeKey(q) <= threshold)) fresh(p) = Expired
      else {
        val from =
          if (base != NotStarted) base
          else { if (bottom < 0) bottom = tecs.newBottom(position, key); bottom }
        fresh(p) = if (step.labels(k) > 0) tecs.extend(from, position, step.labels(k)) else from
        freshKey(p) = if (base == NotStarted) key else nodeKey(q)
      }
      k += 1
    }
    work.transitions += step.targets.length
    held = step.targets.length
    order = step.order
    val (n0, k0) = (node, nodeKey)
    node = fresh; nodeKey = freshKey
    fresh = n0; freshKey = k0
  }

  def expire(threshold: Long): Unit = {
    tecs.reclaim(threshold)
    for (q <- 0 until stateCount if node(q) >= 0 && nodeKey(q) <= threshold) node(q) = Expired
  }

  /** The priority order is saved even when every run in it has expired: it still decides what wins later. */
  def save(out: DataOutput): Unit = {
    tecs.save(out)
    out.writeInt(stateCount)
    for (q <- 0 until stateCount) { out.writeInt(node(q)); out.writeLong(nodeKey(q)) }
    val groups = orders.groupsOf(order)
    out.writeInt(groups.length)
    groups.foreach { group => out.writeInt(group.length); group.foreach(out.writeInt) }
  }

  def load(in: DataInput): Unit = {
    tecs.load(in)
    val saved = in.readInt()
    require(saved == stateCount,
      s"the saved run has $saved automaton states, this query's automaton $stateCount: the query changed")
    for (q <- 0 until stateCount) { node(q) = in.readInt(); nodeKey(q) = in.readLong() }
    order = orders.orderOf(Array.fill(in.readInt())(Array.fill(in.readInt())(in.readInt())))
    held = orders.size(order)
  }

  /** The maximum under the order is the complex event of the highest group that holds a final state. */
  private def output(threshold: Long, sink: MatchSink): Int = {
    val f = orders.firstFinal(order)
    if (f >= 0 && node(f) >= 0 && nodeKey(f) > threshold) enumerator.enumerate(tecs, node(f), threshold, sink) else 0
  }
}

private object PriorityRun {
  final val NotStarted = -2
  final val Expired = -1
}
