package io.sparkcer.engine.rma

import scala.collection.mutable

import io.sparkcer.engine.analysis.{Multiplicity, OrderComparison}
import io.sparkcer.engine.automaton.{Nfa, Transition}
import io.sparkcer.engine.ceql.SlotFunction

/**
 * The RMA construction for conditions relating events (RMA paper, Algorithms 3 and 4, "n-ary FILTER"), on the
 * complex event automaton of [[io.sparkcer.engine.automaton.NfaCompiler]], whose atoms are the paper's
 * variable-binding transitions:
 *  - registers are allocated only for what a condition reads, one per variable and scope (RMA's rx); a variable that
 *    repeats within its scope gets a list (every event must meet the condition), or, where the condition is an order
 *    comparison one side of which reads it alone, a single register for the hardest of its events ([[Hardest]]);
 *    `prev` a single register (the last event bound), an aggregate an accumulator;
 *  - every transition that binds an event to a variable writes its register (RMA's write set R): the transition's
 *    label carries these [[Actions]], together with the clearing of the scopes it enters afresh;
 *  - each condition is placed on the transitions that bind one of its variables, reading the others' registers
 *    (RMA's last-bound placement, made dynamic: see [[Check]]); a condition with aggregates is placed on the
 *    transitions that leave its scope, and, where the match may end inside the scope, on a final copy of the atom
 *    that ends it (the atom itself stays, not final, so that the run goes on);
 *  - a NONE(...) whose conditions name only variables bound before it ([[io.sparkcer.engine.automaton.Gap.onRegisters]])
 *    is judged on the skips of its gap ([[Judgement]]): its conditions read the registers of the operand before it
 *    (allocated as a scope's, though no atom binds the NONE's event), with the event as the NONE's, and an event that
 *    passes its guard and satisfies them all is one the skips do not pass.
 * No state is added but those final copies, as in the paper. Then the takes that a skip dominates are removed
 * ([[DominatedTakes]]), unless the runs are compared (NEXT, LAST and MAX compare the complex events, with every
 * event they mark, where removing a take keeps each row but not each complex event); again unless runs are compared,
 * an unselected variable's take that one order comparison reads is made once per match, keeping the easiest of its
 * events ([[ExistentialTakes]]), and the labels of an OR's alternatives that mark the same variables are joined where
 * their runs could repeat a row ([[JoinedLabels]]). Last, what may still make the runs exponential in the window is
 * named ([[RunGrowth]]).
 */
object Placement {

  /** The automaton with its checks and register actions, and what its registers are. */
  final case class Placed(nfa: Nfa, program: RegisterProgram)

  /** @param ranked whether runs are compared by the events they mark (NEXT, LAST, MAX): then every take is kept */
  def place(nfa: Nfa, ranked: Boolean = false): Placed = new Builder(nfa, ranked).build()

  /**
   * A scope's registers: per variable a single register, a hardest-event register or a list; the `prev` register;
   * the accumulators.
   */
  private final case class Allocation(single: Map[String, Int], hardest: Map[String, Hardest], list: Map[String, Int],
      prev: Option[(String, Int)], accumulators: IndexedSeq[Int]) {
    def registers: RegisterSet =
      RegisterSet((single.values.toSeq ++ hardest.values.map(_.register) ++ prev.map(_._2)).sorted,
        list.values.toSeq.sorted, accumulators)
  }

  private final class Builder(nfa: Nfa, ranked: Boolean) {
    private var singles = 0
    private var lists = 0
    private val accumulators = mutable.ArrayBuffer.empty[(Int, Int)]
    private val labels =
      mutable.LinkedHashMap[(IndexedSeq[Int], Actions), Int]((IndexedSeq.empty[Int], Actions.None) -> 0)
    private val checks = mutable.LinkedHashMap.empty[Check, Int]

