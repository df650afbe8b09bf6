package io.sparkcer.engine.automaton

import io.sparkcer.engine.ceql.{Cel, Condition, Exclusion, Filter}

/**
 * A predicate a guard asks of an event: a `var[predicate]` (or a condition over one event, `s.volume > 5`, read as
 * one), or its negation, where a FILTER's NOT was pushed down to it.
 */
final case class EventPredicate(filter: Filter.OnVariable, negated: Boolean) {
  def text: String = (if (negated) "NOT " else "") + filter.text
  override def toString: String = text
}

/**
 * What one atom asks of an event: its type, optionally its stream, and the filters pushed down onto it
 * (all must hold). Guards are evaluated once per event into a bit vector, the event's symbol.
 */
final case class Guard(stream: Option[String], eventType: String, predicates: Seq[EventPredicate]) {
  override def toString: String =
    stream.fold("")(_ + ">") + eventType + predicates.map(p => s"[${p.text}]").mkString
}

/**
 * A transition of the complex event automaton. `guard` indexes the guard list (-1: any event), `negated` reads
 * events that fail the guard (CORE's NOT). `label` is the output label of a marking transition, -1 for a
 * transition that reads an event without adding it to the match.
 *
 * Conditions relating events add three things ([[io.sparkcer.engine.rma]]): `checks`, further bits of the symbol
 * that must all be set (a condition placed on this transition held); `resets`, the register scopes the transition
 * enters afresh (a new iteration of a filtered sub-pattern); and `from`, the atom a transition that reads an event
 * into an atom leaves (-1: none, the match begins), which under AND is not the atom of its source state.
 *
 * `excludes` are guards the event must fail: a skip between the two operands of `φ ; NONE(...) ; ψ` passes by any
 * event but those the NONE excludes ([[Gap]]), so that a run waiting there dies on one. `judges` are the NONEs (indices
 * in [[Nfa.gaps]]) whose conditions relate their event to the events before it: the skip passes by no event such a
 * NONE excludes, which only the run's registers tell, so the registers' automaton makes each a further bit of the
 * symbol that `excludes` names ([[io.sparkcer.engine.rma.Placement]]).
 */
final case class Transition(guard: Int, negated: Boolean, label: Int, target: Int, checks: Seq[Int] = Nil,
    resets: Seq[Int] = Nil, from: Int = -1, excludes: Seq[Int] = Nil, judges: Seq[Int] = Nil) {
  /** Whether the transition reads the event into an atom (marking it, or as a NOT), rather than skipping it. */
  def reads: Boolean = marks || negated
  def marks: Boolean = label >= 0
  def enabledBy(symbol: Array[Long]): Boolean =
    (guard < 0 || SymbolTable.has(symbol, guard) != negated) && checks.forall(SymbolTable.has(symbol, _)) &&
      !excludes.exists(SymbolTable.has(symbol, _))
}

/**
 * One atom of the pattern, which the automaton's states and transitions refer to by its number (from 1): the guard an
 * event must pass (or fail, under NOT), the label of the event it binds, and the variables it binds (its type and the
 * AS names around it).
 */
final case class AtomSpec(guard: Int, negated: Boolean, label: Int, variables: Seq[String])

/**
 * Where a condition relating events applies: the atoms of the sub-pattern it filters (its scope), with the variables
 * each of them binds within it, and the atoms a match of the scope may begin with.
 *
 * @param condition the condition's index in [[Nfa.conditions]]
 * @param body      the filtered sub-pattern
 * @param repeats   whether it lies inside an iteration, so that a match may enter it again, afresh
 * @param candidate for a condition of a NONE(...), the NONE's event, which no atom binds: the scope is then the operand
 *                  before the NONE, whose events the condition reads from the registers when a candidate comes, on the
 *                  skips of the gap ([[Gap]]) rather than on the scope's atoms
 */
final case class Scope(condition: Int, body: Cel, atoms: Set[Int], bindings: Map[Int, Seq[String]], first: Set[Int],
    repeats: Boolean, candidate: Option[String] = None)

/**
 * A `NONE(...)` of the pattern: between an event read into one of the atoms `before` and the next one read into one of
 * `after`, no event may pass one of `guards` (its types, with the tests of that event alone) and satisfy each of
 * `conditions` (those relating it, as `variable`, to the match's events: indices in [[Nfa.conditions]]). Without
 * conditions the automaton's skips between the two atoms exclude such events themselves (`excludes`); with them the
 * events can only be judged against the match's. Where the conditions name only variables bound before the NONE, those
 * events are in a run's registers when a candidate comes, and the skips judge it there (`judges`), each condition
 * reading the registers of its scope (`scopes`, one per condition, in [[Nfa.scopes]]). Where they name variables
 * bound after it (`later`), only the lazy chain, which judges buffered candidates once the events around them are
 * chosen, takes the NONE ([[io.sparkcer.engine.chain.ChainPlan]]).
 */
