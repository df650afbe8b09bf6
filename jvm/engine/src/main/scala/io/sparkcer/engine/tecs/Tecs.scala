package io.sparkcer.engine.tecs

import java.io.{DataInput, DataOutput}

import io.sparkcer.engine.eval.Work

/**
 * CORE's timed enumerable compact set (tECS), stored column-wise in primitive arrays.
 *
 * A node is a bottom node (a run's start), an output node (one marked event and the node it extends) or a union
 * node (two alternatives). Every node carries its maximum start: the window key of the latest run start it
 * represents. The structure is kept time-ordered (a union's left child has the larger maximum start) and
 * 3-bounded (at most three unions down the left spine before an output), which is what makes enumeration
 * output-linear.
 *
 * Memory is a ring: nodes are numbered in creation order and a node made while reading an event whose key is at
 * or below the window threshold can never be part of an in-window match again (its maximum start is no later
 * than that key), so its slot is reused. Live nodes may still point at reclaimed ones, but only through a right
 * child whose maximum start the parent stores itself, so no reclaimed slot is ever read: callers check that
 * stored value against the threshold first.
 *
 * @param work     counts the union nodes made ([[Work.unionNodes]])
 * @param maxNodes the most nodes alive at once: one more throws [[Tecs.Full]] (a [[io.sparkcer.engine.eval.MatchBound]])
 */
final class Tecs(work: Work, initialCapacity: Int = 256, maxNodes: Int = Int.MaxValue) {
  import Tecs._

  private var capacity = Integer.highestOneBit(math.max(16, initialCapacity - 1)) << 1
  private var mask = capacity - 1
  /** Live nodes that fit before the arrays grow or, at `maxNodes`, the structure is full. */
  private var room = math.min(capacity, maxNodes)
  private var kinds = new Array[Byte](capacity)
  private var positions = new Array[Long](capacity)
  private var labels = new Array[Int](capacity)
  private var maxStarts = new Array[Long](capacity)
  private var lefts = new Array[Int](capacity)
  private var rights = new Array[Int](capacity)
  private var rightMaxStarts = new Array[Long](capacity)
  private var depths = new Array[Byte](capacity) // output depth: unions down the left spine before an output
  private var nextId = 0
  private var firstLive = 0

  // Creation marks: nodes numbered from markIds(i) on were created at an event whose key is markKeys(i).
  private var markIds = new Array[Int](16)
  private var markKeys = new Array[Long](16)
  private var markHead = 0
  private var markCount = 0

  /** The largest output depth of any node made so far: the enumeration delay is proportional to it. */
  var maxOutputDepth = 0

  /** Nodes alive now; for metrics and for the tests that check memory stays bounded. */
  def liveNodes: Int = (nextId - firstLive) & Int.MaxValue

  /** Records the key of the event whose nodes are about to be created. */
  def beginEvent(key: Long): Unit =
    if (markCount == 0 || markKeys((markHead + markCount - 1) & (markKeys.length - 1)) != key) {
      if (markCount == markKeys.length) growMarks()
      val slot = (markHead + markCount) & (markKeys.length - 1)
      markIds(slot) = nextId
      markKeys(slot) = key
      markCount += 1
    }

  /** Frees every node created at an event whose key is at or below `threshold`. */
  def reclaim(threshold: Long): Unit =
    while (markCount > 0 && markKeys(markHead) <= threshold) {
      markHead = (markHead + 1) & (markKeys.length - 1)
      markCount -= 1
      firstLive = if (markCount > 0) markIds(markHead) else nextId
    }

  /** Drops every node at once (consumption policies discard all partial matches). */
  def clear(): Unit = {
    firstLive = nextId
    markCount = 0
  }

  def newBottom(position: Long, startKey: Long): Int = {
    val id = allocate()
    val s = id & mask
    kinds(s) = Bottom; positions(s) = position; maxStarts(s) = startKey; depths(s) = 0
    id
  }

  def extend(next: Int, position: Long, label: Int): Int = {
    val id = allocate()
    val s = id & mask
    kinds(s) = Output; positions(s) = position; labels(s) = label
    maxStarts(s) = maxStarts(next & mask); lefts(s) = next; depths(s) = 0
    id
  }

  /** A union node; the caller guarantees maxStart(left) >= rightMaxStart. */
  def union(left: Int, right: Int, rightMaxStart: Long): Int = {
    work.unionNodes += 1
    val id = allocate()
    val s = id & mask
    kinds(s) = Union; maxStarts(s) = maxStarts(left & mask)
    lefts(s) = left; rights(s) = right; rightMaxStarts(s) = rightMaxStart
    val depth = math.min(depths(left & mask) + 1, Byte.MaxValue)
    depths(s) = depth.toByte
    if (depth > maxOutputDepth) maxOutputDepth = depth
    id
  }

  /**
   * The union of two safe nodes with the same maximum start, itself safe (CORE's union gadgets). A node is safe
   * when it is not a union, or its left child is not a union and its right child has output depth at most 2.
   */
  def unionSafe(a: Int, b: Int, threshold: Long): Int = {
    val x = liveHead(a, threshold)
    val y = liveHead(b, threshold)
    if (!isUnion(x)) union(x, y, maxStart(y))
    else if (!isUnion(y)) union(y, x, maxStart(x))
    else {
      val (rx, ry) = (rightMaxStart(x), rightMaxStart(y))
      val low =
        if (rx >= ry) union(right(x), right(y), ry)
        else union(right(y), right(x), rx)
      val middle = union(left(y), low, math.max(rx, ry))
      union(left(x), middle, maxStart(middle))
    }
  }

