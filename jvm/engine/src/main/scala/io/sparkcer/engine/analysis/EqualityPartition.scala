package io.sparkcer.engine.analysis

import scala.collection.mutable

import io.sparkcer.engine.ceql._
import io.sparkcer.engine.syntax.Name

/**
 * An equality on one attribute that ties every event of a match together (`s.name = b.name` in `SELL AS s ; BUY AS b`,
 * or `a.name = b.name AND b.name = c.name`) says that a match lies within one value of the attribute: it is a
 * partition, and runs as `PARTITION BY name`, each value's events on their own (with Spark's shuffle),
 * instead of a condition checked on every pair of events.
 *
 * This reading is exact only where partitioning changes nothing else, so it applies when:
 *  - the equalities are conjuncts of a FILTER on the whole pattern (not inside an OR, a NOT or an iteration);
 *  - through them, every atom of the pattern binds a variable of one class of equal attributes;
 *  - nothing counts the events in between, which a partition would leave out: no `:`, `:+`, NOT(...), STRICT,
 *    WITHIN n EVENTS, nor CONSUME BY PARTITION (whose partition it would narrow);
 *  - every NONE(...) looks only at events of the match's value: its filter has the equality of its event's attribute
 *    with a variable's (`NONE(B AS b FILTER b.acct = a.acct)`). Within the partition every event has that value, so
 *    the equality is dropped with the others and the NONE tests its event alone, on the automaton.
 */
object EqualityPartition {

  /** The attributes derived as partition keys, and the query without the equalities they stand for. */
  final case class Derived(attributes: Seq[Name], equalities: Seq[String], query: Query)

  def derive(query: Query, columns: IndexedSeq[String]): Option[Derived] = {
    if (!eligible(query)) return None
    val (filters, body) = rootFilters(query.pattern)
    val conjuncts = filters.flatMap(conjunctsOf)
    val equalities = conjuncts.flatMap(c => equality(c).map(c -> _))
    val atoms = atomVariables(body)
    // Per attribute, the classes of variables its equalities join; an attribute partitions when one class covers every atom.
    val byAttribute = equalities.groupBy(_._2._3.toLowerCase(java.util.Locale.ROOT)).toSeq.sortBy(_._1)
    val chosen = byAttribute.flatMap { case (attribute, eqs) =>
      val parent = mutable.HashMap.empty[String, String]
      def find(v: String): String = { val p = parent.getOrElseUpdate(v, v); if (p == v) v else find(p) }
      eqs.foreach { case (_, (a, b, _, _)) => parent(find(a)) = find(b) }
      val classes = parent.keys.groupBy(find).values.map(_.toSet)
      val covering = classes.exists(cls => atoms.forall(_.exists(cls.contains)))
      val column = columns.find(_.equalsIgnoreCase(attribute))
      if (covering && column.isDefined) Some((eqs.head._2._4, eqs.map(_._1))) else None
    }
    // Each NONE's equalities on the chosen attributes, and whether every NONE has one.
    val attributes = chosen.map(_._1.value.toLowerCase(java.util.Locale.ROOT)).toSet
    val exclusions = Cel.exclusions(query.pattern)
    val keyed = exclusions.map(e =>
      e -> e.filter.toSeq.flatMap(conjunctsOf).filter(r =>
        equality(r).exists {
          case (a, b, attribute, _) => (a == e.candidate) != (b == e.candidate) &&
            attributes(attribute.toLowerCase(java.util.Locale.ROOT))
        })).toMap
    if (chosen.isEmpty || exclusions.exists(keyed(_).isEmpty)) None
    else {
      val removed = chosen.flatMap(_._2).toSet
      val pattern = withoutGapLeaves(withoutLeaves(query.pattern, removed), keyed.values.flatten.toSet)
      // A declared key of that one attribute already partitions by it; a group [g, h] (the first of them not NULL) does not.
      val keys = chosen.map(_._1).filterNot(k =>
        query.partitionBy.exists {
          case Seq(declared) => declared.value.equalsIgnoreCase(k.value)
          case _ => false
        })
      Some(
        Derived(
          chosen.map(_._1),
          (chosen.flatMap(_._2) ++ exclusions.flatMap(keyed)).map(_.condition.text),
          query.copy(pattern = pattern, partitionBy = query.partitionBy ++ keys.map(Seq(_)))
        ))
    }
  }

