package io.sparkcer.engine.rma

import io.sparkcer.engine.analysis.OrderComparison
import io.sparkcer.engine.automaton.{Nfa, Transition}

/**
 * Projection before enumeration, for an event that no selected variable binds but a condition ahead reads: in
 * `SELECT a, c ... A AS a ; B AS b ; C AS c FILTER b.v < c.v` each b between a and c is a run of its own, a run per b
 * with the row (a, c), and the rows would repeat once per b that satisfies the condition. A row only needs some b to
 * exist; and where the one condition that reads b is an order comparison one side of which reads b alone
 * ([[OrderComparison.sideOf]]), some b satisfies it exactly when the easiest of them does (the smallest `b.v` here).
 * So the run takes the first b it can and then keeps the easiest: every later b that it could have taken instead
 * challenges the one held ([[Actions.keepEasiest]]), and the run no longer waits past such a b without it.
 *
 * In automaton terms, for a take t of b from state q into state b' (b unselected, q not the initial state, b' not
 * final):
 *  - the skips of q and of the waiting states they lead to (W, where the same take leaves again) pass by no event
 *    that t could take: a [[Judgement]] of t's guard and checks, which the skips exclude; so a run takes the first
 *    such b and only that one;
 *  - in b' and the waiting states its skips lead to (W'), the skips exclude the same events, and a challenge, a copy
 *    of t into b' whose label keeps the easier of the event and the b held, takes each.
 * Every partial match is then in one run: with a given b, the first that it could take after its last event before
 * b. And each run that once took a b of a match's stands, as it reaches the end, for every b it could have taken: the
 * easiest of those is in its register, and satisfies the condition ahead whenever one of them does. The row is
 * output once, by that run.
 *
 * This holds where nothing else can happen between: q and W read nothing but t's events (no other take from q, or an
 * iteration around it would be cut short by the first b), b' and W' are entered only by t and its challenges and
 * leave only forward (nothing comes back to them or to q), t resets no scope and writes only b's register, which
 * nothing but that comparison reads (no `prev`, no NONE judges against it). The registers t's checks read stay while
 * the run waits in b' and W', where the challenges check them again. A take that keeps no b is chosen alike, its
 * challenges keeping nothing: one whose checks read earlier events only (`b.v > a.v`, whose take drops a's register,
 * and so made a run per b all the same), and one that reads nothing at all where a run may be in its states and in a
 * chosen take's at once (the b of an OR's alternative that reads no b), so that the two move as one. Elsewhere the
 * runs stay apart, and their repeated rows are dropped, counted.
 */
object ExistentialTakes {

  /**
   * The automaton with the takes chosen as above, the actions of its labels (the challenges' added), the judgements
   * its skips exclude (added after `judgements`), the labels of the takes and of the challenges, and the states q,
   * W, b' and W' of each.
   */
  final case class Chosen(nfa: Nfa, actions: IndexedSeq[Actions], judgements: IndexedSeq[Judgement],
      takes: Set[Int] = Set.empty, challenges: Set[Int] = Set.empty, states: Set[Int] = Set.empty) {

    /**
     * The labels whose runs repeat no row ([[RegisterProgram.existential]]): those of the takes and challenges, where
     * a run in their states moves as one. A run of the deterministic automaton is in a set of states; where it is in
     * a state of a chosen take and in another that no chosen take's is (the alternative of an OR that reads no b, and
     * takes b as any event it skips), may take with two labels of takes (or of challenges) that were not joined
     * ([[JoinedLabels]]), or waits for takes that different checks enable (an OR's alternatives that read b apart),
     * one event forks it into two runs that may end with the same row. The sets of states its runs may reach are found
     * reading every transition as enabled together, which holds them all.
     */
    def existential: Set[Int] = {
      def apart(set: Set[Int]) = {
        val leaving = set.flatMap(nfa.transitions(_))
        val labels = leaving.map(_.label)
        val waits = leaving.flatMap(_.excludes).flatMap(bit => judgements.find(j => j.bit == bit && j.ofTake))
          .map(j => (j.guards, j.checks))
        set.exists(states) &&
        (!set.forall(states) || labels.count(takes) > 1 || labels.count(challenges) > 1 || waits.size > 1)
      }
      stateSets(nfa).filterNot(_.exists(apart)).fold(Set.empty[Int])(_ => takes ++ challenges)
    }

    /** The states that a run may be in together with a chosen take's, and no chosen take's themselves. */
    def beside: Set[Int] = stateSets(nfa).fold(Set.empty[Int])(_.filter(_.exists(states)).flatten.toSet -- states)
  }

  /** Past this many sets of states, whether runs may fork is not decided, and they are taken to. */
  private val MaxStateSets = 10000

