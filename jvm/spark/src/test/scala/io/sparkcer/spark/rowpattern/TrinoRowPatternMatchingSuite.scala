package io.sparkcer.spark.rowpattern

import java.sql.Date

import org.apache.spark.sql.{Row, SparkSession}
import org.scalatest.funsuite.AnyFunSuite

import io.sparkcer.spark.LocalSpark

/**
 * Row pattern recognition (R010) as Trino documents and tests it, run through spark.sql: each case is a behaviour of
 * Trino's query tests for MATCH_RECOGNIZE (patterns, quantifiers, exclusions, empty cycles and anchors, back
 * references, output modes, AFTER MATCH SKIP, navigation, CLASSIFIER, RUNNING and FINAL, partitions, aggregates) or of
 * its documentation, written here over VALUES with the rows Trino returns. The dialect is Spark's: backquotes quote an
 * identifier, `array(...)` builds an array, `any_value` is Trino's `arbitrary`. Rows are compared as a multiset, as
 * Trino's tests compare them, unless the query orders them. The last tests keep DEFINE and MEASURES open to Spark's
 * own expressions around the row pattern functions (CASE, COALESCE, strings, dates and timestamps, arithmetic).
 */
class TrinoRowPatternMatchingSuite extends AnyFunSuite {

  private lazy val spark: SparkSession = LocalSpark.session("spark.sql.shuffle.partitions" -> "3")

  private def rows(query: String): Seq[Row] = spark.sql(query).collect().toSeq

  private def bag(rs: Seq[Row]): Map[Row, Int] = rs.groupBy(identity).map { case (r, same) => r -> same.size }

  /** The query's rows are these, in any order (Trino's `matches`). */
  private def assertRows(query: String)(expected: Row*): Unit = {
    val actual = rows(query)
    assert(bag(actual) == bag(expected),
      s"\n  got:      ${actual.mkString(", ")}\n  expected: ${expected.mkString(", ")}\n  query: $query")
  }

  /** The query's rows are these, in this order (the query orders them). */
  private def assertOrderedRows(query: String)(expected: Row*): Unit = {
    val actual = rows(query)
    assert(actual == expected,
      s"\n  got:      ${actual.mkString(", ")}\n  expected: ${expected.mkString(", ")}\n  query: $query")
  }

  private def failure(query: String): String = intercept[Exception](rows(query)).getMessage

  /** A row of (id, match number, running value, label): the match number is a BIGINT. */
  private def o(id: Any, m: Any, v: Any, l: Any): Row = Row(id, bigint(m), v, l)

  private def bigint(value: Any): Any = value match {
    case i: Int => i.toLong
    case other => other
  }

  // Trino's four rows 90 80 70 70, each row of a match with its match number, running value and label.
  private def fourRows(patternAndDefine: String, skip: String = "AFTER MATCH SKIP PAST LAST ROW"): String =
    s"""SELECT m.id AS row_id, m.match, m.val, m.label
      |FROM (VALUES (1, 90), (2, 80), (3, 70), (4, 70)) t(id, value)
      |MATCH_RECOGNIZE (
      |  ORDER BY id
      |  MEASURES match_number() AS match, RUNNING LAST(value) AS val, classifier() AS label
      |  ALL ROWS PER MATCH
      |  $skip
      |  $patternAndDefine
      |) AS m""".stripMargin

  // Trino's eight rows 90 80 70 80 90 50 40 60: two V shapes.
  private val eightRows = "(VALUES (1, 90), (2, 80), (3, 70), (4, 80), (5, 90), (6, 50), (7, 40), (8, 60)) t(id, value)"

  private def eightRowsQuery(pattern: String): String =
    s"""SELECT m.id AS row_id, m.match, m.val, m.label
      |FROM $eightRows
      |MATCH_RECOGNIZE (
      |  ORDER BY id
      |  MEASURES match_number() AS match, RUNNING LAST(value) AS val, classifier() AS label
      |  ALL ROWS PER MATCH
      |  AFTER MATCH SKIP PAST LAST ROW
      |  $pattern
      |  DEFINE B AS B.value < PREV(B.value), C AS C.value > PREV(C.value)
      |) AS m""".stripMargin

  // An empty match at each of the four rows: nothing but the match number and the row it was tried at.
  private val emptyAtEachRow = Seq(o(1, 1, null, null), o(2, 2, null, null), o(3, 3, null, null), o(4, 4, null, null))

  // --- testSimpleQuery ---------------------------------------------------------------------------------------------

  test("simple query: A B+ C+ over two V shapes, ALL ROWS PER MATCH with match number, running value and label") {
    assertRows(eightRowsQuery("PATTERN (A B+ C+)"))(
      o(1, 1, 90, "A"), o(2, 1, 80, "B"), o(3, 1, 70, "B"), o(4, 1, 80, "C"), o(5, 1, 90, "C"),
      o(6, 2, 50, "A"), o(7, 2, 40, "B"), o(8, 2, 60, "C"))
  }

  // --- testRowPattern ----------------------------------------------------------------------------------------------

  test("row pattern: the empty pattern in the preferred branch of an alternation gives an empty match at each row") {
    assertRows(fourRows("PATTERN (() | A) DEFINE A AS true"))(emptyAtEachRow: _*)
  }

  test("row pattern: the partition-start anchor ^") {
    assertRows(fourRows("PATTERN (^A) DEFINE A AS true"))(o(1, 1, 90, "A"))
    assertRows(fourRows("PATTERN (A^) DEFINE A AS true"))()
    assertRows(fourRows("PATTERN (^A^) DEFINE A AS true"))()
  }

  test("row pattern: the partition-end anchor $") {
    assertRows(fourRows("PATTERN (A$) DEFINE A AS true"))(o(4, 1, 70, "A"))
    assertRows(fourRows("PATTERN ($A) DEFINE A AS true"))()
    assertRows(fourRows("PATTERN ($A$) DEFINE A AS true"))()
  }

  test("row pattern: concatenation, and the same grouped in nested parentheses") {
    val define = "DEFINE B AS B.value < PREV(B.value), C AS C.value = PREV(C.value)"
    for (pattern <- Seq("PATTERN (A B C)", "PATTERN (((A) (B (C))))"))
      assertRows(fourRows(s"$pattern $define"))(o(2, 1, 80, "A"), o(3, 1, 70, "B"), o(4, 1, 70, "C"))
  }

  test("row pattern: alternation prefers the first alternative that matches, in order of declaration") {
    assertRows(fourRows("PATTERN (B | C | A) DEFINE B AS B.value < PREV(B.value), C AS C.value <= PREV(C.value)"))(
      o(1, 1, 90, "A"), o(2, 2, 80, "B"), o(3, 3, 70, "B"), o(4, 4, 70, "C"))
  }

  test("row pattern: PERMUTE prefers the first permutation in lexicographical order") {
    assertRows(fourRows("PATTERN (PERMUTE(B, C)) DEFINE B AS B.value < PREV(B.value), C AS C.value < PREV(C.value)"))(
      o(2, 1, 80, "B"), o(3, 1, 70, "C"))
  }

  // --- testPatternQuantifiers --------------------------------------------------------------------------------------

  private val greedyStar = Seq(o(1, 1, null, null), o(2, 2, 80, "B"), o(3, 2, 70, "B"), o(4, 2, 70, "B"))
  private val oneMatch = Seq(o(2, 1, 80, "B"), o(3, 1, 70, "B"), o(4, 1, 70, "B"))
  private val oneRowEach = Seq(o(2, 1, 80, "B"), o(3, 2, 70, "B"), o(4, 3, 70, "B"))
  private val optional = Seq(o(1, 1, null, null), o(2, 2, 80, "B"), o(3, 3, 70, "B"), o(4, 4, 70, "B"))
  private val twoRows = Seq(o(2, 1, 80, "B"), o(3, 1, 70, "B"))

  // B AS B.value <= PREV(B.value) over 90 80 70 70: rows 2 to 4 pass B, row 1 does not.
  private val quantifierCases: Seq[(String, Seq[Row])] = Seq(
    "B*" -> greedyStar,
    "B*?" -> emptyAtEachRow,
    "B+" -> oneMatch,
    "B+?" -> oneRowEach,
    "B?" -> optional,
    "B??" -> emptyAtEachRow,
    "B{,}" -> greedyStar,
    "B{,}?" -> emptyAtEachRow,
    "B{1,}" -> oneMatch,
    "B{1,}?" -> oneRowEach,
    "B{2,}" -> oneMatch,
    "B{2,}?" -> twoRows,
    "B{5,}" -> Nil,
    "B{5,}?" -> Nil,
    "B{,1}" -> optional,
    "B{,1}?" -> emptyAtEachRow,
    "B{,2}" -> Seq(o(1, 1, null, null), o(2, 2, 80, "B"), o(3, 2, 70, "B"), o(4, 3, 70, "B")),
    "B{,2}?" -> emptyAtEachRow,
    "B{,5}" -> greedyStar,
    "B{,5}?" -> emptyAtEachRow,
    "B{1,1}" -> oneRowEach,
    "B{1,1}?" -> oneRowEach,
    "B{1,5}" -> oneMatch,
    "B{1,5}?" -> oneRowEach,
    "B{5,7}" -> Nil,
    "B{5,7}?" -> Nil,
    "B{1}" -> oneRowEach,
    "B{1}?" -> oneRowEach,
    "B{2}" -> twoRows,
    "B{2}?" -> twoRows,
    "B{5}" -> Nil,
    "B{5}?" -> Nil
  )

  for ((quantified, expected) <- quantifierCases)
    test(s"pattern quantifier $quantified") {
      assertRows(fourRows(s"PATTERN ($quantified) DEFINE B AS B.value <= PREV(B.value)"))(expected: _*)
    }

  // --- testExclusionSyntax -----------------------------------------------------------------------------------------

  private val allEight = Seq(o(1, 1, 90, "A"), o(2, 1, 80, "B"), o(3, 1, 70, "B"), o(4, 1, 80, "C"), o(5, 1, 90, "C"),
    o(6, 2, 50, "A"), o(7, 2, 40, "B"), o(8, 2, 60, "C"))
  private val onlyA = Seq(o(1, 1, 90, "A"), o(6, 2, 50, "A"))

