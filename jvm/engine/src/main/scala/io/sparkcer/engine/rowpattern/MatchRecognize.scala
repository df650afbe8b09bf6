package io.sparkcer.engine.rowpattern

import io.sparkcer.engine.syntax.{Name, Position, SqlFragment}

/**
 * A `MATCH_RECOGNIZE (...)` clause (SQL:2016 row pattern recognition, feature R010, as Trino reads it; plus Flink's
 * `WITHIN INTERVAL` bound), as [[MatchRecognizeParser]] reads it. Its expressions are Spark SQL text, which Spark's
 * own parser reads ([[SqlFragment]]: the text, what Spark parses, and where it stands in the statement).
 *
 * @param partitionBy  PARTITION BY's expressions
 * @param orderBy      ORDER BY's items: the order of the rows within a partition
 * @param measures     MEASURES: an expression and its column name each
 * @param rowsPerMatch ONE ROW PER MATCH (the default), or ALL ROWS PER MATCH and what it does with empty matches
 * @param skip         AFTER MATCH SKIP: where the search goes on after a match (default: PAST LAST ROW)
 * @param pattern      PATTERN's row pattern
 * @param within       WITHIN INTERVAL: the longest time from a match's first row to its last, in milliseconds
 * @param subsets      SUBSET: union variables, each over primary ones
 * @param defines      DEFINE: the condition of each pattern variable that has one (the others match any row)
 * @param pos          where the clause starts (its MATCH_RECOGNIZE keyword, or its first token)
 */
final case class MatchRecognize(
    partitionBy: Seq[SqlFragment],
    orderBy: Seq[SortItem],
    measures: Seq[Measure],
    rowsPerMatch: RowsPerMatch,
    skip: SkipTo,
    pattern: RowPattern,
    within: Option[Within],
    subsets: Seq[Subset],
    defines: Seq[Define],
    pos: Position)

/** An ORDER BY item; `end`: the offset in the statement after its last word (ASC, DESC, NULLS FIRST or LAST). */
final case class SortItem(expression: SqlFragment, ascending: Boolean, nullsFirst: Option[Boolean], end: Int)

final case class Measure(expression: SqlFragment, name: Name)

/** `SUBSET name = (a, b, ...)`. */
final case class Subset(name: Name, members: Seq[Name])

/** `DEFINE variable AS condition`. */
final case class Define(variable: Name, condition: SqlFragment)

/** `WITHIN INTERVAL '10' MINUTES`, as milliseconds. */
final case class Within(millis: Long, text: String, pos: Position)

sealed abstract class RowsPerMatch(val sql: String) extends Serializable
object RowsPerMatch {
  case object One extends RowsPerMatch("ONE ROW PER MATCH")
  /** ALL ROWS PER MATCH [SHOW EMPTY MATCHES]: an empty match is one row, its row columns NULL. */
  case object AllShowEmpty extends RowsPerMatch("ALL ROWS PER MATCH SHOW EMPTY MATCHES")
  /** ALL ROWS PER MATCH OMIT EMPTY MATCHES: an empty match gives no row. */
  case object AllOmitEmpty extends RowsPerMatch("ALL ROWS PER MATCH OMIT EMPTY MATCHES")
  /** ALL ROWS PER MATCH WITH UNMATCHED ROWS: the rows of no match too, with NULL measures. */
  case object AllWithUnmatched extends RowsPerMatch("ALL ROWS PER MATCH WITH UNMATCHED ROWS")
}

sealed abstract class SkipTo(val sql: String) extends Serializable
object SkipTo {
  case object PastLastRow extends SkipTo("AFTER MATCH SKIP PAST LAST ROW")
  case object NextRow extends SkipTo("AFTER MATCH SKIP TO NEXT ROW")
  /** SKIP TO FIRST variable. */
  final case class First(variable: Name) extends SkipTo(s"AFTER MATCH SKIP TO FIRST ${variable.value}")
  /** SKIP TO LAST variable, and SKIP TO variable. */
  final case class Last(variable: Name) extends SkipTo(s"AFTER MATCH SKIP TO LAST ${variable.value}")
}

/**
 * A row pattern: a regular expression over pattern variables, each standing for one row that its DEFINE condition
 * accepts, matched over consecutive rows. Alternatives and quantifiers are ordered by preference: the left
 * alternative first, a greedy quantifier's longest repetition first, a reluctant one's shortest.
 */
sealed trait RowPattern { def pos: Position }

object RowPattern {
  /** A pattern variable: one row. */
  final case class Variable(name: Name) extends RowPattern { def pos: Position = name.pos }
  /** Concatenation: consecutive rows. */
  final case class Concat(parts: Seq[RowPattern], pos: Position) extends RowPattern
  /** `a | b`: the left alternative preferred. */
  final case class Alternation(options: Seq[RowPattern], pos: Position) extends RowPattern
  /** `PERMUTE(a, b, ...)`: every order of the items, the lexicographic order of preference. */
  final case class Permute(items: Seq[RowPattern], pos: Position) extends RowPattern
  /** `{- a -}`: rows matched but left out of ALL ROWS PER MATCH's output. */
  final case class Exclusion(body: RowPattern, pos: Position) extends RowPattern
  /** `a*`, `a+`, `a?`, `a{n,m}` (max None: unbounded); reluctant when not greedy (`a*?`). */
  final case class Quantified(body: RowPattern, min: Int, max: Option[Int], greedy: Boolean, pos: Position)
      extends RowPattern
  /** `()`: the empty pattern, which matches no row. */
  final case class Empty(pos: Position) extends RowPattern
  /** `^`: the start of the partition. */
  final case class PartitionStart(pos: Position) extends RowPattern
  /** `$`: the end of the partition. */
  final case class PartitionEnd(pos: Position) extends RowPattern

  /** The pattern's parts, itself first, each before its own parts, left to right. */
  def parts(p: RowPattern): Seq[RowPattern] = p +: (p match {
    case Concat(ps, _) => ps.flatMap(parts)
    case Alternation(options, _) => options.flatMap(parts)
    case Permute(items, _) => items.flatMap(parts)
    case Exclusion(body, _) => parts(body)
    case Quantified(body, _, _, _, _) => parts(body)
    case Variable(_) | Empty(_) | PartitionStart(_) | PartitionEnd(_) => Nil
  })

  /** The pattern variables in order of first appearance. */
  def variables(p: RowPattern): Seq[Name] = parts(p).collect { case Variable(name) => name }
}