  private def eligible(query: Query): Boolean = {
    def counts(cel: Cel): Boolean = cel match {
      case _: Cel.Not => true
      case Cel.Sequence(a, b, contiguous, _, _) => contiguous || counts(a) || counts(b)
      case Cel.Iteration(b, contiguous, _) => contiguous || counts(b)
      case Cel.Or(a, b, _) => counts(a) || counts(b)
      case Cel.And(a, b, _) => counts(a) || counts(b)
      case Cel.Bind(b, _, _) => counts(b)
      case Cel.Filtered(b, _, _) => counts(b)
      case _: Cel.Atom => false
    }
    query.strategy != Strategy.Strict && query.consumeBy != Consumption.Partition &&
    !query.within.exists(_.isInstanceOf[Window.Events]) && !counts(query.pattern)
  }

  /** The filters applied to the whole pattern (outermost first), and the pattern under them. */
  private def rootFilters(cel: Cel): (Seq[Filter], Cel) = cel match {
    case Cel.Filtered(body, f, _) => val (more, inner) = rootFilters(body); (f +: more, inner)
    case other => (Nil, other)
  }

  private def conjunctsOf(f: Filter): Seq[Filter.Relation] = f match {
    case Filter.And(l, r, _) => conjunctsOf(l) ++ conjunctsOf(r)
    case r: Filter.Relation => Seq(r)
    case _ => Nil
  }

  /** `x.attr = y.attr` over two variables: (x, y, attr, the attribute's name as written). */
  private def equality(r: Filter.Relation): Option[(String, String, String, Name)] =
    Equality.of(r.condition).filter(e => e.left.attribute.equalsIgnoreCase(e.right.attribute)).map { e =>
      (e.left.variable, e.right.variable, e.left.attribute,
        r.condition.references.head.variable.copy(value = e.left.attribute))
    }

  /** Per atom of the pattern (NOT's excepted), the variables it binds: its type and the AS names around it. */
  private def atomVariables(cel: Cel, around: List[String] = Nil): Seq[Set[String]] = cel match {
    case Cel.Atom(_, t, _) => Seq((t.value :: around).toSet)
    case _: Cel.Not => Nil
    case Cel.Bind(b, v, _) => atomVariables(b, v.value :: around)
    case Cel.Sequence(a, b, _, _, _) => atomVariables(a, around) ++ atomVariables(b, around)
    case Cel.Or(a, b, _) => atomVariables(a, around) ++ atomVariables(b, around)
    case Cel.And(a, b, _) => atomVariables(a, around) ++ atomVariables(b, around)
    case Cel.Iteration(b, _, _) => atomVariables(b, around)
    case Cel.Filtered(b, _, _) => atomVariables(b, around)
  }

  /** The pattern with the given leaves dropped from the filters of its NONEs (a filter left empty goes with them). */
  private def withoutGapLeaves(cel: Cel, removed: Set[Filter.Relation]): Cel = cel match {
    case s @ Cel.Sequence(a, b, _, _, gap) =>
      s.copy(first = withoutGapLeaves(a, removed), second = withoutGapLeaves(b, removed),
        gap = gap.map(e => e.copy(filter = e.filter.flatMap(prune(_, removed)))))
    case Cel.Bind(b, v, pos) => Cel.Bind(withoutGapLeaves(b, removed), v, pos)
    case Cel.Or(a, b, pos) => Cel.Or(withoutGapLeaves(a, removed), withoutGapLeaves(b, removed), pos)
    case Cel.And(a, b, pos) => Cel.And(withoutGapLeaves(a, removed), withoutGapLeaves(b, removed), pos)
    case Cel.Iteration(b, c, pos) => Cel.Iteration(withoutGapLeaves(b, removed), c, pos)
    case Cel.Filtered(b, f, pos) => Cel.Filtered(withoutGapLeaves(b, removed), f, pos)
    case leaf @ (_: Cel.Atom | _: Cel.Not) => leaf
  }

  /** A filter without the given leaves of its conjunction, None when none is left. */
  private def prune(f: Filter, removed: Set[Filter.Relation]): Option[Filter] = f match {
    case r: Filter.Relation if removed(r) => None
    case Filter.And(l, r, p) => (prune(l, removed), prune(r, removed)) match {
        case (Some(a), Some(b)) => Some(Filter.And(a, b, p))
        case (a, b) => a.orElse(b)
      }
    case other => Some(other)
  }

  /** The pattern with the given leaves dropped from its root filters (a filter left empty goes with them). */
  private def withoutLeaves(cel: Cel, removed: Set[Filter.Relation]): Cel = cel match {
    case Cel.Filtered(body, f, pos) =>
      val inner = withoutLeaves(body, removed)
      prune(f, removed).fold(inner)(Cel.Filtered(inner, _, pos))
    case other => other
  }
}
