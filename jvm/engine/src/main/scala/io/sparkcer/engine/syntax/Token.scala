package io.sparkcer.engine.syntax

sealed trait TokenKind
object TokenKind {
  /** A bare word: an identifier or a keyword (keywords are recognised by the parser, case-insensitively). */
  case object Ident extends TokenKind
  /** A backquoted identifier; its `value` has the quotes removed and doubled backquotes undone. */
  case object QuotedIdent extends TokenKind
  case object IntLit extends TokenKind
  case object DecLit extends TokenKind
  /**
   * A string in '...', "..." or typographic quotes; its `value` has the quotes removed, doubled quotes undone and
   * Spark's backslash escapes decoded.
   */
  case object StrLit extends TokenKind
  case object Sym extends TokenKind
  /** After the last token; placed right after it, so that a caret under it follows the query's last word. */
  case object End extends TokenKind
}

/** One token: `text` is the source as written (so `length` is what a caret underlines), `value` what it denotes. */
final case class Token(kind: TokenKind, text: String, value: String, pos: Position) {
  def length: Int = text.length
  def end: Int = pos.offset + text.length

  /** Whether this is the symbol `s`. */
  def isSymbol(s: String): Boolean = kind == TokenKind.Sym && text == s

  /** Whether this is the bare word `word`, in any case (a keyword where the reader expects one). */
  def isWord(word: String): Boolean = kind == TokenKind.Ident && text.equalsIgnoreCase(word)
}
