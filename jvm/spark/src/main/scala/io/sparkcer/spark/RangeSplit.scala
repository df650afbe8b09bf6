package io.sparkcer.spark

import org.apache.spark.sql.catalyst.expressions.{Add, Ascending, Attribute, AttributeReference, Cast, Expression, GreaterThan, IntegralDivide, Literal, Not, Or, Pmod, SortOrder, Subtract, UnixMicros}
import org.apache.spark.sql.catalyst.plans.logical.{Expand, Filter, LogicalPlan}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.{BooleanType, ByteType, IntegerType, LongType, ShortType, TimestampType}

import io.sparkcer.engine.analysis.WindowKey
import io.sparkcer.engine.eval.CompiledPattern

/**
 * How a query without PARTITION BY still uses every core: the stream is cut into ranges of the order column, and
 * each range is evaluated by itself, after reading the window before it as context. A match of a windowed query
 * lies within one window before its last event, so the task owning that event finds it from its own rows and
 * their context, and reports it; context rows complete no reported match.
 *
 * The split adds two input columns, which the plan nodes carry as `split` (so that Spark's rules see them):
 * each row's range (the one it belongs to, or the next one for a context copy), and whether it is a context copy.
 */
object RangeSplit {
  /**
   * The input with every row in its range and, when it lies within a window of the next range, a context copy in
   * that one, with the two added columns; or None when the query cannot be split: where the engine does not allow
   * it ([[CompiledPattern.readsRangesApart]]), on a stream, with PARTITION BY (whose keys already spread the work),
   * or without an ascending integer or timestamp order column.
   */
  def apply(conf: SQLConf, pattern: CompiledPattern, order: Seq[SortOrder], input: LogicalPlan): Option[(LogicalPlan, Seq[Attribute])] = {
    val analyzed = pattern.analyzed
    val eligible = conf.getConf(CerConf.RANGE_SPLIT_ENABLED) && !input.isStreaming && analyzed.partitionKeys.isEmpty &&
      pattern.readsRangesApart && order.head.direction == Ascending
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
      width <- multiply(window, conf.getConf(CerConf.RANGE_SPLIT_WINDOWS_PER_RANGE))
    } yield {
      val range = AttributeReference("__cer_range", LongType)()
      val context = AttributeReference("__cer_context", BooleanType, nullable = false)()
      val offset = Pmod(value, Literal(width))
      val own = IntegralDivide(Subtract(value, offset), Literal(width))
      val split = Expand(
        Seq(input.output ++ Seq(own, Literal(false)), input.output ++ Seq(Add(own, Literal(1L)), Literal(true))),
        input.output ++ Seq(range, context), input)
      // A context copy is kept only for rows within a window of the next range's start.
      (Filter(Or(Not(context), GreaterThan(offset, Literal(width - window))), split), Seq(range, context))
    }
  }

  private def multiply(a: Long, b: Long): Option[Long] =
    try Some(Math.multiplyExact(a, b)) catch { case _: ArithmeticException => None }
}
