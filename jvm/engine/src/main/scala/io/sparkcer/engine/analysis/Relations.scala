package io.sparkcer.engine.analysis

import io.sparkcer.engine.ceql._
import io.sparkcer.engine.syntax.{PatternException, Position}

/**
 * The semantic rules of conditions relating events, each refused with what to write instead:
 *  - a condition names the variable of every column it reads;
 *  - an aggregate ranges over a variable that may bind several events, and `prev` needs a variable that repeats;
 *  - a condition with `prev(b.…)` names only b (its `b.attr` is then the current event of b);
 *  - a condition that relates each event of a repeating variable to other events keeps those events as long as the
 *    match is open: outside RMA's bounded expressions (Def. 3.2 of the RMA paper), so it needs a window.
 */
object Relations {

  /** Whether a condition relates events (a register condition), rather than testing one event (a guard). */
  def relates(c: Condition): Boolean = c.slots.nonEmpty || c.variables.size > 1

  /** The filtered sub-patterns of a pattern, each with its filter. */
  private def scopes(cel: Cel): Seq[(Cel, Filter)] = cel match {
    case Cel.Filtered(body, f, _) => (body -> f) +: scopes(body)
    case Cel.Bind(b, _, _) => scopes(b)
    case Cel.Sequence(a, b, _, _, _) => scopes(a) ++ scopes(b)
    case Cel.Or(a, b, _) => scopes(a) ++ scopes(b)
    case Cel.And(a, b, _) => scopes(a) ++ scopes(b)
    case Cel.Iteration(b, _, _) => scopes(b)
    case _: Cel.Atom | _: Cel.Not => Nil
  }

  /** Whether `v` may bind several events in a match of `body`. */
  private def repeats(body: Cel, v: String): Boolean = Multiplicity.of(body, v) match {
    case Multiplicity.Exactly(n) => n > 1
    case Multiplicity.Varies => true
  }

  def check(query: Query, text: String): Unit = {
    def fail(problem: String, pos: Position, length: Int): Nothing =
      throw new PatternException(problem, pos, text, length)
    for ((body, filter) <- scopes(query.pattern); Filter.Relation(c, pos) <- Filter.relations(filter)) {
      def repeats(v: String) = Relations.repeats(body, v)
      if (c.references.isEmpty && c.slots.isEmpty)
        fail(
          s"the condition '${c.text}' names no event: write each column with the variable whose event it reads, " +
            s"e.g. ${(Analyzer.asVariables(body) ++ Analyzer.boundVariables(body)).headOption.getOrElse("b")}.price > 100",
          pos,
          c.text.length
        )
      c.slots.foreach { s =>
        val v = s.variable.value
        if (!repeats(v)) {
          val what =
            if (s.function == SlotFunction.Prev)
              s"prev(...) is the event of $v before the current one, so it needs $v to " +
                s"repeat (bind it inside an iteration: (... AS $v)+)"
            else s"${s.function.name}(...) ranges over the events bound to $v, but $v binds one event here: write " +
              s.argument.fold(s"1 for count($v)")(a => a.text)
          fail(what, s.pos, s.function.name.length)
        }
      }
      if (c.prevVariables.nonEmpty) {
        val v = c.prevVariables.head
        val others = (c.allVariables.filter(_ != v) ++ c.prevVariables.drop(1)).distinct
        if (others.nonEmpty || c.aggregates.nonEmpty)
          fail(
            s"a condition with prev($v.…) can only name $v (its $v.attr is the current event of $v, prev the one " +
              s"before); it also names ${(others ++ c.aggregates.map(_.function.name + "(...)")).distinct.mkString(", ")}: " +
              "split it with AND into conditions of their own",
            pos,
            c.text.length
          )
      }
    }
  }

  /**
   * Refuses a condition that relates each event of a repeating variable to another event, without a window: the
   * general evaluator keeps those events until the match ends (the pattern is not a bounded expression, Def. 3.2 of
   * the RMA paper). Checked once the evaluator is chosen: a PCEA keys such equalities without keeping any list.
   */
  def requireBounded(query: Query, text: String): Unit =
    if (query.within.isEmpty)
      for ((body, filter) <- scopes(query.pattern); Filter.Relation(c, _) <- Filter.relations(filter)
        if relates(c) && c.prevVariables.isEmpty)
        c.references.map(_.variable).find(v => Multiplicity.mayBindSeveral(body, v.value)).foreach { v =>
          val other = c.allVariables.find(_ != v.value).getOrElse(v.value)
          throw new PatternException(
            s"'${v.value}' binds several events here (it repeats under +), and the condition " +
              s"'${c.text}' relates each of them to ${if (other == v.value) s"aggregates of ${v.value}" else s"'$other'"}: " +
              "its events are kept until the match ends (the pattern is not a bounded expression, Def. 3.2 of the RMA " +
              s"paper). Add a window, e.g. WITHIN 100 EVENTS, or relate an aggregate instead: max(${v.value}.attr), " +
              s"min(${v.value}.attr)",
            v.pos,
            text,
            v.value.length
          )
        }
}
