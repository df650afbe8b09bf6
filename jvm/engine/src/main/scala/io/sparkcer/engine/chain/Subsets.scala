package io.sparkcer.engine.chain

import io.sparkcer.engine.eval.{Aggregation, EventReader, EventRing, MatchBound, TooManyMatchesException, Work}

/**
 * The iterated atom's part of a lazy chain's search ([[ChainIteration]]): once the other atoms are bound, every
 * non-empty subset of the iterated atom's candidates (its buffered events between its neighbours'), in stream order,
 * that satisfies the conditions naming its variable, each reported with the other atoms' events. This is the lazy
 * chain NFA paper's iterate edge (§4.5); where the iterated atom is the last, the event being read is the last of
 * every subset (the paper: a live arrival generates only the subsets that contain it).
 *
 * The subsets are enumerated depth first, adding the candidates in stream order, so that each subset extends the one
 * before it by one event: its aggregates ([[Aggregation]], the states the registers keep for them) are updated once
 * from its parent's, and a `prev` condition is checked on the pair just formed. What no subset can escape is pruned:
 * a candidate that fails an `eachEvent` condition is dropped before the enumeration, a pair that fails a
 * `consecutive` one is not extended, and no subset grows past the size `count(b) <= k` admits. Other aggregates prune
 * nothing: whether `sum(b.x) > a.x` can still come to hold depends on the values to come, which may have either sign.
 *
 * Each subset is one of [[Work.bufferVisits]] (and each condition evaluated one of [[Work.conditionChecks]]). Their
 * number is exponential in the candidates, so it is bounded per event read: past [[MatchBound.perEvent]] subsets,
 * the evaluation fails with what to write instead ([[TooManyMatchesException]]), as past that many matches.
 *
 * @param iteration  the iterated atom and its conditions
 * @param conditions per condition, the atoms of its variables ([[ChainPlan.conditions]])
 * @param chain      the chain's search, which evaluates the conditions and reports the subsets
 */
