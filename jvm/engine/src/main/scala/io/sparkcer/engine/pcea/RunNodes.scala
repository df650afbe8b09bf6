package io.sparkcer.engine.pcea

import io.sparkcer.engine.eval.Work

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
 * **Unions.** The union trees are persistent leftist heaps. A node's rank is the length of its right spine, and no
 * node's left child has a smaller rank than its right one, so a right spine is at most log2 of the tree's nodes long.
 * A union walks the right spine down to the first node the new run outranks (or an empty or dead subtree), puts the
 * run there with that node's subtree as its left child, and copies the path back up, swapping a node's children where
 * the new right one outranks the left one by rank: its cost is that path (the paper's Prop. 5.3: O(log w) per call,
 * here of the nodes a window leaves in a tree), which [[Work.unionNodes]] counts. A run that outranks the root, as a
 * run that starts at the event always does, becomes the root above the old tree, whose root it need not even read:
 * one copy. Such runs, newest first, stack up along the left side as deep as the window, but nothing walks a left
 * side: a union walks right spines, and the enumeration visits only nodes in the window, each an output. (Steering
 * the walk by per-node direction bits instead, as the proof's sketch does, lets runs that alternate between the root
 * and below set every bit along that left side towards it, and a later union then walks all of it, as many nodes as
 * the window holds; a Braun heap, which sends every run to the bottom, copies a logarithmic path at every union, the
 * root's too: five times slower on a chain at 8T over 10,000 accounts.)
 *
 * **Latest runs.** At a join whose runs under one key differ only in an unselected event ([[PceaPlan.latestOnly]]),
 * the runs fall in groups (one per incoming key) of which only the latest counts. There the tree is a persistent
 * treap instead: a heap by max-start as above, and a search tree by the group, each group's first node (its id spread
 * by Fibonacci hashing, so that groups made one after the other land at random). [[latest]] puts a group's new run in
 * and its earlier one out, copying one search path (expected logarithmic). The enumeration walks it as any union tree.
 *
 * **Shared events.** Where two subtrees of a run may read one event ([[SharedEvents]]), a node also holds the
 * witnesses of its product and of its union subtree ([[DisjointRunWitnesses]]), and a node's max-start is that of its
 * product's runs whose events are distinct.
 *
 * **An arena, not objects.** Nodes are rows of one flat array, addressed by an id that grows by one with each node
 * made (a reference is an id; [[RunNodes.Nil]] is none), a row holding all of a node, so that following a reference
 * reads one cache line or two. The JVM needs it so: union copies a path per
 * call, and with one object per node a window's worth of them would be traced, copied and promoted by the JVM's
 * collector at every collection, a cost that grows with the window. Here the collector sees one primitive array,
 * and the arena frees nodes itself, oldest first, while the oldest is dead ([[reclaim]]). A node's max-start is at
 * most the window value of the event it was made at, so the oldest node dies at the latest when the threshold passes
 * that value: the arena holds the nodes made in about the last window, reachable or not, and freeing them needs no
 * walk over the live ones.
 *
 * A freed id is never read: every reference is followed only through [[live]], which answers false for an id below
 * the oldest kept (a live node is never freed, since the arena frees dead nodes only), and a live node's product
 * children are live (its max-start is at most theirs). Nodes are never changed once read: union copies the path it
 * changes, so every node stays what it stood for. (The one change is to a node made at the event being read, which no
 * one has read yet and only one index entry will: its first union gives it its left child in place, see `above`.)
 *
 * @param width     the most children a node's product has (the automaton's largest child set)
 * @param witnesses the witnesses' layout, or null where no two subtrees of a run may read one event
 * @param grouped   whether some trees are treaps of latest runs ([[latest]]): then a node has a group
 */
