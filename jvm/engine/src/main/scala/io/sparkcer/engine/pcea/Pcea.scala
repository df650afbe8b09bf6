package io.sparkcer.engine.pcea

/**
 * A parallelized complex event automaton (Pinto and Riveros, "Complex event recognition meets hierarchical
 * conjunctive queries", §3): Δ ⊆ 2^Q × U × B^Q × (2^Ω∖{∅}) × Q, with unary predicates U and equality predicates B.
 * A transition (P, U, 𝓑, L, q) reads an event that passes U and joins, for each state p of P, a run that reached p
 * earlier, by the equality 𝓑(p) between that run's event and this one; the event takes the labels L, and the new
 * run is in q. A transition without children starts a run (there is no initial function). A run is a tree; it
 * accepts at its root's event when its state is final.
 *
 * The evaluation ([[PceaRun]]) requires the automaton to be unambiguous (each output valuation has one accepting
 * run, whose nodes at one position have disjoint labels): whoever builds one must make it so.
 *
 * @param transitions Δ
 * @param finals      F
 */
final class Pcea(val stateCount: Int, val transitions: IndexedSeq[PceaTransition], val finals: Set[Int]) {
  transitions.foreach(t => require(t.target >= 0 && t.target < stateCount && t.children.forall(_ < stateCount), t))

  /** Per state p, the (transition, child slot) pairs whose transition joins runs in p: where p's new runs are indexed. */
  val consumers: IndexedSeq[IndexedSeq[(Int, Int)]] = (0 until stateCount).map { p =>
    for ((t, e) <- transitions.zipWithIndex; slot <- t.children.indices if t.children(slot) == p) yield (e, slot)
  }
}

/**
 * (P, U, 𝓑, L, q).
 *
 * @param children P, distinct states: the runs the new one joins, one in each
 * @param guard    U, as the index the reader evaluates ([[PceaReader.passes]])
 * @param joins    𝓑, per child slot: the equality, as the index whose keys the reader extracts (the left key from
 *                 the child's event, the right key from this one)
 * @param labels   L, not empty: the labels (Ω) the event takes in the valuation
 * @param target   q
 */
final case class PceaTransition(children: IndexedSeq[Int], guard: Int, joins: IndexedSeq[Int], labels: IndexedSeq[Int],
    target: Int) {
  require(children.distinct.length == children.length, s"a transition's child states are distinct: $this")
  require(joins.length == children.length, s"one equality per child state: $this")
  require(labels.nonEmpty, s"a transition marks its event with at least one label: $this")
}

/**
 * What a PCEA reads of an event: whether it passes a unary predicate, and an equality's keys (the paper's B← and
 * B→, partial functions: null where undefined, which joins nothing, as SQL's NULL).
 */
trait PceaReader[E] {
  def passes(guard: Int, event: E): Boolean
  /** B←(event): the key of equality `join` on the event of the run being joined. */
  def leftKey(join: Int, event: E): AnyRef
  /** B→(event): the key of equality `join` on the event being read. */
  def rightKey(join: Int, event: E): AnyRef
}
