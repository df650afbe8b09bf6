package io.sparkcer.engine.syntax

import scala.collection.mutable

/**
 * Spark SQL text inside a query of either language, as tokens: where it ends, how its brackets nest, and the
 * [[SqlFragment]] that a stretch of it makes. Shared by CEQL's `var[predicate]` and conditions over several events,
 * and by MATCH_RECOGNIZE's DEFINE and MEASURES expressions.
 */
object SqlText {
  private val Closing = Map("(" -> ")", "[" -> "]", "{" -> "}")

  /**
   * Tokens read up to the first for which `stops(token, depth)` holds (the stop token itself not included).
   * @param tokens  the tokens before the stop, with their bracket depths
   * @param partner an opening bracket's index to its closing bracket's (CASE to its END)
   */
  final class Scanned(query: String, val tokens: IndexedSeq[Token], val depths: IndexedSeq[Int],
      val partner: collection.Map[Int, Int], val stop: Token) {
    def at(i: Int): Token = if (i < tokens.length) tokens(i) else stop

    /** The predicate made of tokens [from, until), with the edits (at query offsets) that fall inside it. */
    def predicate(from: Int, until: Int, edits: Seq[SqlFragment.Edit]): SqlFragment = {
      val start = tokens(from).pos.offset
      val text = query.substring(start, tokens(until - 1).end)
      val inside = edits.filter(e => e.offset >= start && e.offset + e.length <= start + text.length)
        .map(e => e.copy(offset = e.offset - start))
      SqlFragment.edited(text, tokens(from).pos, inside)
    }
  }

  /**
   * Scans `query` from `from` until `stops(token, depth, previous token)` (see [[Scanned]]); brackets nest at most
   * [[TokenCursor.MaxNesting]] deep, and a closing bracket that closes nothing is an error: `unmatched` was expected.
   */
  def scan(query: String, from: Position, what: String, unmatched: String)(stops: (Token, Int,
          Option[Token]) => Boolean): Scanned = {
    val lexer = new Lexer(query, from, query.length, lenient = true)
    val tokens = mutable.ArrayBuffer.empty[Token]
    val depths = mutable.ArrayBuffer.empty[Int]
    val partner = mutable.HashMap.empty[Int, Int]
    val brackets = mutable.Stack.empty[Int]
    var t = lexer.next()
    while (!stops(t, brackets.size, tokens.lastOption)) {
      if (t.kind == TokenKind.End) throw new IllegalStateException("a scan must stop at the end of the query")
      val word = !tokens.lastOption.exists(_.isSymbol(".")) // `b.end` is a column, not a keyword
      depths += brackets.size
      if (opens(t, word)) {
        // Spark's parser recurses on each level too, and must not overflow the stack.
        if (brackets.size >= TokenCursor.MaxNesting)
          throw new PatternException(s"expected at most ${TokenCursor.MaxNesting} levels of nesting in $what, " +
              "found more; write it with fewer levels", t.pos, query)
        brackets.push(tokens.length)
      } else if (closes(t, word && brackets.headOption.exists(i => tokens(i).isWord("CASE")))) {
        val close = brackets.headOption.map(i => closer(tokens(i))).getOrElse(unmatched)
        if (!t.text.equalsIgnoreCase(close))
          throw new PatternException(s"expected '$close', found '${t.text}'", t.pos, query)
        partner(brackets.pop()) = tokens.length
      }
      tokens += t
      t = lexer.next()
    }
    new Scanned(query, tokens.toIndexedSeq, depths.toIndexedSeq, partner, t)
  }

  private def opens(t: Token, word: Boolean): Boolean =
    (t.kind == TokenKind.Sym && Closing.contains(t.text)) || (word && t.isWord("CASE"))
  /** `caseOpen`: END closes only an open CASE (elsewhere it may be a column's name). */
  private def closes(t: Token, caseOpen: Boolean): Boolean =
    (t.kind == TokenKind.Sym && Closing.valuesIterator.contains(t.text)) || (caseOpen && t.isWord("END"))
  private def closer(t: Token): String = if (t.isWord("CASE")) "END" else Closing(t.text)
}
