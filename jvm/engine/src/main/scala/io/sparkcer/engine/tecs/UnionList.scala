package io.sparkcer.engine.tecs

import java.io.{DataInput, DataOutput}

/**
 * CORE's union-list: the safe nodes that reach one automaton state at one event, sorted by decreasing maximum
 * start. As in the paper, its first node is never a union (it may share its maximum start with the second), and after
 * it there is at most one node per maximum start (nodes with equal maximum starts are united on insertion): that is
 * what keeps the tECS 3-bounded, the merged node of a list having at most one union above its first output and every
 * other entry at most two. Its length is bounded by the number of active states, so every operation is constant time
 * in data complexity.
 */
final class UnionList {
  private var nodes = new Array[Int](4)
  private var keys = new Array[Long](4)
  /**
   * The list merged from entry i on (`suffixes(i)` = union(nodes(i), suffixes(i + 1))), for every i from `mergedFrom`
   * on: what [[merge]] made and what has not changed since. An insertion at position p changes only the suffixes up to
   * p, so the next merge makes p new unions, not one per entry, and a list handed on unchanged from event to event (a
   * run that skips) is merged once. A suffix stays valid while its first entry is in the window: it was made at an
   * event no earlier than that entry's maximum start, so the tECS reclaims it only once that entry has left, and a tail
   * that has left sooner is cut off by the union that points at it, as in any merge.
   */
  private var suffixes = new Array[Int](4)
  private var mergedFrom = 0
  private var size = 0

  def isEmpty: Boolean = size == 0
  def length: Int = size
  def node(i: Int): Int = nodes(i)
  def key(i: Int): Long = keys(i)

  def clear(): Unit = { size = 0; mergedFrom = 0 }

  /** Add into an empty list (`RunSlots.addTo`): it takes the entries of `source` that are still in the window. */
  def takeEntries(source: UnionList, threshold: Long): Unit = {
    source.expire(threshold)
    if (source.size > nodes.length) {
      nodes = new Array[Int](source.nodes.length)
      keys = new Array[Long](source.nodes.length)
      suffixes = new Array[Int](source.nodes.length)
    }
    System.arraycopy(source.nodes, 0, nodes, 0, source.size)
    System.arraycopy(source.keys, 0, keys, 0, source.size)
    System.arraycopy(source.suffixes, source.mergedFrom, suffixes, source.mergedFrom, source.size - source.mergedFrom)
    size = source.size
    mergedFrom = source.mergedFrom
  }

  /**
   * insert(ul, n) of the paper: adds a safe node whose maximum start is at most the first node's, dropping whatever has
   * fallen out of the window. Into an empty list only a node that is not a union may go (`RunSlots.addTo` hands a
   * union's entries on instead): a bottom node, or one that an event extends.
   */
  def insert(tecs: Tecs, node: Int, maxStart: Long, threshold: Long): Unit = {
    if (maxStart <= threshold) return
    if (size == 0) {
      // CORE's invariants, checked without the closure that `require`'s message would allocate on this hot path.
      if (tecs.isUnion(node))
        throw new IllegalStateException("a union-list's first node is not a union (CORE's Algorithm 1)")
      put(0, node, maxStart)
    } else {
      if (maxStart > keys(0))
        throw new IllegalStateException(s"a node that starts at $maxStart after the union-list's first, at ${keys(0)}")
      var i = 1
      while (i < size && keys(i) > maxStart) i += 1
      if (i < size && keys(i) == maxStart) {
        nodes(i) = tecs.unionSafe(nodes(i), node, threshold)
        mergedFrom = math.max(mergedFrom, i + 1)
      } else put(i, node, maxStart)
    }
  }

  private def put(i: Int, node: Int, maxStart: Long): Unit = {
    if (size == nodes.length) {
      nodes = java.util.Arrays.copyOf(nodes, size * 2)
      keys = java.util.Arrays.copyOf(keys, size * 2)
      suffixes = java.util.Arrays.copyOf(suffixes, size * 2)
    }
    System.arraycopy(nodes, i, nodes, i + 1, size - i)
    System.arraycopy(keys, i, keys, i + 1, size - i)
    System.arraycopy(suffixes, i, suffixes, i + 1, size - i)
    nodes(i) = node
    keys(i) = maxStart
    size += 1
    mergedFrom = math.max(mergedFrom, i) + 1 // the suffixes after i are those of the same entries, one place on
  }

  /** Drops the entries that fell out of the window (they sit at the end). */
  def expire(threshold: Long): Unit = {
    while (size > 0 && keys(size - 1) <= threshold) size -= 1
    if (mergedFrom > size) mergedFrom = size
  }

  /**
   * One node for the whole list: a right-leaning chain of unions, each left child an entry, so that the first output
   * is at most three unions away and the out-of-window tail is cut off in one step; only the unions in front of the
   * part merged before are made (`suffixes`). -1 if nothing is live.
   */
  def merge(tecs: Tecs, threshold: Long): Int = {
    expire(threshold)
    if (size == 0) -1
    else {
      if (mergedFrom == size) { suffixes(size - 1) = nodes(size - 1); mergedFrom = size - 1 }
      var i = mergedFrom - 1
      while (i >= 0) { suffixes(i) = tecs.union(nodes(i), suffixes(i + 1), keys(i + 1)); i -= 1 }
      mergedFrom = 0
      suffixes(0)
    }
  }

  def maxStart: Long = keys(0)

  def save(out: DataOutput): Unit = {
    out.writeInt(size)
    for (i <- 0 until size) { out.writeInt(nodes(i)); out.writeLong(keys(i)) }
  }

  def load(in: DataInput): Unit = {
    size = in.readInt()
    mergedFrom = size
    if (size > nodes.length) {
      nodes = new Array[Int](size); keys = new Array[Long](size); suffixes = new Array[Int](size)
    }
    for (i <- 0 until size) { nodes(i) = in.readInt(); keys(i) = in.readLong() }
  }
}
