package io.sparkcer.spark.ceql

import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeSet, Expression, SortOrder}
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, SupportsNonDeterministicExpression, UnaryNode}

/**
 * The matches of a CEQL pattern over its input, one row per match; its fields are [[CerOperator]]'s.
 */
final case class CerMatch(
    pattern: CerPattern,
    partitionKeys: Seq[Expression],
    order: Seq[SortOrder],
    guards: Seq[Expression],
    conditions: Seq[CerCondition],
    events: Seq[Seq[Attribute]],
    output: Seq[Attribute],
    split: Seq[Attribute],
    child: LogicalPlan)
    extends UnaryNode with CerOperator with SupportsNonDeterministicExpression {

  override def producedAttributes: AttributeSet = AttributeSet(output)
  override def allowNonDeterministicExpression: Boolean = true

  override def argString(maxFields: Int): String = explain(maxFields, child.output)

  override protected def withNewChildInternal(newChild: LogicalPlan): CerMatch = copy(child = newChild)
}
