package io.sparkcer.engine.analysis

import io.sparkcer.engine.ceql._
import io.sparkcer.engine.syntax.{Name, PatternException, Position}

/** A selected variable: struct-valued when it binds exactly one event in every match, else an array. */
final case class OutputVariable(name: String, single: Boolean, attributes: IndexedSeq[Int])

/** How far a match may stretch: last.key - first.key < amount, with the key of `WindowKey`. */
final case class WindowSpec(amount: Long, key: WindowKey)

sealed trait WindowKey
object WindowKey {
  /** Positions in the partition's substream. */
  case object Position extends WindowKey
  /** A numeric or timestamp column; a time span is converted to its unit by the caller. */
  final case class Column(index: Int, duration: Boolean) extends WindowKey
}

/** A query checked against its input's columns, with every name resolved. */
final case class AnalyzedQuery(
    query: Query,
    text: String,
    columns: IndexedSeq[String],
    outputs: IndexedSeq[OutputVariable],
    partitionKeys: IndexedSeq[IndexedSeq[Int]],
    /** The stream order (column, descending): ORDER BY as written, else the WITHIN column, else the time column. */
    streamOrder: IndexedSeq[(Int, Boolean)],
    window: Option[WindowSpec],
    typeColumn: Option[Int],
    streamColumn: Option[Int],
    /** How many of the partition keys are the query's own, which the output shows (derived ones follow them). */
    declaredKeys: Int,
    /**
     * Equalities across every variable, run as partition keys ([[EqualityPartition]]): `query` is then the query
     * with them read as PARTITION BY.
     */
    derivedPartition: Option[EqualityPartition.Derived],
    /**
     * SELECT MAX over a pattern whose every match binds this many events: no match contains another, so MAX keeps every
     * match, and `query` reads SELECT ALL, which every evaluator takes.
     */
    maxAsAll: Option[Int] = None,
    /** Aggregates over an unselected iteration that `query` reads over one of its events ([[SingleEventAggregates]]). */
    singleEventAggregates: Seq[SingleEventAggregates.Read] = Nil)

/**
 * Semantic analysis: resolves columns and variables, and rejects what CEQL cannot mean, saying what to write
 * instead: filters on variables not bound where they apply (well-formedness), unknown columns, variables and
 * streams, and a stream without an order. One variable may be bound on both sides of `;`, `:` or AND (CEL's
 * valuations: it binds the events of both, as a variable under `+` does).
 */
object Analyzer {

  /**
   * @param typeColumn   the column holding each row's event type, if the input has it
   * @param streamColumn the column holding each row's stream name, when several streams were merged into one
   * @param timeColumn   the stream order when the query states none (ORDER BY, WITHIN n [attr])
   */
  def analyze(query: Query, text: String, columns: IndexedSeq[String], typeColumn: String,
      streamColumn: Option[String], timeColumn: Option[String]): AnalyzedQuery =
    new Analysis(query, text, columns, typeColumn, streamColumn, timeColumnName = timeColumn).run()

  /** The index of a column named in the query (case-insensitive); an unknown one is an error naming them all. */
  def column(name: Name, columns: IndexedSeq[String], text: String): Int = {
    val i = columns.indexWhere(_.equalsIgnoreCase(name.value))
    if (i < 0) throw new PatternException(s"unknown column '${name.value}'; the columns are: ${columns.mkString(", ")}",
      name.pos, text, name.value.length)
    i
  }

  /** Every variable a formula binds: its event types and its AS names (NOT and NONE bind nothing). */
  def boundVariables(cel: Cel): Seq[String] = bindings(cel).distinct

