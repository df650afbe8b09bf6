package io.sparkcer.engine.pcea

/**
 * One join's part of the index H[transition, child state, key]: from a key to the union tree of the runs indexed
 * under it (a node of [[RunNodes]]).
 *
 * It is the hottest structure of Algorithm 1: an event looks up one entry per child state of each transition it
 * passes, and updates one per consumer of each node it makes. With many keys (an account each) the table outgrows
 * the caches, and every array a lookup touches is a cache miss. So it is open-addressed with linear probing, and a
 * slot's key, its tree's max-start and its tree sit side by side in one array (`cells`): a lookup reads one cache
 * line or two. A key that is a `java.lang.Long` (ids: the common case) is stored unboxed and compared as a number;
 * any other key (a string, a decimal, the list of several classes' values, [[PceaPlan.NoKey]]) by `equals`, as a
 * `java.util.HashMap` would, in `objects`, which exists only once such a key has come.
 *
 * A free slot's key cell is 0, so the Long key 0 has a slot of its own past the table (`capacity`); a slot whose
 * key is not a Long marks its key cell with 1 (`objects` tells it from the Long 1).
 *
 * Memory (the PCEA paper's §5 never drops an entry, so its index grows with the stream): entries whose runs have all left the window are purged once
 * as many keys have come since the last purge as it kept, so a purge's cost (a pass over the table) is paid by the
 * insertions before it, and the table holds at most about twice the keys of a window.
 */
final class KeyIndex {
  private var capacity = KeyIndex.MinCapacity
  /** Per slot s: cells(3s) the key (0: free), cells(3s + 1) the max-start of its tree, cells(3s + 2) the tree. */
  private var cells = new Array[Long](KeyIndex.Width * (capacity + 1))
  /** Per slot, the key when it is not a Long; null until such a key comes. */
  private var objects: Array[AnyRef] = _
  private var count = 0
  /** Whether the slot of the Long key 0 is taken. */
  private var hasZero = false
  /** Entries the last purge kept, and keys inserted since: a purge comes once they are as many. */
  private var keptAtPurge = 0
  private var insertedSincePurge = 0

  def size: Int = count

  /** The union tree indexed under `key` if some run of it is in the window after `threshold`, else [[RunNodes.Nil]]. */
  def live(key: AnyRef, threshold: Long): Long = {
    val s = liveSlot(key, threshold)
    if (s < 0) RunNodes.Nil else tree(s)
  }

  /** The slot of `key` if some run of its tree is in the window after `threshold` (see [[tree]], [[maxStart]]), or -1. */
  def liveSlot(key: AnyRef, threshold: Long): Int = {
    val s = find(key)
    if (s < 0 || maxStart(s) <= threshold) -1 else s
  }

  /** The union tree in a slot that [[liveSlot]] gave. */
  def tree(slot: Int): Long = cells(KeyIndex.Width * slot + 2)

  /** Its max-start: read here, beside the key, and not off the tree's root in the arena. */
  def maxStart(slot: Int): Long = cells(KeyIndex.Width * slot + 1)

  /** Whether the table is larger than a core's share of the caches usually holds: [[touch]] pays only then. */
  def outgrowsCaches: Boolean = capacity >= KeyIndex.CachedSlots

  /** The cell where `key`'s probe sequence starts, for [[touch]]. */
  def home(key: AnyRef): Int = {
    val h = key match {
      case n: java.lang.Long => KeyIndex.spread(n.longValue)
      case _ => KeyIndex.spread(key.hashCode)
    }
    KeyIndex.Width * (h & (capacity - 1))
  }

  /**
   * Reads a cell that [[home]] gave, and returns it, so that its cache line is on its way before [[liveSlot]] or
   * [[add]] needs it (see [[PceaRun]]'s `prefetch`): no state changes.
   */
  def touch(cell: Int): Long = cells(cell)

  /** The union tree indexed under `key`, live or not, or [[RunNodes.Nil]]. */
  def get(key: AnyRef): Long = {
    val s = find(key)
    if (s < 0) RunNodes.Nil else tree(s)
  }

  /**
   * H[key] ← union(H[key], fresh) (see [[RunNodes.union]]): `fresh` joins the runs indexed under `key`, in the
   * window after `threshold`; `owned` if this entry is the only reference `fresh` will ever have (the union may then
   * change it in place).
   */
  def add(key: AnyRef, fresh: Long, nodes: RunNodes, threshold: Long, owned: Boolean = false): Unit = {
    val s = find(key)
    if (s >= 0) {
      val union = nodes.union(tree(s), maxStart(s), fresh, threshold, owned)
      cells(KeyIndex.Width * s + 1) = nodes.maxStart(union)
      cells(KeyIndex.Width * s + 2) = union
    } else added(key, nodes.maxStart(fresh), fresh, threshold)
  }

