package io.sparkcer.engine

import java.util.Random

import org.scalatest.funsuite.AnyFunSuite

import io.sparkcer.engine.oracle.{BruteForce, Generators, Printer}

/**
 * Events that satisfy no guard are passed by, and Spark filters them out before the shuffle, only where that
 * changes no match ([[io.sparkcer.engine.plan.CompiledPattern.ignoresUnguardedEvents]]). The engine with such
 * events (which the brute-force suite checks against the semantics) must report exactly what it reports on the
 * stream without them, in the same order.
 */
class UnguardedEventsSuite extends AnyFunSuite {
  private val columns = IndexedSeq("event_type", "ts", "x")

  private def ignores(query: String): Boolean =
    LocalEngine.compile(query, columns).pattern.ignoresUnguardedEvents

  private val expected = Seq(
    "SELECT * FROM S WHERE A ; B ORDER BY ts" -> true,
    "SELECT * FROM S WHERE (A OR B) ; C+ ; A FILTER A[x > 1] WITHIN 5 [ts] ORDER BY ts" -> true,
    "SELECT NEXT * FROM S WHERE A ; B+ ORDER BY ts" -> true,
    "SELECT LAST * FROM S WHERE A ; B+ ORDER BY ts" -> true,
    "SELECT MAX * FROM S WHERE A ; B+ ORDER BY ts" -> true,
    "SELECT * FROM S WHERE A ; B PARTITION BY x WITHIN 5 [ts] CONSUME BY PARTITION ORDER BY ts" -> true,
    "SELECT * FROM S WHERE A : B ORDER BY ts" -> false,
    "SELECT * FROM S WHERE A ; B :+ ORDER BY ts" -> false,
    "SELECT * FROM S WHERE A ; NOT(C) ; B ORDER BY ts" -> false,
    "SELECT STRICT * FROM S WHERE A ; B ORDER BY ts" -> false,
    "SELECT ANY * FROM S WHERE A ; B ORDER BY ts" -> false,
    "SELECT * FROM S WHERE A ; B WITHIN 3 EVENTS ORDER BY ts" -> false,
    "SELECT * FROM S WHERE A ; B ORDER BY ts LIMIT 2" -> false
  )

  for ((query, expectation) <- expected)
    test(s"${if (expectation) "ignores" else "reads"} unguarded events: $query") {
      assert(ignores(query) == expectation)
    }

  test("random queries: the matches with unguarded events equal those without them, in the same order") {
    var (compared, withDropsAndMatches) = (0, 0)
    for (seed <- 0 until 3000) {
      val rnd = new Random(0xfeedL * 1000003L + seed)
      val q = Generators.query(rnd)
      val rows = Generators.stream(rnd, 4 + rnd.nextInt(11)) // ALL without a window can match 2^n times
      val options = EngineOptions(timeColumn = if (q.orderBy.isEmpty) Some("ts") else None)
      val text = Printer.query(q)
      val local = LocalEngine.compile(text, Generators.Columns, options)
      if (local.pattern.ignoresUnguardedEvents) {
        val words = new Array[Long](local.pattern.nfa.symbolWords)
        val kept = rows.indices.filter { i =>
          java.util.Arrays.fill(words, 0L)
          local.reader.classify(new Event(i.toLong, rows(i)), words)
          words.exists(_ != 0L)
        }
        def run(input: IndexedSeq[Array[Any]], index: Long => Long) =
          LocalEngine.compile(text, Generators.Columns, options).run(input.iterator.map(_.clone())).map { m =>
            val row = BruteForce.Row.of(m)
            row.copy(start = index(row.start), end = index(row.end), bindings = row.bindings.map(_.map(index)))
          }.toVector
        val all = run(rows, identity)
        val relevant = run(kept.map(rows), i => kept(i.toInt).toLong)
        assert(relevant == all, s"seed $seed\n$text\n${Generators.showStream(rows, Generators.Columns)}")
        compared += 1
        if (kept.size < rows.size && all.nonEmpty) withDropsAndMatches += 1
      }
    }
    info(s"$compared queries ignore unguarded events; $withDropsAndMatches of them dropped events and had matches")
    assert(withDropsAndMatches >= 200, "the generated cases should exercise dropped events")
  }
}
