package io.sparkcer.engine.expr

import io.sparkcer.engine.ceql.CeqlParser
import io.sparkcer.engine.syntax.TokenKind._
import io.sparkcer.engine.syntax.{PatternException, Position, SqlFragment, SyntaxDepth, Token, TokenCursor}

/**
 * The engine's own reading of a predicate, for its interpreter ([[ExprInterpreter]]): the command-line runner and
 * the tests evaluate predicates without Spark. It reads a documented subset of Spark SQL, with CORE's forms:
 * comparisons (`=`, `==`, `!=`, `<>`, `<`, `<=`, `>`, `>=`), `+ - * / %`, `AND`, `OR`, `NOT`, `IN (..)` and
 * `IN {..}`, `IN RANGE(a, b)`, `IN a..b`, `BETWEEN`, `LIKE`, `RLIKE` and `IS [NOT] NULL` over columns and
 * literals. Anything else gets an error that says so; Spark evaluates every Spark expression.
 */
object ExprParser {
  val Subset: String = "comparisons, + - * / %, AND, OR, NOT, IN, IN RANGE, a..b, BETWEEN, LIKE, RLIKE and IS NULL " +
    "over columns and literals"

  /**
   * Reads a filter's Spark text for the runner, where an error says what the runner evaluates; its errors are at
   * offsets in that text, which [[SqlFragment.readIn]] places in the query.
   */
  def parse(predicate: SqlFragment): Expr =
    try parse(predicate.sparkSql)
    catch {
      case e: PatternException =>
        throw new PatternException(s"the engine's runner evaluates $Subset, not this predicate (Spark does): " +
            e.problem, e.pos, predicate.sparkSql, e.length)
    }

  /** Reads a predicate written on its own, e.g. a benchmark's. */
  def parse(text: String): Expr = {
    new ExprParser(text, Position.Start, text.length).read()
  }

  private val AnOperator = "an operator"
  private val Comparisons: Map[String, ComparisonOp] = {
    import ComparisonOp._
    Map("=" -> Eq, "==" -> Eq, "!=" -> NotEq, "<>" -> NotEq, "<" -> Lt, "<=" -> LtEq, ">" -> Gt, ">=" -> GtEq)
  }
  private val NegatableOperators = Seq("IN", "BETWEEN", "LIKE", "RLIKE")
}

/**
 * Recursive descent, one method per rule; precedence (loosest first): OR, AND, NOT, comparison / IN / LIKE / IS /
 * BETWEEN, `+ -`, `* / %`, unary minus. A node's position is where its text starts (the left operand's, for a
 * binary node); a folded negative literal (`-5`) starts at the minus sign.
 */
private final class ExprParser(query: String, start: Position, end: Int) extends TokenCursor(query, start, end) {
  import ExprParser._

  def read(): Expr = {
    val predicate = complete(expr())
    SyntaxDepth.check(predicate, CeqlParser.MaxDepth, query, "a predicate")
    predicate
  }

  // ---- predicates: OR < AND < NOT < comparison, IN, LIKE, IS, BETWEEN < + - < * / % < unary minus -------

  private def expr(): Expr = chain(conjunction(), keyword("OR"))((_, l, r) => Expr.Or(l, r, l.pos))

  private def conjunction(): Expr = chain(negation(), keyword("AND"))((_, l, r) => Expr.And(l, r, l.pos))

  private def negation(): Expr =
    if (isKw("NOT")) { val not = advance(); Expr.Not(nested(not)(negation()), not.pos) }
    else predicate()

  private def predicate(): Expr = {
    var e = additive()
    var more = true
    while (more) {
      val left = e
      val negated = isKw("NOT") && NegatableOperators.exists(isKw(_, peek))
      if (negated) advance()
      e = comparison() match {
        case Some(op) => Expr.Comparison(op, left, additive(), left.pos)
        case None if isKw("IN") => advance(); membership(left, negated)
        case None if isKw("BETWEEN") =>
          advance()
          val low = additive()
          expectKw("AND")
          Expr.InRange(left, low, additive(), negated, left.pos)
        case None if isKw("LIKE") || isKw("RLIKE") =>
          val regex = isKw("RLIKE")
          advance()
          Expr.Like(left, additive(), regex, negated, left.pos)
        case None if isKw("IS") =>
          advance()
          val not = acceptKw("NOT")
          expectKw("NULL")
          Expr.IsNull(left, not, left.pos)
        case None => expected += AnOperator; more = false; left
      }
    }
    e
  }