  /**
   * H[key] ← fresh, the union dropped: for a join whose runs under one key differ only in an event no selected
   * variable binds, the latest of them reads, of all else, what any earlier one read and more
   * ([[PceaPlan.latestOnly]]), so it stands for them all, and the earlier ones would only repeat its rows.
   */
  def replace(key: AnyRef, fresh: Long, nodes: RunNodes, threshold: Long): Unit = {
    val s = find(key)
    if (s >= 0) {
      cells(KeyIndex.Width * s + 1) = nodes.maxStart(fresh)
      cells(KeyIndex.Width * s + 2) = fresh
    } else added(key, nodes.maxStart(fresh), fresh, threshold)
  }

  /**
   * H[key] ← latest(H[key], fresh) ([[RunNodes.latest]]): where the runs under one key fall in groups of which only the
   * latest counts ([[PceaPlan.latestOnly]]), `fresh` replaces its group's earlier run in the entry's treap.
   */
  def latest(key: AnyRef, fresh: Long, group: Long, nodes: RunNodes, threshold: Long): Unit = {
    val s = find(key)
    if (s >= 0) {
      val tree = nodes.latest(if (maxStart(s) > threshold) this.tree(s) else RunNodes.Nil, fresh, group, threshold)
      cells(KeyIndex.Width * s + 1) = nodes.maxStart(tree)
      cells(KeyIndex.Width * s + 2) = tree
    } else added(key, nodes.maxStart(fresh), nodes.latest(RunNodes.Nil, fresh, group, threshold), threshold)
  }

  /**
   * The group of the runs under `key` ([[latest]]), as a table from the key to the group's first node and its latest
   * run's max-start, `value`: `node` starts the group if none is in the window. A purge drops a group whose runs have
   * all left the window.
   */
  def group(key: AnyRef, node: Long, value: Long, threshold: Long): Long = {
    val s = find(key)
    if (s >= 0 && maxStart(s) > threshold) { cells(KeyIndex.Width * s + 1) = value; tree(s) }
    else {
      if (s >= 0) { cells(KeyIndex.Width * s + 1) = value; cells(KeyIndex.Width * s + 2) = node }
      else added(key, value, node, threshold)
      node
    }
  }

  /**
   * Records that an event of window value `value` was seen under `key`, as an entry without a tree (its max-start the
   * latest such value): a table of keys alone, which [[liveSlot]] reads, and a purge drops once `value` leaves the window.
   */
  def note(key: AnyRef, value: Long, threshold: Long): Unit = {
    val s = find(key)
    if (s >= 0) { if (value > maxStart(s)) cells(KeyIndex.Width * s + 1) = value }
    else added(key, value, RunNodes.Nil, threshold)
  }

  /** A new entry, for a key known to be absent: purged first once due, and grown when half full. */
  private def added(key: AnyRef, maxStart: Long, tree: Long, threshold: Long): Unit = {
    if (insertedSincePurge >= keptAtPurge + KeyIndex.MinCapacity) purge(threshold)
    if (2 * (count + 1) > capacity) resize(capacity * 2)
    insert(key, maxStart, tree)
    count += 1
    insertedSincePurge += 1
  }

  /** Drops the entries whose runs have all left the window after `threshold`, and shrinks a table mostly empty. */
  def purge(threshold: Long): Unit = {
    var s = 0
    while (s <= capacity) {
      // A vacated slot may take the entry after it: the same slot is examined again.
      if (occupied(s) && maxStart(s) <= threshold) { vacate(s); count -= 1 }
      else s += 1
    }
    keptAtPurge = count
    insertedSincePurge = 0
    if (capacity > KeyIndex.MinCapacity && 8 * count < capacity) resize(KeyIndex.capacityFor(count))
  }

  def clear(): Unit = { allocate(KeyIndex.MinCapacity); count = 0; keptAtPurge = 0; insertedSincePurge = 0 }

  /** Each entry's union tree. */
  def foreachTree(f: Long => Unit): Unit = {
    var s = 0
    while (s <= capacity) { if (occupied(s)) f(tree(s)); s += 1 }
  }

  /** Puts a tree under a key known to be absent (a saved index read back). */
  def restore(key: AnyRef, maxStart: Long, tree: Long): Unit = {
    if (2 * (count + 1) > capacity) resize(capacity * 2)
    insert(key, maxStart, tree)
    count += 1
  }

