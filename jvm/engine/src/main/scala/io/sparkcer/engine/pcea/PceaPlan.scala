package io.sparkcer.engine.pcea

import io.sparkcer.engine.eval.EventReader

/**
 * A pattern compiled to a PCEA ([[PceaCompiler]]): the automaton, whose labels are the pattern's atoms, and what the
 * evaluation needs around it.
 *
 * @param extractors        per key extractor of the automaton ([[PceaReader.key]]), one (condition, side) per class
 *                          of its key, in class order: the key is the values of those equality sides on the event
 * @param labels            per atom (a PCEA label, from 1), the output label of its events (an index of
 *                          [[io.sparkcer.engine.automaton.Nfa.labels]])
 * @param shared            where a run tree may read one event in two subtrees: under AND, one event may pass atoms
 *                          of two operands (the paper's simple runs only keep one event from taking one label twice),
 *                          while CEQL's AND reads disjoint events, so the evaluation keeps them apart
 * @param latestOnly        the joins (transition, child slot) whose index entries keep only the latest runs: their
 *                          child state is an atom no selected variable binds, whose runs under one key and of one
 *                          group (transition and incoming key) differ in its event alone ([[LatestRuns]]); true where
 *                          a key has one group
 * @param rowsTellRunsApart whether a row (the selected variables' events and the start) names one run, once the
 *                          `latestOnly` joins keep one run per key. Otherwise rows are de-duplicated
 * @param describe          the construction, for EXPLAIN
 */
final case class PceaPlan(pcea: Pcea, extractors: IndexedSeq[IndexedSeq[(Int, Int)]], labels: IndexedSeq[Int],
    shared: SharedEvents, latestOnly: Map[(Int, Int), Boolean], rowsTellRunsApart: Boolean, describe: String) {

  private val parts = extractors.map(_.toArray).toArray

  /**
   * The key of extractor `extractor` on an event: one equality side's value, or a list of them for a key of several
   * classes (null if any is NULL: a NULL joins nothing), or [[PceaPlan.NoKey]] for a join without equality.
   */
  def key[E](extractor: Int, reader: EventReader[E], event: E): AnyRef = {
    val read = parts(extractor)
    if (read.length == 1) reader.operand(read(0)._1, read(0)._2, event)
    else if (read.isEmpty) PceaPlan.NoKey
    else {
      val values = new Array[AnyRef](read.length)
      var k = 0
      while (k < read.length) {
        values(k) = reader.operand(read(k)._1, read(k)._2, event)
        if (values(k) == null) return null
        k += 1
      }
      java.util.Arrays.asList(values: _*)
    }
  }
}

object PceaPlan {
  /** The key of a join that compares nothing (operands of AND that no equality relates): every run joins. */
  case object NoKey
}
