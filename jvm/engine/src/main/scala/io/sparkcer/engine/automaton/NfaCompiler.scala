package io.sparkcer.engine.automaton

import scala.collection.mutable

import io.sparkcer.engine.analysis.{Multiplicity, Relations}
import io.sparkcer.engine.ceql.{Cel, Condition, Exclusion, Filter}
import io.sparkcer.engine.syntax.{PatternException, Position, SqlFragment}

/**
 * Compiles a CEL formula into a complex event automaton without ε-transitions, in the manner of Glushkov's
 * position automaton: one state per atom occurrence ("this atom has just been read"), plus a waiting state per
 * atom that may be followed after a gap (`;`, `+`), whose any-event loop is the only place where events are
 * skipped. Contiguous operators (`:`, `:+`) lead straight from an atom to its successor, with no gap allowed.
 *
 * Filters are pushed onto atoms first: `φ FILTER x[P]` keeps a valuation iff every event bound to x satisfies
 * P (CORE's "for all" reading), which is exactly P on every atom of φ that binds x. An OR of filters splits the
 * formula into two alternatives; the determinized automaton reports a match satisfying both only once. NOT is
 * pushed down to the leaves (De Morgan), where it negates the predicate.
 *
 * A condition relating events is not a guard: it is recorded as a [[Scope]] (the atoms of the sub-pattern it
 * filters), and each link that enters a scope from outside it (a new iteration, or a sequence reaching it) resets
 * the scope's registers. Register placement itself is the RMA construction's ([[io.sparkcer.engine.rma.Placement]]).
 */
object NfaCompiler {
  /**
   * The most states the automaton of one AND may have (an AND of 10 single events has 8,447): enough for any
   * conjunction a person writes, and built in well under a second.
   */
  val MaxConjunctionStates = 16384

  /**
   * @param outputs    the selected variables, in output order; an event's label lists those it is bound to
   * @param strict     STRICT selection: no event may be skipped or read without being marked once a match began
   */
  def compile(pattern: Cel, outputs: IndexedSeq[String], strict: Boolean, query: String): Nfa =
    new Builder(outputs, strict, query).build(pattern)

  /** What a sub-formula compiles to: the atoms a match of it may begin and end with. */
  private sealed trait Shape { def first: Seq[Int]; def last: Seq[Int] }
  private final case class Fragment(first: Seq[Int], last: Seq[Int]) extends Shape
  /** `φ AND ψ` (at `pos`): two automata run side by side ([[Component]]), each reading every event, at most one of them into a match. */
  private final case class Conjunction(left: Shape, right: Shape, pos: Position) extends Shape {
    def first: Seq[Int] = left.first ++ right.first
    def last: Seq[Int] = left.last ++ right.last
  }
  /** `φ OR ψ` where one of them holds a conjunction: the union of their automata. */
  private final case class Union(left: Shape, right: Shape) extends Shape {
    def first: Seq[Int] = left.first ++ right.first
    def last: Seq[Int] = left.last ++ right.last
  }
  /**
   * `φ ; ψ` or `φ : ψ` where one of them holds a conjunction: ψ's automaton entered from where φ's ends, after a gap
   * whose skips pass by what `passing` lets through.
   */
  private final case class Chain(before: Shape, after: Shape, contiguous: Boolean, passing: Passing) extends Shape {
    def first: Seq[Int] = before.first
    def last: Seq[Int] = after.last
  }
  /** `φ+` or `φ:+` where φ holds a conjunction: φ's automaton entered again from where it ends. */
  private final case class Repeat(body: Shape, contiguous: Boolean) extends Shape {
    def first: Seq[Int] = body.first
    def last: Seq[Int] = body.last
  }

