package io.sparkcer.engine.pcea

import org.scalatest.funsuite.AnyFunSuite

import io.sparkcer.engine.{EngineOptions, LocalEngine}

/**
 * The compiler from CEQL to PCEA on hand-made patterns: which queries it takes (and the plan EXPLAIN shows), which it
 * leaves to the general evaluator (and the reason EXPLAIN gives), and the matches of those it takes, worked out by
 * hand and equal to the general evaluator's.
 */
class PceaCompilerSuite extends AnyFunSuite {
  private val columns = IndexedSeq("event_type", "ts", "acct", "src", "card")

  /** Rows (type, acct, src, card) at ts = 1, 2, ... */
  private def stream(events: (String, Any, Any, Any)*): IndexedSeq[Array[Any]] =
    events.toIndexedSeq.zipWithIndex.map { case ((t, a, s, c), i) =>
      def boxed(v: Any): Any = v match { case n: Int => java.lang.Long.valueOf(n.toLong); case other => other }
      Array[Any](t, java.lang.Long.valueOf(i + 1L), boxed(a), boxed(s), boxed(c))
    }

  /** The plan's description, and the matches as the ts of each selected variable's events, with and without PCEA. */
  private def run(query: String, rows: IndexedSeq[Array[Any]], pcea: Boolean = true): (String, Set[Seq[Seq[Long]]]) = {
    val q = LocalEngine.compile(query, columns, EngineOptions(equalityPcea = pcea))
    val out = q.run(rows.iterator.map(_.clone())).map(_.bindings.map(_.map(_.values(1).asInstanceOf[Long]))).toList
    assert(out.distinct.length == out.length, s"a match reported twice: $out")
    (q.pattern.describe, out.toSet)
  }

  /** Runs with and without PCEA: same matches; returns PCEA's description and the matches. */
  private def both(query: String, rows: IndexedSeq[Array[Any]]): (String, Set[Seq[Seq[Long]]]) = {
    val (plan, matches) = run(query, rows)
    val (general, expected) = run(query, rows, pcea = false)
    assert(!general.contains("by PCEA ("), general)
    assert(matches == expected, s"PCEA: $matches\ngeneral: $expected")
    (plan, matches)
  }

  test("a sequence related by equalities of differently named attributes runs on a chain PCEA") {
    val rows = stream(
      ("A", 1, null, 7), ("B", 9, 1, 7), ("B", 9, 2, 7), ("C", 3, 1, 7), ("C", 3, 1, 8), ("B", 9, 1, 8), ("C", 0, 1, 8))
    val (plan, matches) = both(
      "SELECT * FROM S WHERE A AS a ; B AS b ; C AS c FILTER a.acct = b.src AND b.card = c.card ORDER BY ts", rows)
    assert(plan.contains("equality correlation by PCEA"), plan)
    assert(plan.contains("{a.acct = b.src}") && plan.contains("{b.card = c.card}"), plan)
    assert(matches == Set(Seq(Seq(1L), Seq(2L), Seq(4L)), Seq(Seq(1L), Seq(6L), Seq(7L))))
  }

  test("an iteration whose every event equals its neighbours' (φ4 of the CEL paper) runs on a chain PCEA") {
    // With one attribute name the equalities would be a partition; the source account of a transfer is not.
    val rows = stream(
      ("H", 1, null, null), ("T", null, 1, null), ("T", null, 2, null), ("T", null, 1, null), ("X", 1, null, null))
    val (plan, matches) = both("SELECT * FROM S WHERE H AS h ; (T AS t)+ ; X AS x " +
        "FILTER h.acct = t.src AND t.src = x.acct WITHIN 9 EVENTS ORDER BY ts", rows)
    assert(plan.contains("by PCEA"), plan)
    assert(matches == Set(Seq(Seq(1L), Seq(2L), Seq(5L)), Seq(Seq(1L), Seq(4L), Seq(5L)),
      Seq(Seq(1L), Seq(2L, 4L), Seq(5L))))
  }

