package io.sparkcer.engine.complexity

import org.scalatest.funsuite.AnyFunSuite

import io.sparkcer.engine.LocalEngine
import io.sparkcer.engine.eval.{MatchBound, TooManyMatchesException}

/**
 * NEXT, LAST and MAX with conditions relating events ([[io.sparkcer.engine.rma.RankedRegisterRun]],
 * [[io.sparkcer.engine.rma.MaximalRegisterRun]]), checked by counting work ([[io.sparkcer.engine.eval.Work]]), never
 * by timing. The strategy chooses before the window applies, so a configuration is kept past the window while it may
 * still outrank (or contain) another; of those, NEXT and LAST keep only the ones no other past one dominates with no
 * match in the window ranked between them (under NEXT, all of them outrank every later one), and MAX's runs depend on
 * the window only through those whose own matches are in it: the update work per event stays flat as the window grows
 * 10x and 100x, and only the output does. Nor does it grow with the stream where dominance ([[io.sparkcer.engine.rma.Dominance]])
 * keeps an antichain of what the registers hold (order comparisons, `prev`, count, sum, min and max); where no order
 * relates the runs, the bound on a partition's partial matches stops the query, naming the cause and what to write
 * instead.
 */
class RankedRegisterComplexitySuite extends AnyFunSuite {
  import WorkProbe._

  private val T = 10

  /** How much more the update work per event may grow than not at all (sweeps of kept events vary a little). */
  private val Slack = 1.5

  /**
   * Runs `query(w)` for w in T, 10T, 100T; checks that the update work per event stays within [[Slack]] of the
   * narrowest window's, that nothing is dropped, and that enumeration is linear in the output.
   */
  private def flatOverWindows(query: Int => String, events: => Iterator[Array[Any]]): Seq[Measure] = {
    val windows = Seq(T, 10 * T, 100 * T)
    val measures = windows.map(w => measure(query(w), events))
    info(windows.zip(measures).map { case (w, m) => s"window $w: $m" }.mkString("\n"))
    assert(measures.head.path.contains("configurations (NFA state, registers)"), measures.head.path)
    assert(measures.last.rows > 0, "the workload should match, or it tests nothing")
    for (m <- measures.tail)
      assert(
        m.updatePerEvent <= Slack * measures.head.updatePerEvent,
        f"update work per event grew from ${measures.head.updatePerEvent}%.2f to ${m.updatePerEvent}%.2f"
      )
    for ((w, m) <- windows.zip(measures)) {
      assert(
        m.metrics.work.dropped == 0, s"${m.metrics.work.dropped} complex events enumerated to be dropped at window $w")
      assert(
        m.enumerationPerOutput <= 2.0, f"enumeration took ${m.enumerationPerOutput}%.2f steps per output at window $w")
    }
    measures
  }

  for (strategy <- Seq("NEXT", "LAST", "MAX")) {
    // MAX over matches of one size is ALL (no match contains another): its b repeats, so that it compares runs.
    val b = if (strategy == "MAX") "(B AS b)+" else "B AS b"
    test(s"$strategy, a ; $b related, PARTITION BY over short partitions: work flat in the window, more rows") {
      // 500 keys over 5,000 events: about 10 events per partition, hundreds of positions apart.
      val measures = flatOverWindows(
        w => s"SELECT $strategy * FROM S WHERE A AS a ; $b FILTER a.v < b.v PARTITION BY k WITHIN $w [ts]",
        stream(5000, keys = 500))
      assert(measures.last.rows > measures.head.rows, "a wider window should drop fewer of the chosen matches")
      assert(measures.head.metrics.peakActiveStates <= 40, measures.head.toString)
    }

    test(s"$strategy, a : b+ related, contiguous: configurations die as they are passed, work flat in the window") {
      val measures = flatOverWindows(
        w => s"SELECT $strategy * FROM S WHERE A AS a : (B AS b):+ FILTER b.v > a.v WITHIN $w [ts]", stream(5000))
      assert(measures.head.metrics.peakActiveStates <= 10, measures.head.toString)
    }
  }

  for (strategy <- Seq("NEXT", "LAST", "MAX")) {
    val b = if (strategy == "MAX") "(B AS b)+" else "B AS b" // MAX over matches of one size is ALL
    test(
      s"$strategy, a ; NONE(...) related to a ; $b, PARTITION BY over short partitions: judged on registers, work flat") {
      // The NONE's condition reads a's register as a configuration waits between a and b: a C dearer than a stops it.
      val query = (w: Int, none: String) =>
        s"SELECT $strategy * FROM S WHERE A AS a $none; $b FILTER a.v < b.v PARTITION BY k WITHIN $w [ts]"
      val measures = flatOverWindows(w => query(w, "; NONE(C AS n FILTER n.v > a.v) "), stream(5000, keys = 500))
      assert(measures.head.path.contains("1 NONE(...) relating its event to earlier ones judged against the registers"),
        measures.head.path)
      assert(measures.last.rows > measures.head.rows, "a wider window should drop fewer of the chosen matches")
      val without = measure(query(100 * T, ""), stream(5000, keys = 500))
      // Stopping some configurations, it lets the strategy choose others: it changes what is reported.
      assert(measures.last.rows != without.rows, s"the NONE should change the matches chosen: $without")
    }
  }