    private val allocations: IndexedSeq[Allocation] = nfa.scopes.map { scope =>
      val c = nfa.conditions(scope.condition)
      val prev = c.prevVariables.headOption
      // A NONE's event is the current event of its judgement, in no register.
      val plain = if (prev.isDefined) Nil else c.variables.filterNot(scope.candidate.contains)
      val (one, several) = plain.partition(v => Multiplicity.of(scope.body, v) == Multiplicity.One)
      // An event that binds another variable of the condition too is checked as both: that needs its list.
      def alone(v: String) =
        scope.bindings.values.forall(vs => !vs.contains(v) || vs.forall(u => u == v || !c.allVariables.contains(u)))
      val comparison = OrderComparison.of(c)
      val sides = several.flatMap(v => comparison.flatMap(_.sideOf(v)).filter(_ => alone(v)).map(v -> _))
      Allocation(
        one.map(v => v -> { singles += 1; singles - 1 }).toMap,
        sides.map { case (v, side) => v -> { singles += 1; Hardest(singles - 1, scope.condition, side) } }.toMap,
        several.filterNot(sides.toMap.contains).map(v => v -> { lists += 1; lists - 1 }).toMap,
        prev.map(v => v -> { singles += 1; singles - 1 }),
        c.slots.indices.filter(k => c.slots(k).function.aggregate).map { k =>
          accumulators += (scope.condition -> k); accumulators.length - 1
        }
      )
    }

    private def aggregates(s: Int): Boolean = nfa.conditions(nfa.scopes(s).condition).aggregates.nonEmpty

    /**
     * Per NONE the registers judge (by its index in the automaton's gaps), its conditions, each read against the
     * registers of its scope as they are before the event, the event as the NONE's.
     */
    private val judged: Map[Int, Seq[Check]] = nfa.gaps.indices.filter(nfa.gaps(_).onRegisters).map { g =>
      val gap = nfa.gaps(g)
      g -> gap.scopes.map { s =>
        val condition = nfa.scopes(s).condition
        val sources = nfa.conditions(condition).variables.map(v =>
          if (v == gap.variable) Source.Current else source(allocations(s), v))
        Check(condition, sources, Nil, label = 0, Phase.Before)
      }
    }.toMap

    def build(): Placed = {
      val n = nfa.stateCount
      // Final atoms inside a scope with aggregates get a final copy, where the aggregates are checked as the match ends.
      val copies = (0 until n).filter(q =>
        nfa.finals(q) && nfa.scopes.indices.exists(s =>
          aggregates(s) &&
            nfa.scopes(s).atoms.contains(nfa.atomOf(q)))).zipWithIndex.map { case (q, i) => q -> (n + i) }.toMap
      // Every transition with the state it leads to (a final copy, or its own target) and the checks it carries.
      val placed: IndexedSeq[IndexedSeq[(Transition, Int, Seq[Check])]] = (0 until n).map { q =>
        nfa.transitions(q).flatMap { t =>
          val checks = checksOn(t)
          (t, t.target, checks) +: copies.get(t.target).toSeq.map(copy =>
            (t, copy, checks ++ endChecks(nfa.atomOf(t.target))))
        }
      } ++ copies.map(_ => IndexedSeq.empty)
      val live = liveness(placed)
      val checked = placed.map(
        _.map { case (t, target, checks) =>
          val label = if (t.marks) labelOf(t, live(target)) else t.label
          // A check applies its transition's label (its resets); a transition that marks nothing has none.
          t.copy(target = target, label = label, checks = checks.map(c => checkBit(c.copy(label = math.max(label, 0)))))
        })
      // The judgements' bits follow the checks'.
      val judgements = judged.keys.toSeq.sorted.zipWithIndex.map { case (g, j) =>
        g -> Judgement(nfa.guards.length + checks.size + j, nfa.gaps(g).guards, judged(g))
      }.toMap
      val transitions = checked.map(
        _.map(t =>
          if (t.judges.isEmpty) t else t.copy(excludes = t.excludes ++ t.judges.map(judgements(_).bit), judges = Nil)))
      val finals = (0 until n).map(q => nfa.finals(q) && !copies.contains(q)) ++ copies.map(_ => true)
      val actions = labels.keys.toIndexedSeq.map(_._2)
      val placedNfa = new Nfa(
        transitions,
        finals,
        nfa.guards,
        labels.keys.toIndexedSeq.map(_._1),
        nfa.conditions,
        nfa.scopes,
        nfa.atomOf ++ copies.keys.toSeq.sortBy(copies),
        nfa.atoms,
        nfa.gaps
      )
      val judging = judgements.values.toIndexedSeq.sortBy(_.bit)
      val placedChecks = checks.keys.toIndexedSeq
      val chosen =
        if (ranked) ExistentialTakes.Chosen(placedNfa, actions, judging)
        else {
          val undominated = DominatedTakes.removed(placedNfa, actions, judgedReads)
          val taken = ExistentialTakes.chosen(ExistentialTakes.Chosen(undominated, actions, judging), placedChecks)
          JoinedLabels.joined(taken, placedChecks)
        }
      val program = new RegisterProgram(
        singles,
        lists,
        accumulators.toIndexedSeq,
        chosen.actions,
        placedChecks,
        nfa.guards.length,
        RunGrowth.perSubset(chosen.nfa, chosen.actions, subsetRegisters),
        chosen.judgements,
        chosen.existential
      )
      Placed(chosen.nfa, program)
    }

