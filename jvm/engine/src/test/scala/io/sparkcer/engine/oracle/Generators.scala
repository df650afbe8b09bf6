package io.sparkcer.engine.oracle

import java.util.Random

import io.sparkcer.engine.ceql._
import io.sparkcer.engine.predicate.{ArithmeticOp, ComparisonOp, Expr}

/** Builds query ASTs by hand (worked examples) without the parser. */
object Dsl {
  private val P = Position.Unknown
  def name(s: String): Name = Name(s, P)
  def atom(t: String): Cel = Cel.Atom(None, name(t), P)
  def atom(stream: String, t: String): Cel = Cel.Atom(Some(name(stream)), name(t), P)
  def not(t: String): Cel = Cel.Not(Cel.Atom(None, name(t), P), None, P)
  def not(t: String, f: Filter): Cel = Cel.Not(Cel.Atom(None, name(t), P), Some(f), P)

  implicit final class CelOps(private val c: Cel) extends AnyVal {
    def as(v: String): Cel = Cel.Bind(c, name(v), P)
    /** `c ; o` */
    def seq(o: Cel): Cel = Cel.Sequence(c, o, contiguous = false, P)
    /** `c : o` */
    def next(o: Cel): Cel = Cel.Sequence(c, o, contiguous = true, P)
    def or(o: Cel): Cel = Cel.Or(c, o, P)
    /** `c+` */
    def plus: Cel = Cel.Iteration(c, contiguous = false, P)
    /** `c:+` */
    def cplus: Cel = Cel.Iteration(c, contiguous = true, P)
    def filter(f: Filter): Cel = Cel.Filtered(c, f, P)
  }

  def on(v: String)(p: Expr): Filter = {
    val text = Printer.expr(p)
    Filter.OnVariable(name(v), Predicate(text, text, P, Nil), P)
  }
  implicit final class FilterOps(private val f: Filter) extends AnyVal {
    def and(o: Filter): Filter = Filter.And(f, o, P)
    def or(o: Filter): Filter = Filter.Or(f, o, P)
  }

  def col(c: String): Expr = Expr.Column(name(c))
  def lit(v: Any): Expr = v match {
    case e: Expr => e
    case i: Int => Expr.Literal(java.lang.Long.valueOf(i.toLong), P)
    case l: Long => Expr.Literal(java.lang.Long.valueOf(l), P)
    case d: Double => Expr.Literal(java.lang.Double.valueOf(d), P)
    case b: Boolean => Expr.Literal(java.lang.Boolean.valueOf(b), P)
    case other => Expr.Literal(other, P)
  }
  implicit final class ExprOps(private val e: Expr) extends AnyVal {
    private def cmp(op: ComparisonOp, o: Any) = Expr.Comparison(op, e, lit(o), P)
    def ===(o: Any): Expr = cmp(ComparisonOp.Eq, o)
    def =!=(o: Any): Expr = cmp(ComparisonOp.NotEq, o)
    def <(o: Any): Expr = cmp(ComparisonOp.Lt, o)
    def <=(o: Any): Expr = cmp(ComparisonOp.LtEq, o)
    def >(o: Any): Expr = cmp(ComparisonOp.Gt, o)
    def >=(o: Any): Expr = cmp(ComparisonOp.GtEq, o)
    def &&(o: Expr): Expr = Expr.And(e, o, P)
    def ||(o: Expr): Expr = Expr.Or(e, o, P)
  }

  def query(
      pattern: Cel,
      strategy: Strategy = Strategy.All,
      selection: Selection = Selection.Star,
      stream: String = "S",
      partitionBy: Seq[Seq[String]] = Nil,
      orderBy: String = "ts",
      within: Option[Window] = None,
      consumeBy: Consumption = Consumption.Nothing,
      limit: Option[Long] = None): Query =
    Query(strategy, selection, Seq(name(stream)), pattern, partitionBy.map(_.map(name)),
      Seq(OrderKey(name(orderBy), descending = false)), within, consumeBy, limit)

  def select(vars: String*): Selection = Selection.Variables(vars.map(v => SelectItem(name(v), Nil)))
  def events(n: Long): Window = Window.Events(n, P)
  def span(n: Long, attr: String): Window = Window.Attribute(n, name(attr), P)
  def millis(n: Long): Window = Window.Duration(n, P)
}

