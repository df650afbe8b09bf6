package io.sparkcer.engine.rowpattern

/**
 * The labels one thread of the [[Matcher]] has given its rows, newest first: a persistent list, so that the threads
 * a split forks share what they read before it. `hash` summarises the labels the conditions look at (the others
 * count as one anonymous label), for the matcher's test of equivalent threads ([[ThreadEquivalence]]).
 *
 * @tparam S the host's running summary of a match's rows ([[RowPatternHost.Summary]])
 */
final class LabelNode[S](val label: Int, val excluded: Boolean, val previous: LabelNode[S], val length: Int,
    val hash: Long) {
  /**
   * What the DEFINE conditions keep of the match's rows up to this one ([[RowPatternHost.summarize]]), made by the
   * [[LabelEvaluator]] when a condition first needs it: kept with the row, it is shared by every thread that forks
   * after it. Not saved: made again after a load.
   */
  var summary: S = _
}
