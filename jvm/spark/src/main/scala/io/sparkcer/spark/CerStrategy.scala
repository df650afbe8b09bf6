package io.sparkcer.spark

import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.execution.{SparkPlan, SparkStrategy}

import io.sparkcer.spark.ceql.{CerExec, CerMatch}
import io.sparkcer.spark.rowpattern.{RowPatternRecognition, RowPatternRecognitionExec}

/**
 * Plans [[CerMatch]] as [[CerExec]] and MATCH_RECOGNIZE's [[RowPatternRecognition]] as [[RowPatternRecognitionExec]];
 * Spark's EnsureRequirements adds the shuffle and the sort each asks for.
 */
object CerStrategy extends SparkStrategy {
  override def apply(plan: LogicalPlan): Seq[SparkPlan] = plan match {
    case m: CerMatch =>
      CerExec(m.pattern, m.partitionKeys, m.order, m.guards, m.conditions, m.events, m.output, m.split,
        planLater(m.child)) :: Nil
    case r: RowPatternRecognition =>
      RowPatternRecognitionExec(r.pattern, r.partitionKeys, r.order, r.defined, r.defines, r.measures, r.output,
        planLater(r.child)) :: Nil
    case _ => Nil
  }
}
