package io.sparkcer.spark.rowpattern

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, GenericInternalRow, MutableProjection}
import org.apache.spark.unsafe.types.UTF8String

import io.sparkcer.engine.rowpattern.MatchFrame

/** The rows of a partition that a task still holds, by position in the partition. */
trait PartitionRows {
  /** Whether the row at `position` is held (read, and not dropped). */
  def holds(position: Long): Boolean
  def apply(position: Long): InternalRow
}

/**
 * A [[RowPatternExpression]] compiled for one task: each value it reads of the match computed on the frame (the match,
 * its current row) and the partition's rows, then the expression over them.
 *
 * @param labels the pattern's variables by label, as CLASSIFIER answers
 */
final class BoundRowPatternExpression(e: RowPatternExpression, input: Seq[Attribute], labels: IndexedSeq[String],
    partitionIndex: Int) {
  private val values = e.values.toArray
  private val slots = new GenericInternalRow(values.length)
  private val expression = MutableProjection.create(Seq(e.expression), e.inputs)
  expression.initialize(partitionIndex)
  private val names = labels.map(UTF8String.fromString)

  /** Per value: a mask of its labels (null: every row), and its column projection or aggregator. */
  private val masks: Array[Array[Boolean]] = values.map {
    case MatchValue.Column(p, _, _) => mask(p.labels)
    case MatchValue.Classifier(p, _) => mask(p.labels)
    case MatchValue.Aggregate(ls, _, _, _) => mask(ls)
    case MatchValue.Number => null
  }
  private val projections: Array[MutableProjection] = values.map {
    case MatchValue.Column(_, value, _) =>
      val p = MutableProjection.create(Seq(value), input)
      p.initialize(partitionIndex)
      p
    case _ => null
  }
  private val aggregators: Array[MatchAggregator] = values.map {
    case MatchValue.Aggregate(_, f, _, _) => MatchAggregator(f, input, partitionIndex)
    case _ => null
  }

  private def mask(ls: Option[Set[Int]]): Array[Boolean] = ls.map(s => Array.tabulate(labels.length)(s.contains)).orNull

  /** The expression's value on the match `frame` stands for, at its current row. */
  def eval(frame: MatchFrame, rows: PartitionRows): Any = {
    var k = 0
    while (k < values.length) {
      slots.update(k, values(k) match {
        case MatchValue.Column(p, value, _) =>
          val i = row(frame, p, masks(k))
          val position = if (i == Int.MinValue) -1L else frame.position(i) + p.physical
          if (i == Int.MinValue || position < 0 || !rows.holds(position)) null
          else projections(k)(rows(position)).get(0, value.dataType)
        case MatchValue.Classifier(p, _) =>
          val i = row(frame, p, masks(k))
          val within = i != Int.MinValue && i + p.physical >= 0 &&
            i + p.physical <= (if (p.running) frame.current else frame.length - 1)
          if (within) names(frame.labels(i + p.physical)) else null
        case MatchValue.Number => frame.number
        case MatchValue.Aggregate(_, _, running, _) =>
          val a = aggregators(k)
          a.start()
          val last = if (running) frame.current else frame.length - 1
          var i = 0
          while (i <= last) {
            if (masks(k) == null || masks(k)(frame.labels(i))) a.add(rows(frame.position(i)))
            i += 1
          }
          a.result
      })
      k += 1
    }
    expression(slots).get(0, e.dataType)
  }

  /** The row of the match a pointer names, before its physical offset; Int.MinValue when there is none. */
  private def row(frame: MatchFrame, p: Pointer, mask: Array[Boolean]): Int = {
    val current = frame.current
    if (!p.running) frame.current = frame.length - 1
    val i = if (p.last) frame.last(mask, p.logical) else frame.first(mask, p.logical)
    frame.current = current
    if (i < 0) Int.MinValue else i
  }
}
