package io.sparkcer.spark.rowpattern

import java.util.Locale

import org.apache.spark.sql.catalyst.analysis.UnresolvedTableValuedFunction
import org.apache.spark.sql.catalyst.expressions.{FunctionTableSubqueryArgumentExpression, IntegerLiteral}
import org.apache.spark.sql.catalyst.parser.ParseException
import org.apache.spark.sql.catalyst.plans.logical.{
  AlterViewAs, CacheTableAsSelect, CreateView, LogicalPlan, SubqueryAlias, UnresolvedWith
}
import org.apache.spark.sql.catalyst.trees.Origin
import org.apache.spark.sql.execution.command.{CreateViewCommand, DescribeQueryCommand, ExplainCommand}

import io.sparkcer.engine.rowpattern.{MatchRecognize, MatchRecognizeParser}
import io.sparkcer.engine.syntax.{PatternException, Position, Token, TokenKind}

/**
 * The `MATCH_RECOGNIZE (...)` clauses of a SQL statement, which Spark's grammar lacks, and the statement as Spark's
 * parser reads it without them (the delegating parser's way, as Delta Lake and Iceberg add their statements, here for
 * a clause that may stand wherever a table does).
 *
 * Each `relation [alias] MATCH_RECOGNIZE (...)` becomes a call of the hidden table function
 * `__cer_mr(TABLE(relation), N)` ([[MatchRecognizeCall]]), or `__cer_mr(TABLE(SELECT * FROM relation), N)` where
 * only a FROM clause reads the relation (a table function's call, an alias that renames the columns, a sample):
 * Spark parses and resolves the relation as any table argument (CTEs and views included), the alias after the clause
 * stays where it was, and the clause itself, parsed here, is the statement's clause N. Once Spark has parsed the
 * statement, each call becomes the clause it stands for, in the plan itself ([[Rewritten.bind]]), for the analyzer
 * ([[ResolveMatchRecognize]]); and a view keeps the statement's text as written, which is parsed again where the view
 * is read. The replacement has the length of what it replaces, line breaks kept, so every character after it keeps
 * its line and column, and Spark places its errors where the user wrote them; in the relation's first line, which
 * moves right by the call's prefix, [[Rewritten.placed]] moves them back. Strings, quoted names and comments are
 * skipped whole (CEQL's lexer, read once for the statement).
 */
object MatchRecognizeStatement {
  /** Words that come before a FROM item or after one: never a relation's name or alias. */
  private val Keywords = Set(
    "FROM",
    "JOIN",
    "ON",
    "AS",
    "SELECT",
    "WHERE",
    "LATERAL",
    "TABLE",
    "USING",
    "GROUP",
    "HAVING",
    "ORDER",
    "LIMIT",
    "OFFSET",
    "UNION",
    "INTERSECT",
    "EXCEPT",
    "MINUS",
    "INNER",
    "LEFT",
    "RIGHT",
    "FULL",
    "CROSS",
    "NATURAL",
    "ANTI",
    "SEMI",
    "OUTER",
    "WINDOW",
    "CLUSTER",
    "DISTRIBUTE",
    "SORT",
    "PIVOT",
    "UNPIVOT",
    "TABLESAMPLE",
    "QUALIFY",
    "FOR",
    "MATCH_RECOGNIZE"
  )
  private val Prefix = s"${MatchRecognizeCall.FunctionName}(TABLE("
  private val FromItem = "SELECT * FROM "

  /**
   * A relation before MATCH_RECOGNIZE: its offsets in the statement, and whether only a FROM clause reads it (a
   * table function's call `range(10)`, or a relation with an alias that renames its columns, `t(id, value)`).
   */
  private final case class Relation(start: Int, end: Int, fromItem: Boolean) {
    def prefix: String = if (fromItem) Prefix + FromItem else Prefix
  }

