package io.sparkcer.engine.rma

import io.sparkcer.engine.analysis.OrderComparison
import io.sparkcer.engine.ceql.{Condition, SlotFunction}
import io.sparkcer.engine.eval.EventReader

/**
 * When one run's registers make every condition ahead at least as easy to satisfy as another's, in the same automaton
 * state: then every continuation of the other is one of the first. NEXT and LAST keep a run while it may outrank
 * another ([[RankedRegisterRun]]); a run below one that dominates it never can, since ≤next and ≤last keep the higher
 * above under any common extension, so it is dropped. Without this, `SELECT LAST * ... SELL AS s ; BUY AS b FILTER
 * b.price > s.price` kept every SELL of a partition (each may be the latest cheaper one for some BUY); with it, a SELL
 * is dropped once a later one is no dearer, and those kept are ever cheaper towards the past.
 *
 * A register is compared by how hard what it holds makes the conditions that read it, where each of them is an order
 * comparison that reads it on one side alone ([[Dominance.Reading]]); any other register (read by another condition,
 * by a NONE's [[Judgement]], whose conditions an easier event makes exclude more, or a list) must hold the same in
 * both. What is compared keeps its order under the events that both runs read next (a common extension), so that
 * "no harder now" stays true:
 *  - a single register's event ([[OrderComparison.sideOf]]; the [[Hardest]] event of a repeating variable is one):
 *    a write puts one event in both, a challenge keeps the harder of the event and each one held; no event (nothing
 *    to check yet) is the easiest and [[Registers.Unsatisfiable]] the hardest;
 *  - `prev(b.x)`'s event (`b.price > prev(b.price)`: the cheaper previous b is easier): the next b replaces it in both;
 *  - an aggregate's value (`count(b) >= 3`, `sum(b.v) > 5 * s.v`): count, sum, min, max, first and last keep their
 *    order as the same events are added to both (a ≥ b gives a + d ≥ b + d, and max(a, d) ≥ max(b, d)); avg does not,
 *    nor does NULL against a value (the aggregate of no event), which must then be the same. A count, min or max
 *    compared with a constant in the direction it moves (`count(b) >= 3`, `max(b.v) > 10`) stays satisfied once it
 *    is: two values that both satisfy it are alike, whatever they are.
 *
 * @param singles      per single register, how the conditions read it, or null where it must be equal
 * @param accumulators the same per accumulator
 */
final class Dominance private (singles: Array[Array[Dominance.Reading]], accumulators: Array[Dominance.AggregateSlot]) {
  import Dominance._

  /** Whether any register is compared by hardness: otherwise only equal registers dominate. */
  val compares: Boolean = singles.exists(_ != null) || accumulators.exists(_ != null)

  private val equalSingles = singles.indices.filter(singles(_) == null).toArray
  private val equalAccumulators = accumulators.indices.filter(accumulators(_) == null).toArray

  /**
   * What registers must hold alike for one to dominate the other (their lists, and what no order compares): runs
   * whose [[Alike]] differ never dominate each other, so those compared can be found by it.
   */
  def alike(r: Registers): Alike =
    new Alike(r.lists.asInstanceOf[Array[AnyRef]], equalSingles.map(r.singles), equalAccumulators.map(r.accumulators))

  /** Whether `y` makes every condition ahead at least as easy as `x` does, as `hardness` compares what they hold. */
  def noHarder(y: Registers, x: Registers, hardness: Hardness): Boolean =
    java.util.Arrays.equals(y.lists.asInstanceOf[Array[AnyRef]], x.lists.asInstanceOf[Array[AnyRef]]) && {
      var easier = true
      var r = 0
      while (easier && r < singles.length) {
        val (a, b) = (y.singles(r), x.singles(r))
        easier = a == b || (singles(r) != null && (a == Registers.Empty || b == Registers.Unsatisfiable ||
          a != Registers.Unsatisfiable && b != Registers.Empty && eventNoHarder(singles(r), a, b, hardness)))
        r += 1
      }
      r = 0
      while (easier && r < accumulators.length) {
        val (a, b) = (y.accumulators(r), x.accumulators(r))
        easier = a == b || (accumulators(r) != null && a != null && b != null &&
          stateNoHarder(accumulators(r), a, b, hardness))
        r += 1
      }
      easier
    }

  /**
   * Whether the event at position `a` is no harder than the one at `b` in each of `readings`: a loop, as this runs per
   * pair of runs compared.
   */
  private def eventNoHarder(readings: Array[Reading], a: Long, b: Long, hardness: Hardness): Boolean = {
    var k = 0
    var noHarder = true
    while (noHarder && k < readings.length) {
      val order = readings(k) match {
        case EventSide(condition, side) => hardness.ofEvents(condition, side, a, b)
        case PreviousSlot(condition, slot, largerIsHarder) => hardness.ofPrevious(condition, slot, largerIsHarder, a, b)
      }
      noHarder = order != EventReader.Unordered && order <= 0
      k += 1
    }
    noHarder
  }

