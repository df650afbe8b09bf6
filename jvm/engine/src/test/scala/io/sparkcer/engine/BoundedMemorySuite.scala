package io.sparkcer.engine

import org.scalatest.funsuite.AnyFunSuite

/**
 * A long stream with a short window runs in constant memory: tECS nodes (a PCEA's reachable run nodes), buffered
 * events, runs (a PCEA's index entries) and partitions are reclaimed as the window slides, so what is held after 20x
 * more events is no more than before.
 */
class BoundedMemorySuite extends AnyFunSuite {
  private val columns = IndexedSeq("event_type", "k", "v", "ts")
  private val types = Array("A", "B", "C", "D")

  /** A deterministic pseudo-random stream: n events, 4 types, `keys` partition keys, ts rising by 1 or 2. */
  private def stream(n: Int, keys: Int): Iterator[Array[Any]] = {
    val random = new java.util.Random(7)
    var ts = 0L
    Iterator.tabulate(n) { i =>
      ts += 1 + random.nextInt(2)
      Array[Any](types(random.nextInt(4)), Long.box((i / 50 + random.nextInt(3)) % keys), Long.box(random.nextInt(10)),
        Long.box(ts))
    }
  }

  private def peaks(query: String, n: Int, keys: Int = 1, options: EngineOptions = EngineOptions()) = {
    val q = LocalEngine.compile(query, columns, options)
    val matches = q.run(stream(n, keys)).size
    assert(matches > 0, "the workload should produce matches, or it tests nothing")
    q.metrics
  }

  for ((name, query) <- Seq(
      "time window" -> "SELECT * FROM S WHERE A AS a ; B AS b ; C AS c WITHIN 40 [ts]",
      "event window" -> "SELECT * FROM S WHERE A AS a ; (B OR D) AS b ; C AS c ORDER BY ts WITHIN 25 EVENTS",
      "MAX strategy" -> "SELECT MAX * FROM S WHERE A AS a ; B+ AS b ; C AS c WITHIN 40 [ts]",
      "LAST strategy" -> "SELECT LAST * FROM S WHERE A AS a ; B+ AS b ; C AS c WITHIN 40 [ts]",
      // Conditions relating events (RMA's n-ary conditions): registers, lists, accumulators, prev, AND, the lazy chain.
      "registers" -> "SELECT * FROM S WHERE A AS a ; B AS b ; C AS c FILTER a.v < b.v AND b.v <> c.v ORDER BY ts WITHIN 25 EVENTS",
      "prev" -> "SELECT * FROM S WHERE (B AS b)+ FILTER b.v > prev(b.v) WITHIN 12 [ts]",
      "AND" -> "SELECT * FROM S WHERE (A AS a ; B AS b) AND C AS c FILTER c.v > a.v WITHIN 20 [ts]",
      // Equalities on a PCEA: its index and the run nodes it reaches.
      "PCEA chain" -> "SELECT * FROM S WHERE A AS a ; (B AS b)+ ; C AS c FILTER a.k = b.v AND b.v = c.v WITHIN 20 [ts]",
      "PCEA AND" -> "SELECT * FROM S WHERE (A AS a ; B AS b) AND C AS c FILTER b.v = c.v WITHIN 20 [ts]"
    )) {
    test(s"$name: nodes and buffered events stay flat over a 20x longer stream") {
      flat(query, EngineOptions())
    }
  }

  // Kleene iteration with aggregates runs on the registers or the lazy chain, raced: each path alone stays flat.
  private val aggregates =
    "SELECT * FROM S WHERE A AS a ; (B AS b)+ ; C AS c FILTER sum(b.v) > a.v AND count(b) <= 3 " +
      "WITHIN 15 [ts]"
  for ((path, options) <-
      Seq("registers" -> EngineOptions(lazyChains = false), "lazy chain" -> EngineOptions(chainsByCost = false)))
    test(s"aggregates on the $path: nodes and buffered events stay flat over a 20x longer stream") {
      flat(aggregates, options)
    }

  private def flat(query: String, options: EngineOptions): Unit = {
    val short = peaks(query, 20000, options = options)
    val long = peaks(query, 400000, options = options)
    assert(long.peakLiveNodes <= short.peakLiveNodes * 3 / 2 + 64,
      s"tECS grew: ${short.peakLiveNodes} -> ${long.peakLiveNodes}")
    assert(long.peakBufferedEvents <= short.peakBufferedEvents + 16,
      s"buffer grew: ${short.peakBufferedEvents} -> ${long.peakBufferedEvents}")
    assert(long.peakActiveStates <= short.peakActiveStates * 3 / 2 + 16,
      s"runs grew: ${short.peakActiveStates} -> ${long.peakActiveStates}")
    assert(long.peakBufferedEvents < 200)
  }

  private val chain = "SELECT * FROM S WHERE A AS a ; B AS b ; C AS c FILTER a.v < b.v AND b.v <> c.v WITHIN 40 [ts]"

  test("lazy chain: buffered events and the predecessors it keeps stay flat over a 20x longer stream") {
    flat(chain, EngineOptions(chainsByCost = false))
  }

  test(
    "a chain by cost holds at most what its two paths hold together (both read during a race), however long the stream") {
    // Which path leads, and when they race, changes along the stream: the peaks are those of one path or the sum.
    val (lazyChain, registers) = (peaks(chain, 400000, options = EngineOptions(chainsByCost = false)),
      peaks(chain, 400000, options = EngineOptions(lazyChains = false)))
    val chosen = peaks(chain, 400000)
    assert(chosen.peakLiveNodes <= lazyChain.peakLiveNodes + registers.peakLiveNodes)
    assert(chosen.peakActiveStates <= lazyChain.peakActiveStates + registers.peakActiveStates)
    assert(chosen.peakBufferedEvents <= lazyChain.peakBufferedEvents.max(registers.peakBufferedEvents))
  }

  test("a list register: runs are at most the subsets of the events one window holds, however long the stream") {
    // Each run keeps the events of `a` it relates to c: one run per subset of the A events inside the window, so the
    // bound is a function of the window alone (the densest window of a longer stream may hold a few more).
    val query = "SELECT * FROM S WHERE (A AS a)+ ; C AS c FILTER a.v < c.v WITHIN 8 [ts]"
    for (n <- Seq(20000, 400000)) {
      val events = stream(n, 1).toVector
      val densest = events.indices.map { i =>
        val ts = events(i)(3).asInstanceOf[Long]
        events.slice(i, i + 16).count(e => e(0) == "A" && e(3).asInstanceOf[Long] - ts < 8)
      }.max
      val metrics = peaks(query, n)
      assert(metrics.peakActiveStates <= (1 << densest) + 2,
        s"$n events: ${metrics.peakActiveStates} runs, at most " +
          s"$densest A events in a window")
      assert(metrics.peakBufferedEvents < 16)
    }
  }

  test("partitions whose last event left the window are forgotten") {
    val q = "SELECT * FROM S WHERE A AS a ; B AS b PARTITION BY k WITHIN 30 [ts]"
    val metrics = peaks(q, 200000, keys = 100000)
    assert(metrics.peakPartitions < 200, s"held ${metrics.peakPartitions} partitions")
  }
}
