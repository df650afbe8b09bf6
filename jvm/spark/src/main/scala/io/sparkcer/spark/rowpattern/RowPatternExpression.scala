package io.sparkcer.spark.rowpattern

import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeSet, Expression, PrettyAttribute, Unevaluable}
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateFunction
import org.apache.spark.sql.catalyst.util.toPrettySQL
import org.apache.spark.sql.types.{DataType, LongType, StringType}

/**
 * Where a navigation goes in a match (SQL:2016's FIRST, LAST, PREV and NEXT, as Trino reads them): among the rows of
 * `labels` (None: every row of the match, the universal pattern variable), the `logical`-th counted back from the last
 * (or, not `last`, on from the first), up to the current row when `running`, else over the whole match (FINAL); then
 * `physical` rows on in the partition (PREV: negative, NEXT: positive), which may leave the match.
 */
final case class Pointer(labels: Option[Set[Int]], last: Boolean, logical: Int, physical: Int, running: Boolean) {
  /** The current row itself: `price` or `A.price` in A's own condition. */
  def current: Boolean = labels.isEmpty && last && logical == 0 && running
}

/** A value that a row pattern expression reads of its match, computed before the expression is evaluated. */
sealed trait MatchValue {
  def dataType: DataType
  /** The expressions over the input's columns that Catalyst must see (and keep the columns of). */
  def expressions: Seq[Expression]
  def sql: String
}

object MatchValue {
  /** An expression of the input's columns on the row a pointer names (NULL where there is none). */
  final case class Column(pointer: Pointer, value: Expression, sql: String) extends MatchValue {
    def dataType: DataType = value.dataType
    def expressions: Seq[Expression] = Seq(value)
  }
  /** The label of the row a pointer names: CLASSIFIER. */
  final case class Classifier(pointer: Pointer, sql: String) extends MatchValue {
    def dataType: DataType = StringType
    def expressions: Seq[Expression] = Nil
  }
  /** MATCH_NUMBER(). */
  case object Number extends MatchValue {
    def dataType: DataType = LongType
    def expressions: Seq[Expression] = Nil
    def sql: String = "MATCH_NUMBER()"
  }
  /**
   * Spark's aggregate function over the rows of `labels` (None: every row of the match), up to the current row when
   * `running`. The function reads the input's columns of each row and, as `rowLabel`, the row's label: CLASSIFIER()
   * in its argument (`array_agg(CLASSIFIER(A))`), and as `matchNumber` its match's MATCH_NUMBER() (a measure's
   * `sum(MATCH_NUMBER() * 100)`), columns no plan produces, which the aggregate's reader supplies.
   */
  final case class Aggregate(labels: Option[Set[Int]], function: AggregateFunction, rowLabel: Attribute,
      matchNumber: Attribute, running: Boolean, sql: String)
      extends MatchValue {
    def dataType: DataType = function.dataType
    def expressions: Seq[Expression] = Seq(function)
    /** Whether the function reads its rows' labels, so that which variable each row took matters to it. */
    def readsLabels: Boolean = function.references.contains(rowLabel)
    /** Whether the function reads its match's number. */
    def readsNumber: Boolean = function.references.contains(matchNumber)
  }
}

/**
 * A DEFINE condition or a measure, as the operators carry it: `expression` over one attribute per value it reads of its
 * match (`inputs`, as a higher-order function binds its lambda's variables), and those values. An expression so that
 * Catalyst sees the input columns the values read.
 *
 * @param written the text as the query writes it, for EXPLAIN and messages
 */
final case class RowPatternExpression(expression: Expression, values: Seq[MatchValue], inputs: Seq[Attribute],
    written: String)
    extends Expression with Unevaluable {
  override def children: Seq[Expression] = expression +: values.flatMap(_.expressions)
  @transient override lazy val references: AttributeSet =
    AttributeSet(values.flatMap(_.expressions).flatMap(_.references)) --
      values.collect { case a: MatchValue.Aggregate => Seq(a.rowLabel, a.matchNumber) }.flatten
  override def dataType: DataType = expression.dataType
  override def nullable: Boolean = expression.nullable

  override protected def withNewChildrenInternal(newChildren: IndexedSeq[Expression]): RowPatternExpression = {
    var k = 1
    val rebuilt = values.map { v =>
      val n = v.expressions.length
      val mine = newChildren.slice(k, k + n)
      k += n
      v match {
        case c: MatchValue.Column => c.copy(value = mine.head)
        case a: MatchValue.Aggregate => a.copy(function = mine.head.asInstanceOf[AggregateFunction])
        case other => other
      }
    }
    copy(expression = newChildren.head, values = rebuilt)
  }

  override def sql: String = {
    val shown = inputs.zip(values).map { case (a, v) => a.exprId -> v.sql }.toMap
    toPrettySQL(
      expression.transform { case a: Attribute if shown.contains(a.exprId) => PrettyAttribute(shown(a.exprId)) })
  }

  override def toString: String = sql
}
