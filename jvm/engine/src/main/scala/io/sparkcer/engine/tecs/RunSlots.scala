package io.sparkcer.engine.tecs

import io.sparkcer.engine.eval.MatchSink

/**
 * CORE's ordered hash table T, without its hashing: the runs after one event, in the order they were first reached,
 * each with its deterministic state and the union-list of the partial matches that reached it. Subclasses find a
 * run's slot by their own key (a state; a state and its registers).
 */
abstract class RunSlots {
  var states = new Array[Int](8)
  var lists: Array[UnionList] = Array.fill(8)(new UnionList)
  var count = 0

  /** Called with the new capacity when the slots grow, for a subclass's own per-slot arrays. */
  protected def grown(capacity: Int): Unit = ()

  /** A new slot for `state`, with an empty union-list, at the end of the order; returns its index. */
  protected final def addSlot(state: Int): Int = {
    if (count == states.length) {
      states = java.util.Arrays.copyOf(states, count * 2)
      lists = java.util.Arrays.copyOf(lists, count * 2)
      for (j <- count until lists.length) lists(j) = new UnionList
      grown(count * 2)
    }
    states(count) = state
    lists(count).clear()
    count += 1
    count - 1
  }

  /**
   * Add (lines 22-27 of CORE's Algorithm 1) of the partial matches of slot `i` (with `i` -1, of the run that begins at
   * this event, the bottom node `bottom`), moved without being extended, into `target`, a list of the next event's
   * slots: a list reached for the first time at this event takes the slot's entries, as the paper hands the list itself
   * on, so that its first node is never a union; a list reached before takes the slot's merged node, made only then.
   * A state whose every move leaves its matches as they are (most, in a sequence waiting for its next event) so builds
   * no union node at all. Where a move of the slot extends its matches, merge the slot ([[merged]]) before handing its
   * entries on: the list that takes them then takes the merge too, and is not merged again while it stays the same.
   */
  final def addTo(target: UnionList, i: Int, bottom: Int, maxStart: Long, tecs: Tecs, threshold: Long): Unit =
    if (i >= 0 && target.isEmpty) target.takeEntries(lists(i), threshold)
    else target.insert(tecs, node(i, bottom, tecs, threshold), maxStart, threshold)

  /** The node that stands for the partial matches of slot `i`, or `bottom` when `i` is -1 (see [[addTo]]). */
  final def node(i: Int, bottom: Int, tecs: Tecs, threshold: Long): Int =
    if (i < 0) bottom else merged(i, tecs, threshold)

  /** The list of slot i as one node, made once until the list changes (marking moves and output both need it). */
  final def merged(i: Int, tecs: Tecs, threshold: Long): Int = lists(i).merge(tecs, threshold)

  /**
   * Output (lines 29-33 of CORE's Algorithm 1): enumerates the complex events of every run in a final state, until
   * the sink wants no more; returns how many it accepted.
   */
  final def enumerateFinal(isFinal: Int => Boolean, tecs: Tecs, enumerator: Enumerator, threshold: Long,
      sink: MatchSink): Int = {
    var total = 0
    var i = 0
    var open = true
    while (open && i < count) {
      if (isFinal(states(i))) {
        val root = merged(i, tecs, threshold)
        if (root >= 0) {
          total += enumerator.enumerate(tecs, root, threshold, sink)
          open = !enumerator.stopped
        }
      }
      i += 1
    }
    total
  }

  /** Drops the partial matches that started at or below `threshold`. */
  final def expire(threshold: Long): Unit = for (i <- 0 until count) lists(i).expire(threshold)
}
