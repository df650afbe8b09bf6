package io.sparkcer.engine.ceql

import java.util.Locale

import scala.collection.mutable

import io.sparkcer.engine.syntax.TokenKind._
import io.sparkcer.engine.syntax.{
  DurationUnits, Name, PatternException, Position, SqlText, SyntaxDepth, Token, TokenCursor
}

/**
 * Hand-written recursive-descent parser for CEQL (CORE, Bucchi et al., VLDB 2022, §2.2, with spark-cer's clauses): one method per grammar rule.
 *
 * Positions: a node's `pos` is where its own text starts; for binary and postfix nodes (`;`, `:`, OR, AND,
 * AS, `+`, FILTER, ...) that is the start of the left operand. Parentheses are not nodes, so `(A ; B)+` has the
 * position of `A`. The predicate inside `var[...]` is Spark SQL, which this parser only delimits
 * ([[PredicateScanner]]); Spark parses it, or the runner's own [[io.sparkcer.engine.expr.ExprParser]].
 *
 * Errors: every test of the current token that fails records what it would have accepted; when nothing fits,
 * [[fail]] lists them all ("expected ';', ':', OR or FILTER, found 'BUYY'"). Postfix operators (AS, +, :+)
 * and the `.`/`>`/`(` continuations of names are accepted without being listed, to keep messages short.
 */
object CeqlParser {
  def parse(text: String): Query = new CeqlParser(text).statement()

  /**
   * How deep a pattern's formula may be (each operator is a level: `A ; B ; C` is two deep). The analysis and
   * the compiler walk formulas recursively; this keeps them far from the end of a thread's stack.
   */
  val MaxDepth = 1000

  private val Clauses = Seq("PARTITION BY", "ORDER BY", "WITHIN", "CONSUME BY", "LIMIT")
  private val AClause = Clauses.mkString("a clause (", ", ", ")")
  private val ATimeUnit = "a time unit (DAYS, HOURS, MINUTES, SECONDS, MILLISECONDS)"
}

final class CeqlParser private (text: String) extends TokenCursor(text, Position.Start, text.length) {
  import CeqlParser._

  // ---- statement ----------------------------------------------------------------------------------------

