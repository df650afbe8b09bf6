package io.sparkcer.engine.eval

import java.io.{DataInput, DataOutput}

import scala.collection.immutable.ArraySeq
import scala.collection.mutable

import io.sparkcer.engine.analysis.WindowKey
import io.sparkcer.engine.ceql.Consumption
import io.sparkcer.engine.tecs.{Enumerator, MatchSink}

/** How a caller reads an event of type E. */
trait EventReader[-E] {
  /** Sets bit g of `symbol` iff the event satisfies guard g (all other bits are clear on entry). */
  def classify(event: E, symbol: Array[Long]): Unit
  /** The partition key, or null to leave the event out (a NULL key). Only called with PARTITION BY. */
  def partitionKey(event: E): IndexedSeq[Any]
  /** The window key (the order column, as a long in its own unit); only called for column windows. */
  def windowKey(event: E): Long
  /** How many window-key units make a millisecond, for time-span windows (1 for epoch millis, 1000 for micros). */
  def windowUnitsPerMilli: Long = 1L
  /** False when the window key is NULL: the event cannot be placed in the window and is counted as dropped. */
  def hasWindowKey(event: E): Boolean
  /**
   * True for an event read only as context: it advances the runs, but the matches it completes are reported by
   * whoever owns it (a task evaluating one range of the stream reads the window before its range this way).
   */
  def isContext(event: E): Boolean = false
  /** Where the event is, as its user would find it (its partition and stream-order values), for error messages. */
  def describe(event: E): String = String.valueOf(event)
}

/** Counters an operator reports (Spark's SQL metrics, the runner's summary). */
final class EvaluatorMetrics {
  var events = 0L
  var matches = 0L
  var droppedNullKey = 0L
  var peakActiveStates = 0
  var peakLiveNodes = 0
  var peakBufferedEvents = 0
  var peakPartitions = 0
  var maxOutputDepth = 0
}

/**
 * Evaluates a compiled pattern over events given in stream order: routes each event to its partition's run,
 * advances it and reports the matches the event completes, applying the window, LIMIT, CONSUME BY and, when
 * several runs may project onto one row, de-duplication.
 *
 * @param grouped the events arrive one partition after another (Spark sorts by the PARTITION BY keys): a new key
 *                means the previous partition is finished, so only one partition is ever held.
 * @param bound   the most matches one event may complete; past it, [[TooManyMatchesException]]
 */
