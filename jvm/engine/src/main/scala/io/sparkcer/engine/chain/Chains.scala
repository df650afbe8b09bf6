package io.sparkcer.engine.chain

import java.io.{DataInput, DataOutput}

import io.sparkcer.engine.analysis.AnalyzedQuery
import io.sparkcer.engine.automaton.{AtomSpec, Nfa, NfaCompiler}
import io.sparkcer.engine.ceql.{Cel, Consumption, Strategy}
import io.sparkcer.engine.eval.{EventReader, EventRing, MatchBound, Run, Work}
import io.sparkcer.engine.eval.MatchSink

/**
 * What the lazy chain evaluates: one chain ([[ChainPlan]]), or an OR of chains, each alternative a chain of its own,
 * as the lazy chain NFA paper evaluates a disjunction (one chain NFA per disjunct, their matches united). CEQL writes
 * the OR in the pattern (`(A AS a ; B AS b) OR (C AS c ; B AS b) FILTER ...`), and a FILTER whose filters are joined
 * by OR makes one too (CORE's semantics: `φ FILTER f OR g` is `(φ FILTER f) OR (φ FILTER g)`, as the automaton
 * reads it: [[NfaCompiler.expandFilters]]).
 *
 * An OR is a union of sets of matches: a match two alternatives both have is one match. Where an earlier alternative
 * binds the same variables, atom for atom, a match of a later one is reported only if the earlier does not have it
 * too (each of its events in the earlier's buffer of the same atom, in its order, the earlier's conditions holding):
 * a check of the match's own events, so nothing is enumerated to be thrown away.
 *
 * @param alternatives the chains, in the pattern's order
 */
final case class Chains(alternatives: IndexedSeq[ChainPlan]) {
  def describe: String =
    if (alternatives.length == 1) alternatives.head.describe
    else s"an OR of ${alternatives.length} lazy chains (${alternatives.map(_.written).mkString(", ")}), each match " +
      s"reported once: ${ChainPlan.Method}"

  def labelledAs(from: Nfa, to: Nfa): Chains = Chains(alternatives.map(_.labelledAs(from, to)))

  /** The chains' run over a partition's events. */
  def newRun[E <: AnyRef](reader: EventReader[E], events: EventRing[E], work: Work, bound: MatchBound): Run =
    if (alternatives.length == 1) new ChainRun(alternatives.head, reader, events, work, bound)
    else new ChainAlternativesRun(this, reader, events, work, bound)

  /**
   * Where alternative `j` may have the matches of alternative `k`: they bind the same variables, each atom of `k` as one
   * atom of `j` does (in any order: `(A AS a AND B AS b) OR (B AS b ; A AS a)`), and an atom is a witness in one where
   * it is in the other ([[ChainPlan.witnesses]]: `j` is asked about `k`'s match on the events of the others only). Per
   * atom of `k`, that atom of `j`.
   */
  private[chain] def correspondence(j: Int, k: Int): Option[Array[Int]] = {
    val (a, b) = (bindings(j), bindings(k))
    if (a.distinct.length == a.length && a.length == b.length && a.toSet == b.toSet) {
      val atomOf = b.map(a.indexOf).toArray
      def witness(alternative: Int, atom: Int) = alternatives(alternative).witnesses.contains(atom)
      Option.when(b.indices.forall(i => witness(k, i) == witness(j, atomOf(i))))(atomOf)
    } else None
  }

  /**
   * Per alternative k, each earlier alternative that may have its matches, with its atom for each of k's
   * ([[correspondence]]): found once for the query, not for each partition's run.
   */
  private[chain] lazy val sharing: IndexedSeq[IndexedSeq[(Int, Array[Int])]] =
    alternatives.indices.map(k => (0 until k).flatMap(j => correspondence(j, k).map(j -> _)))

  /**
   * Whether two alternatives may report one row, where no atom-to-atom check tells whether one has the other's match
   * (two atoms binding none, or atoms that differ only in variables no row shows, `(A ; B AS b ; C) OR (A ; D AS b ;
   * C)` under `SELECT a, c`): their rows are then de-duplicated instead. A row shows the events of the variables
   * `selected` gives per atom; two alternatives whose atoms give different ones report different rows.
   */
  def mayRepeatRows(selected: AtomSpec => Set[Int]): Boolean = alternatives.indices.exists { k =>
    def shown(k: Int) = counted(alternatives(k).atoms.map(selected).filter(_.nonEmpty))
    (0 until k).exists(j => correspondence(j, k).isEmpty && shown(j) == shown(k))
  }

  /** Per atom of alternative k, the variables it binds. */
  private def bindings(k: Int): IndexedSeq[Set[String]] = alternatives(k).atoms.map(_.variables.toSet)
  private def counted[T](atoms: IndexedSeq[T]): Map[T, Int] = atoms.groupBy(identity).map { case (v, a) =>
    v -> a.length
  }
}

