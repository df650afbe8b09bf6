package io.sparkcer.engine.pcea

import java.util.Locale

import scala.collection.mutable

import io.sparkcer.engine.analysis.Equality
import io.sparkcer.engine.automaton.Nfa

/**
 * The classes of attributes that equalities make equal, over the atoms of a pattern: an atom's attribute is a member,
 * and `a.x = b.y` puts every atom that binds a (in the condition's scope) with attribute x in one class with every
 * atom that binds b with attribute y. These are the variables of the paper's conjunctive query (Pinto and Riveros, §4): one value
 * per class in a match. That reading needs each equality to be checked in every match (its scope holds in every match
 * and binds both variables in every match of the scope), which [[PceaCompiler]] checks before it builds classes.
 *
 * @param ofAtom per atom (from 1), its classes and the attribute it holds of each
 * @param source per (atom, class), an equality side that reads that attribute on that atom's events: the key extractor
 */
final class EqualityClasses private (val count: Int, val ofAtom: IndexedSeq[Map[Int, String]],
    val source: Map[(Int, Int), (Int, Int)], val members: IndexedSeq[Seq[(Int, String)]]) {

  /** The classes atom `a` holds. */
  def of(a: Int): Set[Int] = ofAtom(a).keySet

  /** A class as its user wrote it: the `var.attr` of its members, given the name of each atom. */
  def describe(k: Int, atomName: Int => String): String =
    members(k).map { case (a, attribute) => s"${atomName(a)}.$attribute" }.distinct.mkString("{", " = ", "}")
}

object EqualityClasses {

  /**
   * The classes of the equalities over `nfa`'s atoms, each equality over its scope's atoms; or why one atom would have
   * to hold two attributes of one class (`a.x = b.y AND b.y = a.z` also says a.x = a.z of one event, which is no join).
   */
  def of(nfa: Nfa, equalities: IndexedSeq[Equality], atomName: Int => String): Either[String, EqualityClasses] = {
    // Spark resolves attributes without regard to case: a member is an atom's attribute in lower case.
    val ids = mutable.LinkedHashMap.empty[(Int, String), Int] // member (atom, attribute) -> id
    val readBy = mutable.HashMap.empty[(Int, String), (Int, Int)]
    val parent = mutable.ArrayBuffer.empty[Int]
    def member(atom: Int, attribute: String, condition: Int, side: Int): Int = {
      readBy.getOrElseUpdate((atom, attribute), (condition, side))
      ids.getOrElseUpdate((atom, attribute), { parent += parent.length; parent.length - 1 })
    }
    def find(m: Int): Int = if (parent(m) == m) m else { val r = find(parent(m)); parent(m) = r; r }
    for (scope <- nfa.scopes) {
      val eq = equalities(scope.condition)
      val bound = for (side <- eq.sides; a <- scope.atoms.toSeq.sorted if scope.bindings(a).contains(side.variable))
        yield member(a, side.attribute.toLowerCase(Locale.ROOT), scope.condition, side.side)
      bound.reduceOption { (x, y) => parent(find(y)) = find(x); x }
    }
    val roots = ids.values.map(find).toSeq.distinct
    val classOf = roots.zipWithIndex.toMap
    val members = ids.keys.toIndexedSeq.groupBy(m => classOf(find(ids(m)))).toIndexedSeq.sortBy(_._1).map(_._2)
    val ofAtom = (0 to nfa.atoms.length).map { a =>
      ids.keys.filter(_._1 == a).toSeq.groupBy(m => classOf(find(ids(m))))
    }
    val twice = ofAtom.zipWithIndex.collectFirst {
      case (held, a) if held.exists(_._2.size > 1) =>
        val (_, attributes) = held.find(_._2.size > 1).get
        s"the equalities make ${attributes.map(m => s"${atomName(a)}.${m._2}").mkString(" and ")} equal on one event, " +
          "which is a filter on that event, not a join between events; write it as " +
          s"${atomName(a)}[${attributes.map(_._2).mkString(" = ")}]"
    }
    twice.toLeft(new EqualityClasses(roots.length, ofAtom.map(_.map { case (k, ms) => k -> ms.head._2 }),
        ids.keys.map(m => (m._1, classOf(find(ids(m)))) -> readBy(m)).toMap, members))
  }
}
