package io.sparkcer.engine.ceql

import org.scalatest.Inside
import org.scalatest.funsuite.AnyFunSuite

import io.sparkcer.engine.syntax.{Lexer, Name, PatternException, Position, Token, TokenCursor, TokenKind}

class CeqlParserSuite extends AnyFunSuite with Inside {

  // ---- helpers: fully parenthesised renderings make precedence visible ----------------------------------

  private def parse(q: String): Query = CeqlParser.parse(q)
  private def pattern(cel: String): String = show(parse(cel).pattern)

  private def show(c: Cel): String = c match {
    case Cel.Atom(stream, t, _) => stream.fold("")(_.value + ">") + t.value
    case Cel.Not(a, f, _) => s"NOT(${show(a)}${f.fold("")(x => " FILTER " + show(x))})"
    case Cel.Bind(b, v, _) => s"(${show(b)} AS $v)"
    case Cel.Sequence(a, b, contiguous, _, gap) =>
      s"(${show(a)} ${if (contiguous) ":" else ";"} ${gap.map(e => show(e) + " ; ").mkString}${show(b)})"
    case Cel.Or(a, b, _) => s"(${show(a)} OR ${show(b)})"
    case Cel.Iteration(b, contiguous, _) => show(b) + (if (contiguous) ":+" else "+")
    case Cel.Filtered(b, f, _) => s"(${show(b)} FILTER ${show(f)})"
  }

