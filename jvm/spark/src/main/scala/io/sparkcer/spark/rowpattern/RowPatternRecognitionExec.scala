package io.sparkcer.spark.rowpattern

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Ascending, Attribute, AttributeSet, SortOrder}
import org.apache.spark.sql.catalyst.plans.physical.{AllTuples, ClusteredDistribution, Distribution, Partitioning}
import org.apache.spark.sql.cer.SparkInternals
import org.apache.spark.sql.execution.{SparkPlan, UnaryExecNode}
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}

import io.sparkcer.engine.rowpattern.RowPatternException
import io.sparkcer.spark.common.CerConf

/**
 * Physical operator of [[RowPatternRecognition]]: asks for its input clustered by PARTITION BY (in one partition
 * without it) and sorted by it then ORDER BY, made total ([[io.sparkcer.spark.common.TotalOrder]]), as Spark's window
 * operator does, and runs each task's partitions through [[RowPatternTask]]. A runtime error of the pattern (AFTER MATCH SKIP to a row it must not) fails the query with its
 * message.
 */
case class RowPatternRecognitionExec(
    pattern: RowPatternSpec,
    partitionKeys: Seq[Attribute],
    order: Seq[SortOrder],
    defined: Seq[Int],
    defines: Seq[RowPatternExpression],
    measures: Seq[RowPatternExpression],
    output: Seq[Attribute],
    child: SparkPlan)
    extends UnaryExecNode with RowPatternOperator {

  override lazy val metrics: Map[String, SQLMetric] = Map(
    "numOutputRows" -> SQLMetrics.createMetric(sparkContext, "number of output rows"),
    // What conditions that read other rows of their match cost: linear in the input rows unless a row's condition
    // has to read its match row by row (see RunningLayout.supports).
    "conditionRowsRead" -> SQLMetrics.createMetric(sparkContext, "number of match rows read by DEFINE conditions")
  )

  override def producedAttributes: AttributeSet = AttributeSet(output) -- child.outputSet

  override def requiredChildDistribution: Seq[Distribution] =
    if (partitionKeys.isEmpty) AllTuples :: Nil else ClusteredDistribution(clusterKeys) :: Nil

  override def requiredChildOrdering: Seq[Seq[SortOrder]] =
    Seq(clusterKeys.map(SortOrder(_, Ascending)) ++ totalOrder(child.output).sortOrder)

  override def outputPartitioning: Partitioning = child.outputPartitioning

  override def nodeName: String = "MatchRecognize"
  override def argString(maxFields: Int): String = explain(maxFields, child.output)

  override protected def doExecute(): RDD[InternalRow] = {
    val numOutputRows = longMetric("numOutputRows")
    val conditionRowsRead = longMetric("conditionRowsRead")
    val task = this.task(child.output, CerConf.partialMatchBound(conf))
    SparkInternals.mapPartitionsWithIndex(child.execute()) { (index, rows) =>
      val out = task.run(rows, index, conditionRowsRead += _)
      new Iterator[InternalRow] {
        def hasNext: Boolean =
          try out.hasNext
          catch { case e: RowPatternException => throw SparkInternals.taskFailure(e) }
        def next(): InternalRow = { numOutputRows += 1; out.next() }
      }
    }
  }

  override protected def withNewChildInternal(newChild: SparkPlan): RowPatternRecognitionExec = copy(child = newChild)
}