/** Renders an AST as CEQL text, parenthesizing every composite operand so that precedence never matters. */
object Printer {
  def query(q: Query, explicitAll: Boolean = false): String = {
    val sb = new StringBuilder("SELECT ")
    if (q.strategy != Strategy.All || explicitAll) sb ++= q.strategy.keyword ++= " "
    sb ++= (q.selection match {
      case Selection.Star => "*"
      case Selection.Nothing => "NONE"
      case Selection.Variables(items) =>
        items.map(i => if (i.attributes.isEmpty) i.variable.value else i.attributes.map(_.value).mkString(s"${i.variable.value}[", ", ", "]")).mkString(", ")
    })
    if (q.streams.nonEmpty) sb ++= q.streams.map(_.value).mkString(" FROM ", ", ", "")
    sb ++= "\nWHERE " ++= cel(q.pattern, top = true)
    if (q.partitionBy.nonEmpty) {
      sb ++= "\nPARTITION BY "
      sb ++= (if (q.partitionBy.forall(_.size == 1) && q.partitionBy.size == 1) q.partitionBy.head.head.value
              else q.partitionBy.map(_.map(_.value).mkString("[", ", ", "]")).mkString(", "))
    }
    if (q.orderBy.nonEmpty) sb ++= q.orderBy.map(k => k.column.value + (if (k.descending) " DESC" else "")).mkString("\nORDER BY ", ", ", "")
    q.within.foreach { w => sb ++= "\nWITHIN " ++= window(w) }
    if (q.consumeBy != Consumption.Nothing) sb ++= "\nCONSUME BY " ++= q.consumeBy.keyword
    q.limit.foreach(n => sb ++= s"\nLIMIT $n")
    sb.toString
  }

  def window(w: Window): String = w match {
    case Window.Events(n, _) => s"$n EVENTS"
    case Window.Attribute(n, a, _) => s"$n [${a.value}]"
    case Window.Duration(ms, _) =>
      val parts = Seq(ms / 3600000 -> "HOURS", ms % 3600000 / 60000 -> "MINUTES", ms % 60000 / 1000 -> "SECONDS")
      require(ms % 1000 == 0 && ms > 0, s"durations are printed in whole seconds: $ms")
      parts.filter(_._1 > 0).map { case (n, u) => s"$n $u" }.mkString(" ")
  }

  private def operand(c: Cel): String = c match {
    case _: Cel.Atom | _: Cel.Not => cel(c, top = false)
    case _ => s"(${cel(c, top = false)})"
  }

  def cel(c: Cel, top: Boolean): String = c match {
    case Cel.Atom(s, t, _) => s.fold("")(_.value + ">") + t.value
    case Cel.Not(a, f, _) => s"NOT(${cel(a, top = false)}${f.fold("")(x => " FILTER " + filter(x))})"
    case Cel.Bind(b, v, _) => s"${operand(b)} AS ${v.value}"
    case Cel.Sequence(a, b, contiguous, _) => s"${operand(a)} ${if (contiguous) ":" else ";"} ${operand(b)}"
    case Cel.Or(a, b, _) => s"${operand(a)} OR ${operand(b)}"
    case Cel.Iteration(b, contiguous, _) => operand(b) + (if (contiguous) ":+" else "+")
    case Cel.Filtered(b, f, _) => s"${operand(b)} FILTER ${filter(f)}"
  }

  def filter(f: Filter): String = f match {
    case Filter.OnVariable(v, p, _) => s"${v.value}[${p.text}]"
    case Filter.And(a, b, _) => s"(${filter(a)} AND ${filter(b)})"
    case Filter.Or(a, b, _) => s"(${filter(a)} OR ${filter(b)})"
  }

  def literal(v: Any): String = v match {
    case null => "NULL"
    case s: String => "'" + s.replace("'", "''") + "'"
    case b: java.lang.Boolean => if (b) "TRUE" else "FALSE"
    case d: java.lang.Double => java.math.BigDecimal.valueOf(d.doubleValue).toPlainString
    case other => other.toString
  }