final case class Gap(before: Set[Int], after: Set[Int], guards: Seq[Int], conditions: Seq[Int], variable: String,
    exclusion: Exclusion, later: Seq[String] = Nil, scopes: Seq[Int] = Nil) {
  def onAutomaton: Boolean = conditions.isEmpty
  /** Whether the registers judge its events: it has conditions, and they name no variable bound after it. */
  def onRegisters: Boolean = !onAutomaton && later.isEmpty
}

/**
 * A non-deterministic complex event automaton with labelled marks (CORE §3). State 0 is the initial state; its
 * only incoming transition is its own any-event loop, which stands for "no match has started yet".
 * `labels(l)` lists the output variables that an event marked with label l is bound to.
 */
final class Nfa(
    val transitions: IndexedSeq[IndexedSeq[Transition]],
    val finals: IndexedSeq[Boolean],
    val guards: IndexedSeq[Guard],
    val labels: IndexedSeq[IndexedSeq[Int]],
    val conditions: IndexedSeq[Condition] = IndexedSeq.empty,
    val scopes: IndexedSeq[Scope] = IndexedSeq.empty,
    val atomOf: IndexedSeq[Int] = IndexedSeq.empty,
    val atoms: IndexedSeq[AtomSpec] = IndexedSeq.empty,
    val gaps: IndexedSeq[Gap] = IndexedSeq.empty) {
  def stateCount: Int = transitions.length
  def symbolWords: Int = math.max(1, (guards.length + 63) >>> 6)
  /**
   * Whether conditions relate events (a FILTER's, or a NONE's on the variables before it): the pattern then runs with
   * registers ([[io.sparkcer.engine.rma]]).
   */
  def hasRegisters: Boolean = scopes.nonEmpty

  /**
   * Per state, whether a run there may still read an event: some state its skips lead to (itself included) has a
   * transition that reads. A final state's trailing skips lead to none: there a match has ended.
   */
  lazy val readsAhead: IndexedSeq[Boolean] = {
    val reads = Array.tabulate(stateCount)(q => transitions(q).exists(_.reads))
    var changed = true
    while (changed) {
      changed = false
      for (q <- transitions.indices if !reads(q); t <- transitions(q) if reads(t.target)) {
        reads(q) = true; changed = true
      }
    }
    reads.toIndexedSeq
  }

  /**
   * Whether an event that satisfies no guard leaves every run as it is: each state either reads nothing more
   * (a final state at the end of the pattern) or only skips such an event, into a waiting state that reads the
   * same events as itself (a NONE's skip passes them too: they are no NONE's candidates). Dropping such events from
   * the stream then changes no run. Not so with `:`, `:+`, NOT or STRICT, which forbid or read the events in between.
   */
  def skipsUnguardedEvents: Boolean = {
    def guarded(q: Int) = transitions(q).filter(_.guard >= 0).toSet
    !transitions.exists(_.exists(_.negated)) && transitions.indices.forall { q =>
      transitions(q).isEmpty || (transitions(q).filter(_.guard < 0) match {
        case Seq(Transition(_, _, -1, w, _, _, _, excludes, judges)) =>
          guarded(w) == guarded(q) && transitions(w).filter(_.guard < 0) ==
            Seq(Transition(-1, negated = false, -1, w, excludes = excludes, judges = judges))
        case _ => false
      })
    }
  }

  override def toString: String = {
    val lines = for {
      (ts, from) <- transitions.zipWithIndex
      t <- ts
    } yield {
      val read = (if (t.guard < 0) "TRUE" else (if (t.negated) "NOT " else "") + guards(t.guard)) +
        t.checks.map(c => s" ✓$c").mkString +
        // Past the guards, a bit of the registers' automaton: a NONE's judgement.
        t.excludes.map(g => s" but ${if (g < guards.length) guards(g).toString else s"✗$g"}").mkString +
        t.judges.map(g => s" but NONE(${gaps(g).variable})").mkString
      val mark = if (t.marks) s"•${labels(t.label).mkString("{", ",", "}")}" else "∘"
      s"  q$from --$read/$mark--> q${t.target}${if (finals(t.target)) " (final)" else ""}"
    }
    s"CEA with $stateCount states, ${guards.length} guards\n${lines.mkString("\n")}"
  }
}

object Nfa {
  final val Initial = 0
}
