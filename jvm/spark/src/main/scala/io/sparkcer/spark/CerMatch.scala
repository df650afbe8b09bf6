package io.sparkcer.spark

import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeSet, Expression, SortOrder}
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, SupportsNonDeterministicExpression, UnaryNode}

/**
 * The matches of a CEQL pattern over its input (DESIGN §4), one row per match: the PARTITION BY columns,
 * `match_start` and `match_end`, then one column per selected variable.
 *
 * @param partitionKeys the PARTITION BY keys (a bracketed group is the coalesce of its columns)
 * @param order         the stream order: ORDER BY as written, else the window or time column ascending
 * @param guards        one boolean expression per guard of the automaton: type test, stream test, predicates
 * @param events        per selected variable, the input columns of its struct
 * @param split         when the input is cut into ranges of the order column ([[RangeSplit]]): its range and
 *                      context columns; else empty
 */
final case class CerMatch(
    pattern: CerPattern,
    partitionKeys: Seq[Expression],
    order: Seq[SortOrder],
    guards: Seq[Expression],
    events: Seq[Seq[Attribute]],
    output: Seq[Attribute],
    split: Seq[Attribute],
    child: LogicalPlan)
    extends UnaryNode with SupportsNonDeterministicExpression {

  override def producedAttributes: AttributeSet = AttributeSet(output)
  override def allowNonDeterministicExpression: Boolean = true

  override def argString(maxFields: Int): String =
    CerMatch.explain(pattern, partitionKeys, order, split, output, maxFields)

  override protected def withNewChildInternal(newChild: LogicalPlan): CerMatch = copy(child = newChild)
}

object CerMatch {
  /** What EXPLAIN shows of a CER operator: keys, order, automaton, window, output and the query text. */
  def explain(pattern: CerPattern, keys: Seq[Expression], order: Seq[SortOrder], split: Seq[Attribute],
      output: Seq[Attribute], maxFields: Int): String = {
    import org.apache.spark.sql.catalyst.util.truncatedString
    val partition =
      if (keys.nonEmpty) truncatedString(keys, "PARTITION BY [", ", ", "], ", maxFields)
      else if (split.isEmpty) ""
      else s"in ranges of ${pattern.analyzed.columns(pattern.analyzed.streamOrder.head._1)}, "
    s"${partition}ORDER BY ${truncatedString(order, "[", ", ", "]", maxFields)}, ${pattern.describe}, " +
      s"${truncatedString(output, "output [", ", ", "]", maxFields)}, query: ${CerRequest.oneLine(pattern.source)}"
  }
}