  private val exclusionCases: Seq[(String, Seq[Row])] = Seq(
    "A {- B+ -} C+" -> Seq(o(1, 1, 90, "A"), o(4, 1, 80, "C"), o(5, 1, 90, "C"), o(6, 2, 50, "A"), o(8, 2, 60, "C")),
    "{- A -} {- B+ -} C+" -> Seq(o(4, 1, 80, "C"), o(5, 1, 90, "C"), o(8, 2, 60, "C")),
    "A {- {- B+ -} C+ -}" -> onlyA,
    "{- A B+ C+ -}" -> Nil,
    "A B+ {- ()* -} C+" -> allEight,
    "A {- B -}+ {- C -}+" -> onlyA,
    "A {- B -}* {- C -}*" -> onlyA,
    "A {- B -}{1,2} {- C -}{1,2}" -> onlyA,
    "A {- C -}{2,3} {- B -}{2,3}" -> Seq(o(3, 1, 70, "A"))
  )

  for ((pattern, expected) <- exclusionCases)
    test(s"exclusion: $pattern leaves the excluded rows out of ALL ROWS PER MATCH") {
      assertRows(eightRowsQuery(s"PATTERN ($pattern)"))(expected: _*)
    }

  // --- testBackReference -------------------------------------------------------------------------------------------

  test("back reference: X's condition reads A's value, so (A | B)* takes the row as an A") {
    // No ORDER BY: both rows are alike, any order gives the same labels.
    assertRows("SELECT value, classy FROM (VALUES 1, 1) t(value) MATCH_RECOGNIZE (MEASURES CLASSIFIER() AS classy " +
      "ALL ROWS PER MATCH PATTERN ((A | B)* X) DEFINE X AS value = A.value)")(Row(1, "A"), Row(1, "X"))
    assertRows("SELECT value, classy FROM (VALUES 1, 1) t(value) MATCH_RECOGNIZE (MEASURES CLASSIFIER() AS classy " +
      "ALL ROWS PER MATCH PATTERN ((A | B)* X) DEFINE X AS value = B.value)")(Row(1, "B"), Row(1, "X"))
  }

  test("back reference: X's condition navigates over A's and B's rows, the same expression a measure") {
    val expression = "PREV(LAST(A.value), 3) + FIRST(A.value) + PREV(LAST(B.value), 2)"
    assertRows(s"""SELECT value, classy, defining_condition
        |FROM (VALUES 1, 2, 3, 4, 5, 6) t(value)
        |MATCH_RECOGNIZE (
        |  ORDER BY value
        |  MEASURES CLASSIFIER() AS classy, $expression AS defining_condition
        |  ALL ROWS PER MATCH
        |  PATTERN ((A | B)* X)
        |  DEFINE X AS value = $expression
        |)""".stripMargin)(
      Row(1, "B", null), Row(2, "A", null), Row(3, "A", null), Row(4, "A", null), Row(5, "B", 6), Row(6, "X", 6))
  }

  test("back reference: X's condition reads the labels of earlier rows through CLASSIFIER, with a union variable") {
    val expression = "PREV(CLASSIFIER(U), 1) = 'A' AND LAST(CLASSIFIER(), 3) = 'B' AND FIRST(CLASSIFIER(U)) = 'B'"
    assertRows(s"""SELECT value, classy, defining_condition
        |FROM (VALUES 1, 2, 3, 4, 5) t(value)
        |MATCH_RECOGNIZE (
        |  ORDER BY value
        |  MEASURES CLASSIFIER() AS classy, $expression AS defining_condition
        |  ALL ROWS PER MATCH
        |  PATTERN ((A | B)* X $$)
        |  SUBSET U = (A, B)
        |  DEFINE X AS $expression
        |)""".stripMargin)(
      Row(1, "B", null), Row(2, "B", false), Row(3, "A", false), Row(4, "A", true), Row(5, "X", true))
  }

  // --- testEmptyCycle ----------------------------------------------------------------------------------------------

  private val emptyCycleCases: Seq[(String, Seq[Row])] = Seq(
    "()* | B" -> emptyAtEachRow,
    "()+ | B" -> emptyAtEachRow,
    "(){5,} | B" -> emptyAtEachRow,
    "B | ()*" -> Seq(o(1, 1, null, null), o(2, 2, 80, "B"), o(3, 3, 70, "B"), o(4, 4, null, null)),
    "(B ()*)*" -> Seq(o(1, 1, null, null), o(2, 2, 80, "B"), o(3, 2, 70, "B"), o(4, 3, null, null)),
    "(B ()*)*?" -> emptyAtEachRow,
    // Quantified anchors.
    "^* | B" -> emptyAtEachRow,
    "^+ | B" -> Seq(o(1, 1, null, null), o(2, 2, 80, "B"), o(3, 3, 70, "B")),
    "^* A B" -> Seq(o(1, 1, 90, "A"), o(2, 1, 80, "B")),
    "$* | B" -> emptyAtEachRow,
    "$+ | B" -> Seq(o(2, 1, 80, "B"), o(3, 2, 70, "B")),
    "B A $+" -> Seq(o(3, 1, 70, "B"), o(4, 1, 70, "A"))
  )

  for ((pattern, expected) <- emptyCycleCases)
    test(s"empty cycle or quantified anchor: $pattern") {
      assertRows(fourRows(s"PATTERN ($pattern) DEFINE B AS B.value < PREV(B.value)"))(expected: _*)
    }

  // --- testOutputModes ---------------------------------------------------------------------------------------------

  private def outputMode(rowsPerMatch: String, pattern: String): String =
    s"""SELECT m.match, m.val, m.label
      |FROM (VALUES (1, 90), (2, 80), (3, 70), (4, 70)) t(id, value)
      |MATCH_RECOGNIZE (
      |  ORDER BY id
      |  MEASURES match_number() AS match, RUNNING LAST(value) AS val, classifier() AS label
      |  $rowsPerMatch
      |  AFTER MATCH SKIP PAST LAST ROW
      |  PATTERN ($pattern)
      |  DEFINE B AS B.value < PREV(B.value)
      |) AS m""".stripMargin

  private def ml(m: Any, v: Any, l: Any): Row = Row(bigint(m), v, l)

  test("output modes: ONE ROW PER MATCH, the default, shows empty matches and omits unmatched rows") {
    for (mode <- Seq("ONE ROW PER MATCH", ""))
      assertRows(outputMode(mode, "B*"))(ml(1, null, null), ml(2, 70, "B"), ml(3, null, null))
    assertRows(outputMode("ONE ROW PER MATCH", "B+"))(ml(1, 70, "B"))
  }

  test("output modes: ALL ROWS PER MATCH shows empty matches by default and omits unmatched rows") {
    for (mode <- Seq("ALL ROWS PER MATCH", "ALL ROWS PER MATCH SHOW EMPTY MATCHES"))
      assertRows(outputMode(mode, "B*"))(ml(1, null, null), ml(2, 80, "B"), ml(2, 70, "B"), ml(3, null, null))
    assertRows(outputMode("ALL ROWS PER MATCH", "B+"))(ml(1, 80, "B"), ml(1, 70, "B"))
  }

  test("output modes: OMIT EMPTY MATCHES, and WITH UNMATCHED ROWS") {
    assertRows(outputMode("ALL ROWS PER MATCH OMIT EMPTY MATCHES", "B*"))(ml(2, 80, "B"), ml(2, 70, "B"))
    assertRows(outputMode("ALL ROWS PER MATCH OMIT EMPTY MATCHES", "B+"))(ml(1, 80, "B"), ml(1, 70, "B"))
    assertRows(outputMode("ALL ROWS PER MATCH WITH UNMATCHED ROWS", "B+"))(
      ml(null, null, null), ml(1, 80, "B"), ml(1, 70, "B"), ml(null, null, null))
  }

  // --- testAfterMatchSkip ------------------------------------------------------------------------------------------

  private def skipQuery(skip: String): String =
    s"""SELECT m.id, m.match, m.val, m.label
      |FROM (VALUES (1, 90), (2, 80), (3, 70), (4, 80), (5, 70), (6, 80)) t(id, value)
      |MATCH_RECOGNIZE (
      |  ORDER BY id
      |  MEASURES match_number() AS match, RUNNING LAST(value) AS val, classifier() AS label
      |  ALL ROWS PER MATCH
      |  $skip
      |  PATTERN (A B+ C+ D?)
      |  SUBSET U = (C, D)
      |  DEFINE B AS B.value < PREV(B.value), C AS C.value > PREV(C.value), D AS false
      |) AS m""".stripMargin

  private val firstSkipMatch = Seq(o(1, 1, 90, "A"), o(2, 1, 80, "B"), o(3, 1, 70, "B"), o(4, 1, 80, "C"))

  test("AFTER MATCH SKIP PAST LAST ROW resumes at row 5, where no match starts") {
    assertRows(skipQuery("AFTER MATCH SKIP PAST LAST ROW"))(firstSkipMatch: _*)
  }

  test("AFTER MATCH SKIP TO NEXT ROW finds the overlapping matches at rows 2 and 4") {
    assertRows(skipQuery("AFTER MATCH SKIP TO NEXT ROW"))(
      firstSkipMatch ++ Seq(
        o(2, 2, 80, "A"), o(3, 2, 70, "B"), o(4, 2, 80, "C"), o(4, 3, 80, "A"), o(5, 3, 70, "B"), o(6, 3, 80, "C")): _*)
  }

  test("AFTER MATCH SKIP TO FIRST C, TO LAST B, TO B (its LAST) and TO a union variable resume inside the match") {
    for (skip <- Seq("TO FIRST C", "TO LAST B", "TO B", "TO U"))
      assertRows(skipQuery(s"AFTER MATCH SKIP $skip"))(
        firstSkipMatch ++ Seq(o(4, 2, 80, "A"), o(5, 2, 70, "B"), o(6, 2, 80, "C")): _*)
  }

  test("AFTER MATCH SKIP fails at run time to the match's first row, or to a variable not in the match") {
    val first = failure(skipQuery("AFTER MATCH SKIP TO A"))
    assert(first.contains("AFTER MATCH SKIP failed: cannot skip to first row of match"), first)
    // spark-cer's message names the variable and the match where Trino's says "pattern variable is not present in
    // match".
    val absent = failure(skipQuery("AFTER MATCH SKIP TO D"))
    assert(absent.contains("AFTER MATCH SKIP failed: pattern variable D is not present in match 1"), absent)
  }

  // --- testEmptyMatches --------------------------------------------------------------------------------------------

