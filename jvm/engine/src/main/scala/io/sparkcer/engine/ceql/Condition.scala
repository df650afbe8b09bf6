package io.sparkcer.engine.ceql

import java.util.Locale

import scala.collection.mutable

import io.sparkcer.engine.syntax.{Name, PatternException, Position, SqlFragment, SqlText, Token, TokenKind}

/**
 * A condition relating events (the RMA paper's n-ary FILTER, Alevizos et al., §5): a Spark SQL boolean expression over `var.attr` references, aggregates
 * over the events bound to a variable (`sum(b.volume)`, `count(b)`) and `prev(b.price)`.
 *
 * @param predicate  the condition as written; its Spark text has each aggregate and `prev` call replaced by the name
 *                   of its [[Slot]] (a backquoted column), whose value the engine computes
 * @param references the `var.attr` references outside the slots, left to right
 * @param slots      the aggregate and `prev` calls, left to right
 */
final case class Condition(predicate: SqlFragment, references: Seq[Reference], slots: Seq[Slot]) {
  /** The variables named outside slots, in order of first appearance. */
  def variables: Seq[String] = references.map(_.variable.value).distinct
  /** The variables of every `prev` slot. */
  def prevVariables: Seq[String] = slots.filter(_.function == SlotFunction.Prev).map(_.variable.value).distinct
  def aggregates: Seq[Slot] = slots.filter(_.function.aggregate)
  /** Every variable the condition names, slots included. */
  def allVariables: Seq[String] = (variables ++ slots.map(_.variable.value)).distinct
  def text: String = predicate.text
  def pos: Position = predicate.pos
}

/**
 * `var.attr`: the attribute `attribute` (a column, possibly a nested field path) of the event bound to `variable`;
 * `attributeAt` is the query offset where the attribute starts, after the qualifier `var.`.
 */
final case class Reference(variable: Name, attribute: String, attributeAt: Int)

/**
 * An aggregate or `prev` call in a condition: `function(argument)`, where the argument is an expression over the
 * attributes of one variable (`b.price * b.volume`), or nothing for `count(b)`.
 *
 * @param name the column that stands for the call in the condition's Spark text
 */
final case class Slot(function: SlotFunction, variable: Name, argument: Option[SqlFragment], name: String,
    pos: Position)

sealed abstract class SlotFunction(val name: String, val aggregate: Boolean)
object SlotFunction {
  case object Count extends SlotFunction("count", true)
  case object Sum extends SlotFunction("sum", true)
  case object Avg extends SlotFunction("avg", true)
  case object Min extends SlotFunction("min", true)
  case object Max extends SlotFunction("max", true)
  case object First extends SlotFunction("first", true)
  case object Last extends SlotFunction("last", true)
  /** The attribute of the event bound to the variable just before the current one, in the same match. */
  case object Prev extends SlotFunction("prev", false)
  val values: Seq[SlotFunction] = Seq(Count, Sum, Avg, Min, Max, First, Last, Prev)
  def named(name: String): Option[SlotFunction] = values.find(_.name == name.toLowerCase(Locale.ROOT))
}

/**
 * Reads a condition of a FILTER as Spark SQL, from where it starts to the first of: AND or OR outside brackets (the
 * FILTER's own connectives; BETWEEN's AND excepted), FILTER, a clause (PARTITION BY, ORDER BY, WITHIN, CONSUME BY,
 * LIMIT), `;`, a closing bracket it did not open, or the end of the query. Brackets, `CASE ... END`, strings and
 * comments nest or are skipped whole, as in [[PredicateScanner]].
 */
object ConditionScanner {
  private val Stops = Set("AND", "OR", "FILTER", "PARTITION", "ORDER", "WITHIN", "CONSUME", "LIMIT")
  private val SlotPrefix = "__cer_slot_"

  /** Scans the condition starting at `from`; returns it and the token it stopped at. */
  def scan(query: String, from: Position): (Condition, Token) = {
    val between = mutable.HashMap.empty[Int, Int].withDefaultValue(0) // open BETWEENs per depth, awaiting their AND
    val scanned = SqlText.scan(query, from, "a condition", unmatched = ")") { (t, depth, previous) =>
      val word = t.kind == TokenKind.Ident && !previous.exists(_.isSymbol("."))
      if (t.kind == TokenKind.End && depth > 0)
        throw new PatternException(
          "expected a closing bracket in the condition, found the end of the query", t.pos, query)
      if (word && t.isWord("BETWEEN")) between(depth) += 1
      val betweensAnd = word && depth == 0 && t.isWord("AND") && between(0) > 0
      if (betweensAnd) between(0) -= 1
      t.kind == TokenKind.End || (depth == 0 && !betweensAnd && (
        (word && Stops(t.text.toUpperCase(Locale.ROOT))) ||
          (t.kind == TokenKind.Sym && (Set(")", "]", "}", ";").contains(t.text)))))
    }
    if (scanned.tokens.isEmpty) {
      val found = if (scanned.stop.kind == TokenKind.End) "the end of the query" else s"'${scanned.stop.text}'"
      throw new PatternException(s"expected a condition (e.g. b.price > a.price) or var[predicate], found $found",
        scanned.stop.pos, query)
    }
    (read(query, scanned), scanned.stop)
  }

