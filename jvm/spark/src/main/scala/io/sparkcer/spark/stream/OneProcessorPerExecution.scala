package io.sparkcer.spark.stream

import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, TransformWithState}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.streaming.StatefulProcessor

/**
 * Gives each execution of a streaming pattern its own [[EventTimeProcessor]].
 *
 * The processor is made at analysis, into the plan of a DataFrame, and one DataFrame can feed several streaming
 * queries (its matches written to Kafka and to files). When Spark's driver plans a query's first micro-batch, it sets
 * a handle into the processor and calls its `init`, which registers the state variables on that handle; two queries
 * starting at once on one processor would register on each other's handles (and Spark fails one of them for a
 * variable defined twice). So the analyzed plan keeps a template, and each optimization of the plan (Spark optimizes
 * every micro-batch anew) puts in a copy of its own, which the rest of that optimization leaves alone.
 */
object OneProcessorPerExecution extends Rule[LogicalPlan] {
  override def apply(plan: LogicalPlan): LogicalPlan = plan.transformUp {
    case t: TransformWithState => (t.statefulProcessor: AnyRef) match {
        case template: EventTimeProcessor if template.isTemplate =>
          t.copy(statefulProcessor = template.copyForOneExecution.asInstanceOf[StatefulProcessor[Any, Any, Any]])
        case _ => t
      }
  }
}
