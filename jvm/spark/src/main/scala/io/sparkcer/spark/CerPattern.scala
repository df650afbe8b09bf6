package io.sparkcer.spark

import io.sparkcer.engine.analysis.AnalyzedQuery
import io.sparkcer.engine.eval.CompiledPattern

/**
 * An analyzed CEQL query, as the plan nodes carry it to the executors (each task compiles its own automaton:
 * [[CompiledPattern]] is not serializable, and compiling is cheap and deterministic, so guard g is the same
 * guard on the driver and in every task).
 *
 * @param equalityPcea whether equalities run on a PCEA where one can ([[CerConf.PCEA_ENABLED]])
 */
final case class CerPattern(analyzed: AnalyzedQuery, source: String, equalityPcea: Boolean = true) {
  @transient lazy val compiled: CompiledPattern = new CompiledPattern(analyzed, equalityPcea = equalityPcea)

  /** Each task reads one key after another where the engine allows it ([[CompiledPattern.readsPartitionsApart]]). */
  def grouped: Boolean = compiled.readsPartitionsApart

  def describe: String = {
    val q = analyzed.query
    s"${compiled.describe}, CONSUME BY ${q.consumeBy.keyword}${q.limit.fold("")(n => s", LIMIT $n")}"
  }

  override def toString: String = s"$describe: ${CerRequest.oneLine(source)}"
}
