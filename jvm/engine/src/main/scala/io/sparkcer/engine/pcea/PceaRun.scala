package io.sparkcer.engine.pcea

import java.io.{DataInput, DataOutput}

import scala.collection.mutable

/**
 * Algorithm 1 of the PCEA paper (§5) over one stream: per event, FireTransitions, then UpdateIndices, then
 * Enumerate at the new nodes of final states. The runs waiting to be joined are indexed by H[transition, child
 * state, key], each entry a [[RunNode]] union tree, so an event finds the runs it joins by one lookup per child
 * state, whatever their number: no partial match is built per pair of events. Update time is logarithmic in the
 * window, and the valuations come out with output-linear delay.
 *
 * Windows (digest B7.2): a valuation is output when its first event's window value is above the threshold of the
 * event being read (the engine's: the run that started at or below it is out). The paper counts positions (then the
 * threshold is i - w - 1); any non-decreasing value works, a time column included.
 *
 * Memory (digest B7.9): the paper never drops index entries. Here H is swept of entries whose runs have all left the
 * window, and of the expired union children under live ones, once it has made as many nodes since the last sweep
 * as that sweep kept. So the cost stays constant per node, amortised, and what is kept is bounded by the runs of
 * about two windows.
 */
final class PceaRun[E](pcea: Pcea, reader: PceaReader[E]) {
  private val transitions = pcea.transitions.toArray
  private val finals = pcea.finals.toArray.sorted
  private val consumers = pcea.consumers.map(_.toArray).toArray
  private val indexKeys = pcea.indexKeys.map(_.toArray).toArray
  /** The joins, each a (transition, child slot): join j of transition e is `firstJoin(e) + slot`. */
  private val firstJoin = transitions.scanLeft(0)(_ + _.children.length)
  private val joins = for ((t, e) <- transitions.zipWithIndex; slot <- t.children.indices) yield (e, slot)
  /** Per state, the joins of its consumers, in the order of [[Pcea.consumers]]. */
  private val consumerJoins = consumers.map(_.map { case (e, slot) => firstJoin(e) + slot })
  /** H, as one map per join (transition, child slot) from the key to the union tree of the runs indexed there. */
  private val index = Array.fill(joins.length)(new java.util.HashMap[AnyRef, RunNode]())
  /** N_p: the nodes made for each state at the current event. */
  private val created = Array.fill(pcea.stateCount)(mutable.ArrayBuffer.empty[RunNode])
  private var madeSinceSweep = 0L
  private var keptAtSweep = 0L
  private var threshold = Long.MinValue
  private val valuation = new Valuation
  /** Whether the receiver of the valuations wants more (ANY and LIMIT stop early). */
  private var open = true

  /** Index entries, for the bounded-memory tests and the metrics. */
  def indexSize: Int = index.iterator.map(_.size).sum
  /** H[transition, slot, key], or null: for the tests that follow Algorithm 1's trace. */
  private[pcea] def indexed(transition: Int, slot: Int, key: AnyRef): RunNode = index(firstJoin(transition) + slot).get(key)

  /** The nodes the last sweep found reachable from the index. */
  def keptNodes: Long = keptAtSweep

  /**
   * Reads the event at `position`, whose window value is `start`; `threshold` is the window's (see the class comment),
   * non-decreasing. `emit` receives each valuation that ends at the event, as (position, label) pairs:
   * `emit(size, positions, labels)`, the arrays reused after the call; it returns false to stop the enumeration.
   * With `emit` null, the event is read only as context: its runs are kept, and nothing is enumerated. Returns how
   * many valuations were emitted.
   */
  def read(event: E, position: Long, start: Long, threshold: Long)(emit: (Int, Array[Long], Array[Int]) => Boolean): Int = {
    this.threshold = threshold
    var p = 0
    while (p < created.length) { created(p).clear(); p += 1 }
    fireTransitions(event, position, start)
    updateIndices(event)
    open = true
    var emitted = 0
    if (emit != null) for (f <- finals; n <- created(f) if open) emitted += enumerate(n, emit)
    if (madeSinceSweep > math.max(1024L, keptAtSweep)) sweep()
    emitted
  }

