package io.sparkcer.engine

import org.scalatest.funsuite.AnyFunSuite

import io.sparkcer.engine.syntax.PatternException

/**
 * The worked examples of the RMA paper and of the lazy chain NFA paper that CEQL can express (digest
 * digest-rma-and-lazy-nfa.md, A.5 and B.5), with the digest's errata applied, run by the engine. A match is written
 * as the set of its events' row indices, as the papers write them.
 *
 * Not expressible, so not here: LAZY-T5 (SASE's negation "no b between a and c"; CEQL's NOT reads one event), LAZY-T4
 * and LAZY-T8 (the lazy NFA's internal buffers and chain order, not its matches), RMA-T6's DRMA variant (a forecasting
 * automaton that loses match identity).
 */
class RelationsWorkedExamplesSuite extends AnyFunSuite {

  private def L(v: Long): java.lang.Long = java.lang.Long.valueOf(v)

  // RMA paper, Table 1: (type, id, value) at index 0..5.
  private val rmaColumns = IndexedSeq("event_type", "id", "value", "ts")
  private val table1: IndexedSeq[Array[Any]] = IndexedSeq(
    ("T", 1, 22),
    ("T", 1, 24),
    ("T", 2, 32),
    ("H", 1, 70),
    ("H", 1, 68),
    ("T", 2, 33)
  ).zipWithIndex.map { case ((t, id, v), i) => Array[Any](t, L(id), L(v), L(i)) }

  /** The matches of `query`, each as the set of its events, grouped by the event that completed them. */
  private def run(query: String, rows: IndexedSeq[Array[Any]], columns: IndexedSeq[String] = rmaColumns,
      options: EngineOptions = EngineOptions()): Map[Long, Set[Set[Long]]] =
    LocalEngine.compile(query, columns, options).run(rows.iterator.map(_.clone())).toVector
      .groupBy(_.end.seq).map { case (end, ms) => end -> ms.map(_.bindings.flatten.map(_.seq).toSet).toSet }

  private def matches(query: String, rows: IndexedSeq[Array[Any]] = table1,
      columns: IndexedSeq[String] = rmaColumns): Set[Set[Long]] = run(query, rows, columns).values.flatten.toSet

  private def set(indices: Long*): Set[Long] = indices.toSet

  private val phi1 = "SELECT * FROM S WHERE T AS x ; H AS y FILTER x.id = y.id ORDER BY ts"

  test("RMA-T1: (T AS x);(H AS y) returns every T before every H") {
    assert(matches("SELECT * FROM S WHERE T AS x ; H AS y ORDER BY ts") ==
      Set(set(0, 3), set(0, 4), set(1, 3), set(1, 4), set(2, 3), set(2, 4)))
  }

  test("RMA-T2: Expression (1), x.id = y.id, excludes {2,3} and, by the digest's erratum, {2,4}") {
    assert(matches(phi1) == Set(set(0, 3), set(0, 4), set(1, 3), set(1, 4)))
  }

  test("RMA-T3: Run (3) reports {1,3} and {0,3} at t3, t4 adds {0,4} and {1,4}, t5 nothing") {
    val byEnd = run(phi1, table1)
    assert(byEnd(3L) == Set(set(1, 3), set(0, 3)))
    assert(byEnd(4L) == Set(set(0, 4), set(1, 4)))
    assert(!byEnd.contains(5L))
  }

  test("RMA-T4: Expression (2) is refused; its bounded reading needs a window and then includes {0,1,3}") {
    val phi3 =
      intercept[PatternException](matches("SELECT * FROM S WHERE (T AS x FILTER x.id = y.id)+ ; H AS y ORDER BY ts"))
    assert(phi3.problem.startsWith("variable 'y' is not bound in the pattern this FILTER applies to"))
    assert(phi3.problem.contains("move this FILTER outward"))
    // Relating each x to y keeps every x until y comes: refused without a window where registers would hold them.
    val outward = "SELECT * FROM S WHERE (T AS x)+ ; H AS y FILTER x.id < y.id ORDER BY ts"
    val unbounded = intercept[PatternException](matches(outward))
    assert(unbounded.problem.contains("Def. 3.2") && unbounded.problem.contains("WITHIN") &&
      unbounded.problem.contains("max(x.attr)"))
    assert(unbounded.pos.column == outward.indexOf("x.id") + 1)
    val expected = Set(set(0, 3), set(1, 3), set(0, 1, 3), set(0, 4), set(1, 4), set(0, 1, 4))
    val windowed = "SELECT * FROM S WHERE (T AS x)+ ; H AS y FILTER x.id = y.id WITHIN 10 EVENTS ORDER BY ts"
    assert(matches(windowed).contains(set(0, 1, 3)))
    assert(matches(windowed) == expected)
    // The equality itself needs no window: it is a partition (and with other names for id, a PCEA's chain).
    assert(matches("SELECT * FROM S WHERE (T AS x)+ ; H AS y FILTER x.id = y.id ORDER BY ts") == expected)
  }

