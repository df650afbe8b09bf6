package io.sparkcer.engine

import java.io.File
import java.nio.charset.StandardCharsets
import java.nio.file.Files

import org.scalatest.funsuite.AnyFunSuite

import io.sparkcer.engine.eval.{MatchBound, TooManyMatchesException}

/**
 * The README's examples of conditions relating events run on the stock trace, so that the README cannot drift to
 * a query that fails or never ends: each on a slice of the trace (its first 20,000 events), with matches.
 */
class ReadmeExamplesSuite extends AnyFunSuite {
  private lazy val (columns, trace) = StockTrace.read(limit = 20000)
  private val options = EngineOptions(timeColumn = Some("stock_time"))

  /** The statements of the first SQL block after the README's definition of a condition, comments left out. */
  private val examples: Seq[String] = {
    val readme = new String(Files.readAllBytes(new File(StockTrace.root, "README.md").toPath), StandardCharsets.UTF_8)
    val after = readme.substring(readme.indexOf("A *condition* relates events"))
    val block = after.substring(after.indexOf("```sql") + 6, after.indexOf("```", after.indexOf("```sql") + 6))
    val lines = block.linesIterator.map(_.replaceAll("--.*$", "").trim).filter(_.nonEmpty).toSeq
    lines.foldLeft(Vector.empty[String]) { (statements, line) =>
      if (line.startsWith("SELECT")) statements :+ line else statements.init :+ s"${statements.last} $line"
    }
  }

  test("the README shows five condition examples, the last with NONE(...)") {
    assert(examples.length == 5, examples.mkString("\n"))
    assert(examples.last.contains("NONE(SELL AS o FILTER o.name = s.name)"))
  }

  for ((example, i) <- examples.zipWithIndex)
    test(s"README condition example ${i + 1} runs on the trace's first 20,000 events, with matches: $example") {
      val q = LocalEngine.compile(example, columns, options)
      val matches = q.run(trace.iterator).size
      assert(matches > 0, "an example that matches nothing on the trace shows nothing")
      assert(q.metrics.peakLiveNodes < 100000, s"${q.metrics.peakLiveNodes} tECS nodes")
    }

  test("the example as it was, (SELL AS s)+ FILTER sum(s.volume) > 100000, ends at the node bound with a message") {
    // It ran the driver out of memory: on one stock's first 400 events, 5.6 GB of runs, one per distinct sum.
    val query =
      "SELECT * FROM stocks PATTERN (SELL AS s)+ FILTER sum(s.volume) > 100000 PARTITION BY name WITHIN 1 MINUTES"
    val intc = trace.iterator.filter(_(columns.indexOf("name")) == "INTC").take(600)
    val bound = MatchBound(MatchBound.DefaultPerEvent, "--matches", nodes = 200000, nodesSetting = "--nodes")
    val error = intercept[TooManyMatchesException](
      LocalEngine.compile(query, columns, options, bound).run(intc).foreach(_ => ()))
    assert(error.getMessage.contains("name = INTC"), error.getMessage)
    assert(error.getMessage.contains("more than 200000 tECS nodes"), error.getMessage)
    assert(error.getMessage.contains("its conditions (sum(s.volume) > 100000) keep a run per distinct value"))
  }
}
