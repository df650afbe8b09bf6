package io.sparkcer.engine.complexity

import java.util.Random

import org.scalatest.funsuite.AnyFunSuite

import io.sparkcer.engine.{EngineOptions, LocalEngine, LocalQuery}
import io.sparkcer.engine.ceql.{Filter, Query}
import io.sparkcer.engine.eval.{MatchBound, TooManyMatchesException}
import io.sparkcer.engine.oracle.{BruteForce, Generators, Printer}
import io.sparkcer.engine.expr.{ArithmeticOp, ComparisonOp, Expr}
import io.sparkcer.engine.syntax.Position

/**
 * The register path (RMA) within the papers' bounds, checked by counting work
 * ([[io.sparkcer.engine.eval.Work]]), never by timing. `SELECT c ... (A AS a)+ ; C AS c FILTER a.v <= c.v + 10` kept a
 * list of a's events per run, so runs split per subset of the a's in the window (update work doubling every four
 * events of window) and repeated the row of their first a, each repetition enumerated and dropped. Now a register
 * keeps a's hardest event, and the later a's of an unselected a are skipped rather than taken: runs are one per
 * start, the update work per event grows linearly with the window, and nothing is enumerated to be dropped.
 *
 * Windows grow 10x and 100x over a base T = 10 at which runs are saturated (every state the automaton reaches is
 * active); a path whose work grows quadratically grows 100x per 10x of window and fails, an exponential one does not
 * finish within the bounds.
 */
class RegisterComplexitySuite extends AnyFunSuite {
  import WorkProbe._

  private val T = 10
  private val random = () => stream(5000)

  /** How much more the update work per event may grow than the window does: a constant, not the window. */
  private val Slack = 2.0

  /**
   * Runs `query(w)` for w in `windows` (with `options`); checks that the update work per event grows at most as the window to the
   * power `degree` (times [[Slack]]), that nothing is dropped, and that enumeration is linear in the output.
   */
  private def overWindows(query: Int => String, windows: Seq[Int], degree: Int = 1,
      options: EngineOptions = EngineOptions()): Seq[Measure] = {
    val measures = windows.map(w => measure(query(w), random(), options))
    info(windows.zip(measures).map { case (w, m) => s"window $w: $m" }.mkString("\n"))
    assert(
      measures.last.rows > measures.head.rows, "the workload should match more in a wider window, or it tests nothing")
    for (((w0, m0), (w1, m1)) <- windows.zip(measures).zip(windows.zip(measures).tail)) {
      val allowed = Slack * math.pow(w1.toDouble / w0, degree)
      assert(
        m1.updatePerEvent <= allowed * m0.updatePerEvent,
        f"update work per event grew from ${m0.updatePerEvent}%.2f at window $w0 to ${m1.updatePerEvent}%.2f at $w1"
      )
    }
    for ((w, m) <- windows.zip(measures)) {
      assert(
        m.metrics.work.dropped == 0, s"${m.metrics.work.dropped} complex events enumerated to be dropped at window $w")
      assert(
        m.enumerationPerOutput <= 2.0, f"enumeration took ${m.enumerationPerOutput}%.2f steps per output at window $w")
    }
    measures
  }

  private val issue = (w: Int) => s"SELECT c FROM S WHERE (A AS a)+ ; C AS c FILTER a.v <= c.v + 10 WITHIN $w [ts]"

  test("the issue's example: update work linear in the window, nothing dropped, enumeration linear in the output") {
    overWindows(issue, Seq(T, 10 * T, 100 * T))
  }

  // Its relatives: the other comparisons, either side, a second condition, PARTITION BY, and a condition whose a
  // side does not stand alone (every a kept, but an unselected a's later events are skipped all the same).
  for (condition <- Seq(
      "a.v < c.v + 10",
      "c.v + 10 >= a.v",
      "a.v > c.v - 10",
      "c.v - 10 < a.v",
      "a.v <= c.v + 10 AND a.k >= c.k",
      "a.v - c.v <= 10",
      "a.v <= c.v + 10 PARTITION BY k"
    ))
    test(s"the issue's relatives, a unselected: $condition") {
      overWindows(
        w => s"SELECT c FROM S WHERE (A AS a)+ ; C AS c FILTER $condition WITHIN $w [ts]", Seq(T, 10 * T, 100 * T))
    }

  /** `A AS a ; B AS b ; C AS c` with b unselected, filtered by `condition`. */
  private val between = (condition: String) =>
    (w: Int) =>
      s"SELECT a, c FROM S WHERE A AS a ; B AS b ; C AS c FILTER $condition WITHIN $w [ts]"

