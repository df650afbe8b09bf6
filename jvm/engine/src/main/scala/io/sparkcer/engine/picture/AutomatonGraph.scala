package io.sparkcer.engine.picture

import io.sparkcer.engine.analysis.Equality
import io.sparkcer.engine.automaton.{Nfa, Transition}
import io.sparkcer.engine.pcea.PceaPlan
import io.sparkcer.engine.plan.CompiledPattern
import io.sparkcer.engine.rowpattern.{AnalyzedRowPattern, Program}

/**
 * A compiled automaton as a graph to draw (`spark_cer.explain_pattern`): its states, and its transitions labelled by
 * what they read. It is the automaton that runs, not a picture of the query: CORE's CEA (with the checks the
 * registers place on its transitions), the PCEA of a pattern whose equalities one keys, or a MATCH_RECOGNIZE
 * pattern's program, instruction by instruction. Transitions between the same two nodes of one kind share an edge,
 * their labels one under the other.
 *
 * @param automaton "CEA", "PCEA" or "program"
 * @param summary   what EXPLAIN says of it
 * @param size      its states (instructions for a program); past [[AutomatonGraph.MaxNodes]] nodes and edges are left
 *                  empty
 */
final case class AutomatonGraph(automaton: String, summary: String, size: Int, nodes: Seq[GraphNode],
    edges: Seq[GraphEdge])

/** A node: `kind` is "start", "state", "accepting" or "junction" (a PCEA transition that joins several runs, or a
 *  program's split or jump, which reads no row). */
final case class GraphNode(id: String, label: String, kind: String)

/** An edge: `kind` is "read" (reads an event or row), "skip" (passes one by, or moves without reading) or "join"
 *  (a PCEA run joined by an equality). */
final case class GraphEdge(from: String, to: String, label: String, kind: String)

object AutomatonGraph {
  /** The most nodes a drawing takes: past it, a picture would be a blot, and EXPLAIN's numbers say more. */
  final val MaxNodes = 300

  /** The automaton a CEQL query runs on: its PCEA where one keys its equalities, else its CEA. */
  def of(pattern: CompiledPattern): AutomatonGraph = pattern.pcea.fold(cea(pattern))(pcea(pattern, _))

  /** A MATCH_RECOGNIZE pattern's program ([[Program]]): each instruction a node, in the order the matcher prefers. */
  def of(pattern: AnalyzedRowPattern): AutomatonGraph = {
    val program = pattern.program
    val conditions = pattern.clause.defines.map(d =>
      d.variable.value.toUpperCase(java.util.Locale.ROOT) ->
        d.condition.text.trim).toMap
    def node(k: Int) = s"i$k"
    val nodes = GraphNode("start", "start", "start") +: program.opcodes.indices.map { k =>
      program.opcodes(k) match {
        case Program.MatchLabel => GraphNode(node(k), program.labels(program.a(k)), "state")
        case Program.Done => GraphNode(node(k), "match", "accepting")
        case Program.PartitionStart => GraphNode(node(k), "^", "junction")
        case Program.PartitionEnd => GraphNode(node(k), "$", "junction")
        case Program.ExclusionStart => GraphNode(node(k), "{-", "junction")
        case Program.ExclusionEnd => GraphNode(node(k), "-}", "junction")
        case _ => GraphNode(node(k), "", "junction")
      }
    }
    val edges = GraphEdge("start", node(0), "", "skip") +: program.opcodes.indices.flatMap { k =>
      program.opcodes(k) match {
        case Program.MatchLabel =>
          val label = program.labels(program.a(k))
          Seq(GraphEdge(node(k), node(k + 1), conditions.getOrElse(label, "any row"), "read"))
        case Program.Split => Seq(GraphEdge(node(k), node(program.a(k)), "1st", "skip"),
            GraphEdge(node(k), node(program.b(k)), "2nd", "skip"))
        case Program.Jump => Seq(GraphEdge(node(k), node(program.a(k)), "", "skip"))
        case Program.Done => Nil
        case _ => Seq(GraphEdge(node(k), node(k + 1), "", "skip"))
      }
    }
    bounded(AutomatonGraph("program",
        s"a program of ${program.size} instructions over the pattern variables " +
          s"${program.labels.mkString(", ")}", program.size, nodes, edges))
  }

  /** CORE's CEA: state 0 waits for a match to start; an edge reads an event into the variables it names, or skips. */
  private def cea(pattern: CompiledPattern): AutomatonGraph = {
    val nfa = pattern.nfa
    def node(q: Int) = s"q$q"
    val nodes = nfa.transitions.indices.map { q =>
      GraphNode(node(q), node(q), if (q == Nfa.Initial) "start" else if (nfa.finals(q)) "accepting" else "state")
    }
    val edges = for {
      (ts, q) <- nfa.transitions.zipWithIndex
      t <- ts
    } yield GraphEdge(node(q), node(t.target), read(pattern, t), if (t.reads) "read" else "skip")
    bounded(AutomatonGraph("CEA", pattern.describe, nfa.stateCount, nodes, merged(edges)))
  }

