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
    if (l == Set(variable) && !r.contains(variable)) Some(0)
    else if (r == Set(variable) && !l.contains(variable)) Some(1)
    else None
  }

  /** Whether a larger value of side `i` is harder to satisfy (`x <= y`: a larger x, a smaller y). */
  def largerIsHarder(i: Int): Boolean = (op == ComparisonOp.Lt || op == ComparisonOp.LtEq) == (i == 0)
}

object OrderComparison {
  /** The order comparison a condition is, or None: a condition with aggregates, `prev`, or another shape. */
  def of(condition: Condition): Option[OrderComparison] =
    if (condition.slots.nonEmpty) None
    else {
      val parsed = try Some(ExprParser.parse(condition.predicate.sparkSql)) catch { case _: PatternException => None }
      parsed.collect {
        case Expr.Comparison(op @ (ComparisonOp.Lt | ComparisonOp.LtEq | ComparisonOp.Gt | ComparisonOp.GtEq), l, r, _) =>
          OrderComparison(op, l, r)
      }
    }

  /** The variables an expression reads (`b` of `b.price`). */
  private def variables(e: Expr): Set[String] = e match {
    case Expr.Attribute(v, _) => Set(v.value)
    case _: Expr.Column | _: Expr.Literal => Set.empty
    case Expr.Negate(x, _) => variables(x)
    case Expr.Not(x, _) => variables(x)
    case Expr.Arithmetic(_, l, r, _) => variables(l) ++ variables(r)
    case Expr.Comparison(_, l, r, _) => variables(l) ++ variables(r)
    case Expr.And(l, r, _) => variables(l) ++ variables(r)
    case Expr.Or(l, r, _) => variables(l) ++ variables(r)
    case Expr.InSet(x, vs, _, _) => (x +: vs).flatMap(variables).toSet
    case Expr.InRange(x, lo, hi, _, _) => variables(x) ++ variables(lo) ++ variables(hi)
    case Expr.Like(x, p, _, _, _) => variables(x) ++ variables(p)
    case Expr.IsNull(x, _, _) => variables(x)
    case Expr.Call(_, arguments, _) => arguments.flatMap(variables).toSet
  }
}
