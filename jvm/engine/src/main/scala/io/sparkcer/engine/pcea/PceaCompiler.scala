package io.sparkcer.engine.pcea

import scala.collection.mutable

import io.sparkcer.engine.analysis.{AnalyzedQuery, Equality, Multiplicity}
import io.sparkcer.engine.automaton.Nfa
import io.sparkcer.engine.ceql.{Cel, Strategy}

/**
 * Compiles a pattern whose conditions are equalities into an unambiguous PCEA, or says why it cannot (EXPLAIN shows
 * the reason, and the pattern runs on the general evaluator). The paper gives no compiler from a language like CEQL;
 * this one combines the two shapes its run trees take.
 *
 * **Sequences, OR and iteration: a chain.** Within an operand of AND, the automaton is CORE's (Glushkov) automaton
 * over the atoms, read as a chain CEA ([[Nfa]]'s states are atoms and its transitions go from one atom to the next, so
 * `(from, to)` is one PCEA transition with `from` as its only child). A run of the chain is the sequence of its
 * (atom, event) pairs, so a valuation labelled by atoms has one run. The transition from a to b joins on the classes
 * ([[EqualityClasses]]) both atoms hold: equality is transitive, so two events of one class are compared through the
 * events between them, and every event between them must hold the class too. That is checked, and it is the whole
 * condition: a pattern where an event without the attribute can come between two it relates has no PCEA (its run
 * trees would need a join the events in between cannot carry).
 *
 * **AND: the q-tree of Thm 4.1.** The operands of a conjunction are the atoms of a conjunctive query, and the classes
 * that relate several operands its variables. Where that query is hierarchical ([[QTree]]; otherwise Thm 4.2 says no
 * PCEA exists), the construction of Thm 4.1 applies, with one change: atom i's event is the last event of operand i's
 * chain. State `done(i)` holds operand i's complete matches, and per variable x of i, the copy of each transition
 * into a last atom of i that also joins the complete subtrees C_{x,i} reaches x's state; the root's state is final.
 * The runs of one valuation: the operands' chains are fixed by it, and each subtree of the q-tree is completed by the
 * operand whose last event is the latest in it, so the run tree is unique. Unambiguity holds by construction.
 *
 * The PCEA's labels are the atoms (the paper's Ω = I(Q)); [[PceaPlan.labels]] maps them to output variables.
 *
 * **Self-joins.** The paper's unifier atoms let one tuple witness several atoms of one relation: a CQ's
 * t-homomorphisms need not be injective. CEQL's are: AND reads disjoint events, and a sequence strictly later ones.
 * So no unifier is built; instead the atoms of different operands that one event may pass (of one type) are the
 * automaton's shared events ([[SharedEvents]]), which its runs carry so that a join never pairs two runs that read
 * one event: a run tree could read it twice only in two different subtrees.
 */
object PceaCompiler {

  def compile(analyzed: AnalyzedQuery, nfa: Nfa): Either[String, PceaPlan] = new Construction(analyzed, nfa).plan

  private final class Construction(analyzed: AnalyzedQuery, nfa: Nfa) {
    private val query = analyzed.query
    private val atoms = nfa.atoms
    private val n = atoms.length
    private def name(a: Int): String = atoms(a - 1).variables.lift(1).getOrElse(atoms(a - 1).variables.head)
    private def check(reasons: Iterator[String]): Either[String, Unit] = reasons.nextOption().toLeft(())

    // The operands of a top-level AND, and which atoms each holds (atoms are numbered left to right).
    private val operands = conjuncts(query.pattern)
    private val sizes = operands.map(Cel.leaves(_).length)
    private lazy val operandOf = IndexedSeq(-1) ++ sizes.zipWithIndex.flatMap { case (size, i) => Seq.fill(size)(i) }
    private lazy val atomsOf = operands.indices.map(i => (1 to n).filter(operandOf(_) == i).toSet)
    private def operandName(i: Int) = atomsOf(i).toSeq.sorted.map(name).mkString("(", " ", ")")

