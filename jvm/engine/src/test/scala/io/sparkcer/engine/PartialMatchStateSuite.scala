package io.sparkcer.engine

import org.scalatest.funsuite.AnyFunSuite

import io.sparkcer.engine.eval.{MatchBound, TooManyMatchesException}

/**
 * What the partial matches of a partition hold ([[MatchBound.nodes]]). Conditions keep runs apart by the values their
 * registers hold: an aggregate keeps one run per distinct value, not per subset of the events it ranges over; but
 * the distinct values may themselves be exponentially many (the sums of subsets of powers of two are all distinct),
 * and the runs hold tECS nodes long before any match completes: the node bound stops them with a message. The
 * registers alone: the lazy chain, which takes these iterations too, keeps no partial match (LazyChainSuite bounds
 * the subsets it visits).
 */
class PartialMatchStateSuite extends AnyFunSuite {
  private val columns = IndexedSeq("event_type", "v", "pos")

  /** n A events, the i-th with value `value(i)`. */
  private def events(n: Int, value: Int => Long): Iterator[Array[Any]] =
    Iterator.tabulate(n)(i => Array[Any]("A", Long.box(value(i)), Long.box(i)))

  private def run(query: String, n: Int, value: Int => Long, bound: MatchBound = MatchBound.Default): LocalQuery = {
    val q = LocalEngine.compile(query, columns, EngineOptions(lazyChains = false), bound)
    q.run(events(n, value)).foreach(_ => ())
    q
  }

  private val small = MatchBound(MatchBound.DefaultPerEvent, "--matches", nodes = 100000, nodesSetting = "--nodes")

  test("an aggregate keeps a run per distinct value: runs grow with the window, not with its subsets") {
    // Every subset of the window's events is a partial match (2^w of them); their sums are the w + 1 counts, each in
    // the iteration's state and in its final copy, where the sum is checked as a match ends.
    for (w <- Seq(8, 16, 32)) {
      val q = run(s"SELECT * FROM S WHERE (A AS a)+ FILTER sum(a.v) < 0 ORDER BY pos WITHIN $w EVENTS", 400, _ => 1L)
      assert(q.metrics.peakActiveStates <= 2 * (w + 1), s"window $w: ${q.metrics.peakActiveStates} runs")
      assert(q.metrics.peakLiveNodes <= 8 * w * w, s"window $w: ${q.metrics.peakLiveNodes} nodes")
    }
  }

  test("exponentially many distinct values end at the node bound, within seconds, saying what to write") {
    // Sums of subsets of distinct powers of two are all distinct: 2^k runs after k events.
    val query = "SELECT * FROM S WHERE (A AS a)+ FILTER sum(a.v) < 0 ORDER BY pos WITHIN 40 EVENTS"
    val started = System.nanoTime()
    val error = intercept[TooManyMatchesException](run(query, 2000, i => 1L << (i % 40), small))
    assert((System.nanoTime() - started) / 1e9 < 10, "the bound should stop the evaluation early")
    val message = error.getMessage
    assert(
      message.startsWith("at the event at pos = 16, the partial matches of its partition hold more than 100000 " +
        "tECS nodes (one per run and event of the window), the bound --nodes: its conditions (sum(a.v) < 0) keep a run " +
        "per distinct value of what they read"),
      message
    )
    for (remedy <- Seq("Shorten the window (WITHIN)", "PARTITION BY", "':' and ':+'", "raise --nodes"))
      assert(message.contains(remedy), s"'$remedy' in: $message")
  }

  test("over consecutive events (:+) the same aggregate keeps one run per start, within the bound") {
    val q = run("SELECT * FROM S WHERE (A AS a):+ FILTER sum(a.v) < 0 ORDER BY pos WITHIN 40 EVENTS", 2000,
      i => 1L << (i % 40), small)
    assert(q.metrics.peakActiveStates <= 2 * 41)
  }

  test("a window too large for the automaton alone ends at the node bound too") {
    val bound = small.copy(nodes = 1000)
    val error = intercept[TooManyMatchesException](
      run("SELECT * FROM S WHERE (A AS a)+ ; B AS b ORDER BY pos WITHIN 100000 EVENTS", 5000, _ => 1L, bound))
    assert(
      error.getMessage.contains("hold more than 1000 tECS nodes (one per run and event of the window), the bound " +
        "--nodes: the window holds too many events for them."),
      error.getMessage
    )
  }

  test("a node bound below 1 is refused") {
    assert(intercept[IllegalArgumentException](small.copy(nodes = 0)).getMessage.contains("--nodes must be at least 1"))
  }
}
