package io.sparkcer.engine.analysis

import io.sparkcer.engine.ceql._
import io.sparkcer.engine.expr.{ComparisonOp, Expr, ExprParser}
import io.sparkcer.engine.syntax.{PatternException, SqlFragment}

/**
 * An aggregate over an iterated variable that no one selects, read over one of its events. In
 * `SELECT a, c ... A AS a ; (B AS b)+ ; C AS c FILTER avg(b.v) < c.v`, every set of b's between a and c is a valuation,
 * and the row (a, c) is found once per set that satisfies the condition: exponentially many in the window, all but
 * one dropped. The row needs only one such set, and one exists exactly when a single b satisfies the condition:
 *  - min, max, first and last of a set are the value of one of its events, and that event alone is a set with the same
 *    value: a condition that reads b only through one such call holds for some set exactly when it holds for some
 *    event, whatever the condition (`max(b.v) BETWEEN a.v AND c.v`);
 *  - the average of a set lies between its smallest and largest values, each a single event's: an order comparison
 *    with the average alone on one side (`avg(b.v) < c.v`) holds for some set exactly when it holds for the smallest
 *    (or the largest) event. Any other use of the average (`avg(b.v) = c.v`, `abs(avg(b.v)) < 1`) is left as written.
 * A filter on each event of b (`b[v > 0]`) holds for every event of a set, so for the one taken alone too.
 *
 * So the iteration is read as one event of b, and the call as its argument on that event (`b.v < c.v`): the
 * registers then keep the easiest b per run ([[io.sparkcer.engine.rma.ExistentialTakes]]) and the lazy chain finds
 * one b per row (a witness), where each set was a run of its own.
 *
 * This is valid where a row cannot tell the sets apart: under SELECT ALL (the other strategies and CONSUME BY
 * compare or consume every event of a valuation, selected or not), with no variable of the iteration selected or
 * read by any condition but that call, the aggregated one bound nowhere else, and the iteration neither first nor
 * last in its sequence (the match's first and last events are its start and end), reached through `;` with no NONE
 * on either side (a NONE bounds the gap before the set's first event, or after its last).
 */
object SingleEventAggregates {

  /** An aggregate read over one event: the condition as written and the variable it aggregates. */
  final case class Read(condition: String, variable: String) {
    def describe: String = s"$condition read over one event of $variable"
  }

  /** The query with each such iteration read as one event, and what was read so. */
  def rewrite(query: Query, text: String): (Query, Seq[Read]) =
    if (query.strategy != Strategy.All || query.consumeBy != Consumption.Nothing || query.selection == Selection.Star)
      (query, Nil)
    else {
      val selected = query.selection match {
        case Selection.Variables(items) => items.map(_.variable.value).toSet
        case _ => Set.empty[String]
      }
      val rewritten = new Rewrite(query.pattern, text, selected)
      val pattern = rewritten(query.pattern, before = false, after = false)
      if (rewritten.reads.isEmpty) (query, Nil) else (query.copy(pattern = pattern), rewritten.reads.toSeq)
    }

  private final class Rewrite(pattern: Cel, text: String, selected: Set[String]) {
    val reads = scala.collection.mutable.ArrayBuffer.empty[Read]
    private val allFilters = Filter.filters(pattern)
    private val bindings = Analyzer.bindings(pattern)

    /**
     * The formula with each iteration read as one event where allowed; `before` and `after` say whether its sequence
     * has an element on that side, reached through `;` without NONE.
     */
    def apply(cel: Cel, before: Boolean, after: Boolean): Cel = cel match {
      case s @ Cel.Sequence(first, second, contiguous, _, gap) =>
        val open = !contiguous && gap.isEmpty
        s.copy(first = apply(first, before, open), second = apply(second, open, after))
      case f @ Cel.Filtered(body, filter, _) =>
        val read = apply(body, before, after)
        f.copy(body = read, filter = readOver(filter))
      case _ if before && after => single(cel).getOrElse(cel)
      case _ => cel
    }

    /** Each condition rewritten so far, by the condition as written. */
    private var rewritten = Map.empty[Filter.Relation, Filter.Relation]

    /** A filter with its conditions as rewritten. */
    private def readOver(f: Filter): Filter = f match {
      case r: Filter.Relation => rewritten.getOrElse(r, r)
      case Filter.And(l, r, p) => Filter.And(readOver(l), readOver(r), p)
      case Filter.Or(l, r, p) => Filter.Or(readOver(l), readOver(r), p)
      case Filter.Not(o, p) => Filter.Not(readOver(o), p)
      case other => other
    }

