package io.sparkcer.engine.expr

import org.scalatest.funsuite.AnyFunSuite

import io.sparkcer.engine.ceql.{CeqlParser, Filter}
import io.sparkcer.engine.syntax.{Name, PatternException, Position, TokenCursor}

/** The runner's reading of predicates: its subset of Spark SQL with CORE's forms, and its errors. */
class ExprParserSuite extends AnyFunSuite {

  private def expr(e: String): String = show(ExprParser.parse(e))

  private def show(e: Expr): String = {
    def not(negated: Boolean) = if (negated) "NOT " else ""
    e match {
      case Expr.Column(n) => n.value
      case Expr.Literal(s: String, _) => s"'$s'"
      case Expr.Literal(v, _) => String.valueOf(v)
      case Expr.Negate(x, _) => s"(-${show(x)})"
      case Expr.Not(x, _) => s"(NOT ${show(x)})"
      case Expr.Arithmetic(op, a, b, _) => s"(${show(a)} ${op.symbol} ${show(b)})"
      case Expr.Comparison(op, a, b, _) => s"(${show(a)} ${op.symbol} ${show(b)})"
      case Expr.And(a, b, _) => s"(${show(a)} AND ${show(b)})"
      case Expr.Or(a, b, _) => s"(${show(a)} OR ${show(b)})"
      case Expr.InSet(x, vs, n, _) => s"(${show(x)} ${not(n)}IN {${vs.map(show).mkString(", ")}})"
      case Expr.InRange(x, lo, hi, n, _) => s"(${show(x)} ${not(n)}IN [${show(lo)}, ${show(hi)}])"
      case Expr.Like(x, p, regex, n, _) => s"(${show(x)} ${not(n)}${if (regex) "RLIKE" else "LIKE"} ${show(p)})"
      case Expr.IsNull(x, n, _) => s"(${show(x)} IS ${not(n)}NULL)"
      case Expr.Call(f, args, _) => s"$f(${args.map(show).mkString(", ")})"
    }
  }

  test("predicate precedence: OR < AND < NOT < comparison < + - < * / % < unary minus") {
    assert(expr("a + b * c > 1 AND NOT x OR y") == "((((a + (b * c)) > 1) AND (NOT x)) OR y)")
    assert(expr("a - b - c % d / e") == "((a - b) - ((c % d) / e))")
    assert(expr("-a * -(b + 1) = -2") == "(((-a) * (-(b + 1))) = -2)")
    assert(expr("NOT a = 1 AND b") == "((NOT (a = 1)) AND b)")
    assert(expr("(a OR b) AND c") == "((a OR b) AND c)")
  }

  test("every comparison operator") {
    val ops =
      Seq("=" -> "=", "==" -> "=", "!=" -> "!=", "<>" -> "!=", "<" -> "<", "<=" -> "<=", ">" -> ">", ">=" -> ">=")
    for ((written, op) <- ops) assert(expr(s"a $written 1") == s"(a $op 1)")
  }

  test("IN sets and ranges, BETWEEN, LIKE, RLIKE, IS NULL, with and without NOT") {
    assert(expr("a IN {1, 2, 3}") == "(a IN {1, 2, 3})")
    assert(expr("a not in ('x', 'y')") == "(a NOT IN {'x', 'y'})")
    assert(expr("a IN RANGE(1, b + 1)") == "(a IN [1, (b + 1)])")
    assert(expr("a NOT IN RANGE(1, 2)") == "(a NOT IN [1, 2])")
    assert(expr("a IN 10..20") == "(a IN [10, 20])")
    assert(expr("a NOT IN -5..b") == "(a NOT IN [-5, b])")
    assert(expr("a BETWEEN 1 AND 2 AND b") == "((a IN [1, 2]) AND b)")
    assert(expr("a NOT BETWEEN x - 1 AND x + 1") == "(a NOT IN [(x - 1), (x + 1)])")
    assert(expr("name LIKE 'IN%'") == "(name LIKE 'IN%')")
    assert(expr("name NOT LIKE 'IN%'") == "(name NOT LIKE 'IN%')")
    assert(expr("name RLIKE '^I.*'") == "(name RLIKE '^I.*')")
    assert(expr("name not rlike 'x'") == "(name NOT RLIKE 'x')")
    assert(expr("a IS NULL OR b IS NOT NULL") == "((a IS NULL) OR (b IS NOT NULL))")
  }

