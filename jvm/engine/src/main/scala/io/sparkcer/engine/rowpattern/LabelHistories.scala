package io.sparkcer.engine.rowpattern

import java.io.{DataInput, DataOutput}

import scala.collection.mutable

/**
 * The label histories of a [[Matcher]]'s threads and outcomes, written for a stream's state store and read back. The
 * histories are persistent lists that share their older labels (threads forked by a split), so each node is written
 * once, after the node before it, and a history is written as the number of its newest node: what is read back
 * shares exactly as much as what was written.
 *
 * @param hashOf the hash of a node from its label and the previous node's hash ([[ThreadEquivalence.hash]], which
 *               depends on the labels the conditions read), so that it need not be stored
 */
private[rowpattern] final class LabelHistories[S](hashOf: (Long, Int) => Long) {

  /** Numbers the nodes of `histories` (null: none) and writes them; returns each history's number (-1: null). */
  def write(histories: Seq[LabelNode[S]], out: DataOutput): Seq[Int] = {
    val numbers = new java.util.IdentityHashMap[LabelNode[S], Integer]
    val nodes = mutable.ArrayBuffer.empty[LabelNode[S]]
    val newer = mutable.Stack.empty[LabelNode[S]]
    for (h <- histories) {
      var n = h
      while (n != null && !numbers.containsKey(n)) { newer.push(n); n = n.previous }
      while (newer.nonEmpty) { val m = newer.pop(); numbers.put(m, nodes.length); nodes += m }
    }
    out.writeInt(nodes.length)
    for (n <- nodes) {
      out.writeInt(n.label)
      out.writeBoolean(n.excluded)
      out.writeInt(if (n.previous == null) -1 else numbers.get(n.previous))
    }
    histories.map(h => if (h == null) -1 else numbers.get(h).intValue)
  }

  /** Reads what [[write]] wrote: the nodes, by number. */
  def read(in: DataInput): Array[LabelNode[S]] = {
    val nodes = new Array[LabelNode[S]](in.readInt())
    for (k <- nodes.indices) {
      val (label, excluded, previous) = (in.readInt(), in.readBoolean(), in.readInt())
      val before = if (previous < 0) null else nodes(previous)
      nodes(k) = new LabelNode[S](label, excluded, before, if (before == null) 1 else before.length + 1,
        hashOf(if (before == null) 0L else before.hash, label))
    }
    nodes
  }
}
