package io.sparkcer.engine.complexity

import org.scalatest.funsuite.AnyFunSuite

import io.sparkcer.engine.{Event, LocalEngine}
import io.sparkcer.engine.eval.{EventRing, Work}
import io.sparkcer.engine.pcea.PceaPartitionRun

/**
 * The PCEA paper's guarantees (Thm 5.1) on the engine's PCEA path, checked by counting work
 * ([[io.sparkcer.engine.eval.Work]]), never by timing: per event, update work logarithmic in the window (the union's
 * path copies, Prop. 5.3) and otherwise constant; per output, enumeration steps linear in its size (Thm 5.2), with no
 * valuation enumerated to be dropped. Windows grow 10x and 100x over a base T.
 *
 * The conjunctions are self-joins: their operands can read the same event (two atoms of one type), which a run tree
 * may do in two subtrees and CEQL's AND may not. Such valuations were once enumerated, then dropped, and
 * a conjunction that could only pair runs of one event enumerated them all and output nothing.
 */
class PceaComplexitySuite extends AnyFunSuite {
  import PceaComplexitySuite._
  import WorkProbe._

  /** How much the update work per event may grow from T to 100T: a logarithm's few steps, not the window's 100. */
  private val Flat = 2.0

  /** Runs `query(w)` for w in T, 10T, 100T on a PCEA; checks update work flat and enumeration linear in the output. */
  private def overWindows(query: Int => String, base: Int, events: => Iterator[Array[Any]],
      perOutput: Double = 4.0): Seq[Measure] = {
    val measures = Seq(base, 10 * base, 100 * base).map(w => measure(query(w), events))
    info(measures.zip(Seq("T", "10T", "100T")).map { case (m, w) => s"$w: $m" }.mkString("\n"))
    val t = measures.head
    for ((m, w) <- measures.zip(Seq("T", "10T", "100T"))) {
      assert(m.path.contains("by PCEA"), s"the query should run on a PCEA: ${m.path}")
      assert(m.metrics.work.dropped == 0, s"${m.metrics.work.dropped} valuations enumerated to be dropped at $w")
      assert(
        m.enumerationPerOutput <= perOutput, f"enumeration took ${m.enumerationPerOutput}%.2f steps per output at $w")
      assert(m.updatePerEvent <= Flat * t.updatePerEvent + 1,
        f"update work per event grew from ${t.updatePerEvent}%.2f at T to ${m.updatePerEvent}%.2f at $w")
    }
    measures
  }

  test("a self-join that can only pair runs of one event: nothing enumerated, nothing dropped, update work flat") {
    // Every valuation takes the one open order as both a and c: there is no match, at any window.
    val measures = overWindows(
      w =>
        s"SELECT * FROM S WHERE (A AS a ; B AS b) AND (A AS c ; D AS d) " +
          s"FILTER a.k = b.v AND b.v = d.v AND d.v = c.k WITHIN $w [ts]",
      base = 20,
      orders(20000, gap = 5000, recent = 1, keys = 10)
    )
    for (m <- measures) {
      assert(m.rows == 0)
      assert(m.metrics.work.enumerationSteps == 0, s"${m.metrics.work.enumerationSteps} enumeration steps, no output")
    }
  }

  test("a self-join with matches: enumeration linear in the output, nothing dropped, update work flat") {
    // b and d refer to one of the two latest orders, and have one of two keys; a match needs two different orders.
    val measures = overWindows(
      w =>
        s"SELECT * FROM S WHERE (A AS a ; B AS b) AND (A AS c ; D AS d) " +
          s"FILTER a.k = b.v AND c.k = d.v AND b.k = d.k WITHIN $w [ts]",
      base = 20,
      orders(10000, gap = 10, recent = 2, keys = 2)
    )
    assert(measures.last.rows > 10 * measures.head.rows, "the workload should match more in a wider window")
  }

  test("a chain whose unselected atom's runs differ only in its event: the latest kept per key, no row repeated") {
    // Each b between a and c with b.v = c.v was a run of its own with the row (a, c), enumerated and dropped: 82,493
    // of them at a window of 1,000 over 3,000 events. A later b under c's key reads every a an earlier one read.
    val measures =
      overWindows(w => s"SELECT a, c FROM S WHERE A AS a ; B AS b ; C AS c FILTER b.v = c.v WITHIN $w [ts]",
        base = 10, stream(5000))
    for (m <- measures)
      assert(m.path.contains("only the latest runs of b kept") && !m.path.contains("rows repeated"), m.path)
    assert(measures.last.rows > 10 * measures.head.rows, "the workload should match more in a wider window")
  }

  test("an unselected atom joined on both sides: the latest run per incoming key, in a treap, no row repeated") {
    // b joins a on k and c on v: under c's key, the b's of one k read the same a's, and only the latest counts.
    val measures = overWindows(w =>
        s"SELECT a, c FROM S WHERE A AS a ; B AS b ; C AS c FILTER a.k = b.k AND " +
          s"b.v = c.v WITHIN $w [ts]", base = 10, stream(5000, keys = 100, values = 10))
    for (m <- measures)
      assert(m.path.contains("only the latest runs of b kept") && !m.path.contains("rows repeated"), m.path)
    assert(measures.last.rows > 10 * measures.head.rows, "the workload should match more in a wider window")
  }

