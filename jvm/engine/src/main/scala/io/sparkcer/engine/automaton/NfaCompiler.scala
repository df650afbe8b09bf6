package io.sparkcer.engine.automaton

import scala.collection.mutable

import io.sparkcer.engine.ceql.{Cel, CeqlException, Filter}

/**
 * Compiles a CEL formula into a complex event automaton without ε-transitions, in the manner of Glushkov's
 * position automaton: one state per atom occurrence ("this atom has just been read"), plus a waiting state per
 * atom that may be followed after a gap (`;`, `+`), whose any-event loop is the only place where events are
 * skipped. Contiguous operators (`:`, `:+`) lead straight from an atom to its successor, with no gap allowed.
 *
 * Filters are pushed onto atoms first: `φ FILTER x[P]` keeps a valuation iff every event bound to x satisfies
 * P (CORE's "for all" reading), which is exactly P on every atom of φ that binds x. An OR of filters splits the
 * formula into two alternatives; the determinized automaton reports a match satisfying both only once.
 */
object NfaCompiler {

  /**
   * @param outputs    the selected variables, in output order; an event's label lists those it is bound to
   * @param strict     STRICT selection: no event may be skipped or read without being marked once a match began
   */
  def compile(pattern: Cel, outputs: IndexedSeq[String], strict: Boolean, query: String): Nfa =
    new Builder(outputs, strict, query).build(pattern)

  private final case class Fragment(first: Seq[Int], last: Seq[Int])
  private final case class PendingFilter(filter: Filter.OnVariable, bindingsAbove: Int)
  private final case class AtomInfo(guard: Int, negated: Boolean, label: Int, node: Cel)

  private final class Builder(outputs: IndexedSeq[String], strict: Boolean, query: String) {
    private val outputIndex = outputs.zipWithIndex.toMap
    private val atoms = mutable.ArrayBuffer.empty[AtomInfo]
    // follow(a)(b) = true when b may only come right after a (`:`), false when a gap is allowed.
    private val follow = mutable.ArrayBuffer.empty[mutable.LinkedHashMap[Int, Boolean]]
    private val guards = mutable.LinkedHashMap.empty[(Option[String], String, Seq[String]), (Int, Guard)]
    private val labels = mutable.LinkedHashMap[Seq[Int], Int](Seq.empty[Int] -> 0)

    def build(pattern: Cel): Nfa = {
      val fragment = visit(expandFilters(pattern), bindings = Nil, filters = Nil)
      fragment.last.map(a => atoms(a - 1)).find(_.negated).foreach { a =>
        throw new CeqlException(
          "a match cannot end with NOT(...): the event that completes a match must be part of it; " +
            "follow the NOT with the event it should precede, e.g. NOT(B) ; C",
          a.node.pos, query)
      }
      automaton(fragment)
    }

    /** `φ FILTER (f OR g)` is `(φ FILTER f) OR (φ FILTER g)`, and `φ FILTER (f AND g)` is `(φ FILTER f) FILTER g`. */
    private def expandFilters(cel: Cel): Cel = cel match {
      case Cel.Filtered(body, filter, pos) =>
        def apply(target: Cel, f: Filter): Cel = f match {
          case Filter.And(l, r, _) => apply(apply(target, l), r)
          case Filter.Or(l, r, p) => Cel.Or(apply(target, l), apply(target, r), p)
          case single: Filter.OnVariable => Cel.Filtered(target, single, pos)
        }
        apply(expandFilters(body), filter)
      case Cel.Bind(body, v, pos) => Cel.Bind(expandFilters(body), v, pos)
      case Cel.Sequence(a, b, c, pos) => Cel.Sequence(expandFilters(a), expandFilters(b), c, pos)
      case Cel.Or(a, b, pos) => Cel.Or(expandFilters(a), expandFilters(b), pos)
      case Cel.Iteration(body, c, pos) => Cel.Iteration(expandFilters(body), c, pos)
      case atom @ (_: Cel.Atom | _: Cel.Not) => atom
    }

