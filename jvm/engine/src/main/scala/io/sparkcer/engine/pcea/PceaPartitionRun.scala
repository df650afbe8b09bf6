package io.sparkcer.engine.pcea

import java.io.{DataInput, DataOutput}

import io.sparkcer.engine.eval.{EventReader, EventRing, Run, Work}
import io.sparkcer.engine.tecs.MatchSink

/**
 * One partition's evaluation of a pattern compiled to a PCEA ([[PceaPlan]]): Algorithm 1 ([[PceaRun]]) over the
 * partition's events, whose guards the evaluator has already classified, with keys read off the events by the
 * caller's reader. Each valuation goes to the sink as the engine's enumerations do: its events latest first, each
 * with the output label of its atom.
 */
final class PceaPartitionRun[E <: AnyRef](plan: PceaPlan, reader: EventReader[E], events: EventRing[E], work: Work)
    extends Run {
  /** The guard bits of the event being read. */
  private var bits: Array[Long] = _
  private val run = new PceaRun[E](plan.pcea, new PceaReader[E] {
    def passes(guard: Int, event: E): Boolean = ((bits(guard >>> 6) >>> (guard & 63)) & 1L) != 0L
    def key(extractor: Int, event: E): AnyRef = plan.key(extractor, reader, event)
  }, work)
  private var sink: MatchSink = _
  private var accepted = 0
  private var positions = new Array[Long](16)
  private var labels = new Array[Int](16)
  private val report: (Int, Array[Long], Array[Int]) => Boolean = accept

  def liveNodes: Int = run.keptNodes.toInt
  def maxOutputDepth: Int = 0
  def activeStates: Int = run.indexSize

  def read(position: Long, symbol: Int, bits: Array[Long], key: Long, threshold: Long, sink: MatchSink): Int = {
    this.bits = bits
    this.sink = sink
    accepted = 0
    run.read(events(position), position, key, threshold)(if (sink == null) null else report)
    accepted
  }

  /**
   * A valuation to the sink, sorted latest first (a run tree lists its events parent before children); under AND,
   * not if it reads one event twice ([[PceaPlan.disjoint]]).
   */
  private def accept(size: Int, at: Array[Long], atoms: Array[Int]): Boolean = {
    if (positions.length < size) { positions = new Array[Long](size * 2); labels = new Array[Int](size * 2) }
    var k = 0
    while (k < size) {
      // Insertion sort: valuations are short, and a chain's come sorted already.
      var j = k
      while (j > 0 && positions(j - 1) < at(k)) { positions(j) = positions(j - 1); labels(j) = labels(j - 1); j -= 1 }
      if (plan.disjoint && j > 0 && positions(j - 1) == at(k)) { work.dropped += 1; return true }
      positions(j) = at(k)
      labels(j) = plan.labels(atoms(k))
      k += 1
    }
    accepted += 1
    sink.accept(positions(size - 1), size, positions, labels)
  }

  def expire(threshold: Long): Unit = run.expire(threshold)

  def save(out: DataOutput): Unit = run.save(out)
  def load(in: DataInput): Unit = run.load(in, events(_))
}
