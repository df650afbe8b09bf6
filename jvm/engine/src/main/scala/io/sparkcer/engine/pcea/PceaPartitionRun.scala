package io.sparkcer.engine.pcea

import java.io.{DataInput, DataOutput}

import io.sparkcer.engine.automaton.SymbolTable
import io.sparkcer.engine.eval.{EventReader, EventRing, Run, Work}
import io.sparkcer.engine.eval.MatchSink

/**
 * One partition's evaluation of a pattern compiled to a PCEA ([[PceaPlan]]): Algorithm 1 ([[PceaRun]]) over the
 * partition's events, whose guards the evaluator has already classified, with keys read off the events by the
 * caller's reader. Each valuation goes to the sink as the engine's enumerations do: its events latest first, each
 * with the output label of its atom.
 *
 * **Runs are built when a match may need them.** Only an event that passes the guard of a transition into a final
 * state, and finds under its keys, for each child state of that transition, a run in the window or an event that may
 * make one, can complete a match ([[PceaRun.mayComplete]]). While none has come within the window, the events are kept
 * as they are ([[PendingEvents]]), and those that leave the window meanwhile are dropped unread; when one comes, the
 * PCEA first reads the events kept, in stream order, then it, and it reads every event as it comes until that one has
 * left the window (kept events would then mostly be read anyway, later), or, until then, another match ends. The runs are those Algorithm 1 would have
 * built (every event is read in order, before any match it could be part of is enumerated), and a run that cannot
 * complete inside the window costs the copy of its events and nothing else where no completing event comes (a chain
 * of transfers ending in an account's closing), and a hash insertion of its last event's key, probed by each event
 * that passes a completing guard, where such events come but find no key (a chain ending in a withdrawal by an id
 * that no transfer paid): a hash join's build and probe. The keys are noted only while an event that passes a
 * completing guard is in the window; the first one after a window without any notes the events kept then (each
 * event once: it leaves the window before the next such window ends). A query hunting a rare pattern mostly reads
 * events that way. The update work is the same or less, in total, but after a quiet window it is paid when the
 * completing event comes, not spread over the events before.
 */
final class PceaPartitionRun[E <: AnyRef](plan: PceaPlan, reader: EventReader[E], events: EventRing[E], work: Work)
    extends Run {
  /** The guard bits of the event being read. */
  private var bits: Array[Long] = _
  private val run = new PceaRun[E](
    plan.pcea,
    new PceaReader[E] {
      def passes(guard: Int, event: E): Boolean = SymbolTable.has(bits, guard)
      def key(extractor: Int, event: E): AnyRef = plan.key(extractor, reader, event)
    },
    work,
    plan.shared,
    plan.latestOnly
  )
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
  private val notePending: (Long, Long, Array[Long]) => Unit = { (position, key, bits) =>
    work.bufferVisits += 1
    this.bits = bits
    run.note(events(position), key, threshold)
  }
  private var threshold = Long.MinValue
  /** The window value of the latest event that may complete a match: while it is in the window, events are read. */
  private var completedAt = Long.MinValue
  /**
   * The window value of the latest event that passed a completing guard while events were kept: while it is in the
   * window, the events kept are noted ([[PceaRun.note]]) as they come; the first such event after a window without
   * any notes those kept then.
   * Not saved: after a restart, the first such event notes the events kept.
   */
  private var guardedAt = Long.MinValue

  /** The most nodes one union has copied ([[RunNodes.union]]): for the tests of the union's cost. */
  private[engine] def longestUnion: Int = run.longestUnion

  def liveNodes: Int = run.keptNodes.toInt
  def maxOutputDepth: Int = 0
  def activeStates: Int = run.indexSize

  def read(position: Long, symbol: Int, bits: Array[Long], key: Long, threshold: Long, sink: MatchSink): Int = {
    this.threshold = threshold
    if (completedAt <= threshold && passesAny(bits, completing)) {
      if (guardedAt <= threshold && pending.size > 0) {
        // The first event in a window that passes a completing guard: the events kept meanwhile are noted now.
        pending.expire(threshold)
        pending.foreach(notePending)
      }
      guardedAt = key
      this.bits = bits
      if (run.mayComplete(events(position), threshold)) completedAt = key
    }
    if (completedAt <= threshold) {
      pending.expire(threshold)
      if (passesAny(bits, guards)) {
        pending.add(position, key, bits)
        if (guardedAt > threshold) { this.bits = bits; run.note(events(position), key, threshold) }
      }
      0
    } else {
      if (pending.size > 0) { pending.expire(threshold); pending.drain(readPending) }
      this.bits = bits
      this.sink = sink
      accepted = 0
      run.read(events(position), position, key, threshold)(if (sink == null) null else report)
      // While events are read, the index answers [[PceaRun.mayComplete]] as the read itself does: a match ended here.
      if (run.completed) completedAt = key
      accepted
    }
  }

  private def passesAny(bits: Array[Long], among: Array[Int]): Boolean = {
    var k = 0
    while (k < among.length) { if (SymbolTable.has(bits, among(k))) return true; k += 1 }
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
