package io.sparkcer.engine.ceql

/** A place in the query text: 1-based line and column, 0-based character offset. */
final case class Position(line: Int, column: Int, offset: Int) {
  override def toString: String = s"line $line, column $column"
}

object Position {
  val Unknown: Position = Position(0, 0, -1)
}

/** A whole CEQL statement, as written (DESIGN §3). */
final case class Query(
    strategy: Strategy,
    selection: Selection,
    streams: Seq[Name],
    pattern: Cel,
    partitionBy: Seq[Seq[Name]],
    orderBy: Seq[OrderKey],
    within: Option[Window],
    consumeBy: Consumption,
    limit: Option[Long])

/** An identifier with the place it was written, so that analysis errors can point at it. */
final case class Name(value: String, pos: Position) {
  override def toString: String = value
}

sealed abstract class Strategy(val keyword: String)
object Strategy {
  case object All extends Strategy("ALL")
  case object Any extends Strategy("ANY")
  case object Next extends Strategy("NEXT")
  case object Last extends Strategy("LAST")
  case object Max extends Strategy("MAX")
  case object Strict extends Strategy("STRICT")
  val values: Seq[Strategy] = Seq(All, Any, Next, Last, Max, Strict)
}

sealed trait Selection
object Selection {
  /** `SELECT *`: every `AS` variable, or the event types when there is none. */
  case object Star extends Selection
  /** `SELECT NONE`: only the partition keys and the match bounds. */
  case object Nothing extends Selection
  final case class Variables(items: Seq[SelectItem]) extends Selection
}

/** `var` or `var[attr, ...]`: an empty attribute list keeps every column. */
final case class SelectItem(variable: Name, attributes: Seq[Name])

final case class OrderKey(column: Name, descending: Boolean)

sealed trait Window { def pos: Position }
object Window {
  /** `WITHIN n EVENTS`: last.position - first.position < n in the partition's substream. */
  final case class Events(count: Long, pos: Position) extends Window
  /** `WITHIN 1 HOURS 30 MINUTES`: a span of the stream order column, in milliseconds. */
  final case class Duration(millis: Long, pos: Position) extends Window
  /** `WITHIN n [attr]`: last.attr - first.attr < n. */
  final case class Attribute(amount: Long, attribute: Name, pos: Position) extends Window
}

sealed abstract class Consumption(val keyword: String)
object Consumption {
  case object Nothing extends Consumption("NONE")
  case object Any extends Consumption("ANY")
  case object Partition extends Consumption("PARTITION")
}

/** Complex Event Logic formulas (CORE's grammar, Figure 2 of the CORE paper, plus `:`, `:+` and NOT). */
sealed trait Cel { def pos: Position }
object Cel {
  /** `type` or `stream>type`: one event of that type (from that stream). */
  final case class Atom(stream: Option[Name], eventType: Name, pos: Position) extends Cel
  /** `NOT(type [FILTER ...])`: one event that is not such an event; it is read but left out of the match. */
  final case class Not(atom: Atom, filter: Option[Filter], pos: Position) extends Cel
  /** `cel AS var`. */
  final case class Bind(body: Cel, variable: Name, pos: Position) extends Cel
  /** `cel ; cel` (skip till any match) or `cel : cel` (contiguous). */
  final case class Sequence(first: Cel, second: Cel, contiguous: Boolean, pos: Position) extends Cel
  /** `cel OR cel`. */
  final case class Or(left: Cel, right: Cel, pos: Position) extends Cel
  /** `cel+` or `cel:+` (contiguous iterations). */
  final case class Iteration(body: Cel, contiguous: Boolean, pos: Position) extends Cel
  /** `cel FILTER filter`. */
  final case class Filtered(body: Cel, filter: Filter, pos: Position) extends Cel
}

/** The FILTER language: `var[predicate]` combined with AND / OR. */
sealed trait Filter { def pos: Position }
object Filter {
  /** `var[predicate]`; `text` is the predicate as written, for engines that parse it themselves. */
  final case class OnVariable(variable: Name, predicate: Expr, text: String, pos: Position) extends Filter
  final case class And(left: Filter, right: Filter, pos: Position) extends Filter
  final case class Or(left: Filter, right: Filter, pos: Position) extends Filter
}

/** Predicate expressions over one event's columns. */
sealed trait Expr { def pos: Position }
object Expr {
  final case class Column(name: Name) extends Expr { def pos: Position = name.pos }
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
