package io.sparkcer.engine.analysis

import org.scalatest.funsuite.AnyFunSuite

import io.sparkcer.engine.{EngineOptions, LocalEngine}
import io.sparkcer.engine.syntax.PatternException

/** Every analysis error names the place, the problem and what to write instead. */
class AnalyzerSuite extends AnyFunSuite {
  private val columns = IndexedSeq("event_type", "id", "name", "price", "ts")

  private def error(query: String, options: EngineOptions = EngineOptions()): PatternException =
    intercept[PatternException](LocalEngine.compile(query, columns, options))

  test("a filter on a variable bound elsewhere says to move the FILTER outward") {
    val e = error("SELECT * FROM S WHERE SELL AS a ; (BUY AS b FILTER a[price > 1]) ORDER BY ts")
    assert(e.pos.line == 1 && e.pos.column == 52)
    assert(e.problem.startsWith("variable 'a' is not bound in the pattern this FILTER applies to"))
    assert(e.problem.contains("move this FILTER outward"))
    assert(e.getMessage.linesIterator.toSeq.last.trim == "^")
  }

  test("a filter on a variable bound nowhere lists the variables it could filter") {
    val e = error("SELECT * FROM S WHERE SELL AS a ; BUY AS b FILTER c[price > 1] ORDER BY ts")
    assert(e.problem.contains("bind it with AS"))
    assert(e.problem.contains("SELL, a, BUY, b"))
  }

  test("FILTER on an iterated variable applies to every event it binds") {
    val q = LocalEngine.compile("SELECT * FROM S WHERE (BUY AS x)+ FILTER x[price > 1] ORDER BY ts", columns)
    assert(q.outputVariables == IndexedSeq("x"))
    assert(!q.pattern.analyzed.outputs.head.single)
  }

  test("the same AS variable on both sides of ';', ':' or AND binds the events of both (CEL's valuations)") {
    for (op <- Seq(";", ":", "AND")) {
      val q = LocalEngine.compile(s"SELECT * FROM S WHERE SELL AS x $op BUY AS x ORDER BY ts", columns)
      assert(q.outputVariables == IndexedSeq("x"))
      assert(!q.pattern.analyzed.outputs.head.single, s"x binds two events under $op")
    }
  }

  test("event types may repeat in a sequence, and OR may bind one name on both branches") {
    LocalEngine.compile("SELECT * FROM S WHERE SELL ; BUY ; BUY ; SELL ORDER BY ts", columns)
    LocalEngine.compile("SELECT * FROM S WHERE (SELL AS x OR BUY AS x) ; BUY AS y ORDER BY ts", columns)
  }

  test("an unknown column names the columns that exist") {
    val e = error("SELECT * FROM S WHERE SELL AS a FILTER a[prce > 1] ORDER BY ts")
    assert(e.problem == "unknown column 'prce'; the columns are: event_type, id, name, price, ts")
    assert(e.pos.column == 42)
    assert(e.getMessage.endsWith("^^^^"))
    assert(error("SELECT * FROM S WHERE SELL PARTITION BY nam ORDER BY ts").problem.startsWith("unknown column 'nam'"))
    assert(error("SELECT a[nme] FROM S WHERE SELL AS a ORDER BY ts").problem.startsWith("unknown column 'nme'"))
    assert(error("SELECT * FROM S WHERE SELL WITHIN 5 [tss]").problem.startsWith("unknown column 'tss'"))
  }

  test("an unknown variable in SELECT lists the variables the pattern binds") {
    val e = error("SELECT z FROM S WHERE SELL AS a ; BUY ORDER BY ts")
    assert(e.problem == "unknown variable 'z' in SELECT; the pattern binds: SELL, a, BUY")
  }

  test("a stream without an order is refused with what to add") {
    val e = error("SELECT * FROM S WHERE SELL ; BUY")
    assert(e.problem.contains("add ORDER BY <column>"))
    assert(e.problem.contains("WITHIN n [<column>]"))
    // any of the three orders is enough
    LocalEngine.compile("SELECT * FROM S WHERE SELL ; BUY ORDER BY ts", columns)
    LocalEngine.compile("SELECT * FROM S WHERE SELL ; BUY WITHIN 10 [ts]", columns)
    LocalEngine.compile("SELECT * FROM S WHERE SELL ; BUY", columns, EngineOptions(timeColumn = Some("ts")))
  }

  test("a WITHIN column must lead the stream order") {
    val e = error("SELECT * FROM S WHERE SELL ; BUY ORDER BY id WITHIN 10 [ts]")
    assert(e.problem.contains("put ts first in ORDER BY"))
  }

  test("a pattern that can end with NOT is refused") {
    val e = error("SELECT * FROM S WHERE SELL ; NOT(BUY) ORDER BY ts")
    assert(e.problem.startsWith("a match cannot end with NOT(...)"))
    assert(e.pos.column == 30)
    error("SELECT * FROM S WHERE NOT(BUY) ORDER BY ts")
    LocalEngine.compile("SELECT * FROM S WHERE NOT(BUY) ; SELL ORDER BY ts", columns)
  }

