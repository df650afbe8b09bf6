package io.sparkcer.engine.picture

import org.scalatest.funsuite.AnyFunSuite

import io.sparkcer.engine.{EngineOptions, LocalEngine}
import io.sparkcer.engine.rowpattern.{MatchRecognizeParser, Program, RowPatternAnalysis}

/**
 * The graphs `spark_cer.explain_pattern` draws stand for the automata that run: every transition of the CEA, of the
 * PCEA and of the program is an edge of its graph, between the nodes of its states, and nothing else is.
 */
class AutomatonGraphSuite extends AnyFunSuite {
  private val columns = IndexedSeq("event_type", "ts", "acct", "src", "price")

  private def compiled(query: String) = LocalEngine.compile(query, columns, EngineOptions()).pattern

  test("a CEA's graph has a node per state and an edge per pair of states and kind of transition") {
    val pattern = compiled("SELECT * FROM S WHERE SELL AS s ; (BUY AS b)+ ; SELL AS e FILTER b.price > s.price " +
      "WITHIN 10 [ts]")
    val graph = AutomatonGraph.of(pattern)
    val nfa = pattern.nfa
    assert(graph.automaton == "CEA" && graph.size == nfa.stateCount)
    assert(graph.nodes.map(_.id) == nfa.transitions.indices.map(q => s"q$q"))
    assert(graph.nodes.count(_.kind == "accepting") == nfa.finals.count(identity))
    val expected = (for ((ts, q) <- nfa.transitions.zipWithIndex; t <- ts)
      yield (s"q$q", s"q${t.target}", if (t.reads) "read" else "skip")).toSet
    assert(graph.edges.map(e => (e.from, e.to, e.kind)).toSet == expected)
    assert(graph.edges.length == expected.size, "one edge per pair of states and kind")
    // The checks the registers place on a transition read as the condition they check.
    assert(graph.edges.exists(_.label.contains("BUY if b.price > s.price → b")), graph.edges)
  }

  test("a PCEA's transitions with several children join them at a junction, keyed by their equalities") {
    val pattern = compiled("SELECT * FROM S WHERE (SELL AS a ; BUY AS b) AND (SELL AS c ; BUY AS d) " +
      "FILTER a.acct = c.acct AND b.src = d.src AND a.acct = b.src WITHIN 10 [ts]")
    val pcea = pattern.pcea.get.pcea
    val graph = AutomatonGraph.of(pattern)
    assert(graph.automaton == "PCEA" && graph.size == pcea.stateCount)
    val junctions = graph.nodes.filter(_.kind == "junction")
    assert(junctions.length == pcea.transitions.count(_.children.length > 1))
    val joining = pcea.transitions.filter(_.children.length > 1)
    assert(graph.edges.count(_.kind == "join") == joining.map(_.children.length).sum)
    assert(graph.edges.count(_.from == "start") == pcea.transitions.count(_.children.isEmpty))
    assert(graph.edges.filter(_.kind == "join").map(_.label).toSet == Set("b.src = a.acct", "b.src = d.src",
      "d.src = b.src", "d.src = c.acct"))
  }

  test("a program's graph has a node per instruction, its splits in order of preference") {
    val text = "ORDER BY ts PATTERN (^ A {- B -} C? $) DEFINE A AS price > 1"
    val analyzed = RowPatternAnalysis.analyze(MatchRecognizeParser.parse(text), text)
    val graph = AutomatonGraph.of(analyzed)
    val program = analyzed.program
    assert(graph.automaton == "program" && graph.size == program.size)
    assert(graph.nodes.length == program.size + 1, "and the start")
    assert(graph.nodes.map(_.label).filter(Set("^", "$", "{-", "-}")) == Seq("^", "{-", "-}", "$"))
    val splits = program.opcodes.indices.filter(program.opcodes(_) == Program.Split)
    assert(splits.nonEmpty && splits.forall { k =>
      graph.edges.filter(_.from == s"i$k").map(e => (e.to, e.label)) ==
        Seq((s"i${program.a(k)}", "1st"), (s"i${program.b(k)}", "2nd"))
    })
    assert(graph.edges.collect { case e if e.kind == "read" => e.label } == Seq("price > 1", "any row", "any row"))
  }

  test("past MaxNodes a graph keeps its size and summary, not its nodes") {
    val text = "ORDER BY ts PATTERN (PERMUTE(A, B, C, D, E))"
    val graph = AutomatonGraph.of(RowPatternAnalysis.analyze(MatchRecognizeParser.parse(text), text))
    assert(graph.size > AutomatonGraph.MaxNodes && graph.nodes.isEmpty && graph.edges.isEmpty)
    assert(graph.summary.startsWith(s"a program of ${graph.size} instructions"))
  }
}