  /**
   * An automaton over some of the atoms, as one operand of AND sees it: state 0 is its initial state (an any-event
   * loop, before it begins), `last` the states where a match of it ends, and `done` the state it waits in once it has
   * ended (an any-event loop), or -1 without one.
   */
  private final class Component(val transitions: IndexedSeq[Seq[Transition]], val last: Set[Int],
      val atomOf: IndexedSeq[Int], val done: Int)
  /**
   * What the skips of a gap pass by: any event but those that pass one of `guards` (the NONEs that test their event
   * alone) and those that the NONEs `judged` (indices in the gaps) judge against the run's registers.
   */
  private final case class Passing(guards: Seq[Int], judged: Seq[Int])
  private object Passing {
    val Anything: Passing = Passing(Nil, Nil)
  }
  private final case class PendingFilter(predicate: EventPredicate, bindingsAbove: Int)
  private final case class AtomInfo(guard: Int, negated: Boolean, label: Int, node: Cel, variables: List[String])
  /** A filter in normal form (NOT pushed to the leaves): the leaf, and whether it is negated. */
  private object Leaf {
    def apply(leaf: Filter, negated: Boolean): Filter = if (negated) Filter.Not(leaf, leaf.pos) else leaf
    def unapply(f: Filter): Option[(Filter, Boolean)] = f match {
      case Filter.Not(leaf @ (_: Filter.OnVariable | _: Filter.Relation), _) => Some(leaf -> true)
      case leaf @ (_: Filter.OnVariable | _: Filter.Relation) => Some(leaf -> false)
      case _ => None
    }
  }

  /**
   * `φ FILTER (f OR g)` is `(φ FILTER f) OR (φ FILTER g)`, `φ FILTER (f AND g)` is `(φ FILTER f) FILTER g`, and
   * NOT is pushed down to the leaves: the filters that remain each have one [[Leaf]].
   */
  def expandFilters(cel: Cel): Cel = cel match {
    case Cel.Filtered(body, filter, pos) =>
      def apply(target: Cel, f: Filter, negated: Boolean): Cel = f match {
        case Filter.And(l, r, _) if !negated => apply(apply(target, l, negated), r, negated)
        case Filter.Or(l, r, _) if negated => apply(apply(target, l, negated), r, negated)
        case Filter.And(l, r, p) => Cel.Or(apply(target, l, negated), apply(target, r, negated), p)
        case Filter.Or(l, r, p) => Cel.Or(apply(target, l, negated), apply(target, r, negated), p)
        case Filter.Not(o, _) => apply(target, o, !negated)
        case leaf => Cel.Filtered(target, Leaf(leaf, negated), pos)
      }
      apply(expandFilters(body), filter, negated = false)
    case Cel.Bind(body, v, pos) => Cel.Bind(expandFilters(body), v, pos)
    case s @ Cel.Sequence(a, b, _, _, _) => s.copy(first = expandFilters(a), second = expandFilters(b))
    case Cel.Or(a, b, pos) => Cel.Or(expandFilters(a), expandFilters(b), pos)
    case Cel.And(a, b, pos) => Cel.And(expandFilters(a), expandFilters(b), pos)
    case Cel.Iteration(body, c, pos) => Cel.Iteration(expandFilters(body), c, pos)
    case atom @ (_: Cel.Atom | _: Cel.Not) => atom
  }

  private final class Builder(outputs: IndexedSeq[String], strict: Boolean, query: String) {
    private val outputIndex = outputs.zipWithIndex.toMap
    private val atoms = mutable.ArrayBuffer.empty[AtomInfo]
    // follow(a)((b, resets, passing)) = true when b may only come right after a (`:`), false when a gap is allowed;
    // `resets` are the scopes the link enters from outside, `passing` what the gap's skips pass by (the NONEs between:
    // each distinct one waits in a state of its own).
    private val follow = mutable.ArrayBuffer.empty[mutable.LinkedHashMap[(Int, Seq[Int], Passing), Boolean]]
    private val gaps = mutable.ArrayBuffer.empty[Gap]
    private val conditions = mutable.LinkedHashMap.empty[Condition, Int]
    private var iterations = 0 // how many iterations are around the node being visited
    private val scopes = mutable.ArrayBuffer.empty[Scope]
    private val guards = mutable.LinkedHashMap.empty[(Option[String], String, Seq[(Boolean, String)]), (Int, Guard)]
    private val labels = mutable.LinkedHashMap[Seq[Int], Int](Seq.empty[Int] -> 0)

