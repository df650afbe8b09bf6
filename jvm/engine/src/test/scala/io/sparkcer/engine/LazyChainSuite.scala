package io.sparkcer.engine

import java.io.{ByteArrayInputStream, ByteArrayOutputStream, DataInputStream, DataOutputStream}

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

import io.sparkcer.engine.chain.ChainPath
import io.sparkcer.engine.eval.{MatchBound, TooManyMatchesException}
import io.sparkcer.engine.plan.PatternEvaluator

/**
 * The lazy chain ([[io.sparkcer.engine.chain.ChainRun]]) against the eager evaluation with registers on the automaton
 * ([[io.sparkcer.engine.rma.RegisterRun]]): the lazy chain NFA paper's Theorem 1 as a differential test (digest
 * LAZY-T9: eager and chain give the same matches on random streams), and what the chain keeps; then the choice
 * between them ([[io.sparkcer.engine.chain.AdaptiveChainRun]]), which must give the same matches through its races,
 * its switches and saved states.
 */
class LazyChainSuite extends AnyFunSuite {
  private val columns = IndexedSeq("event_type", "x", "y", "ts")
  private def L(v: Long): java.lang.Long = java.lang.Long.valueOf(v)

  private def rows(seed: Long, n: Int, types: Seq[String]): IndexedSeq[Array[Any]] = {
    val random = new Random(seed)
    (0 until n).map(i =>
      Array[Any](types(random.nextInt(types.size)), L(random.nextInt(5)), L(random.nextInt(5)), L(i)))
  }

  // Equalities alone would run on a PCEA: here they are conditions as any, to compare the chain with the eager run.
  private val Lazy = EngineOptions(chainsByCost = false, equalityPcea = false)
  private val Eager = EngineOptions(lazyChains = false, equalityPcea = false)
  private val ByCost = EngineOptions(equalityPcea = false)

  /** The matches, sorted, each as `start..end:` and the events of each output variable. */
  private def run(query: String, data: IndexedSeq[Array[Any]], options: EngineOptions): (Vector[String], LocalQuery) = {
    val q = LocalEngine.compile(query, columns, options)
    val out = q.run(data.iterator.map(_.clone())).map { m =>
      s"${m.start.seq}..${m.end.seq}:" + m.bindings.map(_.map(_.seq).mkString("{", ",", "}")).mkString
    }.toVector
    (out.sorted, q)
  }

  /** The query run on the lazy chain, its rows checked against the eager run's, each once: the rows and the run. */
  private def sameAsEager(query: String, data: IndexedSeq[Array[Any]]): (Vector[String], LocalQuery) = {
    val (chain, compiled) = run(query, data, Lazy)
    assert(chain == run(query, data, Eager)._1, s"$query\non ${data.map(_.mkString(",")).mkString(" | ")}")
    assert(chain.distinct == chain, s"$query reports a row twice")
    (chain, compiled)
  }

  private val conditions =
    Seq("a.x < b.x", "b.y = c.y", "a.x + c.y > b.x", "a.y <> c.y OR a.x = b.y", "NOT (a.x > c.x)",
      "b.x - a.y >= 1")

  test("LAZY-T9: chain and eager give the same matches on random streams (SEQ and AND, 2 and 3 atoms)") {
    val random = new Random(11)
    var compared = 0
    for (round <- 0 until 300) {
      val three = random.nextBoolean()
      val ordered = random.nextBoolean()
      val op = if (ordered) ";" else "AND"
      val atoms = if (three) Seq("A AS a", "B AS b", "C AS c") else Seq("A AS a", "B AS b")
      val usable = conditions.filter(c => three || !c.contains("c."))
      val chosen = random.shuffle(usable).take(1 + random.nextInt(2))
      val window = if (random.nextBoolean()) s"WITHIN ${2 + random.nextInt(6)} EVENTS ORDER BY ts"
      else s"WITHIN ${2 + random.nextInt(6)} [ts]"
      val query = s"SELECT * FROM S WHERE ${atoms.mkString(s" $op ")} FILTER ${chosen.mkString(" AND ")} $window"
      val data = rows(round, 12 + random.nextInt(12), Seq("A", "B", "C", "D"))
      val (chain, compiled) = run(query, data, Lazy)
      assert(compiled.pattern.chain.isDefined, query)
      val (eager, other) = run(query, data, Eager)
      assert(other.pattern.chain.isEmpty && other.pattern.registers.isDefined, query)
      assert(chain == eager, s"$query\non ${data.map(_.mkString(",")).mkString(" | ")}")
      assert(run(query, data, ByCost)._1 == eager, s"by cost: $query\non ${data.map(_.mkString(",")).mkString(" | ")}")
      compared += chain.size
    }
    assert(compared > 300, s"only $compared matches compared")
  }