  /** Every name a formula binds, once per binding, left to right: its atoms' types and its AS names. */
  def bindings(cel: Cel): Seq[String] = cel match {
    case Cel.Atom(_, t, _) => Seq(t.value)
    case _: Cel.Not => Nil
    case Cel.Bind(body, v, _) => bindings(body) :+ v.value
    case Cel.Sequence(a, b, _, _, _) => bindings(a) ++ bindings(b)
    case Cel.Or(a, b, _) => bindings(a) ++ bindings(b)
    case Cel.And(a, b, _) => bindings(a) ++ bindings(b)
    case Cel.Iteration(body, _, _) => bindings(body)
    case Cel.Filtered(body, _, _) => bindings(body)
  }

  /** AS names in order of first appearance. */
  def asVariables(cel: Cel): Seq[String] = cel match {
    case _: Cel.Atom | _: Cel.Not => Nil
    case Cel.Bind(body, v, _) => (asVariables(body) :+ v.value).distinct
    case Cel.Sequence(a, b, _, _, _) => (asVariables(a) ++ asVariables(b)).distinct
    case Cel.Or(a, b, _) => (asVariables(a) ++ asVariables(b)).distinct
    case Cel.And(a, b, _) => (asVariables(a) ++ asVariables(b)).distinct
    case Cel.Iteration(body, _, _) => asVariables(body)
    case Cel.Filtered(body, _, _) => asVariables(body)
  }

