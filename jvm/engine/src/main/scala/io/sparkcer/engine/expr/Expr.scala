package io.sparkcer.engine.expr

import io.sparkcer.engine.syntax.{Name, Position, Positioned}

/**
 * The predicates the engine's own interpreter evaluates ([[ExprInterpreter]], for the command-line runner and
 * the tests): a subset of Spark SQL plus CORE's forms, read by [[ExprParser]].
 */
sealed trait Expr extends Positioned
object Expr {
  /** A column of an event: `price`, or `b.price` (the event bound to b, in a condition relating events). */
  sealed trait Reference extends Expr { def column: Name }
  final case class Column(name: Name) extends Reference {
    def pos: Position = name.pos
    def column: Name = name
  }
  final case class Attribute(variable: Name, column: Name) extends Reference { def pos: Position = variable.pos }
  /** A literal: java.lang.Long, java.lang.Double, String, java.lang.Boolean, or null. */
  final case class Literal(value: Any, pos: Position) extends Expr
  final case class Negate(operand: Expr, pos: Position) extends Expr
  final case class Not(operand: Expr, pos: Position) extends Expr
  final case class Arithmetic(op: ArithmeticOp, left: Expr, right: Expr, pos: Position) extends Expr
  final case class Comparison(op: ComparisonOp, left: Expr, right: Expr, pos: Position) extends Expr
  final case class And(left: Expr, right: Expr, pos: Position) extends Expr
  final case class Or(left: Expr, right: Expr, pos: Position) extends Expr
  /** `e IN {v, ...}` / `e IN (v, ...)`, or with NOT. */
  final case class InSet(operand: Expr, values: Seq[Expr], negated: Boolean, pos: Position) extends Expr
  /** `e IN RANGE(lo, hi)`, `e IN lo..hi` and `e BETWEEN lo AND hi`: lo <= e <= hi. */
  final case class InRange(operand: Expr, low: Expr, high: Expr, negated: Boolean, pos: Position) extends Expr
  /** `LIKE` with SQL wildcards (`%`, `_`), or `RLIKE` with a Java regular expression. */
  final case class Like(operand: Expr, pattern: Expr, regex: Boolean, negated: Boolean, pos: Position) extends Expr
  final case class IsNull(operand: Expr, negated: Boolean, pos: Position) extends Expr
  /** `name(args...)`: a function; Spark evaluates any of its functions, the engine's interpreter a few. */
  final case class Call(function: Name, arguments: Seq[Expr], pos: Position) extends Expr
}

sealed abstract class ArithmeticOp(val symbol: String)
object ArithmeticOp {
  case object Add extends ArithmeticOp("+")
  case object Subtract extends ArithmeticOp("-")
  case object Multiply extends ArithmeticOp("*")
  case object Divide extends ArithmeticOp("/")
  case object Remainder extends ArithmeticOp("%")
}

sealed abstract class ComparisonOp(val symbol: String)
object ComparisonOp {
  case object Eq extends ComparisonOp("=")
  case object NotEq extends ComparisonOp("!=")
  case object Lt extends ComparisonOp("<")
  case object LtEq extends ComparisonOp("<=")
  case object Gt extends ComparisonOp(">")
  case object GtEq extends ComparisonOp(">=")
}
