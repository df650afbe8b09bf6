package io.sparkcer.engine.complexity

import org.scalatest.funsuite.AnyFunSuite

import io.sparkcer.engine.EngineOptions

/**
 * The papers' guarantees, checked by counting work ([[io.sparkcer.engine.eval.Work]]), never by timing: per event, a
 * number of update steps that does not grow with the window (CORE §4: O(|Q|·|Δ|), constant in data complexity), and
 * per match, enumeration steps linear in its size (CORE §4.1: the tECS stays time-ordered and 3-bounded, so at most
 * three unions come before an output). A path that is quadratic, or exponential, in the window where its paper says
 * constant fails here.
 *
 * Windows grow 10x and 100x over a base T large enough that every state the automaton can reach is active; the
 * streams are random, so that every path through the automaton is taken.
 */
class ComplexitySuite extends AnyFunSuite {
  import WorkProbe._

  /** How much the update work per event may grow from T to 10T and 100T: a constant factor, not the window's 100. */
  private val Flat = 2.0

  /** The base window T, in events of the random stream (one per ts). */
  private val T = 200

  /**
   * Runs `query(w)` over 20,000 random events for w in T, 10T, 100T; checks update work flat and enumeration linear in
   * the output.
   */
  private def flatOverWindows(query: Int => String, perOutput: Double = 4.0): Unit = {
    val measures = Seq(T, 10 * T, 100 * T).map(w => measure(query(w), stream(20000)))
    val (t, t10, t100) = (measures(0), measures(1), measures(2))
    info(measures.zip(Seq("T", "10T", "100T")).map { case (m, w) => s"$w: $m" }.mkString("\n"))
    assert(t100.rows > t.rows, "the workload should match more in a wider window, or it tests nothing")
    for ((m, w) <- Seq(t10 -> "10T", t100 -> "100T")) {
      assert(m.updatePerEvent <= Flat * t.updatePerEvent + 1,
        f"update work per event grew from ${t.updatePerEvent}%.2f at T to ${m.updatePerEvent}%.2f at $w")
      assert(m.enumerationPerOutput <= perOutput,
        f"enumeration took ${m.enumerationPerOutput}%.2f steps per output at $w")
      assert(m.metrics.work.dropped == 0, s"${m.metrics.work.dropped} complex events enumerated to be dropped at $w")
    }
  }

  // ---- CORE's tECS (Algorithm 1 on the deterministic CEA) ----------------------------------------------------------

  for ((name, query) <- Seq[(String, Int => String)](
      "a sequence with filters does constant work per event and output-linear enumeration" -> (w =>
        s"SELECT * FROM S WHERE A AS a ; B AS b ; C AS c FILTER a[v < 1] AND b[v < 1] AND c[v < 2] WITHIN $w [ts]"),
      "iterations, OR and variables left out of the output (projected by the automaton)" -> (w =>
        s"SELECT c FROM S WHERE A ; (A OR B)+ ; C AS c ; D FILTER A[v < 3] AND c[v < 5] AND D[v < 1] WITHIN $w [ts]"),
      "contiguous iteration and a partitioned stream" -> (w =>
        s"SELECT * FROM S WHERE A AS a : (B OR C):+ AS bs ; D AS d FILTER d[v < 5] PARTITION BY [k] WITHIN $w [ts]"),
      "MAX keeps its runs apart and de-duplicates nothing it enumerates" -> (w =>
        s"SELECT MAX * FROM S WHERE A AS a ; B+ AS b ; C AS c FILTER a[v < 3] AND c[v < 3] WITHIN $w [ts]")
    ))
    test(s"CORE: $name")(flatOverWindows(query))

  // ---- The priority strategies (NEXT and LAST, the CEL paper's Algorithms 5 and 6) --------------------------------

  for (strategy <- Seq("NEXT", "LAST"))
    test(s"$strategy: constant work per event, one match per event enumerated in its size") {
      flatOverWindows(w => s"SELECT $strategy * FROM S WHERE A AS a ; B+ AS b ; C AS c FILTER a[v < 1] WITHIN $w [ts]",
        perOutput = 2.0)
    }

  // ---- The tECS invariant ---------------------------------------------------------------------------------------------

  /**
   * Every node made stays within three unions of an output (CORE §4.2: union-lists keep their first node a non-union,
   * and union takes safe nodes), on long random streams, for the deterministic automaton and with registers. Before,
   * a list first reached by a move that extends nothing stored a merged union as its first node, and the depth grew
   * with the stream (40 on the stock trace for c_conj on registers).
   */
  for ((name, query, options) <- Seq(
      ("iteration and OR", "SELECT * FROM S WHERE (A OR B)+ ; (C ; D)+ ; (A OR D) WITHIN 10 [ts]", EngineOptions()),
      ("projection", "SELECT d FROM S WHERE A ; (B OR C)+ ; D AS d WITHIN 30 [ts]", EngineOptions()),
      ("AND", "SELECT * FROM S WHERE (A AS a ; B AS b) AND (C AS c ; D AS d) WITHIN 12 [ts]", EngineOptions()),
      ("MAX", "SELECT MAX * FROM S WHERE A AS a ; (B OR C)+ AS b ; D AS d WITHIN 10 [ts]", EngineOptions()),
      ("registers, AND", "SELECT * FROM S WHERE (A AS a AND B AS b) FILTER a.k = b.k AND b.v >= a.v WITHIN 50 [ts]",
        EngineOptions(lazyChains = false, equalityPcea = false)),
      ("registers, iteration",
        "SELECT * FROM S WHERE A AS a ; (B AS b)+ ; C AS c FILTER max(b.v) < a.v + c.v WITHIN 12 [ts]",
        EngineOptions())
    )) {
    test(s"the tECS stays 3-bounded over 100,000 random events: $name") {
      val m = measure(query, stream(100000), options)
      info(m.toString)
      assert(m.rows > 0, "the workload should match, or it tests nothing")
      assert(m.metrics.maxOutputDepth <= 3, s"output depth ${m.metrics.maxOutputDepth}")
    }
  }
}
