package io.sparkcer.engine.pcea

import scala.collection.mutable

import org.scalatest.funsuite.AnyFunSuite

/**
 * Algorithm 1 of the PCEA paper (Pinto and Riveros, "Complex event recognition meets hierarchical conjunctive
 * queries", §5) on its worked examples (Examples 3.1 and 3.3, Figure 2), verbatim: P0 and P_Q0 (the Thm 4.1 automaton
 * of Q0(x,y) ← T(x), S(x,y), R(x,y), with the erratum of Fig. 2 applied: S joins R on x and y) over S0, with and
 * without windows; the φ4 bridge over the stream of paper 001's Figure 1; and the index's memory under a window.
 */
class PceaWorkedExamplesSuite extends AnyFunSuite {
  import PceaWorkedExamplesSuite.Tuple

  /** Guards are relation names; an equality joins on variables, its key (both sides) their values, or undefined. */
  private final class Reader(guards: IndexedSeq[Tuple => Boolean], joins: IndexedSeq[Seq[String]])
      extends PceaReader[Tuple] {
    def passes(guard: Int, event: Tuple): Boolean = guards(guard)(event)
    def key(join: Int, t: Tuple): AnyRef = {
      val values = joins(join).map(t.variable)
      if (values.forall(_.isDefined)) values.flatten else null
    }
  }

  private def relation(name: String): Tuple => Boolean = _.relation == name

  /** S0 = S(2,11)@0 T(2)@1 R(1,10)@2 S(2,11)@3 T(1)@4 R(2,11)@5 S(4,13)@6 T(1)@7. */
  private val s0 = IndexedSeq(Tuple("S", 2, 11), Tuple("T", 2), Tuple("R", 1, 10), Tuple("S", 2, 11), Tuple("T", 1),
    Tuple("R", 2, 11), Tuple("S", 4, 13), Tuple("T", 1))

  /** The paper's window w (i - min(ν) <= w) as the engine's threshold (a run that started at or below it is out). */
  private def threshold(i: Long, window: Option[Long]): Long = window.fold(Long.MinValue)(i - _ - 1)

  /** Position -> the valuations output there, each a set of (position, label). */
  private def run(pcea: Pcea, reader: PceaReader[Tuple], stream: IndexedSeq[Tuple], window: Option[Long])
      : Map[Int, Set[Set[(Long, Int)]]] = {
    val evaluation = new PceaRun(pcea, reader)
    val out = mutable.Map.empty[Int, List[Set[(Long, Int)]]]
    for ((t, i) <- stream.zipWithIndex)
      evaluation.read(t, i.toLong, i.toLong, threshold(i, window)) { (size, positions, labels) =>
        out(i) = (0 until size).map(k => positions(k) -> labels(k)).toSet :: out.getOrElse(i, Nil)
        true
      }
    out.foreach { case (i, vs) => assert(vs.distinct.length == vs.length, s"a valuation output twice at $i: $vs") }
    out.map { case (i, vs) => i -> vs.toSet }.toMap
  }

  private def marks(positions: Long*): Set[(Long, Int)] = positions.map(_ -> 0).toSet

  // Example 3.3: an R(a,b) preceded, in any order, by a T(a) and an S(a,b); Ω = {•} (label 0).
  private val p0 = new Pcea(
    3,
    IndexedSeq(
      PceaTransition(Vector(), guard = 0, Vector(), Vector(0), target = 0),
      PceaTransition(Vector(), guard = 1, Vector(), Vector(0), target = 1),
      PceaTransition(Vector(0, 1), guard = 2, Vector(0, 1), Vector(0), target = 2)
    ),
    finals = Set(2)
  )
  private val p0Reader =
    new Reader(IndexedSeq(relation("T"), relation("S"), relation("R")), IndexedSeq(Seq("x"), Seq("x", "y")))

  test("P0 over S0: both run trees at position 5 (τ0, τ1) without a window, or with one of 5") {
    val expected = Map(5 -> Set(marks(1, 3, 5), marks(0, 1, 5)))
    assert(run(p0, p0Reader, s0, None) == expected)
    assert(run(p0, p0Reader, s0, Some(5)) == expected)
  }

