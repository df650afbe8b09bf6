package io.sparkcer.engine.rowpattern

import scala.collection.mutable
import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

import io.sparkcer.engine.oracle.{RandomRowPatternCase, RowPatternOracle}
import io.sparkcer.engine.oracle.RowPatternOracle.{Condition, Event, Failed, Matched, NumberedCondition, Unmatched}

/**
 * The row pattern matcher ([[Matcher]]): worked examples from the peers' documentation, random patterns and
 * conditions against the brute-force reading of the standard ([[RowPatternOracle]]), and the pathological patterns
 * that backtracking makes exponential and start-by-start search quadratic, shown linear by the matcher's own count
 * of the instructions it visits.
 */
class RowPatternMatcherSuite extends AnyFunSuite {
  import RowPatternMatcherSuite._

  test("the AFTER MATCH example of Flink's documentation (A+ C, sum(A.price) < 30), read by the standard") {
    // Flink's table stops one match short under TO NEXT ROW and TO LAST A: its stream never ends. Read to the end of
    // the partition, the start at 14's row before last still matches (A = 7, C = 14), and under TO LAST A that match
    // would skip to its own first row, a runtime error.
    val prices = IndexedSeq(7, 9, 10, 5, 10, 7, 14)
    val sumBelow30: Condition = (rows, start, labels) =>
      labels.indices.filter(labels(_) == 0).map(i => rows(start + i)).sum < 30
    def run(skip: String) =
      events(s"$skip PATTERN (A+ C) DEFINE A AS sum(A.price) < 30", prices, Map("A" -> sumBelow30))
    // (sum of A's prices, first row, last row), rows numbered from 1 as the example's times
    def summary(es: Seq[Event]) = es.map {
      case Matched(_, start, labels, _) =>
        (labels.indices.filter(labels(_) == 0).map(i => prices(start + i)).sum, start + 1, start + labels.length)
      case Failed(message) => message
      case other => other
    }
    assert(summary(run("AFTER MATCH SKIP PAST LAST ROW")) == Seq((26, 1, 4), (17, 5, 7)))
    assert(summary(run("AFTER MATCH SKIP TO NEXT ROW")) ==
      Seq((26, 1, 4), (24, 2, 5), (25, 3, 6), (22, 4, 7), (17, 5, 7), (7, 6, 7)))
    assert(summary(run("AFTER MATCH SKIP TO LAST A")) ==
      Seq((26, 1, 4), (25, 3, 6), (17, 5, 7), (7, 6, 7), "cannot skip to first row of match"))
    assert(summary(run("AFTER MATCH SKIP TO FIRST A")) == Seq((26, 1, 4), "cannot skip to first row of match"))
  }

  test("a failed AFTER MATCH SKIP names the match's rows as users count them, from 1") {
    val is: Int => Condition = v => (rows, start, labels) => rows(start + labels.length - 1) == v
    val h = new Harness("AFTER MATCH SKIP TO FIRST B PATTERN (A B? C)", IndexedSeq(0, 1, 3),
      byRow(Map("A" -> is(1), "B" -> is(2), "C" -> is(3))))
    val e = intercept[RowPatternException] { (0 until 3).foreach(_ => h.matcher.push()); h.matcher.finish() }
    assert(e.getMessage.contains("variable B is not present in match 1 (rows 2 to 3 of its partition, counted from 1)"),
      e.getMessage)
  }

  test("preference: alternatives left first, greedy longest, reluctant shortest, PERMUTE lexicographic") {
    val any = Map.empty[String, Condition]
    def labelsOf(pattern: String, rows: Int): Seq[String] = events(s"PATTERN ($pattern)", IndexedSeq.fill(rows)(0), any)
      .collect { case m: Matched => m.labels.map(names(pattern)).mkString }
    assert(labelsOf("A | B", 2) == Seq("A", "A"))
    assert(labelsOf("A+ B*", 3) == Seq("AAA"))
    assert(labelsOf("A+? B*", 3) == Seq("ABB"))
    assert(labelsOf("A{2,3}? B?", 5) == Seq("AAB", "AA"))
    assert(labelsOf("PERMUTE(B, A)", 4) == Seq("BA", "BA"))
    assert(labelsOf("A* B", 1) == Seq("B"))
    assert(labelsOf("A*?", 2) == Seq("", ""), "a reluctant star matches empty at every row")
  }