    def build(pattern: Cel): Nfa = {
      val fragment = visit(NfaCompiler.expandFilters(pattern), bindings = Nil, filters = Nil)
      fragment.last.map(a => atoms(a - 1)).find(_.negated).foreach { a =>
        throw new PatternException(
          "a match cannot end with NOT(...): the event that completes a match must be part of it; " +
            "follow the NOT with the event it should precede, e.g. NOT(B) ; C",
          a.node.pos,
          query
        )
      }
      fragment match {
        case f: Fragment => automaton(f)
        case other => nfa(operand(other, withDone = false))
      }
    }

    /** A condition over one event (`s.volume > 5`) is the guard `s[volume > 5]`: its `s.` qualifiers dropped for Spark. */
    private def asEventPredicate(c: Condition): Filter.OnVariable = {
      val p = c.predicate
      val qualifiers = c.references.map { r =>
        SqlFragment.Edit(r.variable.pos.offset - p.pos.offset, r.attributeAt - r.variable.pos.offset, "")
      }
      Filter.OnVariable(c.references.head.variable, SqlFragment.edited(p.text, p.pos, p.edits ++ qualifiers), p.pos)
    }

    /** `bindings` are the AS variables around the current node, innermost first. */
    private def visit(cel: Cel, bindings: List[String], filters: List[PendingFilter]): Shape = cel match {
      case atom: Cel.Atom =>
        val variables = atom.eventType.value :: bindings
        val applicable = filters.collect {
          case PendingFilter(f, above) if variables.dropRight(above).contains(f.filter.variable.value) => f
        }
        val label = labelOf(variables.flatMap(outputIndex.get).distinct.sorted)
        single(AtomInfo(guardOf(atom, applicable), negated = false, label, atom, variables))
      case not @ Cel.Not(atom, filter, _) =>
        val predicates = filter.toSeq.flatMap(f => conjuncts(f)).map {
          case f: Filter.OnVariable => EventPredicate(f, negated = false)
          case Filter.Relation(c, _) => EventPredicate(asEventPredicate(c), negated = false)
          case other => throw new IllegalStateException(s"not a leaf: $other")
        }
        single(AtomInfo(guardOf(atom, predicates), negated = true, -1, not, Nil))
      case Cel.Bind(body, variable, _) =>
        visit(body, variable.value :: bindings, filters)
      case Cel.Filtered(body, Leaf(f: Filter.OnVariable, negated), _) =>
        visit(body, bindings, PendingFilter(EventPredicate(f, negated), bindings.length) :: filters)
      case Cel.Filtered(body, Leaf(Filter.Relation(c, _), negated), _) if !Relations.relates(c) =>
        visit(body, bindings, PendingFilter(EventPredicate(asEventPredicate(c), negated), bindings.length) :: filters)
      case Cel.Filtered(body, Leaf(Filter.Relation(c, pos), negated), _) =>
        val before = atoms.length
        val fragment = visit(body, bindings, filters)
        val inside = (before + 1 to atoms.length).toSet
        val above = bindings.length
        val condition = if (negated) negate(c) else c
        scopes += Scope(
          conditions.getOrElseUpdate(condition, conditions.size),
          body,
          inside,
          inside.map(a => a -> atoms(a - 1).variables.dropRight(above).distinct).toMap,
          fragment.first.toSet,
          repeats = iterations > 0
        )
        fragment
      case Cel.Filtered(_, other, _) =>
        throw new IllegalStateException(s"filter not expanded: $other")
      case Cel.Sequence(first, second, contiguous, _, exclusions) =>
        val start = atoms.length
        val a = visit(first, bindings, filters)
        val middle = atoms.length
        val b = visit(second, bindings, filters)
        val made = exclusions.map(gap(_, a, b, first, start + 1 to middle, middle + 1 to atoms.length, bindings.length))
        val passing = Passing(made.filter(gaps(_).onAutomaton).flatMap(gaps(_).guards).distinct.sorted,
          made.filter(gaps(_).onRegisters))
        (a, b) match {
          case (a: Fragment, b: Fragment) =>
            link(a.last, b.first, contiguous, passing)
            Fragment(a.first, b.last)
          case _ => Chain(a, b, contiguous, passing)
        }
      case Cel.Or(left, right, _) =>
        (visit(left, bindings, filters), visit(right, bindings, filters)) match {
          case (a: Fragment, b: Fragment) => Fragment(a.first ++ b.first, a.last ++ b.last)
          case (a, b) => Union(a, b)
        }
      case Cel.And(left, right, pos) =>
        Conjunction(visit(left, bindings, filters), visit(right, bindings, filters), pos)
      case Cel.Iteration(body, contiguous, _) =>
        iterations += 1
        try visit(body, bindings, filters) match {
            case a: Fragment =>
              link(a.last, a.first, contiguous, Passing.Anything)
              a
            case other => Repeat(other, contiguous)
          }
        finally iterations -= 1
    }