  private def statement(): Query = {
    val query = complete(this.query())
    SyntaxDepth.check(query.pattern, MaxDepth, text, "a pattern")
    query
  }

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
        previous.end - first.pos.offset)
    }
  }

  private def timeUnit(): Option[Long] = {
    val millis =
      if (tok.kind != Ident) None
      else if (tok.text.equalsIgnoreCase("MS")) Some(1L)
      else DurationUnits.millis(tok.text)
    if (millis.isDefined) advance() else expected += ATimeUnit
    millis
  }

  private def consumption(): Consumption =
    if (acceptKw("ANY")) Consumption.Any
    else if (acceptKw("PARTITION")) Consumption.Partition
    else if (acceptKw("NONE")) Consumption.Nothing
    else fail()

  // ---- CEL: FILTER < OR < AND < ':' < ';' < postfix (AS, +, :+) ----------------------------------------

  private def cel(): Cel = {
    var formula = disjunction()
    while (acceptKw("FILTER")) formula = Cel.Filtered(formula, filter(), formula.pos)
    formula
  }

  private def disjunction(): Cel = chain(conjunction(), keyword("OR"))((_, l, r) => Cel.Or(l, r, l.pos))

  private def conjunction(): Cel = chain(contiguous(), keyword("AND"))((_, l, r) => Cel.And(l, r, l.pos))

  private def contiguous(): Cel =
    chain(sequence(), symbol(":"))((_, l, r) => Cel.Sequence(l, r, contiguous = true, l.pos))

  /** `postfix (';' (NONE(...) ';')* postfix)*`: the NONEs between two operands of `;` are their sequence's gap. */
  private def sequence(): Cel = {
    var formula = postfix()
    while (acceptSym(";")) {
      val gap = mutable.ListBuffer.empty[Exclusion]
      while (atExclusion) {
        gap += exclusion()
        if (!acceptSym(";")) misplacedExclusion(gap.last, Some(tok), after = true)
      }
      formula = Cel.Sequence(formula, postfix(), contiguous = false, formula.pos, gap.toList)
    }
    formula
  }

  private def postfix(): Cel = {
    var formula = primary()
    var more = true
    while (more) {
      if (isKw("AS")) { advance(); formula = Cel.Bind(formula, name("a variable name"), formula.pos) }
      else if (isSym("+")) { advance(); formula = Cel.Iteration(formula, contiguous = false, formula.pos) }
      else if (isSym(":") && isSym("+", peek)) {
        advance(); advance(); formula = Cel.Iteration(formula, contiguous = true, formula.pos)
      } else more = false
    }
    formula
  }

  private def primary(): Cel =
    if (isSym("(")) { val open = advance(); nested(open)(closedBy(")")(cel())) }
    else if (atExclusion) {
      val before = Option.when(tokensRead > 0)(previous)
      misplacedExclusion(exclusion(), before, after = false)
    } else if (isKw("NOT")) {
      val not = advance()
      expectSym("(")
      val atom = this.atom()
      val filter = if (acceptKw("FILTER")) Some(nested(not)(this.filter())) else None
      expectSym(")")
      Cel.Not(atom, filter, not.pos)
    } else {
      expected ++= Seq("an event type", "'('", "NOT")
      atom()
    }

  /**
   * `NONE(` starts a negation between events; without the parenthesis NONE stays a name (an event type may be called
   * NONE), and `SELECT NONE` is read before any pattern.
   */
  private def atExclusion: Boolean = isKw("NONE") && isSym("(", peek)

  /** `NONE(type [OR type ...] [AS var] [FILTER filter])`: AS names the candidate event, whichever its type. */
  private def exclusion(): Exclusion = {
    val none = advance()
    nested(none) {
      expectSym("(")
      val types = mutable.ListBuffer(atom())
      while (acceptKw("OR")) types += atom()
      val variable = if (acceptKw("AS")) Some(name("a variable name")) else None
      val filter = if (acceptKw("FILTER")) Some(this.filter()) else None
      expectSym(")")
      Exclusion(types.toList, variable, filter, none.pos)
    }
  }

  /**
   * Refuses a NONE(...) that does not stand between two operands of `;`, just read (so `previous` is its parenthesis),
   * saying what to write for the place it stands in, from its `neighbour`: the token after it (`after`) or before it
   * (None: it begins the query).
   */
  private def misplacedExclusion(none: Exclusion, neighbour: Option[Token], after: Boolean): Nothing = {
    val hint = neighbour match {
      case Some(t) if isSym(":", t) =>
        "with ':' no event comes between: A : NOT(B) : C already says that the event right after A is not a B"
      case Some(t) if isKw("OR", t) || isKw("AND", t) =>
        "it is no operand of OR or AND: write the sequence around it, e.g. (A ; NONE(B) ; C) OR D"
      case Some(t) if after && (isKw("AS", t) || isSym("+", t)) =>
        "nothing follows it but ';': name its event inside, NONE(B AS b FILTER ...), and repeat the sequence around " +
          "it, (A ; NONE(B) ; C)+"
      case _ if after =>
        "it cannot end a pattern or a parenthesis: follow it with the event it precedes, e.g. A ; NONE(B) ; C"
      case _ => "it cannot begin a pattern or a parenthesis: write the event it follows before it, e.g. A ; NONE(B) ; C"
    }
    throw new PatternException(
      s"NONE(...) stands only between two operands of ';' (A ; NONE(B) ; C: no B between the " +
        s"A and the C); $hint",
      none.pos,
      text,
      previous.end - none.pos.offset
    )
  }

  /** `type` or `stream>type`, where the stream may be qualified (`db.t>SELL`). */
  private def atom(): Cel.Atom = {
    val start = tokensRead
    val first = qualifiedName("an event type")
    if (isSym(">")) { advance(); Cel.Atom(Some(first), name("an event type"), first.pos) }
    else if (tokensRead - start > 1) fail("'>'")
    else Cel.Atom(None, first, first.pos)
  }

  // ---- FILTER: OR < AND < NOT < (filter) | var[predicate] | condition ---------------------------------------

  private def filter(): Filter = chain(filterTerm(), keyword("OR"))((_, l, r) => Filter.Or(l, r, l.pos))

  private def filterTerm(): Filter = chain(filterFactor(), keyword("AND"))((_, l, r) => Filter.And(l, r, l.pos))

  /**
   * `NOT filter`, `(filter)`, `var[predicate]` (Spark SQL over one event's columns, read by [[PredicateScanner]]) or
   * a condition over `var.attr` ([[ConditionScanner]]). A parenthesis opens a group of filters only when the group
   * ends a filter operand (`(a.x > 1 OR b[y < 2]) AND ...`); otherwise it starts a condition (`(a.x + b.x) / 2 > 3`).
   */
  private def filterFactor(): Filter =
    if (isKw("NOT")) { val not = advance(); Filter.Not(nested(not)(filterFactor()), not.pos) }
    else if (isSym("(") && groupsFilters(tok)) { val open = advance(); nested(open)(closedBy(")")(filter())) }
    else if ((tok.kind == Ident || tok.kind == QuotedIdent) && isSym("[", peek) && !ReservedWord(tok)) {
      val variable = name("a variable")
      val open = expectSym("[")
      val (predicate, close) = PredicateScanner.scan(text, open, variable)
      resumeAt(Position.advance(text, close.pos, close.end))
      Filter.OnVariable(variable, predicate, variable.pos)
    } else {
      val (condition, stop) = ConditionScanner.scan(text, tok.pos)
      resumeAt(stop.pos)
      Filter.Relation(condition, condition.pos)
    }

  private def ReservedWord(t: Token): Boolean =
    t.kind == Ident && TokenCursor.ReservedWords(t.text.toUpperCase(Locale.ROOT))

  /** Whether the parenthesis `open` closes before what may follow a filter operand: a connective, a clause, the end. */
  private def groupsFilters(open: Token): Boolean = {
    val after = SqlText.scan(text, open.pos, "a filter", unmatched = ")") { (t, depth, previous) =>
      t.kind == End || (depth == 0 && previous.isDefined)
    }.stop
    after.kind == End || Seq(
      "AND", "OR", "FILTER", "PARTITION", "ORDER", "WITHIN", "CONSUME", "LIMIT").exists(isKw(_, after)) ||
    Seq(")", ";").exists(isSym(_, after))
  }

  // ---- shared pieces ------------------------------------------------------------------------------------

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
}
