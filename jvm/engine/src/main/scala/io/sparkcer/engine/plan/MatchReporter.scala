package io.sparkcer.engine.plan

import scala.collection.immutable.ArraySeq

import io.sparkcer.engine.chain.AdaptiveChainRun
import io.sparkcer.engine.eval.{EventReader, MatchBound, MatchOf, MatchSink, Partition, TooManyMatchesException}

/**
 * Turns the complex events that the enumeration yields for one event into matches: the events bound to each output
 * variable, in stream order; one row per distinct binding where runs can coincide ([[CompiledPattern.deduplicate]]);
 * at most [[CompiledPattern.limit]] per event; and past the [[MatchBound]], an error that says how to bound them,
 * before they exhaust memory.
 */
final class MatchReporter[E <: AnyRef](pattern: CompiledPattern, reader: EventReader[E], bound: MatchBound,
    metrics: EvaluatorMetrics)
    extends MatchSink {
  private var partition: Partition[E] = _
  private var end = 0L
  private var emit: MatchOf[E] => Unit = _
  private var accepted = 0L
  /** Rows of the current event that repeated one already output, and were dropped. */
  private var repeated = 0L
  private val seen = new java.util.HashSet[Row]()
  private val outputs = pattern.analyzed.outputs.length
  private val variablesOf: Array[Array[Int]] = pattern.nfa.labels.map(_.toArray).toArray
  private val counts = new Array[Int](outputs)

  /** Readies the sink for the matches completed by the event at position `end` of `partition`. */
  def completedBy(partition: Partition[E], end: Long, emit: MatchOf[E] => Unit): MatchSink = {
    this.partition = partition; this.end = end; this.emit = emit
    accepted = 0
    repeated = 0
    if (!seen.isEmpty) seen.clear()
    this
  }

  def accept(start: Long, size: Int, positions: Array[Long], labels: Array[Int]): Boolean = {
    val row = boundPositions(start, size, positions, labels)
    if (deduplicating && !seen.add(new Row(row))) {
      metrics.work.dropped += 1
      repeated += 1
      if (repeated > bound.perEvent) throw tooManyRepeated()
    } else {
      if (accepted == bound.perEvent) throw tooMany()
      accepted += 1
      metrics.matches += 1
      emit(MatchOf(partition.key, partition.events(start), partition.events(end), boundEvents(row)))
    }
    accepted < pattern.limit
  }

  /** Whether this row may repeat one before it: on a raced chain, where the path leading now repeats rows. */
  private def deduplicating: Boolean = pattern.deduplicate && ((pattern.evaluation, partition.run) match {
    case (race: Evaluation.Race, raced: AdaptiveChainRun) => race.deduplicates(raced.leading)
    case _ => true
  })

  /**
   * The row of a complex event as positions, its identity under de-duplication: the start, then per output
   * variable the number of its events and their positions in stream order (the enumerator gives the marked events
   * last first).
   */
  private def boundPositions(start: Long, size: Int, positions: Array[Long], labels: Array[Int]): Array[Long] = {
    java.util.Arrays.fill(counts, 0)
    var bound = 0
    var k = 0
    while (k < size) {
      val variables = variablesOf(labels(k))
      var j = 0
      while (j < variables.length) { counts(variables(j)) += 1; j += 1 }
      bound += variables.length
      k += 1
    }
    val row = new Array[Long](1 + outputs + bound)
    row(0) = start
    var at = 1
    var v = 0
    while (v < outputs) { row(at) = counts(v); counts(v) = at + 1; at += 1 + row(at).toInt; v += 1 }
    k = size - 1
    while (k >= 0) {
      val variables = variablesOf(labels(k))
      var j = 0
      while (j < variables.length) { v = variables(j); row(counts(v)) = positions(k); counts(v) += 1; j += 1 }
      k -= 1
    }
    row
  }

  /** Per output variable, its events, from the row's positions. */
  private def boundEvents(row: Array[Long]): IndexedSeq[IndexedSeq[E]] = {
    val lists = new Array[AnyRef](outputs)
    var at = 1
    var v = 0
    while (v < outputs) {
      val events = new Array[AnyRef](row(at).toInt)
      var i = 0
      while (i < events.length) { events(i) = partition.events(row(at + 1 + i)); i += 1 }
      lists(v) = ArraySeq.unsafeWrapArray(events)
      at += 1 + events.length
      v += 1
    }
    ArraySeq.unsafeWrapArray(lists).asInstanceOf[IndexedSeq[IndexedSeq[E]]]
  }

  private def tooMany(): TooManyMatchesException = new TooManyMatchesException(
    s"the event at ${reader.describe(partition.events(end))} completes more than ${bound.perEvent} matches, the " +
      s"bound ${bound.setting}. Under SELECT ALL each combination of earlier events the pattern can pick is a " +
      "match of its own (exponentially many under an iteration +), and the matches of one event are held in " +
      "memory together. Bound them with a window (WITHIN 100 EVENTS, WITHIN 10 SECONDS) or a shorter one, choose " +
      "among them with SELECT LAST (one per event) or SELECT MAX (the maximal ones), or keep the first n with " +
      s"LIMIT n; or raise ${bound.setting}.")

  private def tooManyRepeated(): TooManyMatchesException = new TooManyMatchesException(
    s"the event at ${reader.describe(partition.events(end))} completes more than ${bound.perEvent} runs whose rows " +
      s"repeat one already output, the bound ${bound.setting}: the runs are kept apart by events no selected " +
      "variable binds, or by an OR of conditions, and each is enumerated before its row is found a repeat (EXPLAIN " +
      "says so). Select the variables that tell the runs apart, bound the window (WITHIN 100 EVENTS, WITHIN 10 " +
      s"SECONDS) or shorten it, keep the first n with LIMIT n; or raise ${bound.setting}.")
}

/** A row's positions ([[MatchReporter]]), compared by content. */
private final class Row(val positions: Array[Long]) {
  override val hashCode: Int = java.util.Arrays.hashCode(positions)
  override def equals(o: Any): Boolean = o match {
    case r: Row => java.util.Arrays.equals(positions, r.positions)
    case _ => false
  }
}
