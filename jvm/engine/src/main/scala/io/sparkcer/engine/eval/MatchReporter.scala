package io.sparkcer.engine.eval

import scala.collection.immutable.ArraySeq
import scala.collection.mutable

import io.sparkcer.engine.tecs.MatchSink

/**
 * Turns the complex events that the enumeration yields for one event into matches: the events bound to each output
 * variable, in stream order; one row per distinct binding where runs can coincide ([[CompiledPattern.deduplicate]]);
 * at most [[CompiledPattern.limit]] per event; and past the [[MatchBound]], an error that says how to bound them,
 * before they exhaust memory.
 */
final class MatchReporter[E <: AnyRef](pattern: CompiledPattern, reader: EventReader[E], bound: MatchBound,
    metrics: EvaluatorMetrics) extends MatchSink {
  private var partition: Partition[E] = _
  private var end = 0L
  private var emit: MatchOf[E] => Unit = _
  private var accepted = 0L
  private val seen = mutable.HashSet.empty[(Long, Seq[Seq[Long]])]
  private val outputs = pattern.analyzed.outputs.length
  private val variablesOf: Array[Array[Int]] = pattern.nfa.labels.map(_.toArray).toArray
  private val counts = new Array[Int](outputs)

  /** Readies the sink for the matches completed by the event at position `end` of `partition`. */
  def completedBy(partition: Partition[E], end: Long, emit: MatchOf[E] => Unit): MatchSink = {
    this.partition = partition; this.end = end; this.emit = emit
    accepted = 0
    if (seen.nonEmpty) seen.clear()
    this
  }

  def accept(start: Long, size: Int, positions: Array[Long], labels: Array[Int]): Boolean = {
    if (!pattern.deduplicate || seen.add((start, boundPositions(size, positions, labels)))) {
      if (accepted == bound.perEvent) throw tooMany()
      accepted += 1
      metrics.matches += 1
      emit(MatchOf(partition.key, partition.events(start), partition.events(end), boundEvents(size, positions, labels)))
    }
    accepted < pattern.limit
  }

  /** Per output variable, its events in stream order (the enumerator gives the marked events last first). */
  private def boundEvents(size: Int, positions: Array[Long], labels: Array[Int]): IndexedSeq[IndexedSeq[E]] = {
    java.util.Arrays.fill(counts, 0)
    var k = 0
    while (k < size) {
      val variables = variablesOf(labels(k))
      var j = 0
      while (j < variables.length) { counts(variables(j)) += 1; j += 1 }
      k += 1
    }
    val bound = new Array[Array[AnyRef]](outputs)
    var v = 0
    while (v < outputs) { bound(v) = new Array[AnyRef](counts(v)); counts(v) = 0; v += 1 }
    k = size - 1
    while (k >= 0) {
      val event = partition.events(positions(k))
      val variables = variablesOf(labels(k))
      var j = 0
      while (j < variables.length) { v = variables(j); bound(v)(counts(v)) = event; counts(v) += 1; j += 1 }
      k -= 1
    }
    val lists = new Array[AnyRef](outputs)
    v = 0
    while (v < outputs) { lists(v) = ArraySeq.unsafeWrapArray(bound(v)); v += 1 }
    ArraySeq.unsafeWrapArray(lists).asInstanceOf[IndexedSeq[IndexedSeq[E]]]
  }

  /** The positions bound to each output variable, the identity of a row under de-duplication. */
  private def boundPositions(size: Int, positions: Array[Long], labels: Array[Int]): Seq[Seq[Long]] = {
    val bound = Array.fill(outputs)(Vector.newBuilder[Long])
    var k = size - 1
    while (k >= 0) {
      variablesOf(labels(k)).foreach(v => bound(v) += positions(k))
      k -= 1
    }
    bound.map(_.result()).toSeq
  }

  private def tooMany(): TooManyMatchesException = new TooManyMatchesException(
    s"the event at ${reader.describe(partition.events(end))} completes more than ${bound.perEvent} matches, the " +
      s"bound ${bound.setting}. Under SELECT ALL each combination of earlier events the pattern can pick is a " +
      "match of its own (exponentially many under an iteration +), and the matches of one event are held in " +
      "memory together. Bound them with a window (WITHIN 100 EVENTS, WITHIN 10 SECONDS) or a shorter one, choose " +
      "among them with SELECT LAST (one per event) or SELECT MAX (the maximal ones), or keep the first n with " +
      s"LIMIT n; or raise ${bound.setting}.")
}
