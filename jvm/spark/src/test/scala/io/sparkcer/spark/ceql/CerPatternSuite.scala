package io.sparkcer.spark.ceql

import java.io.{ByteArrayInputStream, ByteArrayOutputStream, ObjectInputStream, ObjectOutputStream}

import org.scalatest.funsuite.AnyFunSuite

import io.sparkcer.engine.analysis.Analyzer
import io.sparkcer.engine.ceql.CeqlParser

/** A query is compiled once per JVM: the tasks' copies of the plan share the driver's automaton. */
class CerPatternSuite extends AnyFunSuite {
  private def pattern(query: String, equalityPcea: Boolean = true): CerPattern = CerPattern(
    Analyzer.analyze(CeqlParser.parse(query), query, IndexedSeq("event_type", "v", "ts"), "event_type", None, None),
    query, equalityPcea)

  /** What a task receives: the pattern serialized with its plan and read back. */
  private def shipped(p: CerPattern): CerPattern = {
    val bytes = new ByteArrayOutputStream()
    val out = new ObjectOutputStream(bytes)
    out.writeObject(p)
    out.close()
    new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray)).readObject().asInstanceOf[CerPattern]
  }

  test("every task's copy of a pattern finds the driver's compilation instead of building the automaton again") {
    val driver = pattern("SELECT * FROM S WHERE (A AS a ; B AS b) AND C AS c FILTER a.v < c.v WITHIN 10 [ts]")
    val tasks = Seq.fill(3)(shipped(driver))
    assert(tasks.forall(t => (t ne driver) && t == driver))
    assert(tasks.forall(_.compiled eq driver.compiled))
  }

  test("patterns that differ in their query or their settings are compiled apart") {
    val query = "SELECT * FROM S WHERE A AS a ; B AS b FILTER a.v = b.ts WITHIN 10 [ts]"
    assert(pattern(query).compiled ne pattern(query.replace("10", "20")).compiled)
    assert(pattern(query).compiled.pcea.isDefined && pattern(query, equalityPcea = false).compiled.pcea.isEmpty)
  }
}