  test("a filter inside NOT may only name the negated type") {
    val e = error("SELECT * FROM S WHERE SELL AS a ; NOT(BUY FILTER a[price > 1]) ; SELL ORDER BY ts")
    assert(e.problem.contains("can only name 'BUY'"))
  }

  test("a stream prefix must name a stream of FROM") {
    val e = error("SELECT * FROM S WHERE T>SELL ORDER BY ts")
    assert(e.problem == "unknown stream 'T' in 'T>...'; FROM names: S")
  }

  test("SELECT * picks the AS variables, or the event types when there is none; structs only for single events") {
    def outputs(q: String) = LocalEngine.compile(q, columns).pattern.analyzed.outputs.map(o => o.name -> o.single)
    assert(outputs("SELECT * FROM S WHERE SELL AS a ; BUY+ ; (SELL OR BUY) AS c ORDER BY ts") ==
      Seq("a" -> true, "c" -> true))
    assert(outputs("SELECT * FROM S WHERE SELL ; BUY+ ORDER BY ts") == Seq("SELL" -> true, "BUY" -> false))
    assert(outputs("SELECT * FROM S WHERE (SELL ; BUY) AS pair ORDER BY ts") == Seq("pair" -> false))
    assert(outputs("SELECT * FROM S WHERE SELL AS a OR BUY AS b ORDER BY ts") == Seq("a" -> false, "b" -> false))
    assert(outputs("SELECT NONE FROM S WHERE SELL AS a ORDER BY ts").isEmpty)
    assert(LocalEngine.compile("SELECT a[price, name] FROM S WHERE SELL AS a ORDER BY ts", columns)
      .pattern.analyzed.outputs.head.attributes == IndexedSeq(3, 2))
  }

  // ---- NONE(...) -------------------------------------------------------------------------------------------

  private def at(e: PatternException): (Int, Int, Int) = (e.pos.line, e.pos.column, e.length)

  test("NONE's event binds nothing: SELECT of it and a FILTER outside the NONE naming it say where it is") {
    val query =
      "SELECT %s FROM S WHERE SELL AS a ; NONE(BUY AS b FILTER b.name = a.name) ; SELL AS c%s WITHIN 5 EVENTS ORDER BY ts"
    val select = error(query.format("b", ""))
    assert(
      select.problem == "unknown variable 'b' in SELECT ('b' is the event of NONE(...) at line 1, column 35, which " +
        "binds nothing in the match); the pattern binds: SELL, a, c")
    assert(at(select) == ((1, 8, 1)))
    val filter = error(query.format("*", " FILTER b[price > 1]"))
    assert(filter.problem == "variable 'b' is not bound in the pattern this FILTER applies to; 'b' is the event of " +
      "NONE(...) at line 1, column 35, which binds nothing in the match: test it inside the NONE, NONE(... FILTER b...)")
    assert(at(filter) == ((1, 92, 1)))
    assert(LocalEngine.compile(query.format("a, c", ""), columns).outputVariables == IndexedSeq("a", "c"))
  }

  test("NONE's filter names its event and the variables of the operands around it, as a conjunction of tests") {
    def problem(pattern: String): (String, (Int, Int, Int)) = {
      val e = error(s"SELECT * FROM S WHERE $pattern WITHIN 5 EVENTS ORDER BY ts")
      (e.problem, at(e))
    }
    assert(problem("(SELL AS a ; NONE(BUY AS b FILTER b.price > z.price) ; SELL AS c) ; BUY AS z") == ((
      "'z' is not bound next to this NONE: its filter may name its event 'b' and the variables of the operands of ';' " +
        "around it (SELL, a, c)", (1, 67, 1))))
    assert(problem("SELL AS a ; NONE(BUY AS b FILTER a[price > 1]) ; SELL") == ((
      "inside NONE(...) a filter a[...] can only test NONE's event, 'b'; relate it to other events with a condition, " +
        "e.g. b.price > a.price", (1, 56, 1))))
    assert(problem("SELL AS a ; NONE(BUY AS b FILTER b[price > 1] OR b[price < 0]) ; SELL")._1 ==
      "OR is not supported inside NONE(...): NONE(B FILTER p OR q) is NONE(B FILTER p) ; NONE(B FILTER q), neither " +
      "event between")
    assert(problem("SELL AS a ; NONE(BUY AS b FILTER NOT b[price > 1]) ; SELL")._1 ==
      "NOT is not supported inside NONE(...); negate the predicate itself, e.g. price <= 5")
    assert(problem("(SELL AS a)+ ; NONE(BUY AS b FILTER b.price > max(a.price)) ; SELL") == ((
      "inside NONE(...) a condition judges one event at a time against single events of the match: max(...) is not " +
        "supported there", (1, 69, 3))))
    assert(problem("SELL AS a ; NONE(BUY AS a) ; SELL") == ((
      "'a' is bound by the pattern too, but NONE's event binds nothing in the match: give it a name of its own, e.g. " +
        "NONE(... AS no_a ...)", (1, 47, 1))))
    assert(problem("BUY AS x ; NONE(BUY FILTER BUY.price > x.price) ; SELL") == ((
      "'BUY' names both NONE's event and an event the pattern binds: name NONE's event, e.g. NONE(BUY AS no_BUY " +
        "FILTER no_BUY...)", (1, 50, 3))))
    assert(problem("SELL ; NONE(BUY OR SELL FILTER SELL[price > 1]) ; SELL") == ((
      "NONE(BUY OR SELL FILTER ...) needs a name for its event, whichever its type: NONE(BUY OR SELL AS e FILTER " +
        "e.price > 5)", (1, 30, 4))))
  }

