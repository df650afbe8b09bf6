package io.sparkcer.engine.pcea

/**
 * The index H[transition, child state, key] of a PCEA: from a key to, per join (a transition and a child slot), the
 * union tree of the runs indexed there under that key (a node of [[RunNodes]]), or none.
 *
 * It is the hottest structure of Algorithm 1: an event looks up one entry per child state of each transition it
 * passes, and updates one per consumer of each node it makes. With many keys (an account each) the table outgrows
 * the caches, and every slot a lookup touches is a cache miss. So it is one table for all the joins, each a column of
 * its slots: an event that looks a value up for several transitions (a transfer extending runs at several steps of a
 * chain, all keyed by its account) or makes nodes for several (each kept under the account it pays) finds one slot,
 * once ([[find]] remembers the last key it found), and a chain's update costs about two misses per event whatever
 * the number of transitions that fire. It is open-addressed with linear probing over `keys`, eight to a cache line,
 * and a slot's columns, each join's tree and its max-start side by side, are in `trees`, read once the key is found.
 * A key that is a `java.lang.Long` (ids: the common case) is stored unboxed and compared as a number; any other key
 * (a string, a decimal, the list of several classes' values, [[PceaPlan.NoKey]]) by `equals`, as a
 * `java.util.HashMap` would, in `objects`, which exists only once such a key has come.
 *
 * A free slot's key is 0, so the Long key 0 has a slot of its own past the table (`capacity`); a slot whose key is not
 * a Long marks its key with 1 (`objects` tells it from the Long 1).
 *
 * Memory (digest B7.9: the paper never drops an entry): entries whose runs have all left the window, in every join,
 * are purged once as many keys have come since the last purge as it kept, so a purge's cost (a pass over the table)
 * is paid by the insertions before it, and the table holds at most about twice the keys of a window.
 *
 * @param joins the columns: join j's tree under a key is in its slot's column j
 */
final class KeyIndex(joins: Int = 1) {
  /** Longs per slot in `trees`: per join, its tree's max-start and its tree. */
  private val width = 2 * joins
  private val noTrees = Array.tabulate(width)(i => if (i % 2 == 0) Long.MinValue else RunNodes.Nil)
  private var capacity = KeyIndex.MinCapacity
  /** Per slot, its key (0: free). */
  private var keys = new Array[Long](capacity + 1)
  /** Per slot s, per join j: at width s + 2j its tree's max-start (Long.MinValue with no tree), then its tree. */
  private var trees = new Array[Long](width * (capacity + 1))
  /** Per slot, the key when it is not a Long; null until such a key comes. */
  private var objects: Array[AnyRef] = _
  private var count = 0
  /** Whether the slot of the Long key 0 is taken. */
  private var hasZero = false
  /** Entries the last purge kept, and keys inserted since: a purge comes once they are as many. */
  private var keptAtPurge = 0
  private var insertedSincePurge = 0
  /** The key [[find]] found last, and its slot: until the slots move (an insertion, a purge). */
  private var lastKey: AnyRef = _
  private var lastSlot = -1

  def size: Int = count

  /** Join `join`'s union tree under `key` if some run of it is in the window after `threshold`, else [[RunNodes.Nil]]. */
  def live(key: AnyRef, join: Int, threshold: Long): Long = {
    val s = liveSlot(key, join, threshold)
    if (s < 0) RunNodes.Nil else tree(s, join)
  }

  /** The slot of `key` if some run of join `join`'s tree is in the window after `threshold` ([[tree]], [[maxStart]]), or -1. */
  def liveSlot(key: AnyRef, join: Int, threshold: Long): Int = {
    val s = find(key)
    if (s < 0 || maxStart(s, join) <= threshold) -1 else s
  }

  /** Join `join`'s union tree in a slot that [[liveSlot]] gave. */
  def tree(slot: Int, join: Int): Long = trees(width * slot + 2 * join + 1)

