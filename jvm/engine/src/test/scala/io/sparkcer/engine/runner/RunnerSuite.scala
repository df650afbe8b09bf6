package io.sparkcer.engine.runner

import java.io.{ByteArrayOutputStream, PrintStream}
import java.nio.charset.StandardCharsets
import java.nio.file.Files

import org.scalatest.funsuite.AnyFunSuite

/** The command-line runner: JSON lines on stdout, counts on stderr, clear errors and exit codes. */
class RunnerSuite extends AnyFunSuite {
  private def file(name: String, text: String): String = {
    val dir = Files.createTempDirectory("runner")
    val path = dir.resolve(name)
    Files.write(path, text.getBytes(StandardCharsets.UTF_8))
    path.toString
  }

  private def run(args: String*): (Int, String, String) = {
    val (out, err) = (new ByteArrayOutputStream, new ByteArrayOutputStream)
    val status = Main.run(args, new PrintStream(out, true, "UTF-8"), new PrintStream(err, true, "UTF-8"))
    (status, out.toString("UTF-8"), err.toString("UTF-8"))
  }

  // Out of order on purpose (the runner sorts by the stream order, keeping ties in file order); a quoted comma.
  private val csv = file(
    "events.csv",
    """event_type,name,price,ts
      |BUY,"Acme, Inc",10.5,3
      |SELL,IBM,101,1
      |BUY,IBM,99,2
      |SELL,IBM,102,4
      |BUY,IBM,98,5
      |""".stripMargin
  )

  test("each match is one JSON line with its bounds and variables; counts go to stderr") {
    val query =
      file("q.ceql", "SELECT s, b[name, price] FROM S WHERE SELL AS s ; BUY AS b FILTER s[price > 100] ORDER BY ts")
    val (status, out, err) = run("--query", query, "--csv", csv)
    assert(status == 0, err)
    assert(out.linesIterator.toSeq == Seq(
      """{"match_start": 1, "match_end": 2, "s": {"event_type": "SELL", "name": "IBM", "price": 101, "ts": 1}, "b": {"name": "IBM", "price": 99}}""",
      """{"match_start": 1, "match_end": 3, "s": {"event_type": "SELL", "name": "IBM", "price": 101, "ts": 1}, "b": {"name": "Acme, Inc", "price": 10.5}}""",
      """{"match_start": 4, "match_end": 5, "s": {"event_type": "SELL", "name": "IBM", "price": 102, "ts": 4}, "b": {"name": "IBM", "price": 98}}""",
      """{"match_start": 1, "match_end": 5, "s": {"event_type": "SELL", "name": "IBM", "price": 101, "ts": 1}, "b": {"name": "IBM", "price": 98}}"""
    ))
    assert(err.startsWith("events: 5, matches: 4, seconds: "))
    assert(err.contains("automaton: ALL over a"))
  }

  test("iterated variables are arrays, partitions come first") {
    val query = file("q.ceql", "SELECT NONE FROM S WHERE SELL ; BUY+ PARTITION BY name ORDER BY ts")
    val (status, out, _) = run("--query", query, "--csv", csv, "--quiet")
    assert(status == 0 && out.isEmpty)
    val arrays = file("a.ceql", "SELECT BUY[price] FROM S WHERE SELL ; BUY+ PARTITION BY name ORDER BY ts LIMIT 1")
    val (_, lines, _) = run("--query", arrays, "--csv", csv)
    assert(
      lines.linesIterator.next() == """{"name": "IBM", "match_start": 1, "match_end": 2, "BUY": [{"price": 99}]}""")
  }

  test("a bad query exits with 2 and the positioned message") {
    val query = file("bad.ceql", "SELECT * FROM S\nWHERE SELL ; ; BUY ORDER BY ts")
    val (status, out, err) = run("--query", query, "--csv", csv)
    assert(status == 2 && out.isEmpty)
    assert(err.startsWith("error: line 2, column 14: expected"))
    assert(err.contains("^"))
  }

  test("deep or unevaluable queries exit with 2 and a positioned message, never a stack overflow") {
    val deep =
      file("deep.ceql", "SELECT * FROM S WHERE " + "(" * 500 + "SELL AS s" + ")" * 500 + " ; BUY AS b ORDER BY ts")
    val (status, out, err) = run("--query", deep, "--csv", csv)
    assert(status == 2 && out.isEmpty)
    assert(err.startsWith("error: line 1, column 279: expected at most 256 levels of nesting"), err)
    val spark = file("spark.ceql", "SELECT * FROM S WHERE SELL AS s FILTER s[cast(price AS int) > 100] ORDER BY ts")
    val (sparkStatus, _, sparkErr) = run("--query", spark, "--csv", csv)
    assert(sparkStatus == 2 && sparkErr.contains("the engine's runner evaluates comparisons"), sparkErr)
  }

  test("an event completing more matches than --max-matches-per-event fails the run, naming the flag") {
    val query = file("q.ceql", "SELECT * FROM S WHERE (BUY AS b)+ ORDER BY ts")
    val (status, _, err) = run("--query", query, "--csv", csv, "--max-matches-per-event", "2")
    // The third BUY (ts 5) completes 4 matches: {5}, {2,5}, {3,5}, {2,3,5}.
    assert(status == 1)
    assert(err.startsWith(
        "error: the event at ts = 5 completes more than 2 matches, the bound --max-matches-per-event."), err)
    assert(run("--query", query, "--csv", csv, "--max-matches-per-event", "4")._1 == 0)
    val (badStatus, _, badErr) = run("--query", query, "--csv", csv, "--max-matches-per-event", "0")
    assert(badStatus == 2 && badErr.startsWith("--max-matches-per-event takes a whole number of at least 1, not '0'"))
  }

  test("bad arguments and unreadable input are reported, not thrown") {
    assert(run("--query", "x.ceql")._3.startsWith("missing --csv"))
    val query = file("q.ceql", "SELECT * FROM S WHERE SELL ORDER BY ts")
    val (status, _, err) = run("--query", query, "--csv", file("bad.csv", "event_type,ts\nSELL,1,extra\n"))
    assert(status == 1)
    assert(err.contains("line 2: 3 cells where the header has 2"))
  }
}