  test("RMA-T2 runs as a partition: x.id = y.id ties every event of a match to one id") {
    val compiled = LocalEngine.compile(phi1, rmaColumns).pattern
    assert(compiled.registers.isEmpty && compiled.analyzed.partitionKeys == IndexedSeq(IndexedSeq(1)))
    assert(compiled.describe.contains("partitioned by id (from x.id = y.id"))
    assert(compiled.analyzed.declaredKeys == 0, "the derived key is not an output column")
  }

  test("RMA-T5: Expression (4), one register written by both x-transitions") {
    // WITHIN n EVENTS counts the events of the whole stream, so the equality is not read as a partition here.
    val query = "SELECT * FROM S WHERE ((T AS x FILTER x.value < -40) OR (T AS x FILTER x.value > 50)) ; T AS y " +
      "FILTER y.id = x.id WITHIN 3 EVENTS ORDER BY ts"
    assert(matches(query).isEmpty)
    val rows = IndexedSeq(Array[Any]("T", L(7), L(55), L(0)), Array[Any]("H", L(7), L(10), L(1)),
      Array[Any]("T", L(7), L(20), L(2)))
    assert(matches(query, rows) == Set(set(0, 2)))
    assert(LocalEngine.compile(query, rmaColumns).pattern.pcea.isDefined, "a PCEA keys the equality")
    val compiled = LocalEngine.compile(query, rmaColumns, EngineOptions(equalityPcea = false)).pattern
    assert(matches(query, rows) == run(
      query, rows, rmaColumns, EngineOptions(equalityPcea = false)).values.flatten.toSet)
    val program = compiled.registers.get
    val written = program.actions.flatMap(_.write).toSet
    assert(written.size == 1, s"registers written: $written")
    val writers = compiled.nfa.transitions.flatten.filter(t => t.marks && program.actions(t.label).write.nonEmpty)
    assert(writers.map(_.target).distinct.size == 2, "both x-atoms write the register")
  }

  test("RMA-T6: under a window of 2 events, two T and an H of one id give only {1,2}") {
    val rows = IndexedSeq(("T", 0), ("T", 1), ("H", 2)).map { case (t, i) => Array[Any](t, L(1), L(0), L(i)) }
    assert(matches("SELECT * FROM S WHERE T AS x ; H AS y FILTER x.id = y.id WITHIN 2 EVENTS ORDER BY ts", rows) ==
      Set(set(1, 2)))
  }

  test("RMA-T7: Expression (1) under WINDOW w, for w from 1 to 6") {
    val expected = Map(
      1 -> Set.empty[Set[Long]], 2 -> Set.empty[Set[Long]], 3 -> Set(set(1, 3)),
      4 -> Set(set(0, 3), set(1, 3), set(1, 4)))
    for (w <- 1 to 6) {
      val got = matches(s"SELECT * FROM S WHERE T AS x ; H AS y FILTER x.id = y.id WITHIN $w EVENTS ORDER BY ts")
      assert(got == expected.getOrElse(w, Set(set(0, 3), set(0, 4), set(1, 3), set(1, 4))), s"w = $w")
    }
  }

  test("RMA-T8: m T events then one H of the same id give m matches") {
    val m = 2000
    val rows = (0 until m).map(i => Array[Any]("T", L(1), L(i), L(i))) :+ Array[Any]("H", L(1), L(0), L(m))
    assert(matches(phi1, rows).size == m)
  }

  // Lazy chain NFA paper (SASE+ patterns, skip-till-any-match, which is CEQL's default).
  private val lazyColumns = IndexedSeq("event_type", "price", "ts")
  private def stream(types: String*): IndexedSeq[Array[Any]] =
    types.zipWithIndex.map { case (t, i) => Array[Any](t, L(10), L(i)) }.toIndexedSeq

