package io.sparkcer.engine

import org.scalatest.funsuite.AnyFunSuite

import io.sparkcer.engine.eval.{MatchBound, TooManyMatchesException}

/**
 * One event may complete at most [[MatchBound.perEvent]] matches. `(A AS a)+` under ALL without a window
 * completes 2^(k-1) matches at its k-th event (every subset of the events so far that ends there): on 60 events
 * that is 2^59 at the last one, which would exhaust memory long before it is enumerated.
 */
class MatchBoundSuite extends AnyFunSuite {
  private val columns = IndexedSeq("event_type", "name", "pos")

  private def events(n: Int): Iterator[Array[Any]] =
    Iterator.tabulate(n)(i => Array[Any]("A", if (i % 2 == 0) "x" else "y", Long.box(i)))

  private def count(query: String, n: Int, bound: MatchBound = MatchBound.Default,
      options: EngineOptions = EngineOptions()): Long = {
    var matches = 0L
    LocalEngine.compile(query, columns, options, bound).run(events(n)).foreach(_ => matches += 1)
    matches
  }

  private val unbounded = "SELECT * FROM S WHERE (A AS a)+ ORDER BY pos"

  test("ALL over an unbounded iteration fails at the first event past the bound, naming it and the remedies") {
    val started = System.nanoTime()
    val error = intercept[TooManyMatchesException](count(unbounded, 60))
    assert((System.nanoTime() - started) / 1e9 < 20, "the bound should stop the evaluation early")
    // The 21st event (pos 20) completes 2^20 = 1,048,576 matches, the first count above 1,000,000.
    assert(
      error.getMessage.startsWith("the event at pos = 20 completes more than 1000000 matches, the bound " +
        "matchBound (LocalEngine.compile)."),
      error.getMessage
    )
    for (remedy <- Seq("WITHIN", "SELECT LAST", "SELECT MAX", "LIMIT n", "raise matchBound (LocalEngine.compile)"))
      assert(error.getMessage.contains(remedy), s"'$remedy' in: ${error.getMessage}")
  }

  test("an event may complete exactly as many matches as the bound, not one more") {
    val exact = MatchBound(1L << 17, "the bound")
    assert(count(unbounded, 18, exact) == (1L << 18) - 1)
    intercept[TooManyMatchesException](count(unbounded, 18, exact.copy(perEvent = (1L << 17) - 1)))
  }

  test("the event is located by its partition and stream order") {
    val error = intercept[TooManyMatchesException](
      count("SELECT * FROM S WHERE (A AS a)+ PARTITION BY name ORDER BY pos", 20, MatchBound(100, "--max")))
    // In partition x (even positions), the 8th event (pos 14) completes 2^7 = 128 matches.
    assert(
      error.getMessage.startsWith("the event at name = x, pos = 14 completes more than 100 matches, the bound --max."),
      error.getMessage)
  }

  test("what the error suggests instead runs within the bound") {
    assert(count("SELECT * FROM S WHERE (A AS a)+ ORDER BY pos WITHIN 10 EVENTS", 60) == 50 * 512 + 1023)
    assert(count("SELECT LAST * FROM S WHERE (A AS a)+ ORDER BY pos", 60) == 60)
    assert(count("SELECT MAX * FROM S WHERE (A AS a)+ ORDER BY pos", 60) == 60)
    assert(count("SELECT * FROM S WHERE (A AS a)+ ORDER BY pos LIMIT 5", 60) == 1 + 2 + 4 + 57 * 5)
  }

  test("runs that conditions keep apart are bounded too, with a message saying what keeps them apart") {
    // Each run keeps the subset of a's events it relates to the last event: 2^k runs (and their waiting copies) after k.
    // The registers alone (the lazy chain would take the iteration, its subsets bounded alike: LazyChainSuite).
    val query = "SELECT * FROM S WHERE (A AS a)+ ; A AS z FILTER a.pos - z.pos < 0 ORDER BY pos WITHIN 1000 EVENTS"
    val error = intercept[TooManyMatchesException](
      count(query, 40, MatchBound(1000, "--max"), EngineOptions(lazyChains = false)))
    assert(
      error.getMessage.startsWith("the event at pos = 9 leaves more than 1000 partial matches that its " +
        "conditions keep apart (each keeps other events in its registers), the bound --max: runs up to 2^n over the " +
        "window's n events, as 'a.pos - z.pos < 0' keeps every event of a."),
      error.getMessage
    )
    assert(error.getMessage.contains("(b.price < s.price rather than b.price - s.price < 0)"), error.getMessage)
    // The comparison it suggests keeps the hardest a alone (the latest): within the bound, with the same matches.
    val hardest = "SELECT * FROM S WHERE (A AS a)+ ; A AS z FILTER a.pos < z.pos ORDER BY pos WITHIN 1000 EVENTS"
    assert(count(hardest, 10, MatchBound(1000, "--max")) == count(query, 10))
  }

  test("a bound below 1 is refused") {
    assert(intercept[IllegalArgumentException](MatchBound(0, "--max")).getMessage.contains("--max must be at least 1"))
  }
}
