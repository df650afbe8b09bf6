package io.sparkcer.engine.oracle

import scala.collection.mutable

import io.sparkcer.engine.rowpattern.{MatchRecognize, RowPattern, RowPatternAnalysis, RowsPerMatch, SkipTo}

/**
 * The test-side reference for MATCH_RECOGNIZE's matching (SQL:2016 R010, as Trino reads it), written from the
 * definitions rather than for speed: the search tries one start after another as AFTER MATCH SKIP says, and from a
 * start it enumerates the ways the pattern can label the rows that follow by backtracking over the pattern's syntax
 * tree, in the order of preference (left alternative first, greedy repetitions longest first, reluctant shortest
 * first, PERMUTE's orders lexicographically); the first way whose every row passes its variable's condition is the
 * match. Exponential, and meant for a dozen rows.
 *
 * Where the standard leaves it to the implementation, this follows Trino, whose matcher drops a thread that comes back
 * to an instruction at the same row with the same labels: in an unbounded repetition, the copies up to the minimum
 * may read no row; the first iteration past them (the first at all, without a minimum) may read none, and then the
 * repetition ends; a later one that reads none is not taken.
 */
object RowPatternOracle {

  /** A row pattern variable's condition: on the rows it sees ([[visible]]), the match's first row, and the labels of
   * its rows so far (the last one being tried). */
  type Condition = (IndexedSeq[Int], Int, IndexedSeq[Int]) => Boolean

  /** A condition that also reads MATCH_NUMBER(): the number the match being tried would have, as Trino reads it. */
  type NumberedCondition = (IndexedSeq[Int], Int, IndexedSeq[Int], Long) => Boolean

  /** A condition that does not read the number. */
  def numbered(condition: Condition): NumberedCondition = (rows, start, labels, _) => condition(rows, start, labels)

  /**
   * The rows that the conditions of a match beginning at `start` see: under WITHIN, those before the first row past the
   * match's span (NEXT past it reads NULL, so that a stream decides the match when the span ends); else all of them.
   */
  def visible(rows: IndexedSeq[Int], start: Int, window: Option[(IndexedSeq[Long], Long)]): IndexedSeq[Int] =
    window.fold(rows) { case (time, bound) =>
      rows.take(rows.indices.segmentLength(i => time(i) - time(start) < bound))
    }

  sealed trait Event
  final case class Matched(number: Long, start: Int, labels: Seq[Int], excluded: Seq[Boolean]) extends Event
  final case class Unmatched(position: Int) extends Event
  final case class Failed(message: String) extends Event

  private final case class Path(labels: Vector[Int], excluded: Vector[Boolean])

  /**
   * The events of one partition: matches and unmatched rows in order, ending with a Failed on a runtime error.
   *
   * @param conditions per label, its condition (None: any row)
   * @param window     (the order value of each row, the bound on a match's span)
   */
  def run(clause: MatchRecognize, labels: IndexedSeq[String], subsets: Map[String, Set[Int]], rows: IndexedSeq[Int],
      conditions: IndexedSeq[Option[NumberedCondition]],
      window: Option[(IndexedSeq[Long], Long)] = None): Seq[Event] = {
    val labelOf = labels.zipWithIndex.toMap
    val n = rows.length
    val out = mutable.ArrayBuffer.empty[Event]
    var attempt = 0
    var number = 0L
    var covered = -1

    /** The first way to match `p` at `pos` (labels so far `path`) whose continuation `k` succeeds. */
    def search(start: Int, p: RowPattern, pos: Int, path: Path, excluding: Boolean, k: (Int, Path) => Option[Path])
        : Option[Path] = p match {
      case RowPattern.Variable(name) =>
        val label = labelOf(RowPatternAnalysis.canonical(name))
        val fits = pos < n && window.forall { case (time, bound) => time(pos) - time(start) < bound } &&
          conditions(label).forall(_(visible(rows, start, window), start, path.labels :+ label, number + 1))
        if (fits) k(pos + 1, Path(path.labels :+ label, path.excluded :+ excluding)) else None
      case RowPattern.Concat(parts, _) =>
        def chain(i: Int, at: Int, sofar: Path): Option[Path] =
          if (i == parts.length) k(at, sofar)
          else search(start, parts(i), at, sofar, excluding, (q, s) => chain(i + 1, q, s))
        chain(0, pos, path)
      case RowPattern.Alternation(options, _) =>
        options.iterator.map(o => search(start, o, pos, path, excluding, k)).collectFirst { case Some(m) => m }
      case RowPattern.Permute(items, _) =>
        val orders = items.indices.permutations.map(o => RowPattern.Concat(o.map(items), p.pos): RowPattern).toSeq
        search(start, RowPattern.Alternation(orders, p.pos), pos, path, excluding, k)
      case RowPattern.Exclusion(body, _) => search(start, body, pos, path, excluding = true, k)
      case RowPattern.Empty(_) => k(pos, path)
      case RowPattern.PartitionStart(_) => if (pos == 0) k(pos, path) else None
      case RowPattern.PartitionEnd(_) => if (pos == n) k(pos, path) else None
      case RowPattern.Quantified(body, min, max, greedy, _) =>
        def repeat(count: Int, at: Int, sofar: Path): Option[Path] = {
          def more: Option[Path] =
            if (max.exists(count >= _)) None
            else search(
              start,
              body,
              at,
              sofar,
              excluding,
              { (q, s) =>
                if (q > at || max.isDefined || count + 1 < min) repeat(count + 1, q, s)
                else if (count + 1 == math.max(min, 1)) k(q, s) // the loop's first iteration was empty: it stops
                else None
              }
            )
          def stop: Option[Path] = if (count >= min) k(at, sofar) else None
          if (greedy) more.orElse(stop) else stop.orElse(more)
        }
        repeat(0, pos, path)
    }

    def rowsOf(variable: String, m: Path): Seq[Int] = {
      val vars = labelOf.get(variable).map(Set(_)).getOrElse(subsets(variable))
      m.labels.indices.filter(i => vars(m.labels(i)))
    }

    while (attempt < n) {
      val start = attempt
      search(
        start, clause.pattern, start, Path(Vector.empty, Vector.empty), excluding = false, (q, s) => Some(s)) match {
        case None =>
          if (clause.rowsPerMatch == RowsPerMatch.AllWithUnmatched && start > covered) out += Unmatched(start)
          attempt += 1
        case Some(m) =>
          number += 1
          out += Matched(number, start, m.labels, m.excluded)
          val length = m.labels.length
          if (length > 0) covered = math.max(covered, start + length - 1)
          def target(variable: String, first: Boolean): Option[Int] = {
            val at = rowsOf(variable, m)
            if (at.isEmpty) { out += Failed("variable is not present in match"); None }
            else {
              val to = start + (if (first) at.head else at.last)
              if (to == start) { out += Failed("cannot skip to first row of match"); None }
              else Some(to)
            }
          }
          val next = clause.skip match {
            case SkipTo.PastLastRow => Some(start + math.max(length, 1))
            case SkipTo.NextRow => Some(start + 1)
            case SkipTo.First(v) => target(RowPatternAnalysis.canonical(v), first = true)
            case SkipTo.Last(v) => target(RowPatternAnalysis.canonical(v), first = false)
          }
          next match {
            case Some(to) => attempt = to
            case None => return out.toSeq
          }
      }
    }
    out.toSeq
  }
}