    /**
     * The [[Gap]] of a NONE between the shapes `before` (of the formula `left`, over the atoms `earlier`) and `after`
     * (over the atoms `later`), and its index: its types, with the tests of its event alone, are guards; the conditions
     * relating its event to others are conditions of the automaton, which no scope places on atoms. Where they name no
     * variable bound after the NONE (the analysis let them name only those around it), each gets the scope of `left`
     * (`above` AS names around it), whose registers then hold those events while a run waits in the gap.
     */
    private def gap(e: Exclusion, before: Shape, after: Shape, left: Cel, earlier: Range, later: Range, above: Int)
        : Int = {
      val candidate = e.candidate
      val (alone, relating) = e.filter.toSeq.flatMap(conjuncts).partition {
        case _: Filter.OnVariable => true
        case Filter.Relation(c, _) => c.variables == Seq(candidate)
        case _ => false
      }
      val predicates = alone.map {
        case f: Filter.OnVariable => EventPredicate(f, negated = false)
        case Filter.Relation(c, _) => EventPredicate(asEventPredicate(c), negated = false)
        case other => throw new IllegalStateException(s"not a test of one event: $other")
      }
      val related = relating.collect { case Filter.Relation(c, _) => c }
      val indices = related.map(c => conditions.getOrElseUpdate(c, conditions.size))
      def bindingsOf(a: Int) = atoms(a - 1).variables.dropRight(above).distinct
      val afterIt = later.flatMap(bindingsOf).toSet
      val boundLater = related.flatMap(_.variables).distinct.filter(v => v != candidate && afterIt(v))
      // In an iteration, each instance of `left` writes a variable it binds exactly once before the gap: only the
      // registers of the others (lists, hardest events) need emptying as it begins again.
      def rewritten(c: Condition) =
        c.variables.forall(v => v == candidate || Multiplicity.of(left, v) == Multiplicity.One)
      val registerScopes = if (boundLater.nonEmpty) Nil
      else related.zip(indices).map { case (c, i) =>
        scopes += Scope(i, left, earlier.toSet, earlier.map(a => a -> bindingsOf(a)).toMap, before.first.toSet,
          repeats = iterations > 0 && !rewritten(c), candidate = Some(candidate))
        scopes.length - 1
      }
      gaps += Gap(
        before.last.toSet, after.first.toSet, e.types.map(guardOf(_, predicates)).distinct, indices, candidate,
        e, boundLater, registerScopes)
      gaps.length - 1
    }