  /**
   * The statement as Spark reads it, where each relation moved, and the clauses.
   *
   * @param moved   per clause, the relation's first line (from its start to the line's end) as (start offset, end
   *                offset) in the statement, and how many characters to the right it stands in `text` (the call's
   *                prefix)
   * @param clauses the clauses, each as clause N of its call
   */
  final case class Rewritten(text: String, moved: Seq[(Int, Int, Int)], clauses: IndexedSeq[ParsedClause]) {

    /**
     * Spark's plan of `text` with each call as the clause it stands for ([[UnresolvedMatchRecognize]]), in subqueries,
     * table arguments and CTEs too; a view's text (or a cached query's) is the statement's as written: a character
     * keeps its offset, outside a clause and around one, so the view's span of `text` is its span of `sql`.
     */
    def bind(plan: LogicalPlan, sql: String): LogicalPlan = {
      def written(span: String): String = text.lastIndexOf(span) match {
        case -1 => span
        case at => sql.substring(at, at + span.length)
      }
      plan.transformUpWithSubqueries {
        case UnresolvedTableValuedFunction(Seq(MatchRecognizeCall.FunctionName),
              Seq(t: FunctionTableSubqueryArgumentExpression, IntegerLiteral(n)), _) if clauses.indices.contains(n) =>
          UnresolvedMatchRecognize(Left(clauses(n)), t.plan)
        // A CTE's queries, and the query that EXPLAIN or DESCRIBE QUERY reads, are no children of the plan.
        case w: UnresolvedWith => w.copy(
            cteRelations = w.cteRelations.map { case (name, query) =>
              name -> bind(query, sql).asInstanceOf[SubqueryAlias]
            })
        case e: ExplainCommand => e.copy(logicalPlan = bind(e.logicalPlan, sql))
        case d: DescribeQueryCommand => d.copy(plan = bind(d.plan, sql))
        case v: CreateView => v.copy(originalText = v.originalText.map(written))
        case v: CreateViewCommand => v.copy(originalText = v.originalText.map(written))
        case v: AlterViewAs => v.copy(originalText = written(v.originalText))
        case c: CacheTableAsSelect => c.copy(originalText = written(c.originalText))
      }
    }

    /** Spark's error on `text`, placed in the statement as written. */
    def placed(e: ParseException, sql: String): ParseException = {
      val lines = sql.split("\n", -1)
      def offset(o: Origin): Option[Int] =
        for (line <- o.line if line >= 1 && line <= lines.length; column <- o.startPosition)
          yield lines.take(line - 1).map(_.length + 1).sum + column
      def back(o: Origin): Origin = offset(o).flatMap { at =>
        moved.collectFirst {
          case (from, until, shift) if at >= from + shift && at < until + shift =>
            val moved = Position.advance(sql, Position.Start, at - shift)
            o.copy(line = Some(moved.line), startPosition = Some(moved.column - 1))
        }
      }.getOrElse(o)
      new ParseException(Some(sql), back(e.start), back(e.stop), e.getCondition, e.getMessageParameters.asScalaMap)
    }
  }

  private implicit final class Parameters(m: java.util.Map[String, String]) {
    def asScalaMap: Map[String, String] = {
      val b = Map.newBuilder[String, String]
      m.forEach((k, v) => b += k -> v)
      b.result()
    }
  }

  /**
   * The statement as Spark reads it, from its tokens ([[io.sparkcer.spark.CerSqlParser.scan]]), when it has
   * MATCH_RECOGNIZE clauses; None otherwise.
   */
  def rewrite(sql: String, tokens: IndexedSeq[Token]): Option[Rewritten] = {
    val clauses = found(sql, tokens)
    if (clauses.isEmpty) None
    else {
      val text = new StringBuilder(sql)
      val rewritten = clauses.zipWithIndex.map { case (clause, n) => rewriteOne(sql, tokens, clause, n, text) }
      Some(Rewritten(text.toString, rewritten.map(_._1), rewritten.map(_._2).toIndexedSeq))
    }
  }

  /**
   * A clause where the statement has it: its relation from `relationStart` to `relationEnd`, the clause from its
   * keyword at `start` to the end of its closing parenthesis, `end` (offsets in the statement), and the clause, whose
   * fragments stand at their offsets in the statement too. `spark_cer.translate` rewrites the pieces of a statement
   * written for another engine by these places.
   */
  final case class Located(relationStart: Int, relationEnd: Int, start: Int, end: Int, clause: MatchRecognize)

