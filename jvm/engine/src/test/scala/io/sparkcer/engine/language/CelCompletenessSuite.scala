package io.sparkcer.engine.language

import java.util.Random

import org.scalatest.funsuite.AnyFunSuite

import io.sparkcer.engine.ceql.CeqlParser
import io.sparkcer.engine.oracle.{BruteForce, EngineHarness, Generators}
import io.sparkcer.engine.EngineOptions

/**
 * What the CEL paper defines and CEQL used to refuse, checked against the brute-force oracle of the formal semantics on
 * random streams: one variable bound on both sides of `;`, `:` or AND (CEL's valuations give it the events of both),
 * and AND wherever a formula stands (inside `;`, `:`, `+` and OR, as the PCEA and lazy chain papers nest it).
 */
class CelCompletenessSuite extends AnyFunSuite {
  private val columns = Generators.Columns

  /** The query's rows on `streams` random streams of up to `length` events equal the oracle's. */
  private def agreesWithOracle(query: String, streams: Int = 60, length: Int = 24,
      options: EngineOptions = EngineOptions()): Unit = {
    val parsed = CeqlParser.parse(query)
    var matched = 0
    for (seed <- 0 until streams) {
      val rows = Generators.stream(new Random(seed), new Random(seed).nextInt(length + 1))
      val (_, got) = EngineHarness.run(query, columns, rows, options)
      new BruteForce.Oracle(parsed, columns, options).check(rows, got).foreach { problem =>
        fail(s"seed $seed, $query:\n$problem")
      }
      if (got.nonEmpty) matched += 1
    }
    assert(matched > streams / 10, s"only $matched of $streams streams matched: the case tests little")
  }

  for (query <- Seq(
      "SELECT * FROM S WHERE A AS v ; B AS v WITHIN 3000 [ts]",
      "SELECT * FROM S WHERE A AS v : B AS v ORDER BY ts",
      "SELECT v FROM S WHERE A AS v ; B AS w ; C AS v FILTER v[x > 1] WITHIN 4000 [ts]",
      "SELECT * FROM S WHERE (A AS v ; B AS v) ; C AS c FILTER v.x < c.x WITHIN 4000 [ts]",
      "SELECT * FROM S WHERE A AS v ; B AS v FILTER sum(v.x) > 2 AND count(v) = 2 WITHIN 3000 [ts]",
      "SELECT * FROM S WHERE A AS v ; (B AS v)+ FILTER max(v.x) <= 2 WITHIN 3000 [ts]",
      "SELECT * FROM S WHERE A AS v ; B AS v ; C AS c FILTER v.g = c.g WITHIN 4000 [ts]",
      "SELECT * FROM S WHERE A AS v ; B AS w ; C AS v FILTER v.x = w.x WITHIN 4000 [ts]",
      "SELECT * FROM S WHERE A AS v AND B AS v WITHIN 2000 [ts]",
      "SELECT MAX * FROM S WHERE A AS v ; B+ AS v WITHIN 3000 [ts]",
      "SELECT LAST * FROM S WHERE A AS v ; B AS v WITHIN 3000 [ts]",
      "SELECT NEXT v FROM S WHERE A AS v ; C ; B AS v WITHIN 3000 [ts]"
    ))
    test(s"one variable on both sides agrees with the oracle: $query") {
      agreesWithOracle(query)
    }

  for (query <- Seq(
      "SELECT * FROM S WHERE (A AS a AND B AS b) ; C AS c WITHIN 4000 [ts]",
      "SELECT * FROM S WHERE C AS c ; (A AS a AND B AS b) WITHIN 4000 [ts]",
      "SELECT * FROM S WHERE (A AS a AND B AS b) : C AS c ORDER BY ts",
      "SELECT * FROM S WHERE (A AS a AND B AS b)+ WITHIN 5000 [ts]",
      "SELECT * FROM S WHERE C AS c ; (A AS a AND B AS b):+ WITHIN 5000 [ts]",
      "SELECT * FROM S WHERE ((A AS a ; B AS b) AND C AS c) ; A AS d WITHIN 5000 [ts]",
      "SELECT * FROM S WHERE (A AS a AND B AS b) OR (C AS c ; B AS b) WITHIN 3000 [ts]",
      "SELECT * FROM S WHERE (A AS a AND B AS b) ; C AS c FILTER a[x > 1] AND c.x > b.x WITHIN 4000 [ts]",
      "SELECT * FROM S WHERE (A AS a AND B AS b) ; C AS c FILTER a.g = c.g WITHIN 4000 [ts]",
      "SELECT * FROM S WHERE ((A AS a AND B AS b) FILTER a.x < b.x)+ WITHIN 5000 [ts]",
      "SELECT MAX * FROM S WHERE (A AS a AND B AS b) ; C+ AS c WITHIN 4000 [ts]",
      "SELECT LAST * FROM S WHERE (A AS a AND B AS b) ; C AS c WITHIN 4000 [ts]",
      "SELECT STRICT * FROM S WHERE (A AS a AND B AS b) : C AS c ORDER BY ts"
    ))
    test(s"AND inside ';', ':', '+' and OR agrees with the oracle: $query") {
      agreesWithOracle(query)
    }
}