    /** The filter of NOT(type FILTER ...): a conjunction of predicates over that one event. */
    private def conjuncts(f: Filter): Seq[Filter] = f match {
      case Filter.And(l, r, _) => conjuncts(l) ++ conjuncts(r)
      case Filter.Or(_, _, pos) =>
        throw new PatternException(
          "OR is not supported inside NOT(...); negate each alternative separately", pos, query)
      case Filter.Not(_, pos) =>
        throw new PatternException("NOT is not supported inside NOT(...); negate the predicate itself, e.g. price <= 5",
          pos, query)
      case leaf => Seq(leaf)
    }

    /** `NOT (condition)`: the Spark text wrapped, positions kept (the wrapping maps to the condition's start). */
    private def negate(c: Condition): Condition = {
      val p = c.predicate
      val edits = SqlFragment.Edit(0, 0, "NOT (") +: p.edits :+ SqlFragment.Edit(p.text.length, 0, ")")
      c.copy(predicate = p.copy(sparkSql = s"NOT (${p.sparkSql})", edits = edits))
    }

    private def single(info: AtomInfo): Fragment = {
      atoms += info
      follow += mutable.LinkedHashMap.empty
      val id = atoms.length // states 1..n are atoms; 0 is the initial state
      Fragment(Seq(id), Seq(id))
    }

    /**
     * Links each of `from` to each of `to`. A scope already visited that `b` begins is entered from outside it by this
     * link (it was built inside an operand of this node); inside an iteration that may be its second time, so the
     * link resets that scope's registers (the first time, a run's registers are empty anyway).
     */
    private def link(from: Seq[Int], to: Seq[Int], contiguous: Boolean, passing: Passing): Unit =
      for (a <- from; b <- to) {
        val edges = follow(a - 1)
        val edge = (b, scopes.indices.filter(s => scopes(s).repeats && scopes(s).first.contains(b)),
          if (contiguous) Passing.Anything else passing)
        edges(edge) = edges.getOrElse(edge, true) && contiguous // a gap-allowing edge subsumes a contiguous one
      }

    private def guardOf(atom: Cel.Atom, predicates: Seq[EventPredicate]): Int = {
      def identity(p: EventPredicate) = (p.negated, p.filter.predicate.sparkSql.trim)
      val distinct = predicates.groupBy(identity).values.map(_.head).toSeq.sortBy(p => identity(p).toString)
      val key = (atom.stream.map(_.value), atom.eventType.value, distinct.map(identity))
      guards.getOrElseUpdate(key, (guards.size, Guard(key._1, key._2, distinct)))._1
    }

    private def labelOf(variables: Seq[Int]): Int = labels.getOrElseUpdate(variables, labels.size)

    /** A move into waiting state `w` that passes by what `passing` lets through. */
    private def skip(w: Int, passing: Passing): Transition =
      Transition(-1, negated = false, -1, w, excludes = passing.guards, judges = passing.judged)

    /** CORE's automaton of the whole pattern: the component of every atom, which ends where the pattern does. */
    private def automaton(pattern: Fragment): Nfa = nfa(component(pattern, 1 to atoms.length, withDone = false))

