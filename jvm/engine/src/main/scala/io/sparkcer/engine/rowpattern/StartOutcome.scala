package io.sparkcer.engine.rowpattern

import java.io.{DataInput, DataOutput}

import scala.collection.mutable

/**
 * The outcome of one start of the [[Matcher]]'s search: its best match so far (ending before position `end`, its
 * labels `history`), and whether its threads are cut or alive in the matcher's current pass.
 */
private[rowpattern] final class StartOutcome[S] {
  var matched = false
  var end = 0L
  var history: LabelNode[S] = _
  var cut = 0L
  var alive = 0L
  /** The matches recorded, each better one replacing the last: whether a leader found one after a point. */
  var updates = 0
  /** For a follower: its leader, the position it follows from, its labels before it, the leader's `updates` then. */
  var leader: StartOutcome[S] = _
  var from = 0L
  var prefix: LabelNode[S] = _
  var leaderUpdates = 0

  /** Whether a follower's match is its leader's from `from` on: the leader found one after that point. */
  def borrowed: Boolean = leader != null && leader.updates > leaderUpdates

  /**
   * Writes the labels and exclusions of the match of `length` rows from `start` into the first `length` of `labels`
   * and `excluded`: a follower's are its leader's from `from` on, then its own.
   */
  def labelsInto(start: Long, length: Int, labels: Array[Int], excluded: Array[Boolean]): Unit = {
    var h = history
    var i = length - 1
    if (borrowed) {
      h = leader.history
      while (start + i >= from) { labels(i) = h.label; excluded(i) = h.excluded; h = h.previous; i -= 1 }
      h = prefix
    }
    while (i >= 0) { labels(i) = h.label; excluded(i) = h.excluded; h = h.previous; i -= 1 }
  }
}

private[rowpattern] object StartOutcome {
  /**
   * Writes the undecided starts' outcomes, the decided leaders some of them still follow, and the threads, their
   * label histories each node once ([[LabelHistories]]).
   */
  def save[S](undecided: Seq[StartOutcome[S]], threads: Threads[S], histories: LabelHistories[S], out: DataOutput)
      : Unit = {
    val numbers = new java.util.IdentityHashMap[StartOutcome[S], Integer]
    val saved = mutable.ArrayBuffer.empty[StartOutcome[S]]
    def number(o: StartOutcome[S]): Unit = if (!numbers.containsKey(o)) { numbers.put(o, saved.length); saved += o }
    undecided.foreach(number)
    undecided.foreach(o => if (o.leader != null) number(o.leader))
    val nodes = histories.write((saved.map(_.history) ++ saved.map(_.prefix)).toSeq ++
        (0 until threads.size).map(threads.histories), out)
    out.writeInt(undecided.length)
    out.writeInt(saved.length)
    for ((o, k) <- saved.zipWithIndex) {
      out.writeBoolean(o.matched); out.writeLong(o.end); out.writeInt(nodes(k)); out.writeInt(o.updates)
      out.writeInt(if (o.leader == null) -1 else numbers.get(o.leader)); out.writeInt(o.leaderUpdates)
      out.writeLong(o.from); out.writeInt(nodes(saved.length + k))
    }
    out.writeInt(threads.size)
    for (k <- 0 until threads.size) {
      out.writeInt(threads.pcs(k)); out.writeLong(threads.starts(k)); out.writeInt(nodes(2 * saved.length + k))
    }
  }

  /** Reads what [[save]] wrote: adds the threads to `threads`, and returns the undecided starts' outcomes. */
  def load[S](in: DataInput, histories: LabelHistories[S], threads: Threads[S]): Seq[StartOutcome[S]] = {
    val nodes = histories.read(in)
    def node(k: Int): LabelNode[S] = if (k < 0) null else nodes(k)
    val undecided = in.readInt()
    val saved = Array.fill(in.readInt())(new StartOutcome[S])
    for (o <- saved) {
      o.matched = in.readBoolean(); o.end = in.readLong(); o.history = node(in.readInt()); o.updates = in.readInt()
      val leader = in.readInt()
      if (leader >= 0) o.leader = saved(leader)
      o.leaderUpdates = in.readInt(); o.from = in.readLong(); o.prefix = node(in.readInt())
    }
    for (_ <- 0 until in.readInt()) threads.add(in.readInt(), in.readLong(), node(in.readInt()))
    saved.take(undecided).toSeq
  }
}
