package io.sparkcer.engine.plan

import java.io.{DataInput, DataOutput}

import io.sparkcer.engine.chain.ChainDecisions
import io.sparkcer.engine.eval.{EventCodec, MatchOf, Work}

/**
 * Runs a compiled pattern over events of type E, as its callers see it (Spark's batch and streaming operators, the
 * engine's own `LocalQuery`): events in, in stream order, and matches out, each once its last event is read; and
 * the state a live stream keeps between micro-batches. Its one implementation, [[PatternEvaluator]], runs on each
 * partition the evaluation that [[Planner]] chose ([[Evaluation]]), so that a new way of evaluating is a case of
 * [[Evaluation]] and its run, and no caller changes.
 */
trait Evaluator[E] {
  /** Counters of what has been read so far. */
  def metrics: EvaluatorMetrics

  /** Reads one event; `emit` receives the matches it completes. */
  def push(event: E, emit: MatchOf[E] => Unit): Unit

  /**
   * Whether the event can change a match. A caller holding events for later (until a watermark passes them)
   * reads this first and keeps only those.
   */
  def reads(event: E): Boolean

  /**
   * Told that no event with a window key at or below `key` will come any more (a watermark), drops what no later
   * event can use. Column windows only.
   */
  def advanceTo(key: Long): Unit

  /** The window key from which [[advanceTo]] can drop everything that is left, or None when nothing more expires. */
  def expiresAt: Option[Long]

  /** Whether nothing is held: the state is that of a fresh evaluator. */
  def isEmpty: Boolean

  /** Forgets everything read, as a fresh evaluator; what was compiled along the way is kept. */
  def reset(): Unit

  /** Writes the state; events go through `codec`. */
  def save(out: DataOutput, codec: EventCodec[E]): Unit

  /** Replaces the state with one [[save]] wrote, for the same query (in this or another process). */
  def load(in: DataInput, codec: EventCodec[E]): Unit

  /** The matches of a stream of events in stream order, each yielded once the event that completes it is read. */
  final def matches(events: Iterator[E]): Iterator[MatchOf[E]] = new Iterator[MatchOf[E]] {
    private val pending = new java.util.ArrayDeque[MatchOf[E]]()
    private val enqueue: MatchOf[E] => Unit = m => pending.add(m)

    def hasNext: Boolean = {
      while (pending.isEmpty && events.hasNext) push(events.next(), enqueue)
      !pending.isEmpty
    }

    def next(): MatchOf[E] = if (hasNext) pending.poll() else throw new NoSuchElementException("no more matches")
  }
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
  /** The steps taken, by kind: what the papers' bounds are about ([[Work]]). */
  val work = new Work
  /** Where a chain may run lazily or with registers: the path each partition took, and the work that chose it. */
  val chainDecisions = new ChainDecisions
}