  // Before, a run per b that the condition holds for, each with the row (a, c), each enumerated, all but one dropped:
  // 98,021 dropped at a window of 100 events and 9,329,826 at 1,000 (of 3,000 events) for the first. Now the run
  // takes the first b and keeps the easiest (ExistentialTakes), and an OR's alternatives share a run (JoinedLabels).
  // A b that only an earlier event's condition reads (b.v > a.v + 50) is kept by no register, but its take dropped
  // a's, and each b made a run of its own all the same.
  // An OR whose alternative reads no b (a.v > c.v) takes its b once too, so that both move as one run.
  for (condition <- Seq("b.v < c.v", "c.v + 10 >= b.v", "(b.v < c.v OR b.k > c.k)", "(b.v < c.v OR a.v > c.v)",
      "b.v > a.v + 50", "b.v < c.v PARTITION BY k"))
    test(s"an unselected event between, one comparison reads it: one run per match, nothing dropped: $condition") {
      overWindows(between(condition), Seq(T, 10 * T, 100 * T))
    }

  // An aggregate over an unselected iteration between: a run per subset of b's events, each with the row (a, c),
  // exponential in the window (stopped by the bound at 1,000 events). Some subset satisfies the condition exactly
  // when a single b does, so the iteration is read as one b (SingleEventAggregates) and the registers keep the
  // easiest one, as for `b.v < c.v`.
  for (condition <- Seq("avg(b.v) < c.v", "c.v >= min(b.v)", "max(b.v) > a.v + 50", "first(b.v) < c.v",
      "last(b.k) > c.k AND a.v < c.v"))
    test(s"an aggregate over an unselected iteration between, read over one event: nothing dropped: $condition") {
      val iterated =
        (w: Int) => s"SELECT a, c FROM S WHERE A AS a ; (B AS b)+ ; C AS c FILTER $condition WITHIN $w [ts]"
      val measures = overWindows(iterated, Seq(T, 10 * T, 100 * T))
      assert(measures.forall(_.path.contains("read over one event of b")), measures.last.path)
    }

  test("an aggregate over an unselected iteration that one event cannot stand for is left as written") {
    def explain(query: String) = LocalEngine.compile(query, columns).pattern.describe
    val stays = Seq(
      "SELECT a, c FROM S WHERE A AS a ; (B AS b)+ ; C AS c FILTER sum(b.v) < c.v", // a sum grows with the subset
      "SELECT a, c FROM S WHERE A AS a ; (B AS b)+ ; C AS c FILTER avg(b.v) = c.v", // 1 and 3 average 2
      "SELECT a, c FROM S WHERE A AS a ; (B AS b)+ ; C AS c FILTER avg(b.v) * avg(b.v) < c.v", // -5 and 5 average 0
      "SELECT a, c FROM S WHERE A AS a ; (B AS b)+ ; C AS c FILTER max(b.v) < c.v AND count(b) > 2",
      "SELECT a, b, c FROM S WHERE A AS a ; (B AS b)+ ; C AS c FILTER max(b.v) < c.v", // b selected
      "SELECT c FROM S WHERE (B AS b)+ ; C AS c FILTER max(b.v) < c.v", // b's first event starts the match
      "SELECT a, c FROM S WHERE A AS a : (B AS b)+ ; C AS c FILTER max(b.v) < c.v", // a's next event is b's first
      "SELECT a, c FROM S WHERE A AS a ; NONE(D) ; (B AS b)+ ; C AS c FILTER max(b.v) < c.v",
      "SELECT LAST a, c FROM S WHERE A AS a ; (B AS b)+ ; C AS c FILTER max(b.v) < c.v"
    )
    for (query <- stays) assert(!explain(s"$query WITHIN 100 [ts]").contains("read over one event"), query)
    val read = explain("SELECT a, c FROM S WHERE A AS a ; (B AS b)+ ; C AS c FILTER avg(b.v) < c.v WITHIN 100 [ts]")
    assert(
      read.startsWith("avg(b.v) < c.v read over one event of b (b is not selected, and some of its events " +
        "satisfy the condition exactly when one does): "),
      read
    )
  }

  test("an OR of conditions on selected events: its alternatives share a run, nothing dropped") {
    // Each alternative read a into its own scope's register, under a label of its own: two runs, one row. (The lazy
    // chain, which tells such alternatives apart by their checks, is off: this is the registers' path.)
    overWindows(w => s"SELECT * FROM S WHERE A AS a ; C AS c FILTER a.v < c.v OR a.k > c.k WITHIN $w [ts]",
      Seq(T, 10 * T, 100 * T), options = EngineOptions(lazyChains = false))
  }

