package io.sparkcer.engine.oracle

import java.util.Random

import scala.collection.mutable

import io.sparkcer.engine.ceql._
import io.sparkcer.engine.expr.{ArithmeticOp, ComparisonOp, Expr}
import io.sparkcer.engine.syntax.{Name, Position, SqlFragment}

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
    /** `c AND o`: conjunction, both on disjoint events, in any order. */
    def and(o: Cel): Cel = Cel.And(c, o, P)
    /** `c+` */
    def plus: Cel = Cel.Iteration(c, contiguous = false, P)
    /** `c:+` */
    def cplus: Cel = Cel.Iteration(c, contiguous = true, P)
    def filter(f: Filter): Cel = Cel.Filtered(c, f, P)
    /** `c ; NONE(...) ; ... ; o` */
    def seqWithout(gap: Exclusion*)(o: Cel): Cel = Cel.Sequence(c, o, contiguous = false, P, gap)
  }

  /** `NONE(t OR ... [AS v] [FILTER f])` */
  def none(types: Seq[String], v: Option[String], f: Option[Filter]): Exclusion =
    Exclusion(types.map(t => Cel.Atom(None, name(t), P)), v.map(name), f, P)

  def on(v: String)(p: Expr): Filter = {
    val text = Printer.expr(p)
    Filter.OnVariable(name(v), SqlFragment(text, text, P, Nil), P)
  }
  implicit final class FilterOps(private val f: Filter) extends AnyVal {
    def and(o: Filter): Filter = Filter.And(f, o, P)
    def or(o: Filter): Filter = Filter.Or(f, o, P)
  }
  /** `NOT f` in a FILTER. */
  def fnot(f: Filter): Filter = Filter.Not(f, P)

  /** `v.c` in a condition relating events. */
  def attr(v: String, c: String): Expr = Expr.Attribute(name(v), name(c))
  /** An aggregate or prev call in a condition: `count(b)`, `sum(b.x)`, `prev(b.x)` ([[rel]] makes it a slot). */
  def count(v: String): Expr = Expr.Call(name("count"), Seq(Expr.Column(name(v))), P)
  def call(function: String, argument: Expr): Expr = Expr.Call(name(function), Seq(argument), P)

  /**
   * A condition relating events (`Filter.Relation`) from an expression over [[attr]] and [[call]]s, built as the
   * parser builds it: its Spark text has each call replaced by a slot column `` `__cer_slot_k` `` (left to right).
   */
  def rel(e: Expr): Filter = Filter.Relation(condition(e), P)

  def condition(e: Expr): Condition = {
    val slots = mutable.ArrayBuffer.empty[Slot]
    val references = mutable.ArrayBuffer.empty[Reference]
    def slot(c: Expr.Call): String = {
      val function = SlotFunction.named(c.function.value).getOrElse(throw new IllegalArgumentException(c.toString))
      val slotName = s"`__cer_slot_${slots.size}`"
      slots += (c.arguments match {
        case Seq(Expr.Column(v)) if function == SlotFunction.Count => Slot(function, v, None, slotName, P)
        case Seq(argument) =>
          val vars = Printer.attributes(argument).map(_._1).distinct
          require(vars.size == 1, s"an aggregate's argument names one variable: $c")
          val text = Printer.expr(argument)
          Slot(function, name(vars.head), Some(SqlFragment(text, text, P, Nil)), slotName, P)
        case _ => throw new IllegalArgumentException(c.toString)
      })
      slotName
    }
    val text = Printer.condition(e)
    val sparkSql = Printer.condition(e, slot)
    Printer.attributes(e, outsideCalls = true).foreach { case (v, a) => references += Reference(name(v), a, -1) }
    Condition(SqlFragment(text, sparkSql, P, Nil), references.toSeq, slots.toSeq)
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
        items.map(i =>
          if (i.attributes.isEmpty) i.variable.value
          else i.attributes.map(_.value).mkString(s"${i.variable.value}[", ", ", "]")).mkString(", ")
    })
    if (q.streams.nonEmpty) sb ++= q.streams.map(_.value).mkString(" FROM ", ", ", "")
    sb ++= "\nWHERE " ++= cel(q.pattern, top = true)
    if (q.partitionBy.nonEmpty) {
      sb ++= "\nPARTITION BY "
      sb ++= (if (q.partitionBy.forall(_.size == 1) && q.partitionBy.size == 1) q.partitionBy.head.head.value
              else q.partitionBy.map(_.map(_.value).mkString("[", ", ", "]")).mkString(", "))
    }
    if (q.orderBy.nonEmpty)
      sb ++= q.orderBy.map(k => k.column.value + (if (k.descending) " DESC" else "")).mkString("\nORDER BY ", ", ", "")
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
    case Cel.Sequence(a, b, contiguous, _, gap) =>
      s"${operand(a)} ${if (contiguous) ":" else ";"} ${gap.map(e => exclusion(e) + " ; ").mkString}${operand(b)}"
    case Cel.Or(a, b, _) => s"${operand(a)} OR ${operand(b)}"
    case Cel.And(a, b, _) => s"${operand(a)} AND ${operand(b)}"
    case Cel.Iteration(b, contiguous, _) => operand(b) + (if (contiguous) ":+" else "+")
    case Cel.Filtered(b, f, _) => s"${operand(b)} FILTER ${filter(f)}"
  }

  def exclusion(e: Exclusion): String =
    s"NONE(${e.types.map(cel(_, top = false)).mkString(" OR ")}${e.variable.fold("")(" AS " + _.value)}" +
      s"${e.filter.fold("")(" FILTER " + filter(_))})"

  def filter(f: Filter): String = f match {
    case Filter.OnVariable(v, p, _) => s"${v.value}[${p.text}]"
    case Filter.And(a, b, _) => s"(${filter(a)} AND ${filter(b)})"
    case Filter.Or(a, b, _) => s"(${filter(a)} OR ${filter(b)})"
    case Filter.Not(o, _) => s"NOT ${filter(o)}"
    case Filter.Relation(c, _) => c.text
  }

  /**
   * A condition relating events as written in a FILTER. The FILTER's parser ends a condition at AND or OR outside
   * brackets and reads a leading bracket that closes before a connective as a group of filters, so the top
   * comparison goes without brackets and any other top operator is compared with TRUE (same three-valued meaning).
   * `call` prints an aggregate or prev call (its slot name, in the Spark text).
   */
  def condition(e: Expr, call: Expr.Call => String = c => callText(c)): String = e match {
    case Expr.Comparison(op, l, r, _) => s"${expr(l, call)} ${op.symbol} ${expr(r, call)}"
    case other => s"${expr(other, call)} = TRUE"
  }

  private def callText(c: Expr.Call): String = s"${c.function.value}(${c.arguments.map(expr(_)).mkString(", ")})"

  /** The `var.attr` references of an expression, left to right (only those outside calls, if `outsideCalls`). */
  def attributes(e: Expr, outsideCalls: Boolean = false): Seq[(String, String)] = e match {
    case Expr.Attribute(v, c) => Seq(v.value -> c.value)
    case _: Expr.Column | _: Expr.Literal => Nil
    case Expr.Negate(x, _) => attributes(x, outsideCalls)
    case Expr.Not(x, _) => attributes(x, outsideCalls)
    case Expr.Arithmetic(_, l, r, _) => attributes(l, outsideCalls) ++ attributes(r, outsideCalls)
    case Expr.Comparison(_, l, r, _) => attributes(l, outsideCalls) ++ attributes(r, outsideCalls)
    case Expr.And(l, r, _) => attributes(l, outsideCalls) ++ attributes(r, outsideCalls)
    case Expr.Or(l, r, _) => attributes(l, outsideCalls) ++ attributes(r, outsideCalls)
    case Expr.InSet(x, vs, _, _) => (x +: vs).flatMap(attributes(_, outsideCalls))
    case Expr.InRange(x, lo, hi, _, _) => Seq(x, lo, hi).flatMap(attributes(_, outsideCalls))
    case Expr.Like(x, p, _, _, _) => attributes(x, outsideCalls) ++ attributes(p, outsideCalls)
    case Expr.IsNull(x, _, _) => attributes(x, outsideCalls)
    case Expr.Call(_, args, _) => if (outsideCalls) Nil else args.flatMap(attributes(_, outsideCalls))
  }

  def literal(v: Any): String = v match {
    case null => "NULL"
    case s: String => "'" + s.replace("'", "''") + "'"
    case b: java.lang.Boolean => if (b) "TRUE" else "FALSE"
    case d: java.lang.Double => java.math.BigDecimal.valueOf(d.doubleValue).toPlainString
    case other => other.toString
  }

  def expr(e: Expr): String = expr(e, callText)

  /** An expression as Spark SQL text; `call` prints function calls (see [[condition]]). */
  def expr(e: Expr, call: Expr.Call => String): String = {
    def ex(x: Expr): String = expr(x, call)
    e match {
      case Expr.Column(n) => n.value
      case Expr.Attribute(v, c) => s"${v.value}.${c.value}"
      case Expr.Literal(v, _) => literal(v)
      case Expr.Negate(x, _) => s"-(${ex(x)})"
      case Expr.Not(x, _) => s"NOT (${ex(x)})"
      case Expr.Arithmetic(op, l, r, _) => s"(${ex(l)} ${op.symbol} ${ex(r)})"
      case Expr.Comparison(op, l, r, _) => s"(${ex(l)} ${op.symbol} ${ex(r)})"
      case Expr.And(l, r, _) => s"(${ex(l)} AND ${ex(r)})"
      case Expr.Or(l, r, _) => s"(${ex(l)} OR ${ex(r)})"
      case Expr.InSet(x, vs, neg, _) => s"(${ex(x)}${if (neg) " NOT" else ""} IN {${vs.map(ex).mkString(", ")}})"
      case Expr.InRange(x, lo, hi, neg, _) => s"(${ex(x)}${if (neg) " NOT" else ""} IN RANGE(${ex(lo)}, ${ex(hi)}))"
      case Expr.Like(x, p, regex, neg, _) =>
        s"(${ex(x)}${if (neg) " NOT" else ""} ${if (regex) "RLIKE" else "LIKE"} ${ex(p)})"
      case Expr.IsNull(x, neg, _) => s"(${ex(x)} IS${if (neg) " NOT" else ""} NULL)"
      case c: Expr.Call => call(c)
    }
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
      projections: Boolean = true,
      /** Every query selects some of its variables and leaves one out at least (where it binds several). */
      someUnselected: Boolean = false,
      /** NOT in filters: `NOT x[p]`, `NOT (f OR g)`. */
      filterNot: Boolean = false,
      /** Conditions relating events: `a.x < b.x`, aggregates, prev. */
      relations: Boolean = false,
      /** `cel AND cel`. */
      conjunction: Boolean = false,
      /** Patterns related by equalities only (`a.x = b.g`), the shapes a PCEA evaluates and some it cannot. */
      equalities: Boolean = false,
      /**
       * With [[equalities]] and [[conjunction]]: every pattern an AND whose atoms are of types A (two in three) and B
       * only, so that its operands can often read one event (a self-join).
       */
      selfJoins: Boolean = false,
      /** One AS variable bound in several places (`A AS v ; B AS v`: v binds the events of both). */
      sharedVariables: Boolean = false,
      /**
       * Order comparisons between a repeating variable and other events (`(A AS a)+ ; C AS c FILTER a.x <= c.x + 1`),
       * the shapes whose registers keep the hardest event and whose unselected takes a skip dominates.
       */
      orderComparisons: Boolean = false,
      /** `A ; NONE(B FILTER B[x > 1]) ; C` between operands of `;` anywhere: NONEs that test their event alone. */
      exclusions: Boolean = false,
      /**
       * Chains of single events with NONEs between them whose conditions relate their event to the events around
       * (`A AS a ; NONE(B AS n FILTER n.x = a.x) ; C AS c`), the lazy chain's, over longer streams and wider windows.
       */
      judgedExclusions: Boolean = false,
      /** Every query selects with NEXT, LAST or MAX, which compare the runs that conditions keep apart. */
      ranked: Boolean = false,
      /**
       * Formulas with NONEs whose conditions relate their event to variables bound before them only
       * (`(A AS a)+ ; NONE(B AS n FILTER n.x = a.x) ; C AS c`), which the registers judge under every clause.
       */
      earlierExclusions: Boolean = false,
      /**
       * Sequences of single events with one iterated (`A AS a ; (B AS b)+ ; C AS c FILTER sum(b.x) > a.x`), the lazy
       * chain's, over longer streams and wider windows.
       */
      iteratedChains: Boolean = false,
      /**
       * Sequences of single events with conditions relating any two of them (`b.x = c.x AND b.y < c.y`), sometimes
       * an OR of conditions or a NONE between two: with some left unselected, the lazy chain's witnesses.
       */
      relatedChains: Boolean = false)

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
        maybeNull(35, java.lang.Long.valueOf(rnd.nextInt(2).toLong))
      )
    }
  }

  // --- predicates ------------------------------------------------------------------------------------------

  private def pick[T](rnd: Random, xs: T*): T = xs(rnd.nextInt(xs.size))

  def predicate(rnd: Random, depth: Int = 0): Expr = {
    def k(n: Int) = lit(rnd.nextInt(n))
    val cmpOps =
      Seq(ComparisonOp.Eq, ComparisonOp.NotEq, ComparisonOp.Lt, ComparisonOp.LtEq, ComparisonOp.Gt, ComparisonOp.GtEq)
    def cmp(l: Expr, r: Expr) = Expr.Comparison(pick(rnd, cmpOps: _*), l, r, Position.Unknown)
    val P = Position.Unknown
    rnd.nextInt(if (depth >= 1) 14 else 17) match {
      case 0 | 1 | 2 => cmp(col("x"), k(4))
      case 3 => cmp(col("y"), k(3))
      case 4 => cmp(
          Expr.Arithmetic(
            pick(rnd, ArithmeticOp.Add, ArithmeticOp.Subtract, ArithmeticOp.Multiply), col("x"), col("y"), P), k(4))
      case 5 => cmp(Expr.Arithmetic(ArithmeticOp.Remainder, col("x"), lit(2), P), k(2))
      case 6 => cmp(col("z"), pick(rnd, col("x"), lit(1), lit(1.5)))
      case 7 => Expr.InSet(pick(rnd, col("x"), col("y")), Seq(k(4), k(4)), rnd.nextBoolean(), P)
      case 8 =>
        val lo = rnd.nextInt(3); Expr.InRange(col("x"), lit(lo), lit(lo + rnd.nextInt(2)), rnd.nextInt(4) == 0, P)
      case 9 =>
        Expr.Like(col("s"), lit(pick(rnd, "a%", "%b", "_b", "a_", "%", "ab%")), regex = false, rnd.nextInt(4) == 0, P)
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
    case Cel.Sequence(_, b, _, _, _) => canEndWithNot(b)
    case Cel.Or(a, b, _) => canEndWithNot(a) || canEndWithNot(b)
    case Cel.And(a, b, _) => canEndWithNot(a) || canEndWithNot(b)
    case Cel.Iteration(b, _, _) => canEndWithNot(b)
    case Cel.Filtered(b, _, _) => canEndWithNot(b)
  }

  /** Can a valuation of `c` start with an event read by a NOT? */
  def canStartWithNot(c: Cel): Boolean = c match {
    case _: Cel.Atom => false
    case _: Cel.Not => true
    case Cel.Bind(b, _, _) => canStartWithNot(b)
    case Cel.Sequence(a, _, _, _, _) => canStartWithNot(a)
    case Cel.Or(a, b, _) => canStartWithNot(a) || canStartWithNot(b)
    case Cel.And(a, b, _) => canStartWithNot(a) || canStartWithNot(b)
    case Cel.Iteration(b, _, _) => canStartWithNot(b)
    case Cel.Filtered(b, _, _) => canStartWithNot(b)
  }

  /** Does every valuation of `c` mark at least one event? */
  def alwaysMarks(c: Cel): Boolean = c match {
    case _: Cel.Atom => true
    case _: Cel.Not => false
    case Cel.Bind(b, _, _) => alwaysMarks(b)
    case Cel.Sequence(a, b, _, _, _) => alwaysMarks(a) || alwaysMarks(b)
    case Cel.Or(a, b, _) => alwaysMarks(a) && alwaysMarks(b)
    case Cel.And(a, b, _) => alwaysMarks(a) || alwaysMarks(b)
    case Cel.Iteration(b, _, _) => alwaysMarks(b)
    case Cel.Filtered(b, _, _) => alwaysMarks(b)
  }

  /** Variables that `c` can bind: AS variables and event types of positive atoms. */
  def definedVars(c: Cel): Set[String] = c match {
    case a: Cel.Atom => Set(a.eventType.value)
    case _: Cel.Not => Set.empty
    case Cel.Bind(b, v, _) => definedVars(b) + v.value
    case Cel.Sequence(a, b, _, _, _) => definedVars(a) ++ definedVars(b)
    case Cel.Or(a, b, _) => definedVars(a) ++ definedVars(b)
    case Cel.And(a, b, _) => definedVars(a) ++ definedVars(b)
    case Cel.Iteration(b, _, _) => definedVars(b)
    case Cel.Filtered(b, _, _) => definedVars(b)
  }

  def asVars(c: Cel): Seq[String] = c match {
    case _: Cel.Atom | _: Cel.Not => Nil
    case Cel.Bind(b, v, _) => asVars(b) :+ v.value
    case Cel.Sequence(a, b, _, _, _) => asVars(a) ++ asVars(b)
    case Cel.Or(a, b, _) => asVars(a) ++ asVars(b)
    case Cel.And(a, b, _) => asVars(a) ++ asVars(b)
    case Cel.Iteration(b, _, _) => asVars(b)
    case Cel.Filtered(b, _, _) => asVars(b)
  }

  /** Every variable a filter names (in conditions, those of their aggregates and prev too). */
  def filterVars(f: Filter): Set[String] = f match {
    case Filter.OnVariable(v, _, _) => Set(v.value)
    case Filter.Relation(c, _) => c.allVariables.toSet
    case Filter.And(a, b, _) => filterVars(a) ++ filterVars(b)
    case Filter.Or(a, b, _) => filterVars(a) ++ filterVars(b)
    case Filter.Not(a, _) => filterVars(a)
  }

  def conditions(f: Filter): Seq[Condition] = f match {
    case Filter.Relation(c, _) => Seq(c)
    case _: Filter.OnVariable => Nil
    case Filter.And(a, b, _) => conditions(a) ++ conditions(b)
    case Filter.Or(a, b, _) => conditions(a) ++ conditions(b)
    case Filter.Not(a, _) => conditions(a)
  }

  /**
   * How many events `variable` binds in a valuation of `c`: Some(n) when always n, None when it varies (a variable
   * "binds several events", and a condition on it holds for every combination of them, when the count may exceed one).
   */
  def multiplicity(c: Cel, variable: String): Option[Int] = {
    def plus(a: Option[Int], b: Option[Int]) = for (x <- a; y <- b) yield x + y
    def go(c: Cel, v: Option[String]): Option[Int] = c match {
      case Cel.Atom(_, t, _) => Some(if (v.forall(_ == t.value)) 1 else 0)
      case _: Cel.Not => Some(0)
      case Cel.Bind(b, x, _) => go(b, if (v.contains(x.value)) None else v)
      case Cel.Sequence(a, b, _, _, _) => plus(go(a, v), go(b, v))
      case Cel.And(a, b, _) => plus(go(a, v), go(b, v))
      case Cel.Or(a, b, _) => val (x, y) = (go(a, v), go(b, v)); if (x == y) x else None
      case Cel.Iteration(b, _, _) => if (go(b, v).contains(0)) Some(0) else None
      case Cel.Filtered(b, _, _) => go(b, v)
    }
    go(c, Some(variable))
  }

  /** Whether `variable` may bind several events in a valuation of `c` (aggregates and prev need it). */
  def repeats(c: Cel, variable: String): Boolean = multiplicity(c, variable).forall(_ > 1)

  /** Whether a condition relates events (rather than testing one event, as `a.x > 1` does). */
  def relates(c: Condition): Boolean = c.slots.nonEmpty || c.variables.size > 1

  /** The conditions of the FILTERs of a formula (NOT's excluded), each with the sub-formula it filters. */
  def scopedConditions(c: Cel): Seq[(Cel, Condition)] = c match {
    case Cel.Filtered(b, f, _) => conditions(f).map(b -> _) ++ scopedConditions(b)
    case _: Cel.Atom | _: Cel.Not => Nil
    case Cel.Bind(b, _, _) => scopedConditions(b)
    case Cel.Sequence(a, b, _, _, _) => scopedConditions(a) ++ scopedConditions(b)
    case Cel.Or(a, b, _) => scopedConditions(a) ++ scopedConditions(b)
    case Cel.And(a, b, _) => scopedConditions(a) ++ scopedConditions(b)
    case Cel.Iteration(b, _, _) => scopedConditions(b)
  }

  /** The constructs relating events a query uses (for the properties' coverage report). */
  def constructs(q: Query): Set[String] = {
    def filters(c: Cel): Seq[Filter] = c match {
      case Cel.Filtered(b, f, _) => f +: filters(b)
      case Cel.Not(_, f, _) => f.toSeq
      case _: Cel.Atom => Nil
      case Cel.Bind(b, _, _) => filters(b)
      case Cel.Sequence(a, b, _, _, _) => filters(a) ++ filters(b)
      case Cel.Or(a, b, _) => filters(a) ++ filters(b)
      case Cel.And(a, b, _) => filters(a) ++ filters(b)
      case Cel.Iteration(b, _, _) => filters(b)
    }
    def hasNot(f: Filter): Boolean = f match {
      case _: Filter.Not => true
      case Filter.And(a, b, _) => hasNot(a) || hasNot(b)
      case Filter.Or(a, b, _) => hasNot(a) || hasNot(b)
      case _ => false
    }
    val fs = filters(q.pattern)
    val cs = fs.flatMap(conditions)
    Set(
      Option.when(fs.exists(hasNot))("NOT"),
      Option.when(cs.exists(c => c.slots.isEmpty && c.variables.size > 1))("two events"),
      Option.when(cs.exists(c => c.slots.isEmpty && c.variables.size == 1))("one event"),
      Option.when(cs.exists(_.aggregates.nonEmpty))("aggregates"),
      Option.when(cs.exists(_.prevVariables.nonEmpty))("prev"),
      Option.when(containsAnd(q.pattern))("conjunction"),
      Option.when(nestsAnd(q.pattern, inside = false))("AND inside ; : +"),
      Option.when(asVars(q.pattern).distinct.size < asVars(q.pattern).size)("shared variable")
    ).flatten
  }

  /** Whether an AND stands inside `;`, `:` or `+` (`inside`: under one already). */
  def nestsAnd(c: Cel, inside: Boolean): Boolean = c match {
    case _: Cel.Atom | _: Cel.Not => false
    case Cel.And(a, b, _) => inside || nestsAnd(a, inside) || nestsAnd(b, inside)
    case Cel.Sequence(a, b, _, _, _) => nestsAnd(a, inside = true) || nestsAnd(b, inside = true)
    case Cel.Iteration(b, _, _) => nestsAnd(b, inside = true)
    case Cel.Or(a, b, _) => nestsAnd(a, inside) || nestsAnd(b, inside)
    case Cel.Bind(b, _, _) => nestsAnd(b, inside)
    case Cel.Filtered(b, _, _) => nestsAnd(b, inside)
  }

  def containsAnd(c: Cel): Boolean = c match {
    case _: Cel.Atom | _: Cel.Not => false
    case _: Cel.And => true
    case Cel.Bind(b, _, _) => containsAnd(b)
    case Cel.Sequence(a, b, _, _, _) => containsAnd(a) || containsAnd(b)
    case Cel.Or(a, b, _) => containsAnd(a) || containsAnd(b)
    case Cel.Iteration(b, _, _) => containsAnd(b)
    case Cel.Filtered(b, _, _) => containsAnd(b)
  }

  /** Per atom occurrence of `c` (positive atoms, in order): the variables that bind it (its type, the AS around it). */
  def bindersOfAtoms(c: Cel, around: List[String] = Nil): Seq[Set[String]] = c match {
    case a: Cel.Atom => Seq((a.eventType.value :: around).toSet)
    case _: Cel.Not => Nil
    case Cel.Bind(b, v, _) => bindersOfAtoms(b, v.value :: around)
    case Cel.Sequence(a, b, _, _, _) => bindersOfAtoms(a, around) ++ bindersOfAtoms(b, around)
    case Cel.Or(a, b, _) => bindersOfAtoms(a, around) ++ bindersOfAtoms(b, around)
    case Cel.And(a, b, _) => bindersOfAtoms(a, around) ++ bindersOfAtoms(b, around)
    case Cel.Iteration(b, _, _) => bindersOfAtoms(b, around)
    case Cel.Filtered(b, _, _) => bindersOfAtoms(b, around)
  }

  /** A condition that relates each event of a repeating variable to other events needs a window (RMA's Def. 3.2). */
  def needsWindow(c: Cel): Boolean = scopedConditions(c).exists { case (body, cond) =>
    relates(cond) && cond.prevVariables.isEmpty && cond.variables.exists(repeats(body, _))
  }

  /**
   * The rules of conditions relating events that the engine imposes, within the sub-formula `body` they filter.
   * Besides analysis's, the automaton compiler refuses a relating condition on a part of an iteration that may begin
   * with NOT(...) ("cannot begin with NOT(...)"); this keeps clear of such parts anywhere (the fixed cases have some
   * outside iterations).
   */
  def validCondition(body: Cel, c: Condition): Boolean =
    c.allVariables.nonEmpty && c.slots.forall(s => repeats(body, s.variable.value)) && (c.prevVariables match {
      case Seq() => true
      case Seq(b) => c.allVariables == Seq(b) && c.aggregates.isEmpty
      case _ => false
    }) && (!relates(c) || !canStartWithNot(body))

  /** The filter of NOT(T FILTER ...): a conjunction of tests of that event (the compiler refuses OR and NOT in it). */
  def conjunctionOfLeaves(f: Filter): Boolean = f match {
    case Filter.And(a, b, _) => conjunctionOfLeaves(a) && conjunctionOfLeaves(b)
    case _: Filter.Or | _: Filter.Not => false
    case _ => true
  }

  /** Mirrors the restrictions analysis imposes, so that generated (and shrunk) queries are valid. */
  def valid(q: Query): Boolean = {
    def ok(c: Cel): Boolean = c match {
      case _: Cel.Atom => true
      case Cel.Not(a, f, _) =>
        // Inside NOT(T FILTER ...) a filter tests only that event: no aggregates, no other variable.
        f.forall(x =>
          filterVars(x) == Set(a.eventType.value) && conditions(x).forall(_.slots.isEmpty) &&
            conjunctionOfLeaves(x))
      case Cel.Bind(b, _, _) => ok(b) && alwaysMarks(b)
      case Cel.Sequence(a, b, _, _, gap) =>
        // A NONE's filter names its event and the variables of the operands around it; no aggregates.
        ok(a) && ok(b) && gap.forall(e =>
          e.filter.forall(f =>
            filterVars(f).subsetOf(definedVars(a) ++ definedVars(b) + e.candidate) && conjunctionOfLeaves(f) &&
              conditions(f).forall(_.slots.isEmpty)))
      case Cel.Or(a, b, _) => ok(a) && ok(b)
      // AND is the pattern (under FILTER, AS and OR only), and its operands hold no NOT.
      case Cel.And(a, b, _) =>
        ok(a) && ok(b) && !containsNot(a) && !containsNot(b) && Cel.exclusions(a).isEmpty && Cel.exclusions(b).isEmpty
      case Cel.Iteration(b, _, _) => ok(b) && alwaysMarks(b)
      case Cel.Filtered(b, f, _) =>
        ok(b) && filterVars(f).subsetOf(definedVars(b)) && conditions(f).forall(validCondition(b, _))
    }
    val vars = asVars(q.pattern)
    val selectable = definedVars(q.pattern)
    // A NONE whose conditions relate its event to one bound after it runs on the lazy chain only: a chain of single
    // events, each variable bound once, under ALL with a window and no LIMIT or CONSUME BY.
    val judged = namesLater(q.pattern)
    ok(q.pattern) && !canEndWithNot(q.pattern) && alwaysMarks(q.pattern) &&
    (!judged || (chainOfSingles(q.pattern) && q.strategy == Strategy.All && q.limit.isEmpty &&
      q.consumeBy == Consumption.Nothing && q.within.isDefined)) &&
    (q.within.isDefined || !needsWindow(q.pattern)) &&
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

  /**
   * Whether `c` is a sequence (`;`) of single events, every variable a condition names (NONE's event apart) bound by
   * one of them alone.
   */
  def chainOfSingles(c: Cel): Boolean = {
    def atoms(c: Cel): Option[Seq[Cel]] = c match {
      case Cel.Filtered(b, _, _) => atoms(b)
      case Cel.Sequence(a, b, false, _, _) => for (x <- atoms(a); y <- atoms(b)) yield x ++ y
      case a @ (_: Cel.Atom | Cel.Bind(_: Cel.Atom, _, _)) => Some(Seq(a))
      case _ => None
    }
    val candidates = Cel.exclusions(c).map(_.candidate).toSet
    val named = (Filter.filters(c).flatMap(conditions).flatMap(_.variables).toSet -- candidates)
    atoms(c).exists(as => named.forall(v => as.count(a => definedVars(a).contains(v)) == 1))
  }

  /** Whether a NONE of `c` names, in a condition, a variable the operand after it binds. */
  def namesLater(c: Cel): Boolean = c match {
    case _: Cel.Atom | _: Cel.Not => false
    case Cel.Sequence(a, b, _, _, gap) =>
      gap.exists(e =>
        e.filter.exists(f =>
          Filter.relations(f).flatMap(_.condition.variables)
            .exists(v => v != e.candidate && definedVars(b).contains(v)))) || namesLater(a) || namesLater(b)
    case Cel.Bind(b, _, _) => namesLater(b)
    case Cel.Or(a, b, _) => namesLater(a) || namesLater(b)
    case Cel.And(a, b, _) => namesLater(a) || namesLater(b)
    case Cel.Iteration(b, _, _) => namesLater(b)
    case Cel.Filtered(b, _, _) => namesLater(b)
  }

  def containsNot(c: Cel): Boolean = c match {
    case _: Cel.Atom => false
    case _: Cel.Not => true
    case Cel.Bind(b, _, _) => containsNot(b)
    case Cel.Sequence(a, b, _, _, _) => containsNot(a) || containsNot(b)
    case Cel.Or(a, b, _) => containsNot(a) || containsNot(b)
    case Cel.And(a, b, _) => containsNot(a) || containsNot(b)
    case Cel.Iteration(b, _, _) => containsNot(b)
    case Cel.Filtered(b, _, _) => containsNot(b)
  }

  final class FormulaGen(rnd: Random, features: Features) {
    private var nextVar = 0
    /** A new variable, or with [[Features.sharedVariables]] sometimes one already bound elsewhere in the pattern. */
    private def fresh(): String =
      if (features.sharedVariables && nextVar > 0 && rnd.nextInt(3) == 0) s"v${1 + rnd.nextInt(nextVar)}"
      else { nextVar += 1; s"v$nextVar" }

    private def eventType(): String = {
      val r = rnd.nextInt(20)
      if (r == 0) "D" else if (r < 8) "A" else if (r < 14) "B" else "C"
    }

    def atomOrNot(allowNot: Boolean): Cel =
      if (allowNot && features.not && rnd.nextInt(5) == 0) {
        val t = pick(rnd, "A", "B", "C")
        if (features.filters && rnd.nextBoolean()) {
          // Inside NOT(T FILTER ...): a test of that one event, possibly written as a condition on T.
          not(t, if (features.relations && rnd.nextInt(3) == 0) oneEvent(t) else on(t)(predicate(rnd)))
        } else not(t)
      } else {
        val t = eventType()
        if (rnd.nextInt(15) == 0) atom(Stream, t) else atom(t)
      }

    /** A filter of `body`, over the variables `vars` it binds. */
    private def filterOver(body: Cel, vars: Seq[String], depth: Int = 0): Filter = {
      val f =
        if (depth < 2 && rnd.nextInt(4) == 0) {
          val (a, b) = (filterOver(body, vars, depth + 1), filterOver(body, vars, depth + 1))
          if (rnd.nextBoolean()) a and b else a or b
        } else if (features.relations && rnd.nextInt(3) != 0) relation(body, vars)
        else on(vars(rnd.nextInt(vars.size)))(predicate(rnd))
      if (features.filterNot && rnd.nextInt(5) == 0) fnot(f) else f
    }

    private def cmpOp(): ComparisonOp =
      pick(rnd, ComparisonOp.Eq, ComparisonOp.NotEq, ComparisonOp.Lt, ComparisonOp.LtEq, ComparisonOp.Gt,
        ComparisonOp.GtEq)
    private def cmp(l: Expr, r: Any): Expr = Expr.Comparison(cmpOp(), l, lit(r), Position.Unknown)
    private def arith(op: ArithmeticOp, l: Expr, r: Any): Expr = Expr.Arithmetic(op, l, lit(r), Position.Unknown)

    /** A condition on the one event of `t` (as in `NOT(T FILTER T.x > 1)`). */
    private def oneEvent(t: String): Filter = rnd.nextInt(3) match {
      case 0 => rel(cmp(attr(t, "x"), rnd.nextInt(4)))
      case 1 => rel(cmp(arith(ArithmeticOp.Add, attr(t, "x"), attr(t, "y")), rnd.nextInt(4)))
      case _ => rel(cmp(attr(t, "z"), attr(t, "x")))
    }

    /**
     * A condition relating events of `body`: two events (`a.x < b.x`), aggregates over a variable that
     * may bind several events (`sum(b.x) > 4`), or prev (`b.x > prev(b.x)`). The analysis rules that depend on the
     * rest of the query (a window, the strategy) are met by [[query]].
     */
    private def relation(body: Cel, vars: Seq[String]): Filter = {
      val repeating = vars.filter(repeats(body, _))
      def one() = vars(rnd.nextInt(vars.size))
      def two() = {
        val a = one(); val others = vars.filter(_ != a); (a, if (others.isEmpty) a else pick(rnd, others: _*))
      }
      def r() = repeating(rnd.nextInt(repeating.size))
      val P = Position.Unknown
      val choice = if (repeating.isEmpty || rnd.nextInt(5) < 2) rnd.nextInt(8) else 8 + rnd.nextInt(13)
      rel(
        choice match {
          // Two events (the same variable twice when the body binds one).
          case 0 => val (a, b) = two(); cmp(attr(a, "x"), attr(b, "x"))
          case 1 => val (a, b) = two(); attr(a, "x") === attr(b, "x")
          case 2 => val (a, b) = two(); arith(ArithmeticOp.Add, attr(a, "x"), attr(b, "y")) > rnd.nextInt(5)
          case 3 => val (a, b) = two(); (attr(a, "x") =!= attr(b, "x")) || (attr(a, "y") < 2)
          case 4 =>
            val (a, b) = two();
            pick(rnd, cmp(attr(a, "z"), attr(b, "x")), cmp(attr(a, "s"), attr(b, "s")),
              cmp(attr(a, "y"), attr(b, "y")))
          case 5 => cmp(attr(one(), "x"), rnd.nextInt(4))
          case 6 =>
            val (a, b) = two(); cmp(arith(ArithmeticOp.Subtract, attr(a, "x"), attr(b, "x")), rnd.nextInt(5) - 2)
          case 7 =>
            val (a, b) = two();
            Expr.And(attr(a, "x") <= attr(b, "x"), Expr.IsNull(attr(b, "y"), rnd.nextBoolean(), P), P)
          // Aggregates.
          case 8 => cmp(call("sum", attr(r(), "x")), rnd.nextInt(8))
          case 9 => cmp(count(r()), rnd.nextInt(4))
          case 10 => call("max", attr(r(), "x")) < attr(one(), "y")
          case 11 => cmp(call("avg", attr(r(), "x")), pick(rnd, 1L, 1.5, 2L))
          case 12 => val b = r(); cmp(call("min", attr(b, pick(rnd, "x", "y"))), rnd.nextInt(3))
          case 13 => val b = r(); val c = pick(rnd, "x", "y"); cmp(call("first", attr(b, c)), call("last", attr(b, c)))
          case 14 => val b = r(); cmp(call("sum", arith(ArithmeticOp.Multiply, attr(b, "x"), attr(b, "z"))), count(b))
          case 15 =>
            cmp(attr(one(), "x"), call(pick(rnd, "min", "max", "avg", "sum"), attr(r(), pick(rnd, "x", "y", "z"))))
          case 16 => // NULL aggregates: sum, avg, min and max skip NULLs and are NULL over none; first and last are not.
            Expr.IsNull(
              call(pick(rnd, "sum", "avg", "min", "max", "first", "last"), attr(r(), "y")), rnd.nextBoolean(), P)
          // prev.
          case 17 => val b = r(); cmp(attr(b, pick(rnd, "x", "x", "y")), call("prev", attr(b, "x")))
          case 18 => val b = r(); attr(b, "x") =!= arith(ArithmeticOp.Add, call("prev", attr(b, "x")), 1)
          case 19 => val b = r(); cmp(attr(b, pick(rnd, "y", "z")), call("prev", attr(b, pick(rnd, "y", "z", "x"))))
          case _ => val b = r(); cmp(arith(ArithmeticOp.Add, call("prev", attr(b, "x")), attr(b, "x")), rnd.nextInt(6))
        })
    }

    /**
     * A pattern shaped for conditions relating events: a sequence of two or three parts, each an event bound to a
     * variable, an iteration of one (`(B AS b)+`) or a small random formula, filtered by a condition over them.
     */
    def relational(size: Int): Cel = {
      def t() = pick(rnd, "A", "A", "B", "B", "C")
      def part(): Cel = rnd.nextInt(6) match {
        case 0 | 1 => atom(t()).as(fresh())
        case 2 | 3 => val b = atom(t()).as(fresh()); if (rnd.nextInt(5) == 0) b.cplus else b.plus
        case 4 => atom(t()).plus.as(fresh())
        case _ => formula(1 + rnd.nextInt(math.max(1, size / 2)), allowNot = false)
      }
      val parts = Seq.fill(2 + rnd.nextInt(2))(part())
      val body = parts.reduceLeft((a, b) => if (rnd.nextInt(8) == 0) a.next(b) else a.seq(b))
      val vars = definedVars(body).toSeq.sorted
      val filtered = body.filter(filterOver(body, vars))
      // Sometimes the filtered part is itself part of a larger pattern, or iterated (each iteration filtered alone).
      rnd.nextInt(6) match {
        case 0 => filtered.seq(atom(t()))
        case 1 => atom(t()).seq(filtered)
        case 2 => filtered.plus
        case _ => filtered
      }
    }

    /**
     * A pattern related by equalities (for PCEA): two to four parts in sequence, or split between the operands of AND,
     * each an event bound to a variable, an iteration of one, an OR of two events bound to one variable, or two events
     * in sequence bound to one; filtered by equalities between their attributes, of one name (`a.x = b.x`) or of two
     * (`a.x = b.g`, `a.x = b.z` of a Long and a Double), sometimes with a test of one event. Some are not hierarchical,
     * or relate events that others come between: those run on the general evaluator.
     */
    def equational(size: Int): Cel = {
      def t() = if (features.selfJoins) pick(rnd, "A", "A", "B") else pick(rnd, "A", "A", "B", "B", "C")
      def part(): Cel = rnd.nextInt(7) match {
        case 0 | 1 | 2 => atom(t()).as(fresh())
        case 3 => atom(t()).as(fresh()).plus
        case 4 => atom(t()).or(atom(t())).as(fresh())
        case 5 => atom(t()).seq(atom(t())).as(fresh())
        case _ => atom(t()).plus.as(fresh())
      }
      val parts = Seq.fill(2 + rnd.nextInt(math.min(3, math.max(1, size - 1))))(part())
      val body =
        if (features.conjunction && (features.selfJoins || rnd.nextInt(3) == 0)) {
          val cut = 1 + rnd.nextInt(parts.length - 1)
          val (l, r) = parts.splitAt(cut)
          val (left, right) = (l.reduceLeft(_.seq(_)), r.reduceLeft(_.seq(_)))
          // Sometimes an operand has equalities of its own.
          def maybeFiltered(o: Cel) = {
            val vs = asVars(o).distinct
            if (vs.size > 1 && rnd.nextInt(3) == 0) o.filter(equality(vs)) else o
          }
          maybeFiltered(left).and(maybeFiltered(right))
        } else parts.reduceLeft(_.seq(_))
      val vars = asVars(body).distinct
      if (vars.size < 2) body // every part bound to one shared variable: nothing to relate
      else {
        val tests = Seq.fill(1 + rnd.nextInt(3))(equality(vars)) ++
          (if (rnd.nextInt(4) == 0) Seq(on(vars(rnd.nextInt(vars.size)))(predicate(rnd))) else Nil)
        body.filter(tests.reduceLeft(_ and _))
      }
    }

    private def equality(vars: Seq[String]): Filter = {
      val a = vars(rnd.nextInt(vars.size))
      val others = vars.filter(_ != a)
      val b = others(rnd.nextInt(others.size))
      val (l, r) = if (rnd.nextInt(10) < 7) { val c = pick(rnd, "x", "x", "y", "g", "h"); (c, c) }
      else pick(rnd, ("x", "g"), ("y", "h"), ("x", "z"), ("g", "h"), ("x", "y"))
      rel(attr(a, l) === attr(b, r))
    }

    /**
     * A pattern shaped for order comparisons over a repeating variable r: r's iteration (`(A AS r)+`,
     * `(A AS r):+`, or r forced by another event, `(A AS r ; B)+`) in sequence with events bound to other variables,
     * before, after or around it (so that r's first event is the match's first, or not), sometimes a second
     * repeating variable; filtered by one or two conditions that compare a side reading r alone with one reading
     * others (`r.x <= o.x + 1`, `o.z > r.x`, strings, NULLs, Doubles against Longs), sometimes in a shape that keeps
     * r's every event instead (`r.x - o.x <= 1`, `=`, NOT). Which variables are selected is [[query]]'s choice.
     */
    def ordered(): Cel = {
      def t() = pick(rnd, "A", "A", "B", "B", "C")
      val r = fresh()
      val repeating = rnd.nextInt(8) match {
        case 0 | 1 | 2 | 3 => atom(t()).as(r).plus
        case 4 => atom(t()).as(r).cplus
        case 5 => (atom(t()).as(r) seq atom(t())).plus
        case _ => atom(t()).plus.as(r)
      }
      val (o, p) = (fresh(), fresh())
      val other = if (rnd.nextInt(5) == 0) atom(t()).as(o).plus else atom(t()).as(o)
      val parts = rnd.nextInt(8) match {
        case 0 | 1 | 2 | 3 => Seq(repeating, other)
        case 4 | 5 => Seq(other, repeating)
        case 6 => Seq(atom(t()).as(p), repeating, other)
        case _ => Seq(repeating, other, atom(t()).as(p))
      }
      val body = parts.reduceLeft((a, b) => if (rnd.nextInt(6) == 0) a.next(b) else a.seq(b))
      val others = definedVars(body).toSeq.sorted.filter(v => v != r && asVars(body).contains(v))
      def comparison(): Filter = {
        val P = Position.Unknown
        val (c, k) = (pick(rnd, "x", "x", "y", "z"), rnd.nextInt(3))
        val mine = pick(rnd, attr(r, c), attr(r, c), arith(ArithmeticOp.Add, attr(r, c), k), Expr.Negate(attr(r, c), P))
        val v = pick(rnd, others: _*)
        val theirs = pick(rnd, attr(v, pick(rnd, "x", "y", "z")), arith(ArithmeticOp.Subtract, attr(v, "x"), k))
        val f = rnd.nextInt(10) match {
          case 0 => rel(Expr.Comparison(cmpOp(), attr(r, "s"), attr(pick(rnd, others: _*), "s"), P))
          case 1 => rel(cmp(arith(ArithmeticOp.Subtract, attr(r, "x"), attr(pick(rnd, others: _*), "x")), k - 1))
          case 2 => rel(Expr.Comparison(pick(rnd, ComparisonOp.Eq, ComparisonOp.NotEq), mine, theirs, P))
          case _ =>
            val op = pick(rnd, ComparisonOp.Lt, ComparisonOp.LtEq, ComparisonOp.Gt, ComparisonOp.GtEq)
            rel(if (rnd.nextBoolean()) Expr.Comparison(op, mine, theirs, P) else Expr.Comparison(op, theirs, mine, P))
        }
        if (features.filterNot && rnd.nextInt(8) == 0) fnot(f) else f
      }
      val conditions = if (rnd.nextInt(4) == 0) comparison() and comparison() else comparison()
      val filtered = body.filter(conditions)
      if (rnd.nextInt(8) == 0) atom(t()).seq(filtered) else filtered
    }

    /**
     * A NONE that tests its event alone: one or two types (D never occurs), with a test of the event as `x[...]` on
     * its name or a condition on its AS name, or none.
     */
    def exclusionOfOne(): Exclusion = {
      val types =
        if (rnd.nextInt(5) == 0) Seq(pick(rnd, "A", "B"), pick(rnd, "C", "D")) else Seq(pick(rnd, "A", "B", "C", "D"))
      rnd.nextInt(4) match {
        case 0 => none(types, None, None)
        case 1 if types.size == 1 => none(types, None, Some(on(types.head)(predicate(rnd))))
        case _ =>
          val v = s"n${rnd.nextInt(1000)}"
          none(types, Some(v),
            Some(if (rnd.nextBoolean()) on(v)(predicate(rnd)) else oneEvent(v) and on(v)(predicate(rnd))))
      }
    }

    /**
     * A chain of two to four single events (`A AS v1 ; B AS v2 ; ...`) with NONEs between some neighbours, whose
     * filters test their event alone, relate it to the event before, after or both (`n.x = v1.x`, `n.y > v2.y`,
     * `n.x + v1.x < v2.x`), sometimes with a condition on the chain too: the lazy chain's shape.
     */
    def judged(): Cel = {
      def t() = pick(rnd, "A", "A", "B", "B", "C")
      val atoms = Seq.fill(2 + rnd.nextInt(3))(atom(t()).as(fresh()))
      val vars = asVars(atoms.reduceLeft(_ seq _))
      def relating(n: String, before: String, after: String): Filter = rnd.nextInt(7) match {
        case 0 => rel(attr(n, "x") === attr(before, "x"))
        case 1 => rel(attr(n, "x") === attr(after, "x"))
        case 2 => rel(cmp(attr(n, "y"), attr(after, "y")))
        case 3 =>
          rel(Expr.Comparison(cmpOp(), arith(ArithmeticOp.Add, attr(n, "x"), attr(before, "x")), attr(after, "x"),
              Position.Unknown))
        case 4 => rel(attr(n, "x") === attr(before, "x")) and rel(attr(n, "x") === attr(after, "x"))
        case 5 => rel(cmp(attr(n, "x"), attr(before, "x"))) and on(n)(predicate(rnd))
        case _ => oneEvent(n)
      }
      // Sometimes every event of the match has one x (a partition) and each NONE looks only at events of that x.
      val partitioned = rnd.nextInt(3) == 0
      val body = atoms.indices.tail.foldLeft(atoms.head) { (left, i) =>
        if (rnd.nextInt(3) == 0) left.seq(atoms(i))
        else {
          val n = s"n$i"
          val test =
            if (!partitioned) relating(n, vars(i - 1), vars(i))
            else if (rnd.nextBoolean()) rel(attr(n, "x") === attr(pick(rnd, vars(i - 1), vars(i)), "x"))
            else rel(attr(pick(rnd, vars(i - 1), vars(i)), "x") === attr(n, "x")) and on(n)(predicate(rnd))
          val gap = none(Seq(pick(rnd, "A", "B", "B", "C")), Some(n), Some(test))
          if (rnd.nextInt(6) == 0) left.seqWithout(gap, exclusionOfOne())(atoms(i)) else left.seqWithout(gap)(atoms(i))
        }
      }
      if (partitioned)
        body.filter(vars.zip(vars.tail).map { case (a, b) => rel(attr(a, "x") === attr(b, "x")) }.reduceLeft(_ and _))
      else if (rnd.nextInt(3) == 0) {
        val (a, b) = (pick(rnd, vars: _*), pick(rnd, vars: _*))
        body.filter(rel(cmp(attr(a, "x"), attr(b, "y"))))
      } else body
    }

    /**
     * A sequence of 3 to 5 single events, one to three conditions relating two of them each (an OR of two at times),
     * and sometimes a NONE between two neighbours that relates its event to theirs.
     */
    def related(): Cel = {
      def t() = pick(rnd, "A", "A", "B", "B", "C")
      val atoms = Seq.fill(3 + rnd.nextInt(3))(atom(t()).as(fresh()))
      val vars = asVars(atoms.reduceLeft(_ seq _))
      def relation(): Filter = {
        val Seq(a, b) = new scala.util.Random(rnd).shuffle(vars).take(2)
        def compare(l: Expr, r: Expr) = rel(Expr.Comparison(cmpOp(), l, r, Position.Unknown))
        rnd.nextInt(5) match {
          case 0 => rel(attr(a, "x") === attr(b, "x"))
          case 1 => compare(attr(a, "x"), attr(b, "y"))
          case 2 => compare(attr(a, "y"), attr(b, "y"))
          case 3 =>
            compare(Expr.Arithmetic(ArithmeticOp.Add, attr(a, "x"), attr(b, "y"), Position.Unknown), attr(b, "x"))
          case _ => compare(attr(a, "x"), attr(b, "x"))
        }
      }
      val body = atoms.indices.tail.foldLeft(atoms.head) { (left, i) =>
        if (rnd.nextInt(4) != 0) left.seq(atoms(i))
        else {
          val n = s"n$i"
          val test =
            rel(Expr.Comparison(cmpOp(), attr(n, "x"), attr(pick(rnd, vars(i - 1), vars(i)), "x"), Position.Unknown))
          left.seqWithout(none(Seq(pick(rnd, "A", "B", "C")), Some(n), Some(test)))(atoms(i))
        }
      }
      // Sometimes an OR with a copy that takes one event of another type under the same name: rows that only the
      // selected variables' events tell apart.
      val alternatives =
        if (rnd.nextInt(4) != 0) body
        else {
          val i = rnd.nextInt(atoms.length)
          body or atoms.indices.map(j => if (j == i) atom(pick(rnd, "A", "B", "C")).as(vars(j)) else atoms(j))
            .reduceLeft(_ seq _)
        }
      val conditions = Seq.fill(1 + rnd.nextInt(3))(if (rnd.nextInt(4) == 0) relation() or relation() else relation())
      alternatives.filter(conditions.reduceLeft(_ and _))
    }

    /** A formula of about `size` nodes. */
    def formula(size: Int, allowNot: Boolean = true): Cel = {
      if (size <= 1) atomOrNot(allowNot)
      else rnd.nextInt(if (features.conjunction) 13 else 12) match {
        case 0 | 1 | 2 =>
          val l = 1 + rnd.nextInt(size - 1)
          formula(l, allowNot).seq(formula(size - l, allowNot)) match {
            case s: Cel.Sequence if features.exclusions && rnd.nextInt(2) == 0 =>
              s.copy(gap = Seq.fill(1 + rnd.nextInt(2))(exclusionOfOne()))
            case s: Cel.Sequence if features.earlierExclusions && rnd.nextInt(2) == 0 =>
              exclusionAfter(s.first, s.second).fold[Cel](s)(e => s.copy(gap = Seq(e)))
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
          if (vars.isEmpty) b else b.filter(filterOver(b, vars))
        case 12 =>
          val l = 1 + rnd.nextInt(size - 1)
          formula(l, allowNot).and(formula(size - l, allowNot))
        case _ => formula(size, allowNot)
      }
    }

    /**
     * `φ ; NONE(...) ; ψ` of two formulas of about `size` nodes together (and NONEs inside them, with
     * [[Features.earlierExclusions]]), the NONE's conditions relating its event to variables φ binds and ψ does not.
     */
    def judgedBefore(size: Int): Cel = {
      val l = 1 + rnd.nextInt(size - 1)
      val (first, second) = (formula(l), formula(size - l))
      exclusionAfter(first, second).fold(judgedBefore(size))(e => first.seqWithout(e)(second))
    }

    /**
     * A NONE between `first` and `second` whose filter relates its event to variables `first` binds and `second` does
     * not (`n.x = v1.x`, `n.y < v1.y`, `n.x + v1.x > A.y`), sometimes with a test of its event alone; None where
     * there are none, or where `first` may begin with NOT(...) (which the registers of a repeating variable refuse
     * inside an iteration, as a relating FILTER's).
     */
    def exclusionAfter(first: Cel, second: Cel): Option[Exclusion] = {
      val earlier = (definedVars(first) -- definedVars(second)).toSeq.sorted
      Option.when(earlier.nonEmpty && !canStartWithNot(first)) {
        val n = s"n${rnd.nextInt(1000)}"
        def before() = attr(pick(rnd, earlier: _*), pick(rnd, "x", "y"))
        val P = Position.Unknown
        val test = rnd.nextInt(5) match {
          case 0 | 1 => rel(attr(n, "x") === before())
          case 2 => rel(Expr.Comparison(cmpOp(), attr(n, "y"), before(), P))
          case 3 =>
            rel(Expr.Comparison(cmpOp(), Expr.Arithmetic(ArithmeticOp.Add, attr(n, "x"), before(), P), before(), P))
          case _ => rel(attr(n, "x") === before()) and on(n)(predicate(rnd))
        }
        none(Seq(pick(rnd, "A", "B", "B", "C")), Some(n), Some(test))
      }
    }

    /**
     * A sequence of up to three single events and one iterated (`A AS a ; (B AS b)+ ; C AS c`), filtered by
     * conditions on the iterated variable (aggregates, each of its events, prev) and order comparisons between the
     * others: the lazy chain's shape with an iteration, over longer streams and wider windows. With
     * [[Features.someUnselected]], between two others (or first, or last) and read by one condition, mostly an order
     * comparison of avg, min, max, first or last with another event's value, where one event may stand for the subset.
     */
    def iterated(): Cel = {
      def t() = pick(rnd, "A", "B", "B", "C")
      val b = fresh()
      // Where it stands: between two others, first or last (-1: anywhere). Low bits of the draw: a query's first draw
      // differs little between consecutive seeds in its top bits.
      val place = if (features.someUnselected) rnd.nextInt(1 << 20) % 4 else -1
      val singles = Seq.fill(if (features.someUnselected) 2 + rnd.nextInt(2) else rnd.nextInt(4))(fresh())
      val repeated =
        if (rnd.nextInt(4) == 0) atom(t()).as(b).filter(on(b)(predicate(rnd))).plus else atom(t()).as(b).plus
      val at = place match {
        case -1 => rnd.nextInt(singles.size + 1)
        case 0 => 0
        case 1 => singles.size
        case _ => 1 + rnd.nextInt(singles.size - 1)
      }
      val body = singles.map(atom(t()).as(_)).patch(at, Seq(repeated), 0).reduceLeft(_ seq _)
      def other(): Expr =
        if (singles.isEmpty) lit(rnd.nextInt(4)) else attr(pick(rnd, singles: _*), pick(rnd, "x", "y"))
      def order(l: Expr, r: Expr): Expr =
        Expr.Comparison(
          pick(rnd, ComparisonOp.Lt, ComparisonOp.LtEq, ComparisonOp.Gt, ComparisonOp.GtEq), l, r, Position.Unknown)
      def onIteration(): Filter = rel(
        rnd.nextInt(11) match {
          case 0 => order(call("sum", attr(b, "x")), other())
          case 1 => cmp(count(b), 1 + rnd.nextInt(3))
          case 2 => order(call("max", attr(b, "x")), other())
          case 3 => cmp(call("avg", attr(b, "x")), pick(rnd, 1L, 1.5, 2L))
          case 4 => cmp(call("min", attr(b, pick(rnd, "x", "y"))), rnd.nextInt(3))
          case 5 => val c = pick(rnd, "x", "y"); cmp(call("first", attr(b, c)), call("last", attr(b, c)))
          case 6 =>
            Expr.IsNull(call(pick(rnd, "sum", "avg", "min", "max", "first", "last"), attr(b, "y")), rnd.nextBoolean(),
              Position.Unknown)
          case 7 => order(attr(b, "x"), other())
          case 8 => order(attr(b, pick(rnd, "x", "y")), call("prev", attr(b, "x")))
          case 9 => order(attr(b, "x"), arith(ArithmeticOp.Add, call("sum", attr(b, "y")), other()))
          case _ => order(call("sum", attr(b, "x")), count(b))
        })
      val ordered = singles.combinations(2).map { case Seq(v, w) => rel(order(attr(v, "x"), attr(w, "y"))) }.toSeq
      def standing(): Filter = {
        val aggregate = call(pick(rnd, "avg", "min", "max", "first", "last"), attr(b, pick(rnd, "x", "y")))
        rel(if (rnd.nextBoolean()) order(aggregate, other()) else order(other(), aggregate))
      }
      val onIterated =
        if (features.someUnselected) Seq(if (rnd.nextInt(3) != 0) standing() else onIteration())
        else Seq.fill(1 + rnd.nextInt(2))(onIteration())
      val conditions = onIterated ++ ordered.filter(_ => rnd.nextInt(3) == 0)
      body.filter(conditions.reduceLeft(_ and _))
    }
  }

  /** A random valid query. */
  def query(rnd: Random, features: Features = Features()): Query = {
    var q: Query = null
    while (q == null || !valid(q)) {
      val gen = new FormulaGen(rnd, features)
      val pattern =
        if (features.equalities) gen.equational(1 + rnd.nextInt(features.maxSize))
        else if (features.judgedExclusions) gen.judged()
        else if (features.relatedChains) gen.related()
        else if (features.earlierExclusions) gen.judgedBefore(2 + rnd.nextInt(features.maxSize - 1))
        else if (features.iteratedChains) gen.iterated()
        else if (features.orderComparisons) gen.ordered()
        else if (features.relations && rnd.nextInt(3) != 0) gen.relational(1 + rnd.nextInt(features.maxSize))
        else gen.formula(1 + rnd.nextInt(features.maxSize))
      val strategy =
        if (features.ranked) pick(rnd, Strategy.Next, Strategy.Last, Strategy.Max)
        else if (features.strategies && rnd.nextInt(3) != 0) pick(rnd, Strategy.values: _*)
        else Strategy.All
      val vars = asVars(pattern)
      val selectable = (vars ++ definedVars(pattern).toSeq.sorted).distinct
      val selection =
        if (features.someUnselected) {
          val chosen = vars.distinct.filter(_ => rnd.nextBoolean()).take(vars.distinct.length - 1)
          if (chosen.isEmpty) Selection.Star else Selection.Variables(chosen.map(v => SelectItem(name(v), Nil)))
        } else if (!features.projections) Selection.Star
        else rnd.nextInt(6) match {
          case 0 => Selection.Nothing
          case 1 | 2 =>
            val chosen = selectable.filter(_ => rnd.nextBoolean())
            if (chosen.isEmpty) Selection.Star
            else Selection.Variables(
              new scala.util.Random(rnd).shuffle(chosen).map { v =>
                SelectItem(name(v), if (rnd.nextInt(4) == 0) Seq(name("x"), name("ts")) else Nil)
              })
          case _ => Selection.Star
        }
      val partitionBy: Seq[Seq[String]] =
        if (!features.partitions || rnd.nextInt(3) != 0) Nil
        else pick(rnd, Seq(Seq("g")), Seq(Seq("g"), Seq("h")), Seq(Seq("g", "h")), Seq(Seq("h", "g")), Seq(Seq("x")))
      val within0 =
        if (!features.windows || rnd.nextInt(3) != 0) None
        else rnd.nextInt(3) match {
          // WITHIN n [attr] must measure the stream order (analysis requires attr to lead ORDER BY): ts only.
          case 0 => Some(events(1 + rnd.nextInt(6)))
          case 1 => Some(span(pick(rnd, 500L, 750L, 1000L, 1500L, 2250L), "ts"))
          case _ => Some(millis(pick(rnd, 1000L, 2000L, 3000L, 60000L)))
        }
      // A condition relating each event of a repeating variable to others needs a window; order comparisons get wide
      // ones, for matches that take several of the variable's events.
      val within =
        if (features.judgedExclusions || features.relatedChains)
          Some(pick(rnd, events(10L + rnd.nextInt(30)), span(pick(rnd, 5000L, 10000L), "ts")))
        else if (features.iteratedChains)
          Some(pick(rnd, events(10L + rnd.nextInt(11)), span(pick(rnd, 6000L, 12000L), "ts")))
        else if (within0.isEmpty && features.orderComparisons)
          Some(pick(rnd, events(5L + rnd.nextInt(6)), span(pick(rnd, 3000L, 6000L), "ts"), millis(5000L)))
        else if (within0.isEmpty && needsWindow(pattern))
          Some(pick(rnd, events(3L + rnd.nextInt(5)), span(pick(rnd, 1000L, 2250L), "ts"), millis(3000L)))
        else within0
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
    case s @ Cel.Sequence(a, b, contiguous, _, gap) =>
      Iterator(a, b) ++ (if (contiguous) Iterator(s.copy(contiguous = false)) else Iterator.empty) ++
        gap.indices.iterator.map(i => s.copy(gap = gap.patch(i, Nil, 1))) ++
        gap.indices.iterator.filter(gap(_).filter.isDefined).map(i =>
          s.copy(gap = gap.updated(i, gap(i).copy(filter = None)))) ++
        shrinkCel(a).map(y => s.copy(first = y)) ++ shrinkCel(b).map(y => s.copy(second = y))
    case o @ Cel.Or(a, b, _) =>
      Iterator(a, b) ++ shrinkCel(a).map(y => o.copy(left = y)) ++ shrinkCel(b).map(y => o.copy(right = y))
    case o @ Cel.And(a, b, _) =>
      Iterator(a, b) ++ shrinkCel(a).map(y => o.copy(left = y)) ++ shrinkCel(b).map(y => o.copy(right = y))
    case i @ Cel.Iteration(b, _, _) => Iterator(b) ++ shrinkCel(b).map(y => i.copy(body = y))
    case f @ Cel.Filtered(b, flt, _) =>
      def smaller(x: Filter): Iterator[Filter] = x match {
        case a @ Filter.And(l, r, _) =>
          Iterator(l, r) ++ smaller(l).map(y => a.copy(left = y)) ++ smaller(r).map(y => a.copy(right = y))
        case o @ Filter.Or(l, r, _) =>
          Iterator(l, r) ++ smaller(l).map(y => o.copy(left = y)) ++ smaller(r).map(y => o.copy(right = y))
        case Filter.Not(o, _) => Iterator(o) ++ smaller(o).map(fnot)
        case _ => Iterator.empty
      }
      val smallerFilters = smaller(flt)
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
        case Selection.Variables(items) if items.size > 1 =>
          items.indices.iterator.map(i => q.copy(selection = Selection.Variables(items.patch(i, Nil, 1))))
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
    rows.map(r =>
      r.map {
        case null => "null"
        case s: String => "\"" + s + "\""
        case l: java.lang.Long => s"${l}L"
        case d: java.lang.Double => s"${d}d"
        case other => other.toString
      }.mkString("Array[Any](", ", ", ")")).mkString("IndexedSeq(\n  ", ",\n  ", ")")
}
