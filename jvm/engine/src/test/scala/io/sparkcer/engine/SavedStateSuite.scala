package io.sparkcer.engine

import java.io.{ByteArrayInputStream, ByteArrayOutputStream, DataInput, DataInputStream, DataOutput, DataOutputStream}
import java.util.Random

import scala.collection.mutable

import org.scalatest.funsuite.AnyFunSuite

import io.sparkcer.engine.analysis.WindowKey
import io.sparkcer.engine.ceql.Consumption
import io.sparkcer.engine.eval.{EventCodec, MatchBound, SavedState, TooManyMatchesException}
import io.sparkcer.engine.plan.PatternEvaluator
import io.sparkcer.engine.oracle.{Generators, Printer}

/**
 * A live stream arrives in micro-batches, and between two of them the evaluator's state is saved and read back,
 * possibly by another process. On random queries and streams, cut at random places, the matches must be exactly
 * those of one uninterrupted pass: with the whole stream in one evaluator (unpartitioned queries, CONSUME BY
 * ANY), and with each partition key in its own saved state (how Spark's streaming groups the keys). Between
 * batches the evaluator is also told a watermark (no later event is at or below it), which lets it drop state.
 */
class SavedStateSuite extends AnyFunSuite {
  import SavedStateSuite._

  private val cases = 1500

  /**
   * Bounds sized to streams of at most 40 events. The few queries drawn whose runs explode reach them within
   * milliseconds, where under the default bounds a pass took up to 35 s (MAX on registers over `(A+) ; (C+) ; B` with
   * equalities keeps sets of configurations that grow with the stream); the bounds' own suite and the complexity
   * suites are where those belong, so here they are counted and left out.
   */
  private val bound = MatchBound(10000L, "the suite's matches per event", 1 << 14, "the suite's nodes")

  /** The query, and the matches of one uninterrupted pass; None if that pass goes past [[bound]]. */
  private def compiled(text: String, events: Seq[Event]): Option[(LocalQuery, Seq[Found])] = {
    val q = LocalEngine.compile(text, Generators.Columns, EngineOptions(), bound)
    try Some((q, matches(q, new PatternEvaluator[Event](q.pattern, q.reader, grouped = false, q.matchBound), events)))
    catch { case _: TooManyMatchesException => None }
  }

  private def matches(q: LocalQuery, evaluator: PatternEvaluator[Event], events: Seq[Event]): Seq[Found] =
    evaluator.matches(events.iterator).map(m => Found(m.start.seq, m.end.seq, m.bindings.map(_.map(_.seq)))).toSeq

  private def roundTrip(q: LocalQuery, grouped: Boolean, saved: Option[Array[Byte]]): PatternEvaluator[Event] = {
    val evaluator = new PatternEvaluator[Event](q.pattern, q.reader, grouped, q.matchBound)
    saved.foreach(bytes => evaluator.load(new DataInputStream(new ByteArrayInputStream(bytes)), EventBytes))
    evaluator
  }

  private def save(evaluator: PatternEvaluator[Event]): Array[Byte] = {
    val bytes = new ByteArrayOutputStream()
    evaluator.save(new DataOutputStream(bytes), EventBytes)
    bytes.toByteArray
  }

  private def difference(seed: Long, text: String, events: Seq[Event], got: Seq[Found], expected: Seq[Found]): String =
    s"seed $seed: ${got.length} matches, expected ${expected.length}; missing " +
      s"${expected.diff(got).take(3).mkString(", ")}; extra ${got.diff(expected).take(3).mkString(", ")}\n" +
      s"query:\n$text\n${Generators.showStream(events.map(_.values).toIndexedSeq)}"

  /** Cuts the stream into batches of 0 to 5 events. */
  private def batches(rnd: Random, events: IndexedSeq[Event]): List[IndexedSeq[Event]] = {
    val cuts = Iterator.iterate(0)(_ + rnd.nextInt(6)).takeWhile(_ < events.length).toList :+ events.length
    cuts.zip(cuts.tail).map { case (a, b) => events.slice(a, b) }
  }