  test("a selected: a run per hardest event, each subset of a's events in one run, nothing dropped") {
    // The rows are the subsets of the qualifying a's, each once; a run per hardest a holds those of every start
    // before it, so the work is quadratic in the window, where a list of a's events made it exponential.
    for (op <- Seq("<", ">=")) {
      val condition = if (op == "<") "a.v < c.v - 80" else "a.v - 80 >= c.v"
      overWindows(w => s"SELECT a, c FROM S WHERE (A AS a)+ ; C AS c FILTER $condition WITHIN $w [ts]",
        Seq(T, 10 * T), degree = 2)
    }
  }

  test("a run's union-list is merged once while it stays the same: union nodes made within the output's size") {
    // Rising values, three in a row, per key (the stock benchmark's c_rising): every b extends each run below it, and
    // every other event hands each run's list on unchanged. A list handed on carries its merge along
    // (UnionList.suffixes), so unions are made only in front of what changed: fewer than the rows and events. Merged
    // afresh at each event that extends it, its entries (one per start) made unions past the bound of live tECS nodes
    // at a window of 10,000 (on the trace, 7x the nodes).
    val query = (w: Int) =>
      s"SELECT * FROM S WHERE (B AS b)+ FILTER b.v > prev(b.v) AND count(b) = 3 PARTITION BY k WITHIN $w [ts]"
    // From a window of 1,000 (100 events per key) every (prev, count) the 20 values allow is a run.
    for (w <- Seq(1000, 10000)) {
      val m = measure(query(w), stream(10000, values = 20))
      info(s"window $w: ${m.metrics.work.unionNodes} union nodes made, ${m.metrics.peakLiveNodes} live at most; $m")
      assert(m.rows > 1000, s"the workload should match, or it tests nothing: $m")
      assert(
        m.metrics.work.unionNodes <= m.rows + m.events, s"more union nodes made than rows and events at window $w: $m")
      assert(m.metrics.maxOutputDepth <= 3, s"the tECS is no longer 3-bounded at window $w: $m")
    }
  }

  test("a NONE related to an earlier event, judged on registers under ALL: update work linear in the window") {
    // A run per a in the window waits for b, each stopped by a C dearer than its a: RMA's bound, as without the NONE.
    val measures = overWindows(
      w =>
        "SELECT * FROM S WHERE A AS a ; NONE(C AS n FILTER n.v > a.v) ; B AS b FILTER " +
          s"a.v < b.v WITHIN $w [ts]",
      Seq(T, 10 * T, 100 * T),
      options = EngineOptions(lazyChains = false)
    )
    assert(measures.head.path.contains("1 NONE(...) relating its event to earlier ones judged against the registers"),
      measures.head.path)
  }

  /** An unselected b that two comparisons read: no one b is the easiest for both, so a run per b, each with (a, c). */
  private val twoComparisons = (w: Int) =>
    s"SELECT a, c FROM S WHERE A AS a ; B AS b ; C AS c FILTER b.v < c.v AND b.k > c.k WITHIN $w [ts]"

  test("EXPLAIN says how the runs grow, and where rows still repeat") {
    def explain(query: String, options: EngineOptions = EngineOptions()) =
      LocalEngine.compile(query, columns, options).pattern.describe
    val linear = explain(issue(100))
    assert(linear.contains("registers (RMA), runs polynomial in the window, each register holding one of its events " +
        "or values"), linear)
    assert(!linear.contains("dropped (counted)"), linear)
    val chosen = explain(between("b.v < c.v")(100))
    assert(
      chosen.contains("1 take of an unselected variable made once per match, the later events challenging it for " +
        "the easiest (so its runs repeat no row)") && !chosen.contains("dropped (counted)"),
      chosen
    )
    // On registers alone, two comparisons keep a run per b; the lazy chain finds one b per row instead
    // (ChainComplexitySuite), and so the registers' repeats are dropped only while they lead a race.
    val onRegisters = EngineOptions(lazyChains = false)
    val repeating = explain(twoComparisons(100), onRegisters)
    assert(repeating.contains("rows repeated by runs that unselected events or an OR of conditions keep apart " +
        "dropped (counted)"), repeating)
    val m = measure(twoComparisons(20), random(), onRegisters)
    assert(m.rows > 0 && m.metrics.work.dropped > 0, m.toString)
    assert(explain(twoComparisons(100)).contains("one event of b found per match, not one match per event"))
  }

