package io.sparkcer.engine

import java.util.Random

import scala.collection.mutable

import org.scalatest.funsuite.AnyFunSuite

import io.sparkcer.engine.ceql.{Query, Strategy}
import io.sparkcer.engine.eval.{EventRing, Work}
import io.sparkcer.engine.oracle.{BruteForce, EngineHarness, Generators, Printer}
import io.sparkcer.engine.oracle.Generators.Features
import io.sparkcer.engine.pcea.{Pcea, PceaPartitionRun}
import io.sparkcer.engine.eval.MatchSink
import io.sparkcer.engine.syntax.PatternException

/**
 * Property tests of the PCEA path (Pinto and Riveros, "Complex event recognition meets hierarchical conjunctive
 * queries", §4 and §5): random patterns related by equalities ([[Generators.FormulaGen.equational]])
 * over random streams. On each, the engine (which takes the PCEA where the compiler can build one) conforms to the
 * brute-force oracle, and where the outcome is deterministic it gives the rows the general evaluator (registers or the
 * lazy chain, PCEA turned off) gives. A share of the cases must take the PCEA, so the property is not vacuous.
 *
 * The last test shows that these checks catch an ambiguous automaton: one with two runs per valuation reports each
 * match twice, and the oracle reports the duplicates.
 *
 * Reproduce a failure with `build/sbt -Doracle.seed=<seed> "engine/testOnly *PceaVsGeneralSuite"`.
 */
class PceaVsGeneralSuite extends AnyFunSuite {
  private val onlySeed: Option[Long] = sys.props.get("oracle.seed").map(_.toLong)
  private val scale: Double = sys.props.get("oracle.cases").map(_.toDouble / 1000).getOrElse(1.0)
  private val columns = Generators.Columns
  private val options = EngineOptions(timeColumn = Some("ts"))

  private def compile(q: Query): LocalQuery = LocalEngine.compile(Printer.query(q), columns, options)

  /**
   * Whether the engine takes the PCEA for the query, and the problem with its output, if any (None: skip). The query
   * is compiled (`compiled`, once) only where the oracle can check it.
   */
  private def check(q: Query, rows: IndexedSeq[Array[Any]], compiled: => LocalQuery)
      : Option[(Boolean, Option[String])] =
    (try Some(new BruteForce.Oracle(q, columns, options).prepare(rows))
    catch { case _: BruteForce.TooLarge => None })
      .map { prepared =>
        val query = compiled
        val got = EngineHarness.matches(query, rows)
        val problem = prepared.check(got).orElse {
          val deterministic = q.strategy == Strategy.All && q.limit.isEmpty
          val general =
            try Some(EngineHarness.run(Printer.query(q), columns, rows, options.copy(equalityPcea = false))._2)
            catch {
              case e: PatternException if e.problem.contains("Def. 3.2") => None
            } // registers would need a window
          general.filter(g => deterministic && g.sortBy(_.toString) != got.sortBy(_.toString))
            .map(g => s"the general evaluator gives other rows:\n    ${g.mkString("\n    ")}")
        }
        (query.pattern.pcea.isDefined, problem)
      }

  private def check(q: Query, rows: IndexedSeq[Array[Any]]): Option[(Boolean, Option[String])] =
    check(q, rows, compile(q))

  /** Whether the query runs on a PCEA whose operands of AND can read one event ([[io.sparkcer.engine.pcea.SharedEvents]]). */
  private def sharesEvents(compiled: LocalQuery): Boolean = compiled.pattern.pcea.exists(!_.shared.isEmpty)

  /**
   * How the query's PCEA keeps the latest runs of unselected atoms: whether it does, per incoming key (in a treap),
   * with no row de-duplicated.
   */
  private def latestRuns(compiled: LocalQuery): (Boolean, Boolean, Boolean) =
    compiled.pattern.pcea.filter(_.latestOnly.nonEmpty)
      .fold((false, false, false))(p => (true, p.latestOnly.values.exists(!_), p.rowsTellRunsApart))