  /** A watermark between the last event of a batch and the first of the next: below every event still to come. */
  private def watermark(rnd: Random, q: LocalQuery, next: Option[Event], done: Option[Event]): Option[Long] =
    q.pattern.analyzed.window.map(_.key) match {
      case Some(_: WindowKey.Column) =>
        val window = q.pattern.analyzed.window.flatMap(
          _.key match {
            case WindowKey.Column(i, _) => Some(i)
            case _ => None
          }).get
        def key(e: Event) = LocalQuery.windowValue(e.values(window))
        val high = next.filter(_.values(window) != null).map(key(_) - 1).getOrElse(Long.MaxValue / 4)
        val low = done.filter(_.values(window) != null).map(key).getOrElse(high - 1000)
        if (high < low) None else Some(low + (rnd.nextDouble() * (high - low)).toLong)
      case _ => None
    }

  /**
   * The queries drawn: CEQL as CORE has it, with conditions relating events (registers, lazy chains) and AND, with
   * equalities (PCEA), some of them with variables left unselected, and NEXT, LAST and MAX with conditions
   * (registers, compared).
   */
  private val kinds = Seq(
    ("", Generators.Features(), cases),
    (", with conditions relating events and AND",
      Generators.Features(filterNot = true, relations = true,
        conjunction = true), cases / 2),
    (", with equalities (PCEA)", Generators.Features(equalities = true, conjunction = true), cases / 2),
    // The latest runs of unselected atoms, whose groups are read again off the saved runs' events.
    (", with equalities and unselected variables (PCEA's latest runs)",
      Generators.Features(equalities = true,
        someUnselected = true), cases / 2),
    // Their configurations outlive the window, and so do the events their registers name.
    (", NEXT, LAST and MAX with conditions relating events",
      Generators.Features(filterNot = true, relations = true,
        conjunction = true, ranked = true), cases / 2)
  )

  for ((kind, features, cases) <- kinds)
    test(s"one saved state for the whole stream: the matches of an uninterrupted pass$kind") {
      var checked, exploded = 0
      for (seed <- 0L until cases) {
        val rnd = new Random(seed * 7919)
        val text = Printer.query(Generators.query(rnd, features))
        val events = Generators.stream(rnd, rnd.nextInt(40)).zipWithIndex.map { case (r, i) => new Event(i, r) }
        compiled(text, events) match {
          case None => exploded += 1
          case Some((q, expected)) =>
            var saved: Option[Array[Byte]] = None
            val got = mutable.ArrayBuffer.empty[Found]
            val parts = batches(rnd, events)
            parts.zipWithIndex.foreach { case (batch, i) =>
              val evaluator = roundTrip(q, grouped = false, saved)
              got ++= matches(q, evaluator, batch)
              val next = parts.drop(i + 1).flatten.headOption
              watermark(rnd, q, next, batch.lastOption).foreach(evaluator.advanceTo)
              saved = Some(save(evaluator))
            }
            assert(got == expected, difference(seed, text, events, got.toSeq, expected))
            if (expected.nonEmpty) checked += 1
        }
      }
      assert(checked > cases / 10, "too few cases with matches to mean anything")
      assert(exploded <= cases / 50, s"$exploded of $cases cases went past the suite's bounds: too many left out")
    }

