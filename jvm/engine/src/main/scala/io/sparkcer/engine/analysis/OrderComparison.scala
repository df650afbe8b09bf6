package io.sparkcer.engine.analysis

import io.sparkcer.engine.ceql.Condition
import io.sparkcer.engine.expr.{ComparisonOp, Expr, ExprParser}
import io.sparkcer.engine.syntax.PatternException

/**
 * `left op right` with op one of <, <=, > and >=: a condition that orders two values. When one side reads the events
 * of one variable alone and the other side none of them (`a.v <= c.v + 10`), the condition holds for every event of
 * a repeating `a` exactly when it holds for the one whose side is the hardest to satisfy (the largest `a.v` here): a
 * register keeps that event instead of every event of `a` ([[io.sparkcer.engine.rma.Placement]]), so that runs split
 * per hardest event, not per subset of the events.
 */
final case class OrderComparison(op: ComparisonOp, left: Expr, right: Expr) {
  def side(i: Int): Expr = if (i == 0) left else right

  /**
   * The side that reads `variable`'s events and nothing else, while the other side reads none of them: the side
   * a register can keep the hardest event of.
   */
  def sideOf(variable: String): Option[Int] = {
    val (l, r) = (OrderComparison.variables(left), OrderComparison.variables(right))
    if (l == Set(variable) && !r.contains(variable) && !OrderComparison.readsSlot(left)) Some(0)
    else if (r == Set(variable) && !l.contains(variable) && !OrderComparison.readsSlot(right)) Some(1)
    else None
  }

  /** Whether a larger value of side `i` is harder to satisfy (`x <= y`: a larger x, a smaller y). */
  def largerIsHarder(i: Int): Boolean = (op == ComparisonOp.Lt || op == ComparisonOp.LtEq) == (i == 0)
}

object OrderComparison {
  /** The order comparison a condition is, or None: a condition with aggregates, `prev`, or another shape. */
  def of(condition: Condition): Option[OrderComparison] = if (condition.slots.nonEmpty) None else withSlots(condition)

  /**
   * The order comparison a condition is, its slots (aggregates, `prev`) included (`sum(b.v) > a.v + 100`): where one
   * side reads a variable's events alone ([[sideOf]]), two events compare on it as where there are no slots.
   */
  def withSlots(condition: Condition): Option[OrderComparison] = {
    val parsed =
      try Some(ExprParser.parse(condition.predicate.sparkSql))
      catch { case _: PatternException => None }
    parsed.collect {
      case Expr.Comparison(op @ (ComparisonOp.Lt | ComparisonOp.LtEq | ComparisonOp.Gt | ComparisonOp.GtEq), l, r, _) =>
        OrderComparison(op, l, r)
    }
  }

  /**
   * The side (0: left, 1: right) of a condition, an order comparison, that is its slot `slot` alone (`count(b) >= 3`,
   * `b.price > prev(b.price)`, `sum(b.v) > 5 * s.v`) while the other side does not read it: the side whose value is
   * the slot's, so that two values of the slot compare as the condition orders them ([[largerIsHarder]]).
   */
  def slotSide(condition: Condition, slot: Int): Option[(OrderComparison, Int)] = withSlots(condition).flatMap { o =>
    val name = condition.slots(slot).name.stripPrefix("`").stripSuffix("`")
    def isSlot(e: Expr) = e match {
      case Expr.Column(n) => n.value == name
      case _ => false
    }
    def reads(e: Expr): Boolean = e match {
      case Expr.Column(n) => n.value == name
      case _: Expr.Attribute | _: Expr.Literal => false
      case other => children(other).exists(reads)
    }
    if (isSlot(o.left) && !reads(o.right)) Some(o -> 0)
    else if (isSlot(o.right) && !reads(o.left)) Some(o -> 1)
    else None
  }

  /** Whether side `side` of the comparison reads no event and no slot: a constant, the same for every run. */
  def isConstant(o: OrderComparison, side: Int): Boolean = {
    def constant(e: Expr): Boolean = e match {
      case _: Expr.Literal => true
      case _: Expr.Reference => false
      case other => children(other).forall(constant)
    }
    constant(o.side(side))
  }

  /** Whether an expression reads a bare column: in a condition, a slot (an aggregate's or `prev`'s value). */
  private def readsSlot(e: Expr): Boolean = e match {
    case _: Expr.Column => true
    case other => children(other).exists(readsSlot)
  }

  private def children(e: Expr): Seq[Expr] = e match {
    case _: Expr.Reference | _: Expr.Literal => Nil
    case Expr.Negate(x, _) => Seq(x)
    case Expr.Not(x, _) => Seq(x)
    case Expr.Arithmetic(_, l, r, _) => Seq(l, r)
    case Expr.Comparison(_, l, r, _) => Seq(l, r)
    case Expr.And(l, r, _) => Seq(l, r)
    case Expr.Or(l, r, _) => Seq(l, r)
    case Expr.InSet(x, vs, _, _) => x +: vs
    case Expr.InRange(x, lo, hi, _, _) => Seq(x, lo, hi)
    case Expr.Like(x, p, _, _, _) => Seq(x, p)
    case Expr.IsNull(x, _, _) => Seq(x)
    case Expr.Call(_, arguments, _) => arguments
  }

  /** The variables an expression reads (`b` of `b.price`). */
  private def variables(e: Expr): Set[String] = e match {
    case Expr.Attribute(v, _) => Set(v.value)
    case other => children(other).flatMap(variables).toSet
  }
}
