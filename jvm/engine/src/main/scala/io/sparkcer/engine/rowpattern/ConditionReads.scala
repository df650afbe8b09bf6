package io.sparkcer.engine.rowpattern

/**
 * What the DEFINE conditions read of the match they are tried in, besides the current row and physical offsets from
 * it: the rows of which labels (through navigation, aggregates or CLASSIFIER), and whether anything that depends on
 * the match's first row (the universal variable's navigation or aggregates). Two threads at one instruction with
 * the same such view of their matches have the same future, so the matcher keeps only the preferred one
 * ([[ThreadEquivalence]]).
 *
 * @param number whether they read MATCH_NUMBER(): the number of the match tried, known only for the start being
 *               tried (the starts before it decided), so that the matcher tries one start at a time
 */
final case class ConditionReads(labels: Set[Int], start: Boolean, number: Boolean = false) {
  def none: Boolean = labels.isEmpty && !start && !number
}

object ConditionReads {
  val Nothing: ConditionReads = ConditionReads(Set.empty, start = false)
}