  private def show(e: Exclusion): String =
    s"NONE(${e.types.map(show(_)).mkString(" OR ")}${e.variable.fold("")(" AS " + _)}${e.filter.fold(
        "")(x => " FILTER " + show(x))})"

  private def show(f: Filter): String = f match {
    case Filter.OnVariable(v, p, _) => s"$v[${p.sparkSql}]"
    case Filter.And(a, b, _) => s"(${show(a)} AND ${show(b)})"
    case Filter.Or(a, b, _) => s"(${show(a)} OR ${show(b)})"
    case Filter.Relation(c, _) => c.text
  }

  private def failure(q: String): PatternException = intercept[PatternException](parse(q))

  private def assertError(q: String, line: Int, column: Int, problem: String, caret: String): Unit = {
    val e = failure(q)
    assert(e.problem == problem)
    assert((e.pos.line, e.pos.column) == ((line, column)))
    assert(e.getMessage.linesIterator.toSeq.last == caret)
  }

  // ---- whole statements ---------------------------------------------------------------------------------

  test("CORE's stock query S3, exactly as in the paper") {
    val q = parse(
      """SELECT * FROM S
        |WHERE (SELL as T1; BUY as T2; BUY as T3)
        |FILTER T1[name = 'INTC'] AND T2[name = 'RIMM'] AND T3[name = 'QQQ']
        |WITHIN 10000 [stock_time]""".stripMargin)
    assert(q.strategy == Strategy.All)
    assert(q.selection == Selection.Star)
    assert(q.streams.map(_.value) == Seq("S"))
    assert(show(q.pattern) ==
      "((((SELL AS T1) ; (BUY AS T2)) ; (BUY AS T3)) FILTER ((T1[name = 'INTC'] AND T2[name = 'RIMM']) AND T3[name = 'QQQ']))")
    assert(q.within.contains(Window.Attribute(10000L, Name("stock_time", Position(4, 15, 139)), Position(4, 1, 125))))
    assert(q.partitionBy.isEmpty && q.orderBy.isEmpty && q.consumeBy == Consumption.Nothing && q.limit.isEmpty)
  }

  test("typographic quotes of the paper's listings are string quotes") {
    val q =
      parse("SELECT * FROM S WHERE SELL as T1 FILTER T1[name = \u2019INTC\u2019 OR name = \u2018it\u2019\u2019s\u2019]")
    assert(show(q.pattern) == "((SELL AS T1) FILTER T1[name = 'INTC' OR name = 'it\u2019s'])")
  }

  test("a bare pattern gets the defaults") {
    assert(parse("A ; B") == Query(Strategy.All, Selection.Star, Nil, parse("A ; B").pattern, Nil, Nil, None,
      Consumption.Nothing, None))
    assert(pattern("WHERE A") == "A")
    assert(pattern("PATTERN A : B") == "(A : B)")
    assert(parse("FROM s PATTERN A").streams.map(_.value) == Seq("s"))
  }

  test("keywords are case-insensitive, identifiers keep their case, comments are skipped") {
    val q = parse(
      """select max * from Stocks -- the stream
        |/* a block
        |   comment */ pattern sell as s ; Buy as b filter s[Price > 1 and price < 2] within 5 events""".stripMargin)
    assert(q.strategy == Strategy.Max)
    assert(q.streams.map(_.value) == Seq("Stocks"))
    assert(show(q.pattern) == "(((sell AS s) ; (Buy AS b)) FILTER s[Price > 1 and price < 2])")
    assert(q.within.map { case Window.Events(n, _) => n; case _ => -1L }.contains(5L))
  }

  test("backquoted identifiers may be reserved words and contain anything") {
    assert(pattern("`FILTER` ; `my type` AS `x``y`") == "(FILTER ; (my type AS x`y))")
    assert(failure("A ; FILTER").problem ==
      "expected an event type, '(' or NOT, found 'FILTER' (FILTER is a reserved word; write `FILTER` to use it as a name)")
  }

  test("contextual words are identifiers elsewhere") {
    assert(pattern("NONE ; EVENTS ; HOURS ; ASC ; RANGE ; ANY AS MAX") ==
      "(((((NONE ; EVENTS) ; HOURS) ; ASC) ; RANGE) ; (ANY AS MAX))")
  }

  // ---- SELECT and FROM ----------------------------------------------------------------------------------

  test("every strategy, and the selections") {
    for (s <- Strategy.values) assert(parse(s"SELECT ${s.keyword.toLowerCase} * FROM S WHERE A").strategy == s)
    val q = parse("SELECT NEXT a, b[x, `y z`] FROM S WHERE A AS a ; B AS b")
    assert(q.strategy == Strategy.Next)
    assert(q.selection == Selection.Variables(
      Seq(
        SelectItem(Name("a", Position(1, 13, 12)), Nil),
        SelectItem(
          Name("b", Position(1, 16, 15)), Seq(Name("x", Position(1, 18, 17)), Name("y z", Position(1, 21, 20)))))))
    assert(parse("SELECT NONE FROM S WHERE A").selection == Selection.Nothing)
    assert(parse("SELECT LAST NONE FROM S WHERE A").strategy == Strategy.Last)
    assert(parse("SELECT * WHERE A").streams == Nil)
  }

  test("a strategy word followed by ',', '[', FROM, WHERE, PATTERN or the end is a variable") {
    def selected(q: String) = parse(q) match {
      case Query(Strategy.All, Selection.Variables(items), _, _, _, _, _, _, _) =>
        items.map(i => (i.variable.value, i.attributes.map(_.value)))
      case other => fail(other.toString)
    }
    assert(selected("SELECT ANY FROM S WHERE A AS ANY") == Seq("ANY" -> Nil))
    assert(selected("SELECT max, last WHERE A") == Seq("max" -> Nil, "last" -> Nil))
    assert(selected("SELECT STRICT[x] PATTERN A") == Seq("STRICT" -> Seq("x")))
    assert(selected("SELECT NONE, b WHERE A") == Seq("NONE" -> Nil, "b" -> Nil))
  }

  test("FROM takes several streams and qualified table names") {
    val q = parse("SELECT * FROM db.trades, catalog.db.quotes, `odd name` WHERE A")
    assert(q.streams == Seq(Name("db.trades", Position(1, 15, 14)), Name("catalog.db.quotes", Position(1, 26, 25)),
      Name("odd name", Position(1, 45, 44))))
  }

  // ---- CEL ----------------------------------------------------------------------------------------------

  test("AS binds tighter than ';'") {
    assert(pattern("A ; B AS x") == "(A ; (B AS x))")
    assert(pattern("(A ; B) AS x") == "((A ; B) AS x)")
  }

  test("';' binds tighter than ':', ':' tighter than OR, OR tighter than FILTER") {
    assert(pattern("A ; B : C") == "((A ; B) : C)")
    assert(pattern("A : B ; C") == "(A : (B ; C))")
    assert(pattern("A OR B ; C") == "(A OR (B ; C))")
    assert(pattern("A : B OR C : D") == "((A : B) OR (C : D))")
    assert(pattern("A ; B FILTER A[x > 1]") == "((A ; B) FILTER A[x > 1])")
    assert(pattern("A OR B FILTER A[x > 1]") == "((A OR B) FILTER A[x > 1])")
  }

  test("binary operators are left-associative") {
    assert(pattern("A ; B ; C") == "((A ; B) ; C)")
    assert(pattern("A : B : C") == "((A : B) : C)")
    assert(pattern("A OR B OR C") == "((A OR B) OR C)")
    assert(pattern("A FILTER A[x = 1] FILTER A[y = 2]") == "((A FILTER A[x = 1]) FILTER A[y = 2])")
  }

  test("postfix operators apply left to right, to the primary only") {
    assert(pattern("A AS x+") == "(A AS x)+")
    assert(pattern("A+ AS x") == "(A+ AS x)")
    assert(pattern("A ; B+") == "(A ; B+)")
    assert(pattern("(A ; B)+") == "(A ; B)+")
    assert(pattern("A:+") == "A:+")
    assert(pattern("A : + ; B") == "(A:+ ; B)")
    assert(pattern("A:+ : B") == "(A:+ : B)")
    assert(pattern("A : B:+") == "(A : B:+)")
    assert(pattern("A++:+ AS y") == "(A++:+ AS y)")
  }

  test("iteration and sequence flags") {
    val a = Cel.Atom(None, Name("A", Position(1, 1, 0)), Position(1, 1, 0))
    val b = Cel.Atom(None, Name("B", Position(1, 5, 4)), Position(1, 5, 4))
    assert(parse("A:+").pattern == Cel.Iteration(a, contiguous = true, a.pos))
    assert(parse("A+").pattern == Cel.Iteration(a, contiguous = false, a.pos))
    assert(parse("A : B").pattern == Cel.Sequence(a, b, contiguous = true, a.pos))
    assert(parse("A ; B").pattern == Cel.Sequence(a, b, contiguous = false, a.pos))
  }

  test("NOT atoms and stream>type atoms") {
    assert(pattern("A ; NOT(B) ; C") == "((A ; NOT(B)) ; C)")
    assert(pattern("A ; not ( B FILTER B[x = 1 AND y = 2] ) ; C") == "((A ; NOT(B FILTER B[x = 1 AND y = 2])) ; C)")
    assert(pattern("NOT(S>B)") == "NOT(S>B)")
    assert(parse("s1>SELL ; db.t > BUY").pattern == Cel.Sequence(
      Cel.Atom(Some(Name("s1", Position(1, 1, 0))), Name("SELL", Position(1, 4, 3)), Position(1, 1, 0)),
      Cel.Atom(Some(Name("db.t", Position(1, 11, 10))), Name("BUY", Position(1, 18, 17)), Position(1, 11, 10)),
      contiguous = false,
      Position(1, 1, 0)
    ))
  }

  test("node positions are where the node's text starts") {
    inside(parse("SELECT *\nWHERE A AS x ; NOT(B)\nFILTER x[v > 1]").pattern) {
      case Cel.Filtered(Cel.Sequence(bind @ Cel.Bind(_, x, _), not: Cel.Not, _, seqPos, _), filter, filteredPos) =>
        assert(Seq(bind.pos, seqPos, filteredPos).forall(_ == Position(2, 7, 15)))
        assert(x.pos == Position(2, 12, 20))
        assert(not.pos == Position(2, 16, 24) && not.atom.pos == Position(2, 20, 28))
        assert(filter.pos == Position(3, 8, 38))
    }
  }

  // ---- FILTER -------------------------------------------------------------------------------------------

  test("filters: AND binds tighter than OR, parentheses group") {
    assert(pattern("A AS a FILTER a[x = 1] OR a[y = 2] AND a[z = 3]") ==
      "((A AS a) FILTER (a[x = 1] OR (a[y = 2] AND a[z = 3])))")
    assert(pattern("A AS a FILTER (a[x = 1] OR a[y = 2]) AND a[z = 3]") ==
      "((A AS a) FILTER ((a[x = 1] OR a[y = 2]) AND a[z = 3]))")
  }

  test("a predicate is Spark SQL, kept as written, from its first to its last token") {
    inside(parse("A AS a FILTER a[  price >= 10.5 AND name IN {'x', 'y'}   ]").pattern) {
      case Cel.Filtered(_, Filter.OnVariable(v, p, pos), _) =>
        assert(p.text == "price >= 10.5 AND name IN {'x', 'y'}")
        assert(p.sparkSql == "price >= 10.5 AND name IN ('x', 'y')")
        assert(p.pos == Position(1, 19, 18))
        assert(v.value == "a" && pos == Position(1, 15, 14))
    }
    inside(parse("A FILTER A[x\n  > 1 -- big\n]").pattern) {
      case Cel.Filtered(_, Filter.OnVariable(_, p, _), _) => assert(p.text == "x\n  > 1")
    }
  }

  // ---- clauses ------------------------------------------------------------------------------------------

  test("PARTITION BY: each plain column is one key component, each bracket group one component") {
    def keys(q: String) = parse(q).partitionBy.map(_.map(_.value))
    assert(keys("A PARTITION BY a, b") == Seq(Seq("a"), Seq("b")))
    assert(keys("A PARTITION BY [a, b], [c]") == Seq(Seq("a", "b"), Seq("c")))
    assert(keys("A PARTITION BY [name]") == Seq(Seq("name")))
  }

  test("ORDER BY with ASC and DESC") {
    assert(parse("A ORDER BY t, u DESC, v ASC, desc").orderBy.map(k => (k.column.value, k.descending)) ==
      Seq("t" -> false, "u" -> true, "v" -> false, "desc" -> false))
  }

  test("WITHIN: events, durations and attributes") {
    def window(w: String) = parse(s"A WITHIN $w").within.get
    assert(window("3 EVENTS") == Window.Events(3, Position(1, 3, 2)))
    assert(window("10000 [stock_time]") == Window.Attribute(10000, Name("stock_time", Position(1, 17, 16)),
      Position(1, 3, 2)))
    def millis(w: String) = window(w) match { case Window.Duration(ms, _) => ms; case other => fail(other.toString) }
    assert(millis("1 HOURS 30 MINUTES") == 5400000L)
    assert(millis("1 day 1 hour 1 minute 1 second 1 millisecond") == 90061001L)
    assert(millis("2 DAYS") == 172800000L)
    assert(millis("0.5 SECONDS") == 500L)
    assert(millis("250 ms 1.5 MILLISECONDS 0.5 ms") == 252L)
  }

  test("CONSUME BY and LIMIT") {
    assert(parse("A CONSUME BY ANY").consumeBy == Consumption.Any)
    assert(parse("A CONSUME BY PARTITION").consumeBy == Consumption.Partition)
    assert(parse("A CONSUME BY none").consumeBy == Consumption.Nothing)
    assert(parse("A LIMIT 7").limit.contains(7L))
  }

  test("clauses come in any order") {
    val q = parse("SELECT * FROM S WHERE A LIMIT 2 CONSUME BY ANY WITHIN 5 EVENTS ORDER BY t PARTITION BY k")
    assert(q.limit.contains(2L) && q.consumeBy == Consumption.Any && q.within.exists(_.isInstanceOf[Window.Events]))
    assert(q.orderBy.map(_.column.value) == Seq("t") && q.partitionBy.map(_.map(_.value)) == Seq(Seq("k")))
  }

  test("the lexer reads 10..20 as 10, '..', 20") {
    assert(Lexer.tokenize("10..20 1.5 3.").map(t => (t.kind, t.text)) == Vector(
      TokenKind.IntLit -> "10",
      TokenKind.Sym -> "..",
      TokenKind.IntLit -> "20",
      TokenKind.DecLit -> "1.5",
      TokenKind.IntLit -> "3",
      TokenKind.Sym -> ".",
      TokenKind.End -> ""
    ))
    val tokens = Lexer.tokenize("a\n  `b``c` -- x\n")
    assert(tokens(1) == Token(TokenKind.QuotedIdent, "`b``c`", "b`c", Position(2, 3, 4)))
    assert(tokens.size == 3 && tokens(2).pos == Position(2, 9, 10))
  }

  test("NONE(...) between two operands of ';' is their sequence's gap, with its types, name and filter") {
    assert(pattern("A AS a ; NONE(B AS b FILTER b.acct = a.acct) ; C AS c") ==
      "((A AS a) ; NONE(B AS b FILTER b.acct = a.acct) ; (C AS c))")
    assert(pattern(
      "A ; NONE(B) ; NONE(s>D OR E FILTER E[x > 1]) ; C") == "(A ; NONE(B) ; NONE(s>D OR E FILTER E[x > 1]) ; C)")
    // ';' stays left-associative: the gap is between the operands it stands between.
    assert(pattern("A ; B ; NONE(X) ; C ; D") == "(((A ; B) ; NONE(X) ; C) ; D)")
    assert(pattern("(A ; NONE(B) ; C)+ : D") == "((A ; NONE(B) ; C)+ : D)")
    inside(parse("A ;\n  none(B) ; C").pattern) { case Cel.Sequence(_, _, false, _, Seq(e)) =>
      assert((e.pos.line, e.pos.column) == ((2, 3)))
    }
  }

  test("NONE stays a name without its parenthesis, and SELECT NONE a selection") {
    assert(pattern("NONE ; A ; NONE") == "((NONE ; A) ; NONE)")
    assert(parse("SELECT NONE FROM S WHERE NONE ; NONE(B) ; C").selection == Selection.Nothing)
    assert(pattern("A AS none ; NONE(B) ; C") == "((A AS none) ; NONE(B) ; C)")
  }

  test("error: NONE(...) anywhere but between two operands of ';', with what to write") {
    val only = "NONE(...) stands only between two operands of ';' (A ; NONE(B) ; C: no B between the A and the C); "
    assertError(
      "SELECT * FROM S WHERE NONE(B) ; C",
      1,
      23,
      only + "it cannot begin a pattern or a parenthesis: write the event it follows before it, e.g. A ; NONE(B) ; C",
      "                        ^^^^^^^"
    )
    assertError("NONE(B)", 1, 1,
      only + "it cannot begin a pattern or a parenthesis: write the event it follows before it, e.g. A ; NONE(B) ; C",
      "  ^^^^^^^")
    assertError(
      "A ; (NONE(B FILTER B[x > 1])) ; C",
      1,
      6,
      only + "it cannot begin a pattern or a parenthesis: write the event it follows before it, e.g. A ; NONE(B) ; C",
      "       ^^^^^^^^^^^^^^^^^^^^^^^"
    )
    assertError(
      "A ; NONE(B)\nWITHIN 3 EVENTS",
      1,
      5,
      only + "it cannot end a pattern or a parenthesis: follow it with the event it precedes, e.g. A ; NONE(B) ; C",
      "      ^^^^^^^"
    )
    assertError("A : NONE(B) : C", 1, 5,
      only + "with ':' no event comes between: A : NOT(B) : C already says that the event right after A is not a B",
      "      ^^^^^^^")
    assertError("A ; NONE(B) : C", 1, 5,
      only + "with ':' no event comes between: A : NOT(B) : C already says that the event right after A is not a B",
      "      ^^^^^^^")
    assertError("A OR NONE(B) ; C", 1, 6,
      only + "it is no operand of OR or AND: write the sequence around it, e.g. (A ; NONE(B) ; C) OR D",
      "       ^^^^^^^")
    assertError("A ; NONE(B) AND C", 1, 5,
      only + "it is no operand of OR or AND: write the sequence around it, e.g. (A ; NONE(B) ; C) OR D",
      "      ^^^^^^^")
    assertError(
      "A ; NONE(B)+ ; C",
      1,
      5,
      only + "nothing follows it but ';': name its event inside, NONE(B AS b FILTER ...), and repeat the sequence " +
        "around it, (A ; NONE(B) ; C)+",
      "      ^^^^^^^"
    )
    assertError(
      "A ; NONE(B) AS b ; C",
      1,
      5,
      only + "nothing follows it but ';': name its event inside, NONE(B AS b FILTER ...), and repeat the sequence " +
        "around it, (A ; NONE(B) ; C)+",
      "      ^^^^^^^"
    )
    assertError("A ; NONE(B C) ; D", 1, 12, "expected OR, AS, FILTER or ')', found 'C'", "             ^")
    assertError("A ; NONE() ; D", 1, 10, "expected an event type, found ')'", "           ^")
  }

  // ---- errors -------------------------------------------------------------------------------------------

  test("error: unclosed parenthesis") {
    assertError(
      "SELECT * FROM S WHERE (SELL ; BUY",
      1,
      34,
      "expected ';', ':', AND, OR, FILTER or ')', found the end of the query",
      "                                   ^"
    )
  }

  test("error: missing pattern") {
    assertError("SELECT * FROM S", 1, 16, "expected ',', WHERE or PATTERN, found the end of the query",
      "                 ^")
    assertError("SELECT * FROM S WHERE", 1, 22, "expected an event type, '(' or NOT, found the end of the query",
      "                       ^")
    assertError("SELECT * FROM S LIMIT 2", 1, 17, "expected ',', WHERE or PATTERN, found 'LIMIT'",
      "                  ^^^^^")
  }

  test("error: a bad token after a complete pattern, on line 3") {
    val q = "SELECT *\nFROM S\nWHERE SELL ; BUY BUYY\nWITHIN 5 EVENTS"
    assertError(
      q,
      3,
      18,
      "expected ';', ':', AND, OR, FILTER, a clause (PARTITION BY, ORDER BY, WITHIN, CONSUME BY, LIMIT) or the end of the query, found 'BUYY'",
      "                   ^^^^"
    )
    assert(failure(q).getMessage ==
      """line 3, column 18: expected ';', ':', AND, OR, FILTER, a clause (PARTITION BY, ORDER BY, WITHIN, CONSUME BY, LIMIT) or the end of the query, found 'BUYY'
        |  WHERE SELL ; BUY BUYY
        |                   ^^^^""".stripMargin)
    assertError(
      "A FILTER A[x = 1]\n\n  B",
      3,
      3,
      "expected AND, OR, FILTER, a clause (PARTITION BY, ORDER BY, WITHIN, CONSUME BY, LIMIT) or the end of the query, found 'B'",
      "    ^"
    )
  }

  test("error: unterminated string") {
    val e = failure("A FILTER A[name = 'INTC]\nWITHIN 5 EVENTS")
    assert(e.problem == "expected a closing ' to end the string, found the end of the query")
    assert((e.pos.line, e.pos.column, e.length) == ((1, 19, 6)))
    assert(e.getMessage.linesIterator.toSeq.last == "                    ^^^^^^")
  }

  test("error: duplicate clauses") {
    assertError("A WITHIN 5 EVENTS\nWITHIN 3 EVENTS", 2, 1, "expected at most one WITHIN clause, found a second one",
      "  ^^^^^^")
    assertError(
      "A PARTITION BY a LIMIT 1 partition by b",
      1,
      26,
      "expected at most one PARTITION BY clause, found a second one",
      "                           ^^^^^^^^^^^^"
    )
  }

  test("error: WITHIN without a unit") {
    assertError("A WITHIN 10", 1, 12,
      "expected EVENTS, a time unit (DAYS, HOURS, MINUTES, SECONDS, MILLISECONDS) or '[', found the end of the query",
      "             ^")
    assertError(
      "A WITHIN 1 HOURS 30",
      1,
      20,
      "expected a time unit (DAYS, HOURS, MINUTES, SECONDS, MILLISECONDS), found the end of the query",
      "                     ^"
    )
  }

  test("error: empty predicate") {
    assertError("A AS a FILTER a[]", 1, 17, "expected a predicate in a[...], found ']'", "                  ^")
  }

  test("error: a predicate's brackets must balance") {
    assertError("A AS a FILTER a[f(x] ; B", 1, 20, "expected ')', found ']'", "                     ^")
    assertError(
      "A AS a FILTER a[x > 1",
      1,
      22,
      "expected ']' to end the predicate a[... opened at line 1, column 16, found the end of the query",
      "                       ^"
    )
    assertError("A AS a FILTER a[x IN {1, 2)]", 1, 27, "expected '}', found ')'", "                            ^")
  }

  // ---- predicates: Spark SQL, with CORE's own forms rewritten --------------------------------------------

  private def spark(predicate: String): String = inside(parse(s"A AS a FILTER a[$predicate]").pattern) {
    case Cel.Filtered(_, Filter.OnVariable(_, p, _), _) => p.sparkSql
  }

  test("CORE's forms are rewritten into Spark's, everything else is left as written") {
    assert(spark("name IN {'INTC', 'RIMM'}") == "name IN ('INTC', 'RIMM')")
    assert(spark("volume NOT IN {1, 2}") == "volume NOT IN (1, 2)")
    assert(spark("price IN RANGE(10, 20.5)") == "price BETWEEN (10) AND ( 20.5)")
    assert(spark("price not in range(f(1, 2), 3)") == "price not BETWEEN (f(1, 2)) AND ( 3)")
    assert(spark("price IN 10..20 AND x IN -5..b") == "price BETWEEN 10 AND 20 AND x BETWEEN -5 AND b")
    assert(spark("price NOT IN 10..20") == "price NOT BETWEEN 10 AND 20")
    assert(spark("name = \u2018it\u2019\u2019s\u2019 OR name = 'it''s'") == "name = 'it\u2019s' OR name = 'it\\'s'")
    assert(spark("x IN (1, 2) AND y = \"q\" AND z = 'a\\'b'") == "x IN (1, 2) AND y = \"q\" AND z = 'a\\'b'")
  }

  test("any Spark expression is delimited whole: brackets, lambdas, casts, CASE, intervals") {
    for (p <- Seq(
        "cast(price AS int) > 1",
        "CASE WHEN volume > 10 THEN true ELSE false END",
        "price::int > 1 AND tags[0] = 'x'",
        "exists(tags, t -> t = 'x') AND map('a', 1)['a'] = 1",
        "ts > TIMESTAMP '2020-01-01' + INTERVAL 1 DAY",
        "name || '!' = 'INTC!' AND (flags & 4) != 0 AND s[0] ^ 1 = 0",
        "named_struct('a', 1).a = 1 /* ] */ -- ]\n AND ']' != \"]\""
      ))
      assert(spark(p) == p)
  }

  test("a position in the Spark text maps back to the query") {
    inside(parse("SELECT *\nWHERE A AS a FILTER a[ x IN {1, 2} AND y IN RANGE(1, 2) AND z > 1]").pattern) {
      case Cel.Filtered(_, Filter.OnVariable(_, p, _), _) =>
        val query = "SELECT *\nWHERE A AS a FILTER a[ x IN {1, 2} AND y IN RANGE(1, 2) AND z > 1]"
        for (word <- Seq("x", "AND", "z"))
          assert(p.queryOffset(p.sparkSql.indexOf(word)) == query.indexOf(word, p.pos.offset))
        assert(p.queryOffset(p.sparkSql.lastIndexOf("1")) == query.lastIndexOf("1"))
        assert(p.queryOffset(p.sparkSql.indexOf("BETWEEN")) == query.indexOf("IN RANGE"))
    }
  }

  // ---- deep and long input --------------------------------------------------------------------------------

  test("deep nesting gets an error at its place, never a stack overflow") {
    val depth = TokenCursor.MaxNesting + 1
    val e = failure("(" * 500 + "SELL AS s" + ")" * 500 + " ; BUY AS b")
    assert(e.problem.startsWith(s"expected at most ${TokenCursor.MaxNesting} levels of nesting") &&
      e.pos.column == depth)
    assert(pattern("(" * 200 + "SELL AS s" + ")" * 200 + " ; BUY AS b") == "((SELL AS s) ; (BUY AS b))")
    assert(failure("A AS a FILTER " + "(" * 300 + "a[x > 1]" + ")" * 300).problem.startsWith("expected at most"))
    assert(failure("A AS a FILTER a[" + "(" * 300 + "x" + ")" * 300 + "]").problem.startsWith("expected at most"))
  }

  test("long chains get an error at the first level too deep, never a stack overflow") {
    val chain = failure(Seq.fill(50000)("A").mkString(" ; "))
    assert(chain.problem.startsWith(s"expected a pattern at most ${CeqlParser.MaxDepth} operators deep"))
    assert(failure("A" + " AS a" * 50000).problem.startsWith("expected a pattern at most"))
    assert(
      failure("A AS a FILTER " + Seq.fill(50000)("a[x > 1]").mkString(" AND ")).problem.startsWith(
        "expected a pattern"))
    assert(pattern(Seq.fill(CeqlParser.MaxDepth - 1)("A").mkString(" ; ")).count(_ == ';') == CeqlParser.MaxDepth - 2)
  }

  test("error: other malformed input") {
    assert(failure("").problem ==
      "expected SELECT, FROM, WHERE, PATTERN, an event type, '(' or NOT, found the end of the query")
    assert(failure("A WITHIN 1.5 EVENTS").problem == "expected a positive integer, found '1.5'")
    assert(failure("A WITHIN 0 EVENTS").problem == "expected a positive integer, found '0'")
    assert(failure("A LIMIT x").problem == "expected a positive integer, found 'x'")
    assert(
      failure("A WITHIN 0.0001 SECONDS").problem == "expected a positive whole number of milliseconds, found 0.1 ms")
    assert(failure("A WITHIN 999999999999 DAYS").problem ==
      "expected at most 9223372036854775807 milliseconds, found 86399999999913600000 ms")
    assert(failure("A CONSUME BY ALL").problem == "expected ANY, PARTITION or NONE, found 'ALL'")
    assert(failure("A PARTITION a").problem == "expected BY, found 'a'")
    assert(failure("db.t ; B").problem == "expected '>', found ';'")
    assert(failure("NOT(A ; B)").problem == "expected FILTER or ')', found ';'")
    assert(failure("A FILTER A[x > 1] AND (").problem ==
      "expected a condition (e.g. b.price > a.price) or var[predicate], found the end of the query")
    assert(failure("A FILTER A[s = 'x'] 'y'").problem.endsWith("found the string 'y'"))
    assert(failure("SELECT a[] FROM S WHERE A").problem == "expected an attribute, found ']'")
    val comment = failure("A /* never closed")
    assert(
      comment.problem == "expected '*/' to close the comment, found the end of the query" && comment.pos.column == 3)
    val char = failure("A # B")
    assert(char.problem == "expected a name, a number, a string or an operator, found '#'" && char.pos.column == 3)
  }
}
