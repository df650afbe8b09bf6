package io.sparkcer.engine.expr

import java.util.regex.Pattern

import io.sparkcer.engine.syntax.PatternException

/**
 * The engine's own evaluator of predicate expressions over rows (`Array[Any]`), with SQL's three-valued logic:
 * NULL (a missing value, or a comparison of values that cannot be compared) propagates, and a guard that is
 * NULL is false. Each expression is compiled once into a tree of closures, so no AST is walked per event.
 */
object ExprInterpreter {
  type Compiled = Array[Any] => Any

  /**
   * Compiles `expr`; `resolve` maps a column name to its index in the row. `query` is the text the expression
   * comes from, for errors that point into it.
   */
  def compile(expr: Expr, resolve: Expr.Reference => Int, query: String): Compiled =
    new Compiler(resolve, query).compile(expr)

  /** Compiles a boolean guard: NULL and non-boolean results are false. */
  def compilePredicate(expr: Expr, resolve: Expr.Reference => Int, query: String): Array[Any] => Boolean = {
    val f = compile(expr, resolve, query)
    row => f(row) == java.lang.Boolean.TRUE
  }

  private final class Compiler(resolve: Expr.Reference => Int, query: String) {
    def compile(expr: Expr): Compiled = expr match {
      case c: Expr.Reference =>
        val i = resolve(c); row => row(i)
      case Expr.Literal(v, _) => _ => v
      case Expr.Negate(e, _) =>
        val f = compile(e)
        row =>
          f(row) match {
            case l: java.lang.Long => -l.longValue
            case d: java.lang.Double => -d.doubleValue
            case _ => null
          }
      case Expr.Not(e, _) =>
        val f = compile(e)
        row => f(row) match { case b: java.lang.Boolean => !b.booleanValue; case _ => null }
      case Expr.And(l, r, _) =>
        val (f, g) = (compile(l), compile(r))
        row =>
          f(row) match {
            case java.lang.Boolean.FALSE => false
            case left => g(row) match {
                case java.lang.Boolean.FALSE => false
                case java.lang.Boolean.TRUE if left == java.lang.Boolean.TRUE => true
                case _ => null
              }
          }
      case Expr.Or(l, r, _) =>
        val (f, g) = (compile(l), compile(r))
        row =>
          f(row) match {
            case java.lang.Boolean.TRUE => true
            case left => g(row) match {
                case java.lang.Boolean.TRUE => true
                case java.lang.Boolean.FALSE if left == java.lang.Boolean.FALSE => false
                case _ => null
              }
          }
      case Expr.Arithmetic(op, l, r, _) =>
        val (f, g) = (compile(l), compile(r))
        row => arithmetic(op, f(row), g(row))
      case Expr.Comparison(op, l, r, _) =>
        val (f, g) = (compile(l), compile(r))
        row => {
          val c = Values.compare(f(row), g(row))
          if (c == Values.Incomparable) null else holds(op, c)
        }
      case Expr.InSet(e, values, negated, _) =>
        val f = compile(e)
        val candidates = values.map(compile).toArray
        row => {
          val v = f(row)
          if (v == null) null
          else {
            var found = false
            var unknown = false
            var i = 0
            while (!found && i < candidates.length) {
              val c = Values.compare(v, candidates(i)(row))
              if (c == 0) found = true else if (c == Values.Incomparable) unknown = true
              i += 1
            }
            if (found) !negated else if (unknown) null else negated
          }
        }
      case Expr.InRange(e, lo, hi, negated, _) =>
        val (f, low, high) = (compile(e), compile(lo), compile(hi))
        row => {
          val v = f(row)
          val (a, b) = (Values.compare(v, low(row)), Values.compare(v, high(row)))
          if (a == Values.Incomparable || b == Values.Incomparable) null else (a >= 0 && b <= 0) != negated
        }
      case Expr.Like(e, pattern, regex, negated, _) =>
        val f = compile(e)
        val matcher: String => Boolean = pattern match {
          case Expr.Literal(p: String, _) =>
            val compiled = if (regex) Pattern.compile(p) else Values.likePattern(p)
            s => if (regex) compiled.matcher(s).find() else compiled.matcher(s).matches()
          case other => throw new PatternException("LIKE and RLIKE take a string literal pattern", other.pos, query)
        }
        row => f(row) match { case s: String => matcher(s) != negated; case _ => null }
      case Expr.IsNull(e, negated, _) =>
        val f = compile(e)
        row => (f(row) == null) != negated
      case Expr.Call(name, _, _) =>
        throw new PatternException(
          s"function ${name.value}() needs Spark; the engine's own interpreter supports comparisons, " +
            "arithmetic, AND/OR/NOT, IN, RANGE, LIKE, RLIKE and IS NULL",
          name.pos,
          query,
          name.value.length
        )
    }
  }

  private def holds(op: ComparisonOp, c: Int): Boolean = op match {
    case ComparisonOp.Eq => c == 0
    case ComparisonOp.NotEq => c != 0
    case ComparisonOp.Lt => c < 0
    case ComparisonOp.LtEq => c <= 0
    case ComparisonOp.Gt => c > 0
    case ComparisonOp.GtEq => c >= 0
  }

  private def arithmetic(op: ArithmeticOp, a: Any, b: Any): Any = (a, b) match {
    case (x: java.lang.Long, y: java.lang.Long) =>
      val (l, r) = (x.longValue, y.longValue)
      op match {
        case ArithmeticOp.Add => l + r
        case ArithmeticOp.Subtract => l - r
        case ArithmeticOp.Multiply => l * r
        case ArithmeticOp.Divide => if (r == 0) null else l.toDouble / r
        case ArithmeticOp.Remainder => if (r == 0) null else l % r
      }
    case _ =>
      (Values.toDouble(a), Values.toDouble(b)) match {
        case (Some(l), Some(r)) =>
          op match {
            case ArithmeticOp.Add => l + r
            case ArithmeticOp.Subtract => l - r
            case ArithmeticOp.Multiply => l * r
            case ArithmeticOp.Divide => if (r == 0) null else l / r
            case ArithmeticOp.Remainder => if (r == 0) null else l % r
          }
        case _ => null
      }
  }
}
