package io.sparkcer.engine.rma

import io.sparkcer.engine.analysis.OrderComparison
import io.sparkcer.engine.ceql.Condition

/**
 * When one run's registers make every condition ahead at least as easy to satisfy as another's, in the same automaton
 * state: then every continuation of the other is one of the first. NEXT and LAST keep a run while it may outrank
 * another ([[RankedRegisterRun]]); a run below one that dominates it never can, since ≤next and ≤last keep the higher
 * above under any common extension, so it is dropped. Without this, `SELECT LAST * ... SELL AS s ; BUY AS b FILTER
 * b.price > s.price` kept every SELL of a partition (each may be the latest cheaper one for some BUY); with it, a SELL
 * is dropped once a later one is no dearer, and those kept are ever cheaper towards the past.
 *
 * A single register is compared by how hard its event makes the conditions that read it, where each of them is an
 * order comparison one side of which reads that register's variable alone ([[OrderComparison.sideOf]]; the
 * [[Hardest]] event of a repeating variable is such a register): each by
 * [[io.sparkcer.engine.eval.EventReader.compareHardness]], no event (nothing to check yet) being the easiest and
 * [[Registers.Unsatisfiable]] the hardest. Any other register (read by another condition, by `prev`, by a NONE's
 * [[Judgement]], whose conditions an easier event makes exclude more, a list or an accumulator) must hold the same in
 * both. Both measures keep their order as events come: a write puts one event in
 * both, a challenge keeps the harder of the event and each one held.
 *
 * @param comparisons per single register, the (condition, side) of each condition that reads it, or null where it must
 *                    be equal
 */
final class Dominance private (comparisons: Array[Array[(Int, Int)]]) {
  /** Whether any register is compared by hardness: otherwise only equal registers dominate. */
  val compares: Boolean = comparisons.exists(_ != null)

  /**
   * Whether `y` makes every condition ahead at least as easy as `x` does; `hardness(condition, side, a, b)` compares
   * the events at positions a and b as [[io.sparkcer.engine.eval.EventReader.compareHardness]] does.
   */
  def noHarder(y: Registers, x: Registers, hardness: (Int, Int, Long, Long) => Int): Boolean =
    java.util.Arrays.equals(y.lists.asInstanceOf[Array[AnyRef]], x.lists.asInstanceOf[Array[AnyRef]]) &&
      java.util.Arrays.equals(y.accumulators, x.accumulators) && {
        var r = 0
        var easier = true
        while (easier && r < comparisons.length) {
          val (a, b) = (y.singles(r), x.singles(r))
          easier = a == b || (comparisons(r) != null && (a == Registers.Empty || b == Registers.Unsatisfiable ||
            a != Registers.Unsatisfiable && b != Registers.Empty && noHarderIn(comparisons(r), a, b, hardness)))
          r += 1
        }
        easier
      }

  /** Whether event `a` is no harder than `b` in each of `comparisons`: a loop, as this runs per pair of runs compared. */
  private def noHarderIn(comparisons: Array[(Int, Int)], a: Long, b: Long, hardness: (Int, Int, Long, Long) => Int): Boolean = {
    var k = 0
    var noHarder = true
    while (noHarder && k < comparisons.length) {
      val order = hardness(comparisons(k)._1, comparisons(k)._2, a, b)
      noHarder = order != io.sparkcer.engine.eval.EventReader.Unordered && order <= 0
      k += 1
    }
    noHarder
  }
}

object Dominance {
  def of(program: RegisterProgram, conditions: IndexedSeq[Condition]): Dominance = {
    val reads = Array.fill(program.singles)(List.empty[Option[(Int, Int)]])
    for (judgement <- program.judgements; check <- judgement.checks; Source.Single(r) <- check.sources) reads(r) ::= None
    for (check <- program.checks) {
      val variables = conditions(check.condition).variables
      val order = OrderComparison.of(conditions(check.condition))
      check.sources.zip(variables).foreach {
        case (Source.Single(r), v) => reads(r) ::= order.flatMap(_.sideOf(v)).map(check.condition -> _)
        case _ =>
      }
      check.slots.foreach {
        case SlotSource.Previous(r) => reads(r) ::= None
        case _ =>
      }
    }
    new Dominance(reads.map(r => if (r.nonEmpty && r.forall(_.isDefined)) r.flatten.distinct.toArray else null))
  }
}