  test("rows repeated past the bound on an event's matches stop the query, naming the cause") {
    // A run per b between a and c, each with the row (a, c): at a window of 200 events, dozens of repeats of one row
    // at each C. Without a bound on them, a query whose runs all project onto a few rows ran on, unbounded.
    val query = twoComparisons(200)
    val bound = MatchBound(20, "the test's bound")
    val error = intercept[TooManyMatchesException](measure(query, random(), EngineOptions(lazyChains = false), bound))
    assert(
      error.getMessage.contains("completes more than 20 runs whose rows repeat one already output, the bound " +
        "the test's bound: the runs are kept apart by events no selected variable binds, or by an OR of conditions"),
      error.getMessage
    )
    assert(error.getMessage.contains("Select the variables that tell the runs apart"), error.getMessage)
    val unbounded = measure(query, random(), EngineOptions(lazyChains = false))
    assert(unbounded.rows > 0 && unbounded.metrics.work.dropped > 20, unbounded.toString)
  }

  test("a sum over a repeating variable: exponential runs, said by EXPLAIN, stopped at the bound naming the cause") {
    val query = "SELECT * FROM S WHERE (A AS a)+ FILTER sum(a.v) < 0 WITHIN 40 [ts]"
    val explained = LocalEngine.compile(query, columns).pattern.describe
    assert(explained.contains("runs up to 2^n over the window's n events, as 'sum(a.v) < 0' keeps a sum per subset " +
        "of a's events"), explained)
    // Sums of subsets of distinct powers of two are all distinct: 2^k runs after k events.
    val powers = Iterator.tabulate(2000)(i => Array[Any]("A", Long.box(0), Long.box(1L << (i % 40)), Long.box(i)))
    val bound = MatchBound(MatchBound.DefaultPerEvent, "--matches", nodes = 100000, nodesSetting = "--nodes")
    // The registers alone: the lazy chain would take the iteration too, and visit its subsets up to its own bound.
    val error = intercept[TooManyMatchesException](measure(query, powers, EngineOptions(lazyChains = false), bound))
    for (part <- Seq("hold more than 100000 tECS nodes", "'sum(a.v) < 0' keeps a sum per subset of a's events",
        "max, min or count rather than sum or avg", "raise --nodes"))
      assert(error.getMessage.contains(part), s"'$part' in: ${error.getMessage}")
  }

  test("a condition that keeps every event of a selected repeating variable: said by EXPLAIN, stopped at the bound") {
    val query = "SELECT * FROM S WHERE (A AS a)+ ; C AS c FILTER a.v - c.v <= 10 WITHIN 1000 [ts]"
    val explained = LocalEngine.compile(query, columns).pattern.describe
    assert(explained.contains("runs up to 2^n over the window's n events, as 'a.v - c.v <= 10' keeps every event " +
        "of a"), explained)
    val error = intercept[TooManyMatchesException](
      measure(query, random(), EngineOptions(lazyChains = false), MatchBound(1000, "--max")))
    for (part <- Seq(
        "leaves more than 1000 partial matches",
        "'a.v - c.v <= 10' keeps every event of a",
        "b.price < s.price rather than b.price - s.price < 0",
        "raise --max"
      ))
      assert(error.getMessage.contains(part), s"'$part' in: ${error.getMessage}")
  }

  private def pick[A](rnd: Random, xs: A*): A = xs(rnd.nextInt(xs.length))

  /**
   * A random order comparison of one of `v`'s attributes with one of `other`'s shifted by 0 to 2 (<, <=, > or >=,
   * either side first): the conditions of the random families below.
   */
  private def ordered(rnd: Random, v: String, other: String): Filter = {
    import io.sparkcer.engine.oracle.Dsl._
    val P = Position.Unknown
    val (x, y) = (attr(v, pick(rnd, "x", "y", "z")), attr(other, pick(rnd, "x", "y", "z")))
    val shifted = Expr.Arithmetic(pick(rnd, ArithmeticOp.Add, ArithmeticOp.Subtract), y, lit(rnd.nextInt(3)), P)
    val op = pick(rnd, ComparisonOp.Lt, ComparisonOp.LtEq, ComparisonOp.Gt, ComparisonOp.GtEq)
    rel(if (rnd.nextBoolean()) Expr.Comparison(op, x, shifted, P) else Expr.Comparison(op, shifted, x, P))
  }