    private val edges =
      (for (ts <- nfa.transitions; t <- ts if t.marks) yield (t.from, nfa.atomOf(t.target))).distinct.sorted
    private val lasts = nfa.finals.indices.filter(nfa.finals).map(nfa.atomOf).toSet
    private val successors = edges.filter(_._1 > 0).groupBy(_._1).map { case (a, es) =>
      a -> es.map(_._2)
    }.withDefaultValue(Nil)

    def plan: Either[String, PceaPlan] = for {
      _ <- supported
      equalities <- equalitiesOf
      _ <- checkedScopes(equalities)
      classes <- EqualityClasses.of(nfa, equalities, name)
      _ <- checkedChains(classes)
      tree <- qTree(classes)
      plan <- build(classes, tree)
    } yield plan

    private def supported: Either[String, Unit] = check(
      Iterator(
        Option.when(nfa.conditions.isEmpty)("no condition relates events"),
        Option.when(query.strategy != Strategy.All && query.strategy != Strategy.Any)(
          s"SELECT ${query.strategy.keyword} compares the runs of an event, which a PCEA does not keep apart"),
        Option.when(atoms.exists(_.negated))("NOT(...) reads the events in between, which a PCEA skips"),
        Option.when(Cel.exclusions(query.pattern).nonEmpty)(
          "NONE(...) looks at the events in between, which a PCEA skips"),
        Option.when(contiguous(query.pattern))("':' and ':+' read the events in between, which a PCEA skips"),
        Option.when(operands.exists(hasAnd))("an AND under OR: a PCEA here evaluates AND over the whole pattern only"),
        Option.when(sizes.sum != n)(
          "a FILTER with OR (or NOT over AND) makes alternatives of the pattern, and a PCEA " +
            "keys only equalities that every match checks")
      ).flatten)

    private def equalitiesOf: Either[String, IndexedSeq[Equality]] = {
      val found = nfa.conditions.map(Equality.of)
      found.indexWhere(_.isEmpty) match {
        case -1 => Right(found.flatten)
        case i => Left(s"${nfa.conditions(i).text} is not an equality between two events' attributes (a.x = b.y)")
      }
    }

    /**
     * Each equality must be checked in every match: over the whole pattern (or an operand of AND), not per repetition,
     * on variables every match binds. Then it is one equality of values per match.
     */
    private def checkedScopes(equalities: IndexedSeq[Equality]): Either[String, Unit] = check(
      nfa.scopes.iterator.flatMap { scope =>
        val text = nfa.conditions(scope.condition).text
        if (scope.repeats)
          Some(s"$text is inside an iteration and relates the events of each repetition; a PCEA keys the equalities " +
            "of the whole match (move the FILTER after the iteration)")
        else if (scope.atoms != (1 to n).toSet && !atomsOf.contains(scope.atoms))
          Some(s"$text filters a part of the pattern that a match may not have; a PCEA keys the equalities of the " +
            "whole pattern or of an operand of AND")
        else equalities(scope.condition).sides.find(s => !Multiplicity.always(scope.body, s.variable)).map { s =>
          s"$text holds without a comparison in the matches that bind no ${s.variable}, which a PCEA does not key"
        }
      })

    /** Along a chain, the events between two of one class must hold it too. */
    private def checkedChains(classes: EqualityClasses): Either[String, Unit] = check(
      for {
        k <- (0 until classes.count).iterator
        a <- (1 to n).iterator if classes.of(a)(k)
        b <- successors(a).iterator if !classes.of(b)(k)
        d <- reachedThrough(b, c => !classes.of(c)(k)).find(classes.of(_)(k))
      } yield s"${classes.describe(k, name)} relates ${name(a)} and ${name(d)}, but ${name(b)} can come between them " +
        "without that attribute: a PCEA compares an event of a sequence only with the one before it, so every event " +
        "between two it compares must have the attribute")

