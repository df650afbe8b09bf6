package io.sparkcer.engine.pcea

import scala.collection.mutable

/**
 * A node of the paper's data structure DS_w (§5): it stands for a set of run trees, in two parts.
 *
 * - **Its product.** The event at `position`, read by `transition` (which gives its labels), as the root above one
 *   run of each node in `product`.
 * - **Its union.** The sets of `left` and `right`, other nodes, kept as a heap by `maxStart`.
 *
 * Nodes are never changed once made (union copies the path it changes), with one exception: a union child whose
 * `maxStart` is at or under the window's threshold is cut. That is safe because thresholds only grow, so no later
 * enumeration could reach anything under it.
 *
 * @param maxStart max{min start of ν : ν ∈ ⟦n⟧_prod}, in window values (positions in the paper, any non-decreasing
 *                 value here, such as the order column of a time window): the smaller of the event's own and the
 *                 children's `maxStart`. A run of
 *                 this node's product is in the window iff this is; by the heap order, if a node is out of the
 *                 window, so is everything under it
 * @param leftNext the side union inserts into next, alternating to keep the heap balanced
 */
final class RunNode private (
    val transition: Int,
    val position: Long,
    val product: Array[RunNode],
    val maxStart: Long,
    private var leftChild: RunNode,
    private var rightChild: RunNode,
    private[pcea] val leftNext: Boolean) {

  def left: RunNode = leftChild
  def right: RunNode = rightChild

  /** The number of the last sweep that reached this node ([[PceaRun]]'s). */
  private[pcea] var sweep = 0

  /** Whether some run of this node's product starts after `threshold` (the engine's window threshold). */
  def live(threshold: Long): Boolean = maxStart > threshold

  /** The heap's order: by max-start, then by position. */
  private def outranks(other: RunNode): Boolean =
    maxStart > other.maxStart || (maxStart == other.maxStart && position > other.position)

  private def withUnion(left: RunNode, right: RunNode, leftNext: Boolean): RunNode =
    new RunNode(transition, position, product, maxStart, left, right, leftNext)

  /** Cuts the union children that are out of the window (see the class comment). */
  private[pcea] def cutExpired(threshold: Long): Unit = {
    if (leftChild != null && !leftChild.live(threshold)) leftChild = null
    if (rightChild != null && !rightChild.live(threshold)) rightChild = null
  }
}

object RunNode {
  /**
   * `extend(L, i, N)`: the event at `position` (window value `start`) read by `transition` (whose labels are L),
   * above one run of each node of `children`, all earlier and in the window.
   */
  def extend(transition: Int, position: Long, start: Long, children: Array[RunNode]): RunNode = {
    var maxStart = start
    var k = 0
    while (k < children.length) { maxStart = math.min(maxStart, children(k).maxStart); k += 1 }
    new RunNode(transition, position, children, maxStart, null, null, leftNext = true)
  }

  /** A node as [[PceaRun.save]] wrote it, its union children read back already. */
  private[pcea] def restored(transition: Int, position: Long, product: Array[RunNode], maxStart: Long,
      left: RunNode, right: RunNode, leftNext: Boolean): RunNode =
    new RunNode(transition, position, product, maxStart, left, right, leftNext)

  /**
   * `union(tree, fresh)`: a node for the runs of both, in the window that starts after `threshold`. It is fully
   * persistent: `tree` still stands for what it did. `fresh` was just made by [[extend]] and has no union children.
   * If `tree` is out of the window, the union is `fresh`. Otherwise the greater of the two roots, by max-start, stays
   * the root, and `fresh` goes down one side, the sides alternating; the path down is copied, bottom up (a loop, not a
   * recursion: a heap of one window's runs may be deep). Union cuts expired children on the path it copies.
   */
  def union(tree: RunNode, fresh: RunNode, threshold: Long): RunNode = {
    val path = mutable.ArrayBuffer.empty[RunNode]
    var n = tree
    while (n != null && n.live(threshold) && !fresh.outranks(n)) {
      n.cutExpired(threshold)
      path += n
      n = if (n.leftNext) n.left else n.right
    }
    var result = if (n == null || !n.live(threshold)) fresh else fresh.withUnion(n, null, leftNext = false)
    var k = path.length - 1
    while (k >= 0) {
      val p = path(k)
      result = if (p.leftNext) p.withUnion(result, p.right, leftNext = false) else p.withUnion(p.left, result, leftNext = true)
      k -= 1
    }
    result
  }
}
