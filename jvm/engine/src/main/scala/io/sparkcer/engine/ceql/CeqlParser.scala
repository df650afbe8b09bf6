package io.sparkcer.engine.ceql

import java.util.Locale

import scala.collection.mutable

import io.sparkcer.engine.ceql.TokenKind._

/**
 * Hand-written recursive-descent parser for CEQL (DESIGN §3): one method per grammar rule.
 *
 * Positions: a node's `pos` is where its own text starts; for binary and postfix nodes (`;`, `:`, OR, AND,
 * AS, `+`, FILTER, comparisons, ...) that is the start of the left operand. Parentheses are not nodes, so
 * `(A ; B)+` has the position of `A`. A folded negative literal (`-5`) starts at the minus sign.
 *
 * Errors: every test of the current token that fails records what it would have accepted; when nothing fits,
 * [[fail]] lists them all ("expected ';', ':', OR or FILTER, found 'BUYY'"). Postfix operators (AS, +, :+)
 * and the `.`/`>`/`(` continuations of names are accepted without being listed, to keep messages short.
 */
object CeqlParser {
  def parse(text: String): Query = { val p = new CeqlParser(text); p.complete(p.query()) }

  def parseExpression(text: String): Expr = { val p = new CeqlParser(text); p.complete(p.expr()) }

  /** Words that cannot be bare identifiers (backquote them). Other keywords are contextual. */
  val ReservedWords: Set[String] = Set("SELECT", "FROM", "WHERE", "PATTERN", "PARTITION", "ORDER", "BY", "WITHIN",
    "CONSUME", "LIMIT", "AS", "OR", "AND", "NOT", "FILTER", "IN", "LIKE", "RLIKE", "IS", "NULL", "TRUE", "FALSE",
    "BETWEEN")

  private val Clauses = Seq("PARTITION BY", "ORDER BY", "WITHIN", "CONSUME BY", "LIMIT")
  private val AClause = Clauses.mkString("a clause (", ", ", ")")
  private val TimeUnits: Map[String, Long] = {
    val units = Seq("DAY" -> 86400000L, "HOUR" -> 3600000L, "MINUTE" -> 60000L, "SECOND" -> 1000L, "MILLISECOND" -> 1L)
    units.flatMap { case (u, ms) => Seq(u -> ms, u + "S" -> ms) }.toMap + ("MS" -> 1L)
  }
  private val ATimeUnit = "a time unit (DAYS, HOURS, MINUTES, SECONDS, MILLISECONDS)"
  private val AnOperator = "an operator"
  private val Comparisons: Map[String, ComparisonOp] = {
    import ComparisonOp._
    Map("=" -> Eq, "==" -> Eq, "!=" -> NotEq, "<>" -> NotEq, "<" -> Lt, "<=" -> LtEq, ">" -> Gt, ">=" -> GtEq)
  }
  private val NegatableOperators = Seq("IN", "BETWEEN", "LIKE", "RLIKE")
}

final class CeqlParser private (text: String) {
  import CeqlParser._

  private val tokens = Lexer.tokenize(text)
  private var index = 0
  /** What the tests of the current token would have accepted, in the order they were made. */
  private val expected = mutable.LinkedHashSet.empty[String]

  // ---- statement ----------------------------------------------------------------------------------------

  private def query(): Query = {
    val select = acceptKw("SELECT")
    val strategy = if (select) strategyWord() else Strategy.All
    val selection = if (select) this.selection() else Selection.Star
    val streams = if (acceptKw("FROM")) commaList(qualifiedName("a stream name")) else Nil
    if (!(acceptKw("WHERE") || acceptKw("PATTERN")) && (select || streams.nonEmpty)) fail()
    val pattern = cel()
    var partitionBy = Seq.empty[Seq[Name]]
    var orderBy = Seq.empty[OrderKey]
    var within = Option.empty[Window]
    var consumeBy: Consumption = Consumption.Nothing
    var limit = Option.empty[Long]
    val seen = mutable.Set.empty[String]
    var next = clauseKeywords(seen)
    while (next.isDefined) {
      next.get match {
        case ("PARTITION BY", _) => partitionBy = partitionKeys()
        case ("ORDER BY", _) => orderBy = commaList(orderKey())
        case ("WITHIN", at) => within = Some(window(at))
        case ("CONSUME BY", _) => consumeBy = consumption()
        case _ => limit = Some(positive(numberToken("a positive integer")))
      }
      next = clauseKeywords(seen)
    }
    Query(strategy, selection, streams, pattern, partitionBy, orderBy, within, consumeBy, limit)
  }

