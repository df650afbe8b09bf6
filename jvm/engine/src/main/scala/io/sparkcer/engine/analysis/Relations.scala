package io.sparkcer.engine.analysis

import io.sparkcer.engine.ceql._

/**
 * The semantic rules of conditions relating events (DESIGN §3a), each refused with what to write instead:
 *  - a condition names the variable of every column it reads;
 *  - an aggregate ranges over a variable that may bind several events, and `prev` needs a variable that repeats;
 *  - a condition with `prev(b.…)` names only b (its `b.attr` is then the current event of b);
 *  - a condition that relates each event of a repeating variable to other events keeps those events as long as the
 *    match is open: outside RMA's bounded expressions (Def. 3.2 of the RMA paper), so it needs a window;
 *  - NEXT, LAST and MAX compare runs that conditions keep apart, so they are refused with conditions.
 */
object Relations {

  /** Whether a condition relates events (a register condition), rather than testing one event (a guard). */
  def relates(c: Condition): Boolean = c.slots.nonEmpty || c.variables.size > 1

  def check(query: Query, text: String): Unit = {
    def fail(problem: String, pos: Position, length: Int): Nothing = throw new CeqlException(problem, pos, text, length)
    def scopes(cel: Cel): Seq[(Cel, Filter)] = cel match {
      case Cel.Filtered(body, f, _) => (body -> f) +: scopes(body)
      case Cel.Bind(b, _, _) => scopes(b)
      case Cel.Sequence(a, b, _, _) => scopes(a) ++ scopes(b)
      case Cel.Or(a, b, _) => scopes(a) ++ scopes(b)
      case Cel.And(a, b, _) => scopes(a) ++ scopes(b)
      case Cel.Iteration(b, _, _) => scopes(b)
      case _: Cel.Atom | _: Cel.Not => Nil
    }
    for ((body, filter) <- scopes(query.pattern); Filter.Relation(c, pos) <- Filter.relations(filter)) {
      if (c.references.isEmpty && c.slots.isEmpty)
        fail(s"the condition '${c.text}' names no event: write each column with the variable whose event it reads, " +
          s"e.g. ${(Analyzer.asVariables(body) ++ Analyzer.boundVariables(body)).headOption.getOrElse("b")}.price > 100",
          pos, c.text.length)
      def repeats(v: String) = Multiplicity.of(body, v) match {
        case Multiplicity.Exactly(n) => n > 1
        case Multiplicity.Varies => true
      }
      c.slots.foreach { s =>
        val v = s.variable.value
        if (!repeats(v)) {
          val what =
            if (s.function == SlotFunction.Prev) s"prev(...) is the event of $v before the current one, so it needs $v to " +
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
          fail(s"a condition with prev($v.…) can only name $v (its $v.attr is the current event of $v, prev the one " +
            s"before); it also names ${(others ++ c.aggregates.map(_.function.name + "(...)")).distinct.mkString(", ")}: " +
            "split it with AND into conditions of their own", pos, c.text.length)
      }
      if (relates(c) && c.prevVariables.isEmpty && query.within.isEmpty)
        c.references.map(_.variable).find(v => repeats(v.value)).foreach { v =>
          val other = c.allVariables.find(_ != v.value).getOrElse(v.value)
          fail(s"'${v.value}' binds several events here (it repeats under +), and the condition '${c.text}' relates each " +
            s"of them to ${if (other == v.value) s"aggregates of ${v.value}" else s"'$other'"}: its events are kept " +
            "until the match ends (the pattern is not a bounded expression, Def. 3.2 of the RMA paper). Add a window, " +
            s"e.g. WITHIN 100 EVENTS, or relate an aggregate instead: max(${v.value}.attr), min(${v.value}.attr)",
            v.pos, v.value.length)
        }
      if (relates(c) && Set[Strategy](Strategy.Next, Strategy.Last, Strategy.Max).contains(query.strategy))
        fail(s"SELECT ${query.strategy.keyword} is not supported with conditions relating events (${c.text}); " +
          "write SELECT ALL, ANY or STRICT, with LIMIT n to bound the matches", pos, c.text.length)
    }
  }
}
