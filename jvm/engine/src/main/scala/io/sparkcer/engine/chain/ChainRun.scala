package io.sparkcer.engine.chain

import java.io.{DataInput, DataOutput}

import io.sparkcer.engine.automaton.SymbolTable
import io.sparkcer.engine.eval.{EventReader, EventRing, MatchBound, Run, Work}
import io.sparkcer.engine.eval.MatchSink

/**
 * The lazy chain NFA (Kolchinsky and Schuster) for one partition: no partial match is built as events arrive; each
 * event is only stored in the buffer of every atom whose guard it passes (the paper's `store` edges), and the
 * buffers keep the events inside the window. When an event can end a match (under SEQ, it passes the last atom's
 * guard; under AND, any atom's), the matches it ends are built then, from the buffers, one atom at a time in
 * ascending order of candidates (the paper's frequency order, taken afresh at each step from the buffers' counts,
 * as its tree NFA does): the rarest atom first, so that the frequent events are touched only where a rarer one
 * admits them. Each atom's candidates are the range of its buffer that the atoms bound so far leave open (the
 * paper's ordering filters prec/succ, found by binary search), and each condition is checked as soon as its last
 * variable is bound (the paper's cond_i, RMA's last-bound placement in the order of the search).
 *
 * A sequence whose conditions each relate adjacent atoms (`a.x < b.x AND b.x < c.x`, not `a.x < c.x`) is assembled
 * backwards instead, from the last atom to the first, and keeps what it finds across the events that end matches:
 * per event of an inner atom, the events before it that it can follow ([[Predecessors]]). The search above builds
 * the combinations of the events before the last again at every event that ends a match; here each is checked once,
 * as in the paper's chain NFA, whose instances persist.
 *
 * A NONE between atoms i and i + 1 (the paper's negation, §4.3) buffers the events it may exclude, and a combination
 * is rejected as soon as the events of i and i + 1 are chosen (and those its conditions name) with such an event
 * between them. Without conditions, no candidate is even visited on the wrong side of one: the range an atom's
 * candidates are taken from ends at the excluded event after its neighbour's, found by binary search, so that the
 * work stays with the combinations that survive; with conditions, only the buffered events between the two are
 * judged, each against the match's events.
 *
 * An iterated atom (`(B AS b)+`, [[ChainIteration]]) is bound last, once the single events around it are: every
 * subset of its buffered events between theirs that its conditions admit is then a match ([[Subsets]]).
 *
 * An atom inside the sequence that no selected variable binds ([[ChainPlan.witnesses]]) is bound after the others,
 * and only until one event fits: the row is the same whichever fits, and is reported once
 * ([[UnselectedAtomWitnesses]]).
 *
 * Per event: one append per atom and NONE it passes; at an event that ends matches, work proportional to the candidates
 * the search visits, which conditions prune, never to the events of other partitions or outside the window. Each
 * candidate visited is one of [[Work.bufferVisits]], each condition evaluated one of [[Work.conditionChecks]]. The
 * search is not within a constant factor of the registers' work on every stream (the paper proves no bound either):
 * [[AdaptiveChainRun]] races the two.
 *
 * @param matchBound     what one event may cost: past [[MatchBound.perEvent]] subsets of an iterated atom's events
 *                       visited, the evaluation fails ([[Subsets]])
 * @param reportedBefore whether another chain has already reported a match, given its event per atom of this chain
 *                       (an earlier alternative of the same OR, [[Chains]]): then this chain does not report it again
 */
