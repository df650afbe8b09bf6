package io.sparkcer.spark.ceql

import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeSet, Expression, SortOrder}
import org.apache.spark.sql.catalyst.util.truncatedString

import io.sparkcer.engine.eval.MatchBound
import io.sparkcer.spark.common.TotalOrder

/**
 * The fields of a CER operator, declared once, as Spark's `WindowExecBase` declares the window operators': the
 * logical [[CerMatch]], the physical [[CerExec]] and what their tasks run, [[CerTask]]. Each case class still lists
 * them as its own fields, so that Catalyst sees, prunes and rewrites the expressions and attributes in them.
 */
trait CerOperator {
  /** The analyzed query and its automaton. */
  def pattern: CerPattern
  /** The PARTITION BY keys (a bracketed group is the coalesce of its columns). */
  def partitionKeys: Seq[Expression]
  /** The stream order: ORDER BY as written, else the window or time column ascending. */
  def order: Seq[SortOrder]
  /** One boolean expression per guard of the automaton: type test, stream test, predicates. */
  def guards: Seq[Expression]
  /** One per condition relating events of the automaton ([[io.sparkcer.engine.automaton.Nfa.conditions]]), in order. */
  def conditions: Seq[CerCondition]
  /** Per selected variable, the input columns of its struct. */
  def events: Seq[Seq[Attribute]]
  /** The PARTITION BY columns, `match_start`, `match_end`, then one column per selected variable. */
  def output: Seq[Attribute]
  /** When the input is cut into ranges of the order column ([[RangeSplit]]): its range, context and task columns. */
  def split: Seq[Attribute]

  /** The columns the query reads of each event: its guards, its conditions and the selected variables' structs. */
  def readColumns: AttributeSet = AttributeSet((guards ++ conditions ++ events.flatten).flatMap(_.references))

  /**
   * The stream order of rows of `input`, ties broken by the columns the query reads, keys aside
   * ([[io.sparkcer.spark.common.TotalOrder]]).
   */
  def totalOrder(input: Seq[Attribute]): TotalOrder = TotalOrder(order, readColumns, input, sortKeys)

  /** The keys a task's rows are clustered by: the PARTITION BY keys, or the task key of a split stream's ranges. */
  def clusterKeys: Seq[Expression] = if (pattern.grouped) partitionKeys else split.drop(2)

  /** The keys a task's rows are sorted by before stream order: the PARTITION BY keys, or the ranges. */
  def sortKeys: Seq[Expression] = if (pattern.grouped) partitionKeys else split.take(1)

  /** What a task runs over rows of `input`, with at most `bound` matches per event. */
  def task(input: Seq[Attribute], bound: MatchBound): CerTask =
    CerTask(pattern, partitionKeys, order, guards, conditions, events, output, split, input, bound)

  /** What EXPLAIN shows over rows of `input`: keys, order, automaton, window, conditions, output and the query text. */
  def explain(maxFields: Int, input: Seq[Attribute]): String = {
    val partition =
      if (partitionKeys.nonEmpty) truncatedString(partitionKeys, "PARTITION BY [", ", ", "], ", maxFields)
      else if (split.isEmpty) ""
      else s"in ranges of ${pattern.analyzed.columns(pattern.analyzed.streamOrder.head._1)}, "
    val relations =
      if (conditions.isEmpty) "" else truncatedString(conditions.map(_.sql), "conditions [", ", ", "], ", maxFields)
    s"${partition}ORDER BY ${truncatedString(order, "[", ", ", "]", maxFields)}${totalOrder(input).explain(maxFields)}, " +
      s"${pattern.describe}, $relations" +
      s"${truncatedString(output, "output [", ", ", "]", maxFields)}, query: ${CerRequest.oneLine(pattern.source)}"
  }
}