  def expr(e: Expr): String = e match {
    case Expr.Column(n) => n.value
    case Expr.Literal(v, _) => literal(v)
    case Expr.Negate(x, _) => s"-(${expr(x)})"
    case Expr.Not(x, _) => s"NOT (${expr(x)})"
    case Expr.Arithmetic(op, l, r, _) => s"(${expr(l)} ${op.symbol} ${expr(r)})"
    case Expr.Comparison(op, l, r, _) => s"(${expr(l)} ${op.symbol} ${expr(r)})"
    case Expr.And(l, r, _) => s"(${expr(l)} AND ${expr(r)})"
    case Expr.Or(l, r, _) => s"(${expr(l)} OR ${expr(r)})"
    case Expr.InSet(x, vs, neg, _) => s"(${expr(x)}${if (neg) " NOT" else ""} IN {${vs.map(expr).mkString(", ")}})"
    case Expr.InRange(x, lo, hi, neg, _) => s"(${expr(x)}${if (neg) " NOT" else ""} IN RANGE(${expr(lo)}, ${expr(hi)}))"
    case Expr.Like(x, p, regex, neg, _) => s"(${expr(x)}${if (neg) " NOT" else ""} ${if (regex) "RLIKE" else "LIKE"} ${expr(p)})"
    case Expr.IsNull(x, neg, _) => s"(${expr(x)} IS${if (neg) " NOT" else ""} NULL)"
    case Expr.Call(f, args, _) => s"${f.value}(${args.map(expr).mkString(", ")})"
  }
}

/**
 * Random queries and streams for the property tests. Queries are ASTs (the oracle evaluates them directly)
 * and are handed to the engine as CEQL text (`Printer.query`), so the parser is exercised as well.
 *
 * Streams: columns event_type (A/B/C; D never occurs), ts (strictly increasing ms), x (0..3), y (0..2 or NULL),
 * z (a Double), s (a short string or NULL), g and h (partition keys, sometimes NULL).
 */
object Generators {
  import Dsl._

  val Columns: IndexedSeq[String] = IndexedSeq("event_type", "ts", "x", "y", "z", "s", "g", "h")
  val Stream = "S"

  /** Which features a generated query may use. */
  final case class Features(
      maxSize: Int = 8,
      not: Boolean = true,
      filters: Boolean = true,
      strategies: Boolean = true,
      windows: Boolean = true,
      partitions: Boolean = true,
      consumption: Boolean = true,
      limits: Boolean = true,
      projections: Boolean = true)

  // --- streams ---------------------------------------------------------------------------------------------

  def stream(rnd: Random, length: Int): IndexedSeq[Array[Any]] = {
    var ts = rnd.nextInt(3) * 250L
    (0 until length).map { _ =>
      ts += 250L * (1 + rnd.nextInt(4))
      val t = rnd.nextInt(10) match { case 0 | 1 | 2 | 3 => "A"; case 4 | 5 | 6 => "B"; case _ => "C" }
      def maybeNull(p: Int, v: => Any): Any = if (rnd.nextInt(100) < p) null else v
      Array[Any](
        t,
        java.lang.Long.valueOf(ts),
        java.lang.Long.valueOf(rnd.nextInt(4).toLong),
        maybeNull(30, java.lang.Long.valueOf(rnd.nextInt(3).toLong)),
        java.lang.Double.valueOf(Seq(0.5, 1.0, 1.5, 2.5)(rnd.nextInt(4))),
        maybeNull(20, Seq("a", "ab", "ba", "b", "abc")(rnd.nextInt(5))),
        maybeNull(15, java.lang.Long.valueOf(rnd.nextInt(2).toLong)),
        maybeNull(35, java.lang.Long.valueOf(rnd.nextInt(2).toLong)))
    }
  }

  // --- predicates ------------------------------------------------------------------------------------------

  private def pick[T](rnd: Random, xs: T*): T = xs(rnd.nextInt(xs.size))