  /** Its max-start: read here, beside the tree, and not off the tree's root in the arena. */
  def maxStart(slot: Int, join: Int): Long = trees(width * slot + 2 * join)

  /** Join `join`'s union tree under `key`, live or not, or [[RunNodes.Nil]]. */
  def get(key: AnyRef, join: Int): Long = {
    val s = find(key)
    if (s < 0) RunNodes.Nil else tree(s, join)
  }

  /**
   * H[join, key] ← union(H[join, key], fresh) (see [[RunNodes.union]]): `fresh` joins the runs indexed under `key`
   * for `join`, in the window after `threshold`.
   */
  def add(key: AnyRef, join: Int, fresh: Long, nodes: RunNodes, threshold: Long): Unit = {
    val at = width * slotFor(key, threshold) + 2 * join
    val union = if (trees(at + 1) == RunNodes.Nil) fresh else nodes.union(trees(at + 1), trees(at), fresh, threshold)
    trees(at) = nodes.maxStart(union)
    trees(at + 1) = union
  }

  /** Drops the entries whose runs have all left the window after `threshold`, and shrinks a table mostly empty. */
  def purge(threshold: Long): Unit = {
    lastKey = null
    var s = 0
    while (s <= capacity) {
      // A vacated slot may take the entry after it: the same slot is examined again.
      if (occupied(s) && dead(s, threshold)) { vacate(s); count -= 1 } else s += 1
    }
    keptAtPurge = count
    insertedSincePurge = 0
    if (capacity > KeyIndex.MinCapacity && 8 * count < capacity) resize(KeyIndex.capacityFor(count))
  }

  def clear(): Unit = { allocate(KeyIndex.MinCapacity); count = 0; keptAtPurge = 0; insertedSincePurge = 0 }

  /** Each union tree: `f(join, tree)`. */
  def foreachTree(f: (Int, Long) => Unit): Unit = {
    var s = 0
    while (s <= capacity) {
      if (occupied(s)) { var j = 0; while (j < joins) { if (tree(s, j) != RunNodes.Nil) f(j, tree(s, j)); j += 1 } }
      s += 1
    }
  }

  /** Puts join `join`'s tree under `key`, where it has none (a saved index read back). */
  def restore(key: AnyRef, join: Int, maxStart: Long, tree: Long): Unit = {
    val at = width * slotFor(key, Long.MinValue) + 2 * join
    trees(at) = maxStart
    trees(at + 1) = tree
  }

  /** The slot of `key`, taken (with no tree in any join) if it had none. */
  private def slotFor(key: AnyRef, threshold: Long): Int = {
    val s = find(key)
    if (s >= 0) s
    else {
      if (insertedSincePurge >= keptAtPurge + KeyIndex.MinCapacity) purge(threshold)
      if (2 * (count + 1) > capacity) resize(capacity * 2)
      count += 1
      insertedSincePurge += 1
      insert(key)
    }
  }

  /** Whether every join's runs in slot s have left the window after `threshold`. */
  private def dead(s: Int, threshold: Long): Boolean = {
    var j = 0
    while (j < joins) { if (maxStart(s, j) > threshold) return false; j += 1 }
    true
  }

  private def occupied(s: Int): Boolean = if (s == capacity) hasZero else keys(s) != 0L

  /** The slot holding `key`, or -1. */
  private def find(key: AnyRef): Int = {
    if (key eq lastKey) return lastSlot
    val s = key match {
      case n: java.lang.Long =>
        val v = n.longValue
        if (v == 0L) { if (hasZero) capacity else -1 }
        else {
          val mask = capacity - 1
          var s = KeyIndex.spread(v) & mask
          while (keys(s) != 0L && (keys(s) != v || (objects != null && objects(s) != null))) s = (s + 1) & mask
          if (keys(s) == 0L) -1 else s
        }
      case _ =>
        if (objects == null) -1
        else {
          val mask = capacity - 1
          var s = KeyIndex.spread(key.hashCode) & mask
          while (keys(s) != 0L && (objects(s) == null || !objects(s).equals(key))) s = (s + 1) & mask
          if (keys(s) == 0L) -1 else s
        }
    }
    if (s >= 0) { lastKey = key; lastSlot = s }
    s
  }