  /** `q` compiled and run over `rows`, its rows checked against the brute-force oracle: the query and its rows. */
  private def againstOracle(seed: Int, q: Query, rows: IndexedSeq[Array[Any]]): (LocalQuery, Vector[BruteForce.Row]) = {
    val engine = LocalEngine.compile(Printer.query(q), Generators.Columns)
    val got = engine.run(rows.iterator.map(_.clone())).map(BruteForce.Row.of).toVector
    new BruteForce.Oracle(q, Generators.Columns).check(rows, got)
      .foreach(problem => fail(s"seed $seed:\n${Printer.query(q)}\n$problem"))
    (engine, got)
  }

  /**
   * The issue's family on short random streams, against the brute-force oracle, dropping nothing: `(A AS a)+ ; C AS c`
   * filtered by an order comparison (either side, any of <, <=, >, >=, Doubles, NULLs), sometimes a second one, with
   * a selected or not, sometimes PARTITION BY.
   */
  test("the issue's family matches the oracle on random streams and drops nothing") {
    import io.sparkcer.engine.oracle.Dsl._
    var matched = 0
    for (seed <- 0 until 600) {
      val rnd = new Random(seed)
      def comparison() = ordered(rnd, "a", "c")
      val conditions = if (rnd.nextInt(3) == 0) comparison() and comparison() else comparison()
      val q: Query = query(
        atom("A").as("a").plus.seq(atom("C").as("c")).filter(conditions),
        selection = pick(rnd, select("c"), select("c"), select("a", "c"), select("a")),
        partitionBy = if (rnd.nextInt(4) == 0) Seq(Seq("g")) else Nil,
        within = Some(pick(rnd, events(6), span(4000, "ts")))
      )
      val (engine, got) = againstOracle(seed, q, Generators.stream(rnd, 4 + rnd.nextInt(7)))
      assert(engine.metrics.work.dropped == 0, s"seed $seed: ${Printer.query(q)}: ${engine.metrics.work.describe}")
      if (got.nonEmpty) matched += 1
    }
    info(s"600 cases, $matched with matches")
    assert(matched > 100, "the family should match often, or it tests little")
  }

  /**
   * An unselected event between two others, on random streams against the brute-force oracle: `A AS a ; B AS b ; C AS
   * c` (sometimes a second unselected D after b, or a selected e between a and b) filtered by order comparisons of b with c or a (either side, any of
   * <, <=, >, >=, NULLs), an OR of two, an AND of two, or one of a with c OR-ed with one of b; b selected or not. Where
   * EXPLAIN does not say that rows repeat, nothing is dropped; and that must be most of the cases.
   */
  test("an unselected event between matches the oracle on random streams, dropping nothing where EXPLAIN says so") {
    import io.sparkcer.engine.oracle.Dsl._
    var (matched, chosen, exact) = (0, 0, 0)
    for (seed <- 0 until 600) {
      val rnd = new Random(seed)
      def b() = ordered(rnd, "b", pick(rnd, "c", "c", "a"))
      val conditions = rnd.nextInt(6) match {
        case 0 => b() or b()
        case 1 => b() and b()
        case 2 => ordered(rnd, "a", "c") or b()
        case _ => b()
      }
      // Sometimes a selected event e between a and b, which b's checks must not take for a's register.
      val first = if (rnd.nextInt(2) == 0) atom("A").as("a").seq(atom("C").as("e")) else atom("A").as("a")
      val between = first.seq(atom("B").as("b"))
      val pattern = (if (rnd.nextInt(4) == 0) between.seq(atom("A").as("d")) else between).seq(atom("C").as("c"))
      val selected = pick(rnd, Seq("a", "c"), Seq("a", "c"), Seq("c"), Seq("a", "b", "c"))
      val q: Query = query(
        pattern.filter(conditions),
        selection = select(selected ++ Option.when(first != atom("A").as("a"))("e"): _*),
        partitionBy = if (rnd.nextInt(4) == 0) Seq(Seq("g")) else Nil,
        within = Some(pick(rnd, events(7), span(4000, "ts")))
      )
      val (engine, got) = againstOracle(seed, q, Generators.stream(rnd, 5 + rnd.nextInt(9)))
      val path = engine.pattern.describe
      if (!path.contains("rows repeated by runs")) {
        assert(engine.metrics.work.dropped == 0, s"seed $seed: ${Printer.query(q)}: ${engine.metrics.work.describe}")
        exact += 1
      }
      if (path.contains("made once per match")) chosen += 1
      if (got.nonEmpty) matched += 1
    }
    info(s"600 cases, $matched with matches, $chosen with a take made once per match, $exact repeating no row")
    assert(matched > 100, "the family should match often, or it tests little")
    assert(chosen > 150, "many cases should take their unselected event once per match, or this tests little")
    assert(exact > 400, "most cases should repeat no row")
  }
}
