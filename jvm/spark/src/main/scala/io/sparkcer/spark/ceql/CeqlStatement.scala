package io.sparkcer.spark.ceql

import java.util.Locale

import io.sparkcer.engine.syntax.{PatternException, Token, TokenCursor, TokenKind}

/**
 * A SQL statement shaped like a CEQL statement: `[EXPLAIN [mode]] SELECT ... FROM s1[, s2 ...] WHERE|PATTERN ...`,
 * read from the tokens of CEQL's own lexer ([[io.sparkcer.spark.CerSqlParser.scan]]), so that strings and comments
 * are skipped.
 *
 * @param text          the statement with what CEQL does not read (the EXPLAIN prefix, trailing semicolons)
 *                      blanked out, so that positions in the CEQL text are positions in the statement
 * @param explain       the EXPLAIN mode, when the statement is an EXPLAIN
 * @param pattern       the FROM list is followed by PATTERN: the statement can only be CEQL
 * @param clauseOffset  where the WHERE or PATTERN keyword starts
 */
final case class CeqlStatement(text: String, explain: Option[String], pattern: Boolean, clauseOffset: Int) {

  /**
   * Whether a failure of CEQL's parser says more than Spark's: the statement uses PATTERN, or our parser got
   * past the WHERE keyword, i.e. failed inside the pattern or its clauses.
   */
  def clearlyCeql(e: PatternException): Boolean = pattern || e.pos.offset > clauseOffset
}

object CeqlStatement {
  private val ExplainModes = Set("EXTENDED", "CODEGEN", "COST", "FORMATTED")
  private val Open = Set("(", "[", "{")
  private val Close = Set(")", "]", "}")

  /**
   * The statement's CEQL reading, from its tokens ([[io.sparkcer.spark.CerSqlParser.scan]]), or None when it does not
   * have the shape of one.
   */
  def recognize(sql: String, tokens: IndexedSeq[Token]): Option[CeqlStatement] = {
    def isKw(i: Int, words: String*): Boolean = words.exists(tokens(i).isWord)
    def isName(i: Int): Boolean = tokens(i).kind == TokenKind.QuotedIdent ||
      (tokens(i).kind == TokenKind.Ident && !TokenCursor.ReservedWords(tokens(i).text.toUpperCase(Locale.ROOT)))

    var i = 0
    val explain =
      if (!isKw(0, "EXPLAIN")) None
      else if (ExplainModes.exists(isKw(1, _))) { i = 2; Some(tokens(1).text.toLowerCase(Locale.ROOT)) }
      else { i = 1; Some("simple") }
    if (!isKw(i, "SELECT")) return None
    val bodyStart = tokens(i).pos.offset

    // The first FROM outside brackets, then the stream list `name(.name)*, ...`, then WHERE or PATTERN.
    var depth = 0
    i += 1
    while (tokens(i).kind != TokenKind.End && !(depth == 0 && isKw(i, "FROM"))) {
      if (tokens(i).kind == TokenKind.Sym && Open(tokens(i).text)) depth += 1
      if (tokens(i).kind == TokenKind.Sym && Close(tokens(i).text)) depth -= 1
      i += 1
    }
    if (tokens(i).kind == TokenKind.End) return None
    var more = true
    while (more) {
      i += 1
      if (!isName(i)) return None
      i += 1
      while (tokens(i).isSymbol(".") && isName(i + 1)) i += 2
      more = tokens(i).isSymbol(",")
    }
    if (!isKw(i, "WHERE", "PATTERN")) return None

    val end = tokens.lastIndexWhere(t => t.kind != TokenKind.End && !t.isSymbol(";"))
    val text = blank(blank(sql, 0, bodyStart), tokens(end).end, sql.length)
    Some(CeqlStatement(text, explain, isKw(i, "PATTERN"), tokens(i).pos.offset))
  }

  /** Spaces in place of the characters in [from, until), keeping line breaks so that lines and columns stay. */
  private def blank(text: String, from: Int, until: Int): String =
    text.substring(0, from) + text.substring(from, until).map(c => if (c == '\n' || c == '\r') c else ' ') +
      text.substring(until)
}
