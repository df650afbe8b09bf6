package io.sparkcer.engine.analysis

import java.util.concurrent.{Executors, TimeUnit, TimeoutException}

import org.scalatest.funsuite.AnyFunSuite

import io.sparkcer.engine.{LocalEngine, LocalQuery}
import io.sparkcer.engine.automaton.NfaCompiler
import io.sparkcer.engine.syntax.PatternException

/**
 * Analysis and compilation take time linear in the query, or refuse it before the work a limit bounds: a recursion
 * that evaluated an operand of OR twice cost 2^n for n alternatives (32 took 11 s, 36 over two minutes), one that
 * gathered the variables of both operands at every ';' was cubic, and the automaton of an AND of n events, which
 * remembers which operands are done, has about n 2^n states.
 */
class QuerySizeSuite extends AnyFunSuite {
  private val columns = IndexedSeq("event_type", "v", "ts")

  /** Compiles the query on a thread of its own, failing the test (not hanging it) if it takes more than `seconds`. */
  private def compileWithin(seconds: Int)(query: String): Either[PatternException, LocalQuery] = {
    val pool = Executors.newSingleThreadExecutor { r =>
      val t = new Thread(r); t.setDaemon(true); t
    }
    try {
      val done = pool.submit(() =>
        try Right(LocalEngine.compile(query, columns))
        catch { case e: PatternException => Left(e) })
      try done.get(seconds, TimeUnit.SECONDS)
      catch { case _: TimeoutException => fail(s"compiling took more than $seconds s: $query") }
    } finally pool.shutdownNow()
  }

  private def alternatives(n: Int, operator: String): String =
    (0 until n).map(i => s"T$i AS x$i").mkString(s" $operator ")

  test("an OR of 64 alternatives is analysed and compiled at once, each operand once") {
    val q = compileWithin(5)(s"SELECT * FROM S WHERE ${alternatives(64, "OR")} WITHIN 10 [ts]").toOption.get
    assert(q.outputVariables.length == 64)
    // Each x_i binds one event in its own alternative and none in the others: its count varies.
    assert(q.pattern.analyzed.outputs.forall(!_.single))
    val conditions = (0 until 64).map(i => s"(T$i AS x$i ; U AS u$i FILTER x$i.v < u$i.v)").mkString(" OR ")
    assert(compileWithin(5)(s"SELECT * FROM S WHERE $conditions WITHIN 10 [ts]").isRight)
  }

  test("a sequence of 990 events, near the deepest pattern the parser takes, is analysed at once") {
    // The analysis visits each operand once: gathering the variables again at every ';' was cubic (3.5 s at 900 events).
    val q = compileWithin(3)(s"SELECT * FROM S WHERE ${alternatives(990, ";")} WITHIN 10 [ts]").toOption.get
    assert(q.outputVariables.length == 990)
    val shared = compileWithin(3)(s"SELECT * FROM S WHERE ${alternatives(990, ";")} ; T0 AS x0 WITHIN 10 [ts]")
    assert(!shared.toOption.get.pattern.analyzed.outputs.head.single, "x0 binds the first and the last event")
  }

  test("an AND of 16 events is refused before its automaton is built, at the AND, saying what to write") {
    val error = compileWithin(5)(s"SELECT * FROM S WHERE ${alternatives(16, "AND")} WITHIN 10 [ts]").swap.toOption.get
    assert(error.problem.startsWith(s"this AND of 16 operands needs an automaton of more than " +
        s"${NfaCompiler.MaxConjunctionStates} states"), error.problem)
    assert(error.problem.contains("as a sequence (A ; B needs no such memory)"))
    assert(error.pos.line == 1 && error.pos.column == 23)
  }

  test("an AND of 10 events, below the limit, compiles and runs") {
    val q = compileWithin(10)(s"SELECT * FROM S WHERE ${alternatives(10, "AND")} WITHIN 100 [ts]").toOption.get
    assert(q.pattern.nfa.stateCount < NfaCompiler.MaxConjunctionStates)
    val events = (0 until 10).map(i => Array[Any](s"T${9 - i}", Long.box(i), Long.box(i)))
    assert(q.run(events.iterator).size == 1)
  }
}
