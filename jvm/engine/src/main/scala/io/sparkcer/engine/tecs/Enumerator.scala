package io.sparkcer.engine.tecs

import io.sparkcer.engine.eval.{MatchSink, Work}

/**
 * CORE's enumeration (Algorithm 2): a depth-first walk of the tECS from one node that visits a right child only
 * if its maximum start is inside the window. Since the structure is time-ordered and 3-bounded, every step
 * either emits part of the current complex event or is one of at most three unions before it: the delay between
 * two outputs is linear in the size of the output. The walk keeps its own stacks and touches no shared state,
 * so it never changes the tECS; one instance serves every partition of a task. Each node it visits is a step of
 * [[Work.enumerationSteps]].
 */
final class Enumerator(work: Work) {
  private var pending = new Array[Int](64) // right children still to visit
  private var pendingDepth = new Array[Int](64) // length of the path when each was pushed
  private var positions = new Array[Long](64)
  private var labels = new Array[Int](64)

  /** Whether the sink asked the last enumeration to stop early. */
  var stopped = false

  /** Enumerates the complex events of `root` whose start key is above `threshold`; returns how many were accepted. */
  def enumerate(tecs: Tecs, root: Int, threshold: Long, sink: MatchSink): Int = {
    stopped = false
    if (tecs.maxStart(root) <= threshold) return 0
    var top = 0
    var count = 0
    var node = root
    var depth = 0
    var running = true
    while (running) {
      work.enumerationSteps += 1
      if (tecs.isBottom(node)) {
        count += 1
        if (!sink.accept(tecs.position(node), depth, positions, labels)) { stopped = true; running = false }
        else if (top == 0) running = false
        else {
          top -= 1
          node = pending(top)
          depth = pendingDepth(top)
        }
      } else if (tecs.isOutput(node)) {
        if (depth == positions.length) {
          positions = java.util.Arrays.copyOf(positions, depth * 2)
          labels = java.util.Arrays.copyOf(labels, depth * 2)
        }
        positions(depth) = tecs.position(node)
        labels(depth) = tecs.label(node)
        depth += 1
        node = tecs.left(node)
      } else {
        if (tecs.rightMaxStart(node) > threshold) {
          if (top == pending.length) {
            pending = java.util.Arrays.copyOf(pending, top * 2)
            pendingDepth = java.util.Arrays.copyOf(pendingDepth, top * 2)
          }
          pending(top) = tecs.right(node)
          pendingDepth(top) = depth
          top += 1
        }
        node = tecs.left(node)
      }
    }
    count
  }
}