  /** A strategy word is one only if a selection follows it: `SELECT ANY FROM ...` selects the variable ANY. */
  private def strategyWord(): Strategy = {
    val next = peek
    val followedBySelection = !(isSym(",", next) || isSym("[", next) || next.kind == End ||
      Seq("FROM", "WHERE", "PATTERN").exists(isKw(_, next)))
    Strategy.values.find(s => isKw(s.keyword)).filter(_ => followedBySelection) match {
      case Some(strategy) => advance(); strategy
      case None => Strategy.All
    }
  }

  private def selection(): Selection =
    if (acceptSym("*")) Selection.Star
    else if (atKw("NONE") && !isSym(",", peek) && !isSym("[", peek)) { advance(); Selection.Nothing }
    else Selection.Variables(commaList(selectItem()))

  private def selectItem(): SelectItem = {
    val variable = name("a variable")
    SelectItem(variable, if (acceptSym("[")) closedBy("]")(commaList(name("an attribute"))) else Nil)
  }

  /** The keywords of the clause starting here, consumed; a clause seen before is an error. */
  private def clauseKeywords(seen: mutable.Set[String]): Option[(String, Position)] =
    Clauses.find(c => isKw(c.takeWhile(_ != ' '))) match {
      case None => expected += AClause; None
      case Some(clause) =>
        val first = tok
        val twoWords = clause.contains(' ')
        if (!seen.add(clause)) {
          val last = if (twoWords && isKw("BY", peek)) peek else first
          throw error(s"expected at most one $clause clause, found a second one", first, last.end - first.pos.offset)
        }
        advance()
        if (twoWords) expectKw("BY")
        Some(clause -> first.pos)
    }

  /**
   * One key component per group. `a, b` is two components; in CORE's `[a, b], [c]` the names in a bracket are
   * alternatives for one component (the first that has a value).
   */
  private def partitionKeys(): Seq[Seq[Name]] =
    if (isSym("[")) commaList { expectSym("["); closedBy("]")(commaList(name("a column"))) }
    else commaList(name("a column", "'['")).map(Seq(_))

  private def orderKey(): OrderKey = {
    val column = name("a column")
    val descending = acceptKw("DESC") || { acceptKw("ASC"); false }
    OrderKey(column, descending)
  }

  private def window(at: Position): Window = {
    val amount = numberToken("a number")
    if (acceptKw("EVENTS")) Window.Events(positive(amount), at)
    else timeUnit() match {
      case Some(millis) => Window.Duration(duration(amount, millis), at)
      case None =>
        expectSym("[")
        val attribute = closedBy("]")(name("an attribute"))
        Window.Attribute(positive(amount), attribute, at)
    }
  }

  /** `n unit (n unit)*` in milliseconds; the amounts may be decimal but the total must be whole. */
  private def duration(first: Token, firstUnit: Long): Long = {
    var total = BigDecimal(first.text) * firstUnit
    while (tok.kind == IntLit || tok.kind == DecLit) {
      val amount = BigDecimal(advance().text)
      total += amount * timeUnit().getOrElse(fail())
    }
    if (total > 0 && total.isValidLong) total.toLong
    else {
      val found = total.bigDecimal.stripTrailingZeros.toPlainString
      val wanted = if (total > 0 && total.isWhole) s"at most ${Long.MaxValue}" else "a positive whole number of"
      throw error(s"expected $wanted milliseconds, found $found ms", first,
        tokens(index - 1).end - first.pos.offset)
    }
  }

  private def timeUnit(): Option[Long] = {
    val millis = if (tok.kind == Ident) TimeUnits.get(tok.text.toUpperCase(Locale.ROOT)) else None
    if (millis.isDefined) advance() else expected += ATimeUnit
    millis
  }

  private def consumption(): Consumption =
    if (acceptKw("ANY")) Consumption.Any
    else if (acceptKw("PARTITION")) Consumption.Partition
    else if (acceptKw("NONE")) Consumption.Nothing
    else fail()