  test("an OR of chains: the matches of the eager run, each once, none enumerated to be dropped") {
    val random = new Random(17)
    // Alternatives that bind the same variables (in another order, or under AND), that share none, that one FILTER
    // covers or only one does; and FILTERs whose OR splits one chain into two alike.
    val shapes = Seq(
      "(A AS a ; B AS b) OR (B AS b ; A AS a) FILTER %s",
      "(A AS a ; B AS b) OR (A AS a AND B AS b) FILTER %s",
      "(A AS a ; B AS b ; C AS c) OR (C AS c ; A AS a ; B AS b) FILTER %s",
      "((A AS a ; B AS b) FILTER %s) OR (C AS c ; D AS d)",
      "(A AS a ; B AS b) OR (C AS c ; A AS a ; B AS b) FILTER %s",
      "A AS a ; B AS b ; C AS c FILTER %s OR b.y > c.y",
      "(A AS a ; B AS b) OR (A AS a ; C AS b) FILTER %s"
    )
    val usable = Seq("a.x < b.x", "a.y <> b.y", "a.x + b.y > 3", "b.x - a.y >= 1")
    var compared = 0
    for (round <- 0 until 140) {
      val shape = shapes(round % shapes.length)
      val conditions = random.shuffle(usable).take(1 + random.nextInt(2)).mkString(" AND ")
      val window = s"WITHIN ${3 + random.nextInt(8)} EVENTS ORDER BY ts"
      val query = s"SELECT * FROM S WHERE ${shape.format(conditions)} $window"
      val data = rows(2000 + round, 20 + random.nextInt(40), Seq("A", "B", "C", "D"))
      val (chain, compiled) = sameAsEager(query, data)
      assert(compiled.pattern.chain.exists(_.alternatives.length > 1), s"$query: ${compiled.pattern.describe}")
      assert(compiled.metrics.work.dropped == 0, s"$query dropped ${compiled.metrics.work.dropped}")
      assert(run(query, data, ByCost)._1 == chain, s"by cost: $query")
      compared += chain.size
    }
    assert(compared > 1000, s"only $compared matches compared")
    val explained =
      LocalEngine.compile("SELECT * FROM S WHERE (A AS a ; B AS b) OR (B AS b ; A AS a) FILTER a.x < b.x " +
          "WITHIN 5 EVENTS ORDER BY ts", columns, Lazy).pattern.describe
    info(explained)
    assert(explained.contains("an OR of 2 lazy chains (a ; b, b ; a), each match reported once"), explained)
  }

  test("an OR of chains binding an unselected event inside one and first in the other: each row once, as eager") {
    // Inside a sequence, b is a witness: any event that fits will do, and the chain reports the row once. First, it
    // starts the row, whose identity it is part of. An alternative may only be asked whether it has another's match
    // where b is a witness in both (Chains.correspondence); elsewhere the rows are de-duplicated.
    val random = new Random(29)
    val shapes = Seq(
      "(B AS b ; A AS a ; C AS c) OR (A AS a ; B AS b ; C AS c) FILTER %s",
      "(A AS a ; B AS b ; C AS c) OR (A AS a ; D AS b ; C AS c) FILTER %s",
      "(A AS a ; B AS b ; C AS c) OR (A AS a ; C AS c ; B AS b) FILTER %s"
    )
    val usable = Seq("b.x < c.x", "b.y <> a.y", "a.x + b.y > 3", "b.x = c.y")
    var compared = 0
    for (round <- 0 until 90) {
      val shape = shapes(round % shapes.length)
      val conditions = random.shuffle(usable).take(1 + random.nextInt(2)).mkString(" AND ")
      val query =
        s"SELECT a, c FROM S WHERE ${shape.format(conditions)} WITHIN ${4 + random.nextInt(8)} EVENTS ORDER BY ts"
      val data = rows(3000 + round, 30 + random.nextInt(30), Seq("A", "B", "C", "D"))
      val (chain, compiled) = sameAsEager(query, data)
      assert(compiled.pattern.chain.exists(_.alternatives.exists(_.witnesses.nonEmpty)), compiled.pattern.describe)
      compared += chain.size
    }
    assert(compared > 500, s"only $compared rows compared")
  }