  test("anchors, exclusion, empty matches and unmatched rows") {
    val even: Condition = (rows, start, labels) => rows(start + labels.length - 1) % 2 == 0
    val rows = IndexedSeq(1, 2, 4, 3, 6)
    def run(text: String) = events(text, rows, Map("A" -> even))
    assert(run("PATTERN (^ A+)").isEmpty, "the partition's first row is odd")
    assert(run("PATTERN (A $)") == Seq(Matched(1, 4, Seq(0), Seq(false))))
    // Labels in order of first appearance: B is 0, A is 1.
    assert(run("PATTERN (B {- A+ -} B)") == Seq(Matched(1, 0, Seq(0, 1, 1, 0), Seq(false, true, true, false))))
    assert(run("ALL ROWS PER MATCH WITH UNMATCHED ROWS PATTERN (A+)") ==
      Seq(Unmatched(0), Matched(1, 1, Seq(0, 0), Seq(false, false)), Unmatched(3), Matched(2, 4, Seq(0), Seq(false))))
    assert(run("PATTERN (A*)") == Seq(Matched(1, 0, Nil, Nil), Matched(2, 1, Seq(0, 0), Seq(false, false)),
      Matched(3, 3, Nil, Nil), Matched(4, 4, Seq(0), Seq(false))))
  }

  test("WITHIN bounds a match's span: the row that would make it too long is not read") {
    val time = IndexedSeq(0L, 10L, 20L, 65L, 70L)
    val out = events(
      "PATTERN (A+ B) WITHIN INTERVAL '60' SECONDS",
      IndexedSeq(1, 1, 1, 1, 2),
      Map("A" -> ((rows, start, labels) => rows(start + labels.length - 1) == 1),
        "B" -> ((rows, start, labels) => rows(start + labels.length - 1) == 2)),
      window = Some((time.map(_ * 1000), 60000L))
    )
    assert(out == Seq(Matched(1, 2, Seq(0, 0, 1), Seq(false, false, false))),
      "from row 0 the span reaches 65 s at row 3; from row 2 it is 50 s")
  }

  test("random patterns, conditions, skips and windows against the brute-force reading of the standard, also saved, " +
    "loaded and expired by time at random rows as a stream does, with every later start deferred, and one start at a " +
    "time (as where the conditions read MATCH_NUMBER())") {
    val random = new Random(20261125L)
    var matched, failed, cases = 0
    for (i <- 0 until 3000) {
      val c = RandomRowPatternCase(random)
      val analyzed = RowPatternAnalysis.analyze(MatchRecognizeParser.parse(c.text), c.text)
      val expected = RowPatternOracle.run(analyzed.clause, analyzed.labels, analyzed.subsets, c.rows,
        analyzed.labels.map(c.conditions.get), c.window)
      def harness(deferAbove: Long, reads: ConditionReads = c.reads) = new Harness(c.text, c.rows, c.conditions,
        c.window, Some(reads), deferAbove = deferAbove)
      val context = s"case $i: ${c.text}\nrows ${c.rows.mkString(" ")}\nconditions ${c.described}; reads ${c.reads}"
      assert(harness(Matcher.DeferAbove).run() == expected, context)
      assert(harness(Matcher.DeferAbove).runResumed(random) == expected, s"$context\nsaved and loaded, expired by time")
      // Deferring the starts after the tried one whenever any is alive: each reads its rows again unless covered.
      assert(harness(0).run() == expected, s"$context\nwith later starts deferred")
      assert(harness(0).runResumed(random) == expected, s"$context\nwith later starts deferred, saved and loaded")
      // As where the conditions read MATCH_NUMBER(): one start at a time.
      val numbered = harness(Matcher.DeferAbove, c.reads.copy(number = true))
      assert(numbered.runResumed(random) == expected, s"$context\none start at a time, saved and loaded")
      cases += 1
      if (expected.exists(_.isInstanceOf[Matched])) matched += 1
      if (expected.exists(_.isInstanceOf[Failed])) failed += 1
    }
    assert(matched > cases / 3 && failed > 20, s"$cases cases: $matched with matches, $failed with skip errors")
    info(s"$cases cases: $matched with matches, $failed ending in a skip error")
  }

