package io.sparkcer.engine.analysis

import org.scalatest.funsuite.AnyFunSuite

import io.sparkcer.engine.{EngineOptions, LocalEngine}
import io.sparkcer.engine.ceql.CeqlException

/** Every analysis error names the place, the problem and what to write instead. */
class AnalyzerSuite extends AnyFunSuite {
  private val columns = IndexedSeq("event_type", "id", "name", "price", "ts")

  private def error(query: String, options: EngineOptions = EngineOptions()): CeqlException =
    intercept[CeqlException](LocalEngine.compile(query, columns, options))

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
}