  test(
    "a sequence whose conditions relate adjacent events, assembled backwards: the matches of the eager run, with the predecessors kept as the window slides") {
    val random = new Random(13)
    val adjacent = Seq("a.x < b.x", "b.y = c.y", "b.x - a.y >= 1", "c.x <> d.x", "c.y + d.y > 4", "a.y >= b.y")
    var compared = 0
    for (round <- 0 until 60) {
      val four = random.nextBoolean()
      val atoms = if (four) Seq("A AS a", "B AS b", "C AS c", "D AS d") else Seq("A AS a", "B AS b", "C AS c")
      val usable = adjacent.filter(c => four || !c.contains("d."))
      val chosen = random.shuffle(usable).take(1 + random.nextInt(3))
      val window = if (random.nextBoolean()) s"WITHIN ${5 + random.nextInt(30)} EVENTS ORDER BY ts"
      else s"WITHIN ${5 + random.nextInt(30)} [ts]"
      val query = s"SELECT * FROM S WHERE ${atoms.mkString(" ; ")} FILTER ${chosen.mkString(" AND ")} $window"
      val data = rows(1000 + round, 300, Seq("A", "B", "C", "D"))
      val (chain, compiled) = run(query, data, Lazy)
      assert(compiled.pattern.chain.isDefined, query)
      assert(chain == run(query, data, Eager)._1, query)
      compared += chain.size
    }
    assert(compared > 10000, s"only $compared matches compared")
  }

  test("LAZY-T2 in the chain: 100 A then 100 B and no C keep 200 buffered events and build nothing") {
    val data = (0 until 200).map(i => Array[Any](if (i < 100) "A" else "B", L(1), L(1), L(i)))
    val (out, q) = run("SELECT * FROM S WHERE A AS a ; B AS b ; C AS c FILTER a.x = b.y AND b.x < c.x WITHIN 1000 [ts]",
      data, Lazy)
    assert(out.isEmpty)
    assert(q.metrics.peakActiveStates == 200 && q.metrics.peakLiveNodes == 0)
  }

  test("EXPLAIN names the chain; it is not used where it would not be exact") {
    def plan(query: String) = LocalEngine.compile(query, columns).pattern
    val explained = plan("SELECT * FROM S WHERE A AS a ; B AS b FILTER a.x < b.x WITHIN 5 EVENTS ORDER BY ts").describe
    info(explained)
    assert(
      explained.contains("lazy chain over a ; b") && explained.contains("or 1 conditions relating events checked") &&
        explained.contains("whichever does less work on each partition"))
    // No window, a strategy that chooses, a LIMIT, or no condition: not a chain.
    assert(plan("SELECT * FROM S WHERE A AS a ; B AS b FILTER a.x < b.x ORDER BY ts").chain.isEmpty)
    assert(plan("SELECT ANY * FROM S WHERE A AS a ; B AS b FILTER a.x < b.x WITHIN 5 EVENTS ORDER BY ts").chain.isEmpty)
    assert(
      plan("SELECT * FROM S WHERE A AS a ; B AS b FILTER a.x < b.x WITHIN 5 EVENTS ORDER BY ts LIMIT 1").chain.isEmpty)
    assert(plan("SELECT * FROM S WHERE A AS a ; B AS b FILTER a.x < 3 WITHIN 5 EVENTS ORDER BY ts").chain.isEmpty)
    assert(plan("SELECT * FROM S WHERE A AS a : B AS b FILTER a.x < b.x WITHIN 5 EVENTS ORDER BY ts").chain.isEmpty)
  }