  test("WITH UNMATCHED ROWS under SKIP TO NEXT ROW: rows of an earlier match are not output again as unmatched") {
    assertRows("""SELECT m.id, m.match, m.value, m.label
        |FROM (VALUES (1, 100), (2, 100), (3, 90), (4, 80), (5, 70), (6, 100)) t(id, value)
        |MATCH_RECOGNIZE (
        |  ORDER BY id
        |  MEASURES match_number() AS match, classifier() AS label
        |  ALL ROWS PER MATCH WITH UNMATCHED ROWS
        |  AFTER MATCH SKIP TO NEXT ROW
        |  PATTERN (A B{2})
        |  DEFINE B AS B.value < PREV(B.value)
        |) AS m""".stripMargin)(
      o(1, null, 100, null), o(2, 1, 100, "A"), o(3, 1, 90, "B"), o(4, 1, 80, "B"),
      o(3, 2, 90, "A"), o(4, 2, 80, "B"), o(5, 2, 70, "B"), o(6, null, 100, null))
  }

  // --- testUnionVariable -------------------------------------------------------------------------------------------

  test("union variables: CLASSIFIER of a subset names the row's own variable when it is in the subset") {
    assertRows("""SELECT m.id, m.match, m.val, m.lower_or_higher, m.label
        |FROM (VALUES (1, 90), (2, 80), (3, 70), (4, 80)) t(id, value)
        |MATCH_RECOGNIZE (
        |  ORDER BY id
        |  MEASURES match_number() AS match, RUNNING LAST(value) AS val, classifier(U) AS lower_or_higher,
        |           classifier(W) AS label
        |  ALL ROWS PER MATCH
        |  PATTERN ((L | H) A)
        |  SUBSET U = (L, H), W = (A, L, H)
        |  DEFINE A AS A.value = 80, L AS L.value < 80, H AS H.value > 80
        |) AS m""".stripMargin)(
      Row(1, 1L, 90, "H", "H"), Row(2, 1L, 80, "H", "A"), Row(3, 2L, 70, "L", "L"), Row(4, 2L, 80, "L", "A"))
  }

  // --- testNavigationFunctions -------------------------------------------------------------------------------------

  private def navigation(measure: String): String =
    s"""SELECT m.id, m.measure
      |FROM (VALUES (1, 10), (2, 20), (3, 30)) t(id, value)
      |MATCH_RECOGNIZE (
      |  ORDER BY id
      |  MEASURES $measure AS measure
      |  ALL ROWS PER MATCH
      |  PATTERN (A+)
      |  DEFINE A AS true
      |) AS m""".stripMargin

  private val navigationCases: Seq[(String, Seq[Any])] = Seq(
    "value" -> Seq(10, 20, 30), // RUNNING LAST(value)
    "LAST(value)" -> Seq(10, 20, 30),
    "RUNNING LAST(value)" -> Seq(10, 20, 30),
    "FINAL LAST(value)" -> Seq(30, 30, 30),
    "FIRST(value)" -> Seq(10, 10, 10),
    "RUNNING FIRST(value)" -> Seq(10, 10, 10),
    "FINAL FIRST(value)" -> Seq(10, 10, 10),
    "FINAL LAST(value, 2)" -> Seq(10, 10, 10),
    "FIRST(value, 2)" -> Seq(30, 30, 30), // Trino's FIRST reads the whole match, running too
    "LAST(value, 10)" -> Seq(null, null, null),
    "FIRST(value, 10)" -> Seq(null, null, null),
    "PREV(value)" -> Seq(null, 10, 20), // PREV(RUNNING LAST(value), 1)
    "NEXT(value)" -> Seq(20, 30, null),
    "NEXT(FIRST(value), 2)" -> Seq(30, 30, 30),
    "NEXT(FIRST(value), 10)" -> Seq(null, null, null),
    "PREV(FIRST(value), 10)" -> Seq(null, null, null),
    "PREV(FIRST(value, 10), 2)" -> Seq(null, null, null),
    "PREV(LAST(value, 10), 2)" -> Seq(null, null, null)
  )

  for ((measure, expected) <- navigationCases)
    test(s"navigation: $measure on each row of a three-row match") {
      assertRows(navigation(measure))(expected.zipWithIndex.map { case (v, i) => Row(i + 1, v) }: _*)
    }

  test("navigation: PREV and NEXT reach rows of the partition outside the match, NULL past the partition's ends") {
    // The only match is rows 3 and 4 (B = 30 after A = 30); B is row 4.
    def measure(m: String) = rows(
      s"""SELECT m.measure
        |FROM (VALUES (1, 10), (2, 20), (3, 30), (4, 30), (5, 40)) t(id, value)
        |MATCH_RECOGNIZE (
        |  ORDER BY id
        |  MEASURES $m AS measure
        |  ONE ROW PER MATCH
        |  PATTERN (A B)
        |  DEFINE B AS B.value = PREV(B.value)
        |) AS m""".stripMargin)
    assert(measure("PREV(B.value, 4)") == Seq(Row(null)))
    assert(measure("PREV(B.value, 3)") == Seq(Row(10)))
    assert(measure("PREV(B.value, 2)") == Seq(Row(20)))
    assert(measure("NEXT(B.value, 1)") == Seq(Row(40)))
    assert(measure("NEXT(B.value, 2)") == Seq(Row(null)))
  }

  // --- testClassifierFunctionPastCurrentRow ------------------------------------------------------------------------

  test("NEXT(CLASSIFIER()) in a measure reads the next row's label in the complete match, NULL past its end") {
    assertRows("""SELECT m.id, m.value, m.label, m.next_label
        |FROM (VALUES (1, 90), (2, 80), (3, 70), (4, 80)) t(id, value)
        |MATCH_RECOGNIZE (
        |  ORDER BY id
        |  MEASURES CLASSIFIER() AS label, NEXT(CLASSIFIER()) AS next_label
        |  ALL ROWS PER MATCH
        |  PATTERN (A B+ C+)
        |  DEFINE B AS B.value < PREV(B.value), C AS C.value > PREV(C.value)
        |) AS m""".stripMargin)(
      Row(1, 90, "A", "B"), Row(2, 80, "B", "B"), Row(3, 70, "B", "C"), Row(4, 80, "C", null))
  }

  test("NEXT(CLASSIFIER()) in DEFINE is NULL: no row past the one being tried is matched yet") {
    assertRows("""SELECT m.id, m.val
        |FROM (VALUES (1, 90), (2, 80), (3, 70), (4, 80)) t(id, value)
        |MATCH_RECOGNIZE (
        |  ORDER BY id
        |  MEASURES value AS val
        |  ALL ROWS PER MATCH
        |  PATTERN (A+)
        |  DEFINE A AS NEXT(CLASSIFIER()) = 'A'
        |) AS m""".stripMargin)()
  }

  // --- testCaseSensitiveLabels -------------------------------------------------------------------------------------

  test("labels: a variable's name is upper case, quoted or not, as Spark's identifiers ignore case") {
    // Trino's "b" is Spark's `b` (in Spark, double quotes make a string). Trino keeps a quoted name's case, so its
    // CLASSIFIER() is 'b' on rows 2 and 3, as the standard's delimited identifiers are. In Spark an identifier is
    // compared without regard to case, quoted or not (spark.sql.caseSensitive is false by default), and spark-cer
    // names pattern variables as Spark names columns (RowPatternAnalysis.canonical): `b` and B are one variable, 'B'.
    assertRows("""SELECT m.id, m.label
        |FROM (VALUES (1, 90), (2, 80), (3, 70), (4, 80)) t(id, value)
        |MATCH_RECOGNIZE (
        |  ORDER BY id
        |  MEASURES CLASSIFIER() AS label
        |  ALL ROWS PER MATCH
        |  PATTERN (a `b`+ C+)
        |  DEFINE `b` AS `b`.value < PREV(`b`.value), C AS C.value > PREV(C.value)
        |) AS m""".stripMargin)(Row(1, "A"), Row(2, "B"), Row(3, "B"), Row(4, "C"))
  }

  // --- testScalarFunctions -----------------------------------------------------------------------------------------

  test("scalar functions and operators around row pattern functions in MEASURES and DEFINE") {
    assertRows("""SELECT m.id, m.label
        |FROM (VALUES (1, 90), (2, 80), (3, 60)) t(id, value)
        |MATCH_RECOGNIZE (
        |  ORDER BY id
        |  MEASURES CAST(lower(LAST(CLASSIFIER())) || '_label' AS VARCHAR(7)) AS label
        |  ALL ROWS PER MATCH
        |  PATTERN (A B+)
        |  DEFINE B AS B.value + 10 < abs(PREV(B.value))
        |) AS m""".stripMargin)(Row(2, "a_label"), Row(3, "b_label"))
  }

  // --- testRunningAndFinal -----------------------------------------------------------------------------------------

  test("RUNNING and FINAL LAST of the match and of each variable, on each row") {
    assertRows("""SELECT id, label, final_label, running_value, final_value, A_running_value, A_final_value,
        |       B_running_value, B_final_value, C_running_value, C_final_value
        |FROM (VALUES (1, 90), (2, 80), (3, 70), (4, 100), (5, 200)) t(id, value)
        |MATCH_RECOGNIZE (
        |  ORDER BY id
        |  MEASURES CLASSIFIER() AS label, FINAL LAST(CLASSIFIER()) AS final_label,
        |           RUNNING LAST(value) AS running_value, FINAL LAST(value) AS final_value,
        |           RUNNING LAST(A.value) AS A_running_value, FINAL LAST(A.value) AS A_final_value,
        |           RUNNING LAST(B.value) AS B_running_value, FINAL LAST(B.value) AS B_final_value,
        |           RUNNING LAST(C.value) AS C_running_value, FINAL LAST(C.value) AS C_final_value
        |  ALL ROWS PER MATCH
        |  PATTERN (A B+ C+)
        |  DEFINE B AS B.value < PREV(B.value), C AS C.value > PREV(C.value)
        |)""".stripMargin)(
      Row(1, "A", "C", 90, 200, 90, 90, null, 70, null, 200),
      Row(2, "B", "C", 80, 200, 90, 90, 80, 70, null, 200),
      Row(3, "B", "C", 70, 200, 90, 90, 70, 70, null, 200),
      Row(4, "C", "C", 100, 200, 90, 90, 70, 70, 100, 200),
      Row(5, "C", "C", 200, 200, 90, 90, 70, 70, 200, 200)
    )
  }

  // --- testPartitioningAndOrdering ---------------------------------------------------------------------------------

  private val unorderedPartitions = "(VALUES (1, 'p1', 90), (2, 'p1', 80), (6, 'p1', 80), (2, 'p2', 20), " +
    "(2, 'p3', 60), (1, 'p3', 50), (3, 'p1', 70), (4, 'p1', 80), (5, 'p1', 90), (1, 'p2', 20), (3, 'p3', 70), " +
    "(3, 'p2', 10)) t(id, part, value)"

