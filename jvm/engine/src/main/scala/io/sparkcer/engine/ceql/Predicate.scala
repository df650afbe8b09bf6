package io.sparkcer.engine.ceql

import scala.collection.mutable

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

  /**
   * Runs `read`, which reads [[sparkSql]] and fails at offsets in it, with its errors placed where they stand in
   * `query`, the text this predicate is part of.
   */
  def readIn[A](query: String)(read: => A): A = try read catch {
    case e: CeqlException if e.pos.offset >= 0 =>
      throw new CeqlException(e.problem, Position.advance(query, pos, queryOffset(e.pos.offset)), query, e.length)
  }
}

object Predicate {
  final case class Edit(offset: Int, length: Int, replacement: String)

  /** The predicate whose written `text` (starting at `pos`) Spark reads with `edits` applied (offsets in `text`). */
  def edited(text: String, pos: Position, edits: Seq[Edit]): Predicate = {
    val sorted = edits.sortBy(_.offset)
    val sparkSql = new StringBuilder
    var done = 0
    for (e <- sorted) { sparkSql ++= text.substring(done, e.offset) ++= e.replacement; done = e.offset + e.length }
    sparkSql ++= text.substring(done)
    Predicate(text, sparkSql.toString, pos, sorted)
  }
}

/**
 * Reads the predicate of `var[...]` as Spark SQL: it runs to the `]` that closes the opening bracket (brackets,
 * parentheses and braces nest; strings, backquoted names and comments are skipped whole) and rewrites only
 * CORE's own forms into Spark's ([[SqlText.coreForms]]). Everything else reaches Spark as written, so that errors in
 * it are Spark's, at their place in the query.
 */
object PredicateScanner {

  /**
   * Scans the predicate of `variable[` in `query`, from right after `open`, its `[` token.
   * @return the predicate and its closing `]` token
   */
  def scan(query: String, open: Token, variable: Name): (Predicate, Token) = {
    val from = Position.advance(query, open.pos, open.end)
    val scanned = SqlText.scan(query, from, "a predicate", unmatched = "]") { (t, depth, _) =>
      if (t.kind == TokenKind.End)
        throw new CeqlException(s"expected ']' to end the predicate ${variable.value}[... opened at ${open.pos}, found " +
          "the end of the query", t.pos, query)
      depth == 0 && SqlText.isSym("]", t)
    }
    if (scanned.tokens.isEmpty)
      throw new CeqlException(s"expected a predicate in ${variable.value}[...], found ']'", scanned.stop.pos, query)
    (scanned.predicate(0, scanned.tokens.length, SqlText.coreForms(scanned)), scanned.stop)
  }
}

/**
 * Spark SQL text inside a CEQL query, as tokens: where it ends, how its brackets nest, CORE's own forms in it, and the
 * [[Predicate]] that a stretch of it makes. Shared by `var[predicate]` ([[PredicateScanner]]) and by conditions over
 * several events ([[ConditionScanner]]).
 */
object SqlText {
  private val Closing = Map("(" -> ")", "[" -> "]", "{" -> "}")
  /** Words that end the operands of `IN a..b`. */
  private val OperatorWords = Seq("AND", "OR", "NOT", "IN", "BETWEEN", "LIKE", "RLIKE", "IS")

  /**
   * Tokens read up to the first for which `stops(token, depth)` holds (the stop token itself not included).
   * @param tokens  the tokens before the stop, with their bracket depths
   * @param partner an opening bracket's index to its closing bracket's (CASE to its END)
   */
  final class Scanned(query: String, val tokens: IndexedSeq[Token], val depths: IndexedSeq[Int],
      val partner: collection.Map[Int, Int], val stop: Token) {
    def at(i: Int): Token = if (i < tokens.length) tokens(i) else stop

    /** The predicate made of tokens [from, until), with the edits (at query offsets) that fall inside it. */
    def predicate(from: Int, until: Int, edits: Seq[Predicate.Edit]): Predicate = {
      val start = tokens(from).pos.offset
      val text = query.substring(start, tokens(until - 1).end)
      val inside = edits.filter(e => e.offset >= start && e.offset + e.length <= start + text.length)
        .map(e => e.copy(offset = e.offset - start))
      Predicate.edited(text, tokens(from).pos, inside)
    }
  }

