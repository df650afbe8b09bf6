package io.sparkcer.engine.plan

import io.sparkcer.engine.analysis.{AnalyzedQuery, Relations}
import io.sparkcer.engine.automaton.{Nfa, Transition}
import io.sparkcer.engine.ceql.Strategy
import io.sparkcer.engine.chain.Chains
import io.sparkcer.engine.pcea.PceaCompiler
import io.sparkcer.engine.rma.{Placement, RegisterProgram}
import io.sparkcer.engine.syntax.PatternException

/**
 * Chooses how a pattern is evaluated ([[Evaluation]]).
 *
 * Conditions relating events choose the evaluator: equalities that a PCEA can key ([[PceaCompiler]]) run on one,
 * other chains of single events (or an OR of them) lazily ([[Chains]]) or with registers, whichever costs less on each
 * partition ([[io.sparkcer.engine.chain.ChainCost]]), anything else with registers on the automaton (RMA). NEXT, LAST
 * and MAX compare runs, which neither a PCEA nor the lazy chain keeps apart (both take SELECT ALL only): with
 * conditions they run with registers, ranked ([[io.sparkcer.engine.rma.RankedRegisterRun]]) or compared by inclusion
 * ([[io.sparkcer.engine.rma.MaximalRegisterRun]]); without, NEXT and LAST keep the NFA's runs in priority order, the
 * others run CORE's CEA.
 *
 * A NONE(...) that tests its event alone is part of the automaton (its skips exclude such events), so every evaluator
 * takes it. One whose conditions relate its event to the match's events is judged against them: where they name only
 * variables bound before it, those events are in a run's registers when a candidate comes, and the registers judge it
 * there (its gap's skips do not pass it: [[io.sparkcer.engine.rma.Judgement]]), so the pattern runs with registers as
 * any other, under every clause, or on the lazy chain where it takes the pattern. One that names a later variable
 * cannot be judged when it comes, only kept in a list until that variable is bound, a run per list content: the lazy
 * chain's buffer holds those events once for every run, and judges them only where a match is complete around them.
 * So a pattern with such a NONE runs on the lazy chain or is refused, saying what it needs.
 */
object Planner {

  /**
   * The evaluation of a pattern whose automaton is `automaton` (CORE's CEA, before any register is placed).
   *
   * @param lazyChains   whether a chain of single events with conditions may be evaluated lazily; without, it runs
   *                     with registers on the automaton, as every other pattern with conditions
   * @param equalityPcea whether equalities are evaluated by a PCEA where one can; without, they are conditions as any
   * @param chainsByCost whether such a chain runs on whichever of the lazy chain and the registers does less work on
   *                     each partition; without, always lazily
   */
  def plan(analyzed: AnalyzedQuery, automaton: Nfa, lazyChains: Boolean, equalityPcea: Boolean,
      chainsByCost: Boolean): Evaluation = {
    val strategy = analyzed.query.strategy
    val pceaOrRefusal = if (equalityPcea) PceaCompiler.compile(analyzed, automaton) else Left("PCEA is turned off")
    val chainShape = if (lazyChains && pceaOrRefusal.isLeft) Chains.of(analyzed, automaton) else None
    requireJudged(analyzed, automaton, chainShape, lazyChains)
    pceaOrRefusal match {
      case Right(pcea) => Evaluation.Pcea(automaton, pcea)
      case Left(pceaRefusal) =>
        // The general evaluators keep the events a condition relates to a repeating variable's until the match ends.
        Relations.requireBounded(analyzed.query, analyzed.text)
        val kind = strategy match {
          case Strategy.Next | Strategy.Last => Evaluation.Registers.Ranked(lastFirst = strategy == Strategy.Last)
          case Strategy.Max => Evaluation.Registers.Maximal
          case _ => Evaluation.Registers.AllRuns
        }
        val registers =
          Option.when(automaton.hasRegisters && judgedOnRegisters(automaton) && (chainShape.isEmpty || chainsByCost)) {
            val placed = Placement.place(automaton, kind != Evaluation.Registers.AllRuns)
            val repeatsRows = kind == Evaluation.Registers.AllRuns && !rowsTellRunsApart(placed.nfa, placed.program)
            Evaluation.Registers(placed.nfa, placed.program, kind, repeatsRows, pceaRefusal)
          }
        val nfa = registers.fold(automaton)(_.nfa)
        val chain = chainShape.map { shape =>
          val chains = shape.labelledAs(automaton, nfa)
          Evaluation.LazyChain(nfa, chains, repeatsRows(chains, nfa), pceaRefusal)
        }
        // Never raced against registers whose runs repeat no row, when its own matches would: the repeats are work
        // that the registers do not do, and grow with the window. Nor where it searches for witnesses: there the
        // registers' one run per match (ExistentialTakes) keeps the witness in a register, where the chain searches
        // for it per row.
        val racing = chain.filter(c =>
          registers.forall(_.repeatsRows) ||
            !c.repeatsRows && c.chains.alternatives.forall(_.witnesses.isEmpty))
        (racing, registers) match {
          case (Some(c), Some(r)) => Evaluation.Race(c, r)
          case (Some(c), None) => c
          case (None, Some(r)) => r
          case (None, None) => strategy match {
              case Strategy.Next | Strategy.Last =>
                Evaluation.Priority(automaton, lastFirst = strategy == Strategy.Last)
              case Strategy.Max => Evaluation.Maximal(automaton)
              case _ => Evaluation.Core(automaton)
            }
        }
    }
  }

