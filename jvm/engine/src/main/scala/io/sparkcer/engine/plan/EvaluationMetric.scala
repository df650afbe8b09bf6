package io.sparkcer.engine.plan

import io.sparkcer.engine.chain.ChainPath

/**
 * A counter an evaluation reports, as Spark's SQL metrics and the runner show it: its name, what it counts, and
 * where an evaluator's counters hold it.
 */
final case class EvaluationMetric(name: String, description: String, of: EvaluatorMetrics => Long)

object EvaluationMetric {
  /** The engine's [[io.sparkcer.engine.eval.Work]]: what the papers bound, per event and per match, by kind. */
  val Work: Seq[EvaluationMetric] = Seq(
    EvaluationMetric("transitions", "run transitions", _.work.transitions),
    EvaluationMetric("conditionChecks", "conditions checked", _.work.conditionChecks),
    EvaluationMetric("indexProbes", "index probes", _.work.indexProbes),
    EvaluationMetric("unionNodes", "union nodes made", _.work.unionNodes),
    EvaluationMetric("bufferVisits", "buffered events visited", _.work.bufferVisits),
    EvaluationMetric("enumerationSteps", "enumeration steps", _.work.enumerationSteps),
    EvaluationMetric("droppedMatches", "complex events enumerated and dropped", _.work.dropped)
  )

  /**
   * Where a chain races the lazy chain against the registers: the races each path won on the partitions
   * ([[io.sparkcer.engine.chain.ChainCost]]), and what the cost model measured to choose (each path's work over the
   * events the races spanned): its estimate.
   */
  val Races: Seq[EvaluationMetric] = Seq(
    EvaluationMetric("lazyChainWins", "chain races won by the lazy chain", _.chainDecisions.won(ChainPath.Lazy.index)),
    EvaluationMetric("registerWins", "chain races won by registers", _.chainDecisions.won(ChainPath.Registers.index)),
    EvaluationMetric("raceEvents", "chain races: events read by both paths", _.chainDecisions.events),
    EvaluationMetric("lazyChainRaceWork", "chain races: the lazy chain's work",
      _.chainDecisions.work(ChainPath.Lazy.index)),
    EvaluationMetric("registerRaceWork", "chain races: the registers' work",
      _.chainDecisions.work(ChainPath.Registers.index))
  )
}