private[chain] final class Subsets[E <: AnyRef](iteration: ChainIteration, conditions: IndexedSeq[IndexedSeq[Int]],
    reader: EventReader[E], events: EventRing[E], work: Work, bound: MatchBound, chain: Subsets.Chain) {
  import chain.{holds, report}

  private val aggregations: Array[Aggregation] =
    iteration.aggregates.map { case (condition, slot) => reader.aggregation(condition, slot) }.toArray
  private val eachEvent = iteration.eachEvent.toArray
  private val consecutive = iteration.consecutive.toArray
  private val whole = iteration.whole.toArray
  /** Per `whole` condition, whether it names the variable outside aggregates too: then each event is checked. */
  private val wholeNamesEvents = whole.map(c => conditions(c).contains(iteration.atom))
  /** Per `whole` condition, the index in [[aggregations]] of its first slot (its slots come in order). */
  private val firstAggregate = whole.map(c => iteration.aggregates.indexWhere(_._1 == c))
  /** Per condition, its slots' values while it is evaluated. */
  private val slots = iteration.slots.map(n => new Array[Any](n)).toArray
  private val noSlots = new Array[Any](0)

  /** The candidates of this search: positions, and per aggregate the argument on each (read once, used by many). */
  private var candidates = new Array[Long](16)
  private var arguments = Array.fill(aggregations.length)(new Array[Any](16))
  private var count = 0
  /** The subset being built: its positions, and per size the aggregates' states over its first events. */
  private var chosen = new Array[Long](16)
  private var cursors = new Array[Int](17)
  private var states = Array.fill(17)(new Array[AnyRef](aggregations.length))
  /** The event that ends every subset (the event being read, as the last atom), or [[Subsets.NoLast]]. */
  private var last = Subsets.NoLast
  private val lastArguments = new Array[Any](aggregations.length)
  private var open = true

  /** Subsets visited while reading the current event, and that event's position, for the bound. */
  private var visited = 0L
  private var reading = 0L

  /** Starts reading the event at `position`: the bound counts the subsets visited for it. */
  def begin(position: Long): Unit = { visited = 0; reading = position }

  /**
   * Reports every subset of the buffered events `from` until `until` of `buffer` (and the event at `last`, unless
   * [[Subsets.NoLast]], as the last of each) that satisfies the iteration's conditions; false once the sink wants no more.
   */
  def search(buffer: PositionBuffer, from: Int, until: Int, last: Long): Boolean = {
    count = 0
    var k = from
    while (k < until) {
      val p = buffer.position(k)
      work.bufferVisits += 1
      if (eachHolds(p)) keep(p)
      k += 1
    }
    this.last = last
    if (last != Subsets.NoLast) {
      if (!eachHolds(last)) return true
      var a = 0
      while (a < aggregations.length) { lastArguments(a) = argument(a, last); a += 1 }
    }
    var a = 0
    while (a < aggregations.length) { states(0)(a) = aggregations(a).zero; a += 1 }
    open = true
    // Depth first, without recursion: a subset may hold every event of the window, deeper than a thread's stack.
    // Level `size` has `size` candidates chosen; `cursors(size)` is the next candidate it may be extended by.
    var size = 0
    enter(0, 0)
    while (open && size >= 0) {
      val k = cursors(size)
      if (k >= count) size -= 1
      else {
        cursors(size) = k + 1
        val p = candidates(k)
        if (size == 0 || pairHolds(chosen(size - 1), p)) {
          ensure(size + 1)
          chosen(size) = p
          var a = 0
          while (a < aggregations.length) {
            states(size + 1)(a) = aggregations(a).update(states(size)(a), arguments(a)(k)); a += 1
          }
          size += 1
          enter(size, k + 1)
        }
      }
    }
    open
  }

  /**
   * Enters level `size`: visits the subset of the `size` events chosen (and [[last]]), and sets where its extensions
   * begin, at candidate `next` (none where a larger subset than the conditions admit, count(b) <= k, would follow).
   */
  private def enter(size: Int, next: Int): Unit = {
    if (last != Subsets.NoLast) {
      if (size == 0 || pairHolds(chosen(size - 1), last)) {
        ensure(size + 1)
        chosen(size) = last
        var a = 0
        while (a < aggregations.length) {
          states(size + 1)(a) = aggregations(a).update(states(size)(a), lastArguments(a)); a += 1
        }
        visit(size + 1)
      }
    } else if (size > 0) visit(size)
    cursors(size) = if (size + 1 + (if (last != Subsets.NoLast) 1 else 0) > iteration.largest) count else next
  }

  /** A subset of `size` events (`chosen`), its aggregates in `states(size)`: reported if the `whole` conditions hold. */
  private def visit(size: Int): Unit = {
    work.bufferVisits += 1
    visited += 1
    if (visited > bound.perEvent) throw tooMany()
    var w = 0
    while (w < whole.length) {
      val c = whole(w)
      val values = slots(c)
      var s = 0
      while (s < values.length) {
        val a = firstAggregate(w) + s
        values(s) = aggregations(a).result(states(size)(a))
        s += 1
      }
      if (wholeNamesEvents(w)) {
        var k = 0
        while (k < size) { if (!holds(c, events(chosen(k)), values)) return; k += 1 }
      } else if (!holds(c, null, values)) return
      w += 1
    }
    open = report(chosen, size)
  }

  private def eachHolds(p: Long): Boolean = {
    var k = 0
    while (k < eachEvent.length) { if (!holds(eachEvent(k), events(p), noSlots)) return false; k += 1 }
    true
  }

  /** Whether the `consecutive` conditions hold with `current` after `previous` in a subset (prev read on previous). */
  private def pairHolds(previous: Long, current: Long): Boolean = {
    var k = 0
    while (k < consecutive.length) {
      val c = consecutive(k)
      val values = slots(c)
      var s = 0
      while (s < values.length) { values(s) = reader.argument(c, s, events(previous)); s += 1 }
      if (!holds(c, events(current), values)) return false
      k += 1
    }
    true
  }

  private def argument(a: Int, p: Long): Any = {
    val (condition, slot) = iteration.aggregates(a)
    if (aggregations(a).readsValue) reader.argument(condition, slot, events(p)) else null
  }

  private def keep(p: Long): Unit = {
    if (count == candidates.length) {
      candidates = java.util.Arrays.copyOf(candidates, count * 2)
      arguments = arguments.map { values =>
        val grown = new Array[Any](count * 2); Array.copy(values, 0, grown, 0, count); grown
      }
    }
    candidates(count) = p
    var a = 0
    while (a < aggregations.length) { arguments(a)(count) = argument(a, p); a += 1 }
    count += 1
  }

  /** Room for a subset of `size` events. */
  private def ensure(size: Int): Unit = if (size > chosen.length) {
    chosen = java.util.Arrays.copyOf(chosen, size * 2)
    cursors = java.util.Arrays.copyOf(cursors, size * 2 + 1)
    states = states ++ Array.fill(size * 2 + 1 - states.length)(new Array[AnyRef](aggregations.length))
  }

  private def tooMany(): TooManyMatchesException = new TooManyMatchesException(
    s"the event at ${reader.describe(events(reading))} has the lazy chain visit more than ${bound.perEvent} subsets of " +
      s"the events of ${iteration.variable}+, the bound ${bound.setting}. Under SELECT ALL each subset of its events " +
      "between its neighbours' is a candidate match of its own (exponentially many in the window), each judged on the " +
      "conditions over them. Bound them with a window (WITHIN 100 EVENTS, WITHIN 10 SECONDS) or a shorter one, " +
      "choose among them with SELECT LAST (one per event) or SELECT MAX (the maximal ones), or keep the first n with " +
      s"LIMIT n; or raise ${bound.setting}.")
}

private[chain] object Subsets {
  /** No event ends every subset: the iterated atom is not the last. */
  val NoLast: Long = Long.MinValue

  /** What the subsets need of the chain whose other atoms are bound. */
  trait Chain {
    /**
     * Whether condition `c` holds with `event` as the iterated atom's (null: none, for a condition over its aggregates
     * alone) and `slots` as the values of its aggregates and prev, the other atoms' events as bound.
     */
    def holds(c: Int, event: AnyRef, slots: Array[Any]): Boolean
    /** Reports a subset (its first `size` positions, in stream order); false when the sink wants no more. */
    def report(subset: Array[Long], size: Int): Boolean
  }
}
