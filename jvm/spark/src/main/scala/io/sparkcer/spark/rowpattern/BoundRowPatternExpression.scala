package io.sparkcer.spark.rowpattern

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, GenericInternalRow, MutableProjection}
import org.apache.spark.unsafe.types.UTF8String

import io.sparkcer.engine.rowpattern.{MatchFrame, PartitionRows}

/**
 * A [[RowPatternExpression]] compiled for one task: each value it reads of the match computed on the match, its
 * current row and the partition's rows, then the expression over them. The match is read from a [[MatchFrame]]
 * (its rows' labels, the measures' way and a condition's when nothing faster serves), or, for a DEFINE condition
 * that `layout` supports, from the running summary of the thread's rows ([[RunningSummary]]).
 *
 * @param labels the pattern's variables by label, as CLASSIFIER answers
 */
final class BoundRowPatternExpression(e: RowPatternExpression, input: Seq[Attribute], labels: IndexedSeq[String],
    partitionIndex: Int, layout: Option[RunningLayout] = None) {
  private val values = e.values.toArray
  private val slots = new GenericInternalRow(values.length)
  private val expression = MutableProjection.create(Seq(e.expression), e.inputs)
  expression.initialize(partitionIndex)
  private val names = labels.map(UTF8String.fromString)

  /** Per value: a mask of its labels (null: every row), and its column projection or aggregator. */
  private val masks: Array[Array[Boolean]] = values.map {
    case MatchValue.Column(p, _, _) => mask(p.labels)
    case MatchValue.Classifier(p, _) => mask(p.labels)
    case a: MatchValue.Aggregate => mask(a.labels)
    case MatchValue.Number => null
  }
  private val projections: Array[MutableProjection] = values.map {
    case MatchValue.Column(_, value, _) =>
      val p = MutableProjection.create(Seq(value), input)
      p.initialize(partitionIndex)
      p
    case _ => null
  }
  /** For reading a frame: a condition that reads its running summary uses the layout's. */
  private lazy val aggregators: Array[MatchAggregator] = values.map {
    case a: MatchValue.Aggregate => MatchAggregator(a, input, labels, partitionIndex)
    case _ => null
  }

  private def mask(ls: Option[Set[Int]]): Array[Boolean] = ls.map(s => Array.tabulate(labels.length)(s.contains)).orNull

  /** The expression's value on the match `frame` stands for, at its current row. */
  def eval(frame: MatchFrame, rows: PartitionRows[InternalRow]): Any = {
    onFrame.on(frame)
    evaluate(onFrame, rows)
  }

  /** Whether [[evalRunning]] can answer: `layout` supports this condition. */
  val running: Boolean = layout.exists(_ => RunningLayout.supports(e))

  /**
   * A DEFINE condition's value at the row being tried, row `current` of a match from `start`, labelled `label`:
   * `summary` is the thread's rows' up to it, that row included (the layout's summary of no rows when it keeps none).
   */
  def evalRunning(summary: RunningSummary, start: Long, current: Int, label: Int, rows: PartitionRows[InternalRow])
      : Any = {
    onSummary.summary = summary
    onSummary.start = start
    onSummary.current = current
    onSummary.currentLabel = label
    evaluate(onSummary, rows)
  }

  private def evaluate(m: MatchAccess, rows: PartitionRows[InternalRow]): Any = {
    var k = 0
    while (k < values.length) {
      slots.update(
        k,
        values(k) match {
          case MatchValue.Column(p, value, _) =>
            val i = m.row(k, p)
            val position = if (i < 0) -1L else m.start + i + p.physical
            if (position < 0 || !rows.holds(position)) null
            else projections(k)(rows(position)).get(0, value.dataType)
          case MatchValue.Classifier(p, _) =>
            val i = m.row(k, p)
            val j = i + p.physical
            if (i >= 0 && j >= 0 && j <= m.lastRow) names(m.label(j)) else null
          case MatchValue.Number => m.number
          case a: MatchValue.Aggregate => m.aggregate(k, a.running, rows)
        }
      )
      k += 1
    }
    expression(slots).get(0, e.dataType)
  }

  /** How [[evaluate]] reads its match. */
  private abstract class MatchAccess {
    def start: Long
    def number: Long
    /** The row (its index in the match) that value k's pointer names before its physical offset; -1 if none. */
    def row(k: Int, p: Pointer): Int
    /**
     * The last row a CLASSIFIER may name: the match's last, RUNNING or FINAL (a measure reads every label of its
     * match, as Trino's do: NEXT(CLASSIFIER()) names the next row's); a condition's match ends at its current row.
     */
    def lastRow: Int
    /** The label of row `i`, one that [[row]] just named. */
    def label(i: Int): Int
    def aggregate(k: Int, running: Boolean, rows: PartitionRows[InternalRow]): Any
  }

  private val onFrame = new FrameAccess
  /**
   * On a frame. A navigation or an aggregate computed at one `current` row of a match carries on to a later one of
   * the same match (ALL ROWS PER MATCH evaluates its measures row after row), reading only the rows in between: LAST
   * of some variables, RUNNING aggregates; FIRST and FINAL ones are computed once per match. Otherwise a measure
   * over a long match would read the match again at each of its rows.
   */
  private final class FrameAccess extends MatchAccess {
    private var frame: MatchFrame = _
    /** Per value: the frame version its last answer is for, the current row it stood at, and the answer. */
    private val seenVersion = Array.fill(values.length)(-1L)

    /** Reads `frame`; another frame's versions (another partition's) are not this one's. */
    def on(frame: MatchFrame): Unit = if (frame ne this.frame) {
      this.frame = frame
      java.util.Arrays.fill(seenVersion, -1L)
    }
    private val seenAt = new Array[Int](values.length)
    private val seenRow = new Array[Int](values.length)
    private val seenResult = new Array[Any](values.length)

    def start: Long = frame.start
    def number: Long = frame.number

    def row(k: Int, p: Pointer): Int = {
      val known = seenVersion(k) == frame.version
      val current = frame.current
      val i =
        // FIRST reads the whole match, RUNNING or FINAL (MatchFrame.first): once per match, as FINAL values are.
        if (!p.running || !p.last) { if (known) seenRow(k) else scan(k, p, frame.length - 1) }
        else if (known && p.logical == 0 && current >= seenAt(k)) {
          var j = current
          while (j > seenAt(k) && !in(k, j)) j -= 1
          if (j > seenAt(k)) j else seenRow(k)
        } else scan(k, p, current)
      seenVersion(k) = frame.version
      seenAt(k) = current
      seenRow(k) = i
      i
    }

    /** The row a pointer names with `upTo` as the current row, found by reading the match. */
    private def scan(k: Int, p: Pointer, upTo: Int): Int = {
      val current = frame.current
      frame.current = upTo
      val i = if (p.last) frame.last(masks(k), p.logical) else frame.first(masks(k), p.logical)
      frame.current = current
      i
    }

    private def in(k: Int, i: Int): Boolean = masks(k) == null || masks(k)(frame.labels(i))

    def lastRow: Int = frame.length - 1
    def label(i: Int): Int = frame.labels(i)

    def aggregate(k: Int, running: Boolean, rows: PartitionRows[InternalRow]): Any = {
      val a = aggregators(k)
      a.number = frame.number
      val known = seenVersion(k) == frame.version
      seenVersion(k) = frame.version
      if (!running) {
        if (!known) {
          a.start()
          add(k, a, 0, frame.length - 1, rows)
          seenResult(k) = a.result
        }
        seenResult(k)
      } else {
        val from = if (known && frame.current >= seenAt(k)) seenAt(k) + 1 else { a.start(); 0 }
        add(k, a, from, frame.current, rows)
        seenAt(k) = frame.current
        a.result
      }
    }

    private def add(k: Int, a: MatchAggregator, from: Int, to: Int, rows: PartitionRows[InternalRow]): Unit = {
      var i = from
      while (i <= to) {
        if (in(k, i)) a.add(rows(frame.position(i)), frame.labels(i))
        i += 1
      }
    }
  }

  private val summarySlots = if (running) layout.get.slots(e) else null

  private val onSummary = new SummaryAccess
  /** In a DEFINE condition, which reads up to its current row whether RUNNING or FINAL. */
  private final class SummaryAccess extends MatchAccess {
    var summary: RunningSummary = _
    var start = 0L
    var current = 0
    var currentLabel = 0
    private var found = 0
    def number: Long = 0L
    def row(k: Int, p: Pointer): Int =
      if (summarySlots(k) < 0) {
        found = currentLabel
        if (p.last) current - p.logical else if (p.logical <= current) p.logical else -1
      } else {
        val named = summary.rows(summarySlots(k))
        if (named.length <= p.logical) -1
        else {
          found = RunningLayout.label(named(p.logical))
          RunningLayout.index(named(p.logical))
        }
      }
    def lastRow: Int = current
    def label(i: Int): Int = found
    def aggregate(k: Int, running: Boolean, rows: PartitionRows[InternalRow]): Any = {
      val slot = summarySlots(k)
      layout.get.aggregator(slot).result(summary.buffers(slot))
    }
  }
}
