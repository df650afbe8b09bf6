package io.sparkcer.spark.rowpattern

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{
  Attribute, BindReferences, GenericInternalRow, JoinedRow, MutableProjection, SpecificInternalRow
}
import org.apache.spark.sql.catalyst.expressions.aggregate.{
  AggregateFunction, DeclarativeAggregate, ImperativeAggregate, TypedImperativeAggregate
}
import org.apache.spark.unsafe.types.UTF8String

/**
 * Spark's aggregate function over some rows of a match (a measure's or a condition's `sum(A.price)`), on its own
 * buffer (started afresh, given the rows one by one, each with its label for CLASSIFIER() in the function's argument,
 * then read) or on buffers kept elsewhere: a DEFINE condition's
 * aggregate is kept per row of a match in the making ([[RunningSummary]]), each buffer the one before it plus a row.
 * Declarative functions run their update and evaluate expressions over their buffer, imperative ones their own
 * methods, so that any of Spark's aggregates works as it does in GROUP BY.
 */
sealed abstract class MatchAggregator(labels: IndexedSeq[String]) {
  protected def newBuffer(): InternalRow
  /** Makes `buffer` a buffer of no rows, in place. */
  protected def reset(buffer: InternalRow): Unit
  /** Adds to `buffer`, in place, a row of the input's columns followed by its label and match number (the input). */
  protected def updateLabelled(buffer: InternalRow, row: InternalRow): Unit
  def result(buffer: InternalRow): Any

  private val names = labels.map(UTF8String.fromString)
  private val label = new GenericInternalRow(2)
  private val labelled = new JoinedRow()

  /** The number of the match whose rows are added next, as MATCH_NUMBER() in the argument reads it. */
  def number_=(n: Long): Unit = label.setLong(1, n)
  def number: Long = label.getLong(1)
  number = 0L

  /** Adds a row of the match, labelled `label`, to `buffer`, in place. */
  def update(buffer: InternalRow, row: InternalRow, label: Int): Unit = {
    this.label.update(0, names(label))
    updateLabelled(buffer, labelled(row, this.label))
  }

  /** A buffer of no rows. */
  def empty(): InternalRow = { val buffer = newBuffer(); reset(buffer); buffer }

  private lazy val own = newBuffer()
  def start(): Unit = reset(own)
  def add(row: InternalRow, label: Int): Unit = update(own, row, label)
  def result: Any = result(own)
}

object MatchAggregator {
  /** Whether a buffer's copy is a buffer of its own: not a typed imperative aggregate's, whose state is an object. */
  def copyable(function: AggregateFunction): Boolean = !function.isInstanceOf[TypedImperativeAggregate[_]]

  /** The aggregator of `a` over rows of `input`, whose labels name `labels`. */
  def apply(a: MatchValue.Aggregate, input: Seq[Attribute], labels: IndexedSeq[String], partitionIndex: Int)
      : MatchAggregator =
    a.function match {
      case d: DeclarativeAggregate => new Declarative(d, input :+ a.rowLabel :+ a.matchNumber, labels, partitionIndex)
      case i: ImperativeAggregate => new Imperative(i, input :+ a.rowLabel :+ a.matchNumber, labels)
      case other => throw new IllegalStateException(s"not an aggregate Spark knows how to run: ${other.sql}")
    }

  private final class Declarative(f: DeclarativeAggregate, input: Seq[Attribute], labels: IndexedSeq[String],
      partitionIndex: Int)
      extends MatchAggregator(labels) {
    private val buffer = f.aggBufferAttributes
    private val initial = MutableProjection.create(f.initialValues, Nil)
    private val updater = MutableProjection.create(f.updateExpressions, buffer ++ input)
    private val evaluate = MutableProjection.create(Seq(f.evaluateExpression), buffer)
    Seq(initial, updater, evaluate).foreach(_.initialize(partitionIndex))
    private val joined = new JoinedRow()

    protected def newBuffer(): InternalRow = new SpecificInternalRow(buffer.map(_.dataType))
    protected def reset(state: InternalRow): Unit = {
      initial.target(state)
      initial(InternalRow.empty)
    }
    protected def updateLabelled(state: InternalRow, row: InternalRow): Unit = {
      updater.target(state)
      updater(joined(state, row))
    }
    def result(state: InternalRow): Any = evaluate(state).get(0, f.dataType)
  }

  private final class Imperative(f: ImperativeAggregate, input: Seq[Attribute], labels: IndexedSeq[String])
      extends MatchAggregator(labels) {
    private val bound = BindReferences.bindReference(f, input).asInstanceOf[ImperativeAggregate]
      .withNewMutableAggBufferOffset(0).withNewInputAggBufferOffset(0)

    protected def newBuffer(): InternalRow = new SpecificInternalRow(bound.aggBufferAttributes.map(_.dataType))
    protected def reset(state: InternalRow): Unit = bound.initialize(state)
    protected def updateLabelled(state: InternalRow, row: InternalRow): Unit = bound.update(state, row)
    def result(state: InternalRow): Any = bound.eval(state)
  }
}