final class PatternEvaluator[E <: AnyRef](pattern: CompiledPattern, reader: EventReader[E], grouped: Boolean,
    bound: MatchBound) {
  val metrics = new EvaluatorMetrics
  private val cea = pattern.newDeterministicCea()
  private val symbols = new io.sparkcer.engine.automaton.SymbolTable(pattern.nfa.symbolWords)
  private val enumerator = new Enumerator
  private val words = new Array[Long](pattern.nfa.symbolWords)
  private val window = pattern.analyzed.window
  private val partitioned = pattern.analyzed.partitionKeys.nonEmpty
  private val columnWindow = window.exists(_.key.isInstanceOf[WindowKey.Column])
  private val windowAmount = window.fold(0L) { w =>
    w.key match {
      case WindowKey.Column(_, true) => Math.multiplyExact(w.amount, reader.windowUnitsPerMilli)
      case _ => w.amount
    }
  }
  private val partitions = mutable.HashMap.empty[IndexedSeq[Any], Partition]
  private var single: Partition = _
  private var sweepAt = 1024L
  private val forgettable = pattern.forgetsIdlePartitions
  private val evictable = columnWindow && !grouped && partitioned && forgettable

  /** @param witness the event that opened the partition: a restored state finds the partition key from it */
  private final class Partition(val key: IndexedSeq[Any], val witness: E) {
    var run: Run = pattern.newRun(cea, enumerator)
    val events = new EventRing[E]
    var position = -1L
    var lastKey = Long.MinValue
  }

  /** The matches of a stream of events in stream order, each yielded once the event that completes it is read. */
  def matches(events: Iterator[E]): Iterator[MatchOf[E]] = new Iterator[MatchOf[E]] {
    private val pending = new java.util.ArrayDeque[MatchOf[E]]()
    private val enqueue: MatchOf[E] => Unit = m => pending.add(m)

    def hasNext: Boolean = {
      while (pending.isEmpty && events.hasNext) push(events.next(), enqueue)
      !pending.isEmpty
    }

    def next(): MatchOf[E] = if (hasNext) pending.poll() else throw new NoSuchElementException("no more matches")
  }

  /** Reads one event; `emit` receives the matches it completes. */
  def push(event: E, emit: MatchOf[E] => Unit): Unit = {
    metrics.events += 1
    if (columnWindow && !reader.hasWindowKey(event)) { metrics.droppedNullKey += 1; return }
    if (!classified(event)) return
    val partition = partitionOf(event)
    if (partition == null) { metrics.droppedNullKey += 1; return }

    partition.position += 1
    val position = partition.position
    val key = if (columnWindow) reader.windowKey(event) else position
    if (key < partition.lastKey)
      throw new IllegalArgumentException(
        s"events are out of stream order: window key $key after ${partition.lastKey} at $event; sort the input by the order column")
    partition.lastKey = key
    val threshold = if (window.isEmpty) Long.MinValue else key - windowAmount
    partition.events.expire(threshold)
    partition.events.append(position, event, key)

    val sink = if (reader.isContext(event)) null else this.sink.reset(partition, position, emit)
    val found = partition.run.read(position, symbols.intern(words), words, key, threshold, sink)
    metrics.peakActiveStates = math.max(metrics.peakActiveStates, partition.run.activeStates)
    metrics.peakLiveNodes = math.max(metrics.peakLiveNodes, partition.run.tecs.liveNodes)
    metrics.peakBufferedEvents = math.max(metrics.peakBufferedEvents, partition.events.size)
    metrics.peakPartitions = math.max(metrics.peakPartitions, partitions.size)
    metrics.maxOutputDepth = math.max(metrics.maxOutputDepth, partition.run.tecs.maxOutputDepth)

    if (found > 0) consume(partition)
    if (evictable && metrics.events >= sweepAt) evictIdle(threshold)
  }

  private val ignoresUnguarded = pattern.ignoresUnguardedEvents

  /**
   * Whether the event can change a match: false for one that satisfies no guard where the pattern passes such
   * events by ([[CompiledPattern.ignoresUnguardedEvents]]). A caller holding events for later reads this first.
   */
  def reads(event: E): Boolean = !ignoresUnguarded || classified(event)

  /** Sets `words` to the event's guards; false when the event satisfies none and the pattern passes it by. */
  private def classified(event: E): Boolean = {
    java.util.Arrays.fill(words, 0L)
    reader.classify(event, words)
    if (!ignoresUnguarded) return true
    var w = 0
    while (w < words.length) { if (words(w) != 0L) return true; w += 1 }
    false
  }

  private def partitionOf(event: E): Partition =
    if (!partitioned) {
      if (single == null) single = new Partition(IndexedSeq.empty, event)
      single
    } else {
      val key = reader.partitionKey(event)
      if (key == null) null
      else if (grouped) {
        if (single == null || single.key != key) single = new Partition(key, event)
        single
      } else partitions.getOrElseUpdate(key, new Partition(key, event))
    }

  // ---- a live stream's state between micro-batches -----------------------------------------------------------

  private def held: Iterator[Partition] = partitions.valuesIterator ++ Option(single).iterator

  /** Whether no partition holds anything: the state is that of a fresh evaluator. */
  def isEmpty: Boolean = partitions.isEmpty && single == null

  /** Forgets every partition, as a fresh evaluator; the automaton built so far is kept. */
  def reset(): Unit = { partitions.clear(); single = null }

  /**
   * Told that no event with a window key at or below `key` will come any more (a watermark), drops what no later
   * event can use, as that event's own threshold would: expired partial matches and events, and under ALL, ANY
   * and STRICT whole partitions whose events have all left the window. Column windows only.
   */
  def advanceTo(key: Long): Unit = if (columnWindow) {
    val threshold = key - windowAmount
    def spent(p: Partition) = forgettable && p.lastKey <= threshold
    partitions.filterInPlace { case (_, p) => !spent(p) }
    if (single != null && spent(single)) single = null
    held.foreach { p => p.events.expire(threshold); p.run.expire(threshold) }
  }

  /**
   * The window key from which [[advanceTo]] can drop everything that is left, or None when nothing more expires
   * (no column window, or only the priority order that NEXT, LAST and MAX keep).
   */
  def expiresAt: Option[Long] =
    if (!columnWindow) None
    else held.filter(p => forgettable || p.events.size > 0).map(p => Math.addExact(p.lastKey, windowAmount)).maxOption

  /** Writes the state of every partition; events go through `codec`. */
  def save(out: DataOutput, codec: EventCodec[E]): Unit = {
    out.writeInt(PatternEvaluator.StateFormat)
    out.writeInt(partitions.size + (if (single == null) 0 else 1))
    held.foreach { p =>
      codec.write(p.witness, out)
      out.writeLong(p.position)
      out.writeLong(p.lastKey)
      p.events.save(out, codec)
      p.run.save(out)
    }
  }

  /** Replaces the state with one [[save]] wrote, for the same query (in this or another process). */
  def load(in: DataInput, codec: EventCodec[E]): Unit = {
    reset()
    val format = in.readInt()
    require(format == PatternEvaluator.StateFormat, s"saved state format $format, expected ${PatternEvaluator.StateFormat}")
    for (_ <- 0 until in.readInt()) {
      val witness = codec.read(in)
      val p = new Partition(if (partitioned) reader.partitionKey(witness) else IndexedSeq.empty, witness)
      p.position = in.readLong()
      p.lastKey = in.readLong()
      p.events.load(in, codec)
      p.run.load(in)
      if (partitioned && !grouped) partitions(p.key) = p else single = p
    }
  }

  private def consume(partition: Partition): Unit = pattern.consumption match {
    case Consumption.Nothing => ()
    case Consumption.Partition => partition.run = pattern.newRun(cea, enumerator)
    case Consumption.Any =>
      partition.run = pattern.newRun(cea, enumerator)
      partitions.valuesIterator.foreach(p => p.run = pattern.newRun(cea, enumerator))
  }

  /** Partitions whose last event is out of the window can complete no match: forget them. */
  private def evictIdle(threshold: Long): Unit = {
    partitions.filterInPlace { case (_, p) => p.lastKey > threshold }
    sweepAt = metrics.events + math.max(1024, partitions.size)
  }

  /** Turns enumerated complex events into matches, honouring LIMIT and the bound, de-duplicating when needed. */
  private object sink extends MatchSink {
    private var partition: Partition = _
    private var end = 0L
    private var emit: MatchOf[E] => Unit = _
    private var accepted = 0L
    private val seen = mutable.HashSet.empty[(Long, Seq[Seq[Long]])]
    private val outputs = pattern.analyzed.outputs.length
    private val variablesOf: Array[Array[Int]] = pattern.nfa.labels.map(_.toArray).toArray
    private val counts = new Array[Int](outputs)

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

    def reset(partition: Partition, end: Long, emit: MatchOf[E] => Unit): MatchSink = {
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

    private def tooMany(): TooManyMatchesException = new TooManyMatchesException(
      s"the event at ${reader.describe(partition.events(end))} completes more than ${bound.perEvent} matches, the " +
        s"bound ${bound.setting}. Under SELECT ALL each combination of earlier events the pattern can pick is a " +
        "match of its own (exponentially many under an iteration +), and the matches of one event are held in " +
        "memory together. Bound them with a window (WITHIN 100 EVENTS, WITHIN 10 SECONDS) or a shorter one, choose " +
        "among them with SELECT LAST (one per event) or SELECT MAX (the maximal ones), or keep the first n with " +
        s"LIMIT n; or raise ${bound.setting}.")
  }
}

object PatternEvaluator {
  /** The layout version of [[PatternEvaluator.save]]; a change makes old checkpoints fail loudly, not silently. */
  final val StateFormat = 1
}