  /** The statement's MATCH_RECOGNIZE clauses, in the order they begin. */
  def locate(sql: String, tokens: IndexedSeq[Token]): Seq[Located] = found(sql, tokens).map { c =>
    Located(c.relation.start, c.relation.end, tokens(c.keyword).pos.offset, tokens(c.close).end, parse(sql, tokens, c))
  }

  /** A clause's tokens: its keyword, its closing parenthesis, and the relation before it. */
  private final case class Found(keyword: Int, close: Int, relation: Relation)

  private def found(sql: String, tokens: IndexedSeq[Token]): Seq[Found] =
    // A relation right before the keyword tells the clause from a function or column of that name.
    tokens.indices.filter(i => tokens(i).isWord("MATCH_RECOGNIZE") && tokens.lift(i + 1).exists(_.isSymbol("(")))
      .flatMap { i =>
        relationBefore(tokens, i).map { relation =>
          val close = closing(tokens, i + 1).getOrElse(
            throw new PatternException(
              "expected ')' to close MATCH_RECOGNIZE (, found the end of the statement", tokens(i + 1).pos, sql))
          Found(i, close, relation)
        }
      }

  private def parse(sql: String, tokens: IndexedSeq[Token], c: Found): MatchRecognize = {
    val body = tokens(c.keyword + 1)
    MatchRecognizeParser.parse(sql, Position.advance(sql, body.pos, body.end), tokens(c.close).pos.offset,
      tokens(c.keyword).pos)
  }

  /** Clause `n`'s call in `text`: where its relation's first line moved, and the clause. */
  private def rewriteOne(sql: String, tokens: IndexedSeq[Token], found: Found, n: Int,
      text: StringBuilder): ((Int, Int, Int), ParsedClause) = {
    val (relationStart, relationEnd) = (found.relation.start, found.relation.end)
    val clause = parse(sql, tokens, found)
    val spanEnd = tokens(found.close).end
    // The current text of the relation: an earlier clause inside it was replaced already.
    val relation = text.substring(relationStart, relationEnd)
    val call = found.relation.prefix + relation + s"), $n)"
    // The call is longer than the relation; as many blanks as it gains are dropped from the blanked clause, from its
    // lines before the last when they have them (so that what follows the clause on its last line keeps its place).
    val rest = sql.substring(relationEnd, spanEnd).map(c => if (c == '\n' || c == '\r') c else ' ')
    val gained = call.length - relation.length
    val lastBreak = rest.lastIndexOf('\n')
    val early = lastBreak > 0 && rest.take(lastBreak).count(_ == ' ') >= gained
    var drop = gained
    val kept = rest.zipWithIndex.filterNot { case (c, k) =>
      val dropped = drop > 0 && c == ' ' && (!early || k < lastBreak)
      if (dropped) drop -= 1
      dropped
    }.map(_._1).mkString
    text.replace(relationStart, spanEnd, call + kept)
    val lineEnd = sql.indexOf('\n', relationStart) match { case -1 => sql.length; case k => k }
    ((relationStart, math.min(lineEnd, relationEnd), found.relation.prefix.length), ParsedClause(clause, sql))
  }

  /**
   * The relation before the keyword at `keyword`: a name `a.b.c`, a parenthesized query or a table function's call
   * `range(10)`, optionally sampled (`TABLESAMPLE (10 PERCENT)`), then optionally `[AS] alias`, which is left out (the
   * clause's output is what the alias after the clause names) unless it renames the columns, `[AS] t(id, value)`,
   * and is kept with the relation. None when no relation stands there.
   */
  private def relationBefore(tokens: IndexedSeq[Token], keyword: Int): Option[Relation] = {
    var j = keyword - 1
    if (j >= 1 && isName(tokens(j)) && tokens(j - 1).isWord("AS")) j -= 2
    else if (j >= 1 && isName(tokens(j)) && endsRelation(tokens, j - 1)) j -= 1
    sampled(tokens, j) match {
      // `relation TABLESAMPLE (...) [REPEATABLE (seed)]`: Spark reads the sample only in a FROM clause.
      case Some(before) if endsRelation(tokens, before) =>
        Some(Relation(tokens(startOf(tokens, before)._1).pos.offset, tokens(j).end, fromItem = true))
      case Some(_) => None
      case None => plainBefore(tokens, j)
    }
  }

