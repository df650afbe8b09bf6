package io.sparkcer.engine.analysis

import io.sparkcer.engine.ceql._
import io.sparkcer.engine.syntax.{PatternException, Position}

/**
 * The rules of `φ ; NONE(R [AS v] [FILTER f]) ; ψ` (no event between φ's last and ψ's first is an R satisfying f),
 * each refused at its place with what to write instead:
 *  - f is a conjunction of tests: `NONE(B FILTER p OR q)` is `NONE(B FILTER p) ; NONE(B FILTER q)` (neither), which
 *    keeps each NONE one test of a candidate, as the evaluators take it;
 *  - `x[...]` in f tests the candidate only, and a condition names the candidate and the variables bound in φ or ψ
 *    (what the match has bound around the gap), with no aggregate nor `prev`: one candidate at a time is judged
 *    against the match's events;
 *  - the candidate's name is its own: an AS name bound elsewhere in the pattern, or a type name the pattern binds in a
 *    condition that relates it to other events, would make f ambiguous (a test of it alone, `B[x > 1]` or `B.x > 1`,
 *    tests the candidate); NONE of several types needs an AS name for f to call its event by.
 * That v binds nothing in the match (`SELECT v`, a FILTER outside the NONE naming v) is refused by [[Analyzer]],
 * which names the NONE ([[candidateAt]]); NONE inside an operand of AND by its check of conjunctions.
 */
object Exclusions {

  /** The NONE whose candidate `variable` names, when nothing else in the pattern binds it. */
  def candidateAt(pattern: Cel, variable: String): Option[Exclusion] =
    if (Analyzer.boundVariables(pattern).contains(variable)) None
    else Cel.exclusions(pattern).find(_.candidate == variable)

  def check(pattern: Cel, text: String): Unit = new Check(pattern, text).visit(pattern)

  private final class Check(pattern: Cel, text: String) {
    private val bound = Analyzer.boundVariables(pattern)

    private def fail(problem: String, pos: Position, length: Int): Nothing =
      throw new PatternException(problem, pos, text, length)

    def visit(cel: Cel): Unit = cel match {
      case Cel.Sequence(a, b, _, _, gap) =>
        gap.foreach(exclusion(_, (Analyzer.boundVariables(a) ++ Analyzer.boundVariables(b)).distinct))
        visit(a); visit(b)
      case Cel.Bind(b, _, _) => visit(b)
      case Cel.Or(a, b, _) => visit(a); visit(b)
      case Cel.And(a, b, _) => visit(a); visit(b)
      case Cel.Iteration(b, _, _) => visit(b)
      case Cel.Filtered(b, _, _) => visit(b)
      case _: Cel.Atom | _: Cel.Not => ()
    }

    /** One NONE, between operands that bind `around`. */
    private def exclusion(e: Exclusion, around: Seq[String]): Unit = {
      val v = e.candidate
      e.variable.filter(n => bound.contains(n.value)).foreach { n =>
        fail(
          s"'${n.value}' is bound by the pattern too, but NONE's event binds nothing in the match: give it a name of " +
            s"its own, e.g. NONE(... AS no_${n.value} ...)",
          n.pos,
          n.value.length
        )
      }
      val leaves = e.filter.toSeq.flatMap(conjuncts)
      if (e.variable.isEmpty && leaves.nonEmpty && e.types.size > 1)
        fail(
          s"NONE(${e.types.map(_.eventType.value).mkString(" OR ")} FILTER ...) needs a name for its event, whichever " +
            s"its type: NONE(${e.types.map(_.eventType.value).mkString(" OR ")} AS e FILTER e.price > 5)",
          e.pos,
          4
        )
      leaves.foreach {
        case f: Filter.OnVariable if f.variable.value != v =>
          fail(
            s"inside NONE(...) a filter ${f.variable.value}[...] can only test NONE's event, '$v'; relate it to " +
              s"other events with a condition, e.g. $v.price > ${f.variable.value}.price",
            f.variable.pos,
            f.variable.value.length
          )
        case Filter.Relation(c, pos) =>
          c.slots.headOption.foreach { s =>
            fail(
              s"inside NONE(...) a condition judges one event at a time against single events of the match: " +
                s"${s.function.name}(...) is not supported there",
              s.pos,
              s.function.name.length
            )
          }
          if (c.references.isEmpty)
            fail(s"the condition '${c.text}' names no event: write each column with its variable, e.g. $v.price > 100",
              pos, c.text.length)
          c.references.map(_.variable).foreach { n =>
            if (n.value == v && e.variable.isEmpty && bound.contains(v) && c.variables.exists(_ != v))
              fail(s"'$v' names both NONE's event and an event the pattern binds: name NONE's event, e.g. " +
                  s"NONE($v AS no_$v FILTER no_$v...)", n.pos, n.value.length)
            if (n.value != v && !around.contains(n.value))
              fail(
                s"'${n.value}' is not bound next to this NONE: its filter may name its event '$v' and the variables " +
                  s"of the operands of ';' around it${if (around.isEmpty) "" else around.mkString(" (", ", ", ")")}",
                n.pos,
                n.value.length
              )
          }
        case _ =>
      }
    }

    /** The leaves of a NONE's filter, which must be a conjunction. */
    private def conjuncts(f: Filter): Seq[Filter] = f match {
      case Filter.And(l, r, _) => conjuncts(l) ++ conjuncts(r)
      case Filter.Or(_, _, pos) =>
        fail("OR is not supported inside NONE(...): NONE(B FILTER p OR q) is NONE(B FILTER p) ; NONE(B FILTER q), " +
            "neither event between", pos, 1)
      case Filter.Not(_, pos) =>
        fail("NOT is not supported inside NONE(...); negate the predicate itself, e.g. price <= 5", pos, 3)
      case leaf => Seq(leaf)
    }
  }
}