  /**
   * Checks `cases` random queries with `features`, of which at least `minPcea` must take the PCEA; with `selfJoins`,
   * only the queries whose operands of AND can read one event are checked (and counted), the others drawn past; with
   * `unselected` (the features leave a variable unselected), at least `minMerged` of the cases must keep only the
   * latest runs of an unselected atom ([[io.sparkcer.engine.pcea.PceaPlan.latestOnly]]), a tenth of them per incoming
   * key, and a third of them with no row de-duplicated.
   */
  private def property(name: String, cases: Int, features: Features, minPcea: Double, selfJoins: Boolean = false,
      unselected: Boolean = false, minMerged: Int = 0): Unit = test(name) {
    val seeds = onlySeed.map(Seq(_)).getOrElse(
      (0 until math.max(1, (cases * scale).toInt)).map(i => 0x9ceaL * 1000003L + name.hashCode.toLong * 7919L + i))
    var (checked, viaPcea, conjunctions) = (0, 0, 0)
    var (merged, grouped, apart) = (0, 0, 0)
    val failures = mutable.ArrayBuffer.empty[String]
    for (seed <- seeds if failures.size < 3) {
      val rnd = new Random(seed)
      val q = Generators.query(rnd, features)
      // Longer streams where unselected atoms may take several events between two selected ones.
      val rows = Generators.stream(rnd, if (unselected) 8 + rnd.nextInt(9) else 4 + rnd.nextInt(7))
      lazy val compiled = compile(q)
      if (!selfJoins || sharesEvents(compiled)) check(q, rows, compiled).foreach { case (pcea, problem) =>
        checked += 1
        if (pcea) { viaPcea += 1; if (Generators.containsAnd(q.pattern)) conjunctions += 1 }
        if (unselected) latestRuns(compiled) match {
          case (true, byGroup, rowsApart) =>
            merged += 1
            if (byGroup) grouped += 1
            if (rowsApart) apart += 1
          case _ =>
        }
        problem.foreach { p =>
          val (sq, sr) = Generators.shrink(q, rows, (cq, cr) => check(cq, cr).exists(_._2.isDefined))
          failures += s"seed $seed\nquery: ${Printer.query(q)}\nproblem: $p\n--- shrunk ---\nquery: ${Printer.query(sq)}\n" +
            s"stream:\n${Generators.showStream(sr, columns)}\nproblem: ${check(sq, sr).flatMap(_._2).getOrElse("?")}"
        }
      }
    }
    info(s"$checked checked, $viaPcea on a PCEA ($conjunctions of them with AND" +
      (if (unselected) s"; $merged keeping the latest runs of an unselected atom, $grouped of them per incoming key, " +
         s"$apart with no row de-duplicated)"
       else ")"))
    if (failures.nonEmpty) fail(failures.mkString("\n\n"))
    if (onlySeed.isEmpty) {
      assert(
        merged >= minMerged && grouped >= minMerged / 10 && apart >= minMerged / 3,
        s"only $merged cases kept the latest runs of an unselected atom, $grouped per incoming key, $apart with no row " +
          "de-duplicated"
      )
      assert(viaPcea >= checked * minPcea, s"only $viaPcea of $checked cases took the PCEA")
      assert(conjunctions > 0 || !features.conjunction, "no case with AND took the PCEA")
      assert(!selfJoins || checked >= cases / 50, s"only $checked self-joins among $cases queries")
    }
  }

  property(
    "equalities in sequences, OR, iterations and AND: PCEA, the oracle and the general evaluator agree",
    1500,
    Features(equalities = true, conjunction = true, strategies = false, consumption = false, limits = false,
      partitions = false),
    minPcea = 0.3
  )

  property("equalities with windows, partitions, ANY, CONSUME BY, LIMIT and projections", 1000,
    Features(equalities = true, conjunction = true), minPcea = 0.2)