  def predicate(rnd: Random, depth: Int = 0): Expr = {
    def k(n: Int) = lit(rnd.nextInt(n))
    val cmpOps = Seq(ComparisonOp.Eq, ComparisonOp.NotEq, ComparisonOp.Lt, ComparisonOp.LtEq, ComparisonOp.Gt, ComparisonOp.GtEq)
    def cmp(l: Expr, r: Expr) = Expr.Comparison(pick(rnd, cmpOps: _*), l, r, Position.Unknown)
    val P = Position.Unknown
    rnd.nextInt(if (depth >= 1) 14 else 17) match {
      case 0 | 1 | 2 => cmp(col("x"), k(4))
      case 3 => cmp(col("y"), k(3))
      case 4 => cmp(Expr.Arithmetic(pick(rnd, ArithmeticOp.Add, ArithmeticOp.Subtract, ArithmeticOp.Multiply), col("x"), col("y"), P), k(4))
      case 5 => cmp(Expr.Arithmetic(ArithmeticOp.Remainder, col("x"), lit(2), P), k(2))
      case 6 => cmp(col("z"), pick(rnd, col("x"), lit(1), lit(1.5)))
      case 7 => Expr.InSet(pick(rnd, col("x"), col("y")), Seq(k(4), k(4)), rnd.nextBoolean(), P)
      case 8 => val lo = rnd.nextInt(3); Expr.InRange(col("x"), lit(lo), lit(lo + rnd.nextInt(2)), rnd.nextInt(4) == 0, P)
      case 9 => Expr.Like(col("s"), lit(pick(rnd, "a%", "%b", "_b", "a_", "%", "ab%")), regex = false, rnd.nextInt(4) == 0, P)
      case 10 => Expr.Like(col("s"), lit(pick(rnd, "b$", "^a", "ab", "a.c")), regex = true, rnd.nextInt(4) == 0, P)
      case 11 => Expr.IsNull(pick(rnd, col("y"), col("s")), rnd.nextBoolean(), P)
      case 12 => cmp(Expr.Negate(col("x"), P), lit(-rnd.nextInt(4)))
      case 13 => cmp(Expr.Arithmetic(ArithmeticOp.Divide, col("x"), lit(2), P), pick(rnd, lit(1), lit(0.5)))
      case 14 => Expr.Not(predicate(rnd, depth + 1), P)
      case 15 => Expr.And(predicate(rnd, depth + 1), predicate(rnd, depth + 1), P)
      case _ => Expr.Or(predicate(rnd, depth + 1), predicate(rnd, depth + 1), P)
    }
  }

  // --- formulas --------------------------------------------------------------------------------------------

  /** Can a valuation of `c` end with an event read by a NOT (which analysis rejects at the end of the pattern)? */
  def canEndWithNot(c: Cel): Boolean = c match {
    case _: Cel.Atom => false
    case _: Cel.Not => true
    case Cel.Bind(b, _, _) => canEndWithNot(b)
    case Cel.Sequence(_, b, _, _) => canEndWithNot(b)
    case Cel.Or(a, b, _) => canEndWithNot(a) || canEndWithNot(b)
    case Cel.Iteration(b, _, _) => canEndWithNot(b)
    case Cel.Filtered(b, _, _) => canEndWithNot(b)
  }

  /** Can a valuation of `c` start with an event read by a NOT? */
  def canStartWithNot(c: Cel): Boolean = c match {
    case _: Cel.Atom => false
    case _: Cel.Not => true
    case Cel.Bind(b, _, _) => canStartWithNot(b)
    case Cel.Sequence(a, _, _, _) => canStartWithNot(a)
    case Cel.Or(a, b, _) => canStartWithNot(a) || canStartWithNot(b)
    case Cel.Iteration(b, _, _) => canStartWithNot(b)
    case Cel.Filtered(b, _, _) => canStartWithNot(b)
  }

  /** Does every valuation of `c` mark at least one event? */
  def alwaysMarks(c: Cel): Boolean = c match {
    case _: Cel.Atom => true
    case _: Cel.Not => false
    case Cel.Bind(b, _, _) => alwaysMarks(b)
    case Cel.Sequence(a, b, _, _) => alwaysMarks(a) || alwaysMarks(b)
    case Cel.Or(a, b, _) => alwaysMarks(a) && alwaysMarks(b)
    case Cel.Iteration(b, _, _) => alwaysMarks(b)
    case Cel.Filtered(b, _, _) => alwaysMarks(b)
  }