  test("no B of the account between A and C (the paper's SEQ(A a, !(B b), C c), §4.4)") {
    // x is the account: A@0 and C@3 have B@2 of theirs between; A@1 and C@4 only B@2 of another; A@1 and C@7 have
    // B@5 of theirs between; A@6 and C@7 nothing.
    val accounts = Seq("A" -> 1, "A" -> 2, "B" -> 1, "C" -> 1, "C" -> 2, "B" -> 2, "A" -> 2, "C" -> 2)
    val data = accounts.zipWithIndex.map { case ((t, x), i) => Array[Any](t, L(x), L(0), L(i)) }.toIndexedSeq
    val query = "SELECT * FROM S WHERE A AS a ; NONE(B AS b FILTER b.x = a.x) ; C AS c FILTER c.x = a.x " +
      "WITHIN 10 EVENTS ORDER BY ts"
    val (out, q) = run(query, data, ByCost)
    assert(out == Vector("1..4:{1}{4}", "6..7:{6}{7}"))
    // Its condition names a, bound before it: the lazy chain judges it, and so do the registers, whichever costs less.
    assert(q.pattern.chain.isDefined && q.pattern.registers.exists(_.judgements.nonEmpty))
    assert(q.pattern.describe.contains("lazy chain over a ; NONE(b) ; c: events buffered per atom") &&
      q.pattern.describe.contains("each NONE's events buffered too") &&
      q.pattern.describe.contains("1 NONE(...) relating its event to earlier ones judged against the registers"))
    for (options <- Seq(Lazy, Eager)) assert(run(query, data, options)._1 == out)
    // Naming c, bound after it, only the lazy chain judges it.
    val later = run(query.replace("b.x = a.x", "b.x = c.x"), data, ByCost)._2
    assert(later.pattern.chain.isDefined && later.pattern.registers.isEmpty)
    // With a window on ts, nothing counts the events between: x is a partition (every event of the match has a's),
    // the NONE then tests its event alone, and the pattern runs on the automaton, each x on its own.
    val (byAccount, partitioned) = run(query.replace("WITHIN 10 EVENTS", "WITHIN 10 [ts]"), data, ByCost)
    assert(byAccount == out)
    assert(partitioned.pattern.chain.isEmpty && partitioned.pattern.registers.isEmpty)
    assert(
      partitioned.pattern.describe.contains(
        "partitioned by x (from c.x = a.x AND b.x = a.x: equal across every event)"))
    // NONE(B) of any account: every B breaks the gap. It runs on the automaton, alone or with the condition.
    val anyB = "SELECT * FROM S WHERE A AS a ; NONE(B) ; C AS c %s WITHIN 10 EVENTS ORDER BY ts"
    for (options <- Seq(Lazy, Eager, ByCost)) {
      assert(run(anyB.format(""), data, options)._1 == Vector("6..7:{6}{7}"))
      assert(run(anyB.format("FILTER c.x = a.x"), data, options)._1 == Vector("6..7:{6}{7}"))
    }
    assert(LocalEngine.compile(anyB.format(""), columns).pattern.nfa.toString.contains("TRUE but B/∘"))
  }

  test(
    "NONE in the chain against the eager run: a NONE of its event alone, with conditions relating the atoms, in an OR of chains too") {
    val random = new Random(17)
    var compared = 0
    for (round <- 0 until 60) {
      val none = random.shuffle(Seq("NONE(D)", "NONE(D FILTER D[x > 1])", "NONE(B OR D)",
          "NONE(D) ; NONE(B FILTER B.y = 0)")).head
      val query = s"SELECT * FROM S WHERE A AS a ; $none ; B AS b ; C AS c FILTER a.x < c.x AND b.y <> c.y " +
        s"WITHIN ${5 + random.nextInt(30)} EVENTS ORDER BY ts"
      val data = rows(2000 + round, 300, Seq("A", "B", "C", "D"))
      val (chain, compiled) = run(query, data, Lazy)
      assert(compiled.pattern.chain.isDefined, query)
      assert(chain == run(query, data, Eager)._1, query)
      // In an OR of chains a later alternative reports a match the earlier does not have: with a NONE's event between,
      // the earlier does not have it.
      val or = s"SELECT * FROM S WHERE (A AS a ; $none ; B AS b) OR (A AS a ; B AS b) FILTER a.x < b.x " +
        s"WITHIN ${5 + random.nextInt(30)} EVENTS ORDER BY ts"
      val (alternatives, orCompiled) = run(or, data, Lazy)
      assert(orCompiled.pattern.chain.isDefined, or)
      assert(alternatives == run(or, data, Eager)._1, or)
      compared += chain.size
    }
    assert(compared > 1000, s"only $compared matches compared")
  }