  /** Runs of falling values per partition, each row with its match, the value before it in the match, its label. */
  private def fallingRuns(relation: String): String =
    s"""SELECT m.part AS partition, m.id AS row_id, m.match, m.val, m.label
      |FROM $relation
      |MATCH_RECOGNIZE (
      |  PARTITION BY part
      |  ORDER BY id
      |  MEASURES match_number() AS match, PREV(RUNNING LAST(value)) AS val, classifier() AS label
      |  ALL ROWS PER MATCH
      |  AFTER MATCH SKIP PAST LAST ROW
      |  PATTERN (B+)
      |  DEFINE B AS B.value < PREV(B.value)
      |) AS m""".stripMargin

  test("partitioning: several partitions given out of order, each matched in its own order") {
    assertRows(fallingRuns(unorderedPartitions))(
      Row("p1", 2, 1L, 90, "B"), Row("p1", 3, 1L, 80, "B"), Row("p1", 6, 2L, 90, "B"), Row("p2", 3, 1L, 20, "B"))
  }

  test("partitioning: an empty input gives no rows") {
    assertRows(
      fallingRuns("(SELECT * FROM (VALUES (1, 'p1', 90)) v(id, part, value) WHERE false) t(id, part, value)"))()
  }

  test("ordering: no partitions, rows given out of order") {
    assertRows("""SELECT m.id AS row_id, m.match, m.val, m.label
        |FROM (VALUES (5, 10), (2, 90), (1, 80), (4, 20), (3, 30)) t(id, value)
        |MATCH_RECOGNIZE (
        |  ORDER BY id
        |  MEASURES match_number() AS match, RUNNING LAST(value) AS val, classifier() AS label
        |  ALL ROWS PER MATCH
        |  AFTER MATCH SKIP PAST LAST ROW
        |  PATTERN (B+)
        |  DEFINE B AS B.value < PREV(B.value)
        |) AS m""".stripMargin)(o(3, 1, 30, "B"), o(4, 1, 20, "B"), o(5, 1, 10, "B"))
  }

  test("no MEASURES: ALL ROWS PER MATCH outputs the input columns of the matched rows") {
    assertRows("""SELECT m.id AS row_id, m.part AS partition
        |FROM (VALUES (5, 'p2', 10), (2, 'p1', 90), (1, 'p1', 80), (4, 'p2', 20), (3, 'p1', 30)) t(id, part, value)
        |MATCH_RECOGNIZE (
        |  PARTITION BY part
        |  ORDER BY id
        |  ALL ROWS PER MATCH
        |  AFTER MATCH SKIP PAST LAST ROW
        |  PATTERN (B+)
        |  DEFINE B AS B.value < PREV(B.value)
        |) AS m""".stripMargin)(Row(3, "p1"), Row(5, "p2"))
  }

  // --- testOutputLayout --------------------------------------------------------------------------------------------

  private def layout(rowsPerMatch: String, order: String = "id"): String =
    s"""SELECT *
      |FROM (VALUES ('ordering', 'partitioning', 90)) t(id, part, value)
      |MATCH_RECOGNIZE (
      |  PARTITION BY part
      |  ORDER BY $order
      |  MEASURES CLASSIFIER() AS classy
      |  $rowsPerMatch
      |  PATTERN (A)
      |  DEFINE A AS true
      |) AS m""".stripMargin

  test("output layout: ALL ROWS PER MATCH gives the partition, the order, the measures, then the other columns") {
    val df = spark.sql(layout("ALL ROWS PER MATCH"))
    assert(df.columns.toSeq == Seq("part", "id", "classy", "value"))
    assert(df.collect().toSeq == Seq(Row("partitioning", "ordering", "A", 90)))
  }

  test("output layout: ONE ROW PER MATCH gives the partition, then the measures") {
    val df = spark.sql(layout("ONE ROW PER MATCH"))
    assert(df.columns.toSeq == Seq("part", "classy"))
    assert(df.collect().toSeq == Seq(Row("partitioning", "A")))
  }

  test("output layout: an ORDER BY column named twice is output once") {
    // Trino outputs the column once per ORDER BY item: ('partitioning', 'ordering', 'ordering', 'A', 90). spark-cer
    // outputs each input column once, as it refuses an output column named twice (a measure named like a column):
    // in Spark a name the output holds twice is an ambiguous reference to the query around it.
    val df = spark.sql(layout("ALL ROWS PER MATCH", "id ASC, id DESC"))
    assert(df.columns.toSeq == Seq("part", "id", "classy", "value"))
    assert(df.collect().toSeq == Seq(Row("partitioning", "ordering", "A", 90)))
  }

  // --- testMultipleMatchRecognize ----------------------------------------------------------------------------------

  test("three MATCH_RECOGNIZE clauses in one FROM, cross joined") {
    def clause(variable: String) = "MATCH_RECOGNIZE (ORDER BY id MEASURES CLASSIFIER() AS classy ALL ROWS PER MATCH " +
      s"PATTERN ($variable) DEFINE $variable AS true)"
    assertRows(s"SELECT first.classy, second.classy, third.classy FROM (VALUES (1), (2), (3)) t(id) ${clause("A")} " +
      s"AS first, (VALUES (10), (20)) t(id) ${clause("B")} AS second, (VALUES 100) t(id) ${clause("C")} AS third")(
      Seq.fill(6)(Row("A", "B", "C")): _*)
  }

  // --- testSubqueries ----------------------------------------------------------------------------------------------

  private def subquery(measure: String, define: String): String =
    s"""SELECT m.val
      |FROM (VALUES (1, 100), (2, 200), (3, 300), (4, 400)) t(id, value)
      |MATCH_RECOGNIZE (
      |  ORDER BY id
      |  MEASURES $measure AS val
      |  ONE ROW PER MATCH
      |  AFTER MATCH SKIP TO NEXT ROW
      |  PATTERN (A+)
      |  DEFINE A AS $define
      |) AS m""".stripMargin

  test("uncorrelated scalar subqueries in MEASURES and DEFINE, and inside navigation") {
    assertRows(subquery("(SELECT 'x')", "(SELECT true)"))(Seq.fill(4)(Row("x")): _*)
    assertRows(subquery("FINAL LAST(A.value + (SELECT 1000))", "FIRST(A.value < 0 OR (SELECT true))"))(
      Seq.fill(4)(Row(1400)): _*)
  }

  test("a scalar subquery over another relation in DEFINE and MEASURES: a value computed once for the query") {
    spark.sql("SELECT * FROM VALUES (150), (250) AS l(v)").createOrReplaceTempView("trino_limits")
    // A: value at least the limits' average, 200: rows 2 to 4, one match per start under SKIP TO NEXT ROW.
    assertRows(subquery("count(*) * (SELECT min(v) FROM trino_limits)",
        "value >= (SELECT avg(v) FROM trino_limits)"))(Row(450L), Row(300L), Row(150L))
  }

  test("IN and EXISTS subqueries in DEFINE and MEASURES are refused: Spark plans them as joins") {
    // Trino: LAST(A.id < 0 OR 1 IN (SELECT 1)) is true at each of the 4 matches, FIRST(id % 2 IN (SELECT 0)) false,
    // true, false, true, and EXISTS (SELECT 1) true. Spark rewrites an IN or EXISTS subquery into a join of the
    // plan it stands in, which an expression the operator evaluates row by row has none of.
    for ((measure, define) <- Seq(
        "LAST(A.id < 0 OR 1 IN (SELECT 1))" -> "true",
        "count(*)" -> "FIRST(A.id > 0 AND 1 IN (SELECT 1))",
        "FIRST(id % 2 IN (SELECT 0))" -> "true",
        "LAST(A.value < 0 OR EXISTS (SELECT 1))" -> "true",
        "count(*)" -> "FIRST(A.value < 0 OR EXISTS (SELECT 1))"
      )) {
      val message = failure(subquery(measure, define))
      assert(message.contains("nor subqueries other than uncorrelated scalar ones"), message)
    }
  }

  // --- testInPredicateWithoutSubquery ------------------------------------------------------------------------------

  test("IN lists over navigations, CLASSIFIER and MATCH_NUMBER") {
    def measure(m: String) = bag(
      rows(
        s"""SELECT m.val
          |FROM (VALUES (1, 100), (2, 200), (3, 300), (4, 400)) t(id, value)
          |MATCH_RECOGNIZE (
          |  ORDER BY id
          |  MEASURES $m AS val
          |  ONE ROW PER MATCH
          |  AFTER MATCH SKIP TO NEXT ROW
          |  PATTERN (A+)
          |  DEFINE A AS true
          |) AS m""".stripMargin))
    // Matches from each row to the last: FIRST(A.value) is 100, 200, 300, 400, LAST(A.value) 400.
    assert(measure("FIRST(A.value) IN (300, LAST(A.value))") == bag(Seq(false, false, true, true).map(Row(_))))
    assert(measure("CLASSIFIER() IN ('X', lower(CLASSIFIER()))") == bag(Seq.fill(4)(Row(false))))
    assert(measure("MATCH_NUMBER() IN (0, MATCH_NUMBER())") == bag(Seq.fill(4)(Row(true))))
  }

  // --- testPotentiallyExponentialMatch, testExponentialMatch -------------------------------------------------------

  test("(A+)+ B over 20 rows that pass A and none B: no match, in linear time") {
    assertRows("SELECT m.classy FROM (VALUES " + Seq.fill(20)("(1)").mkString(", ") + ") t(value) MATCH_RECOGNIZE (" +
      "MEASURES CLASSIFIER() AS classy PATTERN ((A+)+ B) DEFINE A AS value = 1, B AS value = 2) AS m")()
  }

  test("(A | B)+ LAST where only the last of 2^8 labellings passes: B eight times, then LAST") {
    val define = (0 to 7).map(i => if (i == 0) "FIRST(CLASSIFIER()) = 'B'" else s"FIRST(CLASSIFIER(), $i) = 'B'")
      .mkString(" AND ")
    assertRows(s"SELECT m.classy FROM (VALUES (1), (2), (3), (4), (5), (6), (7), (8), (9)) t(value) MATCH_RECOGNIZE (" +
      s"ORDER BY value MEASURES CLASSIFIER() AS classy ALL ROWS PER MATCH PATTERN ((A | B)+ LAST) " +
      s"DEFINE LAST AS $define) AS m")(Seq.fill(8)(Row("B")) :+ Row("LAST"): _*)
  }