  /**
   * The sets of states the runs of the deterministic automaton may be in, reading every transition as enabled
   * together (so every set a run reaches is within one of them); None past [[MaxStateSets]].
   */
  private def stateSets(nfa: Nfa): Option[Seq[Set[Int]]] = {
    val unmarked = (q: Int) => nfa.transitions(q).filter(t => !t.marks || t.label == 0).map(_.target)
    def targets(set: Set[Int]): Seq[Set[Int]] = {
      val marking = set.toSeq.flatMap(nfa.transitions(_)).filter(_.label > 0)
      (set.flatMap(unmarked) - Nfa.Initial) +: marking.groupBy(_.label).values.map(_.map(_.target).toSet).toSeq
    }
    var seen = Set(Set(Nfa.Initial))
    var frontier = Seq(Set(Nfa.Initial))
    while (frontier.nonEmpty && seen.size <= MaxStateSets) {
      frontier = frontier.flatMap(targets).filter(_.nonEmpty).distinct.filterNot(seen)
      seen ++= frontier
    }
    if (frontier.isEmpty) Some(seen.toSeq) else None
  }

  def chosen(start: Chosen, checks: IndexedSeq[Check]): Chosen = {
    var chosen = start
    // One at a time, each found in the automaton the ones before left: a take's states must read nothing else. First
    // the takes whose runs repeat rows on their own: those that keep an event or drop a register.
    var next = candidates(chosen, checks, Set.empty).headOption
    while (next.isDefined) {
      chosen = choose(chosen, next.get, checks)
      next = candidates(chosen, checks, Set.empty).headOption
    }
    // Then the takes that keep nothing (the b of an OR's alternative that reads no b) where a run may be in their
    // states and a chosen take's at once, once the alternatives' labels are joined: taken once too, they move with
    // it as one.
    def beside = JoinedLabels.joined(chosen, checks).beside
    next = candidates(chosen, checks, beside).headOption
    while (next.isDefined) {
      chosen = choose(chosen, next.get, checks)
      next = candidates(chosen, checks, beside).headOption
    }
    chosen
  }

  /** `chosen` with one more take chosen. */
  private def choose(chosen: Chosen, candidate: Candidate, checks: IndexedSeq[Check]): Chosen = {
    val Chosen(automaton, actions, judgements, takes, challenges, states) = chosen
    val Candidate(group, label, target, enabled, easiest) = candidate
    val guards = automaton.guards.length
    val bit = guards + checks.length + judgements.length
    val t = automaton.transitions(group.head).find(s => s.label == label && s.target == target).get
    // A take that binds and does nothing (label 0, read as a skip) gets a label of its own; one that drops registers
    // keeps what its checks read while its run waits in b' and W', where the challenges check it again.
    val (take, takeActions) =
      if (label == 0) (actions.length, Actions.None)
      else (label,
        actions(label).copy(drop = actions(label).drop -- enabled.map(_.reads).foldLeft(RegisterSet.None)(_ ++ _)))
    val withTake = if (label == 0) actions :+ takeActions else actions.updated(label, takeActions)
    // The challenge keeps the easiest b; where the take keeps none, it only moves the run as the take would.
    val challenge = withTake.length
    val after = waiting(automaton, target)
    val transitions = automaton.transitions.indices.map { q =>
      val own = automaton.transitions(q).map { s =>
        if (skip(s) && (group(q) || after(q))) s.copy(excludes = s.excludes :+ bit)
        else if (group(q) && s.label == label && s.target == target) s.copy(label = take)
        else s
      }
      if (after(q)) own :+ t.copy(label = challenge, target = target) else own
    }
    val added = if (label == 0) 2 else 1
    Chosen(
      new Nfa(
        transitions,
        automaton.finals,
        automaton.guards,
        automaton.labels ++ Seq.fill(added)(IndexedSeq.empty[Int]),
        automaton.conditions,
        automaton.scopes,
        automaton.atomOf,
        automaton.atoms,
        automaton.gaps
      ),
      withTake :+ easiest.fold(Actions.None)(e => Actions.None.copy(keepEasiest = Seq(e))),
      judgements :+ Judgement(bit, Seq(t.guard), enabled.map(_.copy(label = 0, phase = Phase.Before)), ofTake = true),
      takes + take,
      challenges + challenge,
      states ++ group ++ after
    )
  }

  /**
   * A take to choose: its states q and W (`group`), its label, its target b', the checks that decide whether it may
   * take an event (those of t but the ones that read a register still empty, which hold), and the easiest b it keeps
   * (none where it keeps no b, and only drops registers).
   */
  private final case class Candidate(group: Set[Int], label: Int, target: Int, enabled: Seq[Check],
      easiest: Option[Hardest])

  private def skip(t: Transition) = !t.reads && t.guard < 0 && t.checks.isEmpty

  /** A state and those its skips lead to, over and over. */
  private def waiting(nfa: Nfa, q: Int): Set[Int] = closure(nfa.transitions.map(_.filter(skip).map(_.target)))(q)

