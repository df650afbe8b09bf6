package io.sparkcer.engine.chain

import io.sparkcer.engine.automaton.{AtomSpec, Gap, Nfa}
import io.sparkcer.engine.ceql.{Cel, Condition, SlotFunction}
import io.sparkcer.engine.expr.{ComparisonOp, Expr, ExprParser}
import io.sparkcer.engine.syntax.PatternException

/**
 * A pattern the lazy chain evaluates ([[ChainRun]]): a sequence (SEQ) or a conjunction (AND) of single events, each
 * bound to variables no other atom binds, under a window, related by conditions. These are the patterns of the lazy
 * chain NFA paper (Kolchinsky and Schuster, §4.1 and §4.2) that CEQL writes `A AS a ; B AS b ; C AS c` and
 * `A AS a AND B AS b`.
 *
 * A sequence may hold NONE(...) between two atoms (the paper's negation, §4.3: `SEQ(A a, !(B b), C c)`), whose
 * events are buffered too and judged once the match's events around them are chosen ([[ChainGap]]); or, without
 * NONEs, one iterated atom (the paper's iteration, §4.5: `SEQ(A a, B+ b[], C c)`, CEQL's `A AS a ; (B AS b)+ ; C AS c`),
 * whose events are buffered as any atom's and taken as subsets ([[ChainIteration]]).
 *
 * @param atoms      the atoms, in the pattern's order
 * @param ordered    SEQ (the events come in the atoms' order) rather than AND (in any order)
 * @param conditions per condition of the automaton, the atom of each of its variables (-1: a NONE's event); none where
 *                   the condition does not apply to this chain (an alternative of an OR that the condition's FILTER does
 *                   not cover, or that binds none of the events of one of its variables: it then holds vacuously)
 * @param gaps       the NONEs, in the order of the atoms they follow
 * @param iteration  the iterated atom of a sequence, if it has one
 * @param witnesses  the atoms strictly inside a sequence without iteration that no selected variable binds: a row
 *                   (the selected events, its first and its last) needs one event of each that fits, not each of
 *                   them, so the search looks for one ([[UnselectedAtomWitnesses]]) rather than reporting the row
 *                   once per event
 */