  // ---- CEL: FILTER < OR < ':' < ';' < postfix (AS, +, :+) ----------------------------------------------

  private def cel(): Cel = {
    var formula = disjunction()
    while (acceptKw("FILTER")) formula = Cel.Filtered(formula, filter(), formula.pos)
    formula
  }

  private def disjunction(): Cel = chain(contiguous(), keyword("OR"))((_, l, r) => Cel.Or(l, r, l.pos))

  private def contiguous(): Cel =
    chain(sequence(), symbol(":"))((_, l, r) => Cel.Sequence(l, r, contiguous = true, l.pos))

  private def sequence(): Cel =
    chain(postfix(), symbol(";"))((_, l, r) => Cel.Sequence(l, r, contiguous = false, l.pos))

  private def postfix(): Cel = {
    var formula = primary()
    var more = true
    while (more) {
      if (isKw("AS")) { advance(); formula = Cel.Bind(formula, name("a variable name"), formula.pos) }
      else if (isSym("+")) { advance(); formula = Cel.Iteration(formula, contiguous = false, formula.pos) }
      else if (isSym(":") && isSym("+", peek)) { advance(); advance(); formula = Cel.Iteration(formula, contiguous = true, formula.pos) }
      else more = false
    }
    formula
  }

  private def primary(): Cel =
    if (isSym("(")) { advance(); closedBy(")")(cel()) }
    else if (isKw("NOT")) {
      val not = advance()
      expectSym("(")
      val atom = this.atom()
      val filter = if (acceptKw("FILTER")) Some(this.filter()) else None
      expectSym(")")
      Cel.Not(atom, filter, not.pos)
    } else {
      expected ++= Seq("an event type", "'('", "NOT")
      atom()
    }

  /** `type` or `stream>type`, where the stream may be qualified (`db.t>SELL`). */
  private def atom(): Cel.Atom = {
    val start = index
    val first = qualifiedName("an event type")
    if (isSym(">")) { advance(); Cel.Atom(Some(first), name("an event type"), first.pos) }
    else if (index - start > 1) fail("'>'")
    else Cel.Atom(None, first, first.pos)
  }

  // ---- FILTER: OR < AND < (filter) | var[predicate] -------------------------------------------------------

  private def filter(): Filter = chain(filterTerm(), keyword("OR"))((_, l, r) => Filter.Or(l, r, l.pos))

  private def filterTerm(): Filter = chain(filterFactor(), keyword("AND"))((_, l, r) => Filter.And(l, r, l.pos))

  private def filterFactor(): Filter =
    if (isSym("(")) { advance(); closedBy(")")(filter()) }
    else {
      val variable = name("a variable", "'('")
      val open = expectSym("[")
      val predicate = expr()
      val close = expectSym("]")
      Filter.OnVariable(variable, predicate, text.substring(open.end, close.pos.offset).trim, variable.pos)
    }

  // ---- predicates: OR < AND < NOT < comparison, IN, LIKE, IS, BETWEEN < + - < * / % < unary minus -------

  private def expr(): Expr = chain(conjunction(), keyword("OR"))((_, l, r) => Expr.Or(l, r, l.pos))

  private def conjunction(): Expr = chain(negation(), keyword("AND"))((_, l, r) => Expr.And(l, r, l.pos))