final class ChainRun[E <: AnyRef](plan: ChainPlan, reader: EventReader[E], events: EventRing[E], work: Work,
    matchBound: MatchBound, reportedBefore: Array[Long] => Boolean = ChainRun.Unshared)
    extends Run {
  private val n = plan.atoms.length
  private val buffers = Array.fill(n)(new PositionBuffer)
  /** Per NONE, the events it may exclude, and the guards they pass. */
  private val excluded = Array.fill(plan.gaps.length)(new PositionBuffer)
  private val excludedGuards = plan.gaps.map(_.guards.toArray).toArray
  private val ofGaps = plan.gaps.flatMap(_.conditions).toSet
  /** The iterated atom, -1 for none; the conditions naming its variable are judged on its subsets ([[Subsets]]). */
  private val iterated = plan.iteration.fold(-1)(_.atom)
  private val ofIteration = plan.iteration.fold(Set.empty[Int])(_.conditions)
  /** Per atom, the conditions that name it (those of NONEs and of the iteration apart). */
  private val conditionsOf = Array.tabulate(n)(i =>
    plan.conditions.indices.filter(c => !ofGaps(c) && !ofIteration(c) && plan.conditions(c).contains(i)).toArray)
  /** Per NONE, the atoms whose events it is judged against: the two around it and those its conditions name. */
  private val gapAtoms = plan.judgedWith.map(_.toArray).toArray
  /** Per atom, the NONEs that are judged once it is bound, the others they need being bound. */
  private val gapsOf = Array.tabulate(n)(i => plan.gaps.indices.filter(gapAtoms(_).contains(i)).toArray)
  /** Per atom i, the NONEs between atoms i and i + 1 without conditions, which bound where candidates lie. */
  private val plainGapsAfter = Array.tabulate(n)(i =>
    plan.gaps.indices.filter(g => plan.gaps(g).atom == i && plan.gaps(g).conditions.isEmpty).toArray)
  private val witnesses = if (plan.witnesses.isEmpty) null else new UnselectedAtomWitnesses(plan)
  private val isWitness = if (witnesses == null) new Array[Boolean](n) else witnesses.isWitness
  private val bound = new Array[Long](n)
  private val reversed = Array.range(0, n).reverse
  /** While reading an event: the matches reported, and whether the sink wants more (ANY and LIMIT stop it). */
  private var found = 0
  private var open = true
  private val isBound = new Array[Boolean](n)
  private var positions = new Array[Long](n)
  private var labels = new Array[Int](n)
  private val noSlots = new Array[Any](0)
  /** Per condition, the events of its variables while it is checked. */
  private val chosen = plan.conditions.map(atoms => new Array[AnyRef](atoms.length)).toArray
  /** Per condition, the atoms of its variables (as arrays: the search reads them at every step). */
  private val atomsOf = plan.conditions.map(_.toArray).toArray
  /** Whether the matches are assembled backwards, keeping each event's [[Predecessors]]: see above. */
  private val backwards = plan.ordered && n >= 3 && iterated < 0 && witnesses == null &&
    (plan.conditions.indices.filterNot(ofGaps).map(plan.conditions(_)) ++ gapAtoms.map(_.toIndexedSeq))
      .forall(atoms => atoms.isEmpty || atoms.max - atoms.min <= 1)
  private val predecessors = if (backwards) new Predecessors(n) else null
  private val subsets =
    plan.iteration.map(i => new Subsets(i, plan.conditions, reader, events, work, matchBound, OnSubsets)).orNull
  /** While an iteration's subset is reported: its positions (stream order), and how many. */
  private var subset: Array[Long] = null
  private var subsetSize = 0

  def liveNodes: Int = 0
  def maxOutputDepth: Int = 0
  /** The events buffered (read after every event, so a loop: no array made). */
  def activeStates: Int = {
    var held = if (backwards) predecessors.size else 0
    var i = 0
    while (i < buffers.length) { held += buffers(i).size; i += 1 }
    i = 0
    while (i < excluded.length) { held += excluded(i).size; i += 1 }
    held
  }

  def read(position: Long, symbol: Int, bits: Array[Long], key: Long, threshold: Long, sink: MatchSink): Int = {
    expire(threshold)
    found = 0
    open = true
    if (subsets != null) subsets.begin(position)
    if (sink != null) {
      // The event ends a match as the last atom under SEQ, as any atom under AND.
      var last = if (plan.ordered) n - 1 else 0
      while (open && last < n) {
        if (passes(plan.atoms(last).guard, bits)) {
          java.util.Arrays.fill(isBound, false)
          bind(last, position)
          // The single atoms left to bind: all but this one, the iterated atom and the witnesses, bound last, apart.
          val singles = (if (iterated >= 0 && iterated != last) n - 2 else n - 1) - plan.witnesses.length
          if (witnesses != null) witnesses.endingAt(position)
          if (holdsAt(last)) { if (backwards) assemble(sink) else search(singles, sink) }
        }
        last += 1
      }
    }
    var i = 0
    while (i < n) {
      if (passes(plan.atoms(i).guard, bits)) { buffers(i).append(position, key); work.transitions += 1 }; i += 1
    }
    var g = 0
    while (g < excluded.length) {
      val guards = excludedGuards(g)
      var k = 0
      while (k < guards.length && !passes(guards(k), bits)) k += 1
      if (k < guards.length) { excluded(g).append(position, key); work.transitions += 1 }
      g += 1
    }
    found
  }

  private def passes(guard: Int, bits: Array[Long]): Boolean =
    guard < 0 || SymbolTable.has(bits, guard)

  private def bind(atom: Int, position: Long): Unit = { bound(atom) = position; isBound(atom) = true }

  /**
   * Binds the `left` single atoms still free, rarest first, then the iterated atom's subsets or the witnesses;
   * reports each complete binding while the sink is `open`.
   */
  private def search(left: Int, sink: MatchSink): Unit =
    if (left == 0) {
      if (iterated >= 0) iterate(sink)
      else if (witnesses == null) report(sink)
      else { if (witnessed()) report(sink); unbindWitnesses() }
    } else {
      var best = -1
      var (bestFrom, bestUntil) = (0, 0)
      var i = 0
      while (i < n) {
        if (!isBound(i) && i != iterated && !isWitness(i)) {
          val (from, until) = candidates(i)
          if (best < 0 || until - from < bestUntil - bestFrom) { best = i; bestFrom = from; bestUntil = until }
        }
        i += 1
      }
      var k = bestFrom
      val buffer = buffers(best)
      while (open && k < bestUntil) {
        val p = buffer.position(k)
        work.bufferVisits += 1
        if (plan.ordered || !taken(p)) {
          bind(best, p)
          if (holdsAt(best)) search(left - 1, sink)
          isBound(best) = false
        }
        k += 1
      }
    }

  /**
   * Whether each group of witnesses has events that fit the atoms bound, all the others
   * ([[UnselectedAtomWitnesses]]).
   */
  private def witnessed(): Boolean = {
    var g = 0
    while (g < witnesses.groups.length) { if (!hasWitnesses(g)) return false; g += 1 }
    true
  }

  /**
   * Whether group g has events that fit: the latest event of its first atom from which it completes (forward, the
   * earliest of its last), if known for the atoms it reads, lies within the range its neighbours leave; else the
   * candidates not yet scanned are, from the latest down (forward, the earliest up), and the first that completes is
   * remembered. Its atoms are left bound to what was found, if anything was scanned.
   */
  private def hasWitnesses(g: Int): Boolean = {
    val group = witnesses.groups(g)
    val known = witnesses.of(g, bound)
    work.indexProbes += 1
    val atom = group.scanned
    val buffer = buffers(atom)
    val (from, until) = candidates(atom)
    if (from >= until) false
    else if (known.found != UnselectedAtomWitnesses.NoneFound) {
      if (group.forward) known.found <= buffer.position(until - 1) else known.found >= buffer.position(from)
    } else {
      val step = if (group.forward) 1 else -1
      var k =
        if (group.forward) math.max(from, buffer.firstAtOrAfter(known.scanned))
        else math.min(until, buffer.firstAtOrAfter(known.scanned)) - 1
      while (k >= from && k < until) {
        val p = buffer.position(k)
        work.bufferVisits += 1
        bind(atom, p)
        if (holdsAt(atom) && completes(group.rest, 0)) { known.found = p; return true }
        isBound(atom) = false
        k += step
      }
      known.scanned =
        if (group.forward) math.max(known.scanned, buffer.position(until - 1) + 1)
        else math.min(known.scanned, buffer.position(from))
      false
    }
  }

  /** Whether `atoms` from the j-th on have events that fit, between their neighbours': bound to the first found. */
  private def completes(atoms: Array[Int], j: Int): Boolean = j == atoms.length || {
    val i = atoms(j)
    val (from, until) = candidates(i)
    val buffer = buffers(i)
    var k = from
    var found = false
    while (!found && k < until) {
      work.bufferVisits += 1
      bind(i, buffer.position(k))
      found = holdsAt(i) && completes(atoms, j + 1)
      if (!found) isBound(i) = false
      k += 1
    }
    found
  }

  private def unbindWitnesses(): Unit = {
    var i = 0
    while (i < n) { if (isWitness(i)) isBound(i) = false; i += 1 }
  }

  /**
   * The subsets of the iterated atom's events between its neighbours' (the single atoms all bound), reported with
   * them. Bound already, the iterated atom is the last and its event (the one being read) ends every subset.
   */
  private def iterate(sink: MatchSink): Unit = {
    val buffer = buffers(iterated)
    val from = if (iterated > 0) buffer.firstAtOrAfter(bound(iterated - 1) + 1) else 0
    val last = if (isBound(iterated)) bound(iterated) else Subsets.NoLast
    val until = buffer.firstAtOrAfter(if (isBound(iterated)) last else bound(iterated + 1))
    OnSubsets.sink = sink
    open = subsets.search(buffer, from, until, last)
  }

  /** The chain as its iteration's [[Subsets]] see it while [[iterate]] runs: the other atoms bound, and a sink. */
  private object OnSubsets extends Subsets.Chain {
    var sink: MatchSink = _
    def holds(c: Int, event: AnyRef, slots: Array[Any]): Boolean = ChainRun.this.holds(c, event, slots)
    def report(positions: Array[Long], size: Int): Boolean = {
      subset = positions
      subsetSize = size
      ChainRun.this.report(sink)
      open
    }
  }

  /**
   * The matches that the event bound to the last atom ends, assembled backwards: each event of the atom before it
   * that the conditions between them admit, then that event's predecessors, and theirs, down to the first atom.
   */
  private def assemble(sink: MatchSink): Unit = {
    val end = bound(n - 1)
    // An atom with no event before the end: no match, and nothing to look for.
    var i = 0
    while (i < n - 1) { if (buffers(i).firstAtOrAfter(end) == 0) return; i += 1 }
    val oldest = buffers(0).oldest
    val buffer = buffers(n - 2)
    val until = buffer.firstAtOrAfter(end)
    var k = buffer.firstAtOrAfter(lastExcluded(n - 2, end))
    while (open && k < until) {
      val p = buffer.position(k)
      work.bufferVisits += 1
      bind(n - 2, p)
      if (holdsAt(n - 2)) {
        val before = predecessorsOf(n - 2, p)
        if (before.latestStart >= oldest) through(n - 2, before, oldest, sink)
      }
      isBound(n - 2) = false
      k += 1
    }
  }

  /**
   * Reports the matches through the event bound to atom j, whose predecessors are `before`, dropping those whose
   * matches all start before `oldest`, the first event of the first atom still in the window.
   */
  private def through(j: Int, before: Predecessors.Entry, oldest: Long, sink: MatchSink): Unit = {
    var kept = 0
    var k = 0
    while (k < before.size) {
      val p = before.positions(k)
      val start = before.starts(k)
      work.bufferVisits += 1
      if (start >= oldest) {
        before.positions(kept) = p
        before.starts(kept) = start
        kept += 1
        if (open) {
          bind(j - 1, p)
          if (j == 1) report(sink) else through(j - 1, predecessorsOf(j - 1, p), oldest, sink)
          isBound(j - 1) = false
        }
      }
      k += 1
    }
    before.size = kept
  }

  /** The predecessors of the event at `position` of atom j (bound to it): found once, then kept. */
  private def predecessorsOf(j: Int, position: Long): Predecessors.Entry = {
    val known = predecessors.of(j, position)
    if (known != null) known
    else {
      val found = new Predecessors.Entry
      val buffer = buffers(j - 1)
      val until = buffer.firstAtOrAfter(position)
      var k = buffer.firstAtOrAfter(lastExcluded(j - 1, position))
      while (k < until) {
        val p = buffer.position(k)
        work.bufferVisits += 1
        bind(j - 1, p)
        if (holdsAt(j - 1)) {
          val start = if (j == 1) p else predecessorsOf(j - 1, p).latestStart
          if (start != Long.MinValue) found.add(p, start)
        }
        isBound(j - 1) = false
        k += 1
      }
      predecessors.keep(j, position, found)
      found
    }
  }

  /** The range [from, until) of atom i's buffer that the bound atoms leave open. */
  private def candidates(i: Int): (Int, Int) = {
    val buffer = buffers(i)
    if (!plan.ordered) (0, buffer.firstAtOrAfter(bound(lastBound)))
    else {
      var after = Long.MinValue
      var before = Long.MaxValue
      // Next to a bound neighbour, a NONE without conditions between them narrows the range to its side of the
      // excluded events.
      var j = i - 1
      while (j >= 0 && !isBound(j)) j -= 1
      if (j >= 0) after = bound(j)
      if (j >= 0 && j == i - 1 && firstExcluded(j, bound(j)) != Long.MaxValue) before = firstExcluded(j, bound(j)) + 1
      j = i + 1
      while (j < n && !isBound(j)) j += 1
      if (j < n) before = math.min(before, bound(j))
      if (j < n && j == i + 1 && lastExcluded(i, bound(j)) != Long.MinValue)
        after = math.max(after, lastExcluded(i, bound(j)) - 1)
      (buffer.firstAtOrAfter(after + 1), buffer.firstAtOrAfter(before))
    }
  }

  /**
   * The last position before `p` (atom i + 1's event) that a NONE without conditions between atoms i and i + 1
   * excludes, Long.MinValue for none: atom i's event is that event or a later one.
   */
  private def lastExcluded(i: Int, p: Long): Long = {
    var last = Long.MinValue
    val gaps = plainGapsAfter(i)
    var g = 0
    while (g < gaps.length) {
      val buffer = excluded(gaps(g))
      val k = buffer.firstAtOrAfter(p)
      if (k > 0) last = math.max(last, buffer.position(k - 1))
      g += 1
    }
    last
  }

  /**
   * The first position after `p` (atom i's event) that a NONE without conditions between atoms i and i + 1 excludes,
   * Long.MaxValue for none: atom i + 1's event is that event or an earlier one.
   */
  private def firstExcluded(i: Int, p: Long): Long = {
    var first = Long.MaxValue
    val gaps = plainGapsAfter(i)
    var g = 0
    while (g < gaps.length) {
      val buffer = excluded(gaps(g))
      val k = buffer.firstAtOrAfter(p + 1)
      if (k < buffer.size) first = math.min(first, buffer.position(k))
      g += 1
    }
    first
  }

  /** Under AND, the event that ends the match: every other event comes before it. */
  private def lastBound: Int = {
    var best = -1
    var i = 0
    while (i < n) { if (isBound(i) && (best < 0 || bound(i) > bound(best))) best = i; i += 1 }
    best
  }

  private def taken(p: Long): Boolean = {
    var i = 0
    while (i < n) { if (isBound(i) && bound(i) == p) return true; i += 1 }
    false
  }

  /**
   * Whether every condition on atom i whose atoms are all bound holds, and no NONE judged once i is bound (with the
   * others it needs) has an event it excludes between its two atoms' events.
   */
  private def holdsAt(i: Int): Boolean = {
    val cs = conditionsOf(i)
    var k = 0
    while (k < cs.length) {
      if (allBound(atomsOf(cs(k))) && !holds(cs(k), null)) return false
      k += 1
    }
    val gs = gapsOf(i)
    k = 0
    while (k < gs.length) {
      if (allBound(gapAtoms(gs(k))) && !clear(gs(k))) return false
      k += 1
    }
    true
  }

  /**
   * Condition c over the bound events, with `candidate` as a NONE's event (atom -1) or as the iterated atom's, and
   * `slots` as the values of its aggregates and prev.
   */
  private def holds(c: Int, candidate: AnyRef, slots: Array[Any] = noSlots): Boolean = {
    val atoms = atomsOf(c)
    val events = chosen(c)
    var v = 0
    while (v < atoms.length) {
      events(v) = if (atoms(v) < 0 || atoms(v) == iterated) candidate else this.events(bound(atoms(v)))
      v += 1
    }
    work.conditionChecks += 1
    reader.holds(c, events, slots)
  }

  /**
   * Whether no event that NONE g excludes lies between the events of its two atoms: without conditions, whether its
   * buffer holds none there (a binary search); with them, whether none of those it holds there satisfies them all.
   */
  private def clear(g: Int): Boolean = {
    val gap = plan.gaps(g)
    val buffer = excluded(g)
    var k = buffer.firstAtOrAfter(bound(gap.atom) + 1)
    val until = buffer.firstAtOrAfter(bound(gap.atom + 1))
    var clear = true
    while (clear && k < until) {
      work.bufferVisits += 1
      val candidate = events(buffer.position(k))
      var c = 0
      while (c < gap.conditions.length && holds(gap.conditions(c), candidate)) c += 1
      clear = c < gap.conditions.length
      k += 1
    }
    clear
  }

  private def allBound(atoms: Array[Int]): Boolean = {
    var v = 0
    while (v < atoms.length) { if (atoms(v) >= 0 && !isBound(atoms(v))) return false; v += 1 }
    true
  }

  /**
   * Whether this chain has the match that binds each atom i to the event at `byAtom(i)` (of another chain whose atoms
   * bind the same variables, [[Chains]]): the events come in the atoms' order under SEQ, each is in its atom's buffer
   * (so it passed the atom's guard inside the window), every condition holds, and no NONE's event lies between its
   * neighbours'. The witnesses' events are not compared: any that fit here will do ([[UnselectedAtomWitnesses]]), as
   * they would for the row. Called between this chain's reads, when no search of its own is under way.
   */
  def has(byAtom: Array[Long]): Boolean = {
    var previous = Long.MinValue
    var i = 0
    while (i < n) {
      if (!isWitness(i)) {
        if (plan.ordered && byAtom(i) <= previous) { java.util.Arrays.fill(isBound, false); return false }
        val buffer = buffers(i)
        val k = buffer.firstAtOrAfter(byAtom(i))
        work.bufferVisits += 1
        if (k == buffer.size || buffer.position(k) != byAtom(i)) { java.util.Arrays.fill(isBound, false); return false }
        bind(i, byAtom(i))
        previous = byAtom(i)
      }
      i += 1
    }
    var c = 0
    var holds = true
    while (holds && c < atomsOf.length) {
      holds = atomsOf(c).isEmpty || ofGaps(c) || !allBound(atomsOf(c)) || this.holds(c, null)
      c += 1
    }
    var g = 0
    while (holds && g < excluded.length) { holds = !allBound(gapAtoms(g)) || clear(g); g += 1 }
    if (holds && witnesses != null) { witnesses.endingAt(byAtom(n - 1)); holds = witnessed() }
    java.util.Arrays.fill(isBound, false)
    holds
  }

  /**
   * One complete binding to the sink, its events latest first as the enumeration gives them: the iterated atom's
   * those of the [[subset]] being reported.
   */
  private def report(sink: MatchSink): Unit = if (!reportedBefore(bound)) {
    // Under SEQ the atoms' order is the events' order; under AND it is found.
    val order = if (plan.ordered) reversed else (0 until n).sortBy(a => -bound(a)).toArray
    val size = if (iterated < 0) n else n - 1 + subsetSize
    if (positions.length < size) { positions = new Array[Long](size * 2); labels = new Array[Int](size * 2) }
    var at = 0
    var k = 0
    while (k < n) {
      val atom = order(k)
      if (atom == iterated) {
        var e = subsetSize - 1
        while (e >= 0) { positions(at) = subset(e); labels(at) = plan.atoms(atom).label; at += 1; e -= 1 }
      } else { positions(at) = bound(atom); labels(at) = plan.atoms(atom).label; at += 1 }
      k += 1
    }
    found += 1
    open = sink.accept(positions(size - 1), size, positions, labels)
  }

  def expire(threshold: Long): Unit = {
    buffers.foreach(_.expire(threshold))
    excluded.foreach(_.expire(threshold))
    if (witnesses != null) witnesses.forget(buffers(_).oldest)
    if (backwards) for (j <- 1 until n - 1) predecessors.forgetBefore(j, buffers(j).oldest, buffers(j).size)
  }

  def save(out: DataOutput): Unit = (buffers ++ excluded).foreach(_.save(out))
  def load(in: DataInput): Unit = (buffers ++ excluded).foreach(_.load(in))
}