  /** Variables that `c` can bind: AS variables and event types of positive atoms. */
  def definedVars(c: Cel): Set[String] = c match {
    case a: Cel.Atom => Set(a.eventType.value)
    case _: Cel.Not => Set.empty
    case Cel.Bind(b, v, _) => definedVars(b) + v.value
    case Cel.Sequence(a, b, _, _) => definedVars(a) ++ definedVars(b)
    case Cel.Or(a, b, _) => definedVars(a) ++ definedVars(b)
    case Cel.Iteration(b, _, _) => definedVars(b)
    case Cel.Filtered(b, _, _) => definedVars(b)
  }

  def asVars(c: Cel): Seq[String] = c match {
    case _: Cel.Atom | _: Cel.Not => Nil
    case Cel.Bind(b, v, _) => asVars(b) :+ v.value
    case Cel.Sequence(a, b, _, _) => asVars(a) ++ asVars(b)
    case Cel.Or(a, b, _) => asVars(a) ++ asVars(b)
    case Cel.Iteration(b, _, _) => asVars(b)
    case Cel.Filtered(b, _, _) => asVars(b)
  }

  def filterVars(f: Filter): Set[String] = f match {
    case Filter.OnVariable(v, _, _) => Set(v.value)
    case Filter.And(a, b, _) => filterVars(a) ++ filterVars(b)
    case Filter.Or(a, b, _) => filterVars(a) ++ filterVars(b)
  }

  /** Mirrors the restrictions analysis imposes, so that generated (and shrunk) queries are valid. */
  def valid(q: Query): Boolean = {
    def ok(c: Cel): Boolean = c match {
      case _: Cel.Atom => true
      case Cel.Not(a, f, _) => f.forall(x => filterVars(x) == Set(a.eventType.value))
      case Cel.Bind(b, _, _) => ok(b) && alwaysMarks(b)
      case Cel.Sequence(a, b, _, _) => ok(a) && ok(b) && (asVars(a).toSet & asVars(b).toSet).isEmpty
      case Cel.Or(a, b, _) => ok(a) && ok(b)
      case Cel.Iteration(b, _, _) => ok(b) && alwaysMarks(b)
      case Cel.Filtered(b, f, _) => ok(b) && filterVars(f).subsetOf(definedVars(b))
    }
    val vars = asVars(q.pattern)
    val selectable = definedVars(q.pattern)
    ok(q.pattern) && vars.distinct.size == vars.size && !canEndWithNot(q.pattern) && alwaysMarks(q.pattern) &&
      (q.selection match {
        case Selection.Variables(items) =>
          items.nonEmpty && items.map(_.variable.value).distinct.size == items.size &&
            items.forall(i => selectable.contains(i.variable.value))
        case Selection.Star =>
          // With no AS, `*` lists the event types; keep clear of NOT types, whose place in that list is unspecified.
          vars.nonEmpty || !containsNot(q.pattern)
        case Selection.Nothing => true
      })
  }

  def containsNot(c: Cel): Boolean = c match {
    case _: Cel.Atom => false
    case _: Cel.Not => true
    case Cel.Bind(b, _, _) => containsNot(b)
    case Cel.Sequence(a, b, _, _) => containsNot(a) || containsNot(b)
    case Cel.Or(a, b, _) => containsNot(a) || containsNot(b)
    case Cel.Iteration(b, _, _) => containsNot(b)
    case Cel.Filtered(b, _, _) => containsNot(b)
  }

  final class FormulaGen(rnd: Random, features: Features) {
    private var nextVar = 0
    private def fresh(): String = { nextVar += 1; s"v$nextVar" }

    private def eventType(): String = {
      val r = rnd.nextInt(20)
      if (r == 0) "D" else if (r < 8) "A" else if (r < 14) "B" else "C"
    }

    def atomOrNot(allowNot: Boolean): Cel =
      if (allowNot && features.not && rnd.nextInt(5) == 0) {
        val t = pick(rnd, "A", "B", "C")
        if (features.filters && rnd.nextBoolean()) not(t, on(t)(predicate(rnd))) else not(t)
      } else {
        val t = eventType()
        if (rnd.nextInt(15) == 0) atom(Stream, t) else atom(t)
      }

    private def filterOver(vars: Seq[String], depth: Int = 0): Filter =
      if (depth < 2 && rnd.nextInt(4) == 0) {
        val (a, b) = (filterOver(vars, depth + 1), filterOver(vars, depth + 1))
        if (rnd.nextBoolean()) a and b else a or b
      } else on(vars(rnd.nextInt(vars.size)))(predicate(rnd))

