package io.sparkcer.engine.pcea

/**
 * The nodes of the paper's data structure DS_w (§5), and its operations `extend` and `union`. A node stands for a
 * set of run trees, in two parts:
 *
 * - **its product**: the event at `position`, read by `transition` (which gives its labels), as the root above one
 *   run of each node in its product (one per child state of the transition);
 * - **its union**: the sets of its `left` and `right` nodes, kept as a heap by `maxStart`.
 *
 * `maxStart` is max{min start of ν : ν ∈ ⟦n⟧_prod}, in window values (positions in the paper; any non-decreasing
 * value here, such as the order column of a time window). A run of a node's product is in the window iff the node
 * is live (`maxStart > threshold`), and by the heap order, if a node is out of the window, so is everything under it.
 *
 * **An arena, not objects.** Nodes are rows of flat arrays, addressed by an id that grows by one with each node made
 * (a reference is an id; [[RunNodes.Nil]] is none). That is the "GC-friendly representation" digest B7.9 asks for:
 * union copies a path per call, and with one object per node a window's worth of them would be traced, copied and
 * promoted by the JVM's collector at every collection, a cost that grows with the window. Here the collector sees a
 * few primitive arrays, and the arena frees nodes itself, oldest first, while the oldest is dead ([[reclaim]]). A
 * node's max-start is at most the window value of the event it was made at, so the oldest node dies at the latest
 * when the threshold passes that value: the arena holds the nodes made in about the last window, reachable or not,
 * and freeing them needs no walk over the live ones.
 *
 * A freed id is never read: every reference is followed only through [[live]], which answers false for an id below
 * the oldest kept (a live node is never freed, since the arena frees dead nodes only), and a live node's product
 * children are live (its max-start is at most theirs). Nodes are never changed once made: union copies the path it
 * changes, so every node stays what it stood for.
 *
 * @param width the most children a node's product has (the automaton's largest child set)
 */
final class RunNodes(width: Int) {
  // Small at first: with PARTITION BY, each key has an arena of its own.
  private var capacity = 4
  private var mask = capacity - 1
  private var transitions = new Array[Int](capacity)
  private var positions = new Array[Long](capacity)
  private var maxStarts = new Array[Long](capacity)
  private var lefts = new Array[Long](capacity)
  private var rights = new Array[Long](capacity)
  private var leftNexts = new Array[Boolean](capacity)
  /** Node n's product children at [slot(n) * width, + width), Nil past its transition's arity. */
  private var products = new Array[Long](capacity * math.max(width, 1))
  /** The oldest node kept, and the next id to make. */
  private var first = 0L
  private var next = 0L

  /** Nodes kept (made and not yet freed, whether reachable or not): the arena's memory. */
  def size: Int = (next - first).toInt

  def transition(n: Long): Int = transitions(slot(n))
  def position(n: Long): Long = positions(slot(n))
  def maxStart(n: Long): Long = maxStarts(slot(n))
  def left(n: Long): Long = lefts(slot(n))
  def right(n: Long): Long = rights(slot(n))
  /** The product's k-th child (k below the transition's arity). */
  def child(n: Long, k: Int): Long = products(slot(n) * width + k)

  /** Whether `n` is a node some run of which starts after `threshold`. */
  def live(n: Long, threshold: Long): Boolean = n >= first && maxStarts(slot(n)) > threshold

  /**
   * `extend(L, i, N)`: the event at `position` read by `transition` (whose labels are L), above one run of each of the
   * first `arity` nodes of `children`, all live and made earlier. `maxStart` is the least of the event's window value
   * and the children's max-starts: the caller has them from the index, which keeps each tree's beside it, so that
   * making a node reads none of its children (in a wide window, each would be a cache miss).
   */
  def extend(transition: Int, position: Long, maxStart: Long, children: Array[Long], arity: Int): Long = {
    val n = make(transition, position, maxStart, RunNodes.Nil, RunNodes.Nil, leftNext = true)
    System.arraycopy(children, 0, products, slot(n) * width, arity)
    n
  }

  /**
   * `union(tree, fresh)`: a node for the runs of both, in the window that starts after `threshold`. It is fully
   * persistent: `tree` still stands for what it did. `fresh` was just made by [[extend]] and has no union children.
   * If `tree` is out of the window, the union is `fresh`. Otherwise the greater of the two roots, by max-start, stays
   * the root, and `fresh` goes down one side, the sides alternating to keep the heap balanced; the path down is
   * copied, bottom up (a loop, not a recursion: a heap of one window's runs may be deep).
   *
   * `treeMaxStart` is the tree's max-start, which the index keeps beside it: when `fresh` starts later (a run that
   * starts at the event always does), it becomes the root above `tree` without a read of `tree`.
   */
  def union(tree: Long, treeMaxStart: Long, fresh: Long, threshold: Long): Long = {
    if (treeMaxStart <= threshold) return fresh
    if (maxStart(fresh) > treeMaxStart) return copy(fresh, tree, RunNodes.Nil, leftNext = false)
    var depth = 0
    var n = tree
    while (live(n, threshold) && !outranks(fresh, n)) {
      if (depth == path.length) path = java.util.Arrays.copyOf(path, depth * 2)
      path(depth) = n
      depth += 1
      n = if (leftNexts(slot(n))) lefts(slot(n)) else rights(slot(n))
    }
    var result = if (live(n, threshold)) copy(fresh, n, RunNodes.Nil, leftNext = false) else fresh
    while (depth > 0) {
      depth -= 1
      val p = path(depth)
      result = if (leftNexts(slot(p))) copy(p, result, rights(slot(p)), leftNext = false)
        else copy(p, lefts(slot(p)), result, leftNext = true)
    }
    result
  }

