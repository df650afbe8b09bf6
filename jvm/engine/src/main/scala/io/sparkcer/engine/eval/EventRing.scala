package io.sparkcer.engine.eval

import java.io.{DataInput, DataOutput}

/**
 * The events of one partition from the oldest one a live match can still use, addressed by position. The
 * capacity is a power of two, so that a slot is a mask away from a position.
 */
final class EventRing[E <: AnyRef] {
  private var events = new Array[AnyRef](16)
  private var keys = new Array[Long](16)
  private var mask = 15
  private var first = 0L // position of the oldest event kept
  private var count = 0
  private var offset = 0 // slot of the oldest event

  def size: Int = count

  def append(position: Long, event: E, key: Long): Unit = {
    if (count == 0) first = position
    if (count == events.length) grow()
    val slot = (position - first + offset).toInt & mask
    events(slot) = event
    keys(slot) = key
    count += 1
  }

  def apply(position: Long): E = events((position - first + offset).toInt & mask).asInstanceOf[E]

  /** Forgets the events whose key is at or below the window threshold. */
  def expire(threshold: Long): Unit =
    while (count > 0 && keys(offset) <= threshold) {
      events(offset) = null
      offset = (offset + 1) & mask
      first += 1
      count -= 1
    }

  def save(out: DataOutput, codec: EventCodec[E]): Unit = {
    out.writeInt(count)
    out.writeLong(first)
    for (i <- 0 until count) {
      val slot = (offset + i) & mask
      out.writeLong(keys(slot))
      codec.write(events(slot).asInstanceOf[E], out)
    }
  }

  def load(in: DataInput, codec: EventCodec[E]): Unit = {
    val n = in.readInt()
    val from = in.readLong()
    for (i <- 0 until n) {
      val key = in.readLong()
      append(from + i, codec.read(in), key)
    }
  }

  private def grow(): Unit = {
    val (e, k) = (new Array[AnyRef](events.length * 2), new Array[Long](events.length * 2))
    for (i <- 0 until count) {
      e(i) = events((offset + i) & mask)
      k(i) = keys((offset + i) & mask)
    }
    events = e; keys = k; offset = 0; mask = e.length - 1
  }
}