  /**
   * Scans `query` from `from` until `stops(token, depth, previous token)` (see [[Scanned]]); brackets nest at most
   * [[TokenCursor.MaxNesting]] deep, and a closing bracket that closes nothing is an error: `unmatched` was expected.
   */
  def scan(query: String, from: Position, what: String, unmatched: String)
      (stops: (Token, Int, Option[Token]) => Boolean): Scanned = {
    val lexer = new Lexer(query, from, query.length, lenient = true)
    val tokens = mutable.ArrayBuffer.empty[Token]
    val depths = mutable.ArrayBuffer.empty[Int]
    val partner = mutable.HashMap.empty[Int, Int]
    val brackets = mutable.Stack.empty[Int]
    var t = lexer.next()
    while (!stops(t, brackets.size, tokens.lastOption)) {
      if (t.kind == TokenKind.End) throw new IllegalStateException("a scan must stop at the end of the query")
      val word = !tokens.lastOption.exists(isSym(".", _)) // `b.end` is a column, not a keyword
      depths += brackets.size
      if (opens(t, word)) {
        // Spark's parser recurses on each level too, and must not overflow the stack.
        if (brackets.size >= TokenCursor.MaxNesting)
          throw new CeqlException(s"expected at most ${TokenCursor.MaxNesting} levels of nesting in $what, " +
            "found more; write it with fewer levels", t.pos, query)
        brackets.push(tokens.length)
      } else if (closes(t, word && brackets.headOption.exists(i => isKw("CASE", tokens(i))))) {
        val close = brackets.headOption.map(i => closer(tokens(i))).getOrElse(unmatched)
        if (!t.text.equalsIgnoreCase(close)) throw new CeqlException(s"expected '$close', found '${t.text}'", t.pos, query)
        partner(brackets.pop()) = tokens.length
      }
      tokens += t
      t = lexer.next()
    }
    new Scanned(query, tokens.toIndexedSeq, depths.toIndexedSeq, partner, t)
  }

  private def opens(t: Token, word: Boolean): Boolean =
    (t.kind == TokenKind.Sym && Closing.contains(t.text)) || (word && isKw("CASE", t))
  /** `caseOpen`: END closes only an open CASE (elsewhere it may be a column's name). */
  private def closes(t: Token, caseOpen: Boolean): Boolean =
    (t.kind == TokenKind.Sym && Closing.valuesIterator.contains(t.text)) || (caseOpen && isKw("END", t))
  private def closer(t: Token): String = if (isKw("CASE", t)) "END" else Closing(t.text)

  /**
   * CORE's forms among the scanned tokens, as edits at query offsets:
   *  - `x IN {a, b}` → `x IN (a, b)`;
   *  - `x IN RANGE(a, b)` → `x BETWEEN (a) AND (b)`, and `x IN a..b` → `x BETWEEN a AND b` (both with NOT);
   *  - strings in typographic quotes, or with a doubled quote standing for itself (`'it''s'`), as Spark strings.
   */
  def coreForms(s: Scanned): Seq[Predicate.Edit] = {
    val (tokens, depths, partner) = (s.tokens, s.depths, s.partner)
    val edits = mutable.ArrayBuffer.empty[Predicate.Edit]
    def replace(t: Token, replacement: String): Unit = edits += Predicate.Edit(t.pos.offset, t.length, replacement)
    for ((t, i) <- tokens.zipWithIndex) t.kind match {
      case TokenKind.Ident if isKw("IN", t) && isSym("{", s.at(i + 1)) && partner.contains(i + 1) =>
        replace(s.at(i + 1), "(")
        replace(tokens(partner(i + 1)), ")")
      case TokenKind.Ident if isKw("IN", t) && isKw("RANGE", s.at(i + 1)) && isSym("(", s.at(i + 2)) &&
          partner.contains(i + 2) =>
        val (open, close) = (i + 2, partner(i + 2))
        val commas = (open + 1 until close).filter(k => isSym(",", tokens(k)) && depths(k) == depths(open) + 1)
        if (commas.size == 1) {
          edits += Predicate.Edit(t.pos.offset, s.at(i + 1).end - t.pos.offset, "BETWEEN ")
          replace(tokens(commas.head), ") AND (")
        }
      case TokenKind.Ident if isKw("IN", t) && !isSym("(", s.at(i + 1)) =>
        // `IN a..b`: the `..` that follows at the same depth, within the operand (before any operator word)
        val range = (i + 1 until tokens.length)
          .takeWhile(k => depths(k) >= depths(i) && !OperatorWords.exists(isKw(_, tokens(k))))
          .find(k => depths(k) == depths(i) && isSym("..", tokens(k)))
        range.foreach { k => replace(t, "BETWEEN"); replace(tokens(k), " AND ") }
      case TokenKind.StrLit if !"'\"".contains(t.text.head) || t.text.init.tail.contains(t.text.head.toString * 2) =>
        replace(t, "'" + t.value.replace("\\", "\\\\").replace("'", "\\'") + "'")
      case _ =>
    }
    edits.toSeq
  }

  def isSym(s: String, t: Token): Boolean = t.kind == TokenKind.Sym && t.text == s
  def isKw(k: String, t: Token): Boolean = t.kind == TokenKind.Ident && t.text.equalsIgnoreCase(k)
}
