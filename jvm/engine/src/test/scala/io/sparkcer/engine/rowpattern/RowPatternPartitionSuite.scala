package io.sparkcer.engine.rowpattern

import java.io.{ByteArrayInputStream, ByteArrayOutputStream, DataInput, DataInputStream, DataOutput, DataOutputStream}

import scala.collection.mutable
import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

import io.sparkcer.engine.eval.EventCodec
import io.sparkcer.engine.oracle.{RandomRowPatternCase, RowPatternOracle}
import io.sparkcer.engine.oracle.RowPatternOracle.{Event, Failed, Matched, Unmatched}

/**
 * A MATCH_RECOGNIZE partition as the engine runs it ([[RowPatternPartition]]), with no Spark on the class path: the
 * DEFINE conditions are the random cases' Scala functions, reading the partition's rows through the rows it holds
 * (a row it dropped too early fails the test), and the output rows are checked against the brute-force reading of
 * the standard ([[RowPatternOracle]]), on a table and as a stream (watermarks, and saved and loaded at random rows).
 */
class RowPatternPartitionSuite extends AnyFunSuite {
  import RowPatternPartitionSuite._

  test("the engine's test class path has no Spark: a partition runs without it") {
    intercept[ClassNotFoundException](Class.forName("org.apache.spark.sql.SparkSession"))
  }

  test("random clauses on a table and as a stream give the oracle's rows, and hold every row they read") {
    val random = new Random(20261127L)
    var matched, cases = 0
    for (i <- 0 until 1500) {
      val c = RandomRowPatternCase(random)
      val query = new Query(c)
      val expected = query.expected
      val context = s"case $i: ${c.text}\nrows ${c.rows.mkString(" ")}\nconditions ${c.described}"
      assert(same(query.onTable(), expected), context)
      assert(same(query.onStream(random), expected), s"$context\nas a stream")
      cases += 1
      if (expected.exists(_.isInstanceOf[Out.Row])) matched += 1
    }
    assert(matched > cases / 3, s"$cases cases, $matched with a match")
  }

  test("a task's rows, one partition after another: each partition's rows as if alone") {
    val random = new Random(7L)
    for (i <- 0 until 200) {
      val c = RandomRowPatternCase(random)
      val query = new Query(c)
      val expected = query.expected
      if (!expected.exists(_.isInstanceOf[Out.Failure])) {
        // The same rows twice, the second time under another key.
        val keyed = query.rows ++ query.rows.map(_.copy(key = 1))
        var key = -1
        val outputs = RowPatternPartition.outputs[Row, Out](keyed.iterator,
          row => { val starts = row.key != key; key = row.key; starts }, query.partition, _ => ())
        assert(outputs.toSeq == expected ++ expected, s"case $i: ${c.text}")
      }
    }
  }

  test("a saved partition carries its layout version, and one of another layout is refused with what to do") {
    val c = RandomRowPatternCase(new Random(3L))
    val query = new Query(c)
    val saved = new ByteArrayOutputStream
    query.partition(_ => ()).save(new DataOutputStream(saved), RowCodec)
    val bytes = saved.toByteArray
    query.partition(_ => ()).load(new DataInputStream(new ByteArrayInputStream(bytes)), RowCodec)
    bytes(3) = (bytes(3) + 1).toByte // the format, an Int written first
    val refused = intercept[IllegalStateException] {
      query.partition(_ => ()).load(new DataInputStream(new ByteArrayInputStream(bytes)), RowCodec)
    }.getMessage
    assert(
      refused.contains(s"saved state format ${RowPatternPartition.Format + 1}, expected " +
        s"${RowPatternPartition.Format}") && refused.contains("new checkpoint location"),
      refused
    )
  }
}

object RowPatternPartitionSuite {
  /**
   * Whether a partition's output is the oracle's: row for row, or, where the oracle fails (AFTER MATCH SKIP to a row
   * it must not), the same failure after some of its rows (the query fails: the rows before it are not output).
   */
  private def same(actual: Seq[Out], expected: Seq[Out]): Boolean = expected.lastOption match {
    case Some(f: Out.Failure) => actual.lastOption.contains(f) && expected.startsWith(actual.init)
    case _ => actual == expected
  }

  /** A row: its partition key, its position in the partition (which gives its time under WITHIN) and its value. */
  final case class Row(key: Int, at: Int, v: Int)

  private object RowCodec extends EventCodec[Row] {
    def write(row: Row, out: DataOutput): Unit = { out.writeInt(row.key); out.writeInt(row.at); out.writeInt(row.v) }
    def read(in: DataInput): Row = Row(in.readInt(), in.readInt(), in.readInt())
  }

  /** An output row: of a match (at its row `current`, -1 for an empty match), or of a row in none, or the failure. */
  sealed trait Out
  object Out {
    final case class Row(number: Long, start: Long, labels: Seq[Int], excluded: Seq[Boolean], current: Int) extends Out
    final case class Unmatched(position: Int) extends Out
    final case class Failure(message: String) extends Out
  }

  /** A random case as a partition's functions: the conditions read the rows the partition holds, nothing else. */
  private final class Query(c: RandomRowPatternCase) {
    private val analyzed = {
      val a = RowPatternAnalysis.analyze(MatchRecognizeParser.parse(c.text), c.text)
      a.copy(defined = a.labels.map(c.conditions.contains))
    }
    private val conditions = analyzed.labels.map(c.conditions.get)

