package io.sparkcer.engine.analysis

import io.sparkcer.engine.ceql.Condition
import io.sparkcer.engine.expr.{ComparisonOp, Expr, ExprParser}
import io.sparkcer.engine.syntax.PatternException

/**
 * `u.attr = v.attr2`: a condition that equates an attribute of one variable's events with one of another's. An
 * equality on one attribute across every event is a partition ([[EqualityPartition]]); the others are the PCEA paper's
 * equality predicates B_eq (Pinto and Riveros, §2), the only conditions a PCEA evaluates.
 */
final case class Equality(left: Equality.Side, right: Equality.Side) {
  def sides: Seq[Equality.Side] = Seq(left, right)
}

object Equality {
  /** One side: `variable.attribute` (the attribute as written), at `side` 0 (left) or 1. */
  final case class Side(variable: String, attribute: String, side: Int)

  /** The equality a condition is, or None: a condition with aggregates, `prev`, or anything but `x.a = y.b`. */
  def of(condition: Condition): Option[Equality] =
    if (condition.slots.nonEmpty) None
    else {
      val parsed =
        try Some(ExprParser.parse(condition.predicate.sparkSql))
        catch { case _: PatternException => None }
      parsed.collect {
        case Expr.Comparison(ComparisonOp.Eq, Expr.Attribute(u, a), Expr.Attribute(v, b), _) if u.value != v.value =>
          Equality(Side(u.value, a.value, 0), Side(v.value, b.value, 1))
      }
    }
}
