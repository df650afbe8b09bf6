package io.sparkcer.engine.rowpattern

import java.util.Locale

import scala.collection.mutable

import io.sparkcer.engine.syntax.{DurationUnits, Name, Position, SqlFragment, SqlText, TokenCursor, TokenKind}

/**
 * Reads the body of a `MATCH_RECOGNIZE (...)` clause, the text between its parentheses:
 *
 * {{{
 * [PARTITION BY expr, ...] [ORDER BY expr [ASC | DESC] [NULLS FIRST | LAST], ...]
 * [MEASURES expr AS name, ...]
 * [ONE ROW PER MATCH | ALL ROWS PER MATCH [SHOW EMPTY MATCHES | OMIT EMPTY MATCHES | WITH UNMATCHED ROWS]]
 * [AFTER MATCH SKIP (PAST LAST ROW | TO NEXT ROW | TO FIRST var | TO LAST var | TO var)]
 * PATTERN (pattern) [WITHIN INTERVAL 'n' unit]
 * [SUBSET name = (var, ...), ...]
 * [DEFINE var AS condition, ...]
 *
 * pattern := term ('|' term)*                     alternatives, the left one preferred
 * term    := factor+                              concatenation
 * factor  := primary [quantifier]
 * primary := var | '(' [pattern] ')' | '^' | '$' | '{-' pattern '-}' | PERMUTE '(' pattern (',' pattern)* ')'
 * quantifier := ('*' | '+' | '?' | '{' n '}' | '{' n ',' [m] '}' | '{' ',' m '}') ['?']    ('?': reluctant)
 * }}}
 *
 * The expressions are Spark SQL, which Spark's parser reads: this parser only finds where each ends (at a comma or
 * the next clause's keyword, outside brackets) and rewrites the one form Spark's grammar lacks, `RUNNING f(...)` and
 * `FINAL f(...)`, into the functions `__mr_running(f(...))` and `__mr_final(f(...))`.
 */
object MatchRecognizeParser {
  /** The body of a clause standing in `query` from `from` to offset `until` (its closing parenthesis). */
  def parse(query: String, from: Position, until: Int, clause: Position): MatchRecognize =
    new MatchRecognizeParser(query, from, until, clause).read()

  /** A body written on its own, as `df.match_recognize("PARTITION BY ... PATTERN (...) DEFINE ...")` passes it. */
  def parse(text: String): MatchRecognize = parse(text, Position.Start, text.length, Position.Start)

  /** The most repetitions a quantifier may name (the compiled program is checked for size besides). */
  val MaxRepetition = 1000000
  val Running = "__mr_running"
  val Final = "__mr_final"

  /** The words that start a clause: an expression ends before them (outside brackets). */
  private val Clauses = Set("PARTITION", "ORDER", "MEASURES", "ONE", "ALL", "AFTER", "PATTERN", "SUBSET", "DEFINE")
  private val Directions = Set("ASC", "DESC", "NULLS")
}

