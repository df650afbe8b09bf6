package io.sparkcer.spark.rowpattern

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, BindReferences, JoinedRow, MutableProjection, SpecificInternalRow}
import org.apache.spark.sql.catalyst.expressions.aggregate.{AggregateFunction, DeclarativeAggregate, ImperativeAggregate}

/**
 * Spark's aggregate function over some rows of a match (a measure's or a condition's `sum(A.price)`): started afresh,
 * given the rows one by one, then read. Declarative functions run their update and evaluate expressions over their
 * buffer, imperative ones their own methods, so that any of Spark's aggregates works as it does in GROUP BY.
 */
sealed trait MatchAggregator {
  def start(): Unit
  def add(row: InternalRow): Unit
  def result: Any
}

object MatchAggregator {
  def apply(function: AggregateFunction, input: Seq[Attribute], partitionIndex: Int): MatchAggregator = function match {
    case d: DeclarativeAggregate => new Declarative(d, input, partitionIndex)
    case i: ImperativeAggregate => new Imperative(i, input)
    case other => throw new IllegalStateException(s"not an aggregate Spark knows how to run: ${other.sql}")
  }

  private final class Declarative(f: DeclarativeAggregate, input: Seq[Attribute], partitionIndex: Int) extends MatchAggregator {
    private val buffer = f.aggBufferAttributes
    private val initial = MutableProjection.create(f.initialValues, Nil)
    private val update = MutableProjection.create(f.updateExpressions, buffer ++ input)
    private val evaluate = MutableProjection.create(Seq(f.evaluateExpression), buffer)
    Seq(initial, update, evaluate).foreach(_.initialize(partitionIndex))
    private val state = new SpecificInternalRow(buffer.map(_.dataType))
    private val joined = new JoinedRow()
    initial.target(state)
    update.target(state)

    def start(): Unit = initial(InternalRow.empty)
    def add(row: InternalRow): Unit = update(joined(state, row))
    def result: Any = evaluate(state).get(0, f.dataType)
  }

  private final class Imperative(f: ImperativeAggregate, input: Seq[Attribute]) extends MatchAggregator {
    private val bound = BindReferences.bindReference(f, input).asInstanceOf[ImperativeAggregate]
      .withNewMutableAggBufferOffset(0).withNewInputAggBufferOffset(0)
    private val state = new SpecificInternalRow(bound.aggBufferAttributes.map(_.dataType))

    def start(): Unit = bound.initialize(state)
    def add(row: InternalRow): Unit = bound.update(state, row)
    def result: Any = bound.eval(state)
  }
}
