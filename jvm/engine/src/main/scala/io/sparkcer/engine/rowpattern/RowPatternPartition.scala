package io.sparkcer.engine.rowpattern

import java.io.{DataInput, DataOutput}

import scala.collection.mutable

import io.sparkcer.engine.eval.{EventCodec, SavedState}

/**
 * One partition's MATCH_RECOGNIZE: its rows pushed in order, the [[Matcher]] fed row by row, the DEFINE conditions
 * asked of the `host` ([[LabelEvaluator]]), and each match's output rows emitted in the order of the rows, once its
 * measures can read the rows they need; the state a stream keeps between micro-batches saved and loaded with a format
 * version. The verbs are CEQL's evaluator's ([[io.sparkcer.engine.plan.Evaluator]]): push, finish, advance to a
 * watermark, what expires when, whether anything is held, save and load.
 *
 * Under WITHIN, a match reads no row past its span ([[HeldRows]]), and a stream knows no row there comes once the
 * watermark passes the span's end: that is when it decides the match (a table reads the rows it has, the same).
 *
 * @param emit receives the output rows, in order
 */
final class RowPatternPartition[R, O](pattern: AnalyzedRowPattern, host: RowPatternHost[R, O],
    bound: PartialMatchBound, emit: O => Unit) {
  import RowPatternPartition.Found

  private val window = host.window
  private val rows = new HeldRows[R](window)
  private var pushed = 0L // rows the matcher has read
  private val outFrame = new MatchFrame
  private val pending = mutable.Queue.empty[Either[Long, Found]] // Left: an unmatched row's position
  private val rowsPerMatch = pattern.clause.rowsPerMatch
  private val (conditionsAhead, measuresAhead) = (host.conditionsAhead, host.measuresAhead)
  /** On a stream, no row of an order value (milliseconds) below this can come any more ([[advanceTo]]). */
  private var settled = Long.MinValue
  /** Whether the partition has ended: every row is read, and NEXT past the last is NULL. */
  private var ended = false

  private val conditions = new LabelEvaluator[R, host.Summary](host, rows, pattern.labels.length)
  private val matcher = new Matcher(
    pattern,
    conditions,
    new RowPatternSink {
      // A match output at once is not copied: under SKIP TO NEXT ROW the matches of a long run, each a suffix of the
      // last, would hold labels quadratic in the run until the partition ends.
      def matched(number: Long, start: Long, length: Int, labels: Array[Int], excluded: Array[Boolean]): Unit =
        if (pending.isEmpty && ready(start, length)) output(number, start, length, labels, excluded)
        else pending += Right(Found(number, start, labels.take(length), excluded.take(length)))
      def unmatched(position: Long): Unit = pending += Left(position)
    },
    window.map { case (millis, span) => ((p: Long) => millis(rows(p)), span) },
    bound
  )

  /** The matcher's work so far ([[Matcher.work]]). */
  def work: Long = matcher.work

  /** The rows of their matches that the DEFINE conditions have read ([[LabelEvaluator.rowsRead]]). */
  def conditionRowsRead: Long = conditions.rowsRead

  /** Whether no row past the end of the span of a match that began at `start` can come any more. */
  private def spanOver(start: Long): Boolean =
    window.exists { case (millis, span) => settled >= millis(rows(start)) + span }

  /** Reads the partition's next row (not copied: the caller gives a row of its own). */
  def push(row: R): Unit = {
    rows += row
    while (pushed + conditionsAhead < rows.count) { matcher.push(); pushed += 1 }
    flush()
  }

  /** The partition ends: every start is decided, and what waited for rows past the last is output. */
  def finish(): Unit = {
    ended = true
    while (pushed < rows.count) { matcher.push(); pushed += 1 }
    matcher.finish()
    flush()
  }

  /**
   * On a stream: no row of the partition before `now` (milliseconds of the first ORDER BY column) can come any more,
   * so the matches that only such rows could extend within WITHIN's bound are decided. A row whose NEXT has not come
   * is given to the matcher once its own span is over: the rows it would read ahead are past the span of every match
   * that can read it, NULL. Until then, the matches that may still read it wait.
   */
  def advanceTo(now: Long): Unit = {
    settled = now
    for ((millis, span) <- window) {
      while (pushed < rows.count && now >= millis(rows(pushed)) + span) { matcher.push(); pushed += 1 }
      matcher.expire(if (pushed < rows.count) math.min(now, millis(rows(pushed))) else now)
    }
    flush()
  }

  /** The time (milliseconds) from which [[advanceTo]] has something to decide, if any. */
  def expiresAt: Option[Long] = window.flatMap { case (millis, span) =>
    val waiting = if (pushed < rows.count) Some(millis(rows(pushed))) else None // a row whose NEXT has not come
    // the matcher's oldest start ends with its span, unless the waiting row is in that span
    val decided = matcher.expiresAt.filter(t => waiting.forall(t <= _))
    // a match whose measures read rows past it that have not come
    val measured = pending.headOption.collect { case Right(m) => millis(rows(m.start)) + span }
    (waiting.map(_ + span) ++ decided ++ measured).minOption
  }

  /** Whether the partition carries nothing to its next row: no match is under way or waits, none reads the past. */
  def isEmpty: Boolean = !host.readsPastMatches && pushed == rows.count && pending.isEmpty && matcher.idle

  /**
   * Writes what the partition carries to its next rows, after the layout's version ([[RowPatternPartition.Format]]):
   * the rows still read, the outputs waiting, the matcher.
   */
  def save(out: DataOutput, codec: EventCodec[R]): Unit = {
    out.writeInt(RowPatternPartition.Format)
    Seq(rows.oldest, rows.count, pushed).foreach(out.writeLong)
    rows.iterator.foreach(codec.write(_, out))
    out.writeInt(pending.length)
    pending.foreach {
      case Left(position) => out.writeBoolean(false); out.writeLong(position)
      case Right(m) =>
        out.writeBoolean(true); out.writeLong(m.number); out.writeLong(m.start); out.writeInt(m.labels.length)
        m.labels.foreach(out.writeInt); m.excluded.foreach(out.writeBoolean)
    }
    matcher.save(out)
  }

  /** Makes this fresh partition the one [[save]] wrote; a state of another layout is refused, saying what to do. */
  def load(in: DataInput, codec: EventCodec[R]): Unit = {
    require(rows.count == 0, "a partition is loaded when fresh")
    SavedState.requireFormat(in, RowPatternPartition.Format)
    val (first, count) = (in.readLong(), in.readLong())
    pushed = in.readLong()
    rows.load(first, count, codec.read(in))
    for (_ <- 0 until in.readInt()) pending += {
      if (!in.readBoolean()) Left(in.readLong())
      else {
        val (number, start, length) = (in.readLong(), in.readLong(), in.readInt())
        Right(Found(number, start, Array.fill(length)(in.readInt()), Array.fill(length)(in.readBoolean())))
      }
    }
    matcher.load(in)
  }

  /**
   * Whether a match's measures can be evaluated: the rows they read past it are read, or can only be past the
   * partition's end or the match's span (NULL).
   */
  private def ready(start: Long, length: Int): Boolean =
    ended || rows.count >= start + length + measuresAhead || spanOver(start)

  /** Outputs what is ready, in order. */
  private def flush(): Unit = {
    while (pending.nonEmpty && (pending.head match {
        case Left(_) => true
        case Right(m) => ready(m.start, m.labels.length)
      })) pending.dequeue() match {
      case Left(position) => emit(host.unmatched(rows(position)))
      case Right(m) => output(m.number, m.start, m.labels.length, m.labels, m.excluded)
    }
    // Rows before the oldest one a thread or an output may read (less what PREV reads before it) are dropped.
    val oldest = pending.headOption.fold(matcher.oldestNeeded) {
      case Left(p) => p
      case Right(m) => m.start
    }
    rows.dropBefore(oldest - host.behind)
  }

  /** The output rows of a match (its labels and exclusions are read before the call returns). */
  private def output(number: Long, start: Long, length: Int, labels: Array[Int], excluded: Array[Boolean]): Unit = {
    rows.within(start, start + length - 1, measuresAhead)
    outFrame.matched(number, start, length, labels, excluded)
    rowsPerMatch match {
      case RowsPerMatch.One => emit(host.matched(outFrame, rows, rows(start)))
      case _ if length == 0 =>
        // An empty match is one row, the one where it was found (as Oracle shows it), its CLASSIFIER NULL.
        if (rowsPerMatch != RowsPerMatch.AllOmitEmpty) {
          outFrame.current = -1
          emit(host.matched(outFrame, rows, rows(start)))
        }
      case _ =>
        var i = 0
        while (i < length) {
          if (!outFrame.excluded(i)) {
            outFrame.current = i
            emit(host.matched(outFrame, rows, rows(start + i)))
          }
          i += 1
        }
    }
  }
}