    /**
     * The registers that take a value per subset of the events they are given ([[RunGrowth]]), each described:
     * lists, and the accumulators of sums and averages.
     */
    private def subsetRegisters: Seq[RunGrowth.Register] = nfa.scopes.zip(allocations).flatMap { case (scope, alloc) =>
      val c = nfa.conditions(scope.condition)
      val lists = alloc.list.toSeq.sortBy(_._2).map { case (v, l) =>
        RunGrowth.Register(RegisterSet(Nil, Seq(l), Nil), s"'${c.text}' keeps every event of $v")
      }
      val sums = c.slots.indices.filter(k => c.slots(k).function.aggregate).zip(alloc.accumulators).collect {
        case (k, acc) if c.slots(k).function == SlotFunction.Sum || c.slots(k).function == SlotFunction.Avg =>
          RunGrowth.Register(RegisterSet(Nil, Nil, Seq(acc)),
            s"'${c.text}' keeps a ${c.slots(k).function.name} per subset of ${c.slots(k).variable.value}'s events")
      }
      lists ++ sums
    }

    /** The registers the judgements read: what an event added to them makes a NONE's event harder to judge excluded. */
    private val judgedReads: RegisterSet = judged.values.flatten.map(_.reads).foldLeft(RegisterSet.None)(_ ++ _)

    /**
     * The registers live at each state: those that a check on some transition ahead reads, or a judgement on a skip
     * ahead (RMA keeps an event "only for as long as" a predicate needs it). A check reads the registers before its
     * transition's writes, or (at the end of a match) after them; a judgement as the run waits in the gap.
     */
    private def liveness(placed: IndexedSeq[IndexedSeq[(Transition, Int, Seq[Check])]]): IndexedSeq[RegisterSet] = {
      val read = for (q <- placed.indices; (t, target, checks) <- placed(q);
        (at, check) <-
          checks.map(c => (if (c.phase == Phase.Write) target else q) -> c) ++ t.judges.flatMap(judged).map(q -> _))
        yield at -> check.reads
      Liveness.of(placed.length, read, for (q <- placed.indices; (_, target, _) <- placed(q)) yield q -> target)
    }

    private val allRegisters = RegisterSet(0 until singles, 0 until lists, accumulators.indices)