    /** A formula of about `size` nodes. */
    def formula(size: Int, allowNot: Boolean = true): Cel = {
      if (size <= 1) atomOrNot(allowNot)
      else rnd.nextInt(12) match {
        case 0 | 1 | 2 =>
          val l = 1 + rnd.nextInt(size - 1)
          formula(l, allowNot).seq(formula(size - l, allowNot)) match {
            case s: Cel.Sequence => if (rnd.nextInt(3) == 0) s.copy(contiguous = true) else s
            case other => other
          }
        case 3 | 4 =>
          val l = 1 + rnd.nextInt(size - 1)
          formula(l, allowNot).or(formula(size - l, allowNot))
        case 5 | 6 =>
          val b = formula(size - 1, allowNot)
          if (!alwaysMarks(b)) b else if (rnd.nextInt(3) == 0) b.cplus else b.plus
        case 7 | 8 =>
          val b = formula(size - 1, allowNot)
          if (!alwaysMarks(b)) b else b.as(fresh())
        case 9 | 10 if features.filters =>
          val b = formula(size - 1, allowNot)
          val vars = definedVars(b).toSeq.sorted
          if (vars.isEmpty) b else b.filter(filterOver(vars))
        case _ => formula(size, allowNot)
      }
    }
  }

  /** A random valid query. */
  def query(rnd: Random, features: Features = Features()): Query = {
    var q: Query = null
    while (q == null || !valid(q)) {
      val gen = new FormulaGen(rnd, features)
      val pattern = gen.formula(1 + rnd.nextInt(features.maxSize))
      val strategy =
        if (features.strategies && rnd.nextInt(3) != 0) pick(rnd, Strategy.values: _*) else Strategy.All
      val vars = asVars(pattern)
      val selectable = (vars ++ definedVars(pattern).toSeq.sorted).distinct
      val selection =
        if (!features.projections) Selection.Star
        else rnd.nextInt(6) match {
          case 0 => Selection.Nothing
          case 1 | 2 =>
            val chosen = selectable.filter(_ => rnd.nextBoolean())
            if (chosen.isEmpty) Selection.Star
            else Selection.Variables(new scala.util.Random(rnd).shuffle(chosen).map { v =>
              SelectItem(name(v), if (rnd.nextInt(4) == 0) Seq(name("x"), name("ts")) else Nil)
            })
          case _ => Selection.Star
        }
      val partitionBy: Seq[Seq[String]] =
        if (!features.partitions || rnd.nextInt(3) != 0) Nil
        else pick(rnd, Seq(Seq("g")), Seq(Seq("g"), Seq("h")), Seq(Seq("g", "h")), Seq(Seq("h", "g")), Seq(Seq("x")))
      val within =
        if (!features.windows || rnd.nextInt(3) != 0) None
        else rnd.nextInt(3) match {
          // WITHIN n [attr] must measure the stream order (analysis requires attr to lead ORDER BY): ts only.
          case 0 => Some(events(1 + rnd.nextInt(6)))
          case 1 => Some(span(pick(rnd, 500L, 750L, 1000L, 1500L, 2250L), "ts"))
          case _ => Some(millis(pick(rnd, 1000L, 2000L, 3000L, 60000L)))
        }
      val consumeBy =
        if (!features.consumption || rnd.nextInt(4) != 0) Consumption.Nothing
        else pick(rnd, Consumption.Any, Consumption.Partition, Consumption.Nothing)
      val limit = if (!features.limits || rnd.nextInt(5) != 0) None else Some((1 + rnd.nextInt(3)).toLong)
      q = Dsl.query(pattern, strategy, selection, Stream, partitionBy, "ts", within, consumeBy, limit)
    }
    q
  }

  // --- shrinking -------------------------------------------------------------------------------------------

