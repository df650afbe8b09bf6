package io.sparkcer.engine.eval

import scala.collection.mutable

/**
 * One partition's share of the evaluation: its run, the events a live match may still bind, and where its
 * substream has got to (the position of its last event, and that event's window key).
 *
 * @param witness the event that opened the partition: a restored state finds the partition key from it
 */
final class Partition[E <: AnyRef] private[eval] (val key: IndexedSeq[Any], val witness: E,
    newRun: EventRing[E] => Run, discards: () => Long) {
  val events = new EventRing[E]
  private var current: Run = newRun(events)
  private var discardsSeen = discards()

  /** The partial matches; none when CONSUME BY ANY discarded every partition's since this one was last used. */
  def run: Run = {
    if (discardsSeen != discards()) restart()
    current
  }

  /** Discards this partition's partial matches. */
  def restart(): Unit = { current = newRun(events); discardsSeen = discards() }

  var position = -1L
  var lastKey = Long.MinValue
}

/**
 * The partitions held, and which one an event belongs to. Without PARTITION BY there is one. With it there is one
 * per key, unless the events arrive grouped, one partition after another (Spark sorts them by key): then a new key
 * means the previous partition is finished, so only one is ever held.
 *
 * @param newRun     a run with no partial match, for a partition opened or consumed (over the partition's events)
 * @param evictsIdle whether a partition whose last event has left the window may be forgotten
 *                   ([[io.sparkcer.engine.plan.CompiledPattern.forgetsIdlePartitions]], under a column window)
 */
final class Partitions[E <: AnyRef](reader: EventReader[E], partitioned: Boolean, grouped: Boolean,
    newRun: EventRing[E] => Run, evictsIdle: Boolean) {
  private val byKey = mutable.HashMap.empty[IndexedSeq[Any], Partition[E]]
  private var single: Partition[E] = _
  private val sweeps = evictsIdle && partitioned && !grouped
  private var sweepAt = 1024L
  /**
   * How often every partition's partial matches were discarded (CONSUME BY ANY). A partition restarts lazily, when
   * next used: restarting them all at once took a pass over every key for each match, quadratic in the keys.
   */
  private var discards = 0L

  /** The partition of an event, opened by its first event; null when its key is NULL (the event is left out). */
  def of(event: E): Partition[E] =
    if (!partitioned) {
      if (single == null) single = open(IndexedSeq.empty, event)
      single
    } else {
      val key = reader.partitionKey(event)
      if (key == null) null
      else if (grouped) {
        if (single == null || single.key != key) single = open(key, event)
        single
      } else byKey.getOrElseUpdate(key, open(key, event))
    }

  /** Opens again the partition of a saved state, from the event that opened it. */
  def restore(witness: E): Partition[E] = {
    val p = open(if (partitioned) reader.partitionKey(witness) else IndexedSeq.empty, witness)
    if (partitioned && !grouped) byKey(p.key) = p else single = p
    p
  }

  private def open(key: IndexedSeq[Any], witness: E) = new Partition[E](key, witness, newRun, () => discards)

  def held: Iterator[Partition[E]] = byKey.valuesIterator ++ Option(single).iterator
  def count: Int = byKey.size + (if (single == null) 0 else 1)
  def isEmpty: Boolean = byKey.isEmpty && single == null
  def clear(): Unit = { byKey.clear(); single = null }

  /** Forgets the partitions that fail `keep`. */
  def retain(keep: Partition[E] => Boolean): Unit = {
    byKey.filterInPlace { case (_, p) => keep(p) }
    if (single != null && !keep(single)) single = null
  }

  /** Discards the partial matches of one partition (CONSUME BY PARTITION). */
  def restart(p: Partition[E]): Unit = p.restart()

  /** Discards the partial matches of every partition (CONSUME BY ANY), in O(1): each restarts when next used. */
  def restartAll(): Unit = discards += 1

  /**
   * After the `events`-th event, whose window threshold is `threshold`: forgets the partitions whose last event is
   * at or below it, which can complete no match any more. A sweep visits every partition, so it runs once every
   * max(1024, partitions left) events: constant work per event, amortized.
   */
  def evictIdle(threshold: Long, events: Long): Unit = if (sweeps && events >= sweepAt) {
    retain(_.lastKey > threshold)
    sweepAt = events + math.max(1024, byKey.size)
  }
}
