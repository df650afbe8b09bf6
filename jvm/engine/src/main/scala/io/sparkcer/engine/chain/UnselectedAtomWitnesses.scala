package io.sparkcer.engine.chain

/**
 * The witnesses of a chain ([[ChainPlan.witnesses]]): atoms inside a sequence that no selected variable binds. In
 * `SELECT a, c ... A AS a ; B AS b ; C AS c FILTER b.k = c.k AND b.v < c.v` the row (a, c) is one row however many b's
 * fit between them; reporting it once per b and dropping the repeats makes the work grow with the b's, not the rows.
 * So [[ChainRun]] binds the selected atoms first and then asks, per group below, whether some events fit: the first
 * it finds will do, and the row is reported once.
 *
 * A group is the witnesses that are chosen together: neighbours, and those a condition or a NONE names together.
 * Between two groups lies a selected atom, and no condition relates them, so a row has its witnesses when each group
 * has some.
 *
 * Asked afresh for every row, a group would cost a scan of its candidates per row, and per event the rows times the
 * candidates. But where the group's conditions and NONEs do not name the atom before its first (f - 1), f - 1's
 * event matters only as the bound it sets: the group's events come after it. Then, given the events of the atoms
 * the group does read (its [[Group.reads]], the key), there is a latest event of f from which the group can be
 * completed, and the group has witnesses exactly when f - 1's event comes before it. It is found scanning f's
 * candidates from the latest down, and remembered per key ([[Known]]) for the event being read; a scan that found
 * nothing above one f - 1 is resumed below it for an earlier one. At an event that ends matches, each of f's
 * candidates is then visited at most once per key, however many rows ask.
 *
 * Where the group names f - 1 but not the atom after its last (l + 1: `b.v > a.v OR b.k > a.k`), the mirror holds:
 * the earliest event of l from which the group completes, scanned from the earliest up, against l + 1's event. Where
 * f - 1 is all the group reads, that earliest event stays the earliest as events arrive (they come after it), and is
 * kept across events, with f - 1's event, until that event leaves the window: a scan that found nothing is resumed
 * at the events that arrived since. (Where the group names both, both are part of the key.)
 */
