package io.sparkcer.engine.pcea

import java.io.{DataInput, DataOutput}

/**
 * The events a PCEA has been given but has not read yet ([[PceaPartitionRun]]), oldest first: per event, its
 * position, its window value and its guard bits, in a ring of longs. Those that leave the window are dropped
 * unread: no run of theirs could still complete.
 *
 * @param words the guard bits kept per event (the words of the symbol that the automaton's guards use)
 */
final class PendingEvents(words: Int) {
  private val stride = 2 + words
  private var capacity = 16
  private var ring = new Array[Long](capacity * stride)
  private var first = 0
  private var count = 0
  /** The bits of the event being drained. */
  private val bits = new Array[Long](words)

  def size: Int = count

  def add(position: Long, key: Long, bits: Array[Long]): Unit = {
    if (count == capacity) grow()
    val at = ((first + count) & (capacity - 1)) * stride
    ring(at) = position
    ring(at + 1) = key
    System.arraycopy(bits, 0, ring, at + 2, words)
    count += 1
  }

  /** Drops the oldest events while their window value is at or below `threshold`. */
  def expire(threshold: Long): Unit =
    while (count > 0 && ring(first * stride + 1) <= threshold) { first = (first + 1) & (capacity - 1); count -= 1 }

  /** Hands each event, oldest first, to `read(position, key, bits)` (the array reused), and forgets them. */
  def drain(read: (Long, Long, Array[Long]) => Unit): Unit = {
    while (count > 0) {
      val at = first * stride
      System.arraycopy(ring, at + 2, bits, 0, words)
      first = (first + 1) & (capacity - 1)
      count -= 1
      read(ring(at), ring(at + 1), bits)
    }
  }

  /** Hands each event, oldest first, to `see(position, key, bits)` (the array reused), and keeps them. */
  def foreach(see: (Long, Long, Array[Long]) => Unit): Unit = {
    var k = 0
    while (k < count) {
      val at = ((first + k) & (capacity - 1)) * stride
      System.arraycopy(ring, at + 2, bits, 0, words)
      see(ring(at), ring(at + 1), bits)
      k += 1
    }
  }

  private def grow(): Unit = {
    val bigger = new Array[Long](2 * capacity * stride)
    for (k <- 0 until count) System.arraycopy(ring, ((first + k) & (capacity - 1)) * stride, bigger, k * stride, stride)
    ring = bigger
    capacity *= 2
    first = 0
  }

  def save(out: DataOutput): Unit = {
    out.writeInt(count)
    for (k <- 0 until count; i <- 0 until stride) out.writeLong(ring(((first + k) & (capacity - 1)) * stride + i))
  }

  /** Makes these, which must be none, the events [[save]] wrote. */
  def load(in: DataInput): Unit = {
    require(count == 0, "pending events are read into none")
    for (_ <- 0 until in.readInt()) {
      val (position, key) = (in.readLong(), in.readLong())
      for (i <- 0 until words) bits(i) = in.readLong()
      add(position, key, bits)
    }
  }
}
