package io.sparkcer.engine.pcea

import scala.collection.mutable
import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

/**
 * The treap of latest runs ([[RunNodes.latest]]) against a map from each group to its latest run, on random groups,
 * max-starts and a sliding window: the tree's live nodes are exactly the latest run of each group still in the
 * window; it is a heap by max-start (so the enumeration stops at dead nodes) and a search tree by group; its depth
 * stays logarithmic in its nodes; and a tree read earlier still stands for what it did (the structure is persistent).
 */
class LatestTreapSuite extends AnyFunSuite {

  /** The live nodes under `tree`, walked as the enumeration walks a union tree: through live nodes only. */
  private def liveNodes(nodes: RunNodes, tree: Long, threshold: Long): Seq[Long] =
    if (!nodes.live(tree, threshold)) Nil
    else tree +: (liveNodes(nodes, nodes.left(tree), threshold) ++ liveNodes(nodes, nodes.right(tree), threshold))

  /** The depth of the live part of `tree`. */
  private def depth(nodes: RunNodes, tree: Long, threshold: Long): Int =
    if (!nodes.live(tree, threshold)) 0
    else 1 + math.max(depth(nodes, nodes.left(tree), threshold), depth(nodes, nodes.right(tree), threshold))

  /** Checks the heap order by (max-start, position) and the search order by the group's spread id. */
  private def ordered(nodes: RunNodes, tree: Long, threshold: Long, low: Option[Long], high: Option[Long]): Boolean =
    !nodes.live(tree, threshold) || {
      val key = RunNodes.order(nodes.group(tree))
      def below(child: Long) = !nodes.live(child, threshold) || nodes.maxStart(child) < nodes.maxStart(tree) ||
        (nodes.maxStart(child) == nodes.maxStart(tree) && nodes.position(child) < nodes.position(tree))
      low.forall(_ < key) && high.forall(key < _) && below(nodes.left(tree)) && below(nodes.right(tree)) &&
      ordered(nodes, nodes.left(tree), threshold, low, Some(key)) &&
      ordered(nodes, nodes.right(tree), threshold, Some(key), high)
    }

  /**
   * Runs `events` runs through one treap, each of a group `group(random, time)` with a max-start up to `spread` before
   * its time (never below its group's latest); checks it against the map every `every` events, and returns its depth.
   */
  private def scenario(seed: Long, window: Int, events: Int, group: (Random, Long) => Int, spread: Int,
      every: Int = 1): Int = {
    val random = new Random(seed)
    val nodes = new RunNodes(width = 0, grouped = true)
    // Per group: its id (its first node, while it has a run in the window) and its latest run's max-start and node.
    val id = mutable.Map.empty[Int, Long]
    val latest = mutable.Map.empty[Int, (Long, Long)]
    var tree = RunNodes.Nil
    var deepest = 0
    var snapshot: Option[(Long, Long, Set[Long])] = None // a tree, its threshold, its live nodes then
    for (time <- 0L until events.toLong) {
      val threshold = time - window
      nodes.reclaim(math.min(threshold, snapshot.fold(threshold)(_._2)))
      val g = group(random, time)
      // A group's later run reads what its earlier one read: its max-start is no less.
      val start =
        math.max(latest.get(g).filter(_._1 > threshold).fold(Long.MinValue)(_._1), time - random.nextInt(spread))
      val fresh = nodes.extend(0, time, start, Array.emptyLongArray, 0)
      if (!latest.get(g).exists(_._1 > threshold)) id(g) = fresh
      tree = nodes.latest(if (nodes.live(tree, threshold)) tree else RunNodes.Nil, fresh, id(g), threshold)
      latest(g) = (start, time)
      if (time % every == 0) {
        val expected = latest.collect { case (_, (s, position)) if s > threshold => position }.toSet
        val found = liveNodes(nodes, tree, threshold)
        assert(found.map(nodes.position).toSet == expected && found.length == expected.size, s"seed $seed at $time")
        assert(ordered(nodes, tree, threshold, None, None), s"seed $seed at $time: out of order")
        deepest = math.max(deepest, depth(nodes, tree, threshold))
        snapshot match {
          case Some((old, at, live)) =>
            assert(liveNodes(nodes, old, at).toSet == live, s"seed $seed at $time: an earlier tree changed")
            if (time % 97 == 0) snapshot = None
          case None => snapshot = Some((tree, threshold, found.toSet))
        }
      }
    }
    deepest
  }

  test("the live nodes are each group's latest run in the window, in heap and search order, persistent") {
    for (seed <- 0L until 20L) {
      val groups = 1 + seed.toInt % 7 * 5
      val window = 5 + seed.toInt * 7
      scenario(seed, window, events = 1500, group = (r, _) => r.nextInt(groups), spread = window)
    }
  }

  test("the depth stays logarithmic as new groups keep coming, each later than the one before") {
    // A group every 10 events, its runs' max-starts near their time: ids and max-starts grow together, so a search
    // tree ordered by the ids themselves would be a spine as long as the groups in the window (10,000). Spread, the
    // ids fall at random, and the expected path is about 2 ln(10,000) = 18.
    val deepest = scenario(seed = 7, window = 100000, events = 100000, group = (_, time) => (time / 10).toInt,
      spread = 5, every = 5000)
    info(s"deepest: $deepest")
    assert(deepest <= 60, s"the treap's depth reached $deepest with 10,000 groups in the window")
  }
}