private[chain] final class UnselectedAtomWitnesses(plan: ChainPlan) {
  import UnselectedAtomWitnesses._

  private val n = plan.atoms.length
  val isWitness: Array[Boolean] = Array.tabulate(n)(plan.witnesses.contains)

  /** The atoms whose events atom i is judged with: by its conditions, and by the NONEs judged once it is bound. */
  private def judgedWith(i: Int): Seq[Int] =
    (plan.conditions.filter(_.contains(i)).flatten ++ plan.judgedWith.filter(_.contains(i)).flatten).filter(_ >= 0)

  val groups: IndexedSeq[Group] = {
    val parent = Array.range(0, n)
    def root(i: Int): Int = if (parent(i) == i) i else { parent(i) = root(parent(i)); parent(i) }
    for (i <- plan.witnesses; j <- judgedWith(i) :+ (i + 1) if j < n && isWitness(j)) parent(root(i)) = root(j)
    plan.witnesses.groupBy(root).values.map(_.sorted).toIndexedSeq.sortBy(_.head).map { atoms =>
      val named = atoms.flatMap(judgedWith).toSet
      val neighbours = atoms.flatMap(i => Seq(i - 1, i + 1)).toSet
      val forward = named(atoms.head - 1) && !named(atoms.last + 1)
      val unread =
        if (!named(atoms.head - 1)) Set(atoms.head - 1) else if (forward) Set(atoms.last + 1) else Set.empty[Int]
      val reads = ((named ++ neighbours) -- atoms -- unread).toArray.sorted
      Group(atoms.toArray, reads, forward, lasting = forward && reads.sameElements(Array(atoms.head - 1)))
    }
  }

  /** Per group, what is known at the event being read (empty for a [[Group.lasting]] group). */
  private val known = Array.fill(groups.length)(new java.util.HashMap[Key, Known])
  /** Per [[Group.lasting]] group, what is known by the position of the event before its first atom's. */
  private val kept = groups.map(g => if (g.lasting) new java.util.TreeMap[java.lang.Long, Known] else null).toArray
  private val probe = new Key(null)
  /**
   * Per group, the key asked last and what is known under it: the rows of one event mostly ask under one key (the
   * events of the atoms after the group, say), which is then found without hashing.
   */
  private val lastKey = groups.map(g => new Array[Long](g.reads.length)).toArray
  private val lastKnown = new Array[Known](groups.length)
  /** The event whose matches [[known]] is of. */
  private var end = Long.MinValue

  /** Readies the memory for the matches that the event at `end` ends: what was known of another event is forgotten. */
  def endingAt(end: Long): Unit = if (end != this.end) {
    this.end = end
    var g = 0
    while (g < known.length) {
      // Cleared in time proportional to its table: a table grown on a busy event is dropped instead.
      if (known(g).size > ClearedUpTo) known(g) = new java.util.HashMap[Key, Known]
      else if (!known(g).isEmpty) known(g).clear()
      if (!groups(g).lasting) lastKnown(g) = null
      g += 1
    }
  }

  /** What is known of group g with the atoms it reads bound to `bound`, at the event [[endingAt]] named. */
  def of(g: Int, bound: Array[Long]): Known = {
    val group = groups(g)
    val reads = group.reads
    val last = lastKey(g)
    var k = 0
    while (k < reads.length && bound(reads(k)) == last(k)) k += 1
    if (k == reads.length && lastKnown(g) != null) return lastKnown(g)
    k = 0
    while (k < reads.length) { last(k) = bound(reads(k)); k += 1 }
    lastKnown(g) = knownUnder(g, group, bound)
    lastKnown(g)
  }

  private def knownUnder(g: Int, group: Group, bound: Array[Long]): Known = {
    val reads = group.reads
    if (group.lasting) {
      val before = bound(reads(0))
      var found = kept(g).get(before)
      if (found == null) { found = new Known(group.forward); kept(g).put(before, found) }
      found
    } else {
      if (probe.values == null || probe.values.length != reads.length) probe.values = new Array[Long](reads.length)
      var k = 0
      while (k < reads.length) { probe.values(k) = bound(reads(k)); k += 1 }
      var found = known(g).get(probe)
      if (found == null) { found = new Known(group.forward); known(g).put(new Key(probe.values.clone()), found) }
      found
    }
  }

  /** Forgets what is kept of events that left the window: before `oldest(i)`, atom i's oldest event still in it. */
  def forget(oldest: Int => Long): Unit = {
    var g = 0
    while (g < kept.length) {
      if (kept(g) != null && !kept(g).isEmpty) {
        kept(g).headMap(oldest(groups(g).reads(0))).clear()
        lastKnown(g) = null
      }
      g += 1
    }
  }
}

private[chain] object UnselectedAtomWitnesses {
  /** No event of the group's first atom known to have witnesses. */
  val NoneFound: Long = Long.MinValue
  private val ClearedUpTo = 256

  /**
   * Witnesses chosen together: `atoms` in the chain's order, and `reads`, the other atoms whose events decide whether
   * they fit: those their conditions and NONEs name, and their neighbours, but the first one's left neighbour where
   * none names it, or else, `forward`, the last one's right neighbour where none names that. `lasting` where the
   * left neighbour is all a forward group reads: what is known of it is kept across events.
   */
  final case class Group(atoms: Array[Int], reads: Array[Int], forward: Boolean, lasting: Boolean) {
    /** The atom whose candidates are scanned: the first, latest down; forward, the last, earliest up. */
    val scanned: Int = if (forward) atoms.last else atoms.head
    /** The others, in the chain's order, completed once the scanned one is bound. */
    val rest: Array[Int] = atoms.filter(_ != scanned)
  }

  /**
   * What is known of a group under one key: the scanned atom's candidates from position `scanned` on (forward: before
   * it) were scanned, and `found` is the latest (forward: the earliest) of them from which the group completes
   * ([[NoneFound]] while none is).
   */
  final class Known(forward: Boolean) {
    var scanned: Long = if (forward) Long.MinValue else Long.MaxValue
    var found: Long = NoneFound
  }

  /** The events of a group's [[Group.reads]], as a key. */
  final class Key(var values: Array[Long]) {
    override def hashCode: Int = java.util.Arrays.hashCode(values)
    override def equals(other: Any): Boolean = other match {
      case k: Key => java.util.Arrays.equals(values, k.values)
      case _ => false
    }
  }
}