  /** Forgets the runs that started at or below `threshold`, as the next event's own threshold would. */
  def expire(threshold: Long): Unit = {
    this.threshold = math.max(this.threshold, threshold)
    sweep()
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
          val key = reader.key(t.joins(slot), event)
          val node = if (key == null) null else index(firstJoin(e) + slot).get(key)
          if (node == null || !node.live(threshold)) joined = false else children(slot) = node
          slot += 1
        }
        if (joined) {
          created(t.target) += RunNode.extend(e, position, start, children)
          madeSinceSweep += 1
        }
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
      val nodes = created(p)
      var k = 0
      while (k < nodes.length) {
        val producer = nodes(k).transition
        val at = consumerJoins(p)
        var c = 0
        while (c < at.length) {
          val key = reader.key(indexKeys(producer)(c), event)
          if (key != null) {
            val h = index(at(c))
            h.put(key, RunNode.union(h.get(key), nodes(k), threshold))
          }
          c += 1
        }
        k += 1
      }
      p += 1
    }
  }

  /**
   * Enumerate (Thm 5.2): each valuation of the node's runs in the window, once (the automaton is unambiguous).
   * Every node visited is in the window, so it yields a valuation: the delay is linear in the output. The walk keeps
   * its own stack of frames, one per node of the valuation being built, so a long valuation (an iteration over a
   * wide window) needs no deep recursion. Returns how many valuations it emitted.
   */
  private def enumerate(node: RunNode, emit: (Int, Array[Long], Array[Int]) => Boolean): Int = {
    var emitted = 0
    frames.clear()
    frames.push(new Frame(Nil, node, 0))
    while (open && frames.nonEmpty) {
      val frame = frames.top
      val m = frame.nextLive(threshold)
      if (m == null) frames.pop()
      else {
        valuation.size = frame.mark
        val labels = transitions(m.transition).labels
        var k = 0
        while (k < labels.length) { valuation.add(m.position, labels(k)); k += 1 }
        m.product.toList ::: frame.rest match {
          case Nil =>
            emitted += 1
            open = emit(valuation.size, valuation.positions, valuation.labels)
          case tree :: rest => frames.push(new Frame(rest, tree, valuation.size))
        }
      }
    }
    emitted
  }

  private val frames = mutable.Stack.empty[Frame]

  /**
   * A step of the enumeration: one node of the union tree `tree` is chosen at a time (the live ones, in heap order),
   * then one of each tree in `rest`; `mark` is the valuation's size before the choice.
   */
  private final class Frame(val rest: List[RunNode], tree: RunNode, val mark: Int) {
    private val union = mutable.Stack(tree)

    /** The next live node of the union tree, or null. */
    def nextLive(threshold: Long): RunNode = {
      while (union.nonEmpty) {
        val n = union.pop()
        if (n != null && n.live(threshold)) { union.push(n.right); union.push(n.left); return n }
      }
      null
    }
  }

  /**
   * Drops the index entries out of the window and cuts the expired union children under the others: a walk from the
   * live entries that marks each node it reaches with this sweep's number, so that a node shared by several runs is
   * walked once.
   */
  private def sweep(): Unit = {
    sweeps += 1
    var kept = 0L
    var j = 0
    while (j < index.length) {
      val entries = index(j).values().iterator()
      while (entries.hasNext) {
        val root = entries.next()
        if (!root.live(threshold)) entries.remove()
        else {
          var top = 0
          sweepStack(0) = root
          while (top >= 0) {
            val n = sweepStack(top)
            top -= 1
            if (n != null && n.sweep != sweeps) {
              n.sweep = sweeps
              kept += 1
              n.cutExpired(threshold)
              // A live node's product children are live: its max-start is at most theirs.
              if (top + 3 + n.product.length > sweepStack.length) sweepStack = java.util.Arrays.copyOf(sweepStack, sweepStack.length * 2 + n.product.length)
              top += 1; sweepStack(top) = n.left
              top += 1; sweepStack(top) = n.right
              var c = 0
              while (c < n.product.length) { top += 1; sweepStack(top) = n.product(c); c += 1 }
            }
          }
        }
      }
      j += 1
    }
    keptAtSweep = kept
    madeSinceSweep = 0
  }

  /** The sweep's stack of nodes to visit. */
  private var sweepStack = new Array[RunNode](64)
  private var sweeps = 0

  /**
   * Writes the runs the index holds (swept first, so only live ones), each node once, children before parents, and
   * the index's entries. Keys are not written: [[load]] reads them again off the events, which the caller keeps
   * (every event of a live run is inside the window).
   */
  def save(out: DataOutput): Unit = {
    sweep()
    val ids = new java.util.IdentityHashMap[RunNode, Integer]()
    val order = mutable.ArrayBuffer.empty[RunNode]
    val pending = mutable.Stack.empty[(RunNode, Boolean)]
    index.foreach(_.values().forEach(root => pending.push((root, false))))
    while (pending.nonEmpty) {
      val (n, expanded) = pending.pop()
      if (n != null && !ids.containsKey(n)) {
        if (expanded) { ids.put(n, order.length); order += n }
        else {
          pending.push((n, true))
          pending.push((n.left, false))
          pending.push((n.right, false))
          n.product.foreach(c => pending.push((c, false)))
        }
      }
    }
    def id(n: RunNode): Int = if (n == null) -1 else ids.get(n)
    out.writeLong(threshold)
    out.writeInt(order.length)
    for (n <- order) {
      out.writeInt(n.transition)
      out.writeLong(n.position)
      out.writeLong(n.maxStart)
      out.writeBoolean(n.leftNext)
      out.writeInt(id(n.left))
      out.writeInt(id(n.right))
      out.writeInt(n.product.length)
      n.product.foreach(c => out.writeInt(id(c)))
    }
    out.writeInt(indexSize)
    for (j <- index.indices) index(j).forEach { (_, root) => out.writeInt(j); out.writeInt(id(root)) }
  }

  /** Makes this fresh run the one [[save]] wrote; `eventAt` gives the event at a position of a live run. */
  def load(in: DataInput, eventAt: Long => E): Unit = {
    threshold = in.readLong()
    val nodes = new Array[RunNode](in.readInt())
    def node(id: Int): RunNode = if (id < 0) null else nodes(id)
    for (i <- nodes.indices) {
      val (transition, position, maxStart, leftNext) = (in.readInt(), in.readLong(), in.readLong(), in.readBoolean())
      val (left, right) = (node(in.readInt()), node(in.readInt()))
      val product = Array.fill(in.readInt())(node(in.readInt()))
      nodes(i) = RunNode.restored(transition, position, product, maxStart, left, right, leftNext)
    }
    index.foreach(_.clear())
    for (_ <- 0 until in.readInt()) {
      val (j, root) = (in.readInt(), nodes(in.readInt()))
      val producer = root.transition
      val key = reader.key(indexKeys(producer)(consumers(transitions(producer).target).indexOf(joins(j))),
        eventAt(root.position))
      index(j).put(key, root)
    }
    keptAtSweep = nodes.length
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
