package io.sparkcer.engine.rowpattern

import org.scalatest.funsuite.AnyFunSuite

import io.sparkcer.engine.syntax.PatternException

/**
 * The MATCH_RECOGNIZE clause's parser ([[MatchRecognizeParser]]) and checks ([[RowPatternAnalysis]]): every clause
 * read into its tree, expressions left as Spark SQL (RUNNING and FINAL rewritten), the pattern's precedence and
 * quantifiers, the program's layout, and errors that name the line, the column and what was expected.
 */
class MatchRecognizeParserSuite extends AnyFunSuite {
  import RowPattern._

  private def parse(text: String): MatchRecognize = MatchRecognizeParser.parse(text)
  private def error(text: String): PatternException =
    intercept[PatternException](RowPatternAnalysis.analyze(parse(text), text))

  /** A pattern as text again, with its structure in brackets, for comparing trees without positions. */
  private def shape(p: RowPattern): String = p match {
    case Variable(n) => n.value
    case Concat(ps, _) => ps.map(shape).mkString("[", " ", "]")
    case Alternation(os, _) => os.map(shape).mkString("[", " | ", "]")
    case Permute(is, _) => is.map(shape).mkString("PERMUTE(", ", ", ")")
    case Exclusion(b, _) => s"{-${shape(b)}-}"
    case Quantified(b, min, max, greedy, _) => s"${shape(b)}{$min,${max.getOrElse("")}}${if (greedy) "" else "?"}"
    case Empty(_) => "()"
    case PartitionStart(_) => "^"
    case PartitionEnd(_) => "$"
  }

  test("every clause, in order, with Spark SQL expressions kept as written") {
    val c = parse(
      """PARTITION BY custkey, region ORDER BY orderdate DESC NULLS LAST, id
        |MEASURES A.totalprice AS starting_price, RUNNING LAST(B.totalprice) AS bottom, CAST(FINAL count(*) AS INT) AS n
        |ALL ROWS PER MATCH OMIT EMPTY MATCHES
        |AFTER MATCH SKIP TO LAST U
        |PATTERN (A B+ (C | D)*?) WITHIN INTERVAL '10' MINUTES
        |SUBSET U = (C, D)
        |DEFINE B AS totalprice < PREV(totalprice), C AS totalprice > PREV(totalprice, 2)""".stripMargin)
    assert(c.partitionBy.map(_.text) == Seq("custkey", "region"))
    assert(c.orderBy.map(o => (o.expression.text, o.ascending, o.nullsFirst)) ==
      Seq(("orderdate", false, Some(false)), ("id", true, None)))
    assert(c.measures.map(m => (m.expression.sparkSql, m.name.value)) == Seq(
      ("A.totalprice", "starting_price"), ("__mr_running(LAST(B.totalprice))", "bottom"),
      ("CAST(__mr_final(count(*)) AS INT)", "n")))
    assert(c.rowsPerMatch == RowsPerMatch.AllOmitEmpty)
    assert(c.skip.sql == "AFTER MATCH SKIP TO LAST U")
    assert(shape(c.pattern) == "[A B{1,} [C | D]{0,}?]")
    assert(c.within.map(_.millis).contains(600000L))
    assert(c.subsets.map(s => (s.name.value, s.members.map(_.value))) == Seq(("U", Seq("C", "D"))))
    assert(c.defines.map(d => (d.variable.value, d.condition.text)) ==
      Seq(("B", "totalprice < PREV(totalprice)"), ("C", "totalprice > PREV(totalprice, 2)")))
  }

  test(
    "the pattern: alternation loosest, then concatenation, then quantifiers; every quantifier, greedy and reluctant") {
    assert(shape(parse("PATTERN (A B | C D*)").pattern) == "[[A B] | [C D{0,}]]")
    assert(shape(parse("PATTERN (A? B?? C{3} D{2,} E{,4} F{1,5}? G+? H*)").pattern) ==
      "[A{0,1} B{0,1}? C{3,3} D{2,} E{0,4} F{1,5}? G{1,}? H{0,}]")
    assert(shape(parse("PATTERN (^ PERMUTE(A, B C) {- D+ -} () $)").pattern) == "[^ PERMUTE(A, [B C]) {-D{1,}-} () $]")
    assert(shape(parse("PATTERN ()").pattern) == "()")
  }

