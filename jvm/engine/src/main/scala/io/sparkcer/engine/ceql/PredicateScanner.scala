package io.sparkcer.engine.ceql

import io.sparkcer.engine.syntax.{Name, PatternException, Position, SqlFragment, SqlText, Token, TokenKind}

/**
 * Reads the predicate of `var[...]` as Spark SQL: it runs to the `]` that closes the opening bracket (brackets,
 * parentheses and braces nest; strings, backquoted names and comments are skipped whole) and rewrites only
 * CORE's own forms into Spark's ([[CoreForms]]). Everything else reaches Spark as written, so that errors in
 * it are Spark's, at their place in the query.
 */
object PredicateScanner {

  /**
   * Scans the predicate of `variable[` in `query`, from right after `open`, its `[` token.
   * @return the predicate and its closing `]` token
   */
  def scan(query: String, open: Token, variable: Name): (SqlFragment, Token) = {
    val from = Position.advance(query, open.pos, open.end)
    val scanned = SqlText.scan(query, from, "a predicate", unmatched = "]") { (t, depth, _) =>
      if (t.kind == TokenKind.End)
        throw new PatternException(
          s"expected ']' to end the predicate ${variable.value}[... opened at ${open.pos}, found " +
            "the end of the query", t.pos, query)
      depth == 0 && t.isSymbol("]")
    }
    if (scanned.tokens.isEmpty)
      throw new PatternException(s"expected a predicate in ${variable.value}[...], found ']'", scanned.stop.pos, query)
    (scanned.predicate(0, scanned.tokens.length, CoreForms(scanned)), scanned.stop)
  }
}