    /** The oracle's events as output rows, in the layout the clause asks for. */
    def expected: Seq[Out] =
      RowPatternOracle.run(analyzed.clause, analyzed.labels, analyzed.subsets, c.rows, conditions,
        c.window).flatMap(output)

    private def output(e: Event): Seq[Out] = e match {
      case Matched(number, start, labels, excluded) =>
        val row = Out.Row(number, start, labels, excluded, _: Int)
        analyzed.clause.rowsPerMatch match {
          case RowsPerMatch.One => Seq(row(labels.length - 1))
          case _ if labels.isEmpty =>
            if (analyzed.clause.rowsPerMatch == RowsPerMatch.AllOmitEmpty) Nil else Seq(row(-1))
          case _ => labels.indices.filterNot(excluded).map(row)
        }
      case Unmatched(position) => Seq(Out.Unmatched(position))
      case Failed(message) => Seq(Out.Failure(failure(message)))
    }

    private def failure(message: String): String =
      if (message.contains("not present in match")) "variable is not present in match"
      else if (message.contains("cannot skip to first row")) "cannot skip to first row of match" else message

    private val functions = new RowPatternHost[Row, Out] {
      type Summary = Unit
      val reads: ConditionReads = c.reads
      def perRow(label: Int): Boolean = c.oneRow(analyzed.labels(label))
      def onSummary(label: Int): Boolean = false
      def keepsSummaries: Boolean = false
      val conditionsAhead = 1
      val measuresAhead = 0
      val behind = 1
      val readsPastMatches = true
      val window: Option[(Row => Long, Long)] = c.window.map { case (time, span) => ((r: Row) => time(r.at), span) }
      def noRows: Unit = ()
      def summarize(previous: Unit, label: Int, index: Int, row: Row): Unit = throw new UnsupportedOperationException
      def holdsOnSummary(label: Int, summary: Unit, start: Long, current: Int, rows: PartitionRows[Row]): Boolean =
        throw new UnsupportedOperationException

      // A condition of one row reads the same whatever its match: as if the match began at the row.
      def holdsAtRow(label: Int, position: Long, rows: PartitionRows[Row]): Boolean =
        conditions(label).get(visible(position.toInt, rows), position.toInt, IndexedSeq(label), 0L)

      def holds(label: Int, frame: MatchFrame, rows: PartitionRows[Row]): Boolean = {
        val at = (frame.start + frame.current).toInt
        conditions(label).get(visible(at, rows), frame.start.toInt, frame.labels.take(frame.length).toIndexedSeq,
          frame.number)
      }

      private def visible(at: Int, rows: PartitionRows[Row]): IndexedSeq[Int] = {
        // The rows as the oracle's conditions read them: up to the first the partition does not hold past the row
        // tried (the partition's end, or past the match's span), each read one held.
        new IndexedSeq[Int] {
          val length: Int = { var q = at; while (rows.holds(q)) q += 1; q }
          def apply(p: Int): Int = {
            assert(rows.holds(p), s"row $p read but not held")
            rows(p).v
          }
        }
      }

      def matched(frame: MatchFrame, rows: PartitionRows[Row], row: Row): Out =
        Out.Row(frame.number, frame.start, frame.labels.take(frame.length).toSeq,
          frame.excluded.take(frame.length).toSeq, frame.current)
      def unmatched(row: Row): Out = Out.Unmatched(row.at)
    }

    def partition(emit: Out => Unit): RowPatternPartition[Row, Out] =
      new RowPatternPartition(analyzed, functions, PartialMatchBound.Default, emit)

    private def collecting(run: (Out => Unit) => Unit): Seq[Out] = {
      val out = mutable.ArrayBuffer.empty[Out]
      try run(out += _)
      catch { case e: RowPatternException => out += Out.Failure(failure(e.getMessage)) }
      out.toSeq
    }

    val rows: IndexedSeq[Row] = c.rows.indices.map(p => Row(0, p, c.rows(p)))

    def onTable(): Seq[Out] = collecting { emit =>
      val p = partition(emit)
      rows.foreach(p.push)
      p.finish()
    }

    /**
     * As a stream runs it: before each row, the watermark passes the times before it; at random rows the partition
     * is saved and loaded into a fresh one. Without the anchor `$`, the window's end decides every match before the
     * partition ends.
     */
    def onStream(random: Random): Seq[Out] = collecting { emit =>
      var p = partition(emit)
      for (row <- rows) {
        c.window.foreach { case (time, _) => p.advanceTo(time(row.at)) }
        if (random.nextBoolean()) {
          val saved = new ByteArrayOutputStream
          p.save(new DataOutputStream(saved), RowCodec)
          p = partition(emit)
          p.load(new DataInputStream(new ByteArrayInputStream(saved.toByteArray)), RowCodec)
        }
        p.push(row)
      }
      for ((time, span) <- c.window if rows.nonEmpty && !c.text.contains("$")) {
        p.advanceTo(time.last + span)
        assert(p.expiresAt.isEmpty, "every match decided by the window")
      }
      p.finish()
    }
  }
}