    /**
     * The automaton of a shape with conjunctions (the whole pattern, or an operand of one): for `φ AND ψ` the product
     * of the operands' automata, in which each event is read by both, into the match by at most one of them (the
     * operands' matches are disjoint), and which ends when one operand ends with the other already done; for an OR
     * around one, the union of the alternatives' automata.
     *
     * @param conjunction the outermost AND the shape is part of, which an error names
     */
    private def operand(shape: Shape, withDone: Boolean, conjunction: Option[Conjunction] = None): Component =
      shape match {
        case f: Fragment =>
          val reached = mutable.LinkedHashSet.empty[Int]
          val pending = mutable.Stack(f.first: _*)
          while (pending.nonEmpty) {
            val a = pending.pop()
            if (reached.add(a)) pending.pushAll(follow(a - 1).keys.map(_._1))
          }
          component(f, reached.toSeq.sorted, withDone)
        case c: Conjunction =>
          // Past its limit the error names the whole conjunction, the operands a person wrote, not its inner product.
          val whole = conjunction.getOrElse(c)
          product(
            operand(c.left, withDone = true, Some(whole)), operand(c.right, withDone = true, Some(whole)), withDone,
            whole)
        case Union(l, r) => union(operand(l, withDone, conjunction), operand(r, withDone, conjunction))
        case Chain(before, after, contiguous, passing) =>
          sequence(operand(before, withDone = false, conjunction), operand(after, withDone, conjunction), contiguous,
            passing)
        case Repeat(body, contiguous) => repeat(operand(body, withDone, conjunction), contiguous)
      }

    /**
     * `x ; y` (or `x : y`, `contiguous`) of two components: from each state where x ends, y's first moves (those of
     * its initial state that read an event), as Glushkov's construction links the last atoms of x to the first of y;
     * with a gap allowed, also a waiting state per such end, whose any-event loop skips the events in between. The
     * moves keep the atom they leave (`from`) and reset the scopes they enter afresh, as [[link]] does.
     */
    private def sequence(x: Component, y: Component, contiguous: Boolean, passing: Passing): Component = {
      val offset = x.transitions.length - 1 // y's state s > 0 becomes s + offset; y's initial state is x's
      val shifted =
        (1 until y.transitions.length).map(s => y.transitions(s).map(t => t.copy(target = t.target + offset)))
      val entries = y.transitions(Nfa.Initial).filter(_.reads).map(t => t.copy(target = t.target + offset))
      val atomOf = x.atomOf ++ y.atomOf.tail
      continued(x.transitions ++ shifted, x.last, entries, atomOf, contiguous, passing, y.last.map(_ + offset),
        if (y.done < 0) -1 else y.done + offset)
    }

    /** `x+` (or `x:+`): from each state where x ends, x's first moves again, as in [[sequence]] with x after itself. */
    private def repeat(x: Component, contiguous: Boolean): Component =
      continued(x.transitions, x.last, x.transitions(Nfa.Initial).filter(_.reads), x.atomOf, contiguous,
        Passing.Anything, x.last,
        x.done)

    /**
     * The states `transitions` (whose atoms are `atomOf`), where from each of `ends` the moves `entries` are taken
     * next (right after it, or, unless `contiguous`, after a gap spent in a waiting state of its own, which passes by
     * what `passing` lets through).
     */
    private def continued(transitions: IndexedSeq[Seq[Transition]], ends: Set[Int], entries: Seq[Transition],
        atomOf: IndexedSeq[Int], contiguous: Boolean, passing: Passing, last: Set[Int], done: Int): Component = {
      val from = ends.toSeq.sorted
      val waiting = if (contiguous) Map.empty[Int, Int]
      else from.zipWithIndex.map { case (q, i) => q -> (transitions.length + i) }.toMap
      def enter(q: Int): Seq[Transition] = entries.map { t =>
        val atom = atomOf(t.target)
        t.copy(
          from = atomOf(q), resets = scopes.indices.filter(s => scopes(s).repeats && scopes(s).first.contains(atom)))
      }
      val linked = transitions.indices.map { q =>
        if (!ends(q)) transitions(q)
        else transitions(q) ++ enter(q) ++ waiting.get(q).map(skip(_, passing))
      }
      val waits = from.filter(waiting.contains).map(q => skip(waiting(q), passing) +: enter(q))
      new Component(linked ++ waits, last, atomOf ++ from.filter(waiting.contains).map(atomOf), done)
    }