  /** Per state, itself and the states `edges` lead to from it, over and over. */
  private def closure(edges: IndexedSeq[Seq[Int]])(q: Int): Set[Int] = {
    var found = Set(q)
    var frontier = Seq(q)
    while (frontier.nonEmpty) {
      val next = frontier.flatMap(edges).filterNot(found).distinct
      found ++= next
      frontier = next
    }
    found
  }

  /**
   * The takes that may be chosen: with a label of their own that keeps an event or drops a register, or, among the
   * states `beside`, with label 0.
   */
  private def candidates(chosen: Chosen, checks: IndexedSeq[Check], beside: Set[Int]): Seq[Candidate] = {
    val Chosen(nfa, actions, judgements, takes, challenges, _) = chosen
    val guards = nfa.guards.length
    val all = for (q <- nfa.transitions.indices; t <- nfa.transitions(q)) yield (q, t)
    val judged = judgements.flatMap(_.checks).flatMap(_.sources).collect { case Source.Single(r) => r }.toSet
    val reachable: Int => Set[Int] = closure(nfa.transitions.map(_.map(_.target)))
    val reaching: Int => Set[Int] = closure(nfa.transitions.indices.map(q => all.filter(_._2.target == q).map(_._1)))
    /** The single register a label writes the event into, its first: by writing it, or as the hardest of none yet. */
    def written(a: Actions): Option[Int] =
      if (!a.reset.isEmpty || a.append.nonEmpty || a.accumulate.nonEmpty || a.keepEasiest.nonEmpty) None
      else (a.write, a.keepHardest) match {
        case (Seq(r), Seq()) => Some(r)
        case (Seq(), Seq(h)) => Some(h.register)
        case _ => None
      }
    def touches(a: Actions, r: Int) =
      a.write.contains(r) || a.keepHardest.exists(_.register == r) || a.keepEasiest.exists(_.register == r)
    /** The (condition, side) of the one order comparison that reads register r, if nothing else reads it. */
    def comparedBy(r: Int): Option[Hardest] = {
      val reads = checks.flatMap { c =>
        val condition = nfa.conditions(c.condition)
        c.sources.zip(condition.variables).collect { case (Source.Single(`r`), v) =>
          OrderComparison.of(condition).flatMap(_.sideOf(v)).map(c.condition -> _)
        }
      }
      val previous = checks.exists(_.slots.contains(SlotSource.Previous(r)))
      if (previous || judged(r) || reads.isEmpty || reads.exists(_.isEmpty) || reads.flatten.distinct.size != 1) None
      else reads.flatten.headOption.map { case (condition, side) => Hardest(r, condition, side) }
    }
    val marking = all.filter(_._2.marks)
    val byLabel = marking.groupBy(_._2.label)
    marking.groupBy { case (_, t) => (t.label, t.target) }.toSeq.sortBy(_._1).flatMap {
      case ((label, target), carried) =>
        val t = carried.head._2
        val group = carried.map(_._1).toSet
        val after = waiting(nfa, target)
        def readsOnly(q: Int) = nfa.transitions(q).forall(s => skip(s) || s.copy(from = t.from) == t)
        val own = if (label == 0) t.reads && group.exists(beside) else byLabel(label).size == carried.size
        val shaped = own && !takes(label) && !challenges(label) && nfa.labels(label).isEmpty && t.guard >= 0 &&
          !t.negated && t.excludes.isEmpty &&
          !nfa.finals(target) && !group.contains(Nfa.Initial) && group.exists(waiting(nfa, _) == group) &&
          carried.forall(_._2.copy(from = t.from) == t) && group.forall(readsOnly) &&
          // b' and W' entered only by the takes and their own skips, left only forward.
          all.forall { case (p, s) =>
            !after(s.target) || group(p) && s.label == label && s.target == target ||
            after(p) && skip(s)
          } &&
          all.forall { case (p, s) => !after(p) || skip(s) || !(after(s.target) || group(s.target)) } &&
          !reachable(target).exists(group)
        val keepsNothing = actions(label).copy(drop = RegisterSet.None).isEmpty
        val easiest = if (!shaped || keepsNothing) None
        else written(actions(label))
          .filter(r => actions.indices.forall(l => l == label || !touches(actions(l), r))).flatMap(comparedBy)
        // A check that reads a register no transition before q writes (a variable bound after b's) holds. Before q:
        // into a state from which q can be reached (q itself included).
        val before = group.flatMap(reaching)
        val comingTo = all.filter { case (_, s) => before(s.target) }.map(_._2.label).filter(_ >= 0)
        def emptyHere(r: Int) = comingTo.forall(l => !touches(actions(l), r))
        val enabled = t.checks.map(c => checks(c - guards))
          .filterNot(_.sources.exists { case Source.Single(r) => emptyHere(r); case _ => false })
        if (shaped && keepsNothing) Some(Candidate(group, label, target, enabled, None))
        else easiest.map(e => Candidate(group, label, target, enabled, Some(e)))
    }
  }
}
