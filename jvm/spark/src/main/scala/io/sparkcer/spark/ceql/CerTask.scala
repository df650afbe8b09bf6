package io.sparkcer.spark.ceql

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{
  Attribute, BindReferences, BoundReference, Expression, Literal, Predicate, SortOrder, UnsafeProjection
}
import org.apache.spark.sql.catalyst.util.toPrettySQL
import org.apache.spark.sql.cer.SparkInternals

import io.sparkcer.engine.analysis.WindowKey
import io.sparkcer.engine.eval.{MatchBound, TooManyMatchesException}
import io.sparkcer.engine.plan.Evaluator

/**
 * What every task of a CER operator runs, on batch input ([[CerExec]]) and on streams ([[CerStreamRun]]):
 * the operator's fields ([[CerOperator]]), serializable, over the rows of `input`; [[open]] makes one task's
 * evaluator and writer.
 *
 * @param bound the most matches one event may complete (`spark.cer.maxMatchesPerEvent`)
 */
final case class CerTask(
    pattern: CerPattern,
    partitionKeys: Seq[Expression],
    order: Seq[SortOrder],
    guards: Seq[Expression],
    conditions: Seq[CerCondition],
    events: Seq[Seq[Attribute]],
    output: Seq[Attribute],
    split: Seq[Attribute],
    input: Seq[Attribute],
    bound: MatchBound)
    extends CerOperator {

  /** The input ordinals of the stream order's columns; the first is the window's and the event time's column. */
  val orderOrdinals: Seq[Int] =
    order.map(o => BindReferences.bindReference(o.child, input).asInstanceOf[BoundReference].ordinal)

  /** A row is placed in the stream only when every order column has a value. */
  def ordered(row: InternalRow): Boolean = !orderOrdinals.exists(row.isNullAt)

  private def ordinal(a: Attribute): Int = input.indexWhere(_.exprId == a.exprId)

  /** The rows of one task, in order; with a range split the evaluator starts afresh at each range. */
  def inRanges(evaluator: Evaluator[InternalRow], rows: Iterator[InternalRow]): Iterator[InternalRow] =
    if (split.isEmpty) rows
    else {
      val range = ordinal(split.head)
      var current: Option[Long] = None
      rows.map { row =>
        val r = row.getLong(range)
        if (!current.contains(r)) { evaluator.reset(); current = Some(r) }
        row
      }
    }

  /** Compiles the guards, the key and the output projections for one task. */
  def open(partitionIndex: Int): CerTask.Opened = {
    val predicates = guards.map(g => Predicate.create(g, input)).toArray
    predicates.foreach(_.initialize(partitionIndex))
    val key = if (partitionKeys.isEmpty) null else UnsafeProjection.create(partitionKeys, input)
    val orderType = order.head.dataType
    val window = pattern.analyzed.window.collect {
      case w if w.key.isInstanceOf[WindowKey.Column] => (orderOrdinals.head, orderType)
    }
    val relations = conditions.map(_.bind(input, partitionIndex)).toArray
    val reader = new InternalRowReader(predicates, relations, key, window, split.lift(1).map(ordinal), whereabouts)
    val writer = new MatchWriter(pattern.analyzed.declaredKeys, orderOrdinals.head,
      events.zip(pattern.analyzed.outputs.map(_.single)), input, output.map(_.dataType).toArray)
    CerTask.Opened(reader, pattern.compiled.newEvaluator(reader, pattern.grouped, bound), writer)
  }

  /** A row's PARTITION BY and stream-order values, `name = value, ...`: where an error happened. */
  private def whereabouts: InternalRow => String = {
    val shown = (partitionKeys ++ order.map(_.child)).distinct
    val values = shown.map(BindReferences.bindReference(_, input))
    row =>
      shown.zip(values).map { case (e, v) => s"${toPrettySQL(e)} = ${Literal(v.eval(row), v.dataType)}" }.mkString(", ")
  }
}

object CerTask {
  final case class Opened(reader: InternalRowReader, evaluator: Evaluator[InternalRow], writer: MatchWriter) {
    /**
     * The output rows of the matches over `rows` (in stream order). An event completing too many matches fails
     * the task with an error Spark shows the user as it is ([[SparkInternals.taskFailure]]).
     */
    def matches(rows: Iterator[InternalRow]): Iterator[InternalRow] = {
      val found = evaluator.matches(rows)
      def surfaced[T](step: => T): T =
        try step
        catch { case e: TooManyMatchesException => throw SparkInternals.taskFailure(e) }
      new Iterator[InternalRow] {
        def hasNext: Boolean = surfaced(found.hasNext)
        def next(): InternalRow = writer(surfaced(found.next()))
      }
    }
  }
}
