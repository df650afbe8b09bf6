package io.sparkcer.engine.oracle

import scala.collection.mutable
import scala.util.Random

import io.sparkcer.engine.oracle.RowPatternOracle.{Condition, NumberedCondition, numbered}
import io.sparkcer.engine.rowpattern.{ConditionReads, MatchRecognizeParser, RowPatternAnalysis}

/**
 * A random MATCH_RECOGNIZE clause over the variables A, B, C (and D, which has no condition) and rows of small numbers
 * (the column `v`, in the order of `t`), for the engine's matcher and for Spark, both checked against
 * [[RowPatternOracle]]. Each of A, B and C gets a condition from templates that read the current row, physical
 * offsets, the row's own CLASSIFIER(), the labels of the match so far (LAST and FIRST with offsets, count, sum, max,
 * CLASSIFIER inside PREV, FIRST and LAST), its first row or MATCH_NUMBER(), each as a Scala function for the oracle
 * and the matcher, and as the SQL that says the same in DEFINE for Spark; and what they read ([[ConditionReads]]), so
 * that both of the matcher's ways of telling threads equivalent, and its one start at a time, are exercised.
 *
 * @param text       the clause without DEFINE (the engine's tests give the conditions as functions)
 * @param define     its DEFINE clause in SQL (empty when no variable has a condition)
 * @param time       the order column's value per row (positions, or increasing times under a window)
 * @param oneRow     the variables whose conditions read only their row and physical offsets from it (PREV, NEXT)
 */
final case class RandomRowPatternCase(text: String, define: String, rows: IndexedSeq[Int], time: IndexedSeq[Long],
    conditions: Map[String, NumberedCondition], described: String, reads: ConditionReads,
    window: Option[(IndexedSeq[Long], Long)], oneRow: Set[String])

object RandomRowPatternCase {
  private val Variables = IndexedSeq("A", "B", "C", "D")

