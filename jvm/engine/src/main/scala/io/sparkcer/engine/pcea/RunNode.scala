package io.sparkcer.engine.pcea

/**
 * A node of the paper's data structure DS_w (§5): it stands for a set of run trees, in two parts.
 *
 * - **Its product.** The event at `position`, with `labels`, as the root above one run of each node in `product`.
 * - **Its union.** The sets of `left` and `right`, other nodes, kept as a heap by `maxStart`.
 *
 * Nodes are never changed once made (union copies the path it changes), with one exception: a union child whose
 * `maxStart` is under the window's threshold is cut. That is safe because thresholds only grow, so no later
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
    val labels: IndexedSeq[Int],
    val position: Long,
    val product: Array[RunNode],
    val maxStart: Long,
    private var leftChild: RunNode,
    private var rightChild: RunNode,
    private val leftNext: Boolean) {

  def left: RunNode = leftChild
  def right: RunNode = rightChild

  /** Whether some run of this node's product starts at or after `threshold`. */
  def live(threshold: Long): Boolean = maxStart >= threshold

  /** The heap's order: by max-start, then by position. */
  private def outranks(other: RunNode): Boolean =
    maxStart > other.maxStart || (maxStart == other.maxStart && position > other.position)

  private def withUnion(left: RunNode, right: RunNode, leftNext: Boolean): RunNode =
    new RunNode(labels, position, product, maxStart, left, right, leftNext)

  /** Cuts the union children that are out of the window (see the class comment). */
  private[pcea] def cutExpired(threshold: Long): Unit = {
    if (leftChild != null && !leftChild.live(threshold)) leftChild = null
    if (rightChild != null && !rightChild.live(threshold)) rightChild = null
  }
}

object RunNode {
  /**
   * `extend(L, i, N)`: the event at `position` (window value `start`) with `labels`, above one run of each node of
   * `children`, all earlier and in the window.
   */
  def extend(labels: IndexedSeq[Int], position: Long, start: Long, children: Array[RunNode]): RunNode = {
    var maxStart = start
    var k = 0
    while (k < children.length) { maxStart = math.min(maxStart, children(k).maxStart); k += 1 }
    new RunNode(labels, position, children, maxStart, null, null, leftNext = true)
  }

  /**
   * `union(tree, fresh)`: a node for the runs of both, in the window that starts at `threshold`. It is fully
   * persistent: `tree` still stands for what it did. `fresh` was just made by [[extend]] and has no union children.
   * If `tree` is out of the window, the union is `fresh`. Otherwise the greater of the two roots, by max-start, stays
   * the root, and `fresh` goes down one side, the sides alternating. Union cuts expired children on the path it
   * copies.
   */
  def union(tree: RunNode, fresh: RunNode, threshold: Long): RunNode =
    if (tree == null || !tree.live(threshold)) fresh
    else if (fresh.outranks(tree)) fresh.withUnion(tree, null, leftNext = false)
    else {
      tree.cutExpired(threshold)
      if (tree.leftNext) tree.withUnion(union(tree.left, fresh, threshold), tree.right, leftNext = false)
      else tree.withUnion(tree.left, union(tree.right, fresh, threshold), leftNext = true)
    }
}
