package io.sparkcer.engine.ceql

import scala.collection.mutable

import io.sparkcer.engine.syntax.{SqlFragment, SqlText, Token, TokenKind}

/** CORE's own forms in the Spark SQL of a CEQL predicate or condition, which Spark reads once they are rewritten. */
object CoreForms {
  /** Words that end the operands of `IN a..b`. */
  private val OperatorWords = Seq("AND", "OR", "NOT", "IN", "BETWEEN", "LIKE", "RLIKE", "IS")

  /**
   * CORE's forms among the scanned tokens, as edits at query offsets:
   *  - `x IN {a, b}` → `x IN (a, b)`;
   *  - `x IN RANGE(a, b)` → `x BETWEEN (a) AND (b)`, and `x IN a..b` → `x BETWEEN a AND b` (both with NOT);
   *  - strings in typographic quotes, or with a doubled quote standing for itself (`'it''s'`), as Spark strings.
   */
  def apply(s: SqlText.Scanned): Seq[SqlFragment.Edit] = {
    val (tokens, depths, partner) = (s.tokens, s.depths, s.partner)
    val edits = mutable.ArrayBuffer.empty[SqlFragment.Edit]
    def replace(t: Token, replacement: String): Unit = edits += SqlFragment.Edit(t.pos.offset, t.length, replacement)
    for ((t, i) <- tokens.zipWithIndex) t.kind match {
      case TokenKind.Ident if t.isWord("IN") && s.at(i + 1).isSymbol("{") && partner.contains(i + 1) =>
        replace(s.at(i + 1), "(")
        replace(tokens(partner(i + 1)), ")")
      case TokenKind.Ident
          if t.isWord("IN") && s.at(i + 1).isWord("RANGE") && s.at(i + 2).isSymbol("(") &&
            partner.contains(i + 2) =>
        val (open, close) = (i + 2, partner(i + 2))
        val commas = (open + 1 until close).filter(k => tokens(k).isSymbol(",") && depths(k) == depths(open) + 1)
        if (commas.size == 1) {
          edits += SqlFragment.Edit(t.pos.offset, s.at(i + 1).end - t.pos.offset, "BETWEEN ")
          replace(tokens(commas.head), ") AND (")
        }
      case TokenKind.Ident if t.isWord("IN") && !s.at(i + 1).isSymbol("(") =>
        // `IN a..b`: the `..` that follows at the same depth, within the operand (before any operator word)
        val range = (i + 1 until tokens.length)
          .takeWhile(k => depths(k) >= depths(i) && !OperatorWords.exists(tokens(k).isWord))
          .find(k => depths(k) == depths(i) && tokens(k).isSymbol(".."))
        range.foreach { k => replace(t, "BETWEEN"); replace(tokens(k), " AND ") }
      case TokenKind.StrLit if !"'\"".contains(t.text.head) || t.text.init.tail.contains(t.text.head.toString * 2) =>
        replace(t, "'" + t.value.replace("\\", "\\\\").replace("'", "\\'") + "'")
      case _ =>
    }
    edits.toSeq
  }
}
