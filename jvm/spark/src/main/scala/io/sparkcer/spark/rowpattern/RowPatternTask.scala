package io.sparkcer.spark.rowpattern

import java.io.{DataInput, DataOutput}

import scala.collection.mutable

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, BindReferences, BoundReference, GenericInternalRow, JoinedRow, SortOrder, UnsafeProjection}
import org.apache.spark.sql.types.{DateType, TimestampNTZType, TimestampType}

import io.sparkcer.engine.eval.EventCodec
import io.sparkcer.engine.rowpattern.{AnalyzedRowPattern, ConditionReads, LabelNode, MatchFrame, Matcher, PartialMatchBound, RowConditions, RowPattern, RowPatternSink, RowsPerMatch}
import io.sparkcer.spark.common.OrderColumn

/**
 * What every task of a MATCH_RECOGNIZE operator runs over the rows of `input`, sorted by partition then order: per
 * partition, the matcher ([[Matcher]]) fed row by row, its DEFINE conditions and measures evaluated on the partition's
 * rows ([[BoundRowPatternExpression]]), and the output rows of each match in the order of the rows.
 */
final case class RowPatternTask(
    pattern: RowPatternSpec,
    partitionKeys: Seq[Attribute],
    order: Seq[SortOrder],
    defined: Seq[Int],
    defines: Seq[RowPatternExpression],
    measures: Seq[RowPatternExpression],
    output: Seq[Attribute],
    input: Seq[Attribute],
    bound: PartialMatchBound) extends RowPatternOperator {

  /**
   * The rows of one task, one partition after another, to the output rows of their matches; `conditionRowsRead` is
   * told, per partition, how many rows of their matches the DEFINE conditions read ([[RowPatternTask.Partition]]).
   */
  def run(rows: Iterator[InternalRow], partitionIndex: Int, conditionRowsRead: Long => Unit = _ => ()): Iterator[InternalRow] = {
    val opened = new RowPatternTask.Opened(this, partitionIndex)
    val key = UnsafeProjection.create(clusterKeys, input)
    val out = mutable.Queue.empty[InternalRow]
    var current: RowPatternTask.Partition = null
    var currentKey: InternalRow = null
    new Iterator[InternalRow] {
      def hasNext: Boolean = {
        while (out.isEmpty && (rows.hasNext || current != null)) {
          if (rows.hasNext) {
            val row = rows.next()
            val k = key(row)
            if (current == null || k != currentKey) {
              if (current != null) { current.finish(); conditionRowsRead(current.conditionRowsRead) }
              current = new RowPatternTask.Partition(opened, out)
              currentKey = k.copy()
            }
            current.add(row.copy())
          } else {
            current.finish()
            conditionRowsRead(current.conditionRowsRead)
            current = null
          }
        }
        out.nonEmpty
      }
      def next(): InternalRow = { hasNext; out.dequeue() }
    }
  }
}