  for ((kind, features, cases) <- kinds)
    test(s"one saved state per partition key: the matches of an uninterrupted pass$kind") {
      var checked, exploded = 0
      for (seed <- 0L until cases) {
        val rnd = new Random(seed * 104729)
        val query = Generators.query(rnd, features) match {
          case g if g.partitionBy.isEmpty || g.consumeBy == Consumption.Any => None
          case g => Some(g)
        }
        query.foreach { query =>
          val text = Printer.query(query)
          val events = Generators.stream(rnd, rnd.nextInt(40)).zipWithIndex.map { case (r, i) => new Event(i, r) }
          compiled(text, events) match {
            case None => exploded += 1
            case Some((q, expected)) =>
              val states = mutable.HashMap.empty[IndexedSeq[Any], Array[Byte]]
              val got = mutable.ArrayBuffer.empty[Found]
              val parts = batches(rnd, events)
              parts.zipWithIndex.foreach { case (batch, i) =>
                val next = parts.drop(i + 1).flatten.headOption
                val mark = watermark(rnd, q, next, batch.lastOption)
                val byKey = batch.groupBy(q.reader.partitionKey).removed(null)
                // Keys with events in the batch, and (as a timer would) some of the others.
                val touched = byKey.keySet ++ states.keys.filter(_ => rnd.nextBoolean())
                touched.foreach { key =>
                  val evaluator = roundTrip(q, grouped = true, states.get(key))
                  got ++= matches(q, evaluator, byKey.getOrElse(key, Nil).sortBy(_.seq))
                  mark.foreach(evaluator.advanceTo)
                  if (evaluator.isEmpty) states.remove(key) else states(key) = save(evaluator)
                }
              }
              assert(got.sorted == expected.sorted, difference(seed, text, events, got.sorted.toSeq, expected.sorted))
              if (expected.nonEmpty) checked += 1
          }
        }
      }
      assert(checked > cases / 40, "too few cases with matches to mean anything")
      assert(exploded <= cases / 50, s"$exploded of $cases cases went past the suite's bounds: too many left out")
    }

  test("a state of another layout is refused with what to do, not misread") {
    val q = LocalEngine.compile("SELECT * FROM S WHERE A ; B ORDER BY ts", Generators.Columns)
    val evaluator = roundTrip(q, grouped = false, None)
    val bytes = save(evaluator)
    bytes(3) = (bytes(3) + 1).toByte // the format, an Int written first, one more
    val refused = intercept[IllegalStateException](roundTrip(q, grouped = false, Some(bytes))).getMessage
    assert(
      refused.contains(s"saved state format ${SavedState.Format + 1}, expected ${SavedState.Format}") &&
        refused.contains("start the query from a new checkpoint location"),
      refused
    )
  }

  test("a spent partition leaves no state; a priority order stays, without events or nodes") {
    val columns = IndexedSeq("event_type", "k", "ts")
    val rows = (0 until 50).map(i => Array[Any](if (i % 2 == 0) "A" else "B", Long.box(1), Long.box(i * 10L)))
    val events = rows.zipWithIndex.map { case (r, i) => new Event(i, r) }
    for (strategy <- Seq("ALL", "STRICT", "NEXT", "LAST", "MAX")) {
      val q = LocalEngine.compile(s"SELECT $strategy * FROM S WHERE A ; B PARTITION BY k WITHIN 30 [ts]", columns)
      val evaluator = new PatternEvaluator[Event](q.pattern, q.reader, grouped = true, q.matchBound)
      assert(evaluator.matches(events.iterator).size > 0, strategy)
      assert(evaluator.expiresAt.contains(490L + 30L))
      evaluator.advanceTo(519L)
      assert(!evaluator.isEmpty, s"$strategy: the last event is still inside the window")
      evaluator.advanceTo(520L)
      if (Set("ALL", "STRICT")(strategy)) assert(evaluator.isEmpty, strategy)
      else {
        assert(evaluator.expiresAt.isEmpty, strategy)
        assert(save(evaluator).length < 400, s"$strategy keeps only its priority order")
      }
    }
  }