  /** Puts a key known to be absent into the first free slot of its probe sequence, with no tree; returns the slot. */
  private def insert(key: AnyRef): Int = {
    lastKey = null
    val s = key match {
      case n: java.lang.Long if n.longValue == 0L => hasZero = true; capacity
      case n: java.lang.Long =>
        val s = freeSlot(KeyIndex.spread(n.longValue))
        keys(s) = n.longValue
        s
      case _ =>
        if (objects == null) objects = new Array[AnyRef](capacity + 1)
        val s = freeSlot(KeyIndex.spread(key.hashCode))
        keys(s) = 1L
        objects(s) = key
        s
    }
    System.arraycopy(noTrees, 0, trees, width * s, width)
    s
  }

  private def freeSlot(hash: Int): Int = {
    val mask = capacity - 1
    var s = hash & mask
    while (keys(s) != 0L) s = (s + 1) & mask
    s
  }

  /**
   * Empties slot s, and moves back the entries after it that probing would no longer find (Knuth's deletion for
   * linear probing: no tombstones). A purge scanning forward sees every entry: an entry moves only back to a hole at
   * or after the slot being examined, or, in a run of slots that wraps past the table's end, from its start (seen
   * already) to its end, where it is seen twice, which a purge tolerates.
   */
  private def vacate(slot: Int): Unit = {
    if (slot == capacity) { hasZero = false; return }
    val mask = capacity - 1
    var hole = slot
    var s = (slot + 1) & mask
    while (keys(s) != 0L) {
      val home = homeOf(s) & mask
      // The entry at s may fill the hole if its home is not cyclically within (hole, s].
      if (((s - home) & mask) >= ((s - hole) & mask)) {
        keys(hole) = keys(s)
        System.arraycopy(trees, width * s, trees, width * hole, width)
        if (objects != null) objects(hole) = objects(s)
        hole = s
      }
      s = (s + 1) & mask
    }
    keys(hole) = 0L
    if (objects != null) objects(hole) = null
  }

  private def homeOf(s: Int): Int =
    if (objects != null && objects(s) != null) KeyIndex.spread(objects(s).hashCode) else KeyIndex.spread(keys(s))

  private def resize(newCapacity: Int): Unit = {
    val (oldKeys, oldTrees, oldObjects, oldCapacity, zero) = (keys, trees, objects, capacity, hasZero)
    allocate(newCapacity)
    def move(from: Int, key: AnyRef): Unit = System.arraycopy(oldTrees, width * from, trees, width * insert(key), width)
    var s = 0
    while (s < oldCapacity) {
      if (oldKeys(s) != 0L) move(s, if (oldObjects != null && oldObjects(s) != null) oldObjects(s) else Long.box(oldKeys(s)))
      s += 1
    }
    if (zero) move(oldCapacity, Long.box(0L))
  }

  private def allocate(newCapacity: Int): Unit = {
    capacity = newCapacity
    keys = new Array[Long](capacity + 1)
    trees = new Array[Long](width * (capacity + 1))
    objects = null
    hasZero = false
    lastKey = null
  }
}

private object KeyIndex {
  /** Small: with PARTITION BY, each key has indexes of its own. */
  val MinCapacity = 4

  /** A power of two at least twice `entries`: the table stays at most half full, where linear probing is short. */
  def capacityFor(entries: Int): Int = math.max(MinCapacity, Integer.highestOneBit(math.max(1, 2 * entries - 1)) << 1)

  /** Fibonacci hashing: consecutive ids land far apart, and the high bits of the product reach the low ones. */
  def spread(v: Long): Int = {
    val h = v * 0x9E3779B97F4A7C15L
    (h ^ (h >>> 32)).toInt
  }
}