  private def read(query: String, s: SqlText.Scanned): Condition = {
    val tokens = s.tokens
    def fail(problem: String, t: Token, length: Int = -1): Nothing =
      throw new PatternException(problem, t.pos, query, if (length > 0) length else t.length)
    def isName(t: Token) = t.kind == TokenKind.Ident || t.kind == TokenKind.QuotedIdent
    def afterDot(i: Int) = i > 0 && tokens(i - 1).isSymbol(".")
    val lambdaParameters = lambdas(tokens)

    /** `var.attr[.field...]` at token i: the reference and the index after it. */
    def reference(i: Int): Option[(Reference, Int)] =
      if (isName(tokens(i)) && !afterDot(i) && !lambdaParameters(tokens(i).value) && s.at(i + 1).isSymbol(".") &&
        isName(s.at(i + 2))) {
        var end = i + 3
        while (s.at(end).isSymbol(".") && isName(s.at(end + 1))) end += 2
        val path = (i + 2 until end by 2).map(k => tokens(k).value).mkString(".")
        Some(Reference(Name(tokens(i).value, tokens(i).pos), path, tokens(i + 2).pos.offset) -> end)
      } else None

    def references(from: Int, until: Int): Seq[Reference] = {
      val found = Seq.newBuilder[Reference]
      var i = from
      while (i < until) reference(i) match {
        case Some((r, next)) => found += r; i = next
        case None => i += 1
      }
      found.result()
    }

    val slots = mutable.ArrayBuffer.empty[(Slot, Int, Int)] // the slot, and its tokens [from, until)
    var i = 0
    while (i < tokens.length) {
      val t = tokens(i)
      val function = if (t.kind == TokenKind.Ident && !afterDot(i) && s.at(i + 1).isSymbol("("))
        SlotFunction.named(t.text)
      else None
      function match {
        case Some(f) if s.partner.contains(i + 1) =>
          val close = s.partner(i + 1)
          val inside = (i + 2 until close)
          val name = s"`$SlotPrefix${slots.length}`"
          def describe = query.substring(t.pos.offset, tokens(close).end)
          if (inside.isEmpty) fail(s"expected an argument in ${t.text}(), e.g. ${f.name}(b.price)", tokens(close))
          inside.find(k => SlotFunction.named(tokens(k).text).isDefined && s.at(k + 1).isSymbol("(") && !afterDot(k))
            .foreach(k =>
              fail(s"expected one variable's attributes in $describe, found a call of ${tokens(k).text}(); " +
                  "aggregates and prev do not nest", tokens(k)))
          if (tokens(inside.head).isWord("DISTINCT"))
            fail(
              s"${f.name}(DISTINCT ...) is not supported in a condition; write ${f.name}(b.attr)", tokens(inside.head))
          val slot =
            if (f == SlotFunction.Count && inside.size == 1 && isName(tokens(inside.head)))
              Slot(f, Name(tokens(inside.head).value, tokens(inside.head).pos), None, name, t.pos)
            else {
              val named = references(inside.head, close).map(_.variable).distinctBy(_.value)
              named match {
                case Seq(variable) =>
                  Slot(f, variable, Some(s.predicate(inside.head, close, CoreForms(s))), name, t.pos)
                case Seq() =>
                  val example = if (f == SlotFunction.Count) "count(b)" else s"${f.name}(b.price)"
                  fail(s"expected an attribute of a variable in $describe, e.g. $example: ${f.name} ranges over the " +
                      "events bound to one variable", t, describe.length)
                case several =>
                  fail(
                    s"expected the attributes of one variable in $describe, found ${several.map(_.value)
                        .mkString(", ")}: ${f.name} ranges over the events of one variable",
                    t,
                    describe.length
                  )
              }
            }
          slots += ((slot, i, close + 1))
          i = close + 1
        case _ => i += 1
      }
    }

    val outside = (0 :: slots.map(_._3).toList).zip(slots.map(_._2).toList :+ tokens.length)
    val refs = outside.flatMap { case (from, until) => references(from, until) }
    val slotEdits = slots.map { case (slot, from, until) =>
      SqlFragment.Edit(tokens(from).pos.offset, tokens(until - 1).end - tokens(from).pos.offset, slot.name)
    }
    val coreEdits = CoreForms(s).filterNot(e =>
      slots.exists { case (_, from, until) =>
        e.offset >= tokens(from).pos.offset && e.offset < tokens(until - 1).end
      })
    Condition(s.predicate(0, tokens.length, slotEdits.toSeq ++ coreEdits), refs, slots.map(_._1).toSeq)
  }

  /** The parameters of Spark's lambda functions (`x -> x.a`, `(acc, x) -> acc + x.a`), which are not variables. */
  private def lambdas(tokens: IndexedSeq[Token]): Set[String] = {
    val names = Set.newBuilder[String]
    for (i <- tokens.indices if tokens(i).isSymbol("-") && i + 1 < tokens.length &&
        tokens(i + 1).isSymbol(">") && tokens(i + 1).pos.offset == tokens(i).end && i > 0) {
      if (tokens(i - 1).isSymbol(")")) {
        var k = i - 2
        while (k >= 0 && !tokens(k).isSymbol("(")) { if (!tokens(k).isSymbol(",")) names += tokens(k).value; k -= 1 }
      } else names += tokens(i - 1).value
    }
    names.result()
  }
}
