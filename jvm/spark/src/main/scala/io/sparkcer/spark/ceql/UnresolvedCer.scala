package io.sparkcer.spark.ceql

import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan

import io.sparkcer.engine.ceql.Query

/**
 * A CEQL query as the SQL statement or the `cer` table function wrote it, before analysis.
 *
 * @param text         the text the query's positions refer to (the SQL statement, or the pattern argument)
 * @param source       the CEQL query alone, as EXPLAIN shows it
 * @param streams      the stream names, one per input (FROM names); empty when the input has no name
 * @param typeColumn   the event type column given with the call; else the conf `spark.cer.eventTypeColumn`
 * @param timeColumn   the stream order given with the call; else the conf `spark.cer.timeColumn`
 * @param streamColumn after several streams were merged into one input: the column naming each row's stream
 */
final case class CerRequest(
    text: String,
    source: String,
    query: Query,
    streams: Seq[String],
    typeColumn: Option[String] = None,
    timeColumn: Option[String] = None,
    streamColumn: Option[String] = None) {
  override def toString: String = CerRequest.oneLine(source)
}

object CerRequest {
  /** The column the merge of several streams adds; it is not part of the events' structs. */
  val StreamColumn = "__cer_stream"

  def oneLine(text: String): String = text.trim.replaceAll("\\s+", " ")

  /** The event type of a stream's rows when it has no type column: its name, without database or catalog. */
  def typeOf(stream: String): String = stream.split('.').last
}

/**
 * The input streams of a CEQL query, not analyzed yet: [[ResolveCer]] replaces this node by [[CerMatch]] once
 * Spark has resolved the inputs (merging several streams into one first).
 */
final case class UnresolvedCer(request: CerRequest, children: Seq[LogicalPlan]) extends LogicalPlan {
  override def output: Seq[Attribute] = Nil
  override lazy val resolved: Boolean = false
  override def argString(maxFields: Int): String = s"'$request'"
  override protected def withNewChildrenInternal(newChildren: IndexedSeq[LogicalPlan]): UnresolvedCer =
    copy(children = newChildren)
}
