package io.sparkcer.engine.analysis

import io.sparkcer.engine.ceql.Cel

/** How many events a variable binds in a match: the same count in every match, or a count that varies. */
sealed trait Multiplicity
object Multiplicity {
  final case class Exactly(n: Int) extends Multiplicity
  case object Varies extends Multiplicity
  val One: Multiplicity = Exactly(1)

  def of(cel: Cel, variable: String): Multiplicity = count(cel, Some(variable))

  /**
   * How many distinct events a match of the formula binds, when it is the same in every match: not under an iteration,
   * nor an OR whose operands bind different numbers, nor an AND, whose operands may read one event.
   */
  def eventsPerMatch(cel: Cel): Option[Int] = count(cel, None, distinct = true) match {
    case Exactly(n) => Some(n)
    case Varies => None
  }

  /** Whether every match of the formula binds `variable` to some event (every match marks at least one event). */
  def always(cel: Cel, variable: String): Boolean = cel match {
    case Cel.Atom(_, t, _) => t.value == variable
    case _: Cel.Not => false
    case Cel.Bind(body, v, _) => v.value == variable || always(body, variable)
    case Cel.Sequence(a, b, _, _, _) => always(a, variable) || always(b, variable)
    case Cel.And(a, b, _) => always(a, variable) || always(b, variable)
    case Cel.Or(a, b, _) => always(a, variable) && always(b, variable)
    case Cel.Iteration(body, _, _) => always(body, variable)
    case Cel.Filtered(body, _, _) => always(body, variable)
  }

  /**
   * Whether some match binds `variable` to more than one event: it lies under an iteration, or in both operands of a
   * sequence or AND. A variable bound in one alternative of OR only binds at most one event, though its count varies.
   */
  def mayBindSeveral(cel: Cel, variable: String): Boolean = most(cel, Some(variable)) > 1

  /** The most marked events of `variable` (None: of the formula) one match has, [[Int.MaxValue]] for no bound. */
  private def most(cel: Cel, variable: Option[String]): Int = cel match {
    case Cel.Atom(_, t, _) => if (variable.forall(_ == t.value)) 1 else 0
    case _: Cel.Not => 0
    case Cel.Bind(body, v, _) => most(body, if (variable.contains(v.value)) None else variable)
    case Cel.Sequence(a, b, _, _, _) => saturatingAdd(most(a, variable), most(b, variable))
    case Cel.And(a, b, _) => saturatingAdd(most(a, variable), most(b, variable))
    case Cel.Or(a, b, _) => math.max(most(a, variable), most(b, variable))
    case Cel.Iteration(body, _, _) => if (most(body, variable) == 0) 0 else Int.MaxValue
    case Cel.Filtered(body, _, _) => most(body, variable)
  }

  private def saturatingAdd(a: Int, b: Int): Int = if (a > Int.MaxValue - b) Int.MaxValue else a + b

  private def sum(a: Multiplicity, b: Multiplicity): Multiplicity = (a, b) match {
    case (Exactly(x), Exactly(y)) => Exactly(x + y)
    case _ => Varies
  }

  /** `variable` None counts every marked event of the formula; `distinct`, events rather than bindings. */
  private def count(cel: Cel, variable: Option[String], distinct: Boolean = false): Multiplicity = cel match {
    case Cel.Atom(_, t, _) => Exactly(if (variable.forall(_ == t.value)) 1 else 0)
    case _: Cel.Not => Exactly(0)
    case Cel.Bind(body, v, _) => count(body, if (variable.contains(v.value)) None else variable, distinct)
    case Cel.Sequence(a, b, _, _, _) => sum(count(a, variable, distinct), count(b, variable, distinct))
    case Cel.And(a, b, _) => if (distinct) Varies else sum(count(a, variable), count(b, variable))
    case Cel.Or(a, b, _) =>
      // Each operand once: evaluated again per OR, a chain of n alternatives would cost 2^n.
      val left = count(a, variable, distinct)
      if (left == count(b, variable, distinct)) left else Varies
    case Cel.Iteration(body, _, _) => if (count(body, variable, distinct) == Exactly(0)) Exactly(0) else Varies
    case Cel.Filtered(body, _, _) => count(body, variable, distinct)
  }
}