  test("defaults: ONE ROW PER MATCH, SKIP PAST LAST ROW; ALL ROWS shows empty matches") {
    val c = parse("PATTERN (A)")
    assert(c.rowsPerMatch == RowsPerMatch.One && c.skip == SkipTo.PastLastRow && c.defines.isEmpty)
    assert(parse("ALL ROWS PER MATCH PATTERN (A)").rowsPerMatch == RowsPerMatch.AllShowEmpty)
    assert(parse("AFTER MATCH SKIP TO A PATTERN (A)").skip.isInstanceOf[SkipTo.Last])
  }

  test("the program: Trino's layout, each split's first target preferred") {
    val p = RowPatternAnalysis.analyze(parse("PATTERN (A | B*?)"), "").program
    assert(p.toString.linesIterator.toSeq == Seq("0: split 1, 3", "1: match A", "2: jump 6", "3: split 6, 4",
      "4: match B", "5: split 6, 4", "6: done"))
  }

  test("syntax errors name the line, the column and what was expected") {
    def message(text: String) = intercept[PatternException](parse(text)).getMessage
    val unclosed = message("ORDER BY ts\nPATTERN (A B")
    assert(unclosed.startsWith("line 2, column 13: expected") && unclosed.contains("')'") &&
        unclosed.contains("found the end of the query"), unclosed)
    assert(message("PATTERN (A+*)").contains("expected one quantifier, found a second"))
    assert(message("PATTERN (A{3,2})").contains("maximum to be at least its minimum"))
    assert(message("MEASURES A.x PATTERN (A)").contains("every measure is named (MEASURES expr AS name)"))
    assert(message("PATTERN (A) WITHIN INTERVAL '5' WEEKS").contains("MILLISECONDS, SECONDS, MINUTES, HOURS or DAYS"))
    assert(message("PATTERN (A) DEFINE A price > 1").startsWith("line 1, column 22: expected AS"))
  }

  test("analysis errors: duplicate and unknown variables, SUBSET and SKIP TO names") {
    assert(
      error("PATTERN (A) DEFINE A AS x > 1, a AS x > 2").getMessage.startsWith(
        "line 1, column 32: pattern variable A is defined twice (DUPLICATE_PATTERN_VARIABLE)"))
    assert(error("PATTERN (A B) DEFINE C AS x > 1").problem == "DEFINE names C, which PATTERN does not use; the " +
      "pattern's variables are A, B")
    assert(error("PATTERN (A B) SUBSET A = (B)").problem.contains("names a pattern variable of PATTERN"))
    assert(error("PATTERN (A B) SUBSET U = (B, C)").problem.contains("the member C, which is not a pattern variable"))
    assert(
      error("AFTER MATCH SKIP TO FIRST Z PATTERN (A B)").problem.contains(
        "Z is neither a pattern variable nor a SUBSET"))
    assert(error("PATTERN (PERMUTE(A, B, C, D, E, F, G, H, I))").problem.contains("at most 100000 instructions"))
  }

  test("a pattern's size is known before its code is written: too large a PERMUTE or repetition is refused at once") {
    // The size the compiler checks is the size of the code it writes.
    for (text <- Seq("A", "A B | C", "PERMUTE(A, B C, D?)", "(A | B)+ C{2,4}? {- D* -}", "^ A{3,} B{0,2} $", "()",
        "PERMUTE(A, (B | C)*, PERMUTE(D, E))")) {
      val pattern = parse(s"PATTERN ($text)").pattern
      assert(
        ProgramCompiler.size(pattern) + 1 == RowPatternAnalysis.analyze(parse(s"PATTERN ($text)"), "").program.size,
        text)
    }
    // 12 items are 479,001,600 orders: listed before the limit was checked, they ran out of memory.
    val permute = error("PATTERN (X PERMUTE(A, B, C, D, E, F, G, H, I, J, K, L))")
    assert(
      permute.getMessage.startsWith("line 1, column 12: expected a pattern of at most 100000 instructions") &&
        permute.problem.contains("PERMUTE of 12 items, written out as every order of them (479,001,600 orders)") &&
        permute.problem.contains("up to 7 of these fit"),
      permute.problem
    )
    assert(error("PATTERN (PERMUTE(" + (1 to 40).map(i => s"V$i").mkString(", ") + "))").problem.contains(" or more"))
    val repetition = error("PATTERN (A (B C){1,60000})")
    assert(repetition.getMessage.startsWith("line 1, column 13") && repetition.problem.contains("{1,60000}"),
      repetition.problem)
    val whole = error("PATTERN (A{50000} B{50000})").problem
    assert(whole.contains("the pattern comes to 100,000"), whole)
  }
}