  // --- TestAggregationsInRowPatternMatching ------------------------------------------------------------------------

  private val eightIds = "(VALUES (1), (2), (3), (4), (5), (6), (7), (8)) t(id)"

  test("aggregates: a running sum over A*, and a running array_agg of CLASSIFIER(A)") {
    assertRows(s"SELECT m.id, m.running_sum FROM $eightIds MATCH_RECOGNIZE (ORDER BY id " +
      "MEASURES RUNNING sum(id) AS running_sum ALL ROWS PER MATCH AFTER MATCH SKIP PAST LAST ROW PATTERN (A*) " +
      "DEFINE A AS true) AS m")((1 to 8).map(i => Row(i, (1 to i).sum.toLong)): _*)
    assertRows(s"SELECT m.id, m.running_labels FROM $eightIds MATCH_RECOGNIZE (ORDER BY id " +
      "MEASURES RUNNING array_agg(CLASSIFIER(A)) AS running_labels ALL ROWS PER MATCH AFTER MATCH SKIP PAST LAST ROW " +
      "PATTERN (A*) DEFINE A AS true) AS m")((1 to 8).map(i => Row(i, Seq.fill(i)("A"))): _*)
  }

  test("aggregates: array_agg over a union variable's labels skips the rows of other variables") {
    // Trino's label "!" is Spark's `!`.
    assertRows(s"SELECT m.id, m.running_labels FROM $eightIds MATCH_RECOGNIZE (ORDER BY id " +
      "MEASURES concat_ws('', RUNNING array_agg(lower(CLASSIFIER(U)))) AS running_labels ALL ROWS PER MATCH " +
      "AFTER MATCH SKIP PAST LAST ROW PATTERN (M A X X T C H `!`) SUBSET U = (M, A, T, C, H, `!`) " +
      "DEFINE M AS true) AS m")(
      Row(1, "m"), Row(2, "ma"), Row(3, "ma"), Row(4, "ma"), Row(5, "mat"), Row(6, "matc"), Row(7, "match"),
      Row(8, "match!"))
  }

  private val partsOfOnes = "(VALUES (1, 'p1', 1), (2, 'p1', 1), (6, 'p1', 1), (2, 'p2', 10), (2, 'p3', 100), " +
    "(1, 'p3', 100), (3, 'p1', 1), (4, 'p1', 1), (5, 'p1', 1), (1, 'p2', 10), (3, 'p3', 100), (3, 'p2', 10)) " +
    "t(id, part, value)"

  test("aggregates: a running sum per partition") {
    assertRows(s"SELECT m.part AS partition, m.id AS row_id, m.running_sum FROM $partsOfOnes MATCH_RECOGNIZE (" +
      "PARTITION BY part ORDER BY id MEASURES RUNNING sum(value) AS running_sum ALL ROWS PER MATCH " +
      "AFTER MATCH SKIP PAST LAST ROW PATTERN (B+) DEFINE B AS true) AS m")(
      (1 to 6).map(i => Row("p1", i, i.toLong)) ++ (1 to 3).map(i => Row("p2", i, 10L * i)) ++
        (1 to 3).map(i => Row("p3", i, 100L * i)): _*)
  }

  test("aggregates: a running sum per match, SKIP TO NEXT ROW starting a match at every row") {
    def matches(part: String, last: Int, value: Long) =
      for (start <- 1 to last; id <- start to last) yield Row(part, start.toLong, id, value * (id - start + 1))
    assertRows(s"SELECT m.part AS partition, m.match_no, m.id AS row_id, m.running_sum FROM $partsOfOnes " +
      "MATCH_RECOGNIZE (PARTITION BY part ORDER BY id MEASURES RUNNING sum(value) AS running_sum, " +
      "MATCH_NUMBER() AS match_no ALL ROWS PER MATCH AFTER MATCH SKIP TO NEXT ROW PATTERN (B+) DEFINE B AS true) AS m")(
      matches("p1", 6, 1) ++ matches("p2", 3, 10) ++ matches("p3", 3, 100): _*)
  }

  test("aggregates in DEFINE: a tentative label's row counts in its own condition, and is dropped when it fails") {
    // A's condition reads avg(B.value): row 3 is tried as A with B's rows 4 and 6.
    assertRows("SELECT m.id, m.classy, m.running_avg_B FROM (VALUES (1, 4), (2, 6), (3, 0)) t(id, value) " +
      "MATCH_RECOGNIZE (ORDER BY id MEASURES RUNNING avg(B.value) AS running_avg_B, CLASSIFIER() AS classy " +
      "ALL ROWS PER MATCH AFTER MATCH SKIP PAST LAST ROW PATTERN ((A | B)*) DEFINE A AS avg(B.value) = 5) AS m")(
      Row(1, "B", 4.0), Row(2, "B", 5.0), Row(3, "A", 5.0))
    // avg(A.value) includes the row being tried as A: only row 4 brings it to 5.
    assertRows("SELECT m.id, m.classy, m.running_avg_A FROM (VALUES (1, 4), (2, 6), (3, 0), (4, 5)) t(id, value) " +
      "MATCH_RECOGNIZE (ORDER BY id MEASURES RUNNING avg(A.value) AS running_avg_A, CLASSIFIER() AS classy " +
      "ALL ROWS PER MATCH AFTER MATCH SKIP PAST LAST ROW PATTERN ((A | B)*) DEFINE A AS avg(A.value) = 5) AS m")(
      Row(1, "B", null), Row(2, "B", null), Row(3, "B", null), Row(4, "A", 5.0))
  }

  test("aggregates in DEFINE: sum and any_value (Trino's arbitrary) of the match, the tentative row in them") {
    for (condition <- Seq("sum(value) > 1000", "any_value(value) > 1000"))
      assertRows(s"SELECT m.part AS partition, m.id AS row_id, m.running_sum FROM $partsOfOnes MATCH_RECOGNIZE (" +
        "PARTITION BY part ORDER BY id MEASURES RUNNING sum(value) AS running_sum ALL ROWS PER MATCH " +
        s"AFTER MATCH SKIP PAST LAST ROW PATTERN (B (A | B) B) DEFINE A AS $condition) AS m")(
        Row("p1", 1, 1L),
        Row("p1", 2, 2L),
        Row("p1", 3, 3L),
        Row("p1", 4, 1L),
        Row("p1", 5, 2L),
        Row("p1", 6, 3L),
        Row("p2", 1, 10L),
        Row("p2", 2, 20L),
        Row("p2", 3, 30L),
        Row("p3", 1, 100L),
        Row("p3", 2, 200L),
        Row("p3", 3, 300L)
      )
    val fives = "(VALUES (1, 'p1', 1), (2, 'p1', 1), (3, 'p1', 1), (4, 'p1', 1), (5, 'p1', 1), (1, 'p2', 2), " +
      "(2, 'p2', 2), (3, 'p2', 2), (4, 'p2', 2), (5, 'p2', 2)) t(id, part, value)"
    assertRows(s"SELECT m.part AS partition, m.id AS row_id, m.classy, m.running_sum FROM $fives MATCH_RECOGNIZE (" +
      "PARTITION BY part ORDER BY id MEASURES RUNNING sum(value) AS running_sum, CLASSIFIER() AS classy " +
      "ALL ROWS PER MATCH AFTER MATCH SKIP PAST LAST ROW PATTERN ((A | B)*) DEFINE A AS sum(value) > 4) AS m")(
      Row("p1", 1, "B", 1L),
      Row("p1", 2, "B", 2L),
      Row("p1", 3, "B", 3L),
      Row("p1", 4, "B", 4L),
      Row("p1", 5, "A", 5L),
      Row("p2", 1, "B", 2L),
      Row("p2", 2, "B", 4L),
      Row("p2", 3, "A", 6L),
      Row("p2", 4, "A", 8L),
      Row("p2", 5, "A", 10L)
    )
  }

  test("any_value in a measure, RUNNING: Spark's grammar reads it into its aggregate, as it reads FIRST and LAST") {
    assertRows("SELECT id, v FROM (VALUES (1, 10), (2, 20), (3, 30)) t(id, value) MATCH_RECOGNIZE (ORDER BY id " +
      "MEASURES RUNNING any_value(B.value) AS v ALL ROWS PER MATCH PATTERN (A B+) DEFINE B AS true)")(
      Row(1, null), Row(2, 20), Row(3, 20))
  }

  private val risingParts = "(VALUES (1, 'p1', 1), (2, 'p1', 2), (3, 'p1', 3), (4, 'p1', 4), (5, 'p1', 5), " +
    "(1, 'p2', 2), (2, 'p2', 4), (3, 'p2', 6), (4, 'p2', 8), (5, 'p2', 10)) t(id, part, value)"
  private val risingLabels = Seq(
    Row("p1", 1, "B", 1),
    Row("p1", 2, "B", 2),
    Row("p1", 3, "B", 3),
    Row("p1", 4, "B", 4),
    Row("p1", 5, "A", 5),
    Row("p2", 1, "B", 2),
    Row("p2", 2, "B", 4),
    Row("p2", 3, "A", 6),
    Row("p2", 4, "A", 8),
    Row("p2", 5, "A", 10)
  )

  private def rising(condition: String) = s"SELECT m.part AS partition, m.id AS row_id, m.classy, m.running_max " +
    s"FROM $risingParts MATCH_RECOGNIZE (PARTITION BY part ORDER BY id MEASURES RUNNING max(value) AS running_max, " +
    "CLASSIFIER() AS classy ALL ROWS PER MATCH AFTER MATCH SKIP PAST LAST ROW PATTERN ((A | B)*) " +
    s"DEFINE A AS $condition) AS m"

  test("aggregates in DEFINE: max of the match, the tentative row in it") {
    assertRows(rising("max(value) > 4"))(risingLabels: _*)
  }

  test("MATCH_NUMBER in an aggregate's argument in DEFINE: the number of the match sought (Trino)") {
    // Each partition's one match is its first: max(value + 1) > 5 is max(value) > 4.
    assertRows(rising("max(value + MATCH_NUMBER()) > 5"))(risingLabels: _*)
  }