    /** The atoms that follow `from` or an atom reached through atoms that pass `through`, from `from` on. */
    private def reachedThrough(from: Int, through: Int => Boolean): Iterator[Int] = {
      val seen = mutable.LinkedHashSet(from)
      val pending = mutable.Stack(from)
      while (pending.nonEmpty) {
        val c = pending.pop()
        if (through(c)) successors(c).foreach(d => if (seen.add(d)) pending.push(d))
      }
      seen.iterator.drop(1)
    }

    /** Across the operands of AND: the q-tree of the classes that relate several operands, joined at their last events. */
    private def qTree(classes: EqualityClasses): Either[String, QTree] = {
      val relating = (0 until classes.count).map(c => c -> (1 to n).filter(classes.of(_)(c)).map(operandOf).toSet)
        .filter(_._2.size > 1).toMap
      val missing = for {
        (c, ops) <- relating.toSeq.sortBy(_._1).iterator
        b <- lasts.toSeq.sorted.iterator if ops(operandOf(b)) && !classes.of(b)(c)
      } yield s"${classes.describe(c, name)} relates the operands of AND, but ${name(b)}, which can end " +
        s"${operandName(operandOf(b))}, does not have that attribute: a PCEA joins the operands of AND by the events " +
        "that end them"
      check(missing).flatMap(_ => QTree.of(operands.length, relating, classes.describe(_, name), operandName))
    }

    /** Whether one event may pass atoms `a` and `b` of two operands of AND: they have one type and may read one stream. */
    private def coincide(a: Int, b: Int): Boolean = {
      val (ga, gb) = (nfa.guards(atoms(a - 1).guard), nfa.guards(atoms(b - 1).guard))
      operandOf(a) != operandOf(b) && ga.eventType.equalsIgnoreCase(gb.eventType) &&
      (ga.stream.isEmpty || gb.stream.isEmpty || ga.stream == gb.stream)
    }

