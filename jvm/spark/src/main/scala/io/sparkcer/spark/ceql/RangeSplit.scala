package io.sparkcer.spark.ceql

import org.apache.spark.sql.catalyst.expressions.{
  Add, Alias, Ascending, Attribute, AttributeReference, Cast, Ceil, Divide, ElementAt, Expression, Floor, Greatest,
  GreaterThan, IntegralDivide, Literal, Multiply, Not, Or, Pmod, ScalarSubquery, SortOrder, Subtract, UnixMicros
}
import org.apache.spark.sql.catalyst.expressions.aggregate.{Max, Min}
import org.apache.spark.sql.catalyst.plans.logical.{
  Aggregate, Expand, Filter, LogicalPlan, Project, RepartitionByExpression
}
import org.apache.spark.sql.catalyst.plans.physical.HashPartitioning
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.{
  ArrayType, BooleanType, ByteType, DoubleType, IntegerType, LongType, ShortType, TimestampType
}

import io.sparkcer.engine.analysis.WindowKey
import io.sparkcer.engine.plan.CompiledPattern
import io.sparkcer.spark.common.CerConf

/**
 * How a query without PARTITION BY still uses every core: the stream is cut into ranges of the order column, and
 * each range is evaluated by itself, after reading the window before it as context. A match of a windowed query
 * lies within one window before its last event, so the task owning that event finds it from its own rows and
 * their context, and reports it; context rows complete no reported match.
 *
 * The ranges' width comes from the stream's span, read by a scalar subquery (Spark runs it once, before the
 * split; it reads the order column alone, of every row, which is cheaper than filtering the rows first):
 * [[RangesPerTask]] ranges per task, or more when that would make them longer than
 * `spark.cer.rangeSplit.windowsPerRange` windows, and never shorter than a window. Range i goes to
 * task i mod tasks, so that neighbouring ranges, and the partial ranges at both ends of the span, are spread over
 * the tasks.
 *
 * The split adds three input columns, which the plan nodes carry as `split` (so that Spark's rules see them):
 * each row's range (the one it belongs to, or the next one for a context copy), whether it is a context copy,
 * and the key of the task that evaluates the range.
 */
object RangeSplit {
  /**
   * The ranges per task when the stream is short against the longest range: more than one, so that a stream
   * denser in some stretch still keeps every task busy, and few, since each range also reads a window of context.
   */
  val RangesPerTask = 2

  /**
   * The input with every row in its range and, when it lies within a window of the next range, a context copy in
   * that one, with the three added columns, hashed into `tasks` partitions by the task key; the ranges cut the span
   * of `stream`, the rows of `input` before they are filtered by the pattern's guards. Or None when the query
   * cannot be split: with one task, where the engine does not allow it ([[CompiledPattern.readsRangesApart]]), on a
   * stream, with PARTITION BY (whose keys already spread the work), or without an ascending integer or timestamp
   * order column.
   */
  def apply(conf: SQLConf, tasks: Int, pattern: CompiledPattern, order: Seq[SortOrder], input: LogicalPlan,
      stream: LogicalPlan): Option[(LogicalPlan, Seq[Attribute])] = {
    val analyzed = pattern.analyzed
    val eligible = conf.getConf(CerConf.RANGE_SPLIT_ENABLED) && tasks > 1 && !input.isStreaming &&
      analyzed.partitionKeys.isEmpty && pattern.readsRangesApart && order.head.direction == Ascending
    val column = order.head.child
    val key: Option[(Expression, Long)] = (analyzed.window, column.dataType) match {
      case (Some(w), TimestampType) => w.key match {
          case WindowKey.Column(_, true) => Some((UnixMicros(column), w.amount * 1000L))
          case _ => None
        }
      case (Some(w), ByteType | ShortType | IntegerType | LongType) if w.key.isInstanceOf[WindowKey.Column] =>
        Some((Cast(column, LongType), w.amount))
      case _ => None
    }
    for {
      (value, window) <- key if eligible && window > 0
      longest <- multiply(window, conf.getConf(CerConf.RANGE_SPLIT_WINDOWS_PER_RANGE))
    } yield {
      val withWidth =
        Project(input.output :+ Alias(width(value, window, longest, tasks, stream), "__cer_width")(), input)
      val w = withWidth.output.last
      val range = AttributeReference("__cer_range", LongType)()
      val context = AttributeReference("__cer_context", BooleanType, nullable = false)()
      val offset = Pmod(value, w)
      val own = IntegralDivide(Subtract(value, offset), w)
      val split = Expand(
        Seq(input.output ++ Seq(own, Literal(false), w), input.output ++ Seq(Add(own, Literal(1L)), Literal(true), w)),
        input.output ++ Seq(range, context, w), withWidth)
      // A context copy is kept only for rows within a window of the next range's start.
      val kept = Filter(Or(Not(context), GreaterThan(offset, Subtract(w, Literal(window)))), split)
      val task = Alias(
        ElementAt(Literal.create(taskKeys(tasks), ArrayType(IntegerType, containsNull = false)),
          Add(Cast(Pmod(range, Literal(tasks.toLong)), IntegerType), Literal(1))),
        "__cer_task"
      )()
      val placed = Project(input.output ++ Seq(range, context, task), kept)
      (RepartitionByExpression(Seq(task.toAttribute), placed, Some(tasks)), Seq(range, context, task.toAttribute))
    }
  }

  /**
   * The ranges' width: the span of the order column's `value` cut into `tasks` times [[RangesPerTask]] ranges or,
   * when those would be longer than `longest`, into the fewest multiple of `tasks` ranges that are not; at least a
   * window. Computed in doubles, where no span of longs overflows, and made one longer than the span's share so
   * that the ranges cover it.
   */
  private def width(value: Expression, window: Long, longest: Long, tasks: Int, stream: LogicalPlan): Expression = {
    def double(e: Expression) = Cast(e, DoubleType)
    val span = Subtract(double(Max(value).toAggregateExpression()), double(Min(value).toAggregateExpression()))
    val perTask = Greatest(Seq(Literal(RangesPerTask.toDouble),
        double(Ceil(Divide(span, Literal(longest.toDouble * tasks))))))
    val share = Add(double(Floor(Divide(span, Multiply(Literal(tasks.toDouble), perTask)))), Literal(1.0))
    val width = Cast(Greatest(Seq(Literal(window.toDouble), share)), LongType)
    ScalarSubquery(Aggregate(Nil, Seq(Alias(width, "width")()), stream))
  }

  /**
   * Per task j, a key that Spark's hash partitioning into `tasks` partitions sends to partition j: the first
   * non-negative integer it hashes there. Hashing the ranges themselves would send two neighbouring ranges to one
   * task as often as not, and a short stream has few ranges.
   */
  private[spark] def taskKeys(tasks: Int): Seq[Int] = {
    def partition(key: Int) = HashPartitioning(Seq(Literal(key)), tasks).partitionIdExpression.eval().asInstanceOf[Int]
    (0 until tasks).map(j => Iterator.from(0).find(partition(_) == j).get)
  }

  private def multiply(a: Long, b: Long): Option[Long] =
    try Some(Math.multiplyExact(a, b))
    catch { case _: ArithmeticException => None }
}