  test("literals, columns and calls") {
    def literal(e: String): Any = ExprParser.parse(e) match { case Expr.Literal(v, _) => v; case o => fail(o.toString) }
    assert(literal("42") == java.lang.Long.valueOf(42))
    assert(literal("-9223372036854775808") == java.lang.Long.valueOf(Long.MinValue))
    assert(literal("1.5") == java.lang.Double.valueOf(1.5))
    assert(literal("2e3") == java.lang.Double.valueOf(2000.0))
    assert(literal("-2.5E-1") == java.lang.Double.valueOf(-0.25))
    assert(literal("'it''s'") == "it's")
    assert(literal("\"say \"\"hi\"\"\"") == "say \"hi\"")
    assert(literal("TRUE") == java.lang.Boolean.TRUE && literal("false") == java.lang.Boolean.FALSE)
    assert(literal("NULL") == null)
    assert(ExprParser.parse("-7") == Expr.Literal(java.lang.Long.valueOf(-7), Position(1, 1, 0)))
    assert(expr(
      "upper(name) = 'X' AND now() > coalesce(t, 0, f(x))") == "((upper(name) = 'X') AND (now() > coalesce(t, 0, f(x))))")
    assert(ExprParser.parse("f(a)") ==
      Expr.Call(Name("f", Position(1, 1, 0)), Seq(Expr.Column(Name("a", Position(1, 3, 2)))), Position(1, 1, 0)))
    val e = intercept[PatternException](ExprParser.parse("x = 9223372036854775808"))
    assert(
      e.problem == "expected an integer between -9223372036854775808 and 9223372036854775807, found '9223372036854775808'")
    assert(e.pos.column == 5 && e.length == 19)
  }

  test("strings: doubled quotes and Spark's backslash escapes") {
    def literal(e: String): Any = ExprParser.parse(e) match { case Expr.Literal(v, _) => v; case o => fail(o.toString) }
    assert(literal("'a\\'b'") == "a'b")
    assert(literal("'tab\\there'") == "tab\there")
    assert(literal("'\\d+'") == "d+")
    assert(literal("'100\\%'") == "100\\%")
  }

  test("a predicate inside a query is read from its Spark text, CORE's forms rewritten, errors placed in the query") {
    val query = "SELECT * FROM S\nWHERE A AS a FILTER a[x IN {1, 2} AND y IN 1..3 AND z = 'it''s' AND s >]"
    val filter = Filter.all(CeqlParser.parse(query).pattern).head
    val e = intercept[PatternException](filter.predicate.readIn(query)(ExprParser.parse(filter.predicate)))
    assert(e.pos == Position(2, 72, 87), e.getMessage) // the end of the predicate, past the rewritten forms
    val fine = "A AS a FILTER a[x IN {1, 2} AND y IN 1..3 AND z = 'it''s']"
    val read = Filter.all(CeqlParser.parse(fine).pattern).head.predicate
    assert(show(ExprParser.parse(read)) == "(((x IN {1, 2}) AND (y IN [1, 3])) AND (z = 'it's'))")
  }

  test("what the runner does not evaluate is an error that says so, at its place") {
    val query = "A AS a FILTER a[x IN 1..3 AND cast(x AS int) > 1]" // longer in Spark's text: x BETWEEN 1 AND 3
    val filter = Filter.all(CeqlParser.parse(query).pattern).head
    val e = intercept[PatternException](filter.predicate.readIn(query)(ExprParser.parse(filter.predicate)))
    assert(
      e.problem.startsWith(s"the engine's runner evaluates ${ExprParser.Subset}, not this predicate " +
        "(Spark does): expected"))
    assert(e.pos.column == 38)
  }

  test("deep predicates get an error, never a stack overflow") {
    val nesting = TokenCursor.MaxNesting + 1
    val deep = intercept[PatternException](ExprParser.parse("(" * nesting + "x" + ")" * nesting + " = 1"))
    assert(deep.problem.startsWith(s"expected at most ${TokenCursor.MaxNesting} levels of nesting") &&
      deep.pos.column == TokenCursor.MaxNesting + 1)
    intercept[PatternException](ExprParser.parse("NOT " * 100000 + "x"))
    val long = intercept[PatternException](ExprParser.parse(Seq.fill(100000)("x").mkString(" + ") + " > 1"))
    assert(long.problem.startsWith(s"expected a predicate at most ${CeqlParser.MaxDepth} operators deep"))
    assert(ExprParser.parse("(" * 200 + "x" + ")" * 200 + " = 1").isInstanceOf[Expr.Comparison])
  }
}