    /** A transition that reads atom b's event, leaving atom `from`; None where STRICT forbids it. */
    private def enter(from: Int, b: Int, resets: Seq[Int]): Option[Transition] = {
      val info = atoms(b - 1)
      if (info.negated && strict) None
      else {
        if (info.negated && resets.nonEmpty)
          throw new PatternException(
            "a filtered part of an iteration that relates events (or the part before a NONE that " +
              "relates its event to a repeating variable's) cannot begin with NOT(...); begin it with the event NOT " +
              "precedes, or move the FILTER outside the iteration",
            info.node.pos,
            query
          )
        Some(Transition(info.guard, info.negated, if (info.negated) -1 else info.label, b, resets = resets,
            from = from))
      }
    }

    /**
     * The Glushkov automaton of a fragment over its atoms: state 0 is the initial state, then one state per atom
     * ("this atom has just been read"), then a waiting state per atom that may be followed after a gap, whose
     * any-event loop is the only place where events are skipped; then, `withDone`, the state it waits in once ended.
     * Over every atom, states are the atoms' own numbers.
     */
    private def component(pattern: Fragment, over: Seq[Int], withDone: Boolean): Component = {
      val local = over.zipWithIndex.map { case (a, i) => a -> (i + 1) }.toMap
      // A waiting state per atom and what its gap passes by.
      val waits = if (strict) Nil
      else over.flatMap(a => follow(a - 1).toSeq.collect { case ((_, _, p), false) => (a, p) }.distinct)
      val waiting = waits.zipWithIndex.map { case (w, i) => w -> (over.length + 1 + i) }.toMap
      val done = if (withDone) over.length + 1 + waiting.size else -1
      val stateCount = over.length + 1 + waiting.size + (if (withDone) 1 else 0)
      val transitions = Array.fill(stateCount)(mutable.ArrayBuffer.empty[Transition])
      def enterLocal(from: Int, b: Int, resets: Seq[Int]) = enter(from, b, resets).map(t => t.copy(target = local(b)))
      transitions(Nfa.Initial) += Transition(-1, negated = false, -1, Nfa.Initial)
      transitions(Nfa.Initial) ++= pattern.first.flatMap(enterLocal(-1, _, Nil))
      for (a <- over) {
        transitions(local(a)) ++= follow(a - 1).keys.map { case (b, resets, _) => (b, resets) }.toSeq.distinct
          .flatMap { case (b, resets) => enterLocal(a, b, resets) }
        for (key @ (_, passing) <- waits if key._1 == a) {
          val w = waiting(key)
          transitions(local(a)) += skip(w, passing)
          transitions(w) += skip(w, passing)
          transitions(w) ++= follow(a - 1).collect { case ((b, resets, `passing`), false) =>
            enterLocal(a, b, resets)
          }.flatten
        }
      }
      if (withDone) {
        pattern.last.foreach(a => transitions(local(a)) += Transition(-1, negated = false, -1, done))
        transitions(done) += Transition(-1, negated = false, -1, done)
      }
      val atomOf = IndexedSeq(-1) ++ over ++ waits.map(_._1) ++ (if (withDone) Seq(-1) else Nil)
      new Component(transitions.map(_.toSeq).toIndexedSeq, pattern.last.map(local).toSet, atomOf, done)
    }

