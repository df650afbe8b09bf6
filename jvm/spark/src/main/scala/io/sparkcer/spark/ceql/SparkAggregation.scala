package io.sparkcer.spark.ceql

import java.io.{DataInput, DataOutput}

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{
  AttributeReference, GenericInternalRow, JoinedRow, MutableProjection, UnsafeProjection, UnsafeRow
}
import org.apache.spark.sql.catalyst.expressions.aggregate.DeclarativeAggregate

import io.sparkcer.engine.eval.Aggregation
import io.sparkcer.spark.common.UnsafeRowBytes

/**
 * An aggregate of a condition (`sum(b.volume)`) computed by Spark's own aggregate function, so that its types,
 * NULL handling and overflow rules are Spark's: the state is the function's aggregation buffer, a fresh UnsafeRow
 * after each event, so states are immutable, compare by their bytes (runs with equal registers merge) and are saved
 * as those bytes.
 *
 * @param aggregate the function over the slot's argument, whose value the engine passes to [[update]]
 */
final class SparkAggregation(aggregate: DeclarativeAggregate, partitionIndex: Int) extends Aggregation {
  private val value = AttributeReference("value", aggregate.children.head.dataType)()
  private val function = aggregate.withNewChildren(Seq(value)).asInstanceOf[DeclarativeAggregate]
  private val buffer = function.aggBufferAttributes
  private val updated = UnsafeProjection.create(function.updateExpressions, buffer :+ value)
  private val evaluated = MutableProjection.create(Seq(function.evaluateExpression), buffer)
  updated.initialize(partitionIndex)
  evaluated.initialize(partitionIndex)
  private val input = new GenericInternalRow(1)
  private val joined = new JoinedRow()

  override val zero: AnyRef = UnsafeProjection.create(function.initialValues)(InternalRow.empty).copy()

  override def update(state: AnyRef, value: Any): AnyRef = {
    input.update(0, value)
    updated(joined(state.asInstanceOf[InternalRow], input)).copy()
  }

  override def result(state: AnyRef): Any = evaluated(state.asInstanceOf[InternalRow]).get(0, function.dataType)

  override def write(state: AnyRef, out: DataOutput): Unit = UnsafeRowBytes.write(state.asInstanceOf[UnsafeRow], out)

  override def read(in: DataInput): AnyRef = UnsafeRowBytes.read(in, buffer.length)
}