object RowPatternTask {
  /** A task's compiled pattern, conditions, measures and output projections. */
  final class Opened(task: RowPatternTask, partitionIndex: Int) {
    val pattern: AnalyzedRowPattern = task.pattern.analyzed
    val bound: PartialMatchBound = task.bound
    private val labels = pattern.labels
    /** What the conditions that read other rows of their match keep per row of a thread ([[RunningSummary]]). */
    val layout = new RunningLayout(task.defines, labels, task.input, partitionIndex)
    val conditions: Array[BoundRowPatternExpression] = {
      val byLabel = new Array[BoundRowPatternExpression](labels.length)
      task.defined.zip(task.defines).foreach { case (l, d) =>
        byLabel(l) = new BoundRowPatternExpression(d, task.input, labels, partitionIndex, Some(layout))
      }
      byLabel
    }
    /** Per label, whether its condition reads the labels of the match's other rows. */
    val readsHistory: Array[Boolean] = Array.tabulate(labels.length) { l =>
      task.defined.indexOf(l) match {
        case -1 => false
        case k => task.defines(k).values.exists {
          case MatchValue.Column(p, _, _) => !p.current
          case _ => true
        }
      }
    }
    /** Per label, whether its condition reads other rows of its match through the thread's running summary. */
    val onSummary: Array[Boolean] = Array.tabulate(labels.length)(l => readsHistory(l) && conditions(l).running)
    /**
     * Per label, whether its condition reads only its row and rows at physical offsets from it: then it is evaluated
     * once per row, whatever the number of threads that try the row, as a window function would be.
     */
    val perRow: Array[Boolean] = Array.tabulate(labels.length) { l =>
      task.defined.indexOf(l) match {
        case -1 => false
        case k => task.defines(k).values.forall {
          case MatchValue.Column(p, _, _) => p.current
          case MatchValue.Classifier(p, _) => p.current && p.physical == 0
          case _ => false
        }
      }
    }
    val reads: ConditionReads = {
      val values = task.defines.flatMap(_.values)
      val all = labels.indices.toSet
      values.foldLeft(ConditionReads.Nothing) { (r, v) =>
        v match {
          case MatchValue.Column(p, _, _) if p.current => r
          case MatchValue.Column(p, _, _) => ConditionReads(r.labels ++ p.labels.getOrElse(Set.empty), r.start || p.labels.isEmpty)
          case MatchValue.Classifier(p, _) if p.current && p.physical == 0 => r
          case MatchValue.Classifier(_, _) => ConditionReads(all, start = true)
          // The universal variable's aggregate of CLASSIFIER() tells every label apart.
          case a: MatchValue.Aggregate => ConditionReads(r.labels ++ a.labels.getOrElse(if (a.readsLabels) all else Set.empty),
            r.start || a.labels.isEmpty)
          case MatchValue.Number => r
        }
      }
    }
    /** How far the conditions read ahead of their row (NEXT), and the measures past their match's last row. */
    val conditionsAhead: Int = ahead(task.defines)
    val measuresAhead: Int = ahead(task.measures)
    /** How far anything reads before the oldest row a match can still use (PREV). */
    val behind: Int = (task.defines ++ task.measures).flatMap(_.values).collect {
      case MatchValue.Column(p, _, _) => -p.physical
    }.foldLeft(0)(math.max)
    /**
     * Whether a partition's next matches depend on its rows before them: PREV reads back past a match's first row,
     * MATCH_NUMBER counts the matches before, `^` matches only at the first row. Otherwise a partition with no match
     * under way carries nothing to its next row, and a stream forgets it ([[Partition.forgettable]]).
     */
    val readsPastMatches: Boolean = behind > 0 ||
      (task.defines ++ task.measures).exists(_.values.contains(MatchValue.Number)) ||
      RowPattern.parts(pattern.clause.pattern).exists(_.isInstanceOf[RowPattern.PartitionStart])
    private def ahead(es: Seq[RowPatternExpression]): Int = es.flatMap(_.values).collect {
      case MatchValue.Column(p, _, _) => p.physical
    }.foldLeft(0)(math.max)

    val measures: Array[BoundRowPatternExpression] =
      task.measures.map(new BoundRowPatternExpression(_, task.input, labels, partitionIndex)).toArray
    private val measured = task.output.filterNot(a => task.input.exists(_.exprId == a.exprId))
    val measureRow = new GenericInternalRow(measures.length)
    private val nullMeasures = new GenericInternalRow(measures.length)
    private val joined = new JoinedRow()
    private val full = UnsafeProjection.create(task.output, task.input ++ measured)
    full.initialize(partitionIndex)

    /** An output row: the input columns of `input`, and the measures in [[measureRow]] (or NULL ones). */
    def row(input: InternalRow): InternalRow = full(joined(input, measureRow)).copy()
    def unmatched(input: InternalRow): InternalRow = full(joined(input, nullMeasures)).copy()

    /** WITHIN: the first ORDER BY column's value as milliseconds. */
    val window: Option[(InternalRow => Long, Long)] = task.pattern.clause.within.map { w =>
      val column = BindReferences.bindReference(task.order.head.child, task.input).asInstanceOf[BoundReference]
      val read = OrderColumn.longOf(column.dataType)
      val millis: InternalRow => Long = column.dataType match {
        case TimestampType | TimestampNTZType => r => Math.floorDiv(read(r, column.ordinal), 1000L)
        case DateType => r => read(r, column.ordinal) * 86400000L
        case _ => r => read(r, column.ordinal)
      }
      (millis, w.millis)
    }
  }

  /** A match the matcher found, kept until its measures can read the rows they need. */
  private final case class Found(number: Long, start: Long, labels: Array[Int], excluded: Array[Boolean])

  /**
   * One partition's matching: its rows as the conditions and measures need them, and what is still to be output.
   *
   * Under WITHIN, a match reads no row past its span: NEXT from a condition or measure of a match that began at row s
   * reads NULL for a row whose time is at or past s's plus the bound. Such a row can never be part of the match, and a
   * stream knows no row there comes once the watermark passes the span's end: that is when it decides the match (a
   * table reads the rows it has, the same).
   */
  final class Partition(opened: Opened, out: mutable.Queue[InternalRow]) extends PartitionRows {
    private val rows = mutable.ArrayDeque.empty[InternalRow]
    private var first = 0L // the position of rows.head
    private var read = 0L // rows added
    private var pushed = 0L // rows the matcher has read
    private val frame = new MatchFrame
    private val outFrame = new MatchFrame
    private val pending = mutable.Queue.empty[Either[Long, Found]] // Left: an unmatched row's position
    private val rowsPerMatch = opened.pattern.clause.rowsPerMatch