    /**
     * The label of a marking transition: its selected variables, and what it does to the registers: reset the scopes
     * it enters afresh, write the event where a check ahead reads it, and drop what no check ahead reads.
     */
    private def labelOf(t: Transition, live: RegisterSet): Int = {
      val b = nfa.atomOf(t.target)
      val write = mutable.ArrayBuffer.empty[Int]
      val append = mutable.ArrayBuffer.empty[Int]
      val accumulate = mutable.ArrayBuffer.empty[Int]
      val keepHardest = mutable.ArrayBuffer.empty[Hardest]
      for ((scope, alloc) <- nfa.scopes.zip(allocations) if scope.atoms.contains(b)) {
        val c = nfa.conditions(scope.condition)
        scope.bindings(b).foreach { v =>
          alloc.single.get(v).filter(live.singles.contains).foreach(write += _)
          alloc.hardest.get(v).filter(h => live.singles.contains(h.register)).foreach(keepHardest += _)
          alloc.list.get(v).filter(live.lists.contains).foreach(append += _)
          alloc.prev.filter(p => p._1 == v && live.singles.contains(p._2)).foreach(write += _._2)
          for ((k, acc) <- c.slots.indices.filter(k => c.slots(k).function.aggregate).zip(alloc.accumulators)
            if c.slots(k).variable.value == v && live.accumulators.contains(acc)) accumulate += acc
        }
      }
      val reset = t.resets.map(allocations(_).registers).foldLeft(RegisterSet.None)(_ ++ _)
      val actions = Actions(reset, write.toSeq, append.toSeq, accumulate.toSeq, keepHardest.toSeq, allRegisters -- live)
      labels.getOrElseUpdate((nfa.labels(t.label), actions), labels.size)
    }

    private def checkBit(check: Check): Int = nfa.guards.length + checks.getOrElseUpdate(check, checks.size)

    /**
     * The checks on a transition that reads an event into atom b, leaving atom `from` (-1: none): the conditions of
     * the scopes whose variables it binds, and the aggregates of the scopes it leaves (checked before the transition
     * acts). A skip carries none (a NONE's conditions are judged on skips, apart: [[judged]]).
     */
    private def checksOn(t: Transition): Seq[Check] = if (!t.reads) Nil
    else {
      val (from, b) = (t.from, nfa.atomOf(t.target))
      val binding = for {
        ((scope, alloc), s) <- nfa.scopes.zip(allocations).zipWithIndex
        if scope.atoms.contains(b) && !aggregates(s) && scope.candidate.isEmpty
        c = nfa.conditions(scope.condition)
        here = scope.bindings(b).filter(c.allVariables.contains)
        if here.nonEmpty
      } yield {
        val check = alloc.prev match {
          case Some((v, register)) =>
            if (!here.contains(v)) None
            else Some(Check(scope.condition, c.variables.map(_ => Source.Current),
                c.slots.map(_ => SlotSource.Previous(register)),
                label = 0, Phase.Reset))
          case None =>
            val sources = c.variables.map { v =>
              if (here.contains(v))
                alloc.list.get(v).filter(_ => here.size > 1).fold[Source](Source.Current)(Source.CurrentOrList)
              else source(alloc, v)
            }
            Some(Check(scope.condition, sources, Nil, label = 0, Phase.Reset))
        }
        check
      }
      val leaving = for {
        ((scope, alloc), s) <- nfa.scopes.zip(allocations).zipWithIndex
        // Left for an atom outside it, or for a new instance of it (an iteration around it begins again).
        if aggregates(s) && scope.atoms.contains(from) && (!scope.atoms.contains(b) || t.resets.contains(s))
      } yield aggregateCheck(scope.condition, alloc, Phase.Before)
      binding.flatten ++ leaving
    }

    /** The aggregates of the scopes around final atom `b`, checked as a match ends there (its event included). */
    private def endChecks(b: Int): Seq[Check] =
      for {
        ((scope, alloc), s) <- nfa.scopes.zip(allocations).zipWithIndex
        if aggregates(s) && scope.atoms.contains(b)
      } yield aggregateCheck(scope.condition, alloc, Phase.Write)

    private def aggregateCheck(condition: Int, alloc: Allocation, phase: Phase): Check = {
      val c = nfa.conditions(condition)
      val accumulator = c.slots.indices.filter(k => c.slots(k).function.aggregate).zip(alloc.accumulators).toMap
      Check(
        condition, c.variables.map(source(alloc, _)), c.slots.indices.map(k => SlotSource.Aggregate(accumulator(k))),
        label = 0, phase)
    }

    private def source(alloc: Allocation, v: String): Source =
      alloc.single.get(v).orElse(alloc.hardest.get(v).map(_.register)).map(Source.Single)
        .getOrElse(Source.Each(alloc.list(v)))
  }
}
