package io.sparkcer.engine.ceql

import scala.collection.mutable

import io.sparkcer.engine.ceql.TokenKind._

/**
 * The predicate of a `var[predicate]` filter: a Spark SQL boolean expression over the event's columns (DESIGN §3),
 * which Spark's own expression parser reads, so that every Spark expression works in it.
 *
 * @param text     the predicate as written, trimmed
 * @param sparkSql the text Spark parses: `text` with CORE's own forms rewritten ([[PredicateScanner]])
 * @param pos      where `text` starts in the query
 * @param edits    the rewrites, in order, as (offset in `text`, length replaced, replacement)
 */
final case class Predicate(text: String, sparkSql: String, pos: Position, edits: Seq[Predicate.Edit]) {

  /** The offset in the query of the character at `offset` in [[sparkSql]]; inside a rewrite, the rewrite's start. */
  def queryOffset(offset: Int): Int = {
    var shift = 0 // how much longer the Spark text is than the written one, before `offset`
    val inside = edits.find { e =>
      val start = e.offset + shift
      if (offset >= start + e.replacement.length) shift += e.replacement.length - e.length
      offset >= start && offset < start + e.replacement.length
    }
    pos.offset + inside.fold(offset - shift)(_.offset)
  }
}

object Predicate {
  final case class Edit(offset: Int, length: Int, replacement: String)
}

/**
 * Reads the predicate of `var[...]` as Spark SQL: it runs to the `]` that closes the opening bracket (brackets,
 * parentheses and braces nest; strings, backquoted names and comments are skipped whole) and rewrites only
 * CORE's own forms into Spark's:
 *  - `x IN {a, b}` → `x IN (a, b)`;
 *  - `x IN RANGE(a, b)` → `x BETWEEN (a) AND (b)`, and `x IN a..b` → `x BETWEEN a AND b` (both with NOT);
 *  - strings in typographic quotes, or with a doubled quote standing for itself (`'it''s'`), as Spark strings.
 * Everything else reaches Spark as written, so that errors in it are Spark's, at their place in the query.
 */
object PredicateScanner {

  private val Closing = Map("(" -> ")", "[" -> "]", "{" -> "}")
  /** Words that end the operands of `IN a..b`. */
  private val OperatorWords = Seq("AND", "OR", "NOT", "IN", "BETWEEN", "LIKE", "RLIKE", "IS")

  /**
   * Scans the predicate of `variable[` in `query`, from right after `open`, its `[` token.
   * @return the predicate and its closing `]` token
   */
  def scan(query: String, open: Token, variable: Name): (Predicate, Token) = {
    val lexer = new Lexer(query, Position.advance(query, open.pos, open.end), query.length, lenient = true)
    val tokens = mutable.ArrayBuffer.empty[Token]
    val depths = mutable.ArrayBuffer.empty[Int] // the bracket depth each token stands at
    val partner = mutable.HashMap.empty[Int, Int] // an opening bracket's index -> its closing one's
    val brackets = mutable.Stack.empty[Int]
    var t = lexer.next()
    while (!(isSym("]", t) && brackets.isEmpty)) {
      if (t.kind == End)
        throw new CeqlException(s"expected ']' to end the predicate ${variable.value}[... opened at ${open.pos}, found " +
          "the end of the query", t.pos, query)
      depths += brackets.size
      if (t.kind == Sym && Closing.contains(t.text)) {
        // Spark's parser recurses on each level too, and must not overflow the stack.
        if (brackets.size >= TokenCursor.MaxNesting)
          throw new CeqlException(s"expected at most ${TokenCursor.MaxNesting} levels of nesting in a predicate, " +
            "found more; write it with fewer levels", t.pos, query)
        brackets.push(tokens.length)
      }
      else if (t.kind == Sym && Closing.valuesIterator.contains(t.text)) {
        val close = brackets.headOption.map(i => Closing(tokens(i).text)).getOrElse("]")
        if (t.text != close) throw new CeqlException(s"expected '$close', found '${t.text}'", t.pos, query)
        partner(brackets.pop()) = tokens.length
      }
      tokens += t
      t = lexer.next()
    }
    if (tokens.isEmpty) throw new CeqlException(s"expected a predicate in ${variable.value}[...], found ']'", t.pos, query)

    val start = tokens.head.pos.offset
    val edits = rewrites(tokens.toIndexedSeq, depths.toIndexedSeq, partner).sortBy(_.offset)
      .map(e => e.copy(offset = e.offset - start))
    val text = query.substring(start, tokens.last.end)
    val sparkSql = new StringBuilder
    var at = 0
    for (e <- edits) { sparkSql ++= text.substring(at, e.offset) ++= e.replacement; at = e.offset + e.length }
    sparkSql ++= text.substring(at)
    (Predicate(text, sparkSql.toString, tokens.head.pos, edits.toSeq), t)
  }

  /** CORE's forms among the predicate's tokens (whose brackets all balance), as edits at query offsets. */
  private def rewrites(tokens: IndexedSeq[Token], depths: IndexedSeq[Int], partner: collection.Map[Int, Int])
      : mutable.ArrayBuffer[Predicate.Edit] = {
    val edits = mutable.ArrayBuffer.empty[Predicate.Edit]
    def replace(t: Token, replacement: String): Unit = edits += Predicate.Edit(t.pos.offset, t.length, replacement)
    def at(i: Int): Token = if (i < tokens.length) tokens(i) else Token(End, "", "", Position.Unknown)
    for ((t, i) <- tokens.zipWithIndex) t.kind match {
      case Ident if isKw("IN", t) && isSym("{", at(i + 1)) =>
        replace(at(i + 1), "(")
        replace(tokens(partner(i + 1)), ")")
      case Ident if isKw("IN", t) && isKw("RANGE", at(i + 1)) && isSym("(", at(i + 2)) =>
        val (open, close) = (i + 2, partner(i + 2))
        val commas = (open + 1 until close).filter(k => isSym(",", tokens(k)) && depths(k) == depths(open) + 1)
        if (commas.size == 1) {
          edits += Predicate.Edit(t.pos.offset, at(i + 1).end - t.pos.offset, "BETWEEN ")
          replace(tokens(commas.head), ") AND (")
        }
      case Ident if isKw("IN", t) && !isSym("(", at(i + 1)) =>
        // `IN a..b`: the `..` that follows at the same depth, within the operand (before any operator word)
        val range = (i + 1 until tokens.length)
          .takeWhile(k => depths(k) >= depths(i) && !OperatorWords.exists(isKw(_, tokens(k))))
          .find(k => depths(k) == depths(i) && isSym("..", tokens(k)))
        range.foreach { k => replace(t, "BETWEEN"); replace(tokens(k), " AND ") }
      case StrLit if !"'\"".contains(t.text.head) || t.text.init.tail.contains(t.text.head.toString * 2) =>
        replace(t, "'" + t.value.replace("\\", "\\\\").replace("'", "\\'") + "'")
      case _ =>
    }
    edits
  }

  private def isSym(s: String, t: Token): Boolean = t.kind == Sym && t.text == s
  private def isKw(k: String, t: Token): Boolean = t.kind == Ident && t.text.equalsIgnoreCase(k)
}