  /** Whether an accumulator in state `a` is no harder than in state `b`. */
  private def stateNoHarder(reading: AggregateSlot, a: AnyRef, b: AnyRef, hardness: Hardness): Boolean =
    reading.saturates && hardness.satisfies(reading.accumulator, a) && hardness.satisfies(reading.accumulator, b) || {
      val order = hardness.ofAggregates(reading.accumulator, reading.largerIsHarder, a, b)
      order != EventReader.Unordered && order <= 0
    }
}

object Dominance {
  /** The part of two runs' registers that must be equal for one to dominate the other ([[Dominance.alike]]). */
  final class Alike(private val lists: Array[AnyRef], private val singles: Array[Long],
      private val accumulators: Array[AnyRef]) {
    override val hashCode: Int = java.util.Arrays.hashCode(lists) * 31 * 31 + java.util.Arrays.hashCode(singles) * 31 +
      java.util.Arrays.hashCode(accumulators)
    override def equals(o: Any): Boolean = o match {
      case a: Alike => a.hashCode == hashCode && java.util.Arrays.equals(lists, a.lists) &&
        java.util.Arrays.equals(singles, a.singles) && java.util.Arrays.equals(accumulators, a.accumulators)
      case _ => false
    }
  }

  /** How one condition reads a single register, that two runs' events compare by. */
  sealed trait Reading
  /** Side `side` of condition `condition` reads the register's event ([[EventReader.compareHardness]]). */
  final case class EventSide(condition: Int, side: Int) extends Reading
  /** A side of `condition` is slot `slot`, `prev` of the register's event. */
  final case class PreviousSlot(condition: Int, slot: Int, largerIsHarder: Boolean) extends Reading
  /**
   * A side of the accumulator's condition is its aggregate; `saturates`: the other side is a constant that the
   * aggregate, moving one way only, never unsatisfies once it satisfies it.
   */
  final case class AggregateSlot(accumulator: Int, largerIsHarder: Boolean, saturates: Boolean)

  /**
   * Compares what two runs hold, for [[Dominance]]: negative, zero or positive as the first is easier, as hard or
   * harder ([[EventReader.Unordered]] when they cannot be ordered); a larger value harder where `largerIsHarder`.
   */
  trait Hardness {
    /** The events at positions a and b on side `side` of `condition` ([[EventReader.compareHardness]]). */
    def ofEvents(condition: Int, side: Int, a: Long, b: Long): Int
    /** The values of `prev` slot `slot` on the events at positions a and b, NULL the hardest. */
    def ofPrevious(condition: Int, slot: Int, largerIsHarder: Boolean, a: Long, b: Long): Int
    /** The results of accumulator `accumulator` in states a and b; neither NULL, or Unordered. */
    def ofAggregates(accumulator: Int, largerIsHarder: Boolean, a: AnyRef, b: AnyRef): Int
    /** Whether the accumulator's condition holds with the accumulator in `state`. */
    def satisfies(accumulator: Int, state: AnyRef): Boolean
  }

  def of(program: RegisterProgram, conditions: IndexedSeq[Condition]): Dominance = {
    val singles = Array.fill(program.singles)(List.empty[Option[Reading]])
    for (judgement <- program.judgements; check <- judgement.checks; Source.Single(r) <- check.sources)
      singles(r) ::= None
    for (check <- program.checks) {
      val condition = conditions(check.condition)
      val order = OrderComparison.withSlots(condition)
      check.sources.zip(condition.variables).foreach {
        case (Source.Single(r), v) => singles(r) ::= order.flatMap(_.sideOf(v)).map(EventSide(check.condition, _))
        case _ =>
      }
      check.slots.zipWithIndex.foreach {
        case (SlotSource.Previous(r), slot) =>
          singles(r) ::= OrderComparison.slotSide(condition, slot).map { case (o, side) =>
            PreviousSlot(check.condition, slot, o.largerIsHarder(side))
          }
        case _ =>
      }
    }
    val accumulators = program.accumulators.zipWithIndex.map { case ((c, slot), accumulator) =>
      val function = conditions(c).slots(slot).function
      OrderComparison.slotSide(conditions(c), slot).filter(_ => KeepOrder(function)).map { case (o, side) =>
        val larger = o.largerIsHarder(side)
        // Count and max only grow, min only shrinks: against a constant, satisfied stays satisfied.
        val grows = function == SlotFunction.Count || function == SlotFunction.Max
        val saturates = conditions(c).slots.length == 1 && conditions(c).variables.isEmpty &&
          OrderComparison.isConstant(o, 1 - side) && (grows && !larger || function == SlotFunction.Min && larger)
        AggregateSlot(accumulator, larger, saturates)
      }.orNull
    }
    new Dominance(singles.map(r => if (r.nonEmpty && r.forall(_.isDefined)) r.flatten.distinct.toArray else null),
      accumulators.toArray)
  }

  /** The aggregates whose values keep their order as the same events are added ([[Dominance]]). */
  private val KeepOrder: Set[SlotFunction] = Set(SlotFunction.Count, SlotFunction.Sum, SlotFunction.Min,
    SlotFunction.Max, SlotFunction.First, SlotFunction.Last)
}