object RowPatternPartition {
  /**
   * The layout version of a partition's saved state, written first ([[SavedState.requireFormat]]): 1, the first to
   * carry one; 2, written by the engine's partition, the stream's own fields after it, and the matcher's deferred
   * starts.
   */
  final val Format = 2

  /** A match the matcher found, kept until its measures can read the rows they need. */
  private final case class Found(number: Long, start: Long, labels: Array[Int], excluded: Array[Boolean])

  /**
   * The output rows of a task's rows, one partition after another (sorted by partition, then by order): a partition
   * ends where `startsPartition`, asked of every row in turn, says the row begins another. `finished` is told of each partition as it ends
   * (its counters). Rows are pushed as given: the caller copies a row it reuses.
   */
  def outputs[R, O](rows: Iterator[R], startsPartition: R => Boolean,
      open: (O => Unit) => RowPatternPartition[R, O], finished: RowPatternPartition[R, O] => Unit): Iterator[O] =
    new Iterator[O] {
      private val out = mutable.Queue.empty[O]
      private val enqueue: O => Unit = out += _
      private var current: RowPatternPartition[R, O] = _

      def hasNext: Boolean = {
        while (out.isEmpty && (rows.hasNext || current != null)) {
          if (rows.hasNext) {
            val row = rows.next()
            if (startsPartition(row) || current == null) {
              if (current != null) end()
              current = open(enqueue)
            }
            current.push(row)
          } else {
            end()
            current = null
          }
        }
        out.nonEmpty
      }

      def next(): O = if (hasNext) out.dequeue() else throw new NoSuchElementException("no more rows")

      private def end(): Unit = { current.finish(); finished(current) }
    }
}
