package io.sparkcer.engine.syntax

import java.util.Locale

import scala.collection.mutable

import io.sparkcer.engine.syntax.TokenKind._

/**
 * What a recursive-descent parser over CEQL tokens needs: the current token and one of lookahead, tests that
 * remember what they would have accepted, and errors that list it all ("expected ';', ':', OR or FILTER, found
 * 'BUYY'"). [[CeqlParser]] (statements) and the runner's predicate parser share it, so both word errors alike.
 *
 * Tokens are read on demand from `text` between `start` and `end`, so that a parser can hand a stretch of text
 * to another reader ([[resumeAt]]).
 *
 * @param lenient read a character no CEQL token starts with as a one-character symbol (a row pattern's `|`, `?`,
 *                `^` and `$`), instead of failing
 */
abstract class TokenCursor(protected val text: String, start: Position, end: Int, lenient: Boolean = false) {
  import TokenCursor._

  private var lexer = new Lexer(text, start, end, lenient)
  private val tokens = mutable.ArrayBuffer.empty[Token]
  private var index = 0
  private var depth = 0
  /** What the tests of the current token would have accepted, in the order they were made. */
  protected val expected: mutable.LinkedHashSet[String] = mutable.LinkedHashSet.empty[String]

  protected def tok: Token = token(index)
  /** The token read last. */
  protected def previous: Token = tokens(index - 1)
  /** How many tokens have been read. */
  protected def tokensRead: Int = index
  protected def peek: Token = token(index + 1)

  private def token(k: Int): Token = {
    while (tokens.length <= k && !tokens.lastOption.exists(_.kind == End)) tokens += lexer.next()
    tokens(math.min(k, tokens.length - 1))
  }

  protected def advance(): Token = {
    val t = tok
    if (t.kind != End) index += 1
    expected.clear()
    t
  }

  /** Forgets the tokens read ahead and reads on from `pos`, where another reader stopped. */
  protected def resumeAt(pos: Position): Unit = {
    tokens.remove(index, tokens.length - index)
    lexer = new Lexer(text, pos, end, lenient)
    expected.clear()
  }

  /**
   * Parses a nested construct (parentheses, a prefix NOT or minus): recursion is bounded, so that deeply nested
   * input gets an error at its place instead of a stack overflow.
   */
  protected def nested[A](opening: Token)(body: => A): A = {
    if (depth >= MaxNesting)
      throw error(
        s"expected at most $MaxNesting levels of nesting (parentheses, NOT, minus), found more; write " +
          "it with fewer levels (';', ':', OR and AND need no parentheses among themselves)",
        opening
      )
    depth += 1
    try body
    finally depth -= 1
  }

  protected def isSym(s: String, t: Token = tok): Boolean = t.isSymbol(s)
  protected def isKw(k: String, t: Token = tok): Boolean = t.isWord(k)
  protected def atSym(s: String): Boolean = isSym(s) || { expected += s"'$s'"; false }
  protected def atKw(k: String): Boolean = isKw(k) || { expected += k; false }
  protected def acceptSym(s: String): Boolean = atSym(s) && { advance(); true }
  protected def acceptKw(k: String): Boolean = atKw(k) && { advance(); true }
  protected def expectSym(s: String): Token = if (atSym(s)) advance() else fail()
  protected def expectKw(k: String): Token = if (atKw(k)) advance() else fail()
  protected def keyword(k: String): Option[String] = if (acceptKw(k)) Some(k) else None
  protected def symbol(s: String): Option[String] = if (acceptSym(s)) Some(s) else None

  /** An identifier: a bare word that is not reserved, or a backquoted name. */
  protected def name(what: String*): Name = tok.kind match {
    case QuotedIdent => val t = advance(); Name(t.value, t.pos)
    case Ident if !ReservedWords(tok.text.toUpperCase(Locale.ROOT)) => val t = advance(); Name(t.text, t.pos)
    case Ident =>
      expected ++= what
      throw error(s"${expectation()} (${tok.text} is a reserved word; write `${tok.text}` to use it as a name)")
    case _ => fail(what: _*)
  }

  protected def commaList[A](item: => A): Seq[A] = {
    val items = Seq.newBuilder[A]
    items += item
    while (acceptSym(",")) items += item
    items.result()
  }

  protected def closedBy[A](close: String)(body: => A): A = { val result = body; expectSym(close); result }

  /** `operand (operator operand)*`, left-associative; `operator` consumes an operator or returns None. */
  protected def chain[A, Op](operand: => A, operator: => Option[Op])(combine: (Op, A, A) => A): A = {
    var left = operand
    var op = operator
    while (op.isDefined) { left = combine(op.get, left, operand); op = operator }
    left
  }

  protected def complete[A](result: A): A = if (tok.kind == End) result else fail("the end of the query")

  protected def fail(what: String*): Nothing = {
    expected ++= what
    throw error(expectation())
  }

  /** The one place that words "expected ... found ...". */
  protected def expectation(): String = {
    val alternatives = expected.toSeq
    val list =
      if (alternatives.size < 2) alternatives.mkString
      else s"${alternatives.init.mkString(", ")} or ${alternatives.last}"
    val found = tok.kind match {
      case End => "the end of the query"
      case StrLit => s"the string ${tok.text}"
      case _ => s"'${tok.text}'"
    }
    s"expected $list, found $found"
  }

  protected def error(problem: String, at: Token = tok, length: Int = -1): PatternException =
    new PatternException(problem, at.pos, text, if (length > 0) length else math.max(1, at.length))
}

object TokenCursor {
  /** Words that cannot be bare identifiers (backquote them). Other keywords are contextual. */
  val ReservedWords: Set[String] = Set(
    "SELECT",
    "FROM",
    "WHERE",
    "PATTERN",
    "PARTITION",
    "ORDER",
    "BY",
    "WITHIN",
    "CONSUME",
    "LIMIT",
    "AS",
    "OR",
    "AND",
    "NOT",
    "FILTER",
    "IN",
    "LIKE",
    "RLIKE",
    "IS",
    "NULL",
    "TRUE",
    "FALSE",
    "BETWEEN"
  )

  /**
   * How deeply parentheses may nest. Parsing one level takes about a dozen stack frames, so this stays far
   * below what a thread's default stack (512 KiB to 1 MiB) holds, on the driver and on Spark Connect's server.
   */
  val MaxNesting = 256
}
