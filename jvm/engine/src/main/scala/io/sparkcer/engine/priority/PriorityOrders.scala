package io.sparkcer.engine.priority

import scala.collection.mutable

import io.sparkcer.engine.automaton.{Nfa, TransitionCache}

/**
 * The priority orders of NEXT and LAST (Algorithms 5 and 6 of the CEL paper), built as the stream asks for them, as
 * CORE builds its deterministic automaton: an order is the sequence of disjoint groups of NFA states that
 * [[PriorityRun]] keeps, highest priority first, and what an event does to it depends on the order and the event's
 * symbol alone (which transitions it enables), never on the partial matches. So each order is interned once, and its
 * step on a symbol computed once and cached: per event, a run pays one table lookup and one move per NFA state it
 * holds, as CORE's ALL pays one per active deterministic state, instead of trying every transition of every state.
 *
 * A step claims each state of the next order from one state of the current one: the highest group whose transition
 * reaches it first (NEXT ranks a group's marking successors just above its non-marking ones; LAST ranks every marking
 * successor above every non-marking one).
 *
 * @param lastFirst LAST's order (else NEXT's)
 */
final class PriorityOrders(nfa: Nfa, lastFirst: Boolean) {
  import PriorityOrders._

  private val ids = mutable.HashMap.empty[Key, Int]
  private val groups = mutable.ArrayBuffer.empty[Array[Array[Int]]]
  private val firstFinals = mutable.ArrayBuffer.empty[Int]
  private val table = new TransitionCache[Step]
  /** Stamps of the states claimed while a step is computed. */
  private val placed = new Array[Int](nfa.stateCount)
  private var stamp = 0

  /** The order before any event: the initial state alone. */
  val initial: Int = intern(Array(Array(Nfa.Initial)))

  /** The order's groups, highest priority first. */
  def groupsOf(order: Int): Array[Array[Int]] = groups(order)
  def orderOf(groups: Array[Array[Int]]): Int = intern(groups)

  /** The final state of the highest group that holds one, or -1: the strategy's maximum ends there. */
  def firstFinal(order: Int): Int = firstFinals(order)

  /** The NFA states of the order (a metric: the runs it keeps). */
  def size(order: Int): Int = groups(order).map(_.length).sum

  def step(order: Int, symbol: Int, bits: Array[Long]): Step = {
    var s = table.get(order, symbol)
    if (s == null) { s = computeStep(groups(order), bits); table.put(order, symbol, s) }
    s
  }

  private def computeStep(current: Array[Array[Int]], bits: Array[Long]): Step = {
    stamp += 1
    val next = mutable.ArrayBuffer.empty[Array[Int]]
    val (targets, sources, labels) = (mutable.ArrayBuilder.make[Int], mutable.ArrayBuilder.make[Int],
      mutable.ArrayBuilder.make[Int])
    def claim(group: Array[Int], marking: Boolean): Unit = {
      val claimed = mutable.ArrayBuilder.make[Int]
      for (q <- group; t <- nfa.transitions(q)
        if t.marks == marking && t.enabledBy(bits) && placed(t.target) != stamp) {
        placed(t.target) = stamp
        claimed += t.target
        targets += t.target
        sources += q
        labels += (if (marking && t.label > 0) t.label else 0)
      }
      val g = claimed.result()
      if (g.nonEmpty) next += g
    }
    if (lastFirst) { current.foreach(claim(_, marking = true)); current.foreach(claim(_, marking = false)) }
    else current.foreach { g => claim(g, marking = true); claim(g, marking = false) }
    new Step(intern(next.toArray), targets.result(), sources.result(), labels.result())
  }

  private def intern(order: Array[Array[Int]]): Int =
    ids.getOrElseUpdate(new Key(order), {
        groups += order
        firstFinals += order.iterator.flatMap(_.find(nfa.finals)).nextOption().getOrElse(-1)
        groups.length - 1
      })
}

object PriorityOrders {
  /**
   * What one symbol does to the runs of one order: the next order, and for each state of it (`targets`, in claiming
   * order) the state of the current order whose partial match it takes (`sources`) and the label that extends it by
   * the event (`labels`; 0: passed on unextended).
   */
  final class Step(val order: Int, val targets: Array[Int], val sources: Array[Int], val labels: Array[Int])

  /** An order compared by content. */
  private final class Key(val groups: Array[Array[Int]]) {
    override val hashCode: Int = java.util.Arrays.deepHashCode(groups.asInstanceOf[Array[AnyRef]])
    override def equals(o: Any): Boolean = o match {
      case k: Key =>
        java.util.Arrays.deepEquals(groups.asInstanceOf[Array[AnyRef]], k.groups.asInstanceOf[Array[AnyRef]])
      case _ => false
    }
  }
}
