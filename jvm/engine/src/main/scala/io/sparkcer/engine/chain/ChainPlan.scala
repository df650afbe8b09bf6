package io.sparkcer.engine.chain

import io.sparkcer.engine.automaton.{AtomSpec, Gap, Nfa}
import io.sparkcer.engine.ceql.Cel

/**
 * A pattern the lazy chain evaluates ([[ChainRun]]): a sequence (SEQ) or a conjunction (AND) of single events, each
 * bound to variables no other atom binds, under a window, related by conditions. These are the patterns of the lazy
 * chain NFA paper (Kolchinsky and Schuster, §4.1 and §4.2) that CEQL writes `A AS a ; B AS b ; C AS c` and
 * `A AS a AND B AS b`.
 *
 * A sequence may hold NONE(...) between two atoms (the paper's negation, §4.3: `SEQ(A a, !(B b), C c)`), whose
 * events are buffered too and judged once the match's events around them are chosen ([[ChainGap]]).
 *
 * @param atoms      the atoms, in the pattern's order
 * @param ordered    SEQ (the events come in the atoms' order) rather than AND (in any order)
 * @param conditions per condition of the automaton, the atom of each of its variables (-1: a NONE's event); none where
 *                   the condition does not apply to this chain (an alternative of an OR that the condition's FILTER does
 *                   not cover, or that binds none of the events of one of its variables: it then holds vacuously)
 * @param gaps       the NONEs, in the order of the atoms they follow
 */
final case class ChainPlan(atoms: IndexedSeq[AtomSpec], ordered: Boolean, conditions: IndexedSeq[IndexedSeq[Int]],
    gaps: IndexedSeq[ChainGap] = IndexedSeq.empty) {
  def describe: String = s"lazy chain over $written: ${ChainPlan.Method}" +
    (if (gaps.isEmpty) "" else "; each NONE's events buffered too, a combination with one between its neighbours' rejected")

  /** The chain as CEQL writes it, by its variables: `a ; NONE(n) ; b ; c`. */
  def written: String = {
    val names = atoms.indices.map(i =>
      atoms(i).variables.lastOption.getOrElse("?") + gaps.filter(_.atom == i).map(g => s" ; NONE(${g.variable})").mkString)
    if (ordered) names.mkString(" ; ") else names.mkString(" AND ")
  }

  /**
   * The chain with its atoms' labels taken from another automaton of the same pattern, whose labels bind the same
   * variables under other numbers (the registers' automaton numbers its labels by their actions too).
   */
  def labelledAs(from: Nfa, to: Nfa): ChainPlan =
    copy(atoms = atoms.map(a => a.copy(label = to.labels.indexOf(from.labels(a.label)))))
}

/**
 * A NONE(...) between atoms `atom` and `atom + 1` of a sequence: no event between theirs passes one of `guards` and
 * satisfies each of `conditions` (indices in [[ChainPlan.conditions]]), where the NONE's event is `variable`.
 */
final case class ChainGap(atom: Int, guards: Seq[Int], conditions: IndexedSeq[Int], variable: String)

object ChainPlan {
  /** How a chain is evaluated, for EXPLAIN. */
  val Method = "events buffered per atom, and at each event that can end a match the buffers are searched rarest " +
    "first (lazy chain NFA)"

  /**
   * The chain of one alternative of a pattern with conditions relating events: `body`, whose atoms are the automaton's
   * `atoms` from index `from` on, where it is a sequence or conjunction of single events none of which is negated, and
   * each condition that applies to it (a scope of it holds one of its atoms) names variables each bound by exactly one
   * of its atoms. A condition naming a variable the alternative does not bind holds vacuously there (no combination of
   * events to check, as in CEL's semantics of an OR's FILTER), so it is left out.
   */
  private[chain] def alternative(body: Cel, from: Int, nfa: Nfa): Option[ChainPlan] =
    shape(body).flatMap { case (ordered, count) =>
      val atoms = nfa.atoms.slice(from, from + count)
      val numbers = (from + 1 to from + count).toSet // the scopes number atoms from 1
      def applies(c: Int) = nfa.scopes.exists(s => s.condition == c && (s.atoms & numbers).nonEmpty)
      // Each variable of a condition must be bound by exactly one atom: then it stands for one event of the match,
      // and the condition compares single events (a variable of two atoms, `A AS v ; B AS v`, is aggregated instead).
      // A NONE's event stands for itself (-1) in the conditions of this alternative's NONEs.
      val gaps = nfa.gaps.filter(_.before.subsetOf(numbers))
      val candidates = gaps.flatMap(g => g.conditions.map(_ -> g.variable)).toMap
      val bindings = nfa.conditions.indices.map { c =>
        def atomsOf(v: String) = atoms.indices.filter(atoms(_).variables.contains(v))
        if (candidates.contains(c)) nfa.conditions(c).variables.map(v => if (v == candidates(c)) IndexedSeq(-1) else atomsOf(v))
        else if (applies(c)) nfa.conditions(c).variables.map(atomsOf)
        else Nil
      }
      val chained = gaps.map(gap(_, from))
      val single = atoms.length == count && atoms.forall(a => !a.negated)
      if (single && nfa.conditions.forall(_.slots.isEmpty) && bindings.forall(_.forall(_.size <= 1)) &&
        chained.forall(_.isDefined))
        Some(ChainPlan(atoms, ordered, bindings.map(b => if (b.forall(_.size == 1)) b.map(_.head).toIndexedSeq else IndexedSeq.empty),
          chained.flatten.sortBy(_.atom)))
      else None
    }

  /** A NONE between two neighbouring atoms (numbered from 1 in the automaton, from 0 in the chain after `from`). */
  private def gap(g: Gap, from: Int): Option[ChainGap] =
    if (g.before.size == 1 && g.after == Set(g.before.head + 1))
      Some(ChainGap(g.before.head - 1 - from, g.guards, g.conditions.toIndexedSeq, g.variable))
    else None

  /** (ordered, number of atoms) of a SEQ or an AND of atoms, with FILTER and AS anywhere; None for any other shape. */
  private def shape(cel: Cel): Option[(Boolean, Int)] = cel match {
    case _: Cel.Atom => Some((true, 1))
    case Cel.Filtered(b, _, _) => shape(b)
    case Cel.Bind(b, _, _) => shape(b)
    case Cel.Sequence(a, b, false, _, _) => both(a, b, ordered = true)
    case Cel.And(a, b, _) => both(a, b, ordered = false)
    case _ => None
  }

  private def both(a: Cel, b: Cel, ordered: Boolean): Option[(Boolean, Int)] =
    for ((o1, n1) <- shape(a); (o2, n2) <- shape(b) if (n1 == 1 || o1 == ordered) && (n2 == 1 || o2 == ordered))
      yield (ordered, n1 + n2)
}