    /**
     * Per label read once per row ([[Opened.perRow]]): the last row it was evaluated on, the [[horizon]] it read under
     * (a later start's span may see further rows), and the answer.
     */
    private val evaluatedAt = Array.fill(opened.pattern.labels.length)(-1L)
    private val evaluatedUnder = new Array[Long](opened.pattern.labels.length)
    private val answer = new Array[Boolean](opened.pattern.labels.length)
    /** The first row past the span of the match being read: rows from it on read NULL (see the class comment). */
    private var horizon = Long.MaxValue
    /** On a stream, no row of an order value (milliseconds) below this can come any more ([[expire]]). */
    private var settled = Long.MinValue
    /** Whether the partition has ended: every row is read, and NEXT past the last is NULL. */
    private var ended = false

    /**
     * The rows of their matches that the DEFINE conditions have read: each row a running summary was made for, each
     * row of a match read for a condition that reads its match row by row.
     */
    var conditionRowsRead = 0L

    private val matcher = new Matcher(opened.pattern, new RowConditions {
      def holds(start: Long, row: LabelNode): Boolean = {
        val label = row.label
        val position = start + row.length - 1
        horizon = spanEnd(start, position, opened.conditionsAhead)
        if (opened.perRow(label) && evaluatedAt(label) == position && evaluatedUnder(label) == horizon) answer(label)
        else {
          val condition = opened.conditions(label)
          val holds = (
            if (opened.onSummary(label)) condition.evalRunning(summary(start, row), start, row.length - 1, label, Partition.this)
            else {
              if (opened.readsHistory(label)) conditionRowsRead += row.length
              frame.tryRow(start, row, opened.readsHistory(label))
              condition.eval(frame, Partition.this)
            }) == true
          evaluatedAt(label) = position
          evaluatedUnder(label) = horizon
          answer(label) = holds
          holds
        }
      }
    }, opened.reads, new RowPatternSink {
      // A match output at once is not copied: under SKIP TO NEXT ROW the matches of a long run, each a suffix of the
      // last, would hold labels quadratic in the run until the partition ends.
      def matched(number: Long, start: Long, length: Int, labels: Array[Int], excluded: Array[Boolean]): Unit =
        if (pending.isEmpty && ready(start, length)) output(number, start, length, labels, excluded)
        else pending += Right(Found(number, start, labels.take(length), excluded.take(length)))
      def unmatched(position: Long): Unit = pending += Left(position)
    }, opened.window.map { case (millis, span) => ((p: Long) => millis(apply(p)), span) }, opened.bound)

    /**
     * The running summary of a thread's rows up to `row`, that row included, made once per row of the history and
     * kept on it; after a load the history has none, and they are made again from the oldest row up.
     */
    private def summary(start: Long, row: LabelNode): RunningSummary =
      if (!opened.layout.keeps) null
      else {
        var missing = List.empty[LabelNode]
        var n = row
        while (n != null && n.summary == null) { missing ::= n; n = n.previous }
        var s = if (n == null) null else n.summary.asInstanceOf[RunningSummary]
        for (m <- missing) {
          s = opened.layout.extend(s, m.label, m.length - 1, apply(start + m.length - 1))
          m.summary = s
          conditionRowsRead += 1
        }
        s
      }

    def holds(position: Long): Boolean = position >= first && position < read && position < horizon
    def apply(position: Long): InternalRow = rows((position - first).toInt)

    /**
     * The first row past the span of a match that began at `start`, looking at most `ahead` rows past its row `from`
     * (how far its navigation reads ahead); Long.MaxValue without WITHIN.
     */
    private def spanEnd(start: Long, from: Long, ahead: Int): Long = opened.window.fold(Long.MaxValue) {
      case (millis, span) =>
        var q = from + 1
        if (ahead > 0) {
          val end = millis(apply(start)) + span
          while (q <= from + ahead && q < read && millis(apply(q)) < end) q += 1
        }
        q
    }

    /** Whether no row past the end of the span of a match that began at `start` can come any more. */
    private def spanOver(start: Long): Boolean =
      opened.window.exists { case (millis, span) => settled >= millis(apply(start)) + span }

    def add(row: InternalRow): Unit = {
      rows += row
      read += 1
      while (pushed + opened.conditionsAhead < read) { matcher.push(); pushed += 1 }
      flush()
    }