    /** `(B AS b)+` (or `B+ AS b`, or with filters on b's events inside) as one event, where its one reader allows. */
    private def single(cel: Cel): Option[Cel] = {
      val bound = Analyzer.bindings(cel)
      val variables = bound.distinct
      // The one the call aggregates must bind nothing else; the piece's other names (its type) only go unread.
      def onlyHere(v: String) = bindings.count(_ == v) == bound.count(_ == v)
      lazy val readers = allFilters.flatMap(Filter.leaves).collect {
        case r: Filter.Relation if r.condition.allVariables.exists(variables.contains) => r
      }.distinct
      for {
        one <- once(cel)
        if !variables.exists(selected) && readers.size == 1
        written = readers.head
        current = rewritten.getOrElse(written, written)
        (condition, variable) <- readOverOne(current.condition, variables)
        if onlyHere(variable)
      } yield {
        rewritten += written -> current.copy(condition = condition)
        reads += Read(written.condition.text, variable)
        one
      }
    }

    /** The iteration without its `+`, where it iterates one atom with filters on its events only. */
    private def once(cel: Cel): Option[Cel] = cel match {
      case Cel.Bind(body, v, p) => once(body).map(Cel.Bind(_, v, p))
      case Cel.Iteration(body, false, _) if oneAtom(body) => Some(body)
      case _ => None
    }

    private def oneAtom(cel: Cel): Boolean = cel match {
      case _: Cel.Atom => true
      case Cel.Bind(body, _, _) => oneAtom(body)
      case Cel.Filtered(body, f, _) => Filter.leaves(f).forall(_.isInstanceOf[Filter.OnVariable]) && oneAtom(body)
      case _ => false
    }

    /**
     * The condition with its one call over `variables` replaced by the call's argument, where it is min, max, first or
     * last, or avg alone on one side of an order comparison, and the call's variable; None where the condition reads
     * the variables otherwise.
     */
    private def readOverOne(c: Condition, variables: Seq[String]): Option[(Condition, String)] =
      c.slots.filter(s => variables.contains(s.variable.value)) match {
        case Seq(slot)
            if !c.references.exists(r => variables.contains(r.variable.value)) && slot.argument.isDefined &&
              (selective(slot.function) || slot.function == SlotFunction.Avg && alone(c, slot)) =>
          references(slot).map { inside =>
            // `max(b.v)` is read as `(b.v)`: the call's name and bracket become a bracket, and the argument's text and
            // its own rewrites stand where they were written, so that its references keep their places.
            val call = c.predicate.edits.find(_.replacement == slot.name).get
            val argument = slot.argument.get
            val from = argument.pos.offset - c.predicate.pos.offset
            val edits = c.predicate.edits.filterNot(_ eq call) ++
              (SqlFragment.Edit(
                call.offset, from - call.offset, "(") +: argument.edits.map(e => e.copy(offset = e.offset + from)))
            Condition(SqlFragment.edited(c.predicate.text, c.predicate.pos, edits),
              (c.references ++ inside).sortBy(_.attributeAt), c.slots.filterNot(_ == slot)) -> slot.variable.value
          }
        case _ => None
      }

    private def selective(f: SlotFunction): Boolean =
      f == SlotFunction.Min || f == SlotFunction.Max || f == SlotFunction.First || f == SlotFunction.Last

    /** Whether the condition is `slot op x` or `x op slot`, op an order, x not reading the slot. */
    private def alone(c: Condition, slot: Slot): Boolean = {
      val name = slot.name.stripPrefix("`").stripSuffix("`")
      def isSlot(e: Expr) = e match { case Expr.Column(n) => n.value == name; case _ => false }
      val parsed =
        try Some(ExprParser.parse(c.predicate.sparkSql))
        catch { case _: PatternException => None }
      parsed.exists {
        case Expr.Comparison(ComparisonOp.Lt | ComparisonOp.LtEq | ComparisonOp.Gt | ComparisonOp.GtEq, l, r, _) =>
          isSlot(l) != isSlot(r)
        case _ => false
      }
    }

    /** The references in the call's argument, placed in the query (read as a condition of its own). */
    private def references(slot: Slot): Option[Seq[Reference]] = slot.argument.flatMap { p =>
      val scanned =
        try Some(ConditionScanner.scan(text, p.pos)._1)
        catch { case _: PatternException => None }
      scanned.filter(a => a.slots.isEmpty && a.predicate.text == p.text).map(_.references)
    }
  }
}
