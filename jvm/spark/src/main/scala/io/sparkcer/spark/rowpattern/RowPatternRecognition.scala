package io.sparkcer.spark.rowpattern

import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeSet, SortOrder}
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, UnaryNode}

import io.sparkcer.engine.rowpattern.{AnalyzedRowPattern, MatchRecognize, RowPatternAnalysis}

/**
 * A MATCH_RECOGNIZE clause as the plan nodes carry it to the executors: its syntax tree, the text its positions refer
 * to, and its pattern checked and compiled once, when the query is analyzed (the tasks run the program they are sent:
 * a PERMUTE's program may be large to make).
 */
final case class RowPatternSpec(clause: MatchRecognize, text: String) {
  val analyzed: AnalyzedRowPattern = RowPatternAnalysis.analyze(clause, text)

  def describe: String = {
    val c = clause
    s"${c.rowsPerMatch.sql}, ${c.skip.sql}, PATTERN (${text.substring(c.pattern.pos.offset, patternEnd)})" +
      c.within.fold("")(w => s" ${w.text}")
  }

  /** Where PATTERN's parentheses close: the pattern's text ends before. */
  private def patternEnd: Int = {
    var depth = 1
    var k = clause.pattern.pos.offset
    while (k < text.length && depth > 0) {
      if (text.charAt(k) == '(') depth += 1
      if (text.charAt(k) == ')') depth -= 1
      k += 1
    }
    math.max(clause.pattern.pos.offset, k - 1)
  }
}

/**
 * The rows of MATCH_RECOGNIZE over its input (SQL:2016 R010): per partition, in order, the preferred matches of the
 * pattern, and per match one row (ONE ROW PER MATCH: the partition columns, then the measures) or one per row of the
 * match (ALL ROWS PER MATCH: the partition columns, the order columns, the measures, then the other input columns).
 *
 * Its fields are [[RowPatternOperator]]'s; the labels without a DEFINE condition match any row.
 */
final case class RowPatternRecognition(
    pattern: RowPatternSpec,
    partitionKeys: Seq[Attribute],
    order: Seq[SortOrder],
    defined: Seq[Int],
    defines: Seq[RowPatternExpression],
    measures: Seq[RowPatternExpression],
    output: Seq[Attribute],
    child: LogicalPlan)
    extends UnaryNode with RowPatternOperator {

  override def producedAttributes: AttributeSet = AttributeSet(output) -- child.outputSet

  override def argString(maxFields: Int): String = explain(maxFields, child.output)

  override protected def withNewChildInternal(newChild: LogicalPlan): RowPatternRecognition = copy(child = newChild)
}
