package io.sparkcer.engine.ceql

sealed trait TokenKind
object TokenKind {
  /** A bare word: an identifier or a keyword (keywords are recognised by the parser, case-insensitively). */
  case object Ident extends TokenKind
  /** A backquoted identifier; its `value` has the quotes removed and doubled backquotes undone. */
  case object QuotedIdent extends TokenKind
  case object IntLit extends TokenKind
  case object DecLit extends TokenKind
  /** A string in '...', "..." or typographic quotes; its `value` has the quotes removed and doubled quotes undone. */
  case object StrLit extends TokenKind
  case object Sym extends TokenKind
  /** After the last token; placed right after it, so that a caret under it follows the query's last word. */
  case object End extends TokenKind
}

/** One token: `text` is the source as written (so `length` is what a caret underlines), `value` what it denotes. */
final case class Token(kind: TokenKind, text: String, value: String, pos: Position) {
  def length: Int = text.length
  def end: Int = pos.offset + text.length
}

/** Splits CEQL text into tokens, skipping blanks, `-- line` and `/* block */` comments. */
object Lexer {
  def tokenize(text: String): Vector[Token] = new Lexer(text).tokens()

  private val TwoCharSymbols = Set("..", "==", "!=", "<>", "<=", ">=")
  private val OneCharSymbols = "()[]{},;:+-*/%=<>."
  private val CurlyQuotes = Set('\u2018', '\u2019')
}

private final class Lexer(text: String) {
  import Lexer._

  private var i = 0
  private var line = 1
  private var column = 1

  private def here = Position(line, column, i)
  private def has(k: Int = 0): Boolean = i + k < text.length
  private def at(k: Int = 0): Char = if (has(k)) text.charAt(i + k) else '\u0000'
  private def bump(n: Int = 1): Unit = for (_ <- 0 until n) {
    if (text.charAt(i) == '\n') { line += 1; column = 1 }
    else column += 1
    i += 1
  }

  private def isDigit(c: Char) = c >= '0' && c <= '9'
  private def isIdentStart(c: Char) = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'
  private def isIdentPart(c: Char) = isIdentStart(c) || isDigit(c)

  def tokens(): Vector[Token] = {
    val out = Vector.newBuilder[Token]
    var end = here
    skipBlanks()
    while (has()) { out += token(); end = here; skipBlanks() }
    out += Token(TokenKind.End, "", "", end)
    out.result()
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

  /** A quoted name or string; a doubled closing quote stands for itself. */
  private def quoted(start: Position, closes: Char => Boolean, kind: TokenKind, what: String): Token = {
    val open = at()
    val value = new StringBuilder
    var closed = false
    bump()
    while (!closed) {
      if (!has()) {
        val lineEnd = text.indexOf('\n', start.offset) match { case -1 => text.length; case n => n }
        fail(s"expected a closing $open to end the $what, found the end of the query", start, lineEnd - start.offset)
      }
      val c = at()
      bump()
      if (closes(c) && at() == c) { value += c; bump() }
      else if (closes(c)) closed = true
      else value += c
    }
    if (kind == TokenKind.QuotedIdent && value.isEmpty) fail("expected a name between the backquotes, found ``", start, 2)
    make(kind, start, value.toString)
  }

  private def symbol(start: Position): Token = {
    val n =
      if (has(1) && TwoCharSymbols(text.substring(i, i + 2))) 2
      else if (OneCharSymbols.indexOf(at()) >= 0) 1
      else fail(s"expected a name, a number, a string or an operator, found '${at()}'", start, 1)
    bump(n)
    make(TokenKind.Sym, start)
  }

  private def make(kind: TokenKind, start: Position, value: String = null): Token = {
    val source = text.substring(start.offset, i)
    Token(kind, source, if (value == null) source else value, start)
  }

  private def fail(problem: String, pos: Position, length: Int): Nothing =
    throw new CeqlException(problem, pos, text, length)
}