  test("LAZY-T1: SEQ(A a, B b, C c) on a1 a2 b1 b2 c gives the four combinations") {
    assert(matches("SELECT * FROM S WHERE A AS a ; B AS b ; C AS c ORDER BY ts", stream("A", "A", "B", "B", "C"),
      lazyColumns) == Set(set(0, 2, 4), set(1, 2, 4), set(0, 3, 4), set(1, 3, 4)))
  }

  test("LAZY-T2: 100 A then 100 B and no C give no match") {
    val rows = stream(Seq.fill(100)("A") ++ Seq.fill(100)("B"): _*)
    assert(matches("SELECT * FROM S WHERE A AS a ; B AS b ; C AS c ORDER BY ts", rows, lazyColumns).isEmpty)
  }

  test("LAZY-T3: Pattern 5, SEQ(A a, B+ b[], C c), gives 7 matches; with repetition 2..2, three") {
    val rows = stream("A", "B", "B", "B", "C")
    val all = matches("SELECT * FROM S WHERE A AS a ; (B AS b)+ ; C AS c ORDER BY ts", rows, lazyColumns)
    assert(all == Set(set(0, 1, 4), set(0, 2, 4), set(0, 3, 4), set(0, 1, 2, 4), set(0, 1, 3, 4), set(0, 2, 3, 4),
      set(0, 1, 2, 3, 4)))
    val pairs = matches("SELECT * FROM S WHERE A AS a ; (B AS b)+ ; C AS c FILTER count(b) = 2 " +
        "ORDER BY ts", rows, lazyColumns)
    assert(pairs == Set(set(0, 1, 2, 4), set(0, 1, 3, 4), set(0, 2, 3, 4)))
  }

  test("LAZY-T6: Pattern 8, OR(SEQ(A,B,C), SEQ(C,D,E)), on a b c d e gives {a,b,c} and {c,d,e}") {
    assert(matches(
      "SELECT * FROM S WHERE (A AS a ; B AS b ; C AS c) OR (C AS c ; D AS d ; E AS e) WITHIN 1 HOURS " +
        "ORDER BY ts",
      stream("A", "B", "C", "D", "E"),
      lazyColumns
    ) == Set(set(0, 1, 2), set(2, 3, 4)))
  }

  test("LAZY-T7: Pattern 9, SEQ(A, OR(B, C), D) with a.price > d.price, reports the pair <a,d> once") {
    val rows = IndexedSeq(("A", 20), ("B", 10), ("C", 10), ("D", 5)).zipWithIndex.map { case ((t, p), i) =>
      Array[Any](t, L(p), L(i))
    }
    val out = LocalEngine.compile("SELECT a, d FROM S WHERE A AS a ; (B AS b OR C AS c) ; D AS d " +
        "FILTER a.price > d.price WITHIN 1 HOURS ORDER BY ts", lazyColumns).run(rows.iterator).toVector
    assert(out.map(m => m.bindings.map(_.map(_.seq))) == Vector(Vector(Vector(0L), Vector(3L))))
  }

  // AND: both operands match, on disjoint events, in any order and interleaved.
  private val andRows = IndexedSeq(("B", 1, 5), ("A", 1, 7), ("C", 1, 1), ("A", 2, 9), ("B", 2, 1)).zipWithIndex.map {
    case ((t, id, v), i) => Array[Any](t, L(id), L(v), L(i))
  }

  test("AND: a match of each operand, in either order") {
    assert(matches("SELECT * FROM S WHERE A AS a AND B AS b ORDER BY ts", andRows) ==
      Set(set(0, 1), set(0, 3), set(3, 4), set(1, 4)))
    assert(matches("SELECT * FROM S WHERE (A AS a AND B AS b) FILTER a.id = b.id ORDER BY ts", andRows) ==
      Set(set(0, 1), set(3, 4)))
    assert(matches("SELECT * FROM S WHERE A AS a AND B AS b AND C AS c WITHIN 3 EVENTS ORDER BY ts", andRows) ==
      Set(set(0, 1, 2), set(2, 3, 4)))
  }

  test("AND: an operand's own sequence keeps its order while the other interleaves") {
    assert(matches("SELECT * FROM S WHERE (A AS a ; C AS c) AND B AS b FILTER a.value > b.value ORDER BY ts",
      andRows) == Set(set(0, 1, 2), set(1, 2, 4)))
  }

  test("AND: the operands' events are disjoint, even of one type") {
    val rows = IndexedSeq(Array[Any]("A", L(1), L(1), L(0)), Array[Any]("A", L(1), L(2), L(1)))
    assert(matches("SELECT * FROM S WHERE A AS x AND A AS y ORDER BY ts", rows) == Set(set(0, 1)))
  }