final case class ChainPlan(atoms: IndexedSeq[AtomSpec], ordered: Boolean, conditions: IndexedSeq[IndexedSeq[Int]],
    gaps: IndexedSeq[ChainGap] = IndexedSeq.empty, iteration: Option[ChainIteration] = None,
    witnesses: IndexedSeq[Int] = IndexedSeq.empty) {
  def describe: String = s"lazy chain over $written: ${ChainPlan.Method}" +
    (if (gaps.isEmpty) ""
     else "; each NONE's events buffered too, a combination with one between its neighbours' rejected") +
    iteration.fold("")(i =>
      s"; then every subset of ${i.variable}'s events between its neighbours' enumerated" +
        (if (i.largest < Int.MaxValue) s" up to ${i.largest} events (count(${i.variable}))" else "") +
        ", its aggregates kept running as each event is added (the paper's iterate edge)") +
    (if (witnesses.isEmpty) ""
     else s"; one event of ${witnesses.map(atoms(_).variables.lastOption.getOrElse("?")).mkString(", ")} found per " +
       "match, not one match per event (no selected variable binds them), and what was found kept for the rows after")

  /** Whether atom `i` is the first or the last of a sequence: its event is the row's start or end, selected or not. */
  def bounds(i: Int): Boolean = ordered && (i == 0 || i == atoms.length - 1)

  /** Per NONE, the atoms whose events it is judged against: the two around it and those its conditions name. */
  lazy val judgedWith: IndexedSeq[IndexedSeq[Int]] = gaps.map(g =>
    (Seq(g.atom, g.atom + 1) ++ g.conditions.flatMap(conditions(_)).filter(_ >= 0)).distinct.sorted.toIndexedSeq)

  /** The chain as CEQL writes it, by its variables: `a ; NONE(n) ; b+ ; c`. */
  def written: String = {
    val names = atoms.indices.map(i =>
      atoms(i).variables.lastOption.getOrElse("?") + (if (iteration.exists(_.atom == i)) "+" else "") +
        gaps.filter(_.atom == i).map(g => s" ; NONE(${g.variable})").mkString)
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
 * The iterated atom of a sequence, `(B AS b)+`: a match takes a non-empty subset of its buffered events between its
 * neighbours' events, in stream order, that satisfies the conditions naming b. CEQL reads a condition on a repeating
 * variable over all its events at once, as the RMA paper's n-ary FILTER does (§5): aggregates over them, and every event where it names b.attr.
 * Each condition naming b is of one of three kinds, by how soon a subset can be judged on it:
 *
 * @param atom        its index in the chain
 * @param variable    the variable it binds, for EXPLAIN
 * @param eachEvent   conditions naming b.attr, without aggregates or prev: each event of the subset satisfies them (with
 *                    the other atoms' events), so an event that fails them is in no subset
 * @param consecutive conditions with prev(b.attr), naming no other variable: each event of the subset but the first
 *                    satisfies them with the one before it, so a pair that fails them is in no subset
 * @param whole       conditions with aggregates of b: the subset as a whole satisfies them (each of its events too, where
 *                    they also name b.attr)
 * @param aggregates  the aggregates of the `whole` conditions, as (condition, slot): one running state each
 * @param slots       per condition of the automaton, how many slots (aggregates, prev) it has
 * @param largest     the most events a subset may have: a `whole` condition `count(b) <= k` (or `<`, `=`) fails on
 *                    every subset larger than k, and a larger subset only grows from one of k events
 */
final case class ChainIteration(atom: Int, variable: String, eachEvent: IndexedSeq[Int], consecutive: IndexedSeq[Int],
    whole: IndexedSeq[Int], aggregates: IndexedSeq[(Int, Int)], slots: IndexedSeq[Int], largest: Int = Int.MaxValue) {
  def conditions: Set[Int] = (eachEvent ++ consecutive ++ whole).toSet
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
   * `atoms` from index `from` on, where it is a sequence or conjunction of single events none of which is negated (a
   * sequence may iterate one of them, [[ChainIteration]]), and each condition that applies to it (a scope of it holds
   * one of its atoms) names variables each bound by exactly one of its atoms. A condition naming a variable the
   * alternative does not bind holds vacuously there (no combination of events to check, as in CEL's semantics of an
   * OR's FILTER), so it is left out.
   */
  private[chain] def alternative(body: Cel, from: Int, nfa: Nfa): Option[ChainPlan] =
    shape(body).flatMap { case Shape(ordered, count, iterated) =>
      val atoms = nfa.atoms.slice(from, from + count)
      val numbers = (from + 1 to from + count).toSet // the scopes number atoms from 1
      def applies(c: Int) = nfa.scopes.exists(s => s.condition == c && (s.atoms & numbers).nonEmpty)
      def atomsOf(v: String) = atoms.indices.filter(atoms(_).variables.contains(v))
      // Each variable of a condition must be bound by exactly one atom: then it stands for one event of the match
      // (or, the iterated atom's, for each event of the subset), and the condition compares single events (a
      // variable of two atoms, `A AS v ; B AS v`, is aggregated instead).
      // A NONE's event stands for itself (-1) in the conditions of this alternative's NONEs.
      val gaps = nfa.gaps.filter(_.before.subsetOf(numbers))
      val candidates = gaps.flatMap(g => g.conditions.map(_ -> g.variable)).toMap
      val bindings = nfa.conditions.indices.map { c =>
        if (candidates.contains(c))
          nfa.conditions(c).variables.map(v => if (v == candidates(c)) IndexedSeq(-1) else atomsOf(v))
        else if (applies(c)) nfa.conditions(c).variables.map(atomsOf)
        else Nil
      }
      val chained = gaps.map(gap(_, from))
      val single = atoms.length == count && atoms.forall(a => !a.negated)
      val iteration = iterated.map(iterationOf(_, atoms, nfa, nfa.conditions.indices.filter(applies), numbers))
      val slotsFit = iteration.fold(nfa.conditions.forall(_.slots.isEmpty))(_.isDefined)
      if (single && slotsFit && bindings.forall(_.forall(_.size <= 1)) && chained.forall(_.isDefined) &&
        (iterated.isEmpty || gaps.isEmpty)) {
        val plan = ChainPlan(
          atoms,
          ordered,
          bindings.map(b => if (b.forall(_.size == 1)) b.map(_.head).toIndexedSeq else IndexedSeq.empty),
          chained.flatten.sortBy(_.atom),
          iteration.flatten
        )
        // An event no selected variable binds, between the first and the last (which name the row's start and end).
        Some(
          if (!ordered || iterated.isDefined) plan
          else plan.copy(witnesses = atoms.indices.filter(i => !plan.bounds(i) && nfa.labels(atoms(i).label).isEmpty)))
      } else None
    }

  /**
   * The iteration of atom `k` of a sequence, where its events are selected, each condition of the alternative
   * (`applying`) that names its variable is of one of [[ChainIteration]]'s kinds, naming it by one name, with
   * aggregates and prev over it only (the others have none), and none lies inside the iteration (a FILTER under the
   * `+` would apply to each iteration apart). Unselected, every subset with the same other events would be one row,
   * found again and dropped for each subset: the registers keep one run for them (or the hardest event).
   * Named twice (`(B+) AS b FILTER B.x <= b.x`), a condition relates every pair of the subset's events, not each one.
   */
  private def iterationOf(k: Int, atoms: IndexedSeq[AtomSpec], nfa: Nfa, applying: IndexedSeq[Int],
      numbers: Set[Int]): Option[ChainIteration] = {
    // Its own variables: those no other atom binds too (its type's name may be another atom's).
    val mine = atoms(k).variables.toSet -- atoms.indices.filter(_ != k).flatMap(atoms(_).variables)
    def names(c: Int) = nfa.conditions(c).allVariables.exists(mine)
    def namedOnce(c: Int) = nfa.conditions(c).allVariables.count(mine) == 1
    val (each, consecutive, whole) =
      (IndexedSeq.newBuilder[Int], IndexedSeq.newBuilder[Int], IndexedSeq.newBuilder[Int])
    val fits = applying.forall { c =>
      val condition = nfa.conditions(c)
      val slots = condition.slots
      val onMine = slots.forall(s => mine(s.variable.value))
      if (!names(c)) slots.isEmpty
      else if (!namedOnce(c)) false
      else if (slots.isEmpty) { each += c; true }
      else if (onMine && slots.forall(_.function == SlotFunction.Prev) && condition.variables.forall(mine)) {
        consecutive += c; true
      } else if (onMine && slots.forall(_.function.aggregate)) { whole += c; true }
      else false
    }
    val repeated = nfa.scopes.exists(s => s.repeats && (s.atoms & numbers).nonEmpty)
    val selected = nfa.labels(atoms(k).label).nonEmpty
    val wholes = whole.result()
    if (!fits || repeated || !selected) None
    else Some(
      ChainIteration(
        k,
        atoms(k).variables.lastOption.getOrElse("?"),
        each.result(),
        consecutive.result(),
        wholes,
        wholes.flatMap(c => nfa.conditions(c).slots.indices.map(c -> _)),
        nfa.conditions.map(_.slots.length),
        (Int.MaxValue +: wholes.flatMap(c => countAtMost(nfa.conditions(c)))).min
      ))
  }

  /**
   * The most events a condition `count(b) <= k`, `count(b) < k` or `count(b) = k` (either way round) admits; None for
   * any other condition. `count(b.x)` counts only the events whose x is not NULL: it bounds nothing.
   */
  private def countAtMost(condition: Condition): Option[Int] = condition.slots match {
    case Seq(slot) if slot.function == SlotFunction.Count && slot.argument.isEmpty =>
      def isCount(e: Expr) = e match {
        case Expr.Column(name) => name.value == slot.name.stripPrefix("`").stripSuffix("`")
        case _ => false
      }
      def bound(op: ComparisonOp, k: Long): Option[Long] = op match {
        case ComparisonOp.LtEq | ComparisonOp.Eq => Some(k)
        case ComparisonOp.Lt => Some(k - 1)
        case _ => None
      }
      val parsed =
        try Some(ExprParser.parse(condition.predicate.sparkSql))
        catch { case _: PatternException => None }
      parsed.flatMap {
        case Expr.Comparison(op, c, Expr.Literal(k: java.lang.Long, _), _) if isCount(c) => bound(op, k)
        case Expr.Comparison(op, Expr.Literal(k: java.lang.Long, _), c, _) if isCount(c) => bound(mirrored(op), k)
        case _ => None
      }.map(k => math.max(0L, math.min(k, Int.MaxValue.toLong)).toInt)
    case _ => None
  }

  /** `k op x` as `x op' k`. */
  private def mirrored(op: ComparisonOp): ComparisonOp = op match {
    case ComparisonOp.Lt => ComparisonOp.Gt
    case ComparisonOp.LtEq => ComparisonOp.GtEq
    case ComparisonOp.Gt => ComparisonOp.Lt
    case ComparisonOp.GtEq => ComparisonOp.LtEq
    case other => other
  }

  /** A NONE between two neighbouring atoms (numbered from 1 in the automaton, from 0 in the chain after `from`). */
  private def gap(g: Gap, from: Int): Option[ChainGap] =
    if (g.before.size == 1 && g.after == Set(g.before.head + 1))
      Some(ChainGap(g.before.head - 1 - from, g.guards, g.conditions.toIndexedSeq, g.variable))
    else None

  /**
   * A SEQ or an AND of atoms, with FILTER and AS anywhere: whether ordered (SEQ), how many atoms, and those under a `+`
   * (a single event each, in a SEQ); None for any other shape.
   */
  private final case class Shape(ordered: Boolean, atoms: Int, iterated: Option[Int])

  private def shape(cel: Cel): Option[Shape] = cel match {
    case _: Cel.Atom => Some(Shape(ordered = true, 1, None))
    case Cel.Filtered(b, _, _) => shape(b)
    case Cel.Bind(b, _, _) => shape(b)
    case Cel.Iteration(b, false, _) => shape(b).collect { case Shape(_, 1, None) => Shape(ordered = true, 1, Some(0)) }
    case Cel.Sequence(a, b, false, _, _) => both(a, b, ordered = true)
    case Cel.And(a, b, _) => both(a, b, ordered = false)
    case _ => None
  }

  private def both(a: Cel, b: Cel, ordered: Boolean): Option[Shape] =
    for {
      Shape(o1, n1, i1) <- shape(a)
      Shape(o2, n2, i2) <- shape(b)
      if (n1 == 1 || o1 == ordered) && (n2 == 1 || o2 == ordered)
      iterated = i1.toSeq ++ i2.map(_ + n1)
      if iterated.isEmpty || (ordered && iterated.size == 1)
    } yield Shape(ordered, n1 + n2, iterated.headOption)
}