  private def negation(): Expr =
    if (isKw("NOT")) { val not = advance(); Expr.Not(negation(), not.pos) } else predicate()

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
      else Expr.Negate(unary(), minus.pos)
    }

  private def primaryExpr(): Expr = tok.kind match {
    case IntLit | DecLit => number(advance(), None)
    case StrLit => val t = advance(); Expr.Literal(t.value, t.pos)
    case Ident if isKw("TRUE") || isKw("FALSE") =>
      val t = advance()
      Expr.Literal(java.lang.Boolean.valueOf(t.text.equalsIgnoreCase("TRUE")), t.pos)
    case Ident if isKw("NULL") => Expr.Literal(null, advance().pos)
    case Sym if isSym("(") => advance(); closedBy(")")(expr())
    case _ =>
      val function = name("an expression")
      if (!isSym("(")) Expr.Column(function)
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
    } else {
      val d = source.toDouble
      if (d.isInfinite) throw error(s"expected a number within the range of a double, found '$source'", t)
      Expr.Literal(java.lang.Double.valueOf(d), pos)
    }
  }

  // ---- shared pieces ------------------------------------------------------------------------------------

  /** An identifier: a bare word that is not reserved, or a backquoted name. */
  private def name(what: String*): Name = tok.kind match {
    case QuotedIdent => val t = advance(); Name(t.value, t.pos)
    case Ident if !ReservedWords(tok.text.toUpperCase(Locale.ROOT)) => val t = advance(); Name(t.text, t.pos)
    case Ident =>
      expected ++= what
      throw error(s"${expectation()} (${tok.text} is a reserved word; write `${tok.text}` to use it as a name)")
    case _ => fail(what: _*)
  }

  /** `name(.name)*`, kept as one Name "db.t" at the position of its first part. */
  private def qualifiedName(what: String): Name = {
    val first = name(what)
    val parts = mutable.ListBuffer(first.value)
    while (isSym(".")) { advance(); parts += name("a name").value }
    Name(parts.mkString("."), first.pos)
  }

  private def numberToken(what: String): Token = if (tok.kind == IntLit || tok.kind == DecLit) advance() else fail(what)

  private def positive(t: Token): Long = {
    val n = if (t.kind == IntLit) t.text.toLongOption.getOrElse(0L) else 0L
    if (n > 0) n else throw error(s"expected a positive integer, found '${t.text}'", t)
  }

  private def commaList[A](item: => A): Seq[A] = {
    val items = Seq.newBuilder[A]
    items += item
    while (acceptSym(",")) items += item
    items.result()
  }

  private def closedBy[A](close: String)(body: => A): A = { val result = body; expectSym(close); result }

  /** `operand (operator operand)*`, left-associative; `operator` consumes an operator or returns None. */
  private def chain[A, Op](operand: => A, operator: => Option[Op])(combine: (Op, A, A) => A): A = {
    var left = operand
    var op = operator
    while (op.isDefined) { left = combine(op.get, left, operand); op = operator }
    left
  }

  private def keyword(k: String): Option[String] = if (acceptKw(k)) Some(k) else None
  private def symbol(s: String): Option[String] = if (acceptSym(s)) Some(s) else None

  // ---- tokens and errors --------------------------------------------------------------------------------

  private def tok: Token = tokens(index)
  private def peek: Token = tokens(math.min(index + 1, tokens.length - 1))

  private def advance(): Token = {
    val t = tok
    if (t.kind != End) index += 1
    expected.clear()
    t
  }

  private def isSym(s: String, t: Token = tok): Boolean = t.kind == Sym && t.text == s
  private def isKw(k: String, t: Token = tok): Boolean = t.kind == Ident && t.text.equalsIgnoreCase(k)
  private def atSym(s: String): Boolean = isSym(s) || { expected += s"'$s'"; false }
  private def atKw(k: String): Boolean = isKw(k) || { expected += k; false }
  private def acceptSym(s: String): Boolean = atSym(s) && { advance(); true }
  private def acceptKw(k: String): Boolean = atKw(k) && { advance(); true }
  private def expectSym(s: String): Token = if (atSym(s)) advance() else fail()
  private def expectKw(k: String): Token = if (atKw(k)) advance() else fail()

  private def complete[A](result: A): A = if (tok.kind == End) result else fail("the end of the query")

  private def fail(what: String*): Nothing = {
    expected ++= what
    throw error(expectation())
  }

  /** The one place that words "expected ... found ...". */
  private def expectation(): String = {
    val alternatives = expected.toSeq
    val list =
      if (alternatives.size < 2) alternatives.mkString
      else s"${alternatives.init.mkString(", ")} or ${alternatives.last}"
    val found = tok.kind match {
      case End => "the end of the query"
      case StrLit => s"the string ${tok.text}"
      case _ => s"'${tok.text}'"
    }
    s"expected $list, found $found"
  }

  private def error(problem: String, at: Token = tok, length: Int = -1): CeqlException =
    new CeqlException(problem, at.pos, text, if (length > 0) length else math.max(1, at.length))
}