  test("AND inside a sequence: both operands after the C, in either order") {
    val rows = IndexedSeq(Array[Any]("B", L(1), L(1), L(0)), Array[Any]("C", L(1), L(2), L(1)),
      Array[Any]("B", L(1), L(2), L(2)), Array[Any]("A", L(1), L(2), L(3)))
    assert(matches("SELECT * FROM S WHERE C ; (A AND B) ORDER BY ts", rows) == Set(set(1, 2, 3)))
  }

  // CEL paper (Grez, Riveros, Ugarte), Figure 1: (type, id, value) at index 0..8, value being tmp for T and hum for H.
  // Its strategies with conditions relating events (digest-cel-and-pcea.md, A3 and A8), on the register path.
  private val figure1: IndexedSeq[Array[Any]] = IndexedSeq(
    ("H", 2, 25),
    ("T", 0, 45),
    ("H", 0, 20),
    ("H", 1, 25),
    ("T", 1, 40),
    ("T", 0, 42),
    ("T", 1, 25),
    ("H", 1, 70),
    ("H", 0, 18)
  ).zipWithIndex.map { case ((t, id, v), i) => Array[Any](t, L(id), L(v), L(i)) }

  /** The strategy's matches, checked to have run with registers, ranked. */
  private def ranked(query: String): Map[Long, Set[Set[Long]]] = {
    val pattern = LocalEngine.compile(query, rmaColumns).pattern
    assert(pattern.registers.isDefined && pattern.describe.contains("over configurations (NFA state, registers)"),
      pattern.describe)
    run(query, figure1)
  }

  // φ1 and φ2 with the ids related (x.id + y.id = 0: both 0, as ids are not negative) rather than tested one by one.
  private val phi1Cel = "(T AS x ; H AS y) FILTER x.value > 40 AND y.value <= 25 AND x.id + y.id = 0"
  private val phi2Cel =
    "((T AS x ; H AS y) OR (H AS y ; T AS x)) FILTER x.value > 40 AND y.value <= 25 AND x.id + y.id = 0"

  test("CEL φ1: ALL {1,2} {1,8} {5,8}; NXT {1,2} {1,8}; LAST {1,2} {5,8}") {
    assert(matches(s"SELECT * FROM S WHERE $phi1Cel ORDER BY ts", figure1) == Set(set(1, 2), set(1, 8), set(5, 8)))
    assert(ranked(s"SELECT NEXT * FROM S WHERE $phi1Cel ORDER BY ts") == Map(2L -> Set(set(1, 2)),
      8L -> Set(set(1, 8))))
    assert(ranked(s"SELECT LAST * FROM S WHERE $phi1Cel ORDER BY ts") == Map(2L -> Set(set(1, 2)),
      8L -> Set(set(5, 8))))
  }

  test("CEL φ2: NXT {1,2} {2,5} {1,8}; LAST {1,2} {2,5} {5,8}") {
    assert(ranked(s"SELECT NEXT * FROM S WHERE $phi2Cel ORDER BY ts") ==
      Map(2L -> Set(set(1, 2)), 5L -> Set(set(2, 5)), 8L -> Set(set(1, 8))))
    assert(ranked(s"SELECT LAST * FROM S WHERE $phi2Cel ORDER BY ts") ==
      Map(2L -> Set(set(1, 2)), 5L -> Set(set(2, 5)), 8L -> Set(set(5, 8))))
  }

  test("CEL φ4: ⟦φ4⟧ is {3,4,7} {3,6,7} {3,4,6,7}, and NXT(φ4) = LAST(φ4) = {3,4,6,7}") {
    // The paper's y.id = x.id inside the iteration names x, bound outside it: the FILTER moves outward. With every
    // variable's id equal the pattern is a partition by id; with y's written as comparisons it runs with registers.
    val partitioned = "(H AS x ; (T AS y)+ ; H AS z) FILTER x.value < 30 AND z.value > 60 AND x.id = z.id AND " +
      "y.id = x.id WITHIN 10 EVENTS"
    val registers = "(H AS x ; (T AS y)+ ; H AS z) FILTER x.value < 30 AND z.value > 60 AND x.id = z.id AND " +
      "y.id >= x.id AND y.id <= x.id WITHIN 10 EVENTS"
    for (phi4 <- Seq(partitioned, registers))
      assert(matches(s"SELECT * FROM S WHERE $phi4 ORDER BY ts", figure1) == Set(
        set(3, 4, 7), set(3, 6, 7), set(3, 4, 6, 7)))
    for (strategy <- Seq("NEXT", "LAST")) {
      assert(run(s"SELECT $strategy * FROM S WHERE $partitioned ORDER BY ts", figure1) == Map(7L -> Set(set(3, 4, 6,
          7))))
      assert(ranked(s"SELECT $strategy * FROM S WHERE $registers ORDER BY ts") == Map(7L -> Set(set(3, 4, 6, 7))))
    }
    // The window applies after the strategy: at 4 events the chosen {3,4,6,7} is too long, and nothing is reported.
    assert(ranked(s"SELECT NEXT * FROM S WHERE ${registers.replace("10 EVENTS", "4 EVENTS")} ORDER BY ts").isEmpty)
  }

