package io.sparkcer.spark.rowpattern

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{
  Attribute, AttributeReference, ExprId, Expression, GenericInternalRow, If, JoinedRow, Literal, Predicate
}
import org.apache.spark.sql.types.{BooleanType, StringType}

import io.sparkcer.engine.rowpattern.PartitionRows

/**
 * A DEFINE condition that reads only its row and rows at physical offsets from it (`price > PREV(price)`), compiled
 * for one task into a single predicate over those rows side by side: the current row, then per offset the row there
 * and whether the partition holds it (a value read from a row it does not hold is NULL, whatever the value's
 * expression makes of NULL columns). Evaluated once per row with no match to read, where [[BoundRowPatternExpression]]
 * computes each value, then the expression, through the frame of a match.
 *
 * @param label the condition's pattern variable, which CLASSIFIER() names on its own row
 */
final class RowCondition(e: RowPatternExpression, input: Seq[Attribute], label: String, partitionIndex: Int) {
  private val offsets: Array[Int] = e.values.collect {
    case MatchValue.Column(p, _, _) if p.physical != 0 => p.physical
  }.distinct.toArray
  /** Per offset, the input's columns of the row there, and whether the partition holds that row. */
  private val shifted: Array[Seq[Attribute]] = offsets.map(_ => input.map(_.newInstance()))
  private val held: Array[Attribute] =
    offsets.map(d => AttributeReference(s"held_at_$d", BooleanType, nullable = false)())

  private val predicate = {
    val values: Map[ExprId, Expression] = e.inputs.zip(e.values).map { case (slot, v) =>
      slot.exprId -> (v match {
        case MatchValue.Column(p, value, _) if p.physical == 0 => value
        case MatchValue.Column(p, value, _) =>
          val i = offsets.indexOf(p.physical)
          val there = value.transform { case a: Attribute => shifted(i)(input.indexWhere(_.exprId == a.exprId)) }
          If(held(i), there, Literal(null, value.dataType))
        case MatchValue.Classifier(_, _) => Literal.create(label, StringType)
        case other => throw new IllegalArgumentException(s"${other.sql} reads a match: not a condition of one row")
      })
    }.toMap
    val condition = e.expression.transform { case a: Attribute if values.contains(a.exprId) => values(a.exprId) }
    val compiled = Predicate.create(condition, input ++ shifted.toSeq.flatten ++ held.toSeq)
    compiled.initialize(partitionIndex)
    compiled
  }

  // The rows side by side: JoinedRow(current, JoinedRow(at offset 1, ... JoinedRow(at offset n, held flags))).
  private val flags = new GenericInternalRow(offsets.length)
  private val nothing = new GenericInternalRow(input.length)
  private val joins: Array[JoinedRow] = {
    var right: InternalRow = flags
    val made = new Array[JoinedRow](offsets.length + 1)
    for (i <- offsets.length to 0 by -1) { made(i) = new JoinedRow(null, right); right = made(i) }
    made
  }

  /** Whether the condition holds at the row at `position` (NULL does not hold). */
  def holds(position: Long, rows: PartitionRows[InternalRow]): Boolean = {
    joins(0).withLeft(rows(position))
    var i = 0
    while (i < offsets.length) {
      val there = position + offsets(i)
      val isHeld = rows.holds(there)
      flags.setBoolean(i, isHeld)
      joins(i + 1).withLeft(if (isHeld) rows(there) else nothing)
      i += 1
    }
    predicate.eval(joins(0))
  }
}