  test("aggregate arguments that combine a column and CLASSIFIER, the column named twice") {
    assertRows("SELECT m.part, m.id, m.measure FROM (VALUES ('p1', 1, 'a'), ('p1', 2, 'b'), ('p1', 3, 'c'), " +
      "('p1', 4, 'd'), ('p1', 5, 'e'), ('p1', 6, 'f'), ('p2', 1, 'g'), ('p2', 2, 'h'), ('p2', 3, 'i'), ('p3', 1, 'j'), " +
      "('p3', 2, 'k'), ('p3', 3, 'l')) t(part, id, value) MATCH_RECOGNIZE (PARTITION BY part ORDER BY id " +
      "MEASURES array_agg(value || CLASSIFIER()) AS measure ALL ROWS PER MATCH AFTER MATCH SKIP PAST LAST ROW " +
      "PATTERN (X Y Z+) DEFINE X AS true) AS m")(
      Row("p1", 1, Seq("aX")),
      Row("p1", 2, Seq("aX", "bY")),
      Row("p1", 3, Seq("aX", "bY", "cZ")),
      Row("p1", 4, Seq("aX", "bY", "cZ", "dZ")),
      Row("p1", 5, Seq("aX", "bY", "cZ", "dZ", "eZ")),
      Row("p1", 6, Seq("aX", "bY", "cZ", "dZ", "eZ", "fZ")),
      Row("p2", 1, Seq("gX")),
      Row("p2", 2, Seq("gX", "hY")),
      Row("p2", 3, Seq("gX", "hY", "iZ")),
      Row("p3", 1, Seq("jX")),
      Row("p3", 2, Seq("jX", "kY")),
      Row("p3", 3, Seq("jX", "kY", "lZ"))
    )
    assertRows("SELECT m.id, m.measure FROM (VALUES (1, 'a'), (2, 'b'), (3, 'c')) t(id, value) MATCH_RECOGNIZE (" +
      "ORDER BY id MEASURES array_agg(value || value || CLASSIFIER()) AS measure ALL ROWS PER MATCH " +
      "AFTER MATCH SKIP PAST LAST ROW PATTERN (X Y Z) DEFINE X AS true) AS m")(
      Row(1, Seq("aaX")), Row(2, Seq("aaX", "bbY")), Row(3, Seq("aaX", "bbY", "ccZ")))
  }

  test("aggregate arguments: uncorrelated subqueries inside an aggregate's argument") {
    assertRows("SELECT m.id, m.measure_1, m.measure_2 FROM (VALUES (1, 'a'), (2, 'b'), (3, 'c')) t(id, value) " +
      "MATCH_RECOGNIZE (ORDER BY id MEASURES array_agg('X' || (SELECT 'Y')) AS measure_1, " +
      "array_agg(CLASSIFIER() || (SELECT 'A')) AS measure_2 ALL ROWS PER MATCH AFTER MATCH SKIP PAST LAST ROW " +
      "PATTERN (X Y Z) DEFINE X AS true) AS m")(
      Row(1, Seq("XY"), Seq("XA")), Row(2, Seq("XY", "XY"), Seq("XA", "YA")),
      Row(3, Seq("XY", "XY", "XY"), Seq("XA", "YA", "ZA")))
  }

  test("aggregate arguments: max_by with CLASSIFIER as the ordering argument") {
    assertRows("SELECT m.id, m.measure FROM (VALUES (1, 'p'), (2, 'q'), (3, 'r'), (4, 's')) t(id, value) " +
      "MATCH_RECOGNIZE (ORDER BY id MEASURES max_by(value, CLASSIFIER()) AS measure ALL ROWS PER MATCH " +
      "AFTER MATCH SKIP PAST LAST ROW PATTERN (A B D C) DEFINE A AS true) AS m")(
      Row(1, "p"), Row(2, "q"), Row(3, "r"), Row(4, "r"))
  }

  test("selective aggregates: over a union variable's rows only") {
    assertRows("SELECT m.id, m.measure_1, m.measure_2, m.measure_3 FROM (VALUES (1, 'a'), (2, 'b'), (3, 'c'), " +
      "(4, 'd')) t(id, value) MATCH_RECOGNIZE (ORDER BY id MEASURES array_agg(U.id) AS measure_1, " +
      "array_agg(CLASSIFIER(U)) AS measure_2, array_agg(U.value || CLASSIFIER(U)) AS measure_3 ALL ROWS PER MATCH " +
      "AFTER MATCH SKIP PAST LAST ROW PATTERN (X Y Z Y) SUBSET U = (X, Z) DEFINE X AS true) AS m")(
      Row(1, Seq(1), Seq("X"), Seq("aX")),
      Row(2, Seq(1), Seq("X"), Seq("aX")),
      Row(3, Seq(1, 3), Seq("X", "Z"), Seq("aX", "cZ")),
      Row(4, Seq(1, 3), Seq("X", "Z"), Seq("aX", "cZ"))
    )
  }

  test("count(*), RUNNING and FINAL") {
    assertRows("SELECT m.id, m.measure_1 FROM (VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd')) t(id, value) " +
      "MATCH_RECOGNIZE (ORDER BY id MEASURES count(*) AS measure_1 ALL ROWS PER MATCH " +
      "AFTER MATCH SKIP PAST LAST ROW PATTERN (X Y Z) DEFINE X AS id > 1) AS m")(
      Row(2, 1L), Row(3, 2L), Row(4, 3L))
    assertRows("SELECT m.id, m.measure_1, m.measure_2 FROM (VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd')) " +
      "t(id, value) MATCH_RECOGNIZE (ORDER BY id MEASURES RUNNING count(*) AS measure_1, FINAL count(*) AS measure_2 " +
      "ALL ROWS PER MATCH AFTER MATCH SKIP PAST LAST ROW PATTERN (A B C D) DEFINE A AS true) AS m")(
      Row(1, 1L, 4L), Row(2, 2L, 4L), Row(3, 3L, 4L), Row(4, 4L, 4L))
  }

  test("count() with no argument counts the rows, as count(*), where Spark's conf allows it") {
    // Spark refuses count() (WRONG_NUM_ARGS) unless spark.sql.legacy.allowParameterlessCount is set; the measure is
    // Spark's aggregate, so the conf holds there too.
    val refused = failure("SELECT * FROM (VALUES (1)) t(id) MATCH_RECOGNIZE (ORDER BY id MEASURES count() AS n " +
      "PATTERN (A) DEFINE A AS true)")
    assert(refused.contains("WRONG_NUM_ARGS") && refused.contains("in the measure count()"), refused)
    spark.conf.set("spark.sql.legacy.allowParameterlessCount", "true")
    try assertRows("SELECT m.id, m.measure FROM (VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd')) t(id, value) " +
        "MATCH_RECOGNIZE (ORDER BY id MEASURES RUNNING count() AS measure ALL ROWS PER MATCH " +
        "AFTER MATCH SKIP PAST LAST ROW PATTERN (A B C D) DEFINE A AS true) AS m")(
        Row(1, 1L), Row(2, 2L), Row(3, 3L), Row(4, 4L))
    finally spark.conf.unset("spark.sql.legacy.allowParameterlessCount")
  }

  test("count(C.*) and count(U.*) count the rows of a variable and of a union variable") {
    assertRows("SELECT m.id, m.measure_1, m.measure_2 FROM (VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd')) " +
      "t(id, value) MATCH_RECOGNIZE (ORDER BY id MEASURES count(C.*) AS measure_1, count(U.*) AS measure_2 " +
      "ALL ROWS PER MATCH AFTER MATCH SKIP PAST LAST ROW PATTERN (A B C D) SUBSET U = (B, D) DEFINE A AS true) AS m")(
      Row(1, 0L, 0L), Row(2, 0L, 1L), Row(3, 1L, 1L), Row(4, 1L, 2L))
  }

  test("a column and a variable of the same name: count(A.A), count(A), count(A.*)") {
    assertRows("SELECT m.id, m.classy, m.measure_1, m.measure_2, m.measure_3 FROM (VALUES (1, 'p'), (2, 'q'), " +
      "(3, NULL), (4, 's')) t(id, A) MATCH_RECOGNIZE (ORDER BY id MEASURES CLASSIFIER() AS classy, " +
      "count(A.A) AS measure_1, count(A) AS measure_2, count(A.*) AS measure_3 ALL ROWS PER MATCH " +
      "PATTERN (A B A A) DEFINE A AS true) AS m")(
      Row(1, "A", 1L, 1L, 1L), Row(2, "B", 1L, 2L, 1L), Row(3, "A", 1L, 2L, 2L), Row(4, "A", 2L, 3L, 3L))
  }

  test("aggregates under ONE ROW PER MATCH cover the whole match") {
    assertRows("SELECT m.part, m.measure FROM (VALUES ('p1', 1, 'a'), ('p1', 2, 'b'), ('p1', 3, 'c'), ('p1', 4, 'd'), " +
      "('p1', 5, 'e'), ('p1', 6, 'f'), ('p2', 1, 'g'), ('p2', 2, 'h'), ('p2', 3, 'i'), ('p2', 4, 'j'), ('p2', 5, 'k'), " +
      "('p2', 6, 'l')) t(part, id, value) MATCH_RECOGNIZE (PARTITION BY part ORDER BY id " +
      "MEASURES array_agg(value || CLASSIFIER()) AS measure ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW " +
      "PATTERN (X Y Z) DEFINE X AS true) AS m")(
      Row("p1", Seq("aX", "bY", "cZ")), Row("p1", Seq("dX", "eY", "fZ")),
      Row("p2", Seq("gX", "hY", "iZ")), Row("p2", Seq("jX", "kY", "lZ")))
  }

  test("aggregates over a match with excluded rows aggregate the excluded rows too") {
    // Exclusion only keeps rows out of ALL ROWS PER MATCH's output: the measures of the rows output still cover them.
    assertRows(
      "SELECT m.part, m.measure_1, m.measure_2 FROM (VALUES ('p1', 1, '1a'), ('p1', 2, '1b'), ('p1', 3, '1c'), " +
        "('p1', 4, '1d'), ('p1', 5, '1e'), ('p2', 1, '2a'), ('p2', 2, '2b'), ('p2', 3, '2c'), ('p2', 4, '2d'), " +
        "('p2', 5, '2e')) t(part, id, value) MATCH_RECOGNIZE (PARTITION BY part ORDER BY id " +
        "MEASURES array_agg(value) AS measure_1, array_agg(value || CLASSIFIER()) AS measure_2 ALL ROWS PER MATCH " +
        "AFTER MATCH SKIP PAST LAST ROW PATTERN (P {- Q R -} S) DEFINE P AS id > 1) AS m")(
      Row("p1", Seq("1b"), Seq("1bP")),
      Row("p1", Seq("1b", "1c", "1d", "1e"), Seq("1bP", "1cQ", "1dR", "1eS")),
      Row("p2", Seq("2b"), Seq("2bP")),
      Row("p2", Seq("2b", "2c", "2d", "2e"), Seq("2bP", "2cQ", "2dR", "2eS"))
    )
  }

