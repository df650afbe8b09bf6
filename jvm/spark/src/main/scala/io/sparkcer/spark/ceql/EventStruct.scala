package io.sparkcer.spark.ceql

import org.apache.spark.sql.catalyst.ProjectingInternalRow
import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.catalyst.types.DataTypeUtils

/**
 * An event as a struct of some of its columns, viewed in the row the engine holds rather than copied: what a
 * variable is in a match's output ([[MatchWriter]]) and in a condition relating events ([[CerCondition]]).
 *
 * @param columns the columns of the struct
 * @param input   the columns of the rows the engine holds
 */
final class EventStruct(columns: Seq[Attribute], input: Seq[Attribute]) {
  private val schema = DataTypeUtils.fromAttributes(columns)
  private val ordinals = columns.map(c => input.indexWhere(_.exprId == c.exprId)).toIndexedSeq

  /** A new view, pointed at an event by `project(row)`. */
  def view(): ProjectingInternalRow = ProjectingInternalRow(schema, ordinals)
}
