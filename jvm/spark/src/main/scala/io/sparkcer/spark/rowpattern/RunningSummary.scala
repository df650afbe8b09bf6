package io.sparkcer.spark.rowpattern

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.Attribute

/**
 * What the DEFINE conditions read of a match in the making, up to one of its rows: for each navigation that counts
 * the rows of some variables (`A.price` is LAST(A.price, 0); FIRST(A.price, 1)), the rows it may name, and for each
 * aggregate Spark's buffer over the rows so far: the operator's running summary
 * ([[io.sparkcer.engine.rowpattern.RowPatternHost.Summary]]). It is kept with the row in the thread's history (a
 * [[io.sparkcer.engine.rowpattern.LabelNode]]), made from the one before it in time independent of the match's
 * length, and shared by the threads that fork after the row: so a condition on a long match costs what one on a
 * short one does, where reading the match for its values would make each row cost the match's length.
 *
 * @param rows per navigation, up to `logical + 1` rows of its variables, each its index in the match and its label
 *             ([[RunningLayout.entry]]): the newest first for LAST, the oldest first for FIRST
 * @param buffers per aggregate, its buffer over the rows of its variables up to this row
 */
final class RunningSummary(val rows: Array[Array[Long]], val buffers: Array[InternalRow])

/**
 * The navigations and aggregates of the DEFINE conditions that read their match through a [[RunningSummary]]: those
 * whose every value it can answer ([[supports]]). A column of the universal variable (`FIRST(price)`, `LAST(price, 2)`)
 * needs none: its row is the match's first or current row plus an offset.
 */
final class RunningLayout(defines: Seq[RowPatternExpression], labels: IndexedSeq[String], input: Seq[Attribute],
    partitionIndex: Int) {
  import RunningLayout._

  private val supported = defines.filter(supports)

  /**
   * The rows a value names through a summary, as (its variables, LAST or not, its logical offset), if it names one
   * there. CLASSIFIER of the universal variable's rows (`FIRST(CLASSIFIER(), 2)`) counts every label's rows: the
   * current row's index gives such a row, but not its label.
   */
  private def navigation(v: MatchValue): Option[(Set[Int], Boolean, Int)] = v match {
    case MatchValue.Column(Pointer(Some(ls), last, logical, _, _), _, _) => Some((ls, last, logical))
    case MatchValue.Classifier(p, _) if !p.current =>
      Some((p.labels.getOrElse(labels.indices.toSet), p.last, p.logical))
    case _ => None
  }

  private val navigations: IndexedSeq[(Set[Int], Boolean, Int)] =
    supported.flatMap(_.values).flatMap(navigation).distinct.toIndexedSeq
  private val aggregates: IndexedSeq[(MatchValue.Aggregate, MatchAggregator)] = supported.flatMap(_.values).collect {
    case a: MatchValue.Aggregate => a -> MatchAggregator(a, input, labels, partitionIndex)
  }.toIndexedSeq
  private val navigationLabels = navigations.map(_._1).toArray
  private val aggregateLabels = aggregates.map(_._1.labels).toArray
  private val empties = aggregates.map(_._2.empty()).toArray

  /** Whether summaries are kept at all: some condition reads a navigation or an aggregate through them. */
  val keeps: Boolean = navigations.nonEmpty || aggregates.nonEmpty

  /**
   * Per value of `e`, a supported condition: where a summary holds it (the navigation's or the aggregate's index),
   * or -1 for a value it does not (the current row, the universal variable's columns, MATCH_NUMBER).
   */
  def slots(e: RowPatternExpression): Array[Int] = {
    var aggregate = supported.takeWhile(_ ne e).map(_.values.count(_.isInstanceOf[MatchValue.Aggregate])).sum
    e.values.map {
      case _: MatchValue.Aggregate => aggregate += 1; aggregate - 1
      case v => navigation(v).fold(-1)(n => navigations.indexOf(n))
    }.toArray
  }

  def aggregator(slot: Int): MatchAggregator = aggregates(slot)._2

  /** The summary of no rows: a thread's before its first. */
  val noRows = new RunningSummary(Array.fill(navigations.length)(NoRows), empties)
  /** Per label, whether a row of it changes a summary: one that no navigation or aggregate counts shares the last. */
  private val counted: Array[Boolean] = {
    val sets = navigations.map(n => Some(n._1)) ++ aggregates.map(_._1.labels)
    Array.tabulate(labels.length)(label => sets.exists(_.forall(_.contains(label))))
  }

  /** The summary up to the row at `index` of the match, labelled `label`, from the one up to the row before. */
  def extend(previous: RunningSummary, label: Int, index: Int, row: InternalRow): RunningSummary =
    if (!counted(label)) previous else extendWith(previous, label, index, row)

  private def extendWith(previous: RunningSummary, label: Int, index: Int, row: InternalRow): RunningSummary = {
    val rows = new Array[Array[Long]](navigations.length)
    var n = 0
    while (n < rows.length) {
      val before = previous.rows(n)
      val (_, last, logical) = navigations(n)
      rows(n) =
        if (!navigationLabels(n).contains(label)) before
        else if (last) {
          val kept = math.min(before.length + 1, logical + 1)
          val now = new Array[Long](kept)
          now(0) = entry(index, label)
          System.arraycopy(before, 0, now, 1, kept - 1)
          now
        } else if (before.length > logical) before
        else {
          val now = java.util.Arrays.copyOf(before, before.length + 1)
          now(before.length) = entry(index, label)
          now
        }
      n += 1
    }
    val buffers = new Array[InternalRow](aggregates.length)
    var a = 0
    while (a < buffers.length) {
      val before = previous.buffers(a)
      buffers(a) =
        if (aggregateLabels(a).exists(!_.contains(label))) before
        else {
          val now = before.copy()
          aggregates(a)._2.update(now, row, label)
          now
        }
      a += 1
    }
    new RunningSummary(rows, buffers)
  }
}

object RunningLayout {
  private val NoRows = Array.empty[Long]

  /** A row of a navigation: its index in the match and its label, in one long. */
  def entry(index: Int, label: Int): Long = (index.toLong << 32) | (label & 0xffffffffL)
  def index(entry: Long): Int = (entry >>> 32).toInt
  def label(entry: Long): Int = entry.toInt

  /**
   * Whether a summary answers every value of a condition: a CLASSIFIER of the row a navigation names (not one at a
   * physical offset from it, whose label it does not keep), and aggregates whose buffers copy by value; not
   * MATCH_NUMBER(), which a frame carries.
   */
  def supports(e: RowPatternExpression): Boolean = e.values.forall {
    case MatchValue.Classifier(p, _) => p.physical == 0
    case a: MatchValue.Aggregate => MatchAggregator.copyable(a.function) && !a.readsNumber
    case MatchValue.Number => false // the number of the match tried is the frame's
    case _ => true
  }
}