  /** Where the relation sampled by `TABLESAMPLE (...) [REPEATABLE (seed)]` ending at token `end` ends, if it is one. */
  private def sampled(tokens: IndexedSeq[Token], end: Int): Option[Int] =
    if (!tokens.lift(end).exists(_.isSymbol(")"))) None
    else {
      val open = opening(tokens, end)
      val sample =
        if (open >= 2 && tokens(open - 1).isWord("REPEATABLE") && tokens.lift(open - 2).exists(_.isSymbol(")")))
          opening(tokens, open - 2)
        else open
      if (sample >= 1 && tokens(sample - 1).isWord("TABLESAMPLE")) Some(sample - 2) else None
    }

  /** The relation ending at token `j`, an alias that only names it left out already. */
  private def plainBefore(tokens: IndexedSeq[Token], j: Int): Option[Relation] = {
    def endsAt(k: Int): Boolean = endsRelation(tokens, k)
    if (!endsAt(j)) None
    else {
      // `alias(columns)` after a relation (or after AS) renames its columns; a name and parentheses after anything
      // else are a table function's call.
      val renamed = if (!tokens.lift(j).exists(_.isSymbol(")"))) None
      else {
        val open = opening(tokens, j)
        if (open < 1 || !isName(tokens(open - 1))) None
        else if (open >= 3 && tokens(open - 2).isWord("AS") && endsAt(open - 3)) Some(open - 3)
        else if (endsAt(open - 2)) Some(open - 2)
        else None
      }
      val (start, called) = startOf(tokens, renamed.getOrElse(j))
      Some(Relation(tokens(start).pos.offset, tokens(j).end, fromItem = called || renamed.isDefined))
    }
  }

  /** Whether a relation may end at token k: a name, or a closing parenthesis. */
  private def endsRelation(tokens: IndexedSeq[Token], k: Int): Boolean =
    k >= 0 && (tokens.lift(k).exists(_.isSymbol(")")) || isName(tokens(k)))

  /** Where the relation ending at token `end` starts, and whether it is a table function's call. */
  private def startOf(tokens: IndexedSeq[Token], end: Int): (Int, Boolean) = {
    def qualified(name: Int): Int = {
      var k = name
      while (k >= 2 && tokens.lift(k - 1).exists(_.isSymbol(".")) && isName(tokens(k - 2))) k -= 2
      k
    }
    if (!tokens.lift(end).exists(_.isSymbol(")"))) (qualified(end), false)
    else {
      val open = opening(tokens, end)
      if (open >= 1 && isName(tokens(open - 1))) (qualified(open - 1), true) else (open, false)
    }
  }

  private def closing(tokens: IndexedSeq[Token], open: Int): Option[Int] = {
    var depth = 0
    var k = open
    while (k < tokens.length && tokens(k).kind != TokenKind.End) {
      if (tokens(k).isSymbol("(")) depth += 1
      if (tokens(k).isSymbol(")")) { depth -= 1; if (depth == 0) return Some(k) }
      k += 1
    }
    None
  }

  private def opening(tokens: IndexedSeq[Token], close: Int): Int = {
    var depth = 0
    var k = close
    while (k >= 0) {
      if (tokens(k).isSymbol(")")) depth += 1
      if (tokens(k).isSymbol("(")) { depth -= 1; if (depth == 0) return k }
      k -= 1
    }
    close
  }

  private def isName(t: Token): Boolean = t.kind == TokenKind.QuotedIdent ||
    (t.kind == TokenKind.Ident && !Keywords(t.text.toUpperCase(Locale.ROOT)))
}
