package io.sparkcer.engine.rma

import scala.collection.mutable

import io.sparkcer.engine.automaton.Nfa

/**
 * Which registers may make the runs exponentially many in the window, found on the automaton as it runs (after
 * [[DominatedTakes]]): runs are one per state and register contents, and a register that takes a value per subset
 * of the events it is given (a list, a sum, an average) does so only where one run may give it a second event, after
 * a first, before anything empties it. A list given one event per match (the first a of `(A AS a)+` once the later
 * a's are skipped) holds one of the window's events, like a single register.
 */
object RunGrowth {
  /** A register (a list, or an accumulator) that takes a value per subset of its events, and why it is kept. */
  final case class Register(register: RegisterSet, description: String)

  /** The descriptions of the registers of `candidates` that one run may give several events. */
  def perSubset(nfa: Nfa, actions: IndexedSeq[Actions], candidates: Seq[Register]): Seq[String] =
    candidates.filter(r => givenTwice(nfa, actions, r.register)).map(_.description)

  /** Whether a run may add a second event to `register` after a first, with no reset or drop in between. */
  private def givenTwice(nfa: Nfa, actions: IndexedSeq[Actions], register: RegisterSet): Boolean = {
    def touches(set: RegisterSet) =
      set.lists.exists(register.lists.contains) || set.accumulators.exists(register.accumulators.contains)
    def adds(a: Actions) = touches(RegisterSet(Nil, a.append, a.accumulate))
    def empties(a: Actions) = touches(a.reset) || touches(a.drop)
    val adding = for (q <- nfa.transitions.indices; t <- nfa.transitions(q) if t.marks && adds(actions(t.label)))
      yield q -> t
    val reached = mutable.Set.empty[Int]
    val pending = mutable.Stack(adding.map(_._2.target): _*)
    while (pending.nonEmpty) {
      val q = pending.pop()
      if (reached.add(q))
        pending.pushAll(nfa.transitions(q).filterNot(t => t.marks && empties(actions(t.label))).map(_.target))
    }
    // A second event that resets the register first starts it afresh.
    adding.exists { case (q, t) => reached(q) && !touches(actions(t.label).reset) }
  }
}
