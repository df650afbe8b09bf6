package io.sparkcer.engine.syntax

/**
 * A stretch of Spark SQL inside a query, which Spark's own expression parser reads, so that every Spark expression
 * works in it: CEQL's `var[predicate]` and conditions over several events, MATCH_RECOGNIZE's DEFINE and
 * MEASURES expressions.
 *
 * @param text     the stretch as written, trimmed
 * @param sparkSql the text Spark parses: `text` with the language's own forms rewritten (CORE's, by
 *                 [[io.sparkcer.engine.ceql.PredicateScanner]]; RUNNING and FINAL, by MATCH_RECOGNIZE's parser)
 * @param pos      where `text` starts in the query
 * @param edits    the rewrites, in order, as (offset in `text`, length replaced, replacement)
 */
final case class SqlFragment(text: String, sparkSql: String, pos: Position, edits: Seq[SqlFragment.Edit]) {

  /** The offset in the query of the character at `offset` in [[sparkSql]]; inside a rewrite, the rewrite's start. */
  def queryOffset(offset: Int): Int = {
    var shift = 0 // how much longer the Spark text is than the written one, before `offset`
    val inside = edits.find { e =>
      val start = e.offset + shift
      if (offset >= start + e.replacement.length) shift += e.replacement.length - e.length
      offset >= start && offset < start + e.replacement.length
    }
    pos.offset + inside.fold(offset - shift)(_.offset)
  }

  /**
   * Runs `read`, which reads [[sparkSql]] and fails at offsets in it, with its errors placed where they stand in
   * `query`, the text this predicate is part of.
   */
  def readIn[A](query: String)(read: => A): A =
    try read
    catch {
      case e: PatternException if e.pos.offset >= 0 =>
        throw new PatternException(e.problem, Position.advance(query, pos, queryOffset(e.pos.offset)), query, e.length)
    }
}

object SqlFragment {
  final case class Edit(offset: Int, length: Int, replacement: String)

  /** The predicate whose written `text` (starting at `pos`) Spark reads with `edits` applied (offsets in `text`). */
  def edited(text: String, pos: Position, edits: Seq[Edit]): SqlFragment = {
    val sorted = edits.sortBy(_.offset)
    val sparkSql = new StringBuilder
    var done = 0
    for (e <- sorted) { sparkSql ++= text.substring(done, e.offset) ++= e.replacement; done = e.offset + e.length }
    sparkSql ++= text.substring(done)
    SqlFragment(text, sparkSql.toString, pos, sorted)
  }
}
