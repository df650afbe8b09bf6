package io.sparkcer.engine.pcea

/**
 * Where the subtrees of a run tree may read one event, and what each state's runs carry so that a join never pairs
 * two runs that did.
 *
 * The paper's PCEA joins runs by equalities alone: a run tree may read one event in two of its subtrees (a CQ's
 * homomorphisms need not be injective, §4). CEQL's AND reads disjoint events, so an event that two labels in
 * different subtrees may both take (two atoms of one type, in two operands of AND) must go to one of them only.
 * Dropping the valuations that read it twice, after enumerating them, would make the enumeration's work grow with
 * valuations never output (a conjunction that only ever pairs runs of one event would enumerate them all, and output
 * nothing). Instead each run carries the positions at which it read such events ([[DisjointRunWitnesses]]), and a
 * transition joins only runs whose positions differ: disjointness becomes part of the join, as an equality is.
 *
 * Per state q:
 *  - `tracked(q)`: the labels, in q's runs, whose events a run joined to them later (at a transition that consumes
 *    q, or above it) may also read: the positions a run of q carries, one per label (none where the run did not
 *    take the label, as under OR);
 *  - `budget(q)`: how many positions of other runs those can be compared with: the labels that may take their
 *    events, outside q's runs. Each label takes at most one event in a run, so this bounds what a join or an
 *    enumeration ever rules out for a run of q.
 *
 * That needs each of those labels to take at most one event per run: a label inside an iteration would carry an
 * unbounded set of positions. [[SharedEvents.of]] refuses such automata.
 *
 * @param sources per transition, per tracked label of its target (in order): where its position comes from, the
 *                transition's own event ([[SharedEvents.Own]]), a child slot with the label's index among that
 *                child's tracked ones, or nowhere ([[SharedEvents.Absent]]: the transition's runs never take it)
 */
final class SharedEvents private (val tracked: IndexedSeq[IndexedSeq[Int]], val budget: IndexedSeq[Int],
    val sources: IndexedSeq[IndexedSeq[(Int, Int)]]) {
  /** Whether no two subtrees of a run may read one event: the evaluation needs none of this. */
  def isEmpty: Boolean = tracked.forall(_.isEmpty)

  /** Witnesses a run of state q carries at most: the representative family's bound, Σ_{k ≤ budget} |tracked|^k. */
  def capacity(q: Int): Int =
    if (tracked(q).isEmpty) 1 else (0 to budget(q)).map(k => math.pow(tracked(q).length, k).toInt).sum

  /** The labels whose events may be read twice in a run, in any state: those a valuation's positions are checked for. */
  def labels: Set[Int] = tracked.flatten.toSet
}

object SharedEvents {
  /** No label may take an event another subtree takes. */
  val none: SharedEvents = new SharedEvents(IndexedSeq.empty, IndexedSeq.empty, IndexedSeq.empty)

  /** In a [[SharedEvents.sources]] entry, for a child slot: the position is the transition's own event's. */
  val Own: Int = -1
  /** In a [[SharedEvents.sources]] entry, for a child slot: the transition's runs never take the label. */
  val Absent: Int = -2

  /** The most witnesses a run may carry: past it, the joins would cost more than a constant factor over equalities. */
  val MaxCapacity = 32

  /**
   * The shared events of `pcea`, whose labels `coincide` pairwise where one event may take both; or why they cannot be
   * kept apart: a label that may share its event and that repeats in a run, or too many such labels (`name` gives a
   * label as the user wrote it).
   */
  def of(pcea: Pcea, coincide: (Int, Int) => Boolean, name: Int => String): Either[String, SharedEvents] = {
    val ts = pcea.transitions
    val states = 0 until pcea.stateCount
    // The labels a run of each state may hold, and how many times each (up to 2): least fixpoints over the transitions.
    val occurrences = Array.fill(pcea.stateCount)(Map.empty[Int, Int])
    var changed = true
    while (changed) {
      changed = false
      for (t <- ts) {
        val counts = (t.labels.map(_ -> 1) ++ t.children.flatMap(occurrences(_))).groupMapReduce(_._1)(_._2)(_ + _)
        val merged = (occurrences(t.target).keySet ++ counts.keySet).map { l =>
          l -> math.min(2, math.max(occurrences(t.target).getOrElse(l, 0), counts.getOrElse(l, 0)))
        }.toMap
        if (merged != occurrences(t.target)) { occurrences(t.target) = merged; changed = true }
      }
    }
    val labelsIn = occurrences.map(_.keySet)
    // The labels of the runs a state's runs are joined with: their siblings at each consumer, and those the consumer's
    // runs meet in turn.
    val meets = Array.fill(pcea.stateCount)(Set.empty[Int])
    changed = true
    while (changed) {
      changed = false
      for (t <- ts; (c, slot) <- t.children.zipWithIndex) {
        val siblings = t.children.indices.filter(_ != slot).flatMap(s => labelsIn(t.children(s)))
        val met = meets(c) ++ siblings ++ meets(t.target)
        if (met != meets(c)) { meets(c) = met; changed = true }
      }
    }
    def coinciding(l: Int, others: Set[Int]): Set[Int] = others.filter(o => coincide(l, o) || coincide(o, l))
    val tracked = states.map(q => labelsIn(q).toIndexedSeq.sorted.filter(l => coinciding(l, meets(q)).nonEmpty))
    val compared = states.map(q => tracked(q).flatMap(coinciding(_, meets(q))).toSet)
    val repeated = for {
      q <- states.iterator
      l <- tracked(q).iterator
      o <- coinciding(l, meets(q)).iterator
      twice <- Seq(l, o).find(x => states.exists(s => occurrences(s).getOrElse(x, 0) > 1))
    } yield s"${name(l)} and ${name(o)} can read the same event, and ${name(twice)} repeats; a PCEA keeps the " +
      "events of the operands of AND apart only where each takes one: give them different event types or filters " +
      "that no event passes both of, or move the iteration out of the conjunction"
    repeated.nextOption().toLeft(()).flatMap { _ =>
      val shared = new SharedEvents(
        tracked,
        compared.map(_.size),
        ts.map { t =>
          tracked(t.target).map { l =>
            if (t.labels.contains(l)) (Own, -1)
            else {
              val slot = t.children.indexWhere(c => labelsIn(c).contains(l))
              if (slot < 0) (Absent, -1) else (slot, tracked(t.children(slot)).indexOf(l))
            }
          }
        }
      )
      states.find(q => shared.capacity(q) > MaxCapacity).map { q =>
        s"the operands of AND can read the same events at ${(tracked(q) ++ compared(q)).distinct.map(name).mkString(
            ", ")}, " +
          "more places than a PCEA keeps apart at a constant cost: give those atoms different event types or filters " +
          "that no event passes both of"
      }.toLeft(shared)
    }
  }
}