  def apply(random: Random, maxRows: Int = 10): RandomRowPatternCase = {
    def pick[T](xs: T*): T = xs(random.nextInt(xs.length))
    def pattern(depth: Int): String = random.nextInt(if (depth > 2) 3 else 12) match {
      case 0 | 1 | 2 => pick(Variables: _*)
      case 3 | 4 => (0 until 2 + random.nextInt(2)).map(_ => pattern(depth + 1)).mkString(" ")
      case 5 => (0 until 2 + random.nextInt(2)).map(_ => pattern(depth + 1)).mkString("(", " | ", ")")
      case 6 | 7 | 8 =>
        val q = pick("*", "+", "?", s"{${random.nextInt(3)}}", s"{${random.nextInt(2)},}",
          s"{${random.nextInt(2)},${2 + random.nextInt(2)}}", s"{,${1 + random.nextInt(2)}}")
        val body = pattern(depth + 1)
        s"($body)$q${if (random.nextBoolean()) "?" else ""}".replace("{0}", "{1}")
      case 9 => (0 until 2 + random.nextInt(2)).map(_ => pattern(depth + 1)).mkString("PERMUTE(", ", ", ")")
      case 10 => s"{- ${pattern(depth + 1)} -}"
      case _ => pick("()", "^", "$", "^ A", "B $")
    }
    val body = pattern(0)
    val used = Variables.filter(v => body.contains(v))
    val subset = used.filter(_ != "D").take(2)
    lazy val skipTarget = pick((used ++ (if (subset.nonEmpty) Seq("U") else Nil)): _*)
    val skip = if (used.isEmpty) ""
    else pick(
      "",
      "AFTER MATCH SKIP PAST LAST ROW",
      "AFTER MATCH SKIP TO NEXT ROW",
      s"AFTER MATCH SKIP TO FIRST $skipTarget",
      s"AFTER MATCH SKIP TO LAST $skipTarget",
      s"AFTER MATCH SKIP TO $skipTarget"
    )
    val rowsPerMatch = pick("", "ONE ROW PER MATCH", "ALL ROWS PER MATCH WITH UNMATCHED ROWS")
    val n = random.nextInt(maxRows + 1)
    val rows = IndexedSeq.fill(n)(random.nextInt(4))
    val window = if (random.nextInt(4) == 0)
      Some((IndexedSeq.fill(n)(random.nextInt(3).toLong).scanLeft(0L)(_ + _).tail,
          (2 + random.nextInt(5)).toLong))
    else None
    val within = window.fold("")(w => s"WITHIN INTERVAL '${w._2}' MILLISECONDS")
    val subsets = if (subset.nonEmpty) s"SUBSET U = (${subset.mkString(", ")})" else ""
    val text = s"$rowsPerMatch $skip PATTERN ($body) $within $subsets"
    val analyzed = RowPatternAnalysis.analyze(MatchRecognizeParser.parse(text), text)
    def labelName(label: Int): String = analyzed.labels(label)

    val conditions = mutable.Map.empty[String, NumberedCondition]
    val sql = mutable.ArrayBuffer.empty[String]
    val described = mutable.ArrayBuffer.empty[String]
    var readLabels = Set.empty[String]
    var readStart = false
    var readNumber = false
    val oneRow = mutable.Set.empty[String]
    for (v <- Seq("A", "B", "C") if used.contains(v)) {
      def row(rs: IndexedSeq[Int], start: Int, labels: IndexedSeq[Int]) = rs(start + labels.length - 1)
      val other = pick(used: _*) // a variable of the pattern: naming another is an error
      // LAST(X.v) before this row: in X's own condition the row itself is X's last, so one further back.
      val lastOther = if (other == v) s"LAST($other.v, 1)" else s"LAST($other.v)"
      // The rows labelled `other` so far, this one included (a navigation or an aggregate of other in RUNNING).
      def others(ls: IndexedSeq[Int]) = ls.indices.filter(i => labelName(ls(i)) == other)
      val kind = random.nextInt(18)
      if (kind <= 4 || kind == 16) oneRow += v // the row's value, PREV or NEXT of it, its own label
      // The templates that do not read MATCH_NUMBER().
      def unnumbered: (String, String, Condition) = kind match {
        case 0 => val k = random.nextInt(4); (s"= $k", s"v = $k", ((rs, s, ls) => row(rs, s, ls) == k): Condition)
        case 1 => val k = 1 + random.nextInt(3); (s"< $k", s"v < $k", ((rs, s, ls) => row(rs, s, ls) < k): Condition)
        case 2 => ("odd", "v % 2 = 1", ((rs, s, ls) => row(rs, s, ls) % 2 == 1): Condition)
        case 3 => ("> PREV", "v > PREV(v)",
            ((rs, s, ls) => { val p = s + ls.length - 1; p > 0 && rs(p) > rs(p - 1) }): Condition)
        case 4 => ("< NEXT", "v < NEXT(v)",
            ((rs, s, ls) => { val p = s + ls.length - 1; p + 1 < rs.length && rs(p) < rs(p + 1) }): Condition)
        case 5 =>
          readLabels += other
          (s">= LAST($other)", s"$lastOther IS NULL OR v >= $lastOther",
            ((rs, s, ls) => {
                  val before = (0 until ls.length - 1).filter(i => labelName(ls(i)) == other)
                  before.isEmpty || row(rs, s, ls) >= rs(s + before.last)
                }): Condition)
        case 6 =>
          readLabels += other; val k = 1 + random.nextInt(3)
          (s"count($other) <= $k", s"count($other.*) <= $k",
            ((_, _, ls) => ls.count(l => labelName(l) == other) <= k): Condition)
        case 7 =>
          readLabels += other; val k = 2 + random.nextInt(5)
          (s"sum($other) < $k", s"coalesce(sum($other.v), 0) < $k",
            ((rs, s, ls) => ls.indices.filter(i => labelName(ls(i)) == other).map(i => rs(s + i)).sum < k): Condition)
        case 8 =>
          readStart = true
          ("FIRST(row) <= row", "FIRST(v) <= v", ((rs, s, ls) => rs(s) <= row(rs, s, ls)): Condition)
        case 9 =>
          readStart = true; val k = 1 + random.nextInt(4)
          (s"length <= $k", s"count(*) <= $k", ((_, _, ls) => ls.length <= k): Condition)
        case 10 =>
          readLabels += other; val k = random.nextInt(2)
          (s">= FIRST($other, $k)", s"FIRST($other.v, $k) IS NULL OR v >= FIRST($other.v, $k)",
            ((rs, s, ls) => {
                  val rows = others(ls)
                  rows.length <= k || row(rs, s, ls) >= rs(s + rows(k))
                }): Condition)
        case 11 =>
          readLabels += other
          (s">= LAST($other, 2)", s"LAST($other.v, 2) IS NULL OR v >= LAST($other.v, 2)",
            ((rs, s, ls) => {
                  val rows = others(ls)
                  rows.length <= 2 || row(rs, s, ls) >= rs(s + rows(rows.length - 3))
                }): Condition)
        case 12 =>
          readLabels += other; val k = 1 + random.nextInt(4)
          (s"max($other) < $k", s"coalesce(max($other.v), 0) < $k",
            ((rs, s, ls) => others(ls).map(i => rs(s + i)).maxOption.getOrElse(0) < k): Condition)
        case 13 =>
          readLabels ++= Variables; readStart = true; val k = random.nextInt(3)
          (s"FIRST(CLASSIFIER(), $k) != $other", s"coalesce(FIRST(CLASSIFIER(), $k) <> '$other', true)",
            ((_, _, ls) => ls.length <= k || labelName(ls(k)) != other): Condition)
        case 14 =>
          readLabels ++= Variables; val k = 1 + random.nextInt(2)
          (s"LAST(CLASSIFIER(), $k) != $other", s"coalesce(LAST(CLASSIFIER(), $k) <> '$other', true)",
            ((_, _, ls) => ls.length <= k || labelName(ls(ls.length - 1 - k)) != other): Condition)
        case _ =>
          readLabels ++= Variables
          (s"PREV(CLASSIFIER()) != $other", s"coalesce(PREV(CLASSIFIER()) <> '$other', true)",
            ((_, _, ls) => ls.length < 2 || labelName(ls(ls.length - 2)) != other): Condition)
      }
      val (name, define, condition: NumberedCondition) = kind match {
        // The label tried: the condition's own variable, so the comparison holds only where other is it.
        case 16 =>
          val k = 1 + random.nextInt(3)
          (s"CLASSIFIER() = $other or < $k", s"CLASSIFIER() = '$other' OR v < $k",
            ((rs, s, ls, _) => labelName(ls.last) == other || row(rs, s, ls) < k): NumberedCondition)
        case 17 =>
          readNumber = true; val k = 2 + random.nextInt(2)
          (s"MATCH_NUMBER() % $k = 1 or even", s"MATCH_NUMBER() % $k = 1 OR v % 2 = 0",
            ((rs, s, ls, number) => number % k == 1 || row(rs, s, ls) % 2 == 0): NumberedCondition)
        case _ => val (name, define, condition) = unnumbered; (name, define, numbered(condition))
      }
      conditions(v) = condition
      sql += s"$v AS $define"
      described += s"$v: $name"
    }
    val reads = if (random.nextInt(5) == 0) ConditionReads(analyzed.labels.indices.toSet, start = true, readNumber)
    else ConditionReads(readLabels.flatMap(analyzed.label), readStart, readNumber)
    val time = window.fold(rows.indices.map(_.toLong))(_._1)
    RandomRowPatternCase(text, if (sql.isEmpty) "" else sql.mkString("DEFINE ", ", ", ""), rows, time, conditions.toMap,
      described.mkString(", "), reads, window, oneRow.toSet)
  }
}
