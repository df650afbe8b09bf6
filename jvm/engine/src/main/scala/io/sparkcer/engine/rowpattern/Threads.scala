package io.sparkcer.engine.rowpattern

/**
 * The [[Matcher]]'s threads at one row, in order of preference, as parallel arrays: each an instruction, the start of
 * its match, and the labels it has given the match's rows so far.
 */
private[rowpattern] final class Threads[S] {
  var pcs = new Array[Int](16)
  var starts = new Array[Long](16)
  var histories = new Array[LabelNode[S]](16)
  var size = 0

  def add(pc: Int, start: Long, history: LabelNode[S]): Unit = {
    if (size == pcs.length) {
      pcs = java.util.Arrays.copyOf(pcs, size * 2)
      starts = java.util.Arrays.copyOf(starts, size * 2)
      histories = java.util.Arrays.copyOf(histories, size * 2)
    }
    pcs(size) = pc; starts(size) = start; histories(size) = history
    size += 1
  }

  /** Keeps the threads whose start `keep` accepts, in order. */
  def retain(keep: Long => Boolean): Unit = {
    var n = 0
    for (k <- 0 until size if keep(starts(k))) {
      pcs(n) = pcs(k); starts(n) = starts(k); histories(n) = histories(k); n += 1
    }
    for (k <- n until size) histories(k) = null
    size = n
  }

  def clear(): Unit = {
    var k = 0
    while (k < size) { histories(k) = null; k += 1 }
    size = 0
  }
}
