package io.sparkcer.spark.common

import org.apache.spark.sql.catalyst.expressions.{
  Ascending, Attribute, AttributeSet, Expression, RowOrdering, SortOrder
}
import org.apache.spark.sql.catalyst.util.truncatedString

/**
 * The stream order of a pattern, made total. Rows that tie on ORDER BY would otherwise be read in the order they
 * arrive, which depends on how the input is split into partitions and shuffled: a contiguous pattern (`:`, or
 * MATCH_RECOGNIZE) would match differently from one run to the next. So ties are broken by the other columns the
 * query reads, ascending, in the input's column order. Two rows that agree on all of those are interchangeable: no
 * condition, key or output can tell them apart, so either order gives the same result. A column rows are grouped by
 * before ORDER BY (a PARTITION BY key) holds one value among the rows it groups, so it breaks no tie and is left out:
 * a sort key it would repeat costs every comparison that reaches it.
 *
 * Columns no order can compare (maps, variants) cannot break a tie; where the query reads one, rows that differ only
 * there keep their arrival order, and EXPLAIN says so.
 *
 * @param order ORDER BY as the query gives it
 * @param read  the columns of the input the query reads
 * @param input the operator's input columns, which give the tie-break its order
 * @param grouped the keys rows are sorted by before ORDER BY; those that are columns break no tie
 */
final case class TotalOrder(order: Seq[SortOrder], read: AttributeSet, input: Seq[Attribute],
    grouped: Seq[Expression]) {
  private val ordered = AttributeSet(order.flatMap(_.child.references) ++ grouped.collect { case a: Attribute => a })
  private val candidates = input.filter(a => read.contains(a) && !ordered.contains(a))

  /** The columns that break ties, after ORDER BY. */
  val tieBreak: Seq[SortOrder] =
    candidates.filter(a => RowOrdering.isOrderable(a.dataType)).map(SortOrder(_, Ascending))

  /** The columns read that cannot break a tie. */
  val unordered: Seq[Attribute] = candidates.filterNot(a => RowOrdering.isOrderable(a.dataType))

  /** ORDER BY, then the tie-break. */
  def sortOrder: Seq[SortOrder] = order ++ tieBreak

  /** What EXPLAIN shows after ORDER BY. */
  def explain(maxFields: Int): String =
    (if (tieBreak.isEmpty) "" else truncatedString(tieBreak.map(_.child), ", ties broken by [", ", ", "]", maxFields)) +
      (if (unordered.isEmpty) ""
       else truncatedString(unordered, ", rows that differ only in [", ", ", "] keep their input order", maxFields))
}
