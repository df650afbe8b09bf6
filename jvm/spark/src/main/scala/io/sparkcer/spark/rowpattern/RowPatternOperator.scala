package io.sparkcer.spark.rowpattern

import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeSet, Expression, SortOrder}
import org.apache.spark.sql.catalyst.util.truncatedString
import org.apache.spark.sql.cer.SparkInternals

import io.sparkcer.engine.rowpattern.PartialMatchBound
import io.sparkcer.spark.common.TotalOrder

/**
 * The fields of a MATCH_RECOGNIZE operator, declared once as [[io.sparkcer.spark.ceql.CerOperator]] declares CEQL's: the
 * logical [[RowPatternRecognition]], the physical [[RowPatternRecognitionExec]] and what their tasks run,
 * [[RowPatternTask]]. Each case class still lists them as its own fields, so that Catalyst sees the expressions.
 */
trait RowPatternOperator {
  /** The clause, compiled in each task. */
  def pattern: RowPatternSpec
  /** PARTITION BY's columns. */
  def partitionKeys: Seq[Attribute]
  /** ORDER BY. */
  def order: Seq[SortOrder]
  /** The labels that have a DEFINE condition, in the order of `defines`. */
  def defined: Seq[Int]
  def defines: Seq[RowPatternExpression]
  def measures: Seq[RowPatternExpression]
  /** The layout of ONE ROW or ALL ROWS PER MATCH. */
  def output: Seq[Attribute]

  /** PARTITION BY as rows are grouped: -0.0 and 0.0 in one partition, every NaN in one, as in Spark's windows. */
  def clusterKeys: Seq[Expression] = partitionKeys.map(SparkInternals.normalizedKey)

  /** The columns the query reads of each row: its conditions, its measures and the input columns it outputs. */
  def readColumns: AttributeSet = AttributeSet((defines ++ measures).flatMap(_.references) ++ output)

  /** ORDER BY over rows of `input`, ties broken by the columns the query reads, partition keys aside ([[TotalOrder]]). */
  def totalOrder(input: Seq[Attribute]): TotalOrder = TotalOrder(order, readColumns, input, clusterKeys)

  /** What a task runs over rows of `input`, its partial matches bounded by `bound`. */
  def task(input: Seq[Attribute], bound: PartialMatchBound): RowPatternTask =
    RowPatternTask(pattern, partitionKeys, order, defined, defines, measures, output, input, bound)

  /** What EXPLAIN shows over rows of `input`: keys, order, the clause's modes and pattern, conditions, measures, output. */
  def explain(maxFields: Int, input: Seq[Attribute]): String = {
    val labels = pattern.analyzed.labels
    val conditions = defined.zip(defines).map { case (l, d) => s"${labels(l)} AS ${d.sql}" }
    (if (partitionKeys.isEmpty) "" else truncatedString(partitionKeys, "PARTITION BY [", ", ", "], ", maxFields)) +
      truncatedString(order, "ORDER BY [", ", ", "]", maxFields) + totalOrder(input).explain(maxFields) + ", " +
      pattern.describe +
      truncatedString(conditions, ", DEFINE [", ", ", "]", maxFields) +
      truncatedString(measures.map(_.sql), ", MEASURES [", ", ", "]", maxFields) +
      truncatedString(output, ", output [", ", ", "]", maxFields)
  }
}