  // Runs that differ only in an unselected atom's event, of which the PCEA keeps the latest per key (in a
  // chain: without AND).
  property(
    "equalities with some variables not selected: PCEA, the oracle and the general evaluator agree, no row " +
      "repeated where the latest run of an unselected atom is kept alone",
    1500,
    Features(equalities = true, conjunction = false, strategies = false, consumption = false, limits = false,
      partitions = false, someUnselected = true),
    minPcea = 0.3,
    unselected = true,
    minMerged = 160
  )

  // The operands of AND may read one event (two atoms of one type); the PCEA keeps them apart in its joins.
  property(
    "self-joins: conjunctions whose operands can read one event; PCEA, the oracle and the general evaluator agree",
    3000,
    Features(equalities = true, conjunction = true, selfJoins = true, strategies = false, consumption = false,
      limits = false),
    minPcea = 1.0,
    selfJoins = true
  )

  test("an ambiguous PCEA would be caught: two runs per valuation report each match twice, and the oracle says so") {
    val text = "SELECT * FROM S WHERE A AS a ; B AS b FILTER a.x = b.g WITHIN 5 EVENTS ORDER BY ts"
    val q = EngineHarness.parser.get(text)
    val rows = Generators.stream(new Random(7), 40)
    val local = LocalEngine.compile(text, columns)
    val plan = local.pattern.pcea.getOrElse(fail("the query runs on a PCEA"))
    assert(plan.rowsTellRunsApart, "rows are not de-duplicated, so nothing hides a second run")

    /** The plan's automaton with each transition into a final state twice: every valuation gets two run trees. */
    val original = plan.pcea
    val doubled = original.transitions.indices.filter(e => original.finals(original.transitions(e).target))
    val ambiguous = new Pcea(
      original.stateCount,
      original.transitions ++ doubled.map(original.transitions),
      original.finals,
      (producer, consumer, slot) => {
        def of(e: Int) = if (e < original.transitions.length) e else doubled(e - original.transitions.length)
        val c = original.consumers(original.transitions(of(producer)).target).indexOf((of(consumer), slot))
        original.indexKeys(of(producer))(c)
      }
    )

    /** The rows of a plan over `rows`, reported as the engine reports them (one partition, WITHIN 5 EVENTS). */
    def rowsOf(p: io.sparkcer.engine.pcea.PceaPlan): Vector[BruteForce.Row] = {
      val events = new EventRing[Event]
      val run = new PceaPartitionRun(p, local.reader, events, new Work)
      val out = Vector.newBuilder[BruteForce.Row]
      val variables = local.pattern.nfa.labels
      for ((values, i) <- rows.zipWithIndex) {
        val event = new Event(i.toLong, values.clone())
        val bits = new Array[Long](local.pattern.nfa.symbolWords)
        local.reader.classify(event, bits)
        events.append(i.toLong, event, i.toLong)
        run.read(
          i.toLong,
          0,
          bits,
          i.toLong,
          i - 5L,
          new MatchSink {
            def accept(start: Long, size: Int, positions: Array[Long], labels: Array[Int]): Boolean = {
              val bound = (0 until 2).map(v =>
                (0 until size).filter(k => variables(labels(k)).contains(v)).map(positions).sorted.toVector)
              out += BruteForce.Row(Vector.empty, start, i.toLong, bound.toVector)
              true
            }
          }
        )
      }
      out.result()
    }

    val oracle = new BruteForce.Oracle(q, columns)
    val unambiguous = rowsOf(plan)
    assert(unambiguous.nonEmpty && oracle.check(rows, unambiguous).isEmpty)
    assert(unambiguous == EngineHarness.run(text, columns, rows)._2)
    val twice = rowsOf(plan.copy(pcea = ambiguous))
    assert(twice.length == 2 * unambiguous.length)
    assert(oracle.check(rows, twice).exists(_.contains("duplicate rows")))
  }
}
