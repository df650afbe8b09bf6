package io.sparkcer.engine.pcea

import java.io.{DataInput, DataOutput}

import io.sparkcer.engine.eval.{EventReader, EventRing, Run, Work}
import io.sparkcer.engine.tecs.MatchSink

/**
 * One partition's evaluation of a pattern compiled to a PCEA ([[PceaPlan]]): Algorithm 1 ([[PceaRun]]) over the
 * partition's events, whose guards the evaluator has already classified, with keys read off the events by the
 * caller's reader. Each valuation goes to the sink as the engine's enumerations do: its events latest first, each
 * with the output label of its atom.
 *
 * **Runs are built when a match may need them.** Only an event that passes the guard of a transition into a final
 * state can complete a match. While none has come within the window, the events are kept as they are
 * ([[PendingEvents]]), and those that leave the window meanwhile are dropped unread; when one comes, the PCEA first
 * reads the events kept, in stream order, then it, and it reads every event as it comes until that one has left the
 * window (kept events would then mostly be read anyway, later). The runs are those Algorithm 1 would have built
 * (every event is read in order, before any match it could be part of is enumerated), and a run that cannot complete
 * inside the window, because no event comes that could complete it, costs the copy of its events and nothing else:
 * less than a hash join's probe. A query hunting a rare pattern (a chain of transfers ending in an account's closing)
 * mostly reads events that way. The update work is the same or less, in total, but after a quiet window it is paid
 * when the completing event comes, not spread over the events before.
 */
final class PceaPartitionRun[E <: AnyRef](plan: PceaPlan, reader: EventReader[E], events: EventRing[E], work: Work)
    extends Run {
  /** The guard bits of the event being read. */
  private var bits: Array[Long] = _
  private val run = new PceaRun[E](plan.pcea, new PceaReader[E] {
    def passes(guard: Int, event: E): Boolean = passed(bits, guard)
    def key(extractor: Int, event: E): AnyRef = plan.key(extractor, reader, event)
  }, work, plan.shared)
  private var sink: MatchSink = _
  private var accepted = 0
  private var positions = new Array[Long](16)
  private var labels = new Array[Int](16)
  private val report: (Int, Array[Long], Array[Int]) => Boolean = accept

  /** The guards an event must pass to be read at all, and to complete a match. */
  private val guards = plan.pcea.transitions.map(_.guard).distinct.toArray
  private val completing = plan.pcea.transitions.filter(t => plan.pcea.finals(t.target)).map(_.guard).distinct.toArray
  private val pending = new PendingEvents((guards.maxOption.getOrElse(0) >>> 6) + 1)
  private val readPending: (Long, Long, Array[Long]) => Unit = { (position, key, bits) =>
    work.bufferVisits += 1
    this.bits = bits
    run.read(events(position), position, key, threshold)(null)
  }
  private var threshold = Long.MinValue
  /** The window value of the latest event that passed a completing guard: while it is in the window, events are read. */
  private var completedAt = Long.MinValue

  /** The most nodes one union has copied ([[RunNodes.union]]): for the tests of the union's cost. */
  private[engine] def longestUnion: Int = run.longestUnion

  def liveNodes: Int = run.keptNodes.toInt
  def maxOutputDepth: Int = 0
  def activeStates: Int = run.indexSize

  def read(position: Long, symbol: Int, bits: Array[Long], key: Long, threshold: Long, sink: MatchSink): Int = {
    this.threshold = threshold
    if (passesAny(bits, completing)) completedAt = key
    if (completedAt <= threshold) {
      pending.expire(threshold)
      if (passesAny(bits, guards)) pending.add(position, key, bits)
      0
    } else {
      if (pending.size > 0) { pending.expire(threshold); pending.drain(readPending) }
      this.bits = bits
      this.sink = sink
      accepted = 0
      run.read(events(position), position, key, threshold)(if (sink == null) null else report)
      accepted
    }
  }

  private def passed(bits: Array[Long], guard: Int): Boolean = ((bits(guard >>> 6) >>> (guard & 63)) & 1L) != 0L

  private def passesAny(bits: Array[Long], among: Array[Int]): Boolean = {
    var k = 0
    while (k < among.length) { if (passed(bits, among(k))) return true; k += 1 }
    false
  }

  /** A valuation to the sink, sorted latest first (a run tree lists its events parent before children). */
  private def accept(size: Int, at: Array[Long], atoms: Array[Int]): Boolean = {
    if (positions.length < size) { positions = new Array[Long](size * 2); labels = new Array[Int](size * 2) }
    var k = 0
    while (k < size) {
      // Insertion sort: valuations are short, and a chain's come sorted already.
      var j = k
      while (j > 0 && positions(j - 1) < at(k)) { positions(j) = positions(j - 1); labels(j) = labels(j - 1); j -= 1 }
      positions(j) = at(k)
      labels(j) = plan.labels(atoms(k))
      k += 1
    }
    accepted += 1
    sink.accept(positions(size - 1), size, positions, labels)
  }

  def expire(threshold: Long): Unit = {
    pending.expire(threshold)
    run.expire(threshold)
  }

  /** Writes the pending events and the runs, those out of the window dropped (the run was not told while it waited). */
  def save(out: DataOutput): Unit = {
    expire(threshold)
    out.writeLong(threshold)
    out.writeLong(completedAt)
    pending.save(out)
    run.save(out)
  }

  def load(in: DataInput): Unit = {
    threshold = in.readLong()
    completedAt = in.readLong()
    pending.load(in)
    run.load(in, events(_))
  }
}