  test("balancing sums: a row is an A while A's sum, less the row, stays within B's") {
    assertRows("SELECT m.id, m.classy, m.running_sum_A, m.running_sum_B FROM (VALUES (1, 4), (2, 6), (3, 10), (4, 1), " +
      "(5, 1), (6, 1), (7, 10), (8, 5), (9, 1)) t(id, value) MATCH_RECOGNIZE (ORDER BY id " +
      "MEASURES RUNNING sum(A.value) AS running_sum_A, RUNNING sum(B.value) AS running_sum_B, CLASSIFIER() AS classy " +
      "ALL ROWS PER MATCH AFTER MATCH SKIP PAST LAST ROW PATTERN ((A | B)*) " +
      "DEFINE A AS sum(A.value) - A.value <= sum(B.value)) AS m")(
      Row(1, "B", null, 4L),
      Row(2, "A", 6L, 4L),
      Row(3, "B", 6L, 14L),
      Row(4, "A", 7L, 14L),
      Row(5, "A", 8L, 14L),
      Row(6, "A", 9L, 14L),
      Row(7, "A", 19L, 14L),
      Row(8, "B", 19L, 19L),
      Row(9, "A", 20L, 19L)
    )
  }

  test("period length: COALESCE around a difference of sums over sessions of consecutive minutes") {
    assertRows("SELECT user_id, CAST(periods_total AS INT) FROM (VALUES (1, 3), (1, 4), (1, 5), (1, 8), (1, 9), (2, 2), " +
      "(2, 3), (2, 4)) t(user_id, minute_of_the_day) MATCH_RECOGNIZE (PARTITION BY user_id ORDER BY minute_of_the_day " +
      "MEASURES COALESCE(sum(C.minute_of_the_day) - sum(A.minute_of_the_day), 0) AS periods_total ONE ROW PER MATCH " +
      "PATTERN ((A B* C | D)*) DEFINE B AS minute_of_the_day = PREV(minute_of_the_day) + 1, " +
      "C AS minute_of_the_day = PREV(minute_of_the_day) + 1)")(Row(1, 3), Row(2, 2))
  }

  test("set partitioning: 1 to 8 into two sets of equal sums, anchored to the whole partition") {
    assertRows(s"SELECT m.id, m.running_labels FROM $eightIds MATCH_RECOGNIZE (ORDER BY id " +
      "MEASURES RUNNING array_agg(CLASSIFIER()) AS running_labels ALL ROWS PER MATCH AFTER MATCH SKIP PAST LAST ROW " +
      "PATTERN (^(A | B)* (LAST_A | LAST_B)$) DEFINE LAST_A AS sum(A.id) + id = sum(B.id), " +
      "LAST_B AS sum(B.id) + id = sum(A.id)) AS m")(
      Seq("A", "A", "A", "A", "B", "B", "B", "LAST_A").inits.toSeq.reverse.tail.map(l => Row(l.size, l)): _*)
  }

  test("set partitioning: 1 to 6 into three sets of equal sums") {
    assertRows("SELECT m.id, m.running_labels FROM (VALUES (1), (2), (3), (4), (5), (6)) t(id) MATCH_RECOGNIZE (" +
      "ORDER BY id MEASURES RUNNING array_agg(CLASSIFIER()) AS running_labels ALL ROWS PER MATCH " +
      "AFTER MATCH SKIP PAST LAST ROW PATTERN (^(A | B | C)* (LAST_A | LAST_B | LAST_C)$) " +
      "DEFINE LAST_A AS sum(A.id) + id = sum(B.id) AND sum(B.id) = sum(C.id), " +
      "LAST_B AS sum(B.id) + id = sum(A.id) AND sum(A.id) = sum(C.id), " +
      "LAST_C AS sum(C.id) + id = sum(A.id) AND sum(A.id) = sum(B.id)) AS m")(
      Seq("A", "B", "C", "C", "B", "LAST_A").inits.toSeq.reverse.tail.map(l => Row(l.size, l)): _*)
  }

  test("forking threads: array_agg of the labels compared with an array in X's condition") {
    // Trino's ARRAY['C', 'A', 'B', 'X'] is Spark's array('C', 'A', 'B', 'X').
    assertRows("SELECT m.id, m.running_labels FROM (VALUES (1), (2), (3), (4)) t(id) MATCH_RECOGNIZE (ORDER BY id " +
      "MEASURES RUNNING array_agg(CLASSIFIER()) AS running_labels ALL ROWS PER MATCH AFTER MATCH SKIP PAST LAST ROW " +
      "PATTERN ((A | B | C)* X) DEFINE X AS array_agg(CLASSIFIER()) = array('C', 'A', 'B', 'X')) AS m")(
      Row(1, Seq("C")), Row(2, Seq("C", "A")), Row(3, Seq("C", "A", "B")), Row(4, Seq("C", "A", "B", "X")))
  }

  test("several aggregates in each condition, over CLASSIFIER and MATCH_NUMBER") {
    assertRows(s"SELECT m.match_no, m.labels FROM $eightIds MATCH_RECOGNIZE (ORDER BY id " +
      "MEASURES MATCH_NUMBER() AS match_no, array_agg(CLASSIFIER()) AS labels ONE ROW PER MATCH " +
      "AFTER MATCH SKIP PAST LAST ROW PATTERN ((A | B){4}) " +
      "DEFINE A AS max(id - 2 * MATCH_NUMBER()) > 1 AND max(CLASSIFIER()) = 'B', " +
      "B AS min(lower(CLASSIFIER())) = 'b' OR min(MATCH_NUMBER() + 100) < 0) AS m")(
      Row(1L, Seq("B", "B", "B", "A")), Row(2L, Seq("B", "A", "A", "A")))
  }

  test("RUNNING and FINAL aggregates over CLASSIFIER and MATCH_NUMBER") {
    assertRows(
      s"SELECT m.id, m.match, m.running_labels, m.final_labels, m.running_match, m.final_match FROM $eightIds " +
        "MATCH_RECOGNIZE (ORDER BY id MEASURES MATCH_NUMBER() AS match, RUNNING array_agg(CLASSIFIER()) AS running_labels, " +
        "FINAL array_agg(lower(CLASSIFIER())) AS final_labels, RUNNING sum(MATCH_NUMBER() * 100) AS running_match, " +
        "FINAL sum(-MATCH_NUMBER()) AS final_match ALL ROWS PER MATCH AFTER MATCH SKIP PAST LAST ROW " +
        "PATTERN (A B C D) DEFINE A AS true) AS m")(
      (1 to 8).map { id =>
        val m = (id + 3) / 4
        val at = (id - 1) % 4 + 1
        Row(id, m.toLong, Seq("A", "B", "C", "D").take(at), Seq("a", "b", "c", "d"), 100L * m * at, -4L * m)
      }: _*)
  }

  private def twoArguments(define: String) = s"SELECT m.id, m.classy, m.match, m.running_measure, m.final_measure " +
    s"FROM $eightIds MATCH_RECOGNIZE (ORDER BY id MEASURES MATCH_NUMBER() AS match, CLASSIFIER() AS classy, " +
    "RUNNING max_by(MATCH_NUMBER() * 100 + id, CLASSIFIER()) AS running_measure, " +
    "FINAL max_by(-MATCH_NUMBER() - id, lower(CLASSIFIER())) AS final_measure ALL ROWS PER MATCH " +
    s"AFTER MATCH SKIP PAST LAST ROW PATTERN (A B C D) DEFINE A AS $define) AS m"

  test("aggregates of two arguments in DEFINE and MEASURES, over CLASSIFIER and MATCH_NUMBER") {
    assertRows(twoArguments("max_by(MATCH_NUMBER(), CLASSIFIER()) > 0"))(
      (1 to 8).map { id =>
        val m = (id + 3) / 4
        Row(id, "ABCD".charAt((id - 1) % 4).toString, m.toLong, 100L * m + id, -(m + 4L * m))
      }: _*)
  }

  // --- Trino's documentation: the V-shape over orders ---------------------------------------------------------------

  // The documentation's orders, with prices that give its output: cust_1 160 100 50 110 200, cust_2 (after a first
  // order that starts no match) 270 150 230 290.
  private val orders = "(VALUES ('cust_1', DATE'2020-05-11', 160), ('cust_1', DATE'2020-05-12', 100), " +
    "('cust_2', DATE'2020-05-09', 100), ('cust_2', DATE'2020-05-13', 270), ('cust_1', DATE'2020-05-14', 50), " +
    "('cust_2', DATE'2020-05-15', 150), ('cust_1', DATE'2020-05-16', 110), ('cust_1', DATE'2020-05-17', 200), " +
    "('cust_2', DATE'2020-05-18', 230), ('cust_2', DATE'2020-05-19', 290)) t(custkey, orderdate, totalprice)"

  // The documentation's V-shape itself (ONE ROW PER MATCH) is MatchRecognizeSuite's first test, over `orders`.

  test("the documentation's measures under ALL ROWS PER MATCH: running and final, labels, match numbers, averages") {
    def day(d: Int) = Date.valueOf(f"2020-05-$d%02d")
    assertOrderedRows(s"""SELECT custkey, orderdate, m, label, running_low, final_low, avg_u, prev_a
        |FROM $orders MATCH_RECOGNIZE (
        |  PARTITION BY custkey
        |  ORDER BY orderdate
        |  MEASURES MATCH_NUMBER() AS m, CLASSIFIER() AS label, RUNNING LAST(B.totalprice) AS running_low,
        |           FINAL LAST(B.totalprice) AS final_low, FINAL avg(U.totalprice) AS avg_u,
        |           PREV(A.totalprice) AS prev_a
        |  ALL ROWS PER MATCH
        |  PATTERN (A B+ C+)
        |  SUBSET U = (B, C)
        |  DEFINE B AS totalprice < PREV(totalprice), C AS totalprice > PREV(totalprice)
        |) ORDER BY custkey, orderdate""".stripMargin)(
      Row("cust_1", day(11), 1L, "A", null, 50, 115.0, null),
      Row("cust_1", day(12), 1L, "B", 100, 50, 115.0, null),
      Row("cust_1", day(14), 1L, "B", 50, 50, 115.0, null),
      Row("cust_1", day(16), 1L, "C", 50, 50, 115.0, null),
      Row("cust_1", day(17), 1L, "C", 50, 50, 115.0, null),
      Row("cust_2", day(13), 1L, "A", null, 150, 670.0 / 3, 100),
      Row("cust_2", day(15), 1L, "B", 150, 150, 670.0 / 3, 100),
      Row("cust_2", day(18), 1L, "C", 150, 150, 670.0 / 3, 100),
      Row("cust_2", day(19), 1L, "C", 150, 150, 670.0 / 3, 100)
    )
  }