  /** What a CEA transition reads: its guard, the conditions it checks, what a skip excludes, the variables it binds. */
  private def read(pattern: CompiledPattern, t: Transition): String = {
    val nfa = pattern.nfa
    def guard(g: Int): String =
      if (g < nfa.guards.length) nfa.guards(g).toString
      else pattern.registers.flatMap { r =>
        val check = g - nfa.guards.length
        r.checks.lift(check).map(c => nfa.conditions(c.condition).text)
          .orElse(r.judgements.find(_.bit == g).map(_ => "a NONE's event"))
      }.getOrElse(s"bit $g")
    val what = if (t.guard < 0) "any" else (if (t.negated) "NOT " else "") + guard(t.guard)
    val checks = t.checks.map(c => s" if ${guard(c)}").mkString
    val but = (t.excludes.map(guard) ++ t.judges.map(g => s"NONE(${nfa.gaps(g).variable})"))
      .map(g => s" but $g").mkString
    val bound = if (!t.marks) ""
    else {
      val selected = nfa.labels(t.label).map(pattern.analyzed.outputs(_).name)
      if (selected.nonEmpty) s" → ${selected.mkString(", ")}" else " •"
    }
    what + checks + but + bound
  }

  /**
   * A PCEA (Pinto and Riveros, §3): a transition (P, U, 𝓑, L, q) with no child starts a run from "start"; with one,
   * it extends that child's runs whose key equals the event's; with several, it joins one run of each at a junction.
   */
  private def pcea(pattern: CompiledPattern, plan: PceaPlan): AutomatonGraph = {
    val nfa = pattern.nfa
    val automaton = plan.pcea
    val atoms = nfa.atoms.length
    def name(atom: Int): String = nfa.atoms(atom - 1).variables.last
    def node(q: Int) = s"p$q"
    // A key extractor reads, per class of its key, one side of an equality: `t1.src`.
    def key(extractor: Int): String = plan.extractors(extractor).flatMap { case (condition, side) =>
      Equality.of(nfa.conditions(condition)).map(_.sides(side)).map(s => s"${s.variable}.${s.attribute}")
    }.distinct.mkString(", ")
    // What joining child slot `slot` of transition `e` compares: its event's key, and that of each run it may find.
    def joined(e: Int, slot: Int): String = {
      val child = automaton.transitions(e).children(slot)
      val consumer = automaton.consumers(child).indexOf((e, slot))
      val found = automaton.transitions.indices.filter(automaton.transitions(_).target == child)
        .map(p => key(automaton.indexKeys(p)(consumer))).distinct
      val own = key(automaton.transitions(e).joins(slot))
      if (own.isEmpty) "any run" else s"$own = ${found.mkString(" | ")}"
    }
    val pieces = automaton.transitions.zipWithIndex.map { case (t, e) =>
      val reads = nfa.guards(t.guard).toString + " → " + t.labels.map(name).mkString(", ")
      t.children match {
        case Seq() => (Nil, Seq(GraphEdge("start", node(t.target), reads, "read")))
        case Seq(child) => (Nil, Seq(GraphEdge(node(child), node(t.target), s"$reads\n${joined(e, 0)}", "read")))
        case children =>
          val junction = s"t$e"
          (Seq(GraphNode(junction, "", "junction")),
            children.indices.map(s => GraphEdge(node(children(s)), junction, joined(e, s), "join")) :+
              GraphEdge(junction, node(t.target), reads, "read"))
      }
    }
    // The states of q-tree nodes that no transition reaches (a sequence is one operand, with no q-tree) are left out.
    val used = automaton.transitions.flatMap(t => t.children :+ t.target).toSet
    val states = (0 until automaton.stateCount).filter(used).map { q =>
      GraphNode(node(q), if (q < atoms) name(q + 1) else s"∧${q - atoms}",
        if (automaton.finals(q)) "accepting" else "state")
    }
    val nodes = GraphNode("start", "start", "start") +: (states ++ pieces.flatMap(_._1))
    bounded(AutomatonGraph("PCEA", pattern.describe, automaton.stateCount, nodes, merged(pieces.flatMap(_._2))))
  }

  /** One edge per (from, to, kind), the labels of the transitions it stands for one per line. */
  private def merged(edges: Seq[GraphEdge]): Seq[GraphEdge] =
    edges.groupBy(e => (e.from, e.to, e.kind)).toSeq.sortBy(g => edges.indexOf(g._2.head)).map { case (_, same) =>
      same.head.copy(label = same.map(_.label).distinct.mkString("\n"))
    }

  private def bounded(graph: AutomatonGraph): AutomatonGraph =
    if (graph.nodes.length <= MaxNodes) graph else graph.copy(nodes = Nil, edges = Nil)
}