  test("linear where backtracking is exponential and start-by-start search quadratic") {
    val everyRow = Map.empty[String, Condition]
    def work(pattern: String, rows: Int, conditions: Map[String, Condition]): Long = {
      val h = new Harness(s"PATTERN ($pattern)", IndexedSeq.fill(rows)(1), byRow(conditions),
        reads = Some(ConditionReads.Nothing))
      h.run()
      h.matcher.work
    }
    val never: Condition = (_, _, _) => false
    for ((pattern, conditions) <- Seq("(A+)+ B" -> Map("B" -> never), "A+ B+ C" -> Map("C" -> never),
        "(A | A)+ B" -> Map("B" -> never), "A* A* A* B" -> Map("B" -> never), "(A+)+" -> everyRow)) {
      val (small, large) = (work(pattern, 1000, conditions), work(pattern, 8000, conditions))
      assert(large <= small * 8 * 1.1 + 100, s"$pattern: ${small} instructions for 1,000 rows, $large for 8,000")
    }
  }

  test("conditions that read the match: the starts inside the tried start's match so far are cut at once") {
    // B's condition reads the match (as B AS v >= A.v does), so no later start's thread stands for the tried one's;
    // every row passes, so the tried start's match grows to the end, and covers every later start as it goes.
    val reads = Some(ConditionReads(Set(0, 1), start = true))
    def work(rows: Int): Long = {
      val h = new Harness("PATTERN (A B+)", IndexedSeq.fill(rows)(1), byRow(Map("B" -> ((_, _, _) => true))),
        reads = reads)
      assert(h.run() == Seq(Matched(1, 0, 0 +: Seq.fill(rows - 1)(1), Seq.fill(rows)(false))))
      h.matcher.work
    }
    val (small, large) = (work(1000), work(8000))
    assert(large <= small * 8 * 1.1 + 100, s"$small instructions for 1,000 rows, $large for 8,000")
  }

  test("AFTER MATCH SKIP TO NEXT ROW: a later start whose threads are the tried start's follows it, holding none") {
    // A+ over rows that all pass: every start matches to the end, each match a suffix of the one before. Each start
    // held a history of its own, quadratic: 1,000 rows held 500,000 labels, past the bound of 1,000.
    def run(rows: Int): Long = {
      val text = "AFTER MATCH SKIP TO NEXT ROW PATTERN (A+)"
      var next = 0L
      val matcher = new Matcher(
        RowPatternAnalysis.analyze(MatchRecognizeParser.parse(text), text),
        evaluator(new FrameConditions(ConditionReads.Nothing, (_, _) => true), labels = 1),
        new RowPatternSink {
          def matched(number: Long, start: Long, length: Int, labels: Array[Int], excluded: Array[Boolean]): Unit = {
            assert(number == next + 1 && start == next && start + length == rows && labels.take(length).forall(_ == 0))
            next += 1
          }
          def unmatched(position: Long): Unit = fail(s"row $position is in a match")
        },
        bound = PartialMatchBound(1000, "bound")
      )
      (0 until rows).foreach(_ => matcher.push())
      matcher.finish()
      assert(next == rows)
      matcher.work
    }
    val (small, large) = (run(1000), run(16000))
    assert(large <= small * 16 * 1.1 + 100, s"$small instructions for 1,000 rows, $large for 16,000")
    def labels(pattern: String, rows: IndexedSeq[Int], conditions: Map[String, Condition]): Seq[(Int, String)] =
      new Harness(s"AFTER MATCH SKIP TO NEXT ROW PATTERN ($pattern)", rows, byRow(conditions),
        reads = Some(ConditionReads.Nothing))
        .run().collect { case m: Matched => (m.start, m.labels.map(names(pattern)).mkString) }
    // The leader's match is borrowed from the point of following on; before it, the follower's own labels count.
    val even: Condition = (rows, start, labels) => rows(start + labels.length - 1) % 2 == 0
    assert(labels("(A | B)+ C?", IndexedSeq(2, 1, 2, 2), Map("A" -> even, "C" -> even)) ==
      Seq(0 -> "ABAA", 1 -> "BAA", 2 -> "AA", 3 -> "A"))
    // A follower's threads share its labels so far: the start at row 2, read as A and as C, stands at B and at D as the
    // leader does, but with another past at each, so it does not follow (its match is C D, not A D).
    val is: Int => Condition = k => (rows, start, labels) => rows(start + labels.length - 1) == k
    assert(labels("(A B | C D)+", IndexedSeq(0, 2, 0, 2), Map("B" -> is(1), "D" -> is(2))) == Seq(
      0 -> "CDCD", 2 -> "CD"))
  }