  test("P0 over S0 with a window of 4: only the valuation starting at 1; with 3 or less, none") {
    assert(run(p0, p0Reader, s0, Some(4)) == Map(5 -> Set(marks(1, 3, 5))))
    for (w <- 0 to 3) assert(run(p0, p0Reader, s0, Some(w.toLong)).isEmpty, s"window $w")
  }

  test("Algorithm 1's trace of P0 over S0 (§5): the index H after each event, and the node output at 5") {
    val evaluation = new PceaRun(p0, p0Reader)
    val (eR, q0, q1) = (2, 0, 1) // the join transition, and its child slots for q0 (T) and q1 (S)
    def entry(slot: Int, key: Int*): Long = evaluation.indexed(eR, slot, key.toList)
    val nodes = evaluation.arena
    def at(slot: Int, key: Int*): Long = nodes.position(entry(slot, key: _*))
    val out = mutable.ArrayBuffer.empty[(Int, Set[Long])]
    def read(i: Int): Unit = evaluation.read(s0(i), i.toLong, i.toLong, Long.MinValue) { (size, positions, _) =>
      out += i -> positions.take(size).toSet; true
    }
    read(0) // S(2,11): a leaf n0, at H[e_R, q1, (2,11)]
    assert(at(q1, 2, 11) == 0 && evaluation.indexSize == 1)
    read(1) // T(2): n1 at H[e_R, q0, 2]
    assert(at(q0, 2) == 1 && evaluation.indexSize == 2)
    read(2) // R(1,10): H[e_R, q0, 1] is empty, nothing fires
    assert(evaluation.indexSize == 2 && out.isEmpty && entry(q0, 1) == RunNodes.Nil)
    read(3) // S(2,11): union(n0, n3), its root a copy of n3 (max-start 3) with n0 below
    val u = entry(q1, 2, 11)
    assert(nodes.position(u) == 3 && nodes.maxStart(u) == 3 && nodes.position(nodes.left(u)) == 0 && nodes.right(
      u) == RunNodes.Nil)
    read(4) // T(1): n4 at H[e_R, q0, 1]
    assert(at(q0, 1) == 4 && evaluation.indexSize == 3)
    read(5) // R(2,11): both keys hit; extend({•}, 5, {n1, u}) has max-start min(5, 1, 3) = 1: {1,3,5} and {0,1,5}
    assert(out.toSet == Set(5 -> Set(1L, 3L, 5L), 5 -> Set(0L, 1L, 5L)))
    read(6); read(7) // S(4,13), T(1): index updates only
    assert(out.length == 2 && at(q1, 4, 13) == 6 && at(q0, 1) == 7)
  }

  test("P_Q0 (Thm 4.1 for Q0) over S0: the two t-homomorphisms, at position 5, labelled by atom") {
    val (x, y) = (3, 4) // states 0, 1, 2 are the atoms' leaves; x and y complete their subtrees
    val (onX, onXY) = (0, 1) // the equalities: on x, and on x and y
    val (t, s, r) = (0, 1, 2) // guards, and the atoms' labels
    val pq0 = new Pcea(
      5,
      IndexedSeq(
        PceaTransition(Vector(), t, Vector(), Vector(0), 0),
        PceaTransition(Vector(), s, Vector(), Vector(1), 1),
        PceaTransition(Vector(), r, Vector(), Vector(2), 2),
        PceaTransition(Vector(y), t, Vector(onX), Vector(0), x),
        PceaTransition(Vector(0, 2), s, Vector(onX, onXY), Vector(1), x),
        PceaTransition(Vector(2), s, Vector(onXY), Vector(1), y),
        PceaTransition(Vector(0, 1), r, Vector(onX, onXY), Vector(2), x),
        PceaTransition(Vector(1), r, Vector(onXY), Vector(2), y)
      ),
      finals = Set(x)
    )
    assert(run(pq0, p0Reader, s0, None) == Map(5 -> Set(Set(1L -> 0, 3L -> 1, 5L -> 2),
      Set(1L -> 0, 0L -> 1, 5L -> 2))))
  }

