package io.sparkcer.engine.rma

import scala.collection.mutable

import io.sparkcer.engine.automaton.{Nfa, Transition}

/**
 * Projection before enumeration, for events that no selected variable binds: the automaton of CORE folds such an
 * event's take into the skip of it (a row cannot tell them apart), but a take that writes the event into registers
 * leads to a run of its own, and the rows of the two runs repeat each other. Where taking the event can only make
 * the conditions ahead harder to satisfy, the skip dominates the take, and the take is removed:
 *
 * a transition t from state q to state b is removed when it reads the event into no selected variable, is not the
 * first of a match (q is not the initial state: the row's start) nor its last (b is not final: the row's end), its
 * actions only constrain ([[Actions.onlyConstrain]]: it appends to lists and challenges hardest events, every event
 * of which the conditions ahead must satisfy) and add nothing to what a NONE's [[Judgement]] reads (there an event
 * more makes the run harder to stop, not to go on), and q skips the event into a state w that simulates b: every
 * transition that reads from b reads from w alike (same guard, label, checks, resets and target), and every skip
 * from b is matched by a skip from w into a state that simulates the skip's target.
 *
 * Then every match that takes such an event has a twin that skips it: the same events marked with the same labels
 * from the same start to the same end, whose registers ahead hold a subset of the lists and hardest events no
 * harder, so that every check it meets holds as well. Where the twin's next transition is itself a removed take, the
 * same holds of it, one step further on, until the match ends: so every match has a twin in the automaton without
 * the takes, and removing them changes no row. The runs they would have made, one per subset of such events
 * (`SELECT c ... (A AS a)+ ; C AS c FILTER a.v <= c.v + 10`: one per subset of the a's, all with the row of their
 * first a), are never made.
 */
object DominatedTakes {

  /** @param judged the registers the NONEs' judgements read */
  def removed(nfa: Nfa, actions: IndexedSeq[Actions], judged: RegisterSet): Nfa = {
    val simulation = new Simulation(nfa)
    def dominated(q: Int, t: Transition): Boolean =
      q != Nfa.Initial && t.marks && nfa.labels(t.label).isEmpty && actions(t.label).onlyConstrain &&
        !actions(t.label).adds(judged) &&
        !nfa.finals(t.target) && simulation.skips(q).exists(simulation.simulates(_, t.target))
    val transitions = nfa.transitions.indices.map(q => nfa.transitions(q).filterNot(dominated(q, _)))
    if (transitions == nfa.transitions) nfa
    else new Nfa(transitions, nfa.finals, nfa.guards, nfa.labels, nfa.conditions, nfa.scopes, nfa.atomOf, nfa.atoms,
      nfa.gaps)
  }

  /**
   * Whether a state w simulates a state b, as defined above: the greatest such relation, found by a search that
   * assumes each pair it is visiting (a cycle of skips, the waiting states' loops, simulates itself).
   */
  private final class Simulation(nfa: Nfa) {
    private def skip(t: Transition) = !t.reads && t.guard < 0 && t.checks.isEmpty && t.excludes.isEmpty
    /** Per state, the targets of its skips: transitions that pass any event by. */
    val skips: IndexedSeq[Seq[Int]] = nfa.transitions.map(_.filter(skip).map(_.target))
    /** Per state, its other transitions, as they act whatever state they leave. */
    private val reads: IndexedSeq[Set[Transition]] = nfa.transitions.map(_.filterNot(skip).map(_.copy(from = -1)).toSet)
    private val known = mutable.HashMap.empty[(Int, Int), Boolean]

    def simulates(w: Int, b: Int): Boolean = search(w, b, Set.empty)

    private def search(w: Int, b: Int, assumed: Set[(Int, Int)]): Boolean =
      w == b || assumed((w, b)) || known.getOrElse(
        (w, b), {
          val holds = reads(b).subsetOf(reads(w)) &&
            skips(b).forall(x => skips(w).exists(y => search(y, x, assumed + ((w, b)))))
          // Only an answer reached without assumptions stands on its own.
          if (assumed.isEmpty || !holds) known((w, b)) = holds
          holds
        }
      )
  }
}