  private def occupied(s: Int): Boolean = if (s == capacity) hasZero else cells(KeyIndex.Width * s) != 0L

  /** The slot holding `key`, or -1. */
  private def find(key: AnyRef): Int = {
    val mask = capacity - 1
    key match {
      case n: java.lang.Long =>
        val v = n.longValue
        if (v == 0L) return if (hasZero) capacity else -1
        var s = KeyIndex.spread(v) & mask
        while (true) {
          val k = cells(KeyIndex.Width * s)
          if (k == v && (objects == null || objects(s) == null)) return s
          if (k == 0L) return -1
          s = (s + 1) & mask
        }
        -1
      case _ =>
        if (objects == null) return -1
        var s = KeyIndex.spread(key.hashCode) & mask
        while (cells(KeyIndex.Width * s) != 0L) {
          if (objects(s) != null && objects(s).equals(key)) return s
          s = (s + 1) & mask
        }
        -1
    }
  }

  /** Puts a key known to be absent into the first free slot of its probe sequence. */
  private def insert(key: AnyRef, maxStart: Long, tree: Long): Unit = {
    val s = key match {
      case n: java.lang.Long if n.longValue == 0L => hasZero = true; capacity
      case n: java.lang.Long =>
        val s = freeSlot(KeyIndex.spread(n.longValue))
        cells(KeyIndex.Width * s) = n.longValue
        s
      case _ =>
        if (objects == null) objects = new Array[AnyRef](capacity + 1)
        val s = freeSlot(KeyIndex.spread(key.hashCode))
        cells(KeyIndex.Width * s) = 1L
        objects(s) = key
        s
    }
    cells(KeyIndex.Width * s + 1) = maxStart
    cells(KeyIndex.Width * s + 2) = tree
  }

  private def freeSlot(hash: Int): Int = {
    val mask = capacity - 1
    var s = hash & mask
    while (cells(KeyIndex.Width * s) != 0L) s = (s + 1) & mask
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
    while (cells(KeyIndex.Width * s) != 0L) {
      val home = homeOf(s) & mask
      // The entry at s may fill the hole if its home is not cyclically within (hole, s].
      if (((s - home) & mask) >= ((s - hole) & mask)) {
        System.arraycopy(cells, KeyIndex.Width * s, cells, KeyIndex.Width * hole, KeyIndex.Width)
        if (objects != null) objects(hole) = objects(s)
        hole = s
      }
      s = (s + 1) & mask
    }
    cells(KeyIndex.Width * hole) = 0L
    if (objects != null) objects(hole) = null
  }

  private def homeOf(s: Int): Int =
    if (objects != null && objects(s) != null) KeyIndex.spread(objects(s).hashCode)
    else KeyIndex.spread(cells(KeyIndex.Width * s))

  private def resize(newCapacity: Int): Unit = {
    val (oldCells, oldObjects, oldCapacity, zero) = (cells, objects, capacity, hasZero)
    allocate(newCapacity)
    var s = 0
    while (s < oldCapacity) {
      if (oldCells(KeyIndex.Width * s) != 0L) {
        val key: AnyRef =
          if (oldObjects != null && oldObjects(s) != null) oldObjects(s) else Long.box(oldCells(KeyIndex.Width * s))
        insert(key, oldCells(KeyIndex.Width * s + 1), oldCells(KeyIndex.Width * s + 2))
      }
      s += 1
    }
    if (zero)
      insert(Long.box(0L), oldCells(KeyIndex.Width * oldCapacity + 1), oldCells(KeyIndex.Width * oldCapacity + 2))
  }

  private def allocate(newCapacity: Int): Unit = {
    capacity = newCapacity
    cells = new Array[Long](KeyIndex.Width * (capacity + 1))
    objects = null
    hasZero = false
  }
}

private object KeyIndex {
  /** Small: with PARTITION BY, each key has indexes of its own. */
  val MinCapacity = 4
  /** Slots past which a table is taken not to stay in the caches (128K slots of 24 bytes: 3 MB, past a core's L2). */
  val CachedSlots = 1 << 17
  /** Longs per slot in `cells`. */
  val Width = 3

  /** A power of two at least twice `entries`: the table stays at most half full, where linear probing is short. */
  def capacityFor(entries: Int): Int = math.max(MinCapacity, Integer.highestOneBit(math.max(1, 2 * entries - 1)) << 1)

  /** Fibonacci hashing: consecutive ids land far apart, and the high bits of the product reach the low ones. */
  def spread(v: Long): Int = {
    val h = v * 0x9e3779b97f4a7c15L
    (h ^ (h >>> 32)).toInt
  }
}