  test("a match that keeps every later start alive until its end is linear: the deferred starts are covered by it") {
    // A B+ C over N rows of 1 then a 0, B reading A's row and its own average: every start stays alive to the end,
    // where the first start's match covers them all. Held side by side, each start read every row: quadratic.
    val first: IndexedSeq[Int] => Int => Int = rows => start => rows(start)
    val b: Condition = (rows, start, labels) => {
      val bs = labels.indices.filter(labels(_) == 1).map(i => rows(start + i))
      rows(start + labels.length - 1) >= rows(start) && bs.sum >= bs.length // avg(B.v) >= 1
    }
    val c: Condition = (rows, start, labels) => rows(start + labels.length - 1) < first(rows)(start)
    def work(n: Int): (Long, Long) = {
      val h = new Harness("PATTERN (A B+ C)", IndexedSeq.fill(n)(1) :+ 0, byRow(Map("B" -> b, "C" -> c)),
        reads = Some(ConditionReads(Set(0, 1), start = true)), deferAbove = 1000)
      assert(h.run() == Seq(Matched(1, 0, 0 +: Seq.fill(n - 1)(1) :+ 2, Seq.fill(n + 1)(false))))
      (h.matcher.work, h.conditionsAsked)
    }
    val ((small, asked), (large, asked8)) = (work(500), work(4000))
    assert(large <= small * 8 * 1.1 + 100 && asked8 <= asked * 8 * 1.1 + 100,
      s"$small instructions and $asked conditions for 500 rows, $large and $asked8 for 4,000")
  }

  test("a run that keeps every start alive and ends none fails once it has read too many rows again, saying what " +
    "to write") {
    // A B+ C where C never comes: each start stays alive to the end, and fails there; the later ones, deferred, read
    // their rows again one after another.
    val reads = Some(ConditionReads(Set(0, 1, 2), start = true))
    def run(rows: Int) = new Harness(
      "PATTERN (A B+ C)",
      IndexedSeq.fill(rows)(1),
      byRow(Map("B" -> ((_, _, _) => true), "C" -> ((_, _, _) => false))),
      reads = reads,
      deferAbove = 100,
      bound = PartialMatchBound(1000, "spark.cer.matchRecognize.maxPartialMatchRows")
    ).run()
    assert(run(40) == Nil) // fewer than 40 * 39 / 2 = 780 rows read again
    val message = run(200) match {
      case Seq(Failed(m)) => m
      case other => fail(s"the query should fail, not give $other")
    }
    assert(
      message.contains("rows of a partition again, over the spark.cer.matchRecognize.maxPartialMatchRows of " +
        "1000") && message.contains("WITHIN") && message.contains("DEFINE conditions read"),
      message
    )
    // Without conditions that read the match, the message names what keeps the starts apart: here WITHIN's spans.
    val spans = new Harness(
      "AFTER MATCH SKIP TO NEXT ROW PATTERN (A+) WITHIN INTERVAL '1' HOURS",
      IndexedSeq.fill(200)(1),
      Map.empty,
      window = Some(((0L until 200L).map(_ * 1000), 3600000L)),
      reads = Some(ConditionReads.Nothing),
      bound = PartialMatchBound(1000, "spark.cer.matchRecognize.maxPartialMatchRows"),
      deferAbove = 100
    ).run()
    spans.last match {
      case Failed(m) => assert(m.contains("WITHIN gives each its own span") && !m.contains("DEFINE"), m)
      case other => fail(s"the query should fail, not end with $other")
    }
  }
}