  private def comparison(): Option[ComparisonOp] = {
    val op = if (tok.kind == Sym) Comparisons.get(tok.text) else None
    if (op.isDefined) advance()
    op
  }

  /** After IN: `{v, ...}`, `(v, ...)`, `RANGE(lo, hi)` or `lo..hi`. */
  private def membership(operand: Expr, negated: Boolean): Expr =
    if (isSym("{") || isSym("(")) {
      val close = if (advance().text == "{") "}" else ")"
      Expr.InSet(operand, closedBy(close)(commaList(expr())), negated, operand.pos)
    } else if (isKw("RANGE") && isSym("(", peek)) {
      advance(); advance()
      val low = expr()
      expectSym(",")
      Expr.InRange(operand, low, closedBy(")")(expr()), negated, operand.pos)
    } else {
      expected ++= Seq("'{'", "'('", "RANGE")
      val low = additive()
      expectSym("..")
      Expr.InRange(operand, low, additive(), negated, operand.pos)
    }

  private def additive(): Expr =
    chain(multiplicative(), arithmetic(ArithmeticOp.Add, ArithmeticOp.Subtract))((op, l, r) =>
      Expr.Arithmetic(op, l, r, l.pos))

  private def multiplicative(): Expr =
    chain(unary(), arithmetic(ArithmeticOp.Multiply, ArithmeticOp.Divide, ArithmeticOp.Remainder))((op, l, r) =>
      Expr.Arithmetic(op, l, r, l.pos))

  private def arithmetic(ops: ArithmeticOp*): Option[ArithmeticOp] = {
    val op = ops.find(o => isSym(o.symbol))
    if (op.isDefined) advance() else expected += AnOperator
    op
  }

  /** `-` before a number literal is folded into it, so that -9223372036854775808 is a Long. */
  private def unary(): Expr =
    if (!isSym("-")) primaryExpr()
    else {
      val minus = advance()
      if (tok.kind == IntLit || tok.kind == DecLit) number(advance(), Some(minus))
      else Expr.Negate(nested(minus)(unary()), minus.pos)
    }

  private def primaryExpr(): Expr = tok.kind match {
    case IntLit | DecLit => number(advance(), None)
    case StrLit => val t = advance(); Expr.Literal(t.value, t.pos)
    case Ident if isKw("TRUE") || isKw("FALSE") =>
      val t = advance()
      Expr.Literal(java.lang.Boolean.valueOf(t.text.equalsIgnoreCase("TRUE")), t.pos)
    case Ident if isKw("NULL") => Expr.Literal(null, advance().pos)
    case Sym if isSym("(") => val open = advance(); nested(open)(closedBy(")")(expr()))
    case _ =>
      val function = name("an expression")
      if (isSym(".")) { advance(); Expr.Attribute(function, name("an attribute")) }
      else if (!isSym("(")) Expr.Column(function)
      else {
        advance()
        val arguments = if (acceptSym(")")) Nil else closedBy(")")(commaList(expr()))
        Expr.Call(function, arguments, function.pos)
      }
  }

  private def number(t: Token, minus: Option[Token]): Expr.Literal = {
    val source = minus.fold("")(_ => "-") + t.text
    val pos = minus.getOrElse(t).pos
    if (t.kind == IntLit) source.toLongOption match {
      case Some(n) => Expr.Literal(java.lang.Long.valueOf(n), pos)
      case None => throw error(s"expected an integer between ${Long.MinValue} and ${Long.MaxValue}, found '$source'", t)
    }
    else {
      val d = source.toDouble
      if (d.isInfinite) throw error(s"expected a number within the range of a double, found '$source'", t)
      Expr.Literal(java.lang.Double.valueOf(d), pos)
    }
  }

}
