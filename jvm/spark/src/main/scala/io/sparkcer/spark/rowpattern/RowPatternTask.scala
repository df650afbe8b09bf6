package io.sparkcer.spark.rowpattern

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{
  Attribute, BindReferences, BoundReference, GenericInternalRow, JoinedRow, SortOrder, UnsafeProjection
}
import org.apache.spark.sql.types.{DateType, TimestampNTZType, TimestampType}

import io.sparkcer.engine.rowpattern.{
  AnalyzedRowPattern, ConditionReads, MatchFrame, PartialMatchBound, PartitionRows, RowPattern, RowPatternHost,
  RowPatternPartition
}
import io.sparkcer.spark.common.OrderColumn

/**
 * What every task of a MATCH_RECOGNIZE operator runs over the rows of `input`, sorted by partition then order: per
 * partition, the matcher ([[io.sparkcer.engine.rowpattern.Matcher]]) fed row by row, its DEFINE conditions and
 * measures evaluated on the partition's rows ([[BoundRowPatternExpression]]), and the output rows of each match in
 * the order of the rows.
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
    bound: PartialMatchBound)
    extends RowPatternOperator {

  /**
   * The rows of one task, one partition after another, to the output rows of their matches; `conditionRowsRead` is
   * told, per partition, how many rows of their matches the DEFINE conditions read
   * ([[RowPatternPartition.conditionRowsRead]]).
   */
  def run(rows: Iterator[InternalRow], partitionIndex: Int, conditionRowsRead: Long => Unit = _ => ())
      : Iterator[InternalRow] = {
    val opened = new RowPatternTask.Opened(this, partitionIndex)
    val key = UnsafeProjection.create(clusterKeys, input)
    var currentKey: InternalRow = null
    val startsPartition = (row: InternalRow) => {
      val k = key(row)
      val starts = currentKey == null || k != currentKey
      if (starts) currentKey = k.copy()
      starts
    }
    RowPatternPartition.outputs[InternalRow, InternalRow](rows.map(_.copy()), startsPartition, opened.partition,
      p => conditionRowsRead(p.conditionRowsRead))
  }
}

object RowPatternTask {
  /**
   * A task's compiled pattern, conditions, measures and output projections: the host the engine's partition
   * ([[RowPatternPartition]]) asks, its running summaries Spark's ([[RunningSummary]]).
   */
  final class Opened(task: RowPatternTask, partitionIndex: Int) extends RowPatternHost[InternalRow, InternalRow] {
    type Summary = RunningSummary

    val pattern: AnalyzedRowPattern = task.pattern.analyzed

    /** A partition's matching, its output rows to `emit`. */
    def partition(emit: InternalRow => Unit): RowPatternPartition[InternalRow, InternalRow] =
      new RowPatternPartition(pattern, this, task.bound, emit)