    private def build(classes: EqualityClasses, tree: QTree): Either[String, PceaPlan] = {
      val k = operands.length
      // States: atom a is a - 1 (a run of its chain has just read it); q-tree node l (operand or class node) is n + l.
      val built =
        mutable.ArrayBuffer.empty[(IndexedSeq[Int], IndexedSeq[Seq[Int]], Int, Int)] // children, keys, atom, target
      for ((from, b) <- edges) {
        val (child, key) =
          if (from > 0) (Vector(from - 1), Vector((classes.of(from) & classes.of(b)).toSeq.sorted))
          else (Vector(), Vector())
        built += ((child, key, b, b - 1))
        if (k > 1 && lasts(b)) {
          val i = operandOf(b)
          built += ((child, key, b, n + i))
          for (x <- tree.ancestors(i)) {
            val joined = tree.incomplete(x, i)
            built += ((child ++ joined.map(n + _), key ++ joined.map(tree.classesAbove), b, n + x))
          }
        }
      }
      val finals = if (k > 1) Set(n + tree.root) else lasts.map(_ - 1)
      // An unselected atom's repetitions give no row that its last event alone does not, where no run starts with it:
      // the equalities hold over the whole match, and its consecutive events hold all its classes, so the last one
      // joins what the first one joined. They go, and its runs are then kept latest only ([[LatestRuns]]).
      val labels = IndexedSeq(-1) ++ atoms.map(_.label)
      val selected = (q: Int) => nfa.labels(labels(q + 1)).nonEmpty
      val repeated = if (k > 1) Set.empty[Int]
      else (1 to n).filter { u =>
        val into = built.filter(_._4 == u - 1)
        !selected(u - 1) && into.forall(_._1.nonEmpty) && into.exists(_._1 == Vector(u - 1)) &&
        into.exists(_._1 != Vector(u - 1))
      }.toSet
      // A state that is not final and that no transition joins keeps nothing: the transitions into it go.
      var kept = built.toIndexedSeq.filterNot(t => repeated(t._3) && t._1 == Vector(t._3 - 1))
      var pruned = false
      while (!pruned) {
        val joined = kept.flatMap(_._1).toSet
        val next = kept.filter(t => finals(t._4) || joined(t._4))
        pruned = next.length == kept.length
        kept = next
      }

      val extractors = mutable.LinkedHashMap.empty[IndexedSeq[(Int, Int)], Int]
      def extractor(atom: Int, key: Seq[Int]): Int =
        extractors.getOrElseUpdate(key.map(c => classes.source((atom, c))).toIndexedSeq, extractors.size)
      val transitions = kept.map { case (children, keys, atom, target) =>
        PceaTransition(children, atoms(atom - 1).guard, keys.map(extractor(atom, _)), Vector(atom), target)
      }
      val pcea = new Pcea(n + tree.nodes.length, transitions, finals,
        (producer, consumer, slot) => extractor(kept(producer)._3, kept(consumer)._2(slot)))

      val merging =
        if (k > 1) LatestRuns.Merging(Map.empty, (0 until n).forall(selected))
        else LatestRuns.of(pcea, 0 until n, selected, (e, slot) => kept(e)._2(slot).toSet)
      // Atoms that bind one selected variable would give one row for two runs; unselected ones share label 0.
      val bound = (0 until n).filter(selected).map(q => labels(q + 1))
      val rowsTellRunsApart = merging.rowsTellRunsApart && bound.distinct.length == bound.length
      val shape =
        if (k > 1) s"q-tree ${tree.describe(operandName, classes.describe(_, name))}"
        else if (classes.count == 0) "no key"
        else s"keys ${(0 until classes.count).map(classes.describe(_, name)).mkString(", ")} along the sequence"
      val latest = merging.latestOnly.keySet.map(j => kept(j._1)._1(j._2) + 1).toSeq.sorted.map(name).distinct
      val merged = if (latest.isEmpty) ""
      else s", only the latest runs of ${latest.mkString(", ")} kept (no selected variable " +
        "binds its events)"
      SharedEvents.of(pcea, coincide, name).map { shared =>
        val apart = if (shared.isEmpty) ""
        else
          s", events of ${shared.labels.toSeq.sorted.map(name).mkString(", ")} kept apart by their positions"
        PceaPlan(
          pcea,
          extractors.keys.toIndexedSeq,
          labels,
          shared,
          merging.latestOnly,
          rowsTellRunsApart,
          s"equality correlation by PCEA (${pcea.describe}), $shape$merged$apart"
        )
      }
    }
  }

  /** The operands of the AND at the top of a pattern (under its filters and AS), or the pattern itself. */
  private def conjuncts(cel: Cel): IndexedSeq[Cel] = cel match {
    case Cel.And(a, b, _) => conjuncts(a) ++ conjuncts(b)
    case Cel.Filtered(b, _, _) if hasAnd(b) => conjuncts(b)
    case Cel.Bind(b, _, _) if hasAnd(b) => conjuncts(b)
    case other => IndexedSeq(other)
  }

  private def hasAnd(cel: Cel): Boolean = cel match {
    case _: Cel.And => true
    case Cel.Bind(b, _, _) => hasAnd(b)
    case Cel.Filtered(b, _, _) => hasAnd(b)
    case Cel.Sequence(a, b, _, _, _) => hasAnd(a) || hasAnd(b)
    case Cel.Or(a, b, _) => hasAnd(a) || hasAnd(b)
    case Cel.Iteration(b, _, _) => hasAnd(b)
    case _ => false
  }

  private def contiguous(cel: Cel): Boolean = cel match {
    case Cel.Sequence(a, b, c, _, _) => c || contiguous(a) || contiguous(b)
    case Cel.Iteration(b, c, _) => c || contiguous(b)
    case Cel.Bind(b, _, _) => contiguous(b)
    case Cel.Filtered(b, _, _) => contiguous(b)
    case Cel.Or(a, b, _) => contiguous(a) || contiguous(b)
    case Cel.And(a, b, _) => contiguous(a) || contiguous(b)
    case _ => false
  }
}
