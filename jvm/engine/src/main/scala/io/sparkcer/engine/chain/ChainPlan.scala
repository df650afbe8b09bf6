package io.sparkcer.engine.chain

import io.sparkcer.engine.analysis.AnalyzedQuery
import io.sparkcer.engine.automaton.{AtomSpec, Gap, Nfa}
import io.sparkcer.engine.ceql.{Cel, Consumption, Strategy}

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
 * @param conditions per condition of the automaton, the atom of each of its variables (-1: a NONE's event)
 * @param gaps       the NONEs, in the order of the atoms they follow
 */
final case class ChainPlan(atoms: IndexedSeq[AtomSpec], ordered: Boolean, conditions: IndexedSeq[IndexedSeq[Int]],
    gaps: IndexedSeq[ChainGap] = IndexedSeq.empty) {
  def describe: String = {
    val names = atoms.indices.map { i =>
      atoms(i).variables.lastOption.getOrElse("?") +
        gaps.filter(_.atom == i).map(g => s" ; NONE(${g.variable})").mkString
    }
    val shape = if (ordered) names.mkString(" ; ") else names.mkString(" AND ")
    s"lazy chain over $shape: events buffered per atom${if (gaps.isEmpty) "" else " and per NONE"}, and at each " +
      "event that can end a match the buffers are searched rarest first (lazy chain NFA)"
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

  /**
   * The chain of a pattern with conditions relating events, where it has that shape and its clauses allow it: SELECT
   * ALL without LIMIT (every combination is reported, as the paper's skip-till-any-match), no CONSUME BY, and a window
   * (the buffers keep the events inside it).
   */
  def of(analyzed: AnalyzedQuery, nfa: Nfa): Option[ChainPlan] = {
    val query = analyzed.query
    if (nfa.conditions.isEmpty || query.strategy != Strategy.All || query.limit.isDefined ||
      query.consumeBy != Consumption.Nothing || analyzed.window.isEmpty) return None
    shape(query.pattern).flatMap { case (ordered, count) =>
      val atoms = nfa.atoms
      val single = atoms.length == count && atoms.forall(a => !a.negated)
      // Each variable of a condition must be bound by exactly one atom: then it stands for one event of the match,
      // and the condition compares single events (a variable of two atoms, `A AS v ; B AS v`, is aggregated instead).
      // A NONE's event stands for itself (-1).
      val candidates = nfa.gaps.flatMap(g => g.conditions.map(_ -> g.variable)).toMap
      val conditions = nfa.conditions.indices.map { c =>
        nfa.conditions(c).variables.map { v =>
          if (candidates.get(c).contains(v)) IndexedSeq(-1) else atoms.indices.filter(atoms(_).variables.contains(v))
        }
      }
      val gaps = nfa.gaps.map(gap)
      if (single && nfa.conditions.forall(_.slots.isEmpty) && conditions.forall(_.forall(_.size == 1)) &&
        gaps.forall(_.isDefined))
        Some(ChainPlan(atoms, ordered, conditions.map(_.map(_.head).toIndexedSeq), gaps.flatten.sortBy(_.atom)))
      else None
    }
  }

  /** A NONE between two neighbouring atoms (numbered from 1 in the automaton, from 0 in the chain). */
  private def gap(g: Gap): Option[ChainGap] =
    if (g.before.size == 1 && g.after == Set(g.before.head + 1))
      Some(ChainGap(g.before.head - 1, g.guards, g.conditions.toIndexedSeq, g.variable))
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