  /** Whether every NONE relating its event to the match's events names only variables bound before it. */
  private def judgedOnRegisters(automaton: Nfa): Boolean = automaton.gaps.forall(g => g.onAutomaton || g.onRegisters)

  /** A NONE whose conditions name a variable bound after it is judged by the lazy chain alone, which must take it. */
  private def requireJudged(analyzed: AnalyzedQuery, automaton: Nfa, chainShape: Option[Chains],
      lazyChains: Boolean): Unit =
    automaton.gaps.find(g => !g.onAutomaton && !g.onRegisters).filter(_ => chainShape.isEmpty).foreach { g =>
      throw new PatternException(
        s"NONE(... FILTER ...) relates its event '${g.variable}' to the events of the match " +
          s"(${g.conditions.map(automaton.conditions(_).text).mkString(" AND ")}), naming " +
          s"${g.later.map(v => s"'$v'").mkString(", ")} bound after it, " +
          "which only the lazy chain judges: it takes a sequence of single events, each bound to a variable of its own " +
          "(A AS a ; NONE(B AS b FILTER b.acct = c.acct) ; C AS c), with conditions on no repeating variable, under " +
          "SELECT ALL (the default) with a WITHIN window and no LIMIT or CONSUME BY" +
          (if (lazyChains) "" else " (the lazy chain is turned off here)") + ". A NONE whose conditions name only " +
          "variables bound before it (NONE(B AS b FILTER b.acct = a.acct)) runs with any pattern and clause, judged " +
          "against the registers, and so does one that tests its event alone (NONE(B FILTER B.amount > 100))",
        g.exclusion.pos,
        analyzed.text,
        4
      )
    }

  /**
   * Whether a lazy chain's matches may repeat a row: in an OR of chains whose matches no atom-to-atom check tells
   * apart, or with an event no selected variable binds that is not searched for as a witness. Such an event repeats
   * no row where it is the first or the last of a sequence (the row's start or end) or a witness
   * ([[io.sparkcer.engine.chain.ChainPlan.witnesses]]); elsewhere (under AND, or beside an iteration) it does.
   */
  private def repeatsRows(chains: Chains, nfa: Nfa): Boolean =
    chains.mayRepeatRows(atom => nfa.labels(atom.label).toSet) || chains.alternatives.exists { plan =>
      plan.atoms.indices.exists { i =>
        nfa.labels(plan.atoms(i).label).isEmpty && !plan.witnesses.contains(i) && !plan.bounds(i)
      }
    }

  /**
   * Whether a row names the one run it came from, with registers: every label an event is read with binds a selected
   * variable, but for the event a match starts with (the row's start), which one label alone may read without
   * binding any; and where two labels bind the same ones, one can only end a match and the other only come before
   * its end (as the copy of a transition that checks an aggregate as the match ends does). Then a row gives the
   * events its run read and the label of each, from which the registers and the states follow.
   *
   * Otherwise runs keep apart the events of unselected variables (in their registers) or the alternatives of an OR of
   * conditions (in their labels' actions), with one row, and the rows they repeat are dropped (and counted,
   * [[io.sparkcer.engine.eval.Work.dropped]]). Most of that is gone before evaluation: the takes that a skip dominates
   * are removed ([[io.sparkcer.engine.rma.DominatedTakes]]), an unselected variable read by one order comparison is
   * taken once per match, keeping its easiest event ([[io.sparkcer.engine.rma.ExistentialTakes]]: its labels are left
   * out here), and an OR's alternatives share their labels ([[io.sparkcer.engine.rma.JoinedLabels]]). What remains: an
   * unselected variable that two comparisons (or another kind of condition, or an aggregate that no one of its events
   * can stand for, [[io.sparkcer.engine.analysis.SingleEventAggregates]]) read; two unselected variables in a row with
   * one of them read; an OR whose alternatives take an unselected event under different conditions
   * (`b.v > a.v OR b.k > a.k`).
   */
  private def rowsTellRunsApart(nfa: Nfa, registers: RegisterProgram): Boolean = {
    // Label 0 binds nothing and does nothing: the deterministic automaton reads it as a skip.
    val marking = nfa.transitions.flatten.filter(_.label > 0)
    def ends(t: Transition) = nfa.finals(t.target)
    def continues(t: Transition) = nfa.readsAhead(t.target)
    val labels = marking.map(_.label).distinct
    // The take of an unselected variable made once per match, keeping the easiest event, splits no row.
    val (selecting, unselected) = labels.filterNot(registers.existential).partition(nfa.labels(_).nonEmpty)
    // An event read into no selected variable: only as a match's first, and there in one way (a label, NOT, label 0).
    val unselectedLater = nfa.transitions.indices.exists(q =>
      q != Nfa.Initial && nfa.transitions(q).exists(t => unselected.contains(t.label)))
    val unselectedFirst = nfa.transitions(Nfa.Initial).filter(t => t.reads && (!t.marks || nfa.labels(t.label).isEmpty))
    (unselected.isEmpty || (!unselectedLater && unselectedFirst.map(_.label).distinct.size == 1)) &&
    selecting.groupBy(nfa.labels(_)).values.forall { same =>
      same.count(l => marking.exists(t => t.label == l && ends(t))) <= 1 &&
      same.count(l => marking.exists(t => t.label == l && continues(t))) <= 1
    }
  }
}
