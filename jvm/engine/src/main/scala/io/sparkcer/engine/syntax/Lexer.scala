package io.sparkcer.engine.syntax

object Lexer {
  /** Every token of `text`, up to and including [[TokenKind.End]]. */
  def tokenize(text: String, lenient: Boolean = false): Vector[Token] = {
    val lexer = new Lexer(text, Position.Start, text.length, lenient)
    Iterator.continually(lexer.next()).span(_.kind != TokenKind.End) match {
      case (ts, end) => ts.toVector :+ end.next()
    }
  }

  private val TwoCharSymbols = Set("..", "==", "!=", "<>", "<=", ">=")
  private val OneCharSymbols = "()[]{},;:+-*/%=<>."
  private val CurlyQuotes = Set('\u2018', '\u2019')
  /** Spark's one-letter string escapes (`\%` and `\_` stay escaped, for LIKE); any other `\c` stands for `c`. */
  private val Escapes = Map('n' -> "\n", 't' -> "\t", 'r' -> "\r", 'b' -> "\b", 'Z' -> "\u001a", '%' -> "\\%",
    '_' -> "\\_")
}

/**
 * Reads CEQL tokens on demand from `text`, starting at `start` and ending at offset `end`, skipping blanks,
 * `-- line` and `/* block */` comments. On demand, because a predicate inside `var[...]` is Spark SQL, not
 * CEQL: the parser reads it with [[PredicateScanner]] and resumes here after its closing bracket.
 *
 * @param lenient reads a character that is no CEQL symbol as a one-character symbol instead of failing: Spark
 *                SQL has operators CEQL lacks (`||`, `->`, `::`, ...), and Spark judges them
 */
final class Lexer(text: String, start: Position, end: Int, lenient: Boolean) {
  import Lexer._

  private var i = start.offset
  private var line = start.line
  private var column = start.column

  private def here = Position(line, column, i)
  private def has(k: Int = 0): Boolean = i + k < end
  private def at(k: Int = 0): Char = if (has(k)) text.charAt(i + k) else '\u0000'
  private def bump(n: Int = 1): Unit = for (_ <- 0 until n) {
    if (text.charAt(i) == '\n') { line += 1; column = 1 }
    else column += 1
    i += 1
  }

  private def isDigit(c: Char) = c >= '0' && c <= '9'
  private def isIdentStart(c: Char) = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'
  private def isIdentPart(c: Char) = isIdentStart(c) || isDigit(c)

  /** The next token; [[TokenKind.End]] (right after the last token) once the text is used up, and again after. */
  def next(): Token = {
    val last = here
    skipBlanks()
    if (has()) token() else Token(TokenKind.End, "", "", last)
  }

  private def skipBlanks(): Unit = {
    var more = true
    while (more) {
      if (has() && at().isWhitespace) bump()
      else if (at() == '-' && at(1) == '-') while (has() && at() != '\n') bump()
      else if (at() == '/' && at(1) == '*') {
        val start = here
        bump(2)
        while (has() && !(at() == '*' && at(1) == '/')) bump()
        if (!has()) fail("expected '*/' to close the comment, found the end of the query", start, 2)
        bump(2)
      } else more = false
    }
  }

  private def token(): Token = {
    val start = here
    val c = at()
    if (isIdentStart(c)) { while (isIdentPart(at())) bump(); make(TokenKind.Ident, start) }
    else if (isDigit(c)) number(start)
    else if (c == '`') quoted(start, _ == '`', TokenKind.QuotedIdent, "name")
    else if (c == '\'' || c == '"') quoted(start, _ == c, TokenKind.StrLit, "string")
    else if (CurlyQuotes(c)) quoted(start, CurlyQuotes, TokenKind.StrLit, "string")
    else symbol(start)
  }

  /** Digits, then `.digits` only if a digit follows the dot (so `10..20` is 10 .. 20), then an exponent. */
  private def number(start: Position): Token = {
    var kind: TokenKind = TokenKind.IntLit
    while (isDigit(at())) bump()
    if (at() == '.' && isDigit(at(1))) { kind = TokenKind.DecLit; bump(); while (isDigit(at())) bump() }
    if ((at() == 'e' || at() == 'E') && (isDigit(at(1)) || ("+-".contains(at(1)) && isDigit(at(2))))) {
      kind = TokenKind.DecLit
      bump(2)
      while (isDigit(at())) bump()
    }
    make(kind, start)
  }

  /**
   * A quoted name or string; a doubled closing quote stands for itself. In strings a backslash escapes the next
   * character, as in Spark SQL, so that a predicate's string ends where Spark's does.
   */
  private def quoted(start: Position, closes: Char => Boolean, kind: TokenKind, what: String): Token = {
    val open = at()
    val value = new StringBuilder
    var closed = false
    bump()
    while (!closed) {
      if (!has() || (kind == TokenKind.StrLit && at() == '\\' && !has(1))) {
        val lineEnd = text.indexOf('\n', start.offset) match { case -1 => end; case n => math.min(n, end) }
        fail(s"expected a closing $open to end the $what, found the end of the query", start, lineEnd - start.offset)
      }
      val c = at()
      bump()
      if (kind == TokenKind.StrLit && c == '\\') { value ++= Escapes.getOrElse(at(), at().toString); bump() }
      else if (closes(c) && at() == c) { value += c; bump() }
      else if (closes(c)) closed = true
      else value += c
    }
    if (kind == TokenKind.QuotedIdent && value.isEmpty)
      fail("expected a name between the backquotes, found ``", start, 2)
    make(kind, start, value.toString)
  }

  private def symbol(start: Position): Token = {
    val n =
      if (has(1) && TwoCharSymbols(text.substring(i, i + 2))) 2
      else if (OneCharSymbols.indexOf(at()) >= 0 || lenient) 1
      else fail(s"expected a name, a number, a string or an operator, found '${at()}'", start, 1)
    bump(n)
    make(TokenKind.Sym, start)
  }

  private def make(kind: TokenKind, start: Position, value: String = null): Token = {
    val source = text.substring(start.offset, i)
    Token(kind, source, if (value == null) source else value, start)
  }

  private def fail(problem: String, pos: Position, length: Int): Nothing =
    throw new PatternException(problem, pos, text, length)
}
