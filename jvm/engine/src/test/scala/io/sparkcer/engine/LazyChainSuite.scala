package io.sparkcer.engine

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

/**
 * The lazy chain ([[io.sparkcer.engine.chain.ChainRun]]) against the eager evaluation with registers on the automaton
 * ([[io.sparkcer.engine.rma.RegisterRun]]): the lazy chain NFA paper's Theorem 1 as a differential test (digest
 * LAZY-T9: eager and chain give the same matches on random streams), and what the chain keeps.
 */
class LazyChainSuite extends AnyFunSuite {
  private val columns = IndexedSeq("event_type", "x", "y", "ts")
  private def L(v: Long): java.lang.Long = java.lang.Long.valueOf(v)

  private def rows(seed: Long, n: Int, types: Seq[String]): IndexedSeq[Array[Any]] = {
    val random = new Random(seed)
    (0 until n).map(i => Array[Any](types(random.nextInt(types.size)), L(random.nextInt(5)), L(random.nextInt(5)), L(i)))
  }

  /** Equalities alone would run on a PCEA: here they are conditions as any, to compare the chain with the eager run. */
  private def run(query: String, data: IndexedSeq[Array[Any]], lazyChains: Boolean): (Vector[String], LocalQuery) = {
    val q = LocalEngine.compile(query, columns, EngineOptions(lazyChains = lazyChains, equalityPcea = false))
    val out = q.run(data.iterator.map(_.clone())).map { m =>
      s"${m.end.seq}:" + m.bindings.map(_.map(_.seq).mkString("{", ",", "}")).mkString
    }.toVector
    (out.sorted, q)
  }

  private val conditions = Seq("a.x < b.x", "b.y = c.y", "a.x + c.y > b.x", "a.y <> c.y OR a.x = b.y", "NOT (a.x > c.x)",
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
      val window = if (random.nextBoolean()) s"WITHIN ${2 + random.nextInt(6)} EVENTS ORDER BY ts" else s"WITHIN ${2 + random.nextInt(6)} [ts]"
      val query = s"SELECT * FROM S WHERE ${atoms.mkString(s" $op ")} FILTER ${chosen.mkString(" AND ")} $window"
      val data = rows(round, 12 + random.nextInt(12), Seq("A", "B", "C", "D"))
      val (chain, compiled) = run(query, data, lazyChains = true)
      // A FILTER's OR makes the pattern an OR of two chains: that one runs eagerly.
      assert(compiled.pattern.chain.isDefined != chosen.exists(_.contains(" OR ")), query)
      val (eager, other) = run(query, data, lazyChains = false)
      assert(other.pattern.chain.isEmpty && other.pattern.registers.isDefined, query)
      assert(chain == eager, s"$query\non ${data.map(_.mkString(",")).mkString(" | ")}")
      compared += chain.size
    }
    assert(compared > 300, s"only $compared matches compared")
  }

  test("LAZY-T2 in the chain: 100 A then 100 B and no C keep 200 buffered events and build nothing") {
    val data = (0 until 200).map(i => Array[Any](if (i < 100) "A" else "B", L(1), L(1), L(i)))
    val (out, q) = run("SELECT * FROM S WHERE A AS a ; B AS b ; C AS c FILTER a.x = b.y AND b.x < c.x WITHIN 1000 [ts]",
      data, lazyChains = true)
    assert(out.isEmpty)
    assert(q.metrics.peakActiveStates == 200 && q.metrics.peakLiveNodes == 0)
  }

  test("EXPLAIN names the chain; it is not used where it would not be exact") {
    def plan(query: String) = LocalEngine.compile(query, columns).pattern
    assert(plan("SELECT * FROM S WHERE A AS a ; B AS b FILTER a.x < b.x WITHIN 5 EVENTS ORDER BY ts").describe
      .contains("lazy chain over a ; b"))
    // No window, an iteration, a strategy that chooses, a LIMIT, or no condition: not a chain.
    assert(plan("SELECT * FROM S WHERE A AS a ; B AS b FILTER a.x < b.x ORDER BY ts").chain.isEmpty)
    assert(plan("SELECT * FROM S WHERE A AS a ; (B AS b)+ FILTER a.x < max(b.x) WITHIN 5 EVENTS ORDER BY ts").chain.isEmpty)
    assert(plan("SELECT ANY * FROM S WHERE A AS a ; B AS b FILTER a.x < b.x WITHIN 5 EVENTS ORDER BY ts").chain.isEmpty)
    assert(plan("SELECT * FROM S WHERE A AS a ; B AS b FILTER a.x < b.x WITHIN 5 EVENTS ORDER BY ts LIMIT 1").chain.isEmpty)
    assert(plan("SELECT * FROM S WHERE A AS a ; B AS b FILTER a.x < 3 WITHIN 5 EVENTS ORDER BY ts").chain.isEmpty)
    assert(plan("SELECT * FROM S WHERE A AS a : B AS b FILTER a.x < b.x WITHIN 5 EVENTS ORDER BY ts").chain.isEmpty)
  }

  test("the chain's buffers keep only the events inside the window") {
    val data = (0 until 20000).map(i => Array[Any](if (i % 3 == 2) "B" else "A", L(i % 7), L(i % 5), L(i)))
    val (out, q) = run("SELECT * FROM S WHERE A AS a ; B AS b FILTER a.x < b.x WITHIN 30 [ts]", data, lazyChains = true)
    assert(out.nonEmpty)
    assert(q.metrics.peakActiveStates <= 32, s"peak buffered ${q.metrics.peakActiveStates}")
    assert(q.metrics.peakBufferedEvents <= 32)
  }
}