object ChainRun {
  /** A chain whose matches no other chain reports. */
  val Unshared: Array[Long] => Boolean = _ => false
}

/** The positions (and window keys) of one atom's events inside the window, in stream order. */
private final class PositionBuffer {
  private var positions = new Array[Long](16)
  private var keys = new Array[Long](16)
  private var first = 0
  private var end = 0

  def size: Int = end - first
  def position(k: Int): Long = positions(first + k)
  /** The position of the oldest event kept; Long.MaxValue when none is. */
  def oldest: Long = if (first < end) positions(first) else Long.MaxValue

  def append(position: Long, key: Long): Unit = {
    if (end == positions.length) {
      val live = size
      val capacity = if (live * 2 > positions.length) positions.length * 2 else positions.length
      val (p, k) = (new Array[Long](capacity), new Array[Long](capacity))
      System.arraycopy(positions, first, p, 0, live)
      System.arraycopy(keys, first, k, 0, live)
      positions = p; keys = k; first = 0; end = live
    }
    positions(end) = position
    keys(end) = key
    end += 1
  }

  /** Forgets the events whose window key is at or below the threshold (they sit at the front). */
  def expire(threshold: Long): Unit = while (first < end && keys(first) <= threshold) first += 1

  /** The index (from the oldest kept) of the first position at or after `p`: a binary search. */
  def firstAtOrAfter(p: Long): Int = {
    var (lo, hi) = (first, end)
    while (lo < hi) {
      val mid = (lo + hi) >>> 1
      if (positions(mid) < p) lo = mid + 1 else hi = mid
    }
    lo - first
  }

  def save(out: DataOutput): Unit = {
    out.writeInt(size)
    for (k <- first until end) { out.writeLong(positions(k)); out.writeLong(keys(k)) }
  }

  def load(in: DataInput): Unit = {
    first = 0; end = 0
    for (_ <- 0 until in.readInt()) append(in.readLong(), in.readLong())
  }
}
