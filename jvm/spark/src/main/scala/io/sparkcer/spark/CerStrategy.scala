package io.sparkcer.spark

import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.execution.{SparkPlan, SparkStrategy}

/** Plans [[CerMatch]] as [[CerExec]]; Spark's EnsureRequirements adds the shuffle and the sort it asks for. */
object CerStrategy extends SparkStrategy {
  override def apply(plan: LogicalPlan): Seq[SparkPlan] = plan match {
    case m: CerMatch =>
      CerExec(m.pattern, m.partitionKeys, m.order, m.guards, m.conditions, m.events, m.output, m.split, planLater(m.child)) :: Nil
    case _ => Nil
  }
}
