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
 * Keys are the paper's partial functions B← and B→, generalised in one way: the key a run is indexed under (B←) may
 * depend on the transition that made it, not only on its event, since one state may be reached by events of several
 * atoms whose equal attributes have different names (`a.acct = b.src`). So each equality names, per side, the key
 * extractor the reader applies ([[PceaReader.key]]): the consuming transition's own (`joins`), and per producing
 * transition the one of its event (`leftKey`).
 *
 * @param transitions Δ
 * @param finals      F
 * @param leftKey     (producing transition, consuming transition, child slot) => the extractor of the key under
 *                    which the consumer finds the producer's runs; by default the consumer's own, as in the paper
 */
final class Pcea(val stateCount: Int, val transitions: IndexedSeq[PceaTransition], val finals: Set[Int],
    leftKey: (Int, Int, Int) => Int = null) {
  transitions.foreach(t => require(t.target >= 0 && t.target < stateCount && t.children.forall(_ < stateCount), t))

  /** Per state p, the (transition, child slot) pairs whose transition joins runs in p: where p's new runs are indexed. */
  val consumers: IndexedSeq[IndexedSeq[(Int, Int)]] = (0 until stateCount).map { p =>
    for ((t, e) <- transitions.zipWithIndex; slot <- t.children.indices if t.children(slot) == p) yield (e, slot)
  }

  /** Per transition, per consumer of its target state (in the order of [[consumers]]): the extractor of its key there. */
  val indexKeys: IndexedSeq[IndexedSeq[Int]] = transitions.indices.map { producer =>
    consumers(transitions(producer).target).map { case (e, slot) =>
      if (leftKey == null) transitions(e).joins(slot) else leftKey(producer, e, slot)
    }
  }

  def describe: String = s"$stateCount states, ${transitions.length} transitions"
}

/**
 * (P, U, 𝓑, L, q).
 *
 * @param children P, distinct states: the runs the new one joins, one in each
 * @param guard    U, as the index the reader evaluates ([[PceaReader.passes]])
 * @param joins    𝓑, per child slot: the extractor of the equality's key on this transition's event (B→); the child's
 *                 side is [[Pcea.indexKeys]]
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
 * What a PCEA reads of an event: whether it passes a unary predicate, and the keys of equalities (the paper's B← and
 * B→, partial functions: null where undefined, which joins nothing, as SQL's NULL). Equal keys are `equals`.
 */
trait PceaReader[E] {
  def passes(guard: Int, event: E): Boolean
  /** The key that extractor `extractor` reads of the event, or null. */
  def key(extractor: Int, event: E): AnyRef
}
