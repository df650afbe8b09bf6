package io.sparkcer.engine.ceql

import io.sparkcer.engine.syntax.{DurationUnits, Name, Position, Positioned, SqlFragment}

/** A whole CEQL statement, as written (CORE's CEQL, Bucchi et al., VLDB 2022, §2.2, with spark-cer's clauses). */
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
  /** The clause written out: `WITHIN 5 EVENTS`, `WITHIN 1 HOURS 30 MINUTES`, `WITHIN 10 [ts]`. */
  def describe(w: Window): String = w match {
    case Events(n, _) => s"WITHIN $n EVENTS"
    case Attribute(n, column, _) => s"WITHIN $n [${column.value}]"
    case Duration(millis, _) =>
      val parts = DurationUnits.Units.foldLeft((millis, Seq.empty[String])) { case ((left, out), (unit, ms)) =>
        (left % ms, if (left / ms > 0) out :+ s"${left / ms} ${unit}S" else out)
      }._2
      parts.mkString("WITHIN ", " ", "")
  }

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

/** Complex Event Logic formulas (CORE's grammar, Figure 2 of the CORE paper, plus `:`, `:+`, NOT and AND). */
sealed trait Cel extends Positioned
object Cel {
  /** `type` or `stream>type`: one event of that type (from that stream). */
  final case class Atom(stream: Option[Name], eventType: Name, pos: Position) extends Cel
  /** `NOT(type [FILTER ...])`: one event that is not such an event; it is read but left out of the match. */
  final case class Not(atom: Atom, filter: Option[Filter], pos: Position) extends Cel
  /** `cel AS var`. */
  final case class Bind(body: Cel, variable: Name, pos: Position) extends Cel
  /**
   * `cel ; cel` (skip till any match) or `cel : cel` (contiguous). `gap` holds the `NONE(...)` written between the two
   * operands of `;` (`A ; NONE(B) ; C`): a match of `first ; second` in which no event strictly between the last event
   * of `first` and the first event of `second` is one of them ([[Exclusion]]). Empty for `:`, which has no gap.
   */
  final case class Sequence(first: Cel, second: Cel, contiguous: Boolean, pos: Position, gap: Seq[Exclusion] = Nil)
      extends Cel
  /** `cel OR cel`. */
  final case class Or(left: Cel, right: Cel, pos: Position) extends Cel
  /** `cel AND cel`: a match of each, on disjoint events, in any order and interleaved (the CEL paper's AND, Bucchi et al., VLDB 2018, §3). */
  final case class And(left: Cel, right: Cel, pos: Position) extends Cel
  /** `cel+` or `cel:+` (contiguous iterations). */
  final case class Iteration(body: Cel, contiguous: Boolean, pos: Position) extends Cel
  /** `cel FILTER filter`. */
  final case class Filtered(body: Cel, filter: Filter, pos: Position) extends Cel

  /** Every `NONE(...)` of a formula, left to right. */
  def exclusions(cel: Cel): Seq[Exclusion] = cel match {
    case _: Atom | _: Not => Nil
    case Bind(b, _, _) => exclusions(b)
    case Sequence(a, b, _, _, gap) => exclusions(a) ++ gap ++ exclusions(b)
    case Or(a, b, _) => exclusions(a) ++ exclusions(b)
    case And(a, b, _) => exclusions(a) ++ exclusions(b)
    case Iteration(b, _, _) => exclusions(b)
    case Filtered(b, _, _) => exclusions(b)
  }

  /** The atoms and NOTs of a formula, left to right (not those of a NONE, which the match does not read). */
  def leaves(cel: Cel): Seq[Cel] = cel match {
    case _: Atom | _: Not => Seq(cel)
    case Bind(b, _, _) => leaves(b)
    case Sequence(a, b, _, _, _) => leaves(a) ++ leaves(b)
    case Or(a, b, _) => leaves(a) ++ leaves(b)
    case And(a, b, _) => leaves(a) ++ leaves(b)
    case Iteration(b, _, _) => leaves(b)
    case Filtered(b, _, _) => leaves(b)
  }
}

/**
 * `NONE(R [AS v] [FILTER f])` between two operands of `;`: no event between them is an `R` (one of `types`) that
 * satisfies `f`. The filter names the candidate event by `v` (its AS name, else its one type) and may relate it to the
 * variables bound on either side of the `;`, read with the match's bindings; `v` binds nothing in the match.
 */
final case class Exclusion(types: Seq[Cel.Atom], variable: Option[Name], filter: Option[Filter], pos: Position)
    extends Positioned {
  /** The name the filter gives the candidate event. */
  def candidate: String = variable.fold(types.head.eventType.value)(_.value)
}

/**
 * The FILTER language (CORE, §2.2, and conditions over several events): `var[predicate]` and conditions over `var.attr`, combined with AND, OR and NOT.
 * These connectives are the formula's: `φ FILTER (f AND g)` is `(φ FILTER f) FILTER g` and `φ FILTER (f OR g)` is
 * `(φ FILTER f) OR (φ FILTER g)`, as in CORE; NOT is pushed down to the leaves, where it negates the predicate.
 */
sealed trait Filter extends Positioned
object Filter {
  /** `var[predicate]`: the predicate is Spark SQL over the event's columns ([[SqlFragment]]). */
  final case class OnVariable(variable: Name, predicate: SqlFragment, pos: Position) extends Filter {
    /** The predicate as written. */
    def text: String = predicate.text
  }
  /** A condition over `var.attr`, aggregates and `prev` ([[Condition]]). */
  final case class Relation(condition: Condition, pos: Position) extends Filter
  final case class And(left: Filter, right: Filter, pos: Position) extends Filter
  final case class Or(left: Filter, right: Filter, pos: Position) extends Filter
  final case class Not(operand: Filter, pos: Position) extends Filter

  /** The leaves of a filter, left to right. */
  def leaves(f: Filter): Seq[Filter] = f match {
    case And(l, r, _) => leaves(l) ++ leaves(r)
    case Or(l, r, _) => leaves(l) ++ leaves(r)
    case Not(o, _) => leaves(o)
    case leaf => Seq(leaf)
  }

  /** The `var[predicate]` parts of a filter, left to right. */
  def onVariables(f: Filter): Seq[OnVariable] = leaves(f).collect { case v: OnVariable => v }

  /** The conditions of a filter, left to right. */
  def relations(f: Filter): Seq[Relation] = leaves(f).collect { case r: Relation => r }

  /** Every filter of a formula (NOT's and NONE's included), outermost first. */
  def filters(cel: Cel): Seq[Filter] = cel match {
    case Cel.Filtered(body, f, _) => f +: filters(body)
    case Cel.Not(_, f, _) => f.toSeq
    case Cel.Bind(b, _, _) => filters(b)
    case Cel.Sequence(a, b, _, _, gap) => filters(a) ++ gap.flatMap(_.filter) ++ filters(b)
    case Cel.Or(a, b, _) => filters(a) ++ filters(b)
    case Cel.And(a, b, _) => filters(a) ++ filters(b)
    case Cel.Iteration(b, _, _) => filters(b)
    case _: Cel.Atom => Nil
  }

  /** Every `var[predicate]` of a formula (NOT's included). */
  def all(cel: Cel): Seq[OnVariable] = filters(cel).flatMap(onVariables)
}
