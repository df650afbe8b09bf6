package org.apache.spark.sql.cer

import org.apache.spark.TaskContext
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Ascending, Attribute, AttributeSet, BindReferences, BoundReference, Expression, Predicate, SortOrder, UnsafeProjection}
import org.apache.spark.sql.catalyst.plans.physical.{AllTuples, ClusteredDistribution, Distribution, HashPartitioning, Partitioning, SinglePartition, UnknownPartitioning}
import org.apache.spark.sql.execution.{SparkPlan, UnaryExecNode}
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}

import io.sparkcer.engine.analysis.WindowKey
import io.sparkcer.engine.eval.PatternEvaluator
import io.sparkcer.spark.{CerMatch, CerPattern, InternalRowReader, MatchWriter}

/**
 * Physical operator of [[CerMatch]]: asks for its input clustered by the PARTITION BY keys and sorted by keys
 * then stream order (or, without keys or with CONSUME BY ANY, in one partition in stream order), and runs the
 * engine over each task's rows. Lives here for `mapPartitionsWithIndexInternal`, which is `private[spark]`.
 */
case class CerExec(
    pattern: CerPattern,
    partitionKeys: Seq[Expression],
    order: Seq[SortOrder],
    guards: Seq[Expression],
    events: Seq[Seq[Attribute]],
    output: Seq[Attribute],
    child: SparkPlan)
    extends UnaryExecNode {

  override lazy val metrics: Map[String, SQLMetric] = Map(
    "numEvents" -> SQLMetrics.createMetric(sparkContext, "number of events read"),
    "numOutputRows" -> SQLMetrics.createMetric(sparkContext, "number of matches"),
    "numLeftOut" -> SQLMetrics.createMetric(sparkContext, "number of rows left out (NULL keys)"),
    "peakActiveStates" -> SQLMetrics.createAverageMetric(sparkContext, "peak active states per task"),
    "peakLiveNodes" -> SQLMetrics.createAverageMetric(sparkContext, "peak tECS nodes per task"))

  override def producedAttributes: AttributeSet = AttributeSet(output)

  override def requiredChildDistribution: Seq[Distribution] =
    if (pattern.grouped) ClusteredDistribution(partitionKeys) :: Nil else AllTuples :: Nil

  override def requiredChildOrdering: Seq[Seq[SortOrder]] =
    Seq((if (pattern.grouped) partitionKeys.map(SortOrder(_, Ascending)) else Nil) ++ order)

  /** Output rows stay in their key's task: hashed on the output key columns, which hold the same values. */
  override def outputPartitioning: Partitioning = child.outputPartitioning match {
    case SinglePartition => SinglePartition
    case HashPartitioning(exprs, n) if pattern.grouped =>
      val keys = exprs.map(e => partitionKeys.indexWhere(_.semanticEquals(e)))
      if (keys.forall(_ >= 0)) HashPartitioning(keys.map(output), n) else UnknownPartitioning(n)
    case other => UnknownPartitioning(other.numPartitions)
  }

  override def nodeName: String = "CerMatch"
  override def argString(maxFields: Int): String = CerMatch.explain(pattern, partitionKeys, order, output, maxFields)

  override protected def doExecute(): RDD[InternalRow] = {
    val (numEvents, numOutputRows, numLeftOut, peakActiveStates, peakLiveNodes) = (longMetric("numEvents"),
      longMetric("numOutputRows"), longMetric("numLeftOut"), longMetric("peakActiveStates"), longMetric("peakLiveNodes"))
    val (pattern, keys, guards, events, input) = (this.pattern, partitionKeys, this.guards, this.events, child.output)
    val orderOrdinals = order.map(o => BindReferences.bindReference(o.child, input).asInstanceOf[BoundReference].ordinal)
    val orderType = order.head.dataType
    val window = pattern.analyzed.window.collect { case w if w.key.isInstanceOf[WindowKey.Column] => (orderOrdinals.head, orderType) }
    val keyTypes = keys.map(_.dataType).toArray
    val outputTypes = output.map(_.dataType).toArray
    val single = pattern.analyzed.outputs.map(_.single)

    child.execute().mapPartitionsWithIndexInternal { (index, rows) =>
      val predicates = guards.map(g => Predicate.create(g, input)).toArray
      predicates.foreach(_.initialize(index))
      val key = if (keys.isEmpty) null else UnsafeProjection.create(keys, input)
      val reader = new InternalRowReader(predicates, key, window)
      val evaluator = new PatternEvaluator[InternalRow](pattern.compiled, reader, pattern.grouped)
      val structs = events.map(UnsafeProjection.create(_, input)).zip(single).toArray
      val writer = new MatchWriter(keyTypes, orderOrdinals.head, orderType, structs, outputTypes)
      // Rows with a NULL order key are left out and counted (the engine counts NULL partition and window keys);
      // the others are copied, since the engine keeps the events of the window.
      var leftOut = 0L
      val ordered = rows.filter { row =>
        val hasOrder = !orderOrdinals.exists(row.isNullAt)
        if (!hasOrder) leftOut += 1
        hasOrder
      }.map(_.copy())
      TaskContext.get().addTaskCompletionListener[Unit] { _ =>
        val m = evaluator.metrics
        numEvents += m.events + leftOut
        numOutputRows += m.matches
        numLeftOut += m.droppedNullKey + leftOut
        peakActiveStates.set(m.peakActiveStates.toDouble)
        peakLiveNodes.set(m.peakLiveNodes.toDouble)
      }
      evaluator.matches(ordered).map(writer)
    }
  }

  override protected def withNewChildInternal(newChild: SparkPlan): CerExec = copy(child = newChild)
}