  test("NEXT, LAST and MAX with conditions choose before the window, reading events the window has let go") {
    // T events with values 9, 0, 0, 0, 5, then H 1 at 5, T 5 at 6, H 2 at 7; x.value > y.value, within 3 events.
    val rows = IndexedSeq(("T", 9), ("T", 0), ("T", 0), ("T", 0), ("T", 5), ("H", 1), ("T", 5), ("H", 2)).zipWithIndex
      .map { case ((t, v), i) => Array[Any](t, L(1), L(v), L(i)) }
    val query =
      (s: String) => s"SELECT $s * FROM S WHERE T AS x ; H AS y FILTER x.value > y.value WITHIN 3 EVENTS ORDER BY ts"
    // NEXT's maximum starts at 0 both times ({0,5}, {0,7}): the window drops it, though {4,5} and {6,7} lie within.
    assert(run(query("NEXT"), rows).isEmpty)
    // LAST's maximum is the latest x that holds: {4,5}, then {6,7}.
    assert(run(query("LAST"), rows) == Map(5L -> Set(set(4, 5)), 7L -> Set(set(6, 7))))
    assert(run(query("ALL"), rows) == Map(5L -> Set(set(4, 5)), 7L -> Set(set(6, 7))))
    // MAX of every dearer x before y: {0,4,5} and {0,4,6,7} hide the matches within the window, and are dropped.
    val repeated = (s: String) =>
      s"SELECT $s * FROM S WHERE (T AS x)+ ; H AS y FILTER x.value > y.value WITHIN 3 EVENTS ORDER BY ts"
    assert(run(repeated("MAX"), rows).isEmpty)
    assert(run(repeated("ALL"), rows) == Map(5L -> Set(set(4, 5)), 7L -> Set(set(6, 7))))
  }

  test("CEL MAX with conditions: MAX(φ1) = ⟦φ1⟧, MAX(φ4) = {3,4,6,7}, chosen before the window") {
    val maximal = (query: String) => {
      val pattern = LocalEngine.compile(query, rmaColumns).pattern
      assert(pattern.describe.contains("MAX over sets of configurations (NFA state, registers)") &&
          !pattern.describe.contains("dropped"), pattern.describe)
      run(query, figure1)
    }
    // Every match of φ1 has two events, so none contains another: MAX(φ1) is φ1, and runs as SELECT ALL.
    val phi1Max = s"SELECT MAX * FROM S WHERE $phi1Cel ORDER BY ts"
    assert(LocalEngine.compile(phi1Max, rmaColumns).pattern.describe.startsWith(
        "MAX read as ALL (every match has 2 events"))
    assert(run(phi1Max, figure1) == Map(2L -> Set(set(1, 2)), 8L -> Set(set(1, 8), set(5, 8))))
    assert(run(phi1Max, figure1) == run(s"SELECT * FROM S WHERE $phi1Cel ORDER BY ts", figure1))
    val phi4 = "(H AS x ; (T AS y)+ ; H AS z) FILTER x.value < 30 AND z.value > 60 AND x.id = z.id AND " +
      "y.id >= x.id AND y.id <= x.id"
    assert(maximal(s"SELECT MAX * FROM S WHERE $phi4 WITHIN 10 EVENTS ORDER BY ts") == Map(7L -> Set(set(3, 4, 6, 7))))
    // {3,4,6,7} is too long for 4 events, and it hides {3,4,7} and {3,6,7} all the same.
    assert(maximal(s"SELECT MAX * FROM S WHERE $phi4 WITHIN 4 EVENTS ORDER BY ts").isEmpty)
  }
}
