package io.sparkcer.engine.plan

import io.sparkcer.engine.automaton.Nfa
import io.sparkcer.engine.ceql.Strategy
import io.sparkcer.engine.chain.{ChainCost, ChainPath, Chains}
import io.sparkcer.engine.pcea.PceaPlan
import io.sparkcer.engine.rma.{Dominance, RegisterProgram}

/**
 * How a compiled pattern is evaluated: the one choice of evaluator, made by [[Planner.plan]] and run by
 * [[PatternEvaluator]] on each partition. Each case says what EXPLAIN shows of it, the bound it guarantees, whether
 * its rows of one event may repeat (and are then de-duplicated), and the counters it reports; a new way of evaluating
 * is a new case, which the compiler makes the evaluator handle.
 */
sealed trait Evaluation {
  /** The automaton it runs: CORE's CEA, with the checks and register actions of its conditions where it has them. */
  def nfa: Nfa

  /** What EXPLAIN says of it after the automaton: its evaluator and what that keeps; empty for the CEA's own runs. */
  def describe: String

  /** What it guarantees per event and per match, where a paper bounds it, for EXPLAIN (as the README's table does). */
  def bound: Option[String]

  /**
   * Whether different runs may give one event the same row, which is then dropped and counted
   * ([[io.sparkcer.engine.eval.Work.dropped]]): under MAX, whose runs keep unselected marks apart (elsewhere the
   * subset construction folds them, so each run is one row); with registers, where runs keep apart the events of
   * unselected variables or the alternatives of an OR of conditions; on a lazy chain, with an event no selected
   * variable binds or an OR of chains; on a PCEA, whose runs are labelled by atoms, unless
   * [[PceaPlan.rowsTellRunsApart]]. Where a chain races, only while the path leading repeats rows ([[Race]]).
   */
  def deduplicates: Boolean

  /** The counters it reports (Spark's SQL metrics, by name): the work every evaluation counts, and its own. */
  def metrics: Seq[EvaluationMetric] = EvaluationMetric.Work

  /** The equalities' PCEA, where it runs on one. */
  def pcea: Option[PceaPlan] = None

  /** The lazy chain, where it runs on one (alone or racing the registers). */
  def chain: Option[Chains] = None

  /** The registers of its conditions relating events, where it runs with them (alone or racing the lazy chain). */
  def registers: Option[RegisterProgram] = None

  override def toString: String = (describe +: bound.toSeq).filter(_.nonEmpty).mkString("; ")
}

object Evaluation {
  /**
   * CORE's evaluation (Algorithm 1) of the subset automaton on tECS, for SELECT ALL, ANY and STRICT with no
   * condition relating events.
   */
  final case class Core(nfa: Nfa) extends Evaluation {
    def describe: String = ""
    def bound: Option[String] =
      Some("per event a constant number of steps, matches enumerated with output-linear delay (CORE)")
    def deduplicates: Boolean = false
  }

  /**
   * SELECT MAX with no condition relating events: the subset automaton for maximal matches on tECS (CEL's
   * Algorithm 7). Runs that mark the same events under different unselected variables give one row each.
   */
  final case class Maximal(nfa: Nfa) extends Evaluation {
    def describe: String = ""
    def bound: Option[String] = Some("per event a constant number of steps over the subset automaton (CEL, " +
      "Algorithm 7), matches enumerated with output-linear delay")
    def deduplicates: Boolean = true
  }

  /** SELECT NEXT and LAST with no condition relating events: the NFA's runs in priority order. */
  final case class Priority(nfa: Nfa, lastFirst: Boolean) extends Evaluation {
    def describe: String = ""
    def bound: Option[String] =
      Some("per event a constant number of steps, at most one match (CEL, Algorithms 5 and 6)")
    def deduplicates: Boolean = false
  }