  test("φ4 as a PCEA over the stream of paper 001's Figure 1: {3,4,7}, {3,6,7}, {3,4,6,7}; windows of 4 and 3") {
    // H(id, hum) and T(id, tmp): index 0 H id 2 25, 1 T 0 45, 2 H 0 20, 3 H 1 25, 4 T 1 40, 5 T 0 42, 6 T 1 25,
    // 7 H 1 70, 8 H 0 18; x is the id.
    val stream = IndexedSeq(("H", 2, 25), ("T", 0, 45), ("H", 0, 20), ("H", 1, 25), ("T", 1, 40), ("T", 0, 42),
      ("T", 1, 25), ("H", 1, 70), ("H", 0, 18)).map { case (r, id, v) => Tuple(r, id, v) }
    val reader = new Reader(IndexedSeq(e => e.relation == "H" && e.values(1) < 30, relation("T"),
        e => e.relation == "H" && e.values(1) > 60), IndexedSeq(Seq("x")))
    val phi4 = new Pcea(
      3,
      IndexedSeq(
        PceaTransition(Vector(), 0, Vector(), Vector(0), 0),
        PceaTransition(Vector(0), 1, Vector(0), Vector(0), 1),
        PceaTransition(Vector(1), 1, Vector(0), Vector(0), 1),
        PceaTransition(Vector(1), 2, Vector(0), Vector(0), 2)
      ),
      finals = Set(2)
    )
    val expected = Map(7 -> Set(marks(3, 4, 7), marks(3, 6, 7), marks(3, 4, 6, 7)))
    assert(run(phi4, reader, stream, None) == expected)
    assert(run(phi4, reader, stream, Some(4)) == expected)
    assert(run(phi4, reader, stream, Some(3)).isEmpty)

    // A node's max-start is the least of its children's and its own (the window prunes by it). H[e, q1, 1] after
    // T(1)@6 is the union of three runs, all starting at H(1)@3: T(1)@4 over it, and at 6, T(1) over it directly and
    // over T(1)@4's run.
    val evaluation = new PceaRun(phi4, reader)
    for (i <- 0 to 6) evaluation.read(stream(i), i.toLong, i.toLong, Long.MinValue)(null)
    val nodes = evaluation.arena
    def union(n: Long): List[(Long, Long)] =
      if (n == RunNodes.Nil) Nil
      else (nodes.position(n), nodes.maxStart(n)) :: union(nodes.left(n)) ::: union(nodes.right(n))
    assert(union(evaluation.indexed(3, 0, List(1))).sorted == List((4L, 3L), (6L, 3L), (6L, 3L)))
  }

  test("under a window, the index keeps the runs of about two windows, however long the stream") {
    // T(k), S(k, k), R(k, k) for ever new keys: every entry is dead a window later.
    val evaluation = new PceaRun(p0, p0Reader)
    var matches = 0
    var peak = 0
    for (i <- 0 until 60000) {
      val k = i / 3
      val tuple = (i % 3) match { case 0 => Tuple("T", k); case 1 => Tuple("S", k, k); case _ => Tuple("R", k, k) }
      evaluation.read(tuple, i.toLong, i.toLong, threshold(i, Some(300L))) { (_, _, _) => matches += 1; true }
      peak = math.max(peak, evaluation.indexSize)
    }
    assert(matches == 20000)
    assert(peak < 2000, s"the index held $peak entries; without its purge it would hold 40000")
    assert(
      evaluation.keptNodes < 2000, s"the arena held ${evaluation.keptNodes} nodes; it frees those made a window ago")
  }
}

object PceaWorkedExamplesSuite {
  /** A tuple R(a0, a1, ...): its relation, and its values as the variables x, y of the paper's atoms name them. */
  private final case class Tuple(relation: String, values: Int*) {
    def variable(v: String): Option[Int] = Map("x" -> 0, "y" -> 1).get(v).filter(_ < values.length).map(values(_))
  }
}