  test("an iterated unselected atom: its repetitions dropped, the latest runs kept, no row repeated") {
    // (B AS b)+ reached b from a and from b: a run through b1 b2 and one through b2 alone gave one row. The last b
    // joins what the first one joined, so the repetitions go.
    val measures = overWindows(
      w =>
        s"SELECT a, c FROM S WHERE A AS a ; (B AS b)+ ; C AS c FILTER a.k = b.k AND " +
          s"b.v = c.v WITHIN $w [ts]",
      base = 10,
      stream(5000, keys = 100, values = 10)
    )
    for (m <- measures)
      assert(m.path.contains("only the latest runs of b kept") && !m.path.contains("rows repeated"), m.path)
  }

  test("an unselected variable of two atoms still repeats rows: EXPLAIN says so, and the repeats are counted") {
    // (B OR D) AS b: a B and a D between a and c with c's v are two runs with one row, of two atoms.
    val query = "SELECT a, c FROM S WHERE A AS a ; (B OR D) AS b ; C AS c FILTER b.v = c.v WITHIN 1000 [ts]"
    val m = measure(query, stream(3000))
    assert(
      m.path.contains("by PCEA") && m.path.contains("rows repeated by runs that unselected events or an OR of " +
        "conditions keep apart dropped (counted)") && m.path.contains("only the latest runs of b kept ("),
      m.path
    )
    assert(m.rows > 0 && m.metrics.work.dropped > 0, m.toString)
  }

  test("a chain with matches: enumeration linear in the output, update work flat") {
    val measures = overWindows(w =>
        s"SELECT * FROM S WHERE A AS a ; B AS b ; C AS c FILTER a.v = b.k AND b.v = c.k " +
          s"WITHIN $w [ts]", base = 10, stream(20000, values = 10))
    assert(measures.last.rows > 10 * measures.head.rows, "the workload should match more in a wider window")
  }

  test("a chain whose completing events find no key builds no runs: a hash insertion or probe per event, any window") {
    // Cs come all along, but their v is negative and no b.v is: no C can end a match. Before, every event was read
    // once a C had come within the window (update 1.60, 1.82, 1.82 per event at T, 10T, 100T, transitions 0.75 per
    // event); now a B's key is noted and a C probes it, and nothing else is done.
    val events = () =>
      stream(20000, values = 10).map { row =>
        if (row(0) == "C") row.updated(2, Long.box(-1L - row(2).asInstanceOf[Long])) else row
      }
    val measures = Seq(20, 200, 2000).map(w =>
      measure(s"SELECT * FROM S WHERE A AS a ; B AS b ; C AS c " +
          s"FILTER a.v = b.k AND b.v = c.v WITHIN $w [ts]", events()))
    info(measures.zip(Seq("T", "10T", "100T")).map { case (m, w) => s"$w: $m" }.mkString("\n"))
    for ((m, w) <- measures.zip(Seq("T", "10T", "100T"))) {
      assert(m.rows == 0)
      assert(
        m.metrics.work.transitions == 0, s"${m.metrics.work.transitions} transitions taken at $w, no C can end a match")
      assert(m.updatePerEvent <= 0.6, f"update work ${m.updatePerEvent}%.2f per event at $w")
    }
  }

  /** The query of the union tests: b runs, indexed for c under b.k, inherit the start of the a run they extend. */
  private val chain =
    (w: Int) => s"SELECT * FROM S WHERE A AS a ; B AS b ; C AS c FILTER a.k = b.v AND b.k = c.v WITHIN $w [ts]"

  /**
   * Runs [[chain]] over `events(w)` (n of them) for w in T, 10T, 100T, on its PCEA; checks that the most nodes one
   * union copies grows with the log of the window, and the nodes copied per event by a constant factor at most.
   */
  private def unionsOverWindows(base: Int, n: Int, events: Int => Iterator[Array[Any]]): Unit = {
    val found = Seq(base, 10 * base, 100 * base).map(w => unions(chain(w), w, events(w)))
    info(found.zip(Seq("T", "10T", "100T")).map { case ((longest, work), w) =>
      f"$w: at most $longest nodes copied by a union, ${work.unionNodes.toDouble / n}%.2f per event"
    }.mkString("\n"))
    val (longestT, workT) = found.head
    for (((longest, work), k) <- found.zip(Seq(1, 10, 100))) {
      assert(longest <= longestT + 2 * math.log(k) / math.log(2) + 2,
        s"a union copied $longest nodes at ${k}T, $longestT at T")
      assert(work.unionNodes <= Flat * workT.unionNodes + n,
        s"${work.unionNodes} nodes copied at ${k}T, ${workT.unionNodes} at T")
    }
  }

