package io.sparkcer.spark.ceql

import org.apache.spark.TaskContext
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Ascending, Attribute, AttributeSet, Expression, SortOrder}
import org.apache.spark.sql.catalyst.plans.physical.{
  AllTuples, ClusteredDistribution, Distribution, HashPartitioning, Partitioning, SinglePartition, UnknownPartitioning
}
import org.apache.spark.sql.cer.SparkInternals
import org.apache.spark.sql.execution.{SparkPlan, UnaryExecNode}
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}

import io.sparkcer.spark.common.CerConf

/**
 * Physical operator of [[CerMatch]]: asks for its input clustered by the PARTITION BY keys (or by the ranges of
 * a split stream) and sorted by them then stream order, made total ([[io.sparkcer.spark.common.TotalOrder]]) (or, without either or with
 * CONSUME BY ANY, in one partition in stream order), and runs the engine over each task's rows. Its fields are
 * [[CerOperator]]'s.
 */
case class CerExec(
    pattern: CerPattern,
    partitionKeys: Seq[Expression],
    order: Seq[SortOrder],
    guards: Seq[Expression],
    conditions: Seq[CerCondition],
    events: Seq[Seq[Attribute]],
    output: Seq[Attribute],
    split: Seq[Attribute],
    child: SparkPlan)
    extends UnaryExecNode with CerOperator {

  override lazy val metrics: Map[String, SQLMetric] = Map(
    "numEvents" -> SQLMetrics.createMetric(sparkContext, "number of events read"),
    "numOutputRows" -> SQLMetrics.createMetric(sparkContext, "number of matches"),
    "numLeftOut" -> SQLMetrics.createMetric(sparkContext, "number of rows left out (NULL keys)"),
    "peakActiveStates" -> SQLMetrics.createAverageMetric(sparkContext, "peak active states per task"),
    "peakLiveNodes" -> SQLMetrics.createAverageMetric(sparkContext, "peak tECS nodes per task")
  ) ++
    // The engine's work, what the papers bound, and the counters of the pattern's evaluation.
    pattern.evaluation.metrics.map(m => m.name -> SQLMetrics.createMetric(sparkContext, m.description))

  override def producedAttributes: AttributeSet = AttributeSet(output)

  /** Keys take Spark's shuffle partitions; a split stream comes hashed into its tasks already ([[RangeSplit]]). */
  override def requiredChildDistribution: Seq[Distribution] =
    if (clusterKeys.isEmpty) AllTuples :: Nil else ClusteredDistribution(clusterKeys) :: Nil

  override def requiredChildOrdering: Seq[Seq[SortOrder]] =
    Seq(sortKeys.map(SortOrder(_, Ascending)) ++ totalOrder(child.output).sortOrder)

  /** Output rows stay in their key's task: hashed on the output key columns, which hold the same values. */
  override def outputPartitioning: Partitioning = child.outputPartitioning match {
    case SinglePartition => SinglePartition
    case HashPartitioning(exprs, n) if pattern.grouped =>
      val keys = exprs.map(e => partitionKeys.indexWhere(_.semanticEquals(e)))
      // Only the query's own keys are output columns; a key derived from an equality is not among them.
      if (keys.forall(k => k >= 0 && k < pattern.analyzed.declaredKeys)) HashPartitioning(keys.map(output), n)
      else UnknownPartitioning(n)
    case other => UnknownPartitioning(other.numPartitions)
  }

  override def nodeName: String = "CerMatch"
  override def argString(maxFields: Int): String = explain(maxFields, child.output)

  override protected def doExecute(): RDD[InternalRow] = {
    val (numEvents, numOutputRows, numLeftOut, peakActiveStates, peakLiveNodes) = (longMetric("numEvents"),
      longMetric("numOutputRows"), longMetric("numLeftOut"), longMetric("peakActiveStates"),
      longMetric("peakLiveNodes"))
    val task = this.task(child.output, CerConf.matchBound(conf))

    SparkInternals.mapPartitionsWithIndex(child.execute()) { (index, rows) =>
      val opened = task.open(index)
      // Rows with a NULL order key are left out and counted (the engine counts NULL partition and window keys);
      // the others are copied, since the engine keeps the events of the window.
      var leftOut = 0L
      val ordered = rows.filter { row =>
        val placed = task.ordered(row)
        if (!placed) leftOut += 1
        placed
      }.map(_.copy())
      TaskContext.get().addTaskCompletionListener[Unit] { _ =>
        val m = opened.evaluator.metrics
        numEvents += m.events + leftOut
        numOutputRows += m.matches
        numLeftOut += m.droppedNullKey + leftOut
        peakActiveStates.set(m.peakActiveStates.toDouble)
        peakLiveNodes.set(m.peakLiveNodes.toDouble)
        for (counter <- pattern.evaluation.metrics) longMetric(counter.name) += counter.of(m)
      }
      opened.matches(task.inRanges(opened.evaluator, ordered))
    }
  }

  override protected def withNewChildInternal(newChild: SparkPlan): CerExec = copy(child = newChild)
}