  test("the latest runs of an unselected atom keep their groups across a save: a later b replaces the saved one") {
    // b joins a on k and c on v, unselected: under c's key, the later b of a's k stands for the one saved before it.
    // Read back without its group, it would sit beside the saved one, and c would give (a, c) twice.
    val columns = IndexedSeq("event_type", "k", "v", "ts")
    // The first c makes the PCEA read the events as they come (before it, they wait unread).
    val rows = Seq(("A", 1L, 0L), ("B", 1L, 5L), ("C", 0L, 5L), ("B", 1L, 5L), ("C", 0L, 5L))
    val events = rows.zipWithIndex.map { case ((t, k, v), i) =>
      new Event(i, Array[Any](t, Long.box(k), Long.box(v), Long.box(i)))
    }
    val q = LocalEngine.compile("SELECT a, c FROM S WHERE A AS a ; B AS b ; C AS c FILTER a.k = b.k AND b.v = c.v " +
        "WITHIN 10 [ts]", columns)
    assert(q.pattern.pcea.exists(p => p.latestOnly.values.exists(!_) && p.rowsTellRunsApart), q.pattern.describe)
    val first = roundTrip(q, grouped = false, None)
    assert(matches(q, first, events.take(3)) == Seq(Found(0L, 2L, Seq(Seq(0L), Seq(2L)))))
    val second = roundTrip(q, grouped = false, Some(save(first)))
    assert(matches(q, second, events.drop(3)) == Seq(Found(0L, 4L, Seq(Seq(0L), Seq(4L)))))
  }

  test("NEXT with a condition keeps, across a save with the window emptied, the events its registers read") {
    // A at 0 (v 9) waits for a B below it; the watermark empties the window; the B at 100 (v 1) completes {0, 100},
    // the strategy's choice, which the window drops, so the A at 95 (v 5) gives nothing either.
    val columns = IndexedSeq("event_type", "v", "ts")
    val rows = Seq(("A", 9L, 0L), ("A", 5L, 95L), ("B", 1L, 100L), ("A", 3L, 110L), ("B", 2L, 112L))
    val events = rows.zipWithIndex.map { case ((t, v, ts), i) =>
      new Event(i, Array[Any](t, Long.box(v), Long.box(ts)))
    }
    val q = LocalEngine.compile("SELECT NEXT * FROM S WHERE A AS a ; B AS b FILTER a.v > b.v WITHIN 10 [ts]", columns)
    val first = roundTrip(q, grouped = false, None)
    assert(matches(q, first, events.take(1)).isEmpty)
    first.advanceTo(50L)
    val second = roundTrip(q, grouped = false, Some(save(first)))
    assert(matches(q, second, events.slice(1, 3)).isEmpty, "{0, 100} outranks {1, 100} and the window drops it")
    val third = roundTrip(q, grouped = false, Some(save(second)))
    assert(matches(q, third, events.drop(3)).isEmpty, "{0, 112} outranks {3, 112}")
    val uninterrupted = roundTrip(q, grouped = false, None)
    assert(matches(q, uninterrupted, events).isEmpty)
    // Without the A at 0, {1, 100} is chosen and lies within the window; {1, 112} is chosen over {3, 112} and does not.
    val rest = roundTrip(q, grouped = false, None)
    assert(matches(q, rest, events.drop(1)).map(f => (f.start, f.end)) == Seq((1L, 2L)))
  }
}

object SavedStateSuite {
  final case class Found(start: Long, end: Long, bindings: Seq[Seq[Long]])

  implicit val foundOrdering: Ordering[Found] =
    Ordering.by((f: Found) => (f.end, f.start, f.bindings.map(_.mkString(",")).mkString(";")))

  /** The generated rows hold strings, longs, doubles and NULLs. */
  object EventBytes extends EventCodec[Event] {
    def write(event: Event, out: DataOutput): Unit = {
      out.writeLong(event.seq)
      out.writeInt(event.values.length)
      event.values.foreach {
        case null => out.writeByte(0)
        case s: String => out.writeByte(1); out.writeUTF(s)
        case l: java.lang.Long => out.writeByte(2); out.writeLong(l)
        case d: java.lang.Double => out.writeByte(3); out.writeDouble(d)
        case other => throw new IllegalArgumentException(s"no codec for $other")
      }
    }

    def read(in: DataInput): Event = {
      val seq = in.readLong()
      new Event(
        seq,
        Array.fill[Any](in.readInt())(
          in.readByte() match {
            case 0 => null
            case 1 => in.readUTF()
            case 2 => Long.box(in.readLong())
            case 3 => Double.box(in.readDouble())
          })
      )
    }
  }
}