  test("a union copies a path logarithmic in the window, and a constant number of nodes per event amortised") {
    // Two keys, so that each holds a quarter of the window's events: runs that start at the event (a), which outrank
    // every other, and runs that inherit older starts (b), which go down the trees.
    unionsOverWindows(base = 20, n = 20000, _ => stream(20000, keys = 2, values = 2))
  }

  test("a union copies a logarithmic path even after runs that start at the event alternate with older ones") {
    // The b runs all go under one key (b.k = 0). A b after a fresh order (v = 1) starts latest of all and becomes
    // the root; one after the stale order (v = 2) starts earlier and goes down. Rounds of one of each, then a burst
    // of stale ones: a union steered by per-node direction bits (as the index once was) had turned every old root's
    // bit towards the ones below it, and the burst's first run went down all of them, as many as the rounds.
    unionsOverWindows(base = 20, n = 20000, w => rounds(20000, w / 4))
  }

  test("a run that starts at its event goes above a union tree without a copy, however dense the keys") {
    // The a runs, indexed for b under a.v, all start at their event: each outranks the tree it joins, and becomes its
    // root. Before, that root was a copy of the run, so a wider window, where more of a's keys hold a live tree, made
    // more copies per event (0.001, 0.012, 0.092 at T, 10T, 100T): a second row in the arena per run in a dense index.
    val measures = Seq(20, 200, 2000).map(w =>
      measure(s"SELECT * FROM S WHERE A AS a ; B AS b FILTER a.v = b.k " +
          s"WITHIN $w [ts]", stream(20000, keys = 1000, values = 1000)))
    info(measures.zip(Seq("T", "10T", "100T")).map { case (m, w) => s"$w: $m" }.mkString("\n"))
    assert(measures.last.rows > 10 * measures.head.rows, "the workload should match more in a wider window")
    for ((m, w) <- measures.zip(Seq("T", "10T", "100T"))) {
      val perEvent = m.metrics.work.unionNodes.toDouble / m.events
      assert(perEvent <= 0.001, f"$perEvent%.3f nodes copied per event at $w")
    }
  }

  /**
   * Runs `query` over `events` on its PCEA directly (one partition, window `window` on ts, the position; no sink, so
   * the matches are not enumerated), returning the most nodes one union copied and the work.
   */
  private def unions(query: String, window: Int, events: Iterator[Array[Any]]): (Int, Work) = {
    val local = LocalEngine.compile(query, columns)
    val plan = local.pattern.pcea.getOrElse(fail(s"the query should run on a PCEA: ${local.pattern.describe}"))
    val (ring, work) = (new EventRing[Event], new Work)
    val run = new PceaPartitionRun(plan, local.reader, ring, work)
    val bits = new Array[Long](local.pattern.nfa.symbolWords)
    for ((values, i) <- events.zipWithIndex) {
      val event = new Event(i.toLong, values)
      java.util.Arrays.fill(bits, 0L)
      local.reader.classify(event, bits)
      val threshold = i.toLong - window
      ring.expire(threshold)
      ring.append(i.toLong, event, i.toLong)
      run.read(i.toLong, 0, bits, i.toLong, threshold, null)
    }
    (run.longestUnion, work)
  }
}

object PceaComplexitySuite {
  /**
   * Rounds of `rounds` (a fresh order A with k = 1, a B referring to it, a B referring to the stale order: A with k =
   * 2 at the start of the round), then as many Bs referring to the stale order, then a C that ends matches (so that
   * the runs are built as the events come: a C that could end none would leave them unread); B's k is 0.
   */
  def rounds(n: Int, rounds: Int): Iterator[Array[Any]] = {
    val round = Seq(("A", 2L, -1L)) ++ Seq.fill(rounds)(Seq(("A", 1L, -1L), ("B", 0L, 1L), ("B", 0L, 2L))).flatten ++
      Seq.fill(rounds)(("B", 0L, 2L)) :+ (("C", -1L, 0L))
    Iterator.tabulate(n) { i =>
      val (t, k, v) = round(i % round.length)
      Array[Any](t, Long.box(k), Long.box(v), Long.box(i.toLong))
    }
  }

  /**
   * Orders and what refers to them: an order A every `gap` events, whose k is its ts (unique); between them, B and
   * D events with a random k in [0, keys) and, as v, the k of one of the `recent` latest orders.
   */
  def orders(n: Int, gap: Int, recent: Int, keys: Int): Iterator[Array[Any]] = {
    val random = new java.util.Random(3)
    Iterator.tabulate(n) { i =>
      val ts = Long.box(i.toLong)
      if (i % gap == 0) Array[Any]("A", ts, Long.box(-1L), ts)
      else {
        val order = math.max(0, i / gap - random.nextInt(recent)) * gap
        Array[Any](
          if (random.nextBoolean()) "B" else "D", Long.box(random.nextInt(keys).toLong), Long.box(order.toLong), ts)
      }
    }
  }
}