final class RunNodes(width: Int, witnesses: DisjointRunWitnesses = null, work: Work = new Work,
    grouped: Boolean = false) {
  import RunNodes._
  require(witnesses == null || !grouped, "latest runs are kept where no two subtrees of a run read one event")

  /** Longs per node: the header, the product's children, its group, and the two families of witnesses. */
  private val carried = width + (if (grouped) 1 else 0)
  private val stride = Header + carried + (if (witnesses == null) 0 else 2 * witnesses.length)
  private val families = Header + carried
  // Small at first: with PARTITION BY, each key has an arena of its own.
  private var capacity = 4
  private var mask = capacity - 1
  /** Node n's row at [base(n), + stride): its header, children (Nil past its arity), witnesses. */
  private[pcea] var rows = new Array[Long](capacity * stride)
  /** The oldest node kept, and the next id to make. */
  private var first = 0L
  private var next = 0L

  /** Nodes kept (made and not yet freed, whether reachable or not): the arena's memory. */
  def size: Int = (next - first).toInt

  def transition(n: Long): Int = (rows(base(n) + Meta) >>> 8).toInt
  def position(n: Long): Long = rows(base(n) + Position)
  def maxStart(n: Long): Long = rows(base(n) + MaxStart)
  def left(n: Long): Long = rows(base(n) + Left)
  def right(n: Long): Long = rows(base(n) + Right)
  /** The product's k-th child (k below the transition's arity). */
  def child(n: Long, k: Int): Long = rows(base(n) + Header + k)
  /** The group of a node of a latest-run treap: the id of its group's first node ([[latest]]). */
  def group(n: Long): Long = rows(base(n) + Header + width)
  /** The length of the node's right spine in its union tree (the leftist heap's rank). */
  private def rank(n: Long): Int = (rows(base(n) + Meta) & 0xffL).toInt

  /** The state a node's runs are in. */
  def stateOf(n: Long): Int = witnesses.stateOf(transition(n))
  /** Where the witnesses of a node's product, and of its union subtree, are in [[rows]] (with witnesses only). */
  def productFamily(n: Long): Int = base(n) + families
  def subtreeFamily(n: Long): Int = base(n) + families + witnesses.length

  /** Whether `n` is a node some run of which starts after `threshold`. */
  def live(n: Long, threshold: Long): Boolean = n >= first && maxStart(n) > threshold

  /**
   * `extend(L, i, N)`: the event at `position` read by `transition` (whose labels are L), above one run of each of the
   * first `arity` nodes of `children`, all live and made earlier. `maxStart` is the least of the event's window value
   * and the children's max-starts: the caller has them from the index, which keeps each tree's beside it, so that
   * making a node reads none of its children (in a wide window, each would be a cache miss). In a state with tracked
   * labels, `family` holds the product's witnesses (at 0), and `maxStart` is their latest start.
   */
  def extend(transition: Int, position: Long, maxStart: Long, children: Array[Long], arity: Int,
      family: Array[Long] = null): Long = {
    val n = make(transition, position, maxStart, Nil, Nil, rank = 1)
    val b = base(n)
    System.arraycopy(children, 0, rows, b + Header, arity)
    if (family != null) {
      val length = 1 + family(0).toInt * witnesses.width(witnesses.stateOf(transition))
      System.arraycopy(family, 0, rows, b + families, length)
      System.arraycopy(family, 0, rows, b + families + witnesses.length, length)
    }
    n
  }

  /**
   * `union(tree, fresh)`: a node for the runs of both, in the window that starts after `threshold`. It is fully
   * persistent: `tree` still stands for what it did. `fresh` was just made by [[extend]] and has no union children.
   * If `tree` is out of the window, the union is `fresh`. Otherwise `fresh` goes down the right spine to the first node
   * it outranks (or an empty or dead subtree), which becomes its left child, and the path is copied bottom up (a loop,
   * not a recursion), each node's children ordered by rank; a dead left child met on the way is dropped.
   *
   * `treeMaxStart` is the tree's max-start, which the index keeps beside it: when `fresh` starts later (a run that
   * starts at the event always does), it becomes the root above `tree` without a read of `tree`.
   */
  def union(tree: Long, treeMaxStart: Long, fresh: Long, threshold: Long, owned: Boolean = false): Long = {
    if (treeMaxStart <= threshold) return fresh
    if (maxStart(fresh) > treeMaxStart) {
      longestUnion = math.max(longestUnion, 1)
      return above(fresh, tree, owned, threshold)
    }
    var depth = 0
    var n = tree
    while (live(n, threshold) && !outranks(fresh, n)) {
      if (depth == path.length) path = java.util.Arrays.copyOf(path, depth * 2)
      path(depth) = n
      depth += 1
      n = right(n)
    }
    longestUnion = math.max(longestUnion, depth + 1)
    var result = if (live(n, threshold)) above(fresh, n, owned, threshold) else fresh
    while (depth > 0) {
      depth -= 1
      val p = path(depth)
      val l = left(p)
      val leftRank = if (live(l, threshold)) rank(l) else 0
      result =
        if (leftRank >= rank(result)) copy(p, l, result, rank(result) + 1, threshold)
        else copy(p, result, if (leftRank == 0) Nil else l, leftRank + 1, threshold)
    }
    result
  }

  /**
   * `fresh` above the live tree `left`, as its left child: a copy of `fresh`, or, when the caller `owned` it (made at
   * the event being read and read by no one yet, nor ever by anyone but the one index entry this union is for),
   * `fresh` itself, given its union child in place. A wide window makes a union at nearly every insertion, and a copy
   * per union would be a second row in the arena for every run made, most of them garbage at once.
   */
  private def above(fresh: Long, left: Long, owned: Boolean, threshold: Long): Long =
    if (!owned) copy(fresh, left, Nil, rank = 1, threshold)
    else {
      val b = base(fresh)
      rows(b + Left) = left
      rows(b + Right) = Nil
      rows(b + Meta) = (rows(b + Meta) & ~0xffL) | 1L
      if (witnesses != null && witnesses.tracks(stateOf(fresh)))
        witnesses.union(stateOf(fresh), rows, productFamily(fresh), subtreeFamily(left), -1, subtreeFamily(fresh))
      fresh
    }

  /**
   * `latest(tree, fresh, group)`: the runs of the treap `tree` in the window after `threshold`, but those of `group`'s
   * earlier node, and `fresh` as the group's node. Persistent: `tree` still stands for what it did. `fresh` goes down
   * the search path for its group to the first node it outranks, or an empty or dead subtree; there the rest is split
   * by the group (the group's earlier node, which `fresh` outranks, is met on the way and dropped), and the path above
   * is copied. Every node made here is new, read by no one yet, so its children are set as the walk finds them. A dead
   * subtree met on the way is cut.
   */
  def latest(tree: Long, fresh: Long, group: Long, threshold: Long): Long = {
    val key = order(group)
    // The copies down the search path: each one's child towards the key is set by the next step.
    var root = Nil
    var above = Nil
    var t = if (live(tree, threshold)) tree else Nil
    while (t != Nil && !outranks(fresh, t)) {
      val c = copy(t, alive(left(t), threshold), alive(right(t), threshold), rank = 1, threshold)
      if (above == Nil) root = c else hang(above, c, key)
      above = c
      t = if (key < order(this.group(t))) alive(left(t), threshold) else alive(right(t), threshold)
    }
    val made = copy(fresh, Nil, Nil, rank = 1, threshold)
    rows(base(made) + Header + width) = group
    // Split t by the key: the smaller keys under made's left, the larger under its right.
    // The next smaller piece hangs on `smaller`'s left (made's) or right (a copy's); the next larger one on
    // `larger`'s right (made's) or left (a copy's).
    var (smaller, smallerOnLeft) = (made, true)
    var (larger, largerOnLeft) = (made, false)
    while (t != Nil) {
      val k = order(this.group(t))
      if (k < key) {
        val c = copy(t, alive(left(t), threshold), Nil, rank = 1, threshold)
        setChild(smaller, smallerOnLeft, c); smaller = c; smallerOnLeft = false
        t = alive(right(t), threshold)
      } else if (k > key) {
        val c = copy(t, Nil, alive(right(t), threshold), rank = 1, threshold)
        setChild(larger, largerOnLeft, c); larger = c; largerOnLeft = true
        t = alive(left(t), threshold)
      } else {
        setChild(smaller, smallerOnLeft, alive(left(t), threshold))
        setChild(larger, largerOnLeft, alive(right(t), threshold))
        t = Nil
      }
    }
    if (above == Nil) made else { hang(above, made, key); root }
  }

  private def alive(n: Long, threshold: Long): Long = if (live(n, threshold)) n else Nil

  /** Sets the child of a node made by [[latest]] towards `key`. */
  private def hang(parent: Long, child: Long, key: Long): Unit =
    setChild(parent, key < order(group(parent)), child)

  private def setChild(parent: Long, left: Boolean, child: Long): Unit =
    rows(base(parent) + (if (left) Left else Right)) = child

  /** Union's path down, reused. */
  private var path = new Array[Long](16)

  /** The most nodes one union has copied: for the tests of the union's cost. */
  private[pcea] var longestUnion = 0

  /** Frees the oldest nodes while they are dead: `threshold` never decreases. */
  def reclaim(threshold: Long): Unit = while (first < next && maxStart(first) <= threshold) first += 1

  /** Frees every node. */
  def clear(): Unit = first = next

  /** The heap's order: by max-start, then by position. */
  private def outranks(a: Long, b: Long): Boolean = {
    val (sa, sb) = (maxStart(a), maxStart(b))
    sa > sb || (sa == sb && position(a) > position(b))
  }

  /** Node `n`'s product with the union children `left` and `right` (its union subtree's witnesses made anew). */
  private def copy(n: Long, left: Long, right: Long, rank: Int, threshold: Long): Long = {
    work.unionNodes += 1
    val made = make(transition(n), position(n), maxStart(n), left, right, rank)
    System.arraycopy(rows, base(n) + Header, rows, base(made) + Header, carried)
    if (witnesses != null && witnesses.tracks(stateOf(n))) {
      val q = stateOf(n)
      val product = productFamily(made)
      System.arraycopy(rows, productFamily(n), rows, product, 1 + rows(productFamily(n)).toInt * witnesses.width(q))
      def subtree(c: Long) = if (live(c, threshold)) subtreeFamily(c) else -1
      witnesses.union(q, rows, product, subtree(left), subtree(right), subtreeFamily(made))
    }
    made
  }

  private def make(transition: Int, position: Long, maxStart: Long, left: Long, right: Long, rank: Int): Long = {
    if (next - first == capacity) grow()
    val n = next
    val b = base(n)
    rows(b + Meta) = (transition.toLong << 8) | rank
    rows(b + Position) = position
    rows(b + MaxStart) = maxStart
    rows(b + Left) = left
    rows(b + Right) = right
    java.util.Arrays.fill(rows, b + Header, b + Header + width, Nil)
    next += 1
    n
  }

  private def base(n: Long): Int = (n & mask).toInt * stride

  /** Doubles the arena, each kept node moving to its slot under the new mask. */
  private def grow(): Unit = {
    val (oldMask, oldRows) = (mask, rows)
    capacity *= 2
    mask = capacity - 1
    rows = new Array[Long](capacity * stride)
    var n = first
    while (n < next) {
      System.arraycopy(oldRows, (n & oldMask).toInt * stride, rows, base(n), stride)
      n += 1
    }
  }

  /** Writes the kept nodes (their ids relative to the oldest), for [[read]] in another process. */
  def write(out: java.io.DataOutput): Unit = {
    out.writeLong(first)
    out.writeInt(size)
    out.writeInt(stride)
    var n = first
    while (n < next) {
      val b = base(n)
      var k = 0
      while (k < stride) { out.writeLong(rows(b + k)); k += 1 }
      n += 1
    }
  }

  /** Makes this arena, which must be empty, the one [[write]] wrote: the same nodes under the same ids. */
  def read(in: java.io.DataInput): Unit = {
    require(size == 0, "an arena is read into when empty")
    first = in.readLong()
    next = first
    val count = in.readInt()
    require(in.readInt() == stride, "the saved nodes are of another automaton")
    while (capacity < count) capacity *= 2
    mask = capacity - 1
    rows = new Array[Long](capacity * stride)
    for (_ <- 0 until count) {
      val b = base(next)
      var k = 0
      while (k < stride) { rows(b + k) = in.readLong(); k += 1 }
      next += 1
    }
  }
}

object RunNodes {
  /** No node. */
  val Nil: Long = -1L

  /**
   * The search order of a group in a treap of latest runs: its id spread by Fibonacci hashing (a bijection), so that
   * ids made one after the other fall at random.
   */
  private[pcea] def order(group: Long): Long = group * 0x9e3779b97f4a7c15L

  // A row's header: the transition and the rank (its low 8 bits; a rank is at most log2 of the nodes), then the rest.
  private val Meta = 0
  private val Position = 1
  private val MaxStart = 2
  private val Left = 3
  private val Right = 4
  private val Header = 5
}
