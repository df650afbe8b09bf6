package io.sparkcer.engine

import org.scalatest.funsuite.AnyFunSuite

/**
 * A partitioned query means the same whether the partitions' events arrive interleaved (a live stream, where
 * idle partitions are evicted) or one partition after another (Spark sorts by the keys): for every strategy.
 */
class PartitionArrivalSuite extends AnyFunSuite {
  private val columns = IndexedSeq("event_type", "k", "ts")

  private val types = IndexedSeq("A", "B", "C")

  private val interleaved: IndexedSeq[Array[Any]] = {
    val random = new java.util.Random(11)
    var ts = 0L
    IndexedSeq.tabulate(30000) { _ =>
      ts += random.nextInt(3)
      Array[Any](types(random.nextInt(3)), Long.box(random.nextInt(40).toLong), Long.box(ts))
    }
  }

  private def run(query: String, rows: IndexedSeq[Array[Any]]): Set[(Long, Long, Seq[Seq[Long]])] = {
    val q = LocalEngine.compile(query, columns)
    q.run(rows.iterator).map { m =>
      val seq = (e: Event) => rows(e.seq.toInt)(2).asInstanceOf[Long] * 100000 + rows(e.seq.toInt)(1).asInstanceOf[Long]
      (seq(m.start), seq(m.end), m.bindings.map(_.map(seq)))
    }.toSet
  }

  for (strategy <- Seq("ALL", "MAX", "NEXT", "LAST", "STRICT")) {
    test(s"$strategy: interleaved and grouped arrival give the same matches") {
      val query = s"SELECT $strategy * FROM S WHERE A AS a ; B+ AS b ; C AS c PARTITION BY k WITHIN 12 [ts]"
      val grouped = interleaved.sortBy(r => (r(1).asInstanceOf[Long], r(2).asInstanceOf[Long]))
      val expected = run(query, grouped)
      assert(run(query, interleaved) == expected)
      if (strategy != "NEXT") assert(expected.nonEmpty, "the workload should produce matches")
    }
  }
}