object RowPatternMatcherSuite {
  /** The matcher over `rows` for a clause body, with conditions per variable; its events as the oracle words them. */
  private final class Harness(text: String, rows: IndexedSeq[Int], conditions: Map[String, NumberedCondition],
      window: Option[(IndexedSeq[Long], Long)] = None, reads: Option[ConditionReads] = None,
      bound: PartialMatchBound = PartialMatchBound.Default, deferAbove: Long = Matcher.DeferAbove) {
    val clause: MatchRecognize = MatchRecognizeParser.parse(text)
    val analyzed: AnalyzedRowPattern = RowPatternAnalysis.analyze(clause, text)
    val byLabel: IndexedSeq[Option[NumberedCondition]] = analyzed.labels.map(conditions.get)
    private val out = mutable.ArrayBuffer.empty[Event]
    /** The DEFINE conditions asked so far. */
    var conditionsAsked = 0L
    private val everyLabel = ConditionReads(analyzed.labels.indices.toSet, start = true)
    private val defines = new FrameConditions(
      reads.getOrElse(everyLabel),
      (label, frame) => {
        conditionsAsked += 1
        byLabel(label).get(RowPatternOracle.visible(rows, frame.start.toInt, window), frame.start.toInt,
          frame.labels.take(frame.length).toIndexedSeq, frame.number)
      }
    )
    var matcher: Matcher[Unit] = fresh()
    private def fresh() = new Matcher(
      analyzed.copy(defined = byLabel.map(_.isDefined)),
      evaluator(defines, analyzed.labels.length),
      new RowPatternSink {
        def matched(number: Long, start: Long, length: Int, labels: Array[Int], excluded: Array[Boolean]): Unit =
          out += Matched(number, start.toInt, labels.take(length).toSeq, excluded.take(length).toSeq)
        def unmatched(position: Long): Unit = out += Unmatched(position.toInt)
      },
      window.map { case (time, span) => ((p: Long) => time(p.toInt), span) },
      bound,
      deferAbove
    )

    def run(): Seq[Event] = outcome { rows.indices.foreach(_ => matcher.push()); matcher.finish() }

    /**
     * The same run as a stream makes it: before each row, the matcher is told that no row before that row's time can
     * come ([[Matcher.expire]]), and at random rows it is saved and loaded into a fresh one. Without an anchor `$`,
     * the window's end decides every start before the partition ends.
     */
    def runResumed(random: Random): Seq[Event] = outcome {
      for (p <- rows.indices) {
        window.foreach { case (time, _) => matcher.expire(time(p)) }
        if (random.nextBoolean()) {
          val saved = new java.io.ByteArrayOutputStream
          matcher.save(new java.io.DataOutputStream(saved))
          matcher = fresh()
          matcher.load(new java.io.DataInputStream(new java.io.ByteArrayInputStream(saved.toByteArray)))
        }
        matcher.push()
      }
      for ((time, bound) <- window if rows.nonEmpty && !text.contains("$")) {
        matcher.expire(time.last + bound)
        assert(matcher.expiresAt.isEmpty && matcher.oldestNeeded == rows.length, "every start decided by the window")
      }
      matcher.finish()
    }

    private def outcome(run: => Unit): Seq[Event] = {
      try run
      catch { case e: RowPatternException => out += Failed(e.getMessage) }
      out.toSeq.map {
        case Failed(m) if m.contains("not present in match") => Failed("variable is not present in match")
        case Failed(m) if m.contains("cannot skip to first row") => Failed("cannot skip to first row of match")
        case other => other
      }
    }
  }

  /** Conditions that read `reads` of their match, each asked on the match's frame. */
  private final class FrameConditions(val reads: ConditionReads, holds: (Int, MatchFrame) => Boolean)
      extends RowPatternHost[Int, Unit] {
    type Summary = Unit
    def perRow(label: Int): Boolean = false
    def onSummary(label: Int): Boolean = false
    def keepsSummaries: Boolean = false
    def noRows: Unit = ()
    def summarize(previous: Unit, label: Int, index: Int, row: Int): Unit = ()
    val (conditionsAhead, measuresAhead, behind, readsPastMatches, window) = (0, 0, 0, true, None)
    def holdsAtRow(label: Int, position: Long, rows: PartitionRows[Int]): Boolean =
      throw new UnsupportedOperationException
    def holdsOnSummary(label: Int, summary: Unit, start: Long, current: Int, rows: PartitionRows[Int]): Boolean =
      throw new UnsupportedOperationException
    def holds(label: Int, frame: MatchFrame, rows: PartitionRows[Int]): Boolean = holds(label, frame)
    def matched(frame: MatchFrame, rows: PartitionRows[Int], row: Int): Unit = ()
    def unmatched(row: Int): Unit = ()
  }

  private def evaluator(conditions: FrameConditions, labels: Int): LabelEvaluator[Int, Unit] =
    new LabelEvaluator[Int, Unit](conditions, new HeldRows(None), labels)

  private def events(text: String, rows: IndexedSeq[Int], conditions: Map[String, Condition],
      window: Option[(IndexedSeq[Long], Long)] = None): Seq[Event] =
    new Harness(text, rows, byRow(conditions), window).run()

  /** Conditions that do not read MATCH_NUMBER(). */
  private def byRow(conditions: Map[String, Condition]): Map[String, NumberedCondition] =
    conditions.map { case (v, c) => v -> RowPatternOracle.numbered(c) }

  private def names(pattern: String)(label: Int): String = {
    val clause = MatchRecognizeParser.parse(s"PATTERN ($pattern)")
    RowPatternAnalysis.analyze(clause, pattern).labels(label)
  }
}