  test("Q0 of the PCEA paper as AND: T(x), S(x,y), R(x,y) in any order, on the q-tree x[T, y[S, R]]") {
    // acct is x, card is y. Matches: {T1, S2, R4} and {T3, S2, R4}... where the R comes last; AND is any order.
    val rows = stream(("T", 2, null, null), ("S", 2, null, 11), ("R", 1, null, 10), ("S", 2, null, 11),
      ("T", 1, null, null), ("R", 2, null, 11), ("S", 4, null, 13), ("T", 1, null, null))
    val (plan, matches) = both(
      "SELECT * FROM S WHERE T AS t AND S AS s AND R AS r " +
        "FILTER t.acct = s.acct AND s.acct = r.acct AND s.card = r.card WITHIN 100 EVENTS ORDER BY ts",
      rows
    )
    assert(plan.contains("q-tree {t.acct = s.acct = r.acct}[(t), {s.card = r.card}[(s), (r)]]"), plan)
    assert(matches == Set(Seq(Seq(1L), Seq(2L), Seq(6L)), Seq(Seq(1L), Seq(4L), Seq(6L))))
  }

  test("a conjunction of sequences, joined by their last events; one event never serves two operands") {
    val rows = stream(
      ("A", 1, null, null), ("B", 1, null, null), ("A", 1, null, null), ("B", 1, null, null), ("B", 2, null, null))
    val (plan, matches) = both("SELECT * FROM S WHERE (A AS a ; B AS b) AND (A AS c ; B AS d) " +
        "FILTER b.acct = d.acct WITHIN 100 EVENTS ORDER BY ts", rows)
    // b and d end the operands, so the later one is read last, never in a subtree: only a and c can share an event.
    assert(plan.contains("q-tree {b.acct = d.acct}[(a b), (c d)], events of a, c kept apart by their positions"), plan)
    assert(matches == Set(Seq(Seq(1L), Seq(2L), Seq(3L), Seq(4L)), Seq(Seq(3L), Seq(4L), Seq(1L), Seq(2L))))
  }

  test("operands no equality relates join under a root without key (the paper's disconnected query)") {
    val rows = stream(
      ("A", 1, null, null), ("C", 5, null, null), ("B", 1, null, null), ("D", 6, null, null), ("D", 5, null, null))
    val (plan, matches) = both("SELECT * FROM S WHERE (A AS a ; B AS b) AND (C AS c ; D AS d) " +
        "FILTER a.acct = b.acct AND c.acct = d.acct WITHIN 100 EVENTS ORDER BY ts", rows)
    assert(plan.contains("q-tree ()[(a b), (c d)]"), plan)
    assert(matches == Set(Seq(Seq(1L), Seq(3L), Seq(2L), Seq(5L))))
  }

  test("what a PCEA cannot key runs on the general evaluator, and EXPLAIN says why") {
    def reason(query: String): String = {
      val plan = run(query, IndexedSeq.empty)._1
      assert(!plan.contains("by PCEA ("), plan)
      plan
    }
    assert(
      reason("SELECT * FROM S WHERE A AS a ; B AS b ; C AS c FILTER a.acct = c.acct WITHIN 9 EVENTS ORDER BY ts")
        .contains("{a.acct = c.acct} relates a and c, but b can come between them without that attribute"))
    assert(
      reason("SELECT * FROM S WHERE A AS a AND B AS b AND C AS c FILTER a.acct = b.acct AND b.card = c.card " +
        "WITHIN 9 EVENTS ORDER BY ts").contains("the equalities are not hierarchical"))
    assert(
      reason("SELECT * FROM S WHERE A AS a ; B AS b FILTER a.acct < b.acct WITHIN 9 EVENTS ORDER BY ts")
        .contains("a.acct < b.acct is not an equality"))
    assert(
      reason("SELECT * FROM S WHERE (A AS a ; B AS b) AND C AS c FILTER a.acct = c.acct WITHIN 9 EVENTS ORDER BY ts")
        .contains("but b, which can end (a b), does not have that attribute"))
    assert(
      reason("SELECT * FROM S WHERE A AS a ; (B AS b ; C AS c FILTER b.acct = c.acct)+ WITHIN 9 EVENTS ORDER BY ts")
        .contains("inside an iteration"))
    assert(reason("SELECT * FROM S WHERE A AS a : B AS b FILTER a.acct = b.src ORDER BY ts").contains("':' and ':+'"))
    assert(
      reason("SELECT * FROM S WHERE ((A AS a)+ ; B AS b) AND (A AS c ; D AS d) FILTER b.acct = d.acct " +
        "WITHIN 9 EVENTS ORDER BY ts").contains("a and c can read the same event, and a repeats"))
    assert(
      reason("SELECT * FROM S WHERE (A AS a ; A AS b ; A AS c ; B AS x) AND (A AS d ; A AS e ; A AS f ; D AS y) " +
        "FILTER x.acct = y.acct WITHIN 9 EVENTS ORDER BY ts").contains("more places than a PCEA keeps apart"))
  }
}