    /** `bindings` are the AS variables around the current node, innermost first. */
    private def visit(cel: Cel, bindings: List[String], filters: List[PendingFilter]): Fragment = cel match {
      case atom: Cel.Atom =>
        val variables = atom.eventType.value :: bindings
        val applicable = filters.collect {
          case PendingFilter(f, above) if variables.dropRight(above).contains(f.variable.value) => f
        }
        val label = labelOf(variables.flatMap(outputIndex.get).distinct.sorted)
        single(AtomInfo(guardOf(atom, applicable), negated = false, label, atom))
      case not @ Cel.Not(atom, filter, _) =>
        single(AtomInfo(guardOf(atom, filter.toSeq.flatMap(onVariables)), negated = true, -1, not))
      case Cel.Bind(body, variable, _) =>
        visit(body, variable.value :: bindings, filters)
      case Cel.Filtered(body, filter: Filter.OnVariable, _) =>
        visit(body, bindings, PendingFilter(filter, bindings.length) :: filters)
      case Cel.Filtered(_, other, _) =>
        throw new IllegalStateException(s"filter not expanded: $other")
      case Cel.Sequence(first, second, contiguous, _) =>
        val (a, b) = (visit(first, bindings, filters), visit(second, bindings, filters))
        link(a.last, b.first, contiguous)
        Fragment(a.first, b.last)
      case Cel.Or(left, right, _) =>
        val (a, b) = (visit(left, bindings, filters), visit(right, bindings, filters))
        Fragment(a.first ++ b.first, a.last ++ b.last)
      case Cel.Iteration(body, contiguous, _) =>
        val a = visit(body, bindings, filters)
        link(a.last, a.first, contiguous)
        a
    }

    private def onVariables(f: Filter): Seq[Filter.OnVariable] = f match {
      case v: Filter.OnVariable => Seq(v)
      case Filter.And(l, r, _) => onVariables(l) ++ onVariables(r)
      case Filter.Or(_, _, pos) =>
        throw new CeqlException("OR is not supported inside NOT(...); negate each alternative separately", pos, query)
    }

    private def single(info: AtomInfo): Fragment = {
      atoms += info
      follow += mutable.LinkedHashMap.empty
      val id = atoms.length // states 1..n are atoms; 0 is the initial state
      Fragment(Seq(id), Seq(id))
    }

    private def link(from: Seq[Int], to: Seq[Int], contiguous: Boolean): Unit =
      for (a <- from; b <- to) {
        val edges = follow(a - 1)
        edges(b) = edges.getOrElse(b, true) && contiguous // a gap-allowing edge subsumes a contiguous one
      }

    private def guardOf(atom: Cel.Atom, predicates: Seq[Filter.OnVariable]): Int = {
      val distinct = predicates.groupBy(_.text.trim).values.map(_.head).toSeq.sortBy(_.text.trim)
      val key = (atom.stream.map(_.value), atom.eventType.value, distinct.map(_.text.trim))
      guards.getOrElseUpdate(key, (guards.size, Guard(key._1, key._2, distinct)))._1
    }

    private def labelOf(variables: Seq[Int]): Int = labels.getOrElseUpdate(variables, labels.size)

    private def automaton(pattern: Fragment): Nfa = {
      val n = atoms.length
      val waiting = (1 to n).filter(a => !strict && follow(a - 1).exists(!_._2)).zipWithIndex.toMap
        .map { case (a, i) => a -> (n + 1 + i) }
      val stateCount = n + 1 + waiting.size
      val transitions = Array.fill(stateCount)(mutable.ArrayBuffer.empty[Transition])
      def enter(b: Int): Option[Transition] = {
        val info = atoms(b - 1)
        if (info.negated && strict) None
        else Some(Transition(info.guard, info.negated, if (info.negated) -1 else info.label, b))
      }
      transitions(Nfa.Initial) += Transition(-1, negated = false, -1, Nfa.Initial)
      transitions(Nfa.Initial) ++= pattern.first.flatMap(enter)
      for (a <- 1 to n) {
        transitions(a) ++= follow(a - 1).keys.flatMap(enter)
        waiting.get(a).foreach { w =>
          val skip = Transition(-1, negated = false, -1, w)
          transitions(a) += skip
          transitions(w) += skip
          transitions(w) ++= follow(a - 1).collect { case (b, false) => b }.flatMap(enter)
        }
      }
      val finals = Array.tabulate(stateCount)(s => pattern.last.contains(s))
      new Nfa(
        transitions.map(_.toIndexedSeq).toIndexedSeq,
        finals.toIndexedSeq,
        guards.values.map(_._2).toIndexedSeq,
        labels.keys.map(_.toIndexedSeq).toIndexedSeq)
    }
  }
}
