package io.sparkcer.engine.pcea

/**
 * Where a chain's PCEA may keep only the latest runs of an atom that no selected variable binds, and whether its rows
 * then name their runs, so that no run is enumerated only to be dropped.
 *
 * A run's row is its start and its selected events. Take `SELECT a, c ... A AS a ; B AS b ; C AS c FILTER a.k = b.k
 * AND b.v = c.v`: every b between a and c with a's k and c's v makes a run of its own with the row (a, c). A b's run is
 * made by a transition from a's state, joining the runs of a under b's incoming key (k), and is indexed for c under its
 * outgoing key (v). Two b's runs under one outgoing key, made by one transition with one incoming key, joined one entry
 * of a's runs, and the later b found there every run the earlier one found (the window drops runs by their start,
 * which b's event is not). So the later run gives every row the earlier one gives: the runs under a key fall in
 * groups, one per (transition, incoming key), and the index keeps the latest of each ([[RunNodes.latest]]). Where the
 * outgoing key says the incoming one (its classes hold the incoming key's, as when that compares nothing), a key has
 * one group, and its latest run replaces the one before ([[KeyIndex.replace]]). Such an atom is *merged*.
 *
 * Rows then name their runs (the runs of one key give distinct rows) when every unselected atom is merged, made by one
 * transition, or only starts runs (its event is the row's start), and no two ways lead from one state to another
 * through an unselected atom or around it: `p -> u -> s` beside `p -> s`, or beside `p -> v -> s` with v unselected
 * too, would give one row twice. Otherwise the rows are de-duplicated, as before.
 *
 * An unselected atom's repetitions (`(B AS b)+`) are gone before ([[PceaCompiler]]): its last event joins what its first
 * one joined, so they give no other row.
 *
 * Only for a chain (no AND): there an atom's state is its own, and runs carry no witnesses of shared events.
 */
private[pcea] object LatestRuns {

  /** The joins that keep only latest runs (true: one per key; false: one per group), and whether rows name runs. */
  final case class Merging(latestOnly: Map[(Int, Int), Boolean], rowsTellRunsApart: Boolean)

  /**
   * @param states   the chain's states, one per atom
   * @param selected whether a state's atom binds a selected variable
   * @param compares per join (transition, child slot), the equality classes it compares
   */
  def of(pcea: Pcea, states: Range, selected: Int => Boolean, compares: (Int, Int) => Set[Int]): Merging = {
    val transitions = pcea.transitions
    val into = transitions.indices.groupBy(transitions(_).target).withDefaultValue(IndexedSeq.empty)
    def merged(q: Int): Boolean =
      !selected(q) && into(q).nonEmpty && into(q).forall(transitions(_).children.length == 1)
    def byKey(q: Int, join: (Int, Int)): Boolean = into(q) match {
      case Seq(e) => compares(e, 0).subsetOf(compares(join._1, join._2))
      case _ => false
    }
    def startsOnly(q: Int): Boolean = into(q).forall(transitions(_).children.isEmpty)
    val (start, end) = (-1, -2)
    def before(q: Int): Set[Int] = into(q).map(transitions(_).children.headOption.getOrElse(start)).toSet
    def after(q: Int): Set[Int] =
      pcea.consumers(q).map(c => transitions(c._1).target).toSet ++ (if (pcea.finals(q)) Set(end) else Set.empty)
    val unselected = states.filterNot(selected)
    // A run may leave p straight for s: then a run through u between them gives its row again.
    def around(p: Int, s: Int): Boolean = p != start && s != end && after(p)(s)
    val oneWay = unselected.forall { u =>
      before(u).forall(p =>
        after(u).forall(s =>
          !around(p, s) &&
            unselected.forall(v => v == u || !(before(v)(p) && after(v)(s)))))
    }
    Merging(
      unselected.filter(merged).flatMap(u => pcea.consumers(u).map(j => j -> byKey(u, j))).toMap,
      oneWay && unselected.forall(u => merged(u) && into(u).length == 1 || startsOnly(u))
    )
  }
}
