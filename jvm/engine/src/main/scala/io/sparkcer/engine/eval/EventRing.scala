package io.sparkcer.engine.eval

import java.io.{DataInput, DataOutput}

/**
 * The events of one partition from the oldest one a live match can still use, addressed by position. The
 * capacity is a power of two, so that a slot is a mask away from a position.
 *
 * A run may also need events the window has let go ([[keepExpired]]): NEXT and LAST with conditions relating events
 * keep partial matches that started before the window, since they can still outrank a match in it, and their
 * registers hold positions. Those events are kept apart, by position, until the run says which it still reads
 * ([[keepOnly]]); they are saved with the others.
 */
final class EventRing[E <: AnyRef] {
  private var events = new Array[AnyRef](16)
  private var keys = new Array[Long](16)
  private var mask = 15
  private var first = 0L // position of the oldest event kept
  private var count = 0
  private var offset = 0 // slot of the oldest event
  /** Events that left the window which a run still reads, by position; null unless a run asked for them. */
  private var expired: java.util.HashMap[java.lang.Long, AnyRef] = _

  /** The events held, those kept after the window included. */
  def size: Int = count + keptCount

  /** From now on, events the window lets go are kept apart until [[keepOnly]] forgets them. */
  def keepExpired(): Unit = if (expired == null) expired = new java.util.HashMap

  /** How many events that left the window are kept. */
  def keptCount: Int = if (expired == null) 0 else expired.size

  /** Forgets the kept events that left the window, but those at the positions `reads` still holds. */
  def keepOnly(reads: java.util.Set[java.lang.Long]): Unit = if (expired != null) expired.keySet.retainAll(reads)

  def append(position: Long, event: E, key: Long): Unit = {
    if (count == 0) first = position
    if (count == events.length) grow()
    val slot = (position - first + offset).toInt & mask
    events(slot) = event
    keys(slot) = key
    count += 1
  }

  def apply(position: Long): E =
    if (position >= first || expired == null) events((position - first + offset).toInt & mask).asInstanceOf[E]
    else expired.get(position).asInstanceOf[E]

  /** Forgets the events whose key is at or below the window threshold. */
  def expire(threshold: Long): Unit =
    while (count > 0 && keys(offset) <= threshold) {
      if (expired != null) expired.put(first, events(offset))
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
    out.writeInt(keptCount)
    if (expired != null) expired.forEach { (position, event) =>
      out.writeLong(position)
      codec.write(event.asInstanceOf[E], out)
    }
  }

  def load(in: DataInput, codec: EventCodec[E]): Unit = {
    val n = in.readInt()
    val from = in.readLong()
    for (i <- 0 until n) {
      val key = in.readLong()
      append(from + i, codec.read(in), key)
    }
    for (_ <- 0 until in.readInt()) {
      keepExpired()
      val position = in.readLong()
      expired.put(position, codec.read(in))
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