  /** A union node whose right child fell out of the window stands for its left child alone. */
  private def liveHead(n: Int, threshold: Long): Int =
    if (isUnion(n) && rightMaxStart(n) <= threshold) left(n) else n

  def isBottom(n: Int): Boolean = kinds(n & mask) == Bottom
  def isOutput(n: Int): Boolean = kinds(n & mask) == Output
  def isUnion(n: Int): Boolean = kinds(n & mask) == Union
  def position(n: Int): Long = positions(n & mask)
  def label(n: Int): Int = labels(n & mask)
  def maxStart(n: Int): Long = maxStarts(n & mask)
  /** The next node of an output node, or the left child of a union. */
  def left(n: Int): Int = lefts(n & mask)
  def right(n: Int): Int = rights(n & mask)
  def rightMaxStart(n: Int): Long = rightMaxStarts(n & mask)

  /** Writes the live nodes and creation marks: what a run needs to resume after a restart. */
  def save(out: DataOutput): Unit = {
    out.writeInt(firstLive)
    out.writeInt(nextId)
    out.writeInt(maxOutputDepth)
    out.writeInt(markCount)
    for (i <- 0 until markCount) {
      val slot = (markHead + i) & (markKeys.length - 1)
      out.writeInt(markIds(slot))
      out.writeLong(markKeys(slot))
    }
    var id = firstLive
    while (id != nextId) {
      val s = id & mask
      out.writeByte(kinds(s))
      out.writeLong(maxStarts(s))
      kinds(s) match {
        case Bottom => out.writeLong(positions(s))
        case Output => out.writeLong(positions(s)); out.writeInt(labels(s)); out.writeInt(lefts(s))
        case _ =>
          out.writeInt(lefts(s)); out.writeInt(rights(s)); out.writeLong(rightMaxStarts(s)); out.writeByte(depths(s))
      }
      id = (id + 1) & Int.MaxValue
    }
  }

  /** Replaces this (fresh) structure with one written by [[save]]; node ids are kept, so references stay valid. */
  def load(in: DataInput): Unit = {
    firstLive = in.readInt()
    nextId = in.readInt()
    maxOutputDepth = in.readInt()
    markCount = in.readInt()
    markHead = 0
    val marks = Integer.highestOneBit(math.max(16, markCount - 1)) << 1
    markIds = new Array[Int](marks)
    markKeys = new Array[Long](marks)
    for (i <- 0 until markCount) { markIds(i) = in.readInt(); markKeys(i) = in.readLong() }
    resize(Integer.highestOneBit(math.max(16, liveNodes)) << 1)
    var id = firstLive
    while (id != nextId) {
      val s = id & mask
      kinds(s) = in.readByte()
      maxStarts(s) = in.readLong()
      kinds(s) match {
        case Bottom => positions(s) = in.readLong(); depths(s) = 0
        case Output => positions(s) = in.readLong(); labels(s) = in.readInt(); lefts(s) = in.readInt(); depths(s) = 0
        case _ =>
          lefts(s) = in.readInt(); rights(s) = in.readInt(); rightMaxStarts(s) = in.readLong();
          depths(s) = in.readByte()
      }
      id = (id + 1) & Int.MaxValue
    }
  }

  private def allocate(): Int = {
    if (liveNodes >= room) makeRoom()
    val id = nextId
    nextId = (nextId + 1) & Int.MaxValue // ids stay non-negative; slots still map since capacity divides 2^31
    id
  }

  private def makeRoom(): Unit = {
    if (liveNodes >= maxNodes) throw new Full(maxNodes)
    require(capacity < (1 << 30), "tECS exceeded 2^30 live nodes: narrow the window (WITHIN) or the partitions")
    resize(capacity << 1)
  }

  /** Moves the live nodes into arrays of `newCapacity` slots (a power of two at least the live count). */
  private def resize(newCapacity: Int): Unit = {
    val newMask = newCapacity - 1
    def move[A](old: Array[A], fresh: Array[A]): Array[A] = {
      var id = firstLive
      while (id != nextId) { fresh(id & newMask) = old(id & mask); id = (id + 1) & Int.MaxValue }
      fresh
    }
    kinds = move(kinds, new Array[Byte](newCapacity))
    positions = move(positions, new Array[Long](newCapacity))
    labels = move(labels, new Array[Int](newCapacity))
    maxStarts = move(maxStarts, new Array[Long](newCapacity))
    lefts = move(lefts, new Array[Int](newCapacity))
    rights = move(rights, new Array[Int](newCapacity))
    rightMaxStarts = move(rightMaxStarts, new Array[Long](newCapacity))
    depths = move(depths, new Array[Byte](newCapacity))
    capacity = newCapacity
    mask = newMask
    room = math.min(capacity, maxNodes)
  }

  private def growMarks(): Unit = {
    val n = markKeys.length
    val (ids, keys) = (new Array[Int](n * 2), new Array[Long](n * 2))
    for (i <- 0 until markCount) {
      ids(i) = markIds((markHead + i) & (n - 1))
      keys(i) = markKeys((markHead + i) & (n - 1))
    }
    markIds = ids; markKeys = keys; markHead = 0
  }
}

object Tecs {
  /** The structure holds `maxNodes` live nodes and needs one more: its caller says where, and what to write instead. */
  final class Full(val maxNodes: Int)
      extends RuntimeException(s"tECS full: $maxNodes live nodes") with scala.util.control.NoStackTrace

  private final val Bottom: Byte = 0
  private final val Output: Byte = 1
  private final val Union: Byte = 2
}