  private final class Analysis(query: Query, text: String, columns: IndexedSeq[String], typeColumn: String,
      streamColumn: Option[String], timeColumnName: Option[String]) {
    private def fail(problem: String, pos: Position, length: Int = 1): Nothing =
      throw new PatternException(problem, pos, text, length)

    private def column(name: Name): Int = Analyzer.column(name, columns, text)

    private def optionColumn(name: String, what: String): Int = {
      val i = columns.indexWhere(_.equalsIgnoreCase(name))
      if (i < 0) throw new PatternException(
        s"the $what '$name' is not a column; the columns are: ${columns.mkString(", ")}", Position.Unknown, text)
      i
    }

    def run(): AnalyzedQuery = {
      checkStreams(query.pattern)
      checkWellFormed(query.pattern)
      Exclusions.check(query.pattern, text)
      checkConjunctions(query.pattern)
      Relations.check(query, text)
      val outputs = outputVariables()
      val orderKeys = query.orderBy.map(k => (column(k.column), k.descending)).toIndexedSeq
      val window = this.window(orderKeys)
      val streamOrder =
        if (orderKeys.nonEmpty) orderKeys
        else IndexedSeq(
          window.collect { case WindowSpec(_, WindowKey.Column(i, false)) => i }.getOrElse(timeColumn.get) -> false)
      val derived = EqualityPartition.derive(query, columns)
      val maxAsAll = Option.when(query.strategy == Strategy.Max)(Multiplicity.eventsPerMatch(query.pattern)).flatten
      val (evaluated, singleEvent) = SingleEventAggregates.rewrite(derived.fold(query)(_.query) match {
          case q if maxAsAll.isDefined => q.copy(strategy = Strategy.All)
          case q => q
        }, text)
      AnalyzedQuery(
        evaluated,
        text,
        columns,
        outputs,
        evaluated.partitionBy.map(_.map(column).toIndexedSeq).toIndexedSeq,
        streamOrder,
        window,
        columns.indexWhere(_.equalsIgnoreCase(typeColumn)) match { case -1 => None; case i => Some(i) },
        streamColumn.map(optionColumn(_, "stream column")),
        query.partitionBy.length,
        derived,
        maxAsAll,
        singleEvent
      )
    }

    private def checkStreams(cel: Cel): Unit = {
      val streams = query.streams.map(_.value)
      (atoms(cel) ++ Cel.exclusions(cel).flatMap(_.types)).flatMap(_.stream).foreach { s =>
        if (streams.nonEmpty && !streams.contains(s.value))
          fail(s"unknown stream '${s.value}' in '${s.value}>...'; FROM names: ${streams.mkString(", ")}", s.pos,
            s.value.length)
      }
    }

    /** Every atom of a formula, NOT's included. */
    private def atoms(cel: Cel): Seq[Cel.Atom] = Cel.leaves(cel).collect {
      case a: Cel.Atom => a
      case n: Cel.Not => n.atom
    }

    /**
     * A filter may only name a variable its own sub-formula binds. Its predicate's columns are checked by whoever
     * reads the predicate: Spark, or the runner's interpreter.
     */
    private def checkWellFormed(cel: Cel): Unit = cel match {
      case Cel.Filtered(body, filter, _) =>
        checkWellFormed(body)
        val bound = boundVariables(body)
        val named = Filter.leaves(filter).flatMap {
          case f: Filter.OnVariable => Seq(f.variable)
          case r: Filter.Relation => r.condition.references.map(_.variable) ++ r.condition.slots.map(_.variable)
          case _ => Nil
        }
        named.foreach { v =>
          if (!bound.contains(v.value)) {
            val hint =
              if (boundVariables(query.pattern).contains(v.value))
                s"'${v.value}' is bound elsewhere in the pattern: move this FILTER outward, onto a part " +
                  s"of the pattern that contains where '${v.value}' is bound, e.g. (... AS ${v.value} ; ...) FILTER ${v.value}[...]"
              else Exclusions.candidateAt(query.pattern, v.value).fold(
                s"bind it with AS (e.g. BUY AS ${v.value}) or filter one of: ${bound.mkString(", ")}")(e =>
                s"'${v.value}' is the event of NONE(...) at ${e.pos}, which binds nothing in the match: test it inside " +
                  s"the NONE, NONE(... FILTER ${v.value}...)")
            fail(
              s"variable '${v.value}' is not bound in the pattern this FILTER applies to; $hint", v.pos, v.value.length)
          }
        }
      case Cel.Not(atom, filter, _) =>
        val own = atom.eventType.value
        filter.toSeq.flatMap(Filter.leaves).foreach {
          case f: Filter.OnVariable if f.variable.value != own =>
            fail(s"inside NOT($own FILTER ...) a filter can only name '$own'", f.variable.pos, f.variable.value.length)
          case Filter.Relation(c, pos) if c.slots.nonEmpty || c.variables.exists(_ != own) =>
            fail(
              s"inside NOT($own FILTER ...) a filter can only test the attributes of that event, e.g. $own.price > 5; " +
                "it cannot relate it to other events",
              pos,
              c.text.length
            )
          case _ =>
        }
      case Cel.Bind(b, _, _) => checkWellFormed(b)
      case Cel.Sequence(a, b, _, _, _) => checkWellFormed(a); checkWellFormed(b)
      case Cel.Or(a, b, _) => checkWellFormed(a); checkWellFormed(b)
      case Cel.And(a, b, _) => checkWellFormed(a); checkWellFormed(b)
      case Cel.Iteration(b, _, _) => checkWellFormed(b)
      case _: Cel.Atom => ()
    }

    /**
     * AND runs its operands side by side, each reading every event: a NOT in one may fall on the other's event, and an
     * event between two of one operand's events may be the other's, which a NONE there would have to tell apart.
     */
    private def checkConjunctions(cel: Cel): Unit = cel match {
      case Cel.And(a, b, _) =>
        Seq(a, b).flatMap(Cel.leaves).collectFirst { case n: Cel.Not => n }.foreach { n =>
          fail(
            "NOT(...) is not supported inside an operand of AND: each operand reads every event, and a NOT read " +
              "there may fall on the other operand's event; write the operand without NOT, or its orders with OR",
            n.pos
          )
        }
        Seq(a, b).flatMap(Cel.exclusions).headOption.foreach { e =>
          fail(
            "NONE(...) is not supported inside an operand of AND: each operand reads every event, so an event " +
              "between two of one operand's may be the other operand's; write the NONE outside the AND, or the " +
              "operands' orders with OR",
            e.pos,
            4
          )
        }
        checkConjunctions(a); checkConjunctions(b)
      case s: Cel.Sequence => checkConjunctions(s.first); checkConjunctions(s.second)
      case i: Cel.Iteration => checkConjunctions(i.body)
      case Cel.Or(a, b, _) => checkConjunctions(a); checkConjunctions(b)
      case Cel.Bind(b, _, _) => checkConjunctions(b)
      case Cel.Filtered(b, _, _) => checkConjunctions(b)
      case _: Cel.Atom | _: Cel.Not => ()
    }

    private def outputVariables(): IndexedSeq[OutputVariable] = {
      val pattern = query.pattern
      val known = boundVariables(pattern)
      def variable(name: String, attributes: Seq[Name]): OutputVariable =
        OutputVariable(name, Multiplicity.of(pattern, name) == Multiplicity.One, attributes.map(column).toIndexedSeq)
      query.selection match {
        case Selection.Nothing => IndexedSeq.empty
        case Selection.Star =>
          val names = asVariables(pattern) match {
            case Nil => boundVariables(pattern)
            case named => named
          }
          names.map(variable(_, Nil)).toIndexedSeq
        case Selection.Variables(items) =>
          items.foreach { i =>
            if (!known.contains(i.variable.value)) {
              val none = Exclusions.candidateAt(pattern, i.variable.value).fold("")(e =>
                s" ('${i.variable.value}' is the event of NONE(...) at ${e.pos}, which binds nothing in the match)")
              fail(s"unknown variable '${i.variable.value}' in SELECT$none; the pattern binds: ${known.mkString(", ")}",
                i.variable.pos, i.variable.value.length)
            }
          }
          items.map(i => variable(i.variable.value, i.attributes)).toIndexedSeq
      }
    }

    private lazy val timeColumn = timeColumnName.map(optionColumn(_, "time column"))

    /** The window; also refuses a stream without any order (`timeColumn` is then the only one left). */
    private def window(orderKeys: IndexedSeq[(Int, Boolean)]): Option[WindowSpec] = {
      val leading = orderKeys.headOption.map(_._1).orElse(timeColumn)
      query.within match {
        case None =>
          if (leading.isEmpty) missingOrder()
          None
        case Some(Window.Events(n, pos)) =>
          if (n < 1) fail("WITHIN n EVENTS needs n >= 1", pos)
          if (leading.isEmpty) missingOrder()
          Some(WindowSpec(n, WindowKey.Position))
        case Some(Window.Duration(ms, pos)) =>
          if (ms < 1) fail("a WITHIN time span must be at least 1 millisecond", pos)
          Some(WindowSpec(ms, WindowKey.Column(leading.getOrElse(missingOrder()), duration = true)))
        case Some(Window.Attribute(n, attribute, pos)) =>
          if (n < 1) fail("WITHIN n [column] needs n >= 1", pos)
          val i = column(attribute)
          if (orderKeys.nonEmpty && orderKeys.head._1 != i)
            fail(
              s"WITHIN $n [${attribute.value}] measures the stream order, but the stream is ordered by " +
                s"${columns(orderKeys.head._1)}: put ${attribute.value} first in ORDER BY",
              attribute.pos,
              attribute.value.length
            )
          if (orderKeys.nonEmpty && orderKeys.head._2)
            fail(
              s"WITHIN $n [${attribute.value}] needs ${attribute.value} in ascending order: drop DESC", attribute.pos)
          Some(WindowSpec(n, WindowKey.Column(i, duration = false)))
      }
    }

    private def missingOrder(): Nothing =
      throw new PatternException(
        "the stream has no order, so sequencing is undefined: add ORDER BY <column> (e.g. ORDER BY ts), " +
          "or WITHIN n [<column>], or set the time column (spark.cer.timeColumn / timeColumn=...)",
        query.within.map(_.pos).getOrElse(query.pattern.pos),
        text
      )
  }
}
