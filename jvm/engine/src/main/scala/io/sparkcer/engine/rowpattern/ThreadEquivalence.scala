package io.sparkcer.engine.rowpattern

/**
 * The threads the [[Matcher]] has added at one position, to drop those equivalent to one there already. Two threads
 * at the same instruction whose matches look the same to the DEFINE conditions ([[ConditionReads]]) accept the same
 * rows from there on, so only the first (preferred) is kept, as Trino's `ThreadEquivalence` keeps it. That keeps the
 * threads at most a few per instruction when the conditions read only the current row and physical offsets:
 * `(A+)+ B` or `A+ B+` over many rows that all pass A stay linear, where backtracking is exponential.
 *
 * A thread is added as (instruction, key, history): the key is its start, or `-1 - start` for the start being tried,
 * whose threads may stand for later starts' ([[Matcher]], every start at once). Only the labels the conditions read
 * tell two histories apart; `hash` summarises a history by them.
 */
private[rowpattern] sealed abstract class ThreadEquivalence[S](reads: ConditionReads, labels: Int) {
  private val relevant = Array.tabulate(labels)(reads.labels.contains)

  /** Forgets every thread: the next are added at another position. */
  def clear(): Unit
  /** Whether the key (of a thread whose history the conditions do not read) is there. */
  def contains(pc: Int, key: Long): Boolean
  /** Adds the thread; false when an equivalent one is there already. */
  def add(pc: Int, key: Long, history: LabelNode[S]): Boolean

  /** A history's hash with one more label: the labels the conditions do not read count alike. */
  def hash(previous: Long, label: Int): Long = previous * 31 + (if (relevant(label)) label + 1 else 0)

  /** Whether two histories of one length read alike to the conditions (only the labels they read count). */
  protected def sameReads(a: LabelNode[S], b: LabelNode[S]): Boolean = {
    var x = a
    var y = b
    while (x ne y) {
      if (x == null || y == null) return false
      val (lx, ly) = (if (relevant(x.label)) x.label else -1, if (relevant(y.label)) y.label else -1)
      if (lx != ly) return false
      x = x.previous; y = y.previous
    }
    true
  }
}

private[rowpattern] object ThreadEquivalence {
  /** The equivalence of threads of `program` under conditions that read `reads`, over `labels` pattern variables. */
  def apply[S](reads: ConditionReads, program: Program, labels: Int): ThreadEquivalence[S] =
    if (reads.labels.isEmpty) new ByInstruction(reads, program.size, labels) else new ByLabelsRead(reads, labels)

  /**
   * Where the conditions read no labels: per instruction, the last key that added it at the current position, and
   * the last tried start's (negative) key apart, so that later starts do not overwrite it. Exact because one key's
   * threads are added together: threads run oldest start first, each start's together, and a new start comes last.
   * Cleared in O(1) by a new epoch.
   */
  private final class ByInstruction[S](reads: ConditionReads, instructions: Int, labels: Int)
      extends ThreadEquivalence[S](reads, labels) {
    private val epochs = new Array[Int](instructions)
    private val keys = new Array[Long](instructions)
    private val triedEpochs = new Array[Int](instructions)
    private val triedKeys = new Array[Long](instructions)
    private var epoch = 1

    def clear(): Unit = epoch += 1

    def contains(pc: Int, key: Long): Boolean =
      if (key < 0) triedEpochs(pc) == epoch && triedKeys(pc) == key else epochs(pc) == epoch && keys(pc) == key

    def add(pc: Int, key: Long, history: LabelNode[S]): Boolean =
      if (contains(pc, key)) false
      else {
        if (key < 0) { triedEpochs(pc) = epoch; triedKeys(pc) = key }
        else { epochs(pc) = epoch; keys(pc) = key }
        true
      }
  }

  /**
   * Where the conditions read labels: an open-addressing table cleared in O(1) by a new epoch. Histories with equal
   * hashes are compared label by label (only as far back as they differ: forked threads share their older labels).
   */
  private final class ByLabelsRead[S](reads: ConditionReads, labels: Int) extends ThreadEquivalence[S](reads, labels) {
    private var pcs = new Array[Int](64)
    private var starts = new Array[Long](64)
    private var histories = new Array[LabelNode[S]](64)
    private var hashes = new Array[Long](64)
    private var epochs = new Array[Int](64)
    private var epoch = 1
    private var size = 0

    def clear(): Unit = { epoch += 1; size = 0 }

    def contains(pc: Int, start: Long): Boolean = {
      val hash = mix(pc, start, 0L)
      val mask = pcs.length - 1
      var s = (hash ^ (hash >>> 32)).toInt & mask
      while (epochs(s) == epoch) {
        if (hashes(s) == hash && pcs(s) == pc && starts(s) == start) return true
        s = (s + 1) & mask
      }
      false
    }

    def add(pc: Int, start: Long, history: LabelNode[S]): Boolean = {
      val hash = mix(pc, start, if (history == null) 0L else history.hash)
      if (2 * (size + 1) > pcs.length) grow()
      val mask = pcs.length - 1
      var s = (hash ^ (hash >>> 32)).toInt & mask
      while (epochs(s) == epoch) {
        if (hashes(s) == hash && pcs(s) == pc && starts(s) == start && sameReads(histories(s), history)) return false
        s = (s + 1) & mask
      }
      pcs(s) = pc; starts(s) = start; histories(s) = history; hashes(s) = hash; epochs(s) = epoch
      size += 1
      true
    }

    private def mix(pc: Int, start: Long, h: Long): Long = {
      var x = (h * 0x9e3779b97f4a7c15L) ^ (start * 0xc2b2ae3d27d4eb4fL) ^ pc
      x ^= x >>> 29
      x * 0xbf58476d1ce4e5b9L
    }

    private def grow(): Unit = {
      val (op, os, oh, ohs, oe) = (pcs, starts, histories, hashes, epochs)
      val n = pcs.length * 2
      pcs = new Array[Int](n); starts = new Array[Long](n); histories = new Array[LabelNode[S]](n)
      hashes = new Array[Long](n); epochs = new Array[Int](n)
      val mask = n - 1
      for (i <- op.indices if oe(i) == epoch) {
        var s = (ohs(i) ^ (ohs(i) >>> 32)).toInt & mask
        while (epochs(s) == epoch) s = (s + 1) & mask
        pcs(s) = op(i); starts(s) = os(i); histories(s) = oh(i); hashes(s) = ohs(i); epochs(s) = epoch
      }
    }
  }
}