  for (strategy <- Seq("NEXT", "LAST"))
    test(
      s"$strategy, a ; b related by an order, unpartitioned: a run that a higher one dominates goes, work flat in the stream") {
      // Each A may wait for a dearer B for good, and each could be chosen (the earliest, the latest): without Dominance
      // every A stayed, and the update work per event grew with the stream (about 10x from 2,000 to 20,000 events).
      // A higher run whose a is no dearer makes every continuation of a lower one its own: those kept are ever cheaper
      // as they rank lower, at most one per value of v.
      val query = s"SELECT $strategy * FROM S WHERE A AS a ; B AS b FILTER a.v < b.v WITHIN 10 [ts]"
      val (short, long) = (measure(query, stream(2000)), measure(query, stream(20000)))
      info(s"2,000 events: $short\n20,000 events: $long")
      assert(long.rows > 0)
      assert(
        long.updatePerEvent <= Slack * short.updatePerEvent,
        f"update work per event grew with the stream from ${short.updatePerEvent}%.2f to ${long.updatePerEvent}%.2f"
      )
      assert(long.metrics.peakActiveStates <= 2 * 100 + 4, long.toString)
      assert(long.metrics.work.dropped == 0)
    }

  // An iteration whose conditions relate its events (prev, count, sum, min, max) or compare them with an earlier event:
  // every start and every subset of the b's a configuration could be kept for. Before prev, the aggregates, the side
  // of a condition that an aggregate's other side leaves to one event, and the past under NEXT were compared by
  // dominance, and the past ones dominated by another past one with no match in the window ranked between them went,
  // the work per event grew with the stream, the window 10 events wide: on the first, NEXT and LAST held 8,614
  // configurations at 2,000 events (about 7,000 update steps per event; now 29 and 57), and 20,000 did not end in a
  // minute.
  private val iterations = Seq(
    "prev and count" -> "b.v > prev(b.v) AND count(b) >= 3",
    "sum against an earlier event" -> "sum(b.v) > a.v + 100",
    "min, max and an earlier event" -> "max(b.v) > 50 AND min(b.v) < a.v",
    "each b against an earlier event" -> "b.v > a.v"
  )
  for (strategy <- Seq("NEXT", "LAST", "MAX"); (what, condition) <- iterations)
    test(s"$strategy over an iteration related by $what: work per event flat as the stream grows 10x") {
      val query = s"SELECT $strategy * FROM S WHERE A AS a ; (B AS b)+ ; C AS c FILTER $condition WITHIN 10 [ts]"
      val (short, long) = (measure(query, stream(2000)), measure(query, stream(20000)))
      info(s"2,000 events: $short\n20,000 events: $long")
      assert(long.path.contains("configurations (NFA state, registers)"), long.path)
      assert(
        long.updatePerEvent <= Slack * short.updatePerEvent,
        f"update work per event grew with the stream from ${short.updatePerEvent}%.2f to ${long.updatePerEvent}%.2f"
      )
      assert(
        long.metrics.peakActiveStates <= 2 * short.metrics.peakActiveStates + 10,
        s"configurations held grew with the stream: ${short.metrics.peakActiveStates} then ${long.metrics.peakActiveStates}"
      )
      assert(long.metrics.work.dropped == 0)
    }

  test("configurations that accumulate with the stream stop at the bound, naming the cause and what to write") {
    // Unpartitioned, every A waits for a B of another v for good, and no A's registers make another's conditions
    // easier (<> is no order): NEXT keeps one configuration per A, past the window too.
    val query = "SELECT NEXT * FROM S WHERE A AS a ; B AS b FILTER a.v <> b.v WITHIN 10 [ts]"
    val bound = MatchBound(MatchBound.DefaultPerEvent, "--matches", nodes = 500, nodesSetting = "--nodes")
    val error = intercept[TooManyMatchesException](measure(query, stream(5000), bound = bound))
    for (part <- Seq(
        "SELECT NEXT keeps 501 partial matches",
        "more than the bound --nodes (500)",
        "(a.v <> b.v)",
        "even after it has left the window",
        "PARTITION BY",
        "SELECT ALL with LIMIT n",
        "raise --nodes"
      ))
      assert(error.getMessage.contains(part), s"'$part' in: ${error.getMessage}")
    // The same under the default bound runs, with one configuration per A held (a quarter of the events).
    val m = measure(query, stream(5000))
    assert(m.metrics.peakActiveStates > 1000, m.toString)
    // MAX keeps them too: every run begun is larger than the runs not yet begun, and may hide a later one.
    val maximal = query.replace("NEXT", "MAX").replace("B AS b", "(B AS b)+") // of one size, MAX would be ALL
    val max = intercept[TooManyMatchesException](measure(maximal, stream(5000), bound = bound))
    assert(
      max.getMessage.contains("SELECT MAX keeps") && max.getMessage.contains("contain another (MAX)"), max.getMessage)
  }

  test("EXPLAIN names the path: registers, the strategy over configurations, kept past the window") {
    val explained = LocalEngine.compile(
      "SELECT LAST * FROM S WHERE A AS a ; B AS b FILTER a.v < b.v WITHIN 10 [ts]", columns).pattern.describe
    assert(
      explained.contains("registers (RMA), LAST over configurations (NFA state, registers) in priority order, " +
        "kept past the window while they may outrank another"),
      explained
    )
  }
}