private final class MatchRecognizeParser(query: String, from: Position, until: Int, clause: Position)
    extends TokenCursor(query, from, until, lenient = true) {
  import MatchRecognizeParser._

  def read(): MatchRecognize = {
    val partitionBy = if (acceptKw("PARTITION")) { expectKw("BY"); commaList(expression("an expression", Set.empty)) }
    else Nil
    val orderBy = if (acceptKw("ORDER")) { expectKw("BY"); commaList(sortItem()) }
    else Nil
    val measures = if (acceptKw("MEASURES")) commaList(measure()) else Nil
    val rowsPerMatch = rows()
    val skip = if (acceptKw("AFTER")) { expectKw("MATCH"); skipTo() }
    else SkipTo.PastLastRow
    expectKw("PATTERN")
    val open = expectSym("(")
    val pattern = if (isSym(")")) RowPattern.Empty(open.pos) else nested(open)(alternation())
    expectSym(")")
    val within = if (acceptKw("WITHIN")) Some(interval()) else None
    val subsets = if (acceptKw("SUBSET")) commaList(subset()) else Nil
    val defines = if (acceptKw("DEFINE")) commaList(define()) else Nil
    if (tok.kind != TokenKind.End) fail()
    MatchRecognize(partitionBy, orderBy, measures, rowsPerMatch, skip, pattern, within, subsets, defines, clause)
  }

  // ---- clauses -------------------------------------------------------------------------------------------------

  private def sortItem(): SortItem = {
    val e = expression("an expression", Directions)
    val ascending = if (acceptKw("DESC")) false else { acceptKw("ASC"); true }
    val nullsFirst = if (acceptKw("NULLS")) Some(if (acceptKw("FIRST")) true else { expectKw("LAST"); false }) else None
    // The expression was scanned apart from the cursor's tokens: the last one read is a direction word, or before e.
    SortItem(e, ascending, nullsFirst, math.max(e.pos.offset + e.text.length, previous.end))
  }

  private def measure(): Measure = {
    val e = expression("an expression", Set("AS"))
    if (!atKw("AS")) throw error(s"${expectation()}: every measure is named (MEASURES expr AS name)")
    advance()
    Measure(e, name("a name for the measure"))
  }

  private def rows(): RowsPerMatch =
    if (acceptKw("ONE")) { expectKw("ROW"); expectKw("PER"); expectKw("MATCH"); RowsPerMatch.One }
    else if (acceptKw("ALL")) {
      expectKw("ROWS"); expectKw("PER"); expectKw("MATCH")
      if (acceptKw("SHOW")) { expectKw("EMPTY"); expectKw("MATCHES"); RowsPerMatch.AllShowEmpty }
      else if (acceptKw("OMIT")) { expectKw("EMPTY"); expectKw("MATCHES"); RowsPerMatch.AllOmitEmpty }
      else if (acceptKw("WITH")) { expectKw("UNMATCHED"); expectKw("ROWS"); RowsPerMatch.AllWithUnmatched }
      else RowsPerMatch.AllShowEmpty
    } else RowsPerMatch.One

  private def skipTo(): SkipTo = {
    expectKw("SKIP")
    if (acceptKw("PAST")) { expectKw("LAST"); expectKw("ROW"); SkipTo.PastLastRow }
    else {
      expectKw("TO")
      if (acceptKw("NEXT")) { expectKw("ROW"); SkipTo.NextRow }
      else if (acceptKw("FIRST")) SkipTo.First(name("a pattern variable"))
      else if (acceptKw("LAST")) SkipTo.Last(name("a pattern variable"))
      else SkipTo.Last(name("NEXT ROW, FIRST, LAST or a pattern variable"))
    }
  }

  /** `INTERVAL '10' MINUTES` (or `INTERVAL 10 MINUTE`): one unit, from milliseconds to days. */
  private def interval(): Within = {
    val start = expectKw("INTERVAL")
    val amount = tok.kind match {
      case TokenKind.IntLit => advance()
      case TokenKind.StrLit if tok.value.trim.matches("\\d+") => advance()
      case _ => fail("a whole number of a unit, e.g. '10' MINUTES")
    }
    val unit = if (tok.kind == TokenKind.Ident) DurationUnits.millis(tok.text) else None
    if (unit.isEmpty) fail("MILLISECONDS, SECONDS, MINUTES, HOURS or DAYS")
    advance()
    val millis = BigInt(amount.value.trim) * unit.get
    if (millis <= 0 || millis > Long.MaxValue)
      throw error(s"expected a positive interval, found ${amount.text}", amount)
    Within(millis.toLong, query.substring(start.pos.offset, previous.end), start.pos)
  }

  private def subset(): Subset = {
    val union = name("a name for the union variable")
    expectSym("=")
    expectSym("(")
    val members = closedBy(")")(commaList(name("a pattern variable")))
    Subset(union, members)
  }

  private def define(): Define = {
    val variable = name("a pattern variable")
    expectKw("AS")
    Define(variable, expression("a condition", Set.empty))
  }

  /**
   * Spark SQL text up to a comma, a clause's keyword or one of `stops`, outside brackets (or the end of the body),
   * with RUNNING and FINAL rewritten; the cursor resumes at the token it stopped at.
   */
  private def expression(what: String, stops: Set[String]): SqlFragment = {
    val scanned = SqlText.scan(query, tok.pos, what, unmatched = ")") { (t, depth, previous) =>
      val word = t.kind == TokenKind.Ident && !previous.exists(_.isSymbol("."))
      t.kind == TokenKind.End || t.pos.offset >= until || (depth == 0 && (
        t.isSymbol(",") || t.isSymbol(")") ||
          (word && (Clauses(t.text.toUpperCase(Locale.ROOT)) || stops(t.text.toUpperCase(Locale.ROOT))))))
    }
    if (scanned.tokens.isEmpty) fail(what)
    resumeAt(scanned.stop.pos)
    scanned.predicate(0, scanned.tokens.length, runningAndFinal(scanned))
  }

  /** `RUNNING f(...)` → `__mr_running(f(...))`, and FINAL likewise, as edits at query offsets. */
  private def runningAndFinal(s: SqlText.Scanned): Seq[SqlFragment.Edit] = {
    val edits = mutable.ArrayBuffer.empty[SqlFragment.Edit]
    for ((t, i) <- s.tokens.zipWithIndex) {
      val semantics = if (t.isWord("RUNNING")) Some(Running) else if (t.isWord("FINAL")) Some(Final) else None
      val call = i + 2 < s.tokens.length && s.tokens(i + 1).kind == TokenKind.Ident && s.tokens(i + 2).isSymbol("(")
      for (function <- semantics if call && s.partner.contains(i + 2)) {
        val close = s.tokens(s.partner(i + 2))
        edits += SqlFragment.Edit(t.pos.offset, s.tokens(i + 1).pos.offset - t.pos.offset, s"$function(")
        edits += SqlFragment.Edit(close.pos.offset, close.length, "))")
      }
    }
    edits.toSeq
  }

  // ---- the row pattern --------------------------------------------------------------------------------------------

  private def alternation(): RowPattern = {
    val first = concatenation()
    if (!isSym("|")) first
    else {
      val options = Seq.newBuilder[RowPattern] += first
      while (acceptSym("|")) options += concatenation()
      RowPattern.Alternation(options.result(), first.pos)
    }
  }

  private def concatenation(): RowPattern = {
    val parts = Seq.newBuilder[RowPattern]
    parts += factor()
    while (startsPrimary) parts += factor()
    parts.result() match {
      case Seq(one) => one
      case many => RowPattern.Concat(many, many.head.pos)
    }
  }

  private def startsPrimary: Boolean =
    tok.kind == TokenKind.Ident || tok.kind == TokenKind.QuotedIdent || isSym("(") || isSym("^") || isSym("$") ||
      exclusionStart

  /** `{-`, written as one token (a `{` right before a `-`). */
  private def exclusionStart: Boolean = isSym("{") && isSym("-", peek) && peek.pos.offset == tok.end
  private def exclusionEnd: Boolean = isSym("-") && isSym("}", peek) && peek.pos.offset == tok.end

  private def factor(): RowPattern = {
    val primary = this.primary()
    if (isSym("*") || isSym("+") || isSym("?") || (isSym("{") && !exclusionStart)) quantified(primary) else primary
  }

  private def primary(): RowPattern = {
    val t = tok
    if (acceptSym("(")) {
      if (acceptSym(")")) RowPattern.Empty(t.pos)
      else nested(t)(closedBy(")")(alternation()))
    } else if (acceptSym("^")) RowPattern.PartitionStart(t.pos)
    else if (acceptSym("$")) RowPattern.PartitionEnd(t.pos)
    else if (exclusionStart) {
      advance(); advance()
      val body = nested(t)(alternation())
      if (!exclusionEnd) fail("'-}'")
      advance(); advance()
      RowPattern.Exclusion(body, t.pos)
    } else if (isKw("PERMUTE") && isSym("(", peek)) {
      advance()
      val open = advance()
      val items = nested(open)(closedBy(")")(commaList(alternation())))
      RowPattern.Permute(items, t.pos)
    } else if (tok.kind == TokenKind.Ident || tok.kind == TokenKind.QuotedIdent) {
      val n = advance()
      RowPattern.Variable(Name(if (n.kind == TokenKind.QuotedIdent) n.value else n.text, n.pos))
    } else fail("a pattern variable", "'('", "'^'", "'$'", "'{-'", "PERMUTE")
  }

  private def quantified(body: RowPattern): RowPattern = {
    val q = advance()
    val (min, max) = q.text match {
      case "*" => (0, None)
      case "+" => (1, None)
      case "?" => (0, Some(1))
      case "{" =>
        val low = if (tok.kind == TokenKind.IntLit) Some(bound()) else None
        val bounds =
          if (acceptSym(",")) (low.getOrElse(0), if (tok.kind == TokenKind.IntLit) Some(bound()) else None)
          else (low.getOrElse(fail("a number")), low)
        expectSym("}")
        if (bounds._2.exists(_ < bounds._1))
          throw error(
            s"expected a quantifier's maximum to be at least its minimum, found {${bounds._1},${bounds._2.get}}", q,
            previous.end - q.pos.offset)
        if (bounds._2.contains(0))
          throw error("expected a quantifier that allows at least one repetition, found {0}; write () for no row", q,
            previous.end - q.pos.offset)
        bounds
    }
    // A '?' after the quantifier makes it reluctant (no primary starts with '?').
    val reluctant = acceptSym("?")
    val result = RowPattern.Quantified(body, min, max, greedy = !reluctant, body.pos)
    if (isSym("*") || isSym("+") || isSym("?") || (isSym("{") && !exclusionStart))
      throw error(
        "expected one quantifier, found a second; group the quantified pattern in parentheses to repeat it: (A+)*")
    result
  }

  private def bound(): Int = {
    val t = advance()
    t.text.toIntOption.filter(_ <= MatchRecognizeParser.MaxRepetition).getOrElse(
      throw error(s"expected a repetition count of at most ${MatchRecognizeParser.MaxRepetition}, found ${t.text}", t))
  }
}
