package io.sparkcer.engine.complexity

import io.sparkcer.engine.{EngineOptions, LocalEngine}
import io.sparkcer.engine.eval.MatchBound
import io.sparkcer.engine.plan.EvaluatorMetrics

/**
 * Runs a query over a generated stream and reads what the evaluator counted ([[io.sparkcer.engine.eval.Work]]): the
 * complexity tests compare these counts as the window grows, never times.
 */
object WorkProbe {
  val columns: IndexedSeq[String] = IndexedSeq("event_type", "k", "v", "ts")

  /**
   * A deterministic pseudo-random stream of n events: `types` event types, drawn uniformly, partition-like keys in
   * [0, keys), values in [0, values), ts = the position.
   */
  def stream(n: Int, types: Seq[String] = Seq("A", "B", "C", "D"), keys: Int = 10, values: Int = 100,
      seed: Long = 7): Iterator[Array[Any]] = {
    val random = new java.util.Random(seed)
    Iterator.tabulate(n) { i =>
      Array[Any](types(random.nextInt(types.length)), Long.box(random.nextInt(keys)), Long.box(random.nextInt(values)),
        Long.box(i))
    }
  }

  /** What one run of a query did. */
  final case class Measure(events: Long, rows: Long, rowEvents: Long, metrics: EvaluatorMetrics, path: String) {
    def updatePerEvent: Double = metrics.work.update.toDouble / events
    /** Enumeration steps per unit of output: per event of every row, plus one per row. */
    def enumerationPerOutput: Double = metrics.work.enumerationSteps.toDouble / math.max(1L, rows + rowEvents)
    override def toString: String =
      f"$events events, $rows rows ($rowEvents events in them); update ${updatePerEvent}%.2f per event, enumeration " +
        f"${enumerationPerOutput}%.2f per output; ${metrics.work.describe}; depth ${metrics.maxOutputDepth}; $path"
  }

  def measure(query: String, events: => Iterator[Array[Any]], options: EngineOptions = EngineOptions(),
      bound: MatchBound = MatchBound.Default): Measure = {
    val q = LocalEngine.compile(query, columns, options, bound)
    var rows = 0L
    var rowEvents = 0L
    q.run(events).foreach { m => rows += 1; rowEvents += m.bindings.map(_.length).sum }
    Measure(q.metrics.events, rows, rowEvents, q.metrics, q.pattern.describe)
  }
}