  test("the chain's buffers keep only the events inside the window") {
    val data = (0 until 20000).map(i => Array[Any](if (i % 3 == 2) "B" else "A", L(i % 7), L(i % 5), L(i)))
    val (out, q) = run("SELECT * FROM S WHERE A AS a ; B AS b FILTER a.x < b.x WITHIN 30 [ts]", data, Lazy)
    assert(out.nonEmpty)
    assert(q.metrics.peakActiveStates <= 32, s"peak buffered ${q.metrics.peakActiveStates}")
    assert(q.metrics.peakBufferedEvents <= 32)
  }

  /**
   * 8,000 events whose type frequencies change every 2,000 (uniform, the last event rare, the first rare, uniform),
   * so that the cheaper path changes along the stream; values in [0, 100).
   */
  private def regimes(seed: Long): IndexedSeq[Array[Any]] = {
    val random = new Random(seed)
    val kinds = IndexedSeq(Seq("A", "B", "C", "D"), Seq.fill(6)("A") ++ Seq.fill(6)("B") :+ "C",
      "A" +: (Seq.fill(6)("B") ++ Seq.fill(6)("C")), Seq("A", "B", "C", "D"))
    (0 until 8000).map { i =>
      val types = kinds(i / 2000)
      Array[Any](types(random.nextInt(types.size)), L(random.nextInt(100)), L(random.nextInt(100)), L(i))
    }
  }

  private val changing = Seq(
    "SELECT * FROM S WHERE A AS a ; B AS b ; C AS c FILTER a.x + 95 < b.x WITHIN 60 [ts]",
    "SELECT * FROM S WHERE A AS a ; B AS b ; C AS c FILTER a.x + 95 < c.x AND b.y < c.y WITHIN 40 EVENTS ORDER BY ts",
    "SELECT * FROM S WHERE A AS a AND B AS b AND C AS c FILTER a.x + 90 < b.x AND b.y < c.y WITHIN 30 [ts]"
  )

  test("by cost: the matches of either path, through races won by each path along a stream that changes") {
    val won = new Array[Long](ChainPath.all.length)
    for ((query, seed) <- changing.zipWithIndex) {
      val data = regimes(seed)
      val (eager, _) = run(query, data, Eager)
      val (chosen, q) = run(query, data, ByCost)
      assert(chosen == eager, query)
      assert(eager.nonEmpty, s"$query should match")
      info(s"$query: ${q.metrics.chainDecisions.describe}")
      ChainPath.all.foreach(p => won(p.index) += q.metrics.chainDecisions.won(p.index))
    }
    assert(won.forall(_ > 0), s"each path should win some race: ${won.mkString(", ")}")
  }

  test("by cost: a saved state carries the race on; the matches of one uninterrupted pass") {
    // The NONE's judged on either path, its events saved with the atoms' own (buffered) or in the registers; the
    // iteration's events are saved as any atom's.
    val saved = changing :+ ("SELECT * FROM S WHERE A AS a ; NONE(B AS n FILTER n.x = a.x) ; C AS c ; NONE(D) ; " +
      "B AS b FILTER a.y < c.y WITHIN 40 [ts]") :+
      "SELECT * FROM S WHERE A AS a ; (B AS b)+ ; C AS c FILTER count(b) <= 2 AND a.x + 80 < c.x AND max(b.y) > a.y WITHIN 30 [ts]"
    for ((query, seed) <- saved.zipWithIndex) {
      val data = regimes(seed).zipWithIndex.map { case (row, i) => new Event(i, row) }
      val q = LocalEngine.compile(query, columns, ByCost)
      def evaluator() = new PatternEvaluator[Event](q.pattern, q.reader, grouped = false, q.matchBound)
      def found(evaluator: PatternEvaluator[Event], events: Seq[Event]) =
        evaluator.matches(events.iterator).map(m => (m.end.seq, m.bindings.map(_.map(_.seq)))).toVector
      val expected = found(evaluator(), data)
      assert(expected.nonEmpty, query)
      val random = new Random(seed)
      val cuts = Iterator.iterate(0)(_ + 1 + random.nextInt(400)).takeWhile(_ < data.length).toVector :+ data.length
      var saved = Array.emptyByteArray
      val got = cuts.zip(cuts.tail).flatMap { case (from, until) =>
        val resumed = evaluator()
        if (from > 0) resumed.load(new DataInputStream(new ByteArrayInputStream(saved)), SavedStateSuite.EventBytes)
        val batch = found(resumed, data.slice(from, until))
        val bytes = new ByteArrayOutputStream()
        resumed.save(new DataOutputStream(bytes), SavedStateSuite.EventBytes)
        saved = bytes.toByteArray
        batch
      }
      assert(got == expected, query)
    }
  }

