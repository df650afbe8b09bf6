package io.sparkcer.engine.tecs

import java.io.{DataInput, DataOutput}

/**
 * CORE's union-list: the safe nodes that reach one automaton state at one event, sorted by decreasing maximum
 * start, at most one per maximum start (nodes with equal maximum starts are united on insertion). Its length is
 * bounded by the number of active states, so every operation is constant time in data complexity.
 */
final class UnionList {
  private var nodes = new Array[Int](4)
  private var keys = new Array[Long](4)
  private var size = 0

  def isEmpty: Boolean = size == 0
  def length: Int = size
  def node(i: Int): Int = nodes(i)
  def key(i: Int): Long = keys(i)
  def clear(): Unit = size = 0

  /** Adds a safe node, dropping whatever has fallen out of the window. */
  def insert(tecs: Tecs, node: Int, maxStart: Long, threshold: Long): Unit = {
    if (maxStart <= threshold) return
    var i = 0
    while (i < size && keys(i) > maxStart) i += 1
    if (i < size && keys(i) == maxStart) nodes(i) = tecs.unionSafe(nodes(i), node, threshold)
    else {
      if (size == nodes.length) {
        nodes = java.util.Arrays.copyOf(nodes, size * 2)
        keys = java.util.Arrays.copyOf(keys, size * 2)
      }
      System.arraycopy(nodes, i, nodes, i + 1, size - i)
      System.arraycopy(keys, i, keys, i + 1, size - i)
      nodes(i) = node
      keys(i) = maxStart
      size += 1
    }
  }

  /** Drops the entries that fell out of the window (they sit at the end). */
  def expire(threshold: Long): Unit = while (size > 0 && keys(size - 1) <= threshold) size -= 1

  /**
   * One node for the whole list: a right-leaning chain of unions, each left child an entry, so that the first
   * output is at most three unions away and the out-of-window tail is cut off in one step. -1 if nothing is live.
   */
  def merge(tecs: Tecs, threshold: Long): Int = {
    expire(threshold)
    if (size == 0) -1
    else {
      var chain = nodes(size - 1)
      var i = size - 2
      while (i >= 0) { chain = tecs.union(nodes(i), chain, keys(i + 1)); i -= 1 }
      chain
    }
  }

  def maxStart: Long = keys(0)

  def save(out: DataOutput): Unit = {
    out.writeInt(size)
    for (i <- 0 until size) { out.writeInt(nodes(i)); out.writeLong(keys(i)) }
  }

  def load(in: DataInput): Unit = {
    size = in.readInt()
    if (size > nodes.length) { nodes = new Array[Int](size); keys = new Array[Long](size) }
    for (i <- 0 until size) { nodes(i) = in.readInt(); keys(i) = in.readLong() }
  }
}