  // --- NULLs in the input (from the standard: a condition that is NULL is not true) ---------------------------------

  test("NULL values: a condition that reads NULL fails, aggregates and navigation skip or return NULL") {
    assertRows("""SELECT * FROM (VALUES (1, 10), (2, CAST(NULL AS INT)), (3, 5), (4, 3), (5, 1)) t(id, value)
        |MATCH_RECOGNIZE (
        |  ORDER BY id
        |  MEASURES FIRST(id) AS first_id, count(*) AS n, count(value) AS n_values, PREV(FIRST(value)) AS before
        |  PATTERN (A B+)
        |  DEFINE B AS value < PREV(value)
        |)""".stripMargin)(Row(3, 3L, 3L, null))
  }

  test("NULL partition keys form one partition, and NULL order keys sort first") {
    // As GROUP BY, PARTITION BY puts the NULL keys together. A NULL order key sorts first under Spark's default for
    // ASC (NULLS FIRST); Trino's default is NULLS LAST, so there the NULL id's row would come last and start no B.
    assertOrderedRows("""SELECT * FROM (VALUES (CAST(NULL AS STRING), 2, 5), (NULL, 1, 9), ('k', 1, 1),
        |  (NULL, CAST(NULL AS INT), 20)) t(k, id, value)
        |MATCH_RECOGNIZE (
        |  PARTITION BY k
        |  ORDER BY id
        |  MEASURES count(*) AS n, FIRST(value) AS first_value, LAST(value) AS last_value
        |  PATTERN (A B*)
        |  DEFINE B AS value < PREV(value)
        |) ORDER BY k NULLS FIRST""".stripMargin)(Row(null, 3L, 20, 5), Row("k", 1L, 1, 1))
  }

  // --- Spark's own expressions around the row pattern functions -----------------------------------------------------

  private val readings = "(VALUES (DATE'2024-01-01', 'ok', 10D), (DATE'2024-01-02', 'warn', 12.5D), " +
    "(DATE'2024-01-04', 'WARN', 15D), (DATE'2024-01-05', 'alarm', 9D), (DATE'2024-01-08', 'ok', 11D)) " +
    "t(day, status, reading)"

  test("Spark expressions in DEFINE and MEASURES: CASE, COALESCE, IN, string and date functions, arithmetic") {
    val df = spark.sql(
      s"""SELECT * FROM $readings MATCH_RECOGNIZE (
        |  ORDER BY day
        |  MEASURES
        |    FIRST(day) AS start_day,
        |    concat_ws('>', array_agg(lower(status))) AS path,
        |    CASE WHEN LAST(X.reading) < FIRST(S.reading) THEN 'dropped' ELSE 'held' END AS outcome,
        |    initcap(LAST(W.status)) AS last_warning,
        |    datediff(LAST(day), FIRST(day)) AS days,
        |    date_add(LAST(X.day), 7) AS follow_up,
        |    round((max(W.reading) - FIRST(S.reading)) / FIRST(S.reading) * 100, 1) AS rise_pct,
        |    (LAST(W.reading) - PREV(LAST(W.reading))) * 2 AS last_step,
        |    coalesce(NEXT(LAST(X.status)), 'end') AS after,
        |    count(W.*) * 10 + count(*) AS code
        |  PATTERN (S W+ X)
        |  DEFINE
        |    S AS coalesce(PREV(status), 'none') IN ('none', 'ok'),
        |    W AS CASE WHEN lower(status) = 'warn' THEN reading > coalesce(PREV(reading), 0) ELSE false END,
        |    X AS upper(substring(status, 1, 1)) || CAST(length(status) AS STRING) = 'A5'
        |)""".stripMargin)
    assert(df.collect().toSeq == Seq(Row(Date.valueOf("2024-01-01"), "ok>warn>warn>alarm", "dropped", "Warn", 4,
        Date.valueOf("2024-01-12"), 50.0, 5.0, "ok", 24L)))
  }

  test("date arithmetic in DEFINE: runs of consecutive days, with CAST, make_date and date_format in MEASURES") {
    assertRows(
      s"""SELECT * FROM $readings MATCH_RECOGNIZE (
        |  ORDER BY day
        |  MEASURES FIRST(day) AS first_day, count(*) AS n,
        |           date_add(FIRST(day), CAST(count(*) AS INT)) AS next_expected,
        |           make_date(year(FIRST(day)), month(FIRST(day)), 1) AS month_start,
        |           date_format(LAST(day), 'yyyy/MM/dd') AS last_text
        |  PATTERN (A B*)
        |  DEFINE B AS datediff(day, PREV(day)) <= 1 AND date_sub(day, 1) = PREV(day)
        |)""".stripMargin)(
      Row(Date.valueOf("2024-01-01"), 2L, Date.valueOf("2024-01-03"), Date.valueOf("2024-01-01"), "2024/01/02"),
      Row(Date.valueOf("2024-01-04"), 2L, Date.valueOf("2024-01-06"), Date.valueOf("2024-01-01"), "2024/01/05"),
      Row(Date.valueOf("2024-01-08"), 1L, Date.valueOf("2024-01-09"), Date.valueOf("2024-01-01"), "2024/01/08")
    )
  }

  test("timestamp arithmetic: intervals added to PREV in DEFINE, timestampdiff and intervals in MEASURES") {
    assertRows(
      """SELECT * FROM (VALUES (TIMESTAMP'2024-01-01 10:00:00', 'u'), (TIMESTAMP'2024-01-01 10:05:00', 'u'),
        |  (TIMESTAMP'2024-01-01 10:12:00', 'u'), (TIMESTAMP'2024-01-01 10:40:00', 'u'),
        |  (TIMESTAMP'2024-01-01 10:45:00', 'u')) t(ts, uid)
        |MATCH_RECOGNIZE (
        |  PARTITION BY uid
        |  ORDER BY ts
        |  MEASURES timestampdiff(MINUTE, FIRST(ts), LAST(ts)) AS minutes,
        |           date_format(FIRST(ts) + INTERVAL 1 HOUR, 'HH:mm') AS plus_hour,
        |           hour(LAST(B.ts)) * 100 + minute(LAST(B.ts)) AS last_hhmm
        |  PATTERN (A B+)
        |  DEFINE B AS ts <= PREV(ts) + INTERVAL '10' MINUTE
        |)""".stripMargin)(Row("u", 12L, "11:00", 1012), Row("u", 5L, "11:40", 1045))
  }

  test("nested arithmetic over PREV, LAST and FIRST: BETWEEN, IF, greatest, nvl, CASE, in DEFINE and MEASURES") {
    // 100 102 99 101 stay within 5% of the row before; 120 jumps over 10% past the last of them and past the price
    // two rows back. Rows 6 to 8 start no match (119 140 80: no two stable rows before a jump).
    assertRows(
      """SELECT * FROM (VALUES (1, 100), (2, 102), (3, 99), (4, 101), (5, 120), (6, 119), (7, 140), (8, 80)) t(id, price)
        |MATCH_RECOGNIZE (
        |  ORDER BY id
        |  MEASURES FIRST(id) AS first_id, LAST(id) AS last_id, round(avg(STABLE.price), 2) AS base,
        |           (JUMP.price - FIRST(STABLE.price)) * 100 / FIRST(STABLE.price) AS jump_pct,
        |           CASE WHEN JUMP.price - LAST(STABLE.price) > 15 THEN 'big'
        |                WHEN JUMP.price > LAST(STABLE.price) THEN 'small' ELSE 'none' END AS size,
        |           greatest(PREV(JUMP.price), NEXT(JUMP.price), 0) AS neighbour_max,
        |           nvl(NEXT(JUMP.price, 10), -1) AS far
        |  PATTERN (STABLE{2,} JUMP)
        |  DEFINE
        |    STABLE AS price BETWEEN coalesce(PREV(price), price) * 0.95 AND coalesce(PREV(price), price) * 1.05,
        |    JUMP AS (price - LAST(STABLE.price)) / LAST(STABLE.price) > 0.1
        |            AND IF(PREV(price, 2) IS NULL, false, price > PREV(price, 2))
        |)""".stripMargin)(Row(1, 5, 100.5, 20.0, "big", 119, -1))
  }

  test("arrays, structs and conditional aggregates over a variable's rows in MEASURES") {
    assertRows(
      """SELECT * FROM (VALUES (1, 'a', 5), (2, 'b', 7), (3, 'b', 2), (4, 'c', 9)) t(id, kind, amount)
        |MATCH_RECOGNIZE (
        |  ORDER BY id
        |  MEASURES element_at(array_agg(B.amount), -1) AS last_b, size(array_agg(B.amount)) AS b_count,
        |           named_struct('lo', FIRST(amount), 'hi', LAST(amount)).hi AS last_amount,
        |           sum(CASE WHEN B.amount > 3 THEN 1 ELSE 0 END) AS big_bs, max(length(kind) + amount) AS top,
        |           array(PREV(LAST(amount)), LAST(amount))[0] AS before_last,
        |           count_if(kind IN ('a', 'c')) AS ends
        |  PATTERN (A B+ C)
        |  DEFINE A AS kind = 'a', B AS kind = 'b' AND amount <> coalesce(PREV(B.amount), -1), C AS kind = 'c'
        |)""".stripMargin)(Row(2, 2, 9, 1L, 10, 2, 2L))
  }

  test("CASE over CLASSIFIER and MATCH_NUMBER in a measure, RUNNING, on each row") {
    assertRows(
      """SELECT id, what FROM (VALUES (1, 3), (2, 1), (3, 4), (4, 1), (5, 5)) t(id, v)
        |MATCH_RECOGNIZE (
        |  ORDER BY id
        |  MEASURES CASE CLASSIFIER() WHEN 'UP' THEN concat('up#', CAST(MATCH_NUMBER() AS STRING))
        |                            ELSE lpad(lower(CLASSIFIER()), 6, '-') END AS what
        |  ALL ROWS PER MATCH
        |  PATTERN (DOWN UP)
        |  DEFINE DOWN AS v < coalesce(PREV(v), v + 1), UP AS v > PREV(v)
        |)""".stripMargin)(Row(2, "--down"), Row(3, "up#1"), Row(4, "--down"), Row(5, "up#2"))
  }
}
