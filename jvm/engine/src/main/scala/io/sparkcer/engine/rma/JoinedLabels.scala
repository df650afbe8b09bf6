package io.sparkcer.engine.rma

import io.sparkcer.engine.automaton.{Nfa, Transition}

/**
 * One label per set of selected variables, where the registers allow: RMA's determinization (Alg. 5) makes one
 * transition of the transitions that read an event with the same output, writing the union of their write sets. The
 * labels of [[Placement]] carry register actions, so two transitions that mark the same variables with different
 * actions have labels of their own, and the deterministic automaton keeps their runs apart: the alternatives of an OR
 * of conditions (`A AS a ; C AS c FILTER a.v < c.v OR a.k > c.k` reads each a into the registers of both conditions'
 * scopes, one alternative each) then each reach the end with the row (a, c), and repeat it. Joined, the alternatives
 * share one run while they mark the same events, and the row is output once.
 *
 * Labels are joined when no register one of them changes (resets, writes, appends to, accumulates, challenges) is
 * changed by another, read by another's checks, or live where another's transitions lead: so each state of a joined
 * run finds the registers it reads as its own label left them. The joined label does what each of them does, and
 * drops what all of them drop. Only where the runs could repeat a row: two of the labels both end a match or both
 * come before its end (as [[io.sparkcer.engine.plan.Planner]]'s test of rows reads them), or they are takes
 * or challenges of [[ExistentialTakes]].
 */
object JoinedLabels {

  /** The automaton and actions of `chosen` with the labels joined; its takes' and challenges' labels follow them. */
  def joined(chosen: ExistentialTakes.Chosen, checks: IndexedSeq[Check]): ExistentialTakes.Chosen = {
    val ExistentialTakes.Chosen(nfa, actions, judgements, takes, challenges, _) = chosen
    val guards = nfa.guards.length
    val live = liveness(nfa, checks, judgements)
    val marking = for (q <- nfa.transitions.indices; t <- nfa.transitions(q) if t.label > 0) yield t
    def read(t: Transition) = t.checks.map(c => checks(c - guards).reads).foldLeft(RegisterSet.None)(_ ++ _)
    def disjoint(a: RegisterSet, b: RegisterSet) = (a -- b) == a
    // A chosen take joins takes only, a challenge challenges only: each moves the run its own way.
    def compatible(la: Int, lb: Int) = takes(la) == takes(lb) && challenges(la) == challenges(lb) &&
      disjoint(changed(actions(la)), changed(actions(lb))) &&
      marking.filter(_.label == la).forall(ta => disjoint(changed(actions(lb)), live(ta.target) ++ read(ta))) &&
      marking.filter(_.label == lb).forall(tb => disjoint(changed(actions(la)), live(tb.target) ++ read(tb)))
    // Labels whose runs cannot meet with one row need no joining (an AND's two orders: the label of an event that
    // ends one comes before the other's end), and joined, would only carry each other's registers along.
    def ends(l: Int) = marking.exists(t => t.label == l && nfa.finals(t.target))
    def continues(l: Int) = marking.exists(t => t.label == l && nfa.readsAhead(t.target))
    def forks(labels: Vector[Int]) = labels.size > 1 &&
      (labels.exists(l => takes(l) || challenges(l)) || labels.count(ends) > 1 || labels.count(continues) > 1)
    // Per set of variables, each label joins the first class of labels it is compatible with, in label order.
    val groups = marking.map(_.label).distinct.sorted.groupBy(nfa.labels(_)).values.flatMap { same =>
      same.foldLeft(Vector.empty[Vector[Int]]) { (classes, l) =>
        classes.indexWhere(_.forall(compatible(_, l))) match {
          case -1 => classes :+ Vector(l)
          case i => classes.updated(i, classes(i) :+ l)
        }
      }
    }.filter(forks)
    if (groups.isEmpty) chosen
    else {
      val into = groups.flatMap(g => g.map(_ -> g.head)).toMap
      val joinedActions = actions.indices.map { l =>
        groups.find(_.head == l).fold(actions(l))(g => g.map(actions).reduce(union))
      }
      val transitions = nfa.transitions.map(_.map(t => into.get(t.label).fold(t)(l => t.copy(label = l))))
      chosen.copy(
        nfa = new Nfa(transitions, nfa.finals, nfa.guards, nfa.labels, nfa.conditions, nfa.scopes,
          nfa.atomOf, nfa.atoms, nfa.gaps),
        actions = joinedActions,
        takes = takes.map(l => into.getOrElse(l, l)),
        challenges = challenges.map(l => into.getOrElse(l, l))
      )
    }
  }

  private def union(a: Actions, b: Actions): Actions =
    Actions(
      a.reset ++ b.reset,
      (a.write ++ b.write).distinct,
      (a.append ++ b.append).distinct,
      (a.accumulate ++ b.accumulate).distinct,
      (a.keepHardest ++ b.keepHardest).distinct,
      a.drop -- (a.drop -- b.drop),
      (a.keepEasiest ++ b.keepEasiest).distinct
    )

  /** The registers an action changes other than by dropping them. */
  private def changed(a: Actions): RegisterSet =
    a.reset ++ RegisterSet((a.write ++ a.keepHardest.map(_.register) ++ a.keepEasiest.map(_.register)).distinct.sorted,
      a.append.distinct.sorted, a.accumulate.distinct.sorted)

  /**
   * The registers live at each state: read by a check on a transition ahead (before its transition acts, or, as a
   * match ends, after) or by a judgement a skip ahead excludes.
   */
  private def liveness(nfa: Nfa, checks: IndexedSeq[Check], judgements: IndexedSeq[Judgement])
      : IndexedSeq[RegisterSet] = {
    val guards = nfa.guards.length
    val read = for (q <- nfa.transitions.indices; t <- nfa.transitions(q);
      (at, check) <-
        t.checks.map(bit => checks(bit - guards)).map(c => (if (c.phase == Phase.Write) t.target else q) -> c) ++
          t.excludes.flatMap(bit => judgements.filter(_.bit == bit)).flatMap(_.checks).map(q -> _))
      yield at -> check.reads
    Liveness.of(nfa.stateCount, read, for (q <- nfa.transitions.indices; t <- nfa.transitions(q)) yield q -> t.target)
  }
}
