package io.sparkcer.engine.pcea

import scala.collection.mutable

/**
 * Algorithm 1 of the PCEA paper (§5) over one stream: per event, FireTransitions, then UpdateIndices, then
 * Enumerate at the new nodes of final states. The runs waiting to be joined are indexed by H[transition, child
 * state, key], each entry a [[RunNode]] union tree, so an event finds the runs it joins by one lookup per child
 * state, whatever their number: no partial match is built per pair of events. Update time is logarithmic in the
 * window, and the valuations come out with output-linear delay.
 *
 * Windows (digest B7.2): a valuation is output when its first event's window value is at least the current one's
 * minus `window`. The paper counts positions (pass the position as the window value); any non-decreasing value
 * works, a time column included.
 *
 * Memory (digest B7.9): the paper never drops index entries. Here H is swept of entries whose runs have all left the
 * window, and of the expired union children under live ones, once it has made as many nodes since the last sweep
 * as that sweep kept. So the cost stays constant per node, amortised, and what is kept is bounded by the runs of
 * about two windows.
 *
 * @param window how far back a valuation may start, in window values; None: no window
 */
final class PceaRun[E](pcea: Pcea, reader: PceaReader[E], window: Option[Long]) {
  private val transitions = pcea.transitions.toArray
  private val finals = pcea.finals.toArray.sorted
  private val index = new java.util.HashMap[IndexKey, RunNode]()
  /** N_p: the nodes made for each state at the current event. */
  private val created = Array.fill(pcea.stateCount)(mutable.ArrayBuffer.empty[RunNode])
  private var madeSinceSweep = 0L
  private var keptAtSweep = 0L
  private var threshold = Long.MinValue
  private val valuation = new Valuation

  /** Index entries, for the bounded-memory tests. */
  def indexSize: Int = index.size

  /**
   * Reads the event at `position` (window value `start`, non-decreasing); `emit` receives each valuation that ends
   * at it, as (position, label) pairs: `emit(size, positions, labels)`, the arrays reused after the call.
   */
  def read(event: E, position: Long, start: Long)(emit: (Int, Array[Long], Array[Int]) => Unit): Unit = {
    threshold = window.fold(Long.MinValue)(start - _)
    created.foreach(_.clear())
    fireTransitions(event, position, start)
    updateIndices(event)
    for (p <- finals; n <- created(p)) enumerate(n, emit)
    if (madeSinceSweep > math.max(1024L, keptAtSweep)) sweep()
  }

  /** Every transition whose guard the event passes and whose every child state has a run in the window with its key. */
  private def fireTransitions(event: E, position: Long, start: Long): Unit = {
    var e = 0
    while (e < transitions.length) {
      val t = transitions(e)
      if (reader.passes(t.guard, event)) {
        val children = new Array[RunNode](t.children.length)
        var slot = 0
        var joined = true
        while (joined && slot < children.length) {
          val key = reader.rightKey(t.joins(slot), event)
          val node = if (key == null) null else index.get(IndexKey(e, slot, key))
          if (node == null || !node.live(threshold)) joined = false else children(slot) = node
          slot += 1
        }
        if (joined) { created(t.target) += RunNode.extend(t.labels, position, start, children); madeSinceSweep += 1 }
      }
      e += 1
    }
  }

  /**
   * The new nodes, where the transitions that join their states will look for them: after every transition fired,
   * so that an event never joins itself.
   */
  private def updateIndices(event: E): Unit = {
    var p = 0
    while (p < created.length) {
      if (created(p).nonEmpty)
        for ((e, slot) <- pcea.consumers(p)) {
          val key = reader.leftKey(transitions(e).joins(slot), event)
          if (key != null) {
            val k = IndexKey(e, slot, key)
            created(p).foreach(n => index.put(k, RunNode.union(index.get(k), n, threshold)))
          }
        }
      p += 1
    }
  }

  /** Enumerate (Thm 5.2): each valuation of the node's runs in the window, once (the automaton is unambiguous). */
  private def enumerate(node: RunNode, emit: (Int, Array[Long], Array[Int]) => Unit): Unit = {
    // Every node visited is in the window, so it yields a valuation: the delay is linear in the output.
    def choose(pending: List[RunNode]): Unit = pending match {
      case Nil => emit(valuation.size, valuation.positions, valuation.labels)
      case tree :: rest => eachLive(tree) { m =>
        val mark = valuation.size
        m.labels.foreach(valuation.add(m.position, _))
        choose(m.product.toList ::: rest)
        valuation.size = mark
      }
    }
    // A union tree may be as deep as the window is long (fresh nodes tend to outrank the root): walked with a stack.
    def eachLive(tree: RunNode)(f: RunNode => Unit): Unit = {
      val stack = mutable.Stack(tree)
      while (stack.nonEmpty) {
        val n = stack.pop()
        if (n != null && n.live(threshold)) { f(n); stack.push(n.right); stack.push(n.left) }
      }
    }
    choose(List(node))
  }

  /** Drops the index entries out of the window and cuts the expired union children under the others. */
  private def sweep(): Unit = {
    val seen = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap[RunNode, java.lang.Boolean]())
    val pending = mutable.Stack.empty[RunNode]
    val entries = index.values().iterator()
    while (entries.hasNext) {
      val root = entries.next()
      if (!root.live(threshold)) entries.remove() else pending.push(root)
      while (pending.nonEmpty) {
        val n = pending.pop()
        if (n != null && seen.add(n)) {
          n.cutExpired(threshold)
          pending.push(n.left)
          pending.push(n.right)
          n.product.foreach(pending.push) // a live node's children are live: its max-start is at most theirs
        }
      }
    }
    keptAtSweep = seen.size
    madeSinceSweep = 0
  }

  /** The (position, label) pairs of the valuation being enumerated. */
  private final class Valuation {
    var size = 0
    var positions = new Array[Long](16)
    var labels = new Array[Int](16)
    def add(position: Long, label: Int): Unit = {
      if (size == positions.length) {
        positions = java.util.Arrays.copyOf(positions, size * 2)
        labels = java.util.Arrays.copyOf(labels, size * 2)
      }
      positions(size) = position; labels(size) = label; size += 1
    }
  }
}

/** H's key: a transition, one of its child slots (a child state), and the equality's key value. */
private final case class IndexKey(transition: Int, slot: Int, key: AnyRef)
