package io.sparkcer.spark.ceql

import io.sparkcer.engine.analysis.AnalyzedQuery
import io.sparkcer.engine.plan.{CompiledPattern, Evaluation}

/**
 * An analyzed CEQL query, as the plan nodes carry it to the executors. [[CompiledPattern]] is not serializable, so
 * each JVM compiles the query itself, once: the driver's plan and every task deserialized from it find the
 * compilation in [[CerPattern.compiled]]'s cache (compiling is deterministic, so guard g is the same guard on the
 * driver and in every task).
 *
 * @param equalityPcea whether equalities run on a PCEA where one can ([[CerConf.PCEA_ENABLED]])
 */
final case class CerPattern(analyzed: AnalyzedQuery, source: String, equalityPcea: Boolean = true) {
  @transient lazy val compiled: CompiledPattern = CerPattern.compiled(this)

  /** How the engine evaluates the pattern: what EXPLAIN says of it and the counters it reports. */
  def evaluation: Evaluation = compiled.evaluation

  /** Each task reads one key after another where the engine allows it ([[CompiledPattern.readsPartitionsApart]]). */
  def grouped: Boolean = compiled.readsPartitionsApart

  def describe: String = {
    val q = analyzed.query
    s"${compiled.describe}, CONSUME BY ${q.consumeBy.keyword}${q.limit.fold("")(n => s", LIMIT $n")}"
  }

  override def toString: String = s"$describe: ${CerRequest.oneLine(source)}"
}

object CerPattern {
  /** How many compiled patterns a JVM keeps: the queries its tasks run at one time, and more. */
  private val Kept = 64

  /** The patterns compiled last, least recently used first (a LinkedHashMap in access order). */
  private val recent = new java.util.LinkedHashMap[CerPattern, CompiledPattern](16, 0.75f, true) {
    override def removeEldestEntry(eldest: java.util.Map.Entry[CerPattern, CompiledPattern]): Boolean = size > Kept
  }

  /**
   * The pattern's compilation, made once per JVM: a task's copy of the plan equals the driver's (and the other
   * tasks'), so the query's automaton is built once, not again by every task.
   */
  private def compiled(pattern: CerPattern): CompiledPattern = recent.synchronized {
    recent.computeIfAbsent(pattern, p => new CompiledPattern(p.analyzed, equalityPcea = p.equalityPcea))
  }
}