    private val labels = pattern.labels
    /** What the conditions that read other rows of their match keep per row of a thread ([[RunningSummary]]). */
    private val layout = new RunningLayout(task.defines, labels, task.input, partitionIndex)
    /**
     * Per label, whether its condition reads only its row and rows at physical offsets from it: then it is evaluated
     * once per row, whatever the number of threads that try the row, as a window function would be.
     */
    private val rowRead: Array[Boolean] = Array.tabulate(labels.length) { l =>
      task.defined.indexOf(l) match {
        case -1 => false
        case k => task.defines(k).values.forall(ofOneRow)
      }
    }
    /** Per label whose condition reads only its row and physical offsets from it ([[rowRead]]), that condition. */
    private val rowConditions: Array[RowCondition] = {
      val byLabel = new Array[RowCondition](labels.length)
      task.defined.zip(task.defines).foreach { case (l, d) =>
        if (rowRead(l)) byLabel(l) = new RowCondition(d, task.input, labels(l), partitionIndex)
      }
      byLabel
    }
    /** Per label whose condition reads its match, that condition. */
    private val conditions: Array[BoundRowPatternExpression] = {
      val byLabel = new Array[BoundRowPatternExpression](labels.length)
      task.defined.zip(task.defines).foreach { case (l, d) =>
        if (!rowRead(l)) byLabel(l) = new BoundRowPatternExpression(d, task.input, labels, partitionIndex, Some(layout))
      }
      byLabel
    }
    /** Per label, whether its condition reads other rows of its match through the thread's running summary. */
    private val summaryRead: Array[Boolean] =
      Array.tabulate(labels.length)(l => conditions(l) != null && conditions(l).running)
    val reads: ConditionReads = {
      val values = task.defines.flatMap(_.values)
      val all = labels.indices.toSet
      values.foldLeft(ConditionReads.Nothing) { (r, v) =>
        v match {
          case v if ofOneRow(v) => r
          case MatchValue.Column(p, _, _) =>
            r.copy(labels = r.labels ++ p.labels.getOrElse(Set.empty), start = r.start || p.labels.isEmpty)
          case MatchValue.Classifier(_, _) => r.copy(labels = all, start = true)
          // The universal variable's aggregate of CLASSIFIER() tells every label apart.
          case a: MatchValue.Aggregate =>
            r.copy(labels = r.labels ++ a.labels.getOrElse(if (a.readsLabels) all else Set.empty),
              start = r.start || a.labels.isEmpty, number = r.number || a.readsNumber)
          case MatchValue.Number => r.copy(number = true)
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
     * under way carries nothing to its next row, and a stream forgets it ([[RowPatternPartition.isEmpty]]).
     */
    val readsPastMatches: Boolean = behind > 0 ||
      (task.defines ++ task.measures).exists(_.values.contains(MatchValue.Number)) ||
      RowPattern.parts(pattern.clause.pattern).exists(_.isInstanceOf[RowPattern.PartitionStart])
    /**
     * Whether a value reads only its row and rows at physical offsets from it: a column there, or the row's own
     * CLASSIFIER(), which is the label tried.
     */
    private def ofOneRow(v: MatchValue): Boolean = v match {
      case MatchValue.Column(p, _, _) => p.current
      case MatchValue.Classifier(p, _) => p.current && p.physical == 0
      case _ => false
    }
    private def ahead(es: Seq[RowPatternExpression]): Int = es.flatMap(_.values).collect {
      case MatchValue.Column(p, _, _) => p.physical
    }.foldLeft(0)(math.max)

    private val measures: Array[BoundRowPatternExpression] =
      task.measures.map(new BoundRowPatternExpression(_, task.input, labels, partitionIndex)).toArray
    private val measured = task.output.filterNot(a => task.input.exists(_.exprId == a.exprId))
    private val measureRow = new GenericInternalRow(measures.length)
    private val nullMeasures = new GenericInternalRow(measures.length)
    private val joined = new JoinedRow()
    private val full = UnsafeProjection.create(task.output, task.input ++ measured)
    full.initialize(partitionIndex)

    def perRow(label: Int): Boolean = rowRead(label)
    def onSummary(label: Int): Boolean = summaryRead(label)
    def keepsSummaries: Boolean = layout.keeps
    def noRows: RunningSummary = layout.noRows

    def summarize(previous: RunningSummary, label: Int, index: Int, row: InternalRow): RunningSummary =
      layout.extend(previous, label, index, row)

    def holdsOnSummary(label: Int, summary: RunningSummary, start: Long, current: Int,
        rows: PartitionRows[InternalRow]): Boolean =
      conditions(label).evalRunning(summary, start, current, label, rows) == true

    def holdsAtRow(label: Int, position: Long, rows: PartitionRows[InternalRow]): Boolean =
      rowConditions(label).holds(position, rows)

    def holds(label: Int, frame: MatchFrame, rows: PartitionRows[InternalRow]): Boolean =
      conditions(label).eval(frame, rows) == true

    /** An output row: the input columns of `row`, and the measures evaluated over `frame`. */
    def matched(frame: MatchFrame, rows: PartitionRows[InternalRow], row: InternalRow): InternalRow = {
      var k = 0
      while (k < measures.length) { measureRow.update(k, measures(k).eval(frame, rows)); k += 1 }
      full(joined(row, measureRow)).copy()
    }

    def unmatched(row: InternalRow): InternalRow = full(joined(row, nullMeasures)).copy()

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
}
