package io.sparkcer.engine.rowpattern

/**
 * The rows of a match, or of a match in the making, as its DEFINE conditions and MEASURES see them (SQL:2016's
 * navigation, as Trino reads it): row i of the match is the partition's row `start + i`, labelled `labels(i)`.
 * `current` is the row that RUNNING semantics stands at: in a DEFINE condition the row being tried (with the label
 * being tried), in a measure under ALL ROWS PER MATCH each row in turn; FINAL semantics stands at the last row.
 *
 * A variable set (`vars`) is a bit per label, or null for the universal pattern variable (every row of the match).
 * A navigation returns a row index of the match, or -1 when the row it names does not exist; physical offsets
 * ([[physical]]) may leave the match, and are the caller's to resolve within the partition.
 */
final class MatchFrame {
  var start = 0L
  var length = 0
  var labels: Array[Int] = new Array[Int](16)
  var excluded: Array[Boolean] = new Array[Boolean](16)
  var current = -1
  /** The match's number in its partition, from 1; while a DEFINE condition is tried, the number it would have. */
  var number = 0L
  /**
   * Which match the frame holds, new with each [[tryRow]] and [[matched]]: what a reader computed for one `current`
   * of the same version carries on to the next (ALL ROWS PER MATCH's measures, row after row).
   */
  var version = 0L

  def position(i: Int): Long = start + i

  /**
   * Sets the frame to a thread's rows up to `row`, the row being tried (at `start + row.length - 1`), in the match
   * that would be number `number`.
   */
  def tryRow(start: Long, row: LabelNode[_], number: Long): Unit = {
    val n = row.length
    ensure(n)
    this.start = start
    length = n
    current = n - 1
    this.number = number
    version += 1
    labels(n - 1) = row.label
    excluded(n - 1) = false
    var h = row.previous
    var i = n - 2
    while (h != null) { labels(i) = h.label; excluded(i) = h.excluded; h = h.previous; i -= 1 }
  }

  /** Sets the frame to a found match, standing at its last row. */
  def matched(number: Long, start: Long, length: Int, labels: Array[Int], excluded: Array[Boolean]): Unit = {
    ensure(length)
    this.number = number
    version += 1
    this.start = start
    this.length = length
    current = length - 1
    System.arraycopy(labels, 0, this.labels, 0, length)
    System.arraycopy(excluded, 0, this.excluded, 0, length)
  }

  private def ensure(n: Int): Unit = if (labels.length < n) {
    labels = java.util.Arrays.copyOf(labels, math.max(n, labels.length * 2))
    excluded = java.util.Arrays.copyOf(excluded, labels.length)
  }

  private def in(vars: Array[Boolean], i: Int): Boolean = vars == null || vars(labels(i))

  /** LAST(vars, offset): the offset-th row of `vars` counted back from `current` (0: the last). */
  def last(vars: Array[Boolean], offset: Int): Int = {
    var i = current
    var left = offset
    while (i >= 0) {
      if (in(vars, i)) { if (left == 0) return i; left -= 1 }
      i -= 1
    }
    -1
  }

  /**
   * FIRST(vars, offset): the offset-th row of `vars` from the match's first, anywhere in the match as far as it is
   * known, whatever `current`: as Trino reads it, so that under ALL ROWS PER MATCH, RUNNING as FINAL, `FIRST(v, 2)`
   * names the match's third row on its first rows too. (While a DEFINE condition is tried, the match ends at the row
   * being tried.)
   */
  def first(vars: Array[Boolean], offset: Int): Int = {
    var i = 0
    var left = offset
    while (i < length) {
      if (in(vars, i)) { if (left == 0) return i; left -= 1 }
      i += 1
    }
    -1
  }

  /** The rows of `vars` up to `current`, in order (for aggregates). */
  def rows(vars: Array[Boolean]): Iterator[Int] = (0 to current).iterator.filter(in(vars, _))

  /** A physical offset from row `i` of the match: the partition position of `start + i + offset`. */
  def physical(i: Int, offset: Int): Long = start + i + offset
}