  /** Smaller variants of a formula: each child in place of its parent, or a child shrunk. */
  def shrinkCel(c: Cel): Iterator[Cel] = c match {
    case _: Cel.Atom => Iterator.empty
    case n @ Cel.Not(_, f, _) => if (f.isDefined) Iterator(n.copy(filter = None)) else Iterator.empty
    case b @ Cel.Bind(x, _, _) => Iterator(x) ++ shrinkCel(x).map(y => b.copy(body = y))
    case s @ Cel.Sequence(a, b, contiguous, _) =>
      Iterator(a, b) ++ (if (contiguous) Iterator(s.copy(contiguous = false)) else Iterator.empty) ++
        shrinkCel(a).map(y => s.copy(first = y)) ++ shrinkCel(b).map(y => s.copy(second = y))
    case o @ Cel.Or(a, b, _) => Iterator(a, b) ++ shrinkCel(a).map(y => o.copy(left = y)) ++ shrinkCel(b).map(y => o.copy(right = y))
    case i @ Cel.Iteration(b, _, _) => Iterator(b) ++ shrinkCel(b).map(y => i.copy(body = y))
    case f @ Cel.Filtered(b, flt, _) =>
      val smallerFilters = flt match {
        case Filter.And(l, r, _) => Iterator(l, r)
        case Filter.Or(l, r, _) => Iterator(l, r)
        case _ => Iterator.empty
      }
      Iterator(b) ++ smallerFilters.map(x => f.copy(filter = x)) ++ shrinkCel(b).map(y => f.copy(body = y))
  }

  def shrinkQuery(q: Query): Iterator[Query] =
    (if (q.limit.isDefined) Iterator(q.copy(limit = None)) else Iterator.empty) ++
      (if (q.consumeBy != Consumption.Nothing) Iterator(q.copy(consumeBy = Consumption.Nothing)) else Iterator.empty) ++
      (if (q.within.isDefined) Iterator(q.copy(within = None)) else Iterator.empty) ++
      (if (q.partitionBy.nonEmpty) Iterator(q.copy(partitionBy = Nil)) else Iterator.empty) ++
      (if (q.strategy != Strategy.All) Iterator(q.copy(strategy = Strategy.All)) else Iterator.empty) ++
      (if (q.selection != Selection.Star) Iterator(q.copy(selection = Selection.Star)) else Iterator.empty) ++
      (q.selection match {
        case Selection.Variables(items) if items.size > 1 => items.indices.iterator.map(i => q.copy(selection = Selection.Variables(items.patch(i, Nil, 1))))
        case _ => Iterator.empty
      }) ++
      shrinkCel(q.pattern).map(p => q.copy(pattern = p))

  def shrinkStream(rows: IndexedSeq[Array[Any]]): Iterator[IndexedSeq[Array[Any]]] =
    rows.indices.reverseIterator.map(i => rows.patch(i, Nil, 1))

  /**
   * Greedy shrinking: repeatedly takes the first smaller query or stream on which `fails` still holds.
   * Returns the smallest failing pair found.
   */
  def shrink(q0: Query, rows0: IndexedSeq[Array[Any]], fails: (Query, IndexedSeq[Array[Any]]) => Boolean,
      budget: Int = 400): (Query, IndexedSeq[Array[Any]]) = {
    var (q, rows) = (q0, rows0)
    var tries = 0
    var progress = true
    while (progress && tries < budget) {
      progress = false
      val candidates: Iterator[(Query, IndexedSeq[Array[Any]])] =
        shrinkStream(rows).map(r => (q, r)) ++ shrinkQuery(q).filter(valid).map(x => (x, rows))
      val found = candidates.find { case (cq, cr) => tries += 1; tries <= budget && fails(cq, cr) }
      found.foreach { case (cq, cr) => q = cq; rows = cr; progress = true }
    }
    (q, rows)
  }

  def showStream(rows: IndexedSeq[Array[Any]], columns: IndexedSeq[String] = Columns): String =
    rows.zipWithIndex.map { case (r, i) =>
      s"  #$i " + columns.indices.map(c => s"${columns(c)}=${Printer.literal(r(c))}").mkString(" ")
    }.mkString(columns.mkString("  columns: ", ", ", "\n"), "\n", "")

  /** Columns used by the tests as Scala source, for pasting a failing case into a regression test. */
  def asScala(rows: IndexedSeq[Array[Any]]): String =
    rows.map(r => r.map {
      case null => "null"
      case s: String => "\"" + s + "\""
      case l: java.lang.Long => s"${l}L"
      case d: java.lang.Double => s"${d}d"
      case other => other.toString
    }.mkString("Array[Any](", ", ", ")")).mkString("IndexedSeq(\n  ", ",\n  ", ")")
}