  test("LAZY-T3 in the chain: (B AS b)+ between a and c takes every non-empty subset of the B events between them") {
    val data = Seq("A", "B", "B", "B", "C").zipWithIndex.map { case (t, i) =>
      Array[Any](t, L(i), L(0), L(i))
    }.toIndexedSeq
    val query = "SELECT * FROM S WHERE A AS a ; (B AS b)+ ; C AS c FILTER a.x < c.x WITHIN 10 EVENTS ORDER BY ts"
    val (out, q) = run(query, data, Lazy)
    assert(q.pattern.chain.isDefined, query)
    assert(out == Vector("{0}{1}{4}", "{0}{1,2}{4}", "{0}{1,2,3}{4}", "{0}{1,3}{4}", "{0}{2}{4}", "{0}{2,3}{4}",
      "{0}{3}{4}").map("0..4:" + _).sorted)
  }

  /** Kleene iteration with aggregates, the iterated atom anywhere in the sequence, each kind of condition on it. */
  private val iterations = Seq(
    "A AS a ; (B AS b)+ ; C AS c FILTER sum(b.x) > a.x AND c.x > a.x",
    "A AS a ; (B AS b)+ FILTER count(b) = 2 AND max(b.x) < a.y + 2",
    "(B AS b)+ ; C AS c FILTER avg(b.x) >= c.y",
    "A AS a ; (B AS b)+ ; C AS c FILTER b.x > a.x AND min(b.y) <= c.y",
    "A AS a ; (B AS b)+ ; C AS c FILTER b.x >= prev(b.x) AND a.y < c.y",
    "A AS a ; (B AS b)+ ; C AS c FILTER b.x < sum(b.y) + a.x",
    "A AS a ; (B AS b FILTER b[x > 0])+ ; D AS d ; C AS c FILTER count(b) <= 2 AND first(b.y) > last(b.y) - 2",
    "(B AS b)+ FILTER sum(b.x) = 4"
  )

  test("Kleene iteration with aggregates in the chain against the eager run: every subset, each kind of condition") {
    val random = new Random(23)
    var compared = 0
    for (round <- 0 until 80; body <- iterations) {
      val selection = if (round % 4 == 0) "b" else "*"
      val window = if (random.nextBoolean()) s"WITHIN ${4 + random.nextInt(6)} EVENTS ORDER BY ts"
      else s"WITHIN ${4 + random.nextInt(6)} [ts]"
      val query = s"SELECT $selection FROM S WHERE $body $window"
      val data = rows(3000 + round, 40, Seq("A", "B", "B", "C", "D"))
      val (chain, compiled) = run(query, data, Lazy)
      assert(compiled.pattern.chain.isDefined, query)
      val (eager, other) = run(query, data, Eager)
      assert(other.pattern.chain.isEmpty && other.pattern.registers.isDefined, query)
      assert(chain == eager, s"$query\non ${data.map(_.mkString(",")).mkString(" | ")}")
      assert(run(query, data, ByCost)._1 == eager, s"by cost: $query")
      compared += chain.size
    }
    assert(compared > 3000, s"only $compared matches compared")
  }