  test(
    "NONE inside an operand of AND, and NONE relating its event to a later one on a pattern the lazy chain does not take") {
    val and = error("SELECT * FROM S WHERE (SELL ; NONE(BUY) ; SELL) AND BUY ORDER BY ts")
    assert(and.problem.startsWith("NONE(...) is not supported inside an operand of AND"))
    assert(at(and) == ((1, 31, 4)))
    val later = "SELECT %s * FROM S WHERE SELL AS a ; NONE(BUY AS b FILTER b.name = c.name) ; SELL AS c %s ORDER BY ts"
    for ((strategy, clauses, options) <- Seq(
        ("", "", EngineOptions()),
        ("ANY", "WITHIN 5 EVENTS", EngineOptions()),
        ("", "WITHIN 5 EVENTS LIMIT 1", EngineOptions()),
        ("", "WITHIN 5 EVENTS", EngineOptions(lazyChains = false))
      )) {
      val e = error(later.format(strategy, clauses), options)
      assert(
        e.problem.startsWith("NONE(... FILTER ...) relates its event 'b' to the events of the match (b.name = " +
          "c.name), naming 'c' bound after it, which only the lazy chain judges: it takes a sequence of single events"),
        clauses
      )
      assert(
        e.problem.contains("A NONE whose conditions name only variables bound before it (NONE(B AS b FILTER " +
          "b.acct = a.acct)) runs with any pattern and clause, judged against the registers"),
        clauses
      )
      assert(e.problem.contains("(the lazy chain is turned off here)") == !options.lazyChains, clauses)
      assert(at(e)._3 == 4)
    }
    assert(LocalEngine.compile(later.format("", "WITHIN 5 EVENTS"), columns).pattern.chain.isDefined)
    // Naming only variables bound before it, the registers judge it, with any pattern and clause.
    val earlier = "SELECT %s * FROM S WHERE (SELL AS a)+ ; NONE(BUY AS b FILTER b.name = a.name) ; SELL %s ORDER BY ts"
    for ((strategy, clauses) <-
        Seq(("", ""), ("ANY", "WITHIN 5 EVENTS"), ("LAST", "LIMIT 1"), ("MAX", "CONSUME BY ANY")))
      assert(LocalEngine.compile(earlier.format(strategy, clauses), columns).pattern.registers.exists(
          _.judgements.nonEmpty))
    // Testing its event alone, a NONE runs with any pattern and clause.
    LocalEngine.compile(
      "SELECT LAST * FROM S WHERE (SELL AS a)+ ; NONE(BUY FILTER BUY[price > 1]) ; SELL LIMIT 1 ORDER BY ts",
      columns)
  }

  test(
    "SELECT MAX where every match has as many events is ALL, and runs as ALL; with an iteration, OR or AND it is not") {
    val rows =
      (0 until 40).map(i => Array[Any](Seq("SELL", "BUY")(i % 3 % 2), Long.box(i), "n", Long.box(i % 7), Long.box(i)))
    def run(query: String) = {
      val q = LocalEngine.compile(query, columns)
      (q.run(rows.iterator).map(m => m.bindings.map(_.map(_.seq).toSeq)).toSet, q.pattern.describe)
    }
    for (pattern <- Seq(
        "SELL AS s ; BUY AS b ; BUY AS c",
        "(SELL AS s ; BUY) OR (BUY AS s ; SELL)",
        "SELL AS s ; NONE(BUY FILTER BUY[price > 5]) ; BUY AS b FILTER b.price > s.price"
      )) {
      val (max, explained) = run(s"SELECT MAX * FROM S WHERE $pattern WITHIN 6 [ts]")
      val (all, _) = run(s"SELECT * FROM S WHERE $pattern WITHIN 6 [ts]")
      assert(explained.startsWith("MAX read as ALL (every match has"), explained)
      assert(max == all && max.nonEmpty, pattern)
    }
    for (pattern <- Seq("SELL AS s ; BUY+ AS b", "(SELL AS s ; BUY) OR SELL AS s", "SELL AS s AND BUY AS b"))
      assert(run(s"SELECT MAX * FROM S WHERE $pattern WITHIN 6 [ts]")._2.startsWith("MAX over"), pattern)
  }
}
