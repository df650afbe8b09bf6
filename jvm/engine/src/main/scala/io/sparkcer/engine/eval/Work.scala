package io.sparkcer.engine.eval

/**
 * The work an evaluator did, in steps that each take constant time, counted where they are taken: what the papers'
 * guarantees bound, measured rather than timed. CORE promises a constant number of update steps per event, whatever
 * the window, and enumeration steps linear in the output; the tests of those guarantees
 * (`ComplexitySuite`) read these counts as windows and streams grow, and Spark's SQL metrics and the runner's
 * summary show them, so that a user sees which path ran and what it cost.
 *
 * Update work, while events are read:
 *  - `transitions`: moves of a run on an event (a deterministic state, or a state with registers, or a PCEA
 *    transition whose guard the event passes), each with the union-list entries it touches;
 *  - `conditionChecks`: conditions relating events evaluated (against a run's registers, or on a lazy chain's
 *    candidate combination), one per combination of events checked;
 *  - `indexProbes`: lookups and insertions in a PCEA's hash index, and in what a lazy chain knows of its witnesses;
 *  - `unionNodes`: union nodes made: by the tECS (CORE's merge of a union-list and its insert of a node whose
 *    maximum start one entry already has; a merge makes only the unions in front of what it merged before), and by a
 *    PCEA's union to insert a run into a union tree (the path it copies, persistent), which the PCEA paper bounds by
 *    the log of the window (Prop. 5.3);
 *  - `bufferVisits`: buffered events a lazy chain's search visits.
 *
 * Output work, while matches are enumerated:
 *  - `enumerationSteps`: nodes visited by the enumeration (tECS or PCEA nodes), dead ones included (the lazy chain
 *    assembles its rows from the events it bound, and counts that as the search that bound them);
 *  - `dropped`: complex events enumerated and then thrown away (a duplicate row, a valuation reading one event twice),
 *    which output-linear enumeration never does.
 */
final class Work {
  var transitions = 0L
  var conditionChecks = 0L
  var indexProbes = 0L
  var unionNodes = 0L
  var bufferVisits = 0L
  var enumerationSteps = 0L
  var dropped = 0L

  /** Update work: the steps taken to read events, apart from reporting their matches. */
  def update: Long = transitions + conditionChecks + indexProbes + unionNodes + bufferVisits

  /** All the steps taken, update and output: what a path's cost is measured in ([[io.sparkcer.engine.chain.ChainCost]]). */
  def steps: Long = update + enumerationSteps

  /** The counts, named as the runner's summary and the tests print them. */
  def describe: String =
    s"transitions $transitions, condition checks $conditionChecks, index probes $indexProbes, union nodes made " +
      s"$unionNodes, buffered events visited $bufferVisits; enumeration steps $enumerationSteps, complex events " +
      s"dropped $dropped"
}