object Chains {

  /**
   * The chains of a pattern with conditions relating events, where each alternative of its OR (or the pattern itself)
   * has a chain's shape and its clauses allow it: SELECT ALL without LIMIT (every combination is reported, as the
   * paper's skip-till-any-match), no CONSUME BY, and a window (the buffers keep the events inside it).
   */
  def of(analyzed: AnalyzedQuery, nfa: Nfa): Option[Chains] = {
    val query = analyzed.query
    if (nfa.conditions.isEmpty || query.strategy != Strategy.All || query.limit.isDefined ||
      query.consumeBy != Consumption.Nothing || analyzed.window.isEmpty) return None
    // The pattern as the automaton is built from it: a FILTER's OR made an OR of the pattern's copies, whose atoms the
    // automaton numbers in the pattern's order.
    val bodies = alternatives(NfaCompiler.expandFilters(query.pattern))
    val counts = bodies.map(atoms)
    if (counts.sum != nfa.atoms.length) return None
    val plans = bodies.indices.map(k => ChainPlan.alternative(bodies(k), counts.take(k).sum, nfa))
    // An iteration's subsets are not checked against another chain's matches ([[ChainRun.has]]): alone only.
    val iterationAlone = plans.length == 1 || plans.forall(_.forall(_.iteration.isEmpty))
    if (plans.forall(_.isDefined) && iterationAlone) Some(Chains(plans.map(_.get))) else None
  }

  /** The alternatives of an OR, through the FILTER and AS that apply to all of them; the pattern alone otherwise. */
  private def alternatives(cel: Cel): Seq[Cel] = cel match {
    case Cel.Or(a, b, _) => alternatives(a) ++ alternatives(b)
    case Cel.Filtered(b, _, _) => val inner = alternatives(b); if (inner.length > 1) inner else Seq(cel)
    case Cel.Bind(b, _, _) => val inner = alternatives(b); if (inner.length > 1) inner else Seq(cel)
    case _ => Seq(cel)
  }

  /** The atoms of a formula, as the automaton counts them (a NOT reads an event too). */
  private def atoms(cel: Cel): Int = cel match {
    case _: Cel.Atom | _: Cel.Not => 1
    case Cel.Filtered(b, _, _) => atoms(b)
    case Cel.Bind(b, _, _) => atoms(b)
    case Cel.Iteration(b, _, _) => atoms(b)
    case Cel.Sequence(a, b, _, _, _) => atoms(a) + atoms(b)
    case Cel.Or(a, b, _) => atoms(a) + atoms(b)
    case Cel.And(a, b, _) => atoms(a) + atoms(b)
  }
}

/**
 * An OR of chains on one partition: each alternative's [[ChainRun]] reads every event, in the pattern's order, and
 * reports the matches that no earlier alternative has ([[Chains]]). Per event, the work of the alternatives together.
 */
private final class ChainAlternativesRun[E <: AnyRef](chains: Chains, reader: EventReader[E], events: EventRing[E],
    work: Work, bound: MatchBound)
    extends Run {
  private val runs: Array[ChainRun[E]] = {
    val built = new Array[ChainRun[E]](chains.alternatives.length)
    for (k <- built.indices) {
      // Per earlier alternative that may have this one's matches: its run, and its atom for each of this one's.
      val earlier = chains.sharing(k).map { case (j, atomOf) => built(j) -> atomOf }.toArray
      val asEarlier = new Array[Long](chains.alternatives(k).atoms.length)
      built(k) = new ChainRun(
        chains.alternatives(k),
        reader,
        events,
        work,
        bound,
        reportedBefore =
          if (earlier.isEmpty) ChainRun.Unshared
          else byAtom =>
            earlier.exists { case (run, atomOf) =>
              var i = 0
              while (i < byAtom.length) { asEarlier(atomOf(i)) = byAtom(i); i += 1 }
              run.has(asEarlier)
            }
      )
    }
    built
  }

  def liveNodes: Int = 0
  def maxOutputDepth: Int = 0
  def activeStates: Int = {
    var held = 0
    var k = 0
    while (k < runs.length) { held += runs(k).activeStates; k += 1 }
    held
  }

  def read(position: Long, symbol: Int, bits: Array[Long], key: Long, threshold: Long, sink: MatchSink): Int = {
    var found = 0
    var k = 0
    while (k < runs.length) { found += runs(k).read(position, symbol, bits, key, threshold, sink); k += 1 }
    found
  }

  def expire(threshold: Long): Unit = runs.foreach(_.expire(threshold))
  def save(out: DataOutput): Unit = runs.foreach(_.save(out))
  def load(in: DataInput): Unit = runs.foreach(_.load(in))
}