  /**
   * Conditions relating events, checked on the automaton's transitions against what each run's registers hold (the
   * RMA paper's symbolic register automata), the runs chosen among as `kind` says.
   *
   * @param repeatsRows  whether runs that keep apart the events of unselected variables (in their registers) or the
   *                     alternatives of an OR of conditions (in their labels' actions) may give one event the same row
   * @param pceaRefusal  why a PCEA does not key the conditions' equalities
   */
  final case class Registers(nfa: Nfa, program: RegisterProgram, kind: Registers.Kind, repeatsRows: Boolean,
      pceaRefusal: String)
      extends Evaluation {
    def describe: String = s"$runs$droppedRows${notByPcea(pceaRefusal)}"
    def bound: Option[String] = None
    def deduplicates: Boolean = repeatsRows || kind == Registers.Maximal
    override def registers: Option[RegisterProgram] = Some(program)

    /** The runs and what they keep. */
    private[plan] def runs: String =
      s"${nfa.conditions.length} conditions relating events checked on ${program.checks.length} transitions with " +
        s"${program.registers} registers (RMA), " +
        (if (program.nones.isEmpty) ""
         else s"${program.nones.length} NONE(...) relating its event to earlier ones judged against the registers " +
           "as a run waits in its gap, ") +
        (if (program.existential.isEmpty) ""
         else s"${program.judgements.count(_.ofTake)} take of an unselected variable made once per match, the later " +
           "events challenging it for the easiest (so its runs repeat no row), ") +
        (kind match {
          case Registers.AllRuns => program.growth
          case Registers.Ranked(lastFirst) =>
            s"${(if (lastFirst) Strategy.Last else Strategy.Next).keyword} over configurations (NFA state, " +
              "registers) in priority order, kept past the window while they may outrank another (the strategy " +
              "chooses before the window), " + kept
          case Registers.Maximal => "MAX over sets of configurations (NFA state, registers): each run's own, " +
              "those of runs marking the same events and those of larger runs, kept past the window (the strategy " +
              "chooses before the window), " + kept
        })

    /**
     * What EXPLAIN says where runs repeat rows; not under MAX, which de-duplicates them whatever the evaluator and
     * does not say so without conditions either.
     */
    private[plan] def droppedRows: String = if (repeatsRows) DroppedRows else ""

    /**
     * What NEXT, LAST and MAX keep of the configurations: an antichain of [[Dominance]] where an order relates what
     * their registers hold, else every one that may still be chosen, for as long as the stream.
     */
    private def kept: String =
      if (!Dominance.of(program, nfa.conditions).compares)
        "no order relating what their registers hold, so they grow with the stream"
      else "a configuration let go once another in its state makes every condition ahead as easy (" + (kind match {
        case Registers.Maximal => "one of its set, or of a larger run"
        case _ => "one ranked above it, or one past the window too with no match in the window ranked between them"
      }) + "), so they grow with the values the registers hold, not the stream"
  }

  object Registers {
    /** Which runs with registers yield the matches of an event. */
    sealed trait Kind

    /** Every run that ends there (SELECT ALL, ANY and STRICT): [[io.sparkcer.engine.rma.RegisterRun]]. */
    case object AllRuns extends Kind

    /**
     * NEXT and LAST: the run highest in the strategy's order, configurations compared in priority order
     * ([[io.sparkcer.engine.rma.RankedRegisterRun]]).
     */
    final case class Ranked(lastFirst: Boolean) extends Kind

    /** MAX: the runs no other run's match contains ([[io.sparkcer.engine.rma.MaximalRegisterRun]]). */
    case object Maximal extends Kind
  }

  /**
   * A sequence or conjunction of single events with conditions, or an OR of them, evaluated from buffered events
   * when one can end a match (the lazy chain NFA paper).
   *
   * @param repeatsRows whether its matches may repeat a row ([[Planner]] says when)
   * @param pceaRefusal why a PCEA does not key the conditions' equalities
   */
  final case class LazyChain(nfa: Nfa, chains: Chains, repeatsRows: Boolean, pceaRefusal: String) extends Evaluation {
    def describe: String = s"${chains.describe}${notByPcea(pceaRefusal)}"
    def bound: Option[String] = None
    def deduplicates: Boolean = repeatsRows
    override def chain: Option[Chains] = Some(chains)
  }

  /**
   * A chain that runs on each partition on whichever of the lazy chain and the registers does less work there
   * ([[ChainCost]]); either gives the same matches (the lazy chain NFA paper's Theorem 1).
   */
  final case class Race(lazyChain: LazyChain, onRegisters: Registers) extends Evaluation {
    def nfa: Nfa = onRegisters.nfa
    def describe: String = ChainCost.describe(lazyChain.chains, onRegisters.runs) + onRegisters.droppedRows +
      notByPcea(onRegisters.pceaRefusal)
    def bound: Option[String] = None
    def deduplicates: Boolean = lazyChain.deduplicates || onRegisters.deduplicates
    /** Whether the rows of one event may repeat on the path leading a partition now. */
    def deduplicates(path: ChainPath): Boolean = path match {
      case ChainPath.Lazy => lazyChain.deduplicates
      case ChainPath.Registers => onRegisters.deduplicates
    }
    override def metrics: Seq[EvaluationMetric] = EvaluationMetric.Work ++ EvaluationMetric.Races
    override def chain: Option[Chains] = lazyChain.chain
    override def registers: Option[RegisterProgram] = onRegisters.registers
  }

  /**
   * Equalities keyed by a PCEA (Pinto and Riveros): hash joins of each event with the runs it extends, whose union
   * trees hold the matches.
   */
  final case class Pcea(nfa: Nfa, plan: PceaPlan) extends Evaluation {
    def describe: String = plan.describe + (if (deduplicates) DroppedRows else "")
    def bound: Option[String] = Some("per event a hash lookup per equality and an insertion in a union tree " +
      "(logarithmic in the runs of a key), matches enumerated with output-linear delay (PCEA)")
    def deduplicates: Boolean = !plan.rowsTellRunsApart
    override def pcea: Option[PceaPlan] = Some(plan)
  }

  private val DroppedRows =
    ", and rows repeated by runs that unselected events or an OR of conditions keep apart dropped (counted)"

  private def notByPcea(refusal: String): String = s" (not by PCEA: $refusal)"
}
