package io.sparkcer.engine.pcea

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

/**
 * The index H of one join ([[KeyIndex]]) against a map, on random keys of every kind it stores (Longs, 0 and 1
 * among them, which have slots and marks of their own; strings; lists; the join without equality), few enough to
 * collide and to make runs of slots that wrap past the table's end, with a sliding window: a lookup finds exactly
 * the keys with a run in the window, under the union of their runs, and purging keeps those and no others.
 */
class KeyIndexSuite extends AnyFunSuite {
  private val keys: IndexedSeq[AnyRef] =
    (Seq(0L, 1L, -1L, 2L, 17L, 33L, Long.MinValue, Long.MaxValue) ++ (100L until 160L)).map(k =>
      Long.box(k): AnyRef).toIndexedSeq ++
      Seq[AnyRef]("a", "b", "1", java.util.Arrays.asList[AnyRef](Long.box(1L), "x"),
        java.util.Arrays.asList[AnyRef](Long.box(1L)), PceaPlan.NoKey, Double.box(2.5))

  private def scenario(seed: Long): Unit = {
    val random = new Random(seed)
    val nodes = new RunNodes(0)
    val index = new KeyIndex
    val newest = scala.collection.mutable.Map.empty[AnyRef, Long] // key -> the latest start added under it
    var threshold = -1L
    for (time <- 0L until 3000L) {
      if (random.nextInt(4) == 0) threshold = time - 1 - random.nextInt(40) max threshold
      val key = keys(random.nextInt(if (random.nextBoolean()) 12 else keys.length))
      val fresh = nodes.extend(0, time, time, Array.emptyLongArray, 0)
      index.add(key, fresh, nodes, threshold)
      newest(key) = time
      if (random.nextInt(50) == 0) index.purge(threshold)
      for (k <- keys) {
        val expected = newest.get(k).filter(_ > threshold)
        val found = index.live(k, threshold)
        assert(expected.isEmpty == (found == RunNodes.Nil), s"seed $seed at $time: $k")
        // The tree's root is the latest run: it outranks every other by its max-start.
        expected.foreach(start =>
          assert(nodes.maxStart(found) == start && nodes.position(found) == start, s"seed $seed: $k"))
      }
      val liveKeys = newest.count(_._2 > threshold)
      assert(index.size <= 2 * keys.length + 16, s"seed $seed: ${index.size} entries")
      assert(index.size >= liveKeys)
    }
    index.purge(threshold)
    assert(index.size == newest.count(_._2 > threshold))
    var trees = 0
    index.foreachTree(t => { assert(nodes.live(t, threshold)); trees += 1 })
    assert(trees == index.size)
  }

  test("lookups, unions and purges agree with a map, over 200 random streams") {
    (1L to 200L).foreach(scenario)
  }

  test("a purge drops entries out of the window and shrinks the table; the Long 0 has its own slot") {
    val nodes = new RunNodes(0)
    val index = new KeyIndex
    for (k <- 0L until 5000L) index.add(Long.box(k), nodes.extend(0, k, k, Array.emptyLongArray, 0), nodes, -1L)
    assert(index.size == 5000)
    index.purge(4989L) // keys 4990..4999 stay
    assert(index.size == 10)
    assert((0L until 4990L).forall(k => index.get(Long.box(k)) == RunNodes.Nil))
    assert((4990L until 5000L).forall(k => nodes.position(index.live(Long.box(k), 4989L)) == k))
    index.add(Long.box(0L), nodes.extend(0, 6000L, 6000L, Array.emptyLongArray, 0), nodes, 4989L)
    assert(nodes.position(index.get(Long.box(0L))) == 6000L && index.size == 11)
  }
}