    /**
     * The product of two components, built from its initial state as far as it reaches: a state is the pair of their
     * states and which of them read the last event into an atom (0: neither), so that it knows that atom. It must
     * remember which operands of a conjunction are done, 2^n combinations for n operands: past [[MaxConjunctionStates]]
     * it stops, before building more, and says what to write instead.
     */
    private def product(left: Component, right: Component, withDone: Boolean, conjunction: Conjunction): Component = {
      val ids = mutable.HashMap[(Int, Int, Int), Int]((0, 0, 0) -> 0)
      val states = mutable.ArrayBuffer((0, 0, 0))
      val transitions = mutable.ArrayBuffer.empty[Seq[Transition]]
      def id(state: (Int, Int, Int)): Int = ids.getOrElseUpdate(state, {
          if (states.length == MaxConjunctionStates) tooLarge(conjunction)
          states += state
          states.length - 1
        })
      var next = 0
      while (next < states.length) {
        val (l, r, _) = states(next)
        transitions += (for (a <- left.transitions(l); b <- right.transitions(r) if !(a.reads && b.reads)) yield {
          if (a.reads) a.copy(target = id((a.target, b.target, 1)))
          else if (b.reads) b.copy(target = id((a.target, b.target, 2)))
          else Transition(-1, negated = false, -1, id((a.target, b.target, 0)))
        }).distinct
        next += 1
      }
      val last = states.indices.filter { i =>
        val (l, r, mover) = states(i)
        (mover == 1 && left.last(l) && r == right.done) || (mover == 2 && right.last(r) && l == left.done)
      }.toSet
      val atomOf = states.map {
        case (l, _, 1) => left.atomOf(l)
        case (_, r, 2) => right.atomOf(r)
        case _ => -1
      }.toIndexedSeq
      if (!withDone) new Component(transitions.toIndexedSeq, last, atomOf, -1)
      else {
        val done = states.length
        val skip = Transition(-1, negated = false, -1, done)
        val ended = transitions.indices.map(q => if (last(q)) transitions(q) :+ skip else transitions(q))
        new Component(ended :+ Seq(skip), last, atomOf :+ -1, done)
      }
    }

    private def tooLarge(conjunction: Conjunction): Nothing = {
      def operands(shape: Shape): Int = shape match {
        case Conjunction(l, r, _) => operands(l) + operands(r)
        case _ => 1
      }
      throw new PatternException(
        s"this AND of ${operands(conjunction)} operands needs an automaton of more than " +
          s"$MaxConjunctionStates states: it remembers which operands are done and where each one is, every " +
          "combination a state. Write the operands whose order is known as a sequence (A ; B needs no such memory), " +
          "or split the conjunction into queries of fewer operands",
        conjunction.pos,
        query
      )
    }

    /** Two components side by side from one initial state; their done states are one. */
    private def union(left: Component, right: Component): Component = {
      val offset = left.transitions.length - 1
      def shift(s: Int): Int = if (s == 0) 0 else if (s == right.done) left.done else s + offset
      def moved(ts: Seq[Transition], to: Int => Int) = ts.map(t => t.copy(target = to(t.target)))
      val keep = (1 until right.transitions.length).filter(_ != right.done)
      val initial = left.transitions(0) ++ moved(right.transitions(0), shift).filter(_.target != 0)
      val transitions = (initial +: left.transitions.tail) ++ keep.map(s => moved(right.transitions(s), shift))
      val index = (Seq(0) ++ left.transitions.indices.tail ++ keep.map(shift)).zipWithIndex.toMap
      def renumber(t: Transition) = t.copy(target = index(t.target))
      new Component(transitions.map(_.map(renumber)), left.last ++ right.last.map(s => index(shift(s))),
        left.atomOf ++ keep.map(right.atomOf), left.done)
    }

    /**
     * The automaton of a component. Under STRICT no event is skipped once a match began, so only the initial state
     * skips: an operand of AND skips the events the other reads, and the product keeps the step where both skip, which
     * the whole automaton must not take.
     */
    private def nfa(c: Component): Nfa = new Nfa(
      c.transitions.zipWithIndex.map { case (ts, q) =>
        (if (strict && q != Nfa.Initial) ts.filter(_.reads) else ts).toIndexedSeq
      },
      c.transitions.indices.map(c.last),
      guards.values.map(_._2).toIndexedSeq,
      labels.keys.map(_.toIndexedSeq).toIndexedSeq,
      conditions.keys.toIndexedSeq,
      scopes.toIndexedSeq,
      c.atomOf,
      atoms.map(a => AtomSpec(a.guard, a.negated, a.label, a.variables)).toIndexedSeq,
      gaps.toIndexedSeq
    )
  }
}
