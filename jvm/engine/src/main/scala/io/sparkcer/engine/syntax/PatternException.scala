package io.sparkcer.engine.syntax

/**
 * Every problem with a query, in either language (CEQL, MATCH_RECOGNIZE): a syntax error, an analysis error or an
 * unsupported construct. The message names the line and column, says what was expected, and quotes the offending
 * line with a caret under it.
 */
final class PatternException(val problem: String, val pos: Position, val query: String, val length: Int = 1)
    extends IllegalArgumentException(PatternException.render(problem, pos, query, length))

object PatternException {
  def render(problem: String, pos: Position, query: String, length: Int): String =
    if (pos.offset < 0 || query.isEmpty) problem
    else {
      val line = query.linesIterator.drop(pos.line - 1).nextOption().getOrElse("")
      val width = math.max(1, math.min(length, line.length - (pos.column - 1)))
      s"$pos: $problem\n  $line\n  ${" " * (pos.column - 1)}${"^" * width}"
    }
}