  test("EXPLAIN names the iterated atom; shapes the chain does not take run on registers") {
    def plan(body: String) =
      LocalEngine.compile(s"SELECT * FROM S WHERE $body WITHIN 5 EVENTS ORDER BY ts", columns).pattern
    val explained = plan("A AS a ; (B AS b)+ ; C AS c FILTER sum(b.x) > a.x AND c.x > a.x").describe
    info(explained)
    assert(
      explained.contains("lazy chain over a ; b+ ; c") && explained.contains("every subset of b's events"), explained)
    for (body <- Seq(
        "A AS a ; (B AS b ; D AS d)+ ; C AS c FILTER sum(b.x) > a.x", // the iteration of a compound
        "A AS a ; ((B AS b)+)+ ; C AS c FILTER sum(b.x) > a.x", // nested
        "A AS a ; (B AS b)+ ; (D AS d)+ ; C AS c FILTER sum(b.x) > a.x", // two iterations
        "A AS b ; (B AS b)+ ; C AS c FILTER sum(b.x) > c.x", // b bound inside and outside
        "A AS a ; (B AS b)+ ; C AS b FILTER sum(b.x) > a.x", // b bound inside and after
        "A AS a ; (B AS b)+ : C AS c FILTER sum(b.x) > a.x", // contiguous
        "A AS a ; (B AS b):+ ; C AS c FILTER sum(b.x) > a.x", // contiguous iteration
        "(A AS a ; (B AS b)+) OR (C AS a ; B AS b) FILTER sum(b.x) > a.x", // an OR
        "(A AS a AND (B AS b)+) ; C AS c FILTER sum(b.x) > a.x"
      )) // under AND
      assert(plan(body).chain.isEmpty, body)
    // A strategy that chooses; b unselected (each subset would give the same row).
    for (select <- Seq("SELECT NEXT *", "SELECT a, c"))
      assert(
        LocalEngine.compile(s"$select FROM S WHERE A AS a ; (B AS b)+ ; C AS c FILTER sum(b.x) > a.x " +
            "WITHIN 5 EVENTS ORDER BY ts", columns).pattern.chain.isEmpty,
        select
      )
  }

  test("a subset as long as the window's events is searched without a stack of its own depth") {
    // 100,000 B between an A and a C: the first subset the search grows takes every B, one level per event. A search
    // recursing per level overflowed the thread's stack there, before the bound on subsets could stop it.
    val data =
      ((("A" +: Seq.fill(100000)("B")) :+ "C").zipWithIndex.map { case (t, i) => Array[Any](t, L(1), L(1), L(i)) })
    val query = "SELECT * FROM S WHERE A AS a ; (B AS b)+ ; C AS c FILTER max(b.x) < 0 WITHIN 200000 EVENTS ORDER BY ts"
    val q = LocalEngine.compile(query, columns, Lazy, MatchBound(200000, "spark.cer.maxMatchesPerEvent"))
    val e = intercept[TooManyMatchesException](q.run(data.iterator).toVector)
    assert(e.getMessage.contains("has the lazy chain visit more than 200000 subsets of the events of b+"), e.getMessage)
  }

  test("the subsets one event may have the chain visit are bounded, in the words of the bound on matches") {
    // Blocks of A, 14 B and C, a maximum no subset reaches: 2^14 subsets to visit in vain at each C, none a match.
    val block = ("A" +: Seq.fill(14)("B")) :+ "C"
    val data = Seq.fill(5)(block).flatten.zipWithIndex.map { case (t, i) => Array[Any](t, L(1), L(1), L(i)) }
    val query =
      "SELECT * FROM S WHERE A AS a ; (B AS b)+ ; C AS c FILTER max(b.x) < 0 AND a.x = c.x WITHIN 16 EVENTS " +
        "ORDER BY ts"
    val bound = MatchBound(10000, "spark.cer.maxMatchesPerEvent")
    val q = LocalEngine.compile(query, columns, Lazy, bound)
    val e = intercept[TooManyMatchesException](q.run(data.iterator).toVector)
    info(e.getMessage)
    assert(
      e.getMessage.contains("at ts = 15 has the lazy chain visit more than 10000 subsets of the events of b+, the " +
        "bound spark.cer.maxMatchesPerEvent"))
    assert(q.metrics.work.bufferVisits <= 10000 + 100)
    // By cost, the registers keep one run (every maximum is 1): the chain, leading as the race begins, passes its
    // bound at the first C before reporting anything, and hands over to them; the query goes on.
    val byCost = LocalEngine.compile(query, columns, ByCost, bound)
    assert(byCost.run(data.iterator).isEmpty)
    assert(byCost.metrics.chainDecisions.won(ChainPath.Registers.index) > 0, byCost.metrics.chainDecisions.describe)
    // count(b) <= 2 fails on every larger subset, which grows from one of 2: per C, the 14 B read as candidates, the
    // 14 + 91 subsets of at most 2 visited, all of them matches, and the one A.
    val few = LocalEngine.compile(query.replace("max(b.x) < 0", "count(b) <= 2"), columns, Lazy, bound)
    assert(
      few.pattern.describe.contains("every subset of b's events between its neighbours' enumerated up to 2 events"))
    assert(few.run(data.iterator).length == 5 * 105)
    assert(few.metrics.work.bufferVisits == 5 * (14 + 105 + 1), few.metrics.work.describe)
  }
}