  /** Union's path down, reused. */
  private var path = new Array[Long](16)

  /** Frees the oldest nodes while they are dead: `threshold` never decreases. */
  def reclaim(threshold: Long): Unit = while (first < next && maxStarts(slot(first)) <= threshold) first += 1

  /** Frees every node. */
  def clear(): Unit = first = next

  /** The heap's order: by max-start, then by position. */
  private def outranks(a: Long, b: Long): Boolean = {
    val (sa, sb) = (maxStarts(slot(a)), maxStarts(slot(b)))
    sa > sb || (sa == sb && positions(slot(a)) > positions(slot(b)))
  }

  /** Node `n` with other union children. */
  private def copy(n: Long, left: Long, right: Long, leftNext: Boolean): Long = {
    val made = make(transitions(slot(n)), positions(slot(n)), maxStarts(slot(n)), left, right, leftNext)
    System.arraycopy(products, slot(n) * width, products, slot(made) * width, width)
    made
  }

  private def make(transition: Int, position: Long, maxStart: Long, left: Long, right: Long, leftNext: Boolean): Long = {
    if (next - first == capacity) grow()
    val n = next
    val s = slot(n)
    transitions(s) = transition
    positions(s) = position
    maxStarts(s) = maxStart
    lefts(s) = left
    rights(s) = right
    leftNexts(s) = leftNext
    java.util.Arrays.fill(products, s * width, s * width + width, RunNodes.Nil)
    next += 1
    n
  }

  private def slot(n: Long): Int = (n & mask).toInt

  /** Doubles the arena, each kept node moving to its slot under the new mask. */
  private def grow(): Unit = {
    val (oldMask, oldTransitions, oldPositions, oldMaxStarts, oldLefts, oldRights, oldLeftNexts, oldProducts) =
      (mask, transitions, positions, maxStarts, lefts, rights, leftNexts, products)
    capacity *= 2
    mask = capacity - 1
    allocate()
    var n = first
    while (n < next) {
      val (from, to) = ((n & oldMask).toInt, slot(n))
      transitions(to) = oldTransitions(from)
      positions(to) = oldPositions(from)
      maxStarts(to) = oldMaxStarts(from)
      lefts(to) = oldLefts(from)
      rights(to) = oldRights(from)
      leftNexts(to) = oldLeftNexts(from)
      System.arraycopy(oldProducts, from * width, products, to * width, width)
      n += 1
    }
  }

  private def allocate(): Unit = {
    transitions = new Array[Int](capacity)
    positions = new Array[Long](capacity)
    maxStarts = new Array[Long](capacity)
    lefts = new Array[Long](capacity)
    rights = new Array[Long](capacity)
    leftNexts = new Array[Boolean](capacity)
    products = new Array[Long](capacity * math.max(width, 1))
  }

  /** Writes the kept nodes (their ids relative to the oldest), for [[read]] in another process. */
  def write(out: java.io.DataOutput): Unit = {
    out.writeLong(first)
    out.writeInt(size)
    var n = first
    while (n < next) {
      val s = slot(n)
      out.writeInt(transitions(s))
      out.writeLong(positions(s))
      out.writeLong(maxStarts(s))
      out.writeLong(lefts(s))
      out.writeLong(rights(s))
      out.writeBoolean(leftNexts(s))
      var k = 0
      while (k < width) { out.writeLong(products(s * width + k)); k += 1 }
      n += 1
    }
  }

  /** Makes this arena, which must be empty, the one [[write]] wrote: the same nodes under the same ids. */
  def read(in: java.io.DataInput): Unit = {
    require(size == 0, "an arena is read into when empty")
    first = in.readLong()
    next = first
    val count = in.readInt()
    while (capacity < count) capacity *= 2
    mask = capacity - 1
    allocate()
    for (_ <- 0 until count) {
      val n = make(in.readInt(), in.readLong(), in.readLong(), in.readLong(), in.readLong(), in.readBoolean())
      for (k <- 0 until width) products(slot(n) * width + k) = in.readLong()
    }
  }
}

object RunNodes {
  /** No node. */
  val Nil: Long = -1L
}