    def finish(): Unit = {
      ended = true
      while (pushed < read) { matcher.push(); pushed += 1 }
      matcher.finish()
      flush()
    }

    /**
     * On a stream: no row of the partition before `now` (milliseconds of the first ORDER BY column) can come any more,
     * so the matches that only such rows could extend within WITHIN's bound are decided. A row whose NEXT has not come
     * is given to the matcher once its own span is over: the rows it would read ahead are past the span of every match
     * that can read it, NULL. Until then, the matches that may still read it wait.
     */
    def expire(now: Long): Unit = {
      settled = now
      for ((millis, span) <- opened.window) {
        while (pushed < read && now >= millis(apply(pushed)) + span) { matcher.push(); pushed += 1 }
        matcher.expire(if (pushed < read) math.min(now, millis(apply(pushed))) else now)
      }
      flush()
    }

    /** The time (milliseconds) from which [[expire]] has something to decide, if any. */
    def expiresAt: Option[Long] = opened.window.flatMap { case (millis, span) =>
      val waiting = if (pushed < read) Some(millis(apply(pushed))) else None // a row whose NEXT has not come
      // the matcher's oldest start ends with its span, unless the waiting row is in that span
      val decided = matcher.expiresAt.filter(t => waiting.forall(t <= _))
      // a match whose measures read rows past it that have not come
      val measured = pending.headOption.collect { case Right(m) => millis(apply(m.start)) + span }
      (waiting.map(_ + span) ++ decided ++ measured).minOption
    }

    /** Whether the partition carries nothing to its next row: no match is under way or waits, none reads the past. */
    def forgettable: Boolean = !opened.readsPastMatches && pushed == read && pending.isEmpty && matcher.idle

    /** Writes what the partition carries to its next rows: the rows still read, the outputs waiting, the matcher. */
    def save(out: DataOutput, codec: EventCodec[InternalRow]): Unit = {
      Seq(first, read, pushed).foreach(out.writeLong)
      rows.foreach(codec.write(_, out))
      out.writeInt(pending.length)
      pending.foreach {
        case Left(position) => out.writeBoolean(false); out.writeLong(position)
        case Right(m) =>
          out.writeBoolean(true); out.writeLong(m.number); out.writeLong(m.start); out.writeInt(m.labels.length)
          m.labels.foreach(out.writeInt); m.excluded.foreach(out.writeBoolean)
      }
      matcher.save(out)
    }

    /** Makes this fresh partition the one [[save]] wrote. */
    def load(in: DataInput, codec: EventCodec[InternalRow]): Unit = {
      first = in.readLong(); read = in.readLong(); pushed = in.readLong()
      for (_ <- first until read) rows += codec.read(in)
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
      ended || read >= start + length + opened.measuresAhead || spanOver(start)

    /** Outputs what is ready, in order. */
    private def flush(): Unit = {
      while (pending.nonEmpty && (pending.head match {
        case Left(_) => true
        case Right(m) => ready(m.start, m.labels.length)
      })) pending.dequeue() match {
        case Left(position) => out += opened.unmatched(apply(position))
        case Right(m) => output(m.number, m.start, m.labels.length, m.labels, m.excluded)
      }
      // Rows before the oldest one a thread or an output may read (less what PREV reads before it) are dropped.
      val oldest = pending.headOption.fold(matcher.oldestNeeded) {
        case Left(p) => p
        case Right(m) => m.start
      }
      while (first < oldest - opened.behind && rows.nonEmpty) { rows.removeHead(); first += 1 }
    }

    /** The output rows of a match (its labels and exclusions are read before the call returns). */
    private def output(number: Long, start: Long, length: Int, labels: Array[Int], excluded: Array[Boolean]): Unit = {
      horizon = spanEnd(start, start + length - 1, opened.measuresAhead)
      outFrame.matched(number, start, length, labels, excluded)
      def measure(): Unit = {
        var k = 0
        while (k < opened.measures.length) { opened.measureRow.update(k, opened.measures(k).eval(outFrame, this)); k += 1 }
      }
      rowsPerMatch match {
        case RowsPerMatch.One =>
          measure()
          out += opened.row(apply(start))
        case _ if length == 0 =>
          // An empty match is one row, the one where it was found (as Oracle shows it), its CLASSIFIER NULL.
          if (rowsPerMatch != RowsPerMatch.AllOmitEmpty) {
            outFrame.current = -1
            measure()
            out += opened.row(apply(start))
          }
        case _ =>
          var i = 0
          while (i < length) {
            if (!outFrame.excluded(i)) {
              outFrame.current = i
              measure()
              out += opened.row(apply(start + i))
            }
            i += 1
          }
      }
    }
  }
}
