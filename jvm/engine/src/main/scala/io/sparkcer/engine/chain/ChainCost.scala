package io.sparkcer.engine.chain

import io.sparkcer.engine.eval.Work

/** The two paths a chain can run on; either gives the same matches (the lazy chain NFA paper's Theorem 1). */
sealed abstract class ChainPath(val index: Int, val name: String)

object ChainPath {
  /** The lazy chain ([[ChainRun]]): events buffered per atom, searched when one can end a match. */
  case object Lazy extends ChainPath(0, "lazy chain")
  /** The automaton with registers (RMA, [[io.sparkcer.engine.rma.RegisterRun]]): partial matches kept as events come. */
  case object Registers extends ChainPath(1, "registers")

  val all: IndexedSeq[ChainPath] = IndexedSeq(Lazy, Registers)
}

/**
 * The cost model that chooses, for each partition, the path its chain runs on ([[AdaptiveChainRun]]).
 *
 * Neither path is the cheaper on every stream, and what decides it is how the conditions select on the data, which
 * counts of event types do not tell. On the same uniform stream of A, B, C and D, at a window of 500 events
 * (ChainComplexitySuite), `A AS a ; B AS b ; C AS c FILTER a.v + 95 < b.v AND a.v < c.v` costs the lazy chain 18
 * times the registers' work, and the gap grows with the window: at each c it searches the pairs of a and b again,
 * where the registers checked each pair once, as b came, and keep one partial match per a. With
 * `a.v + 95 < c.v AND b.v < c.v` instead, the same counts, the registers do 10 times the lazy chain's work: they keep
 * a partial match per pair of a and b at every event, where the lazy chain looks only from each c, whose conditions
 * prune at once. A model from frequencies and assumed selectivities would be wrong by such factors.
 *
 * So the statistics are measured on the stream: both paths read the partition's first events, each counting its
 * work ([[io.sparkcer.engine.eval.Work]]: transitions, condition checks, buffered events visited, enumeration steps,
 * in the same units, a condition check weighing [[ConditionCheck]] of them), and the cheaper one goes on alone, a
 * challenger taking the lead only where the leader did more than [[Close]] times its work (paths alike would otherwise
 * trade the lead on every stretch of the stream, and race again soon after each change). A path whose work passes
 * [[Factor]] times the other's, by more than the costliest single event of each (the lazy chain works in bursts, at
 * the events that can end a match) and [[Slack]], is dropped at once: so a race costs at most 1 + [[Factor]] times the cheaper path, plus a few events'
 * work, never a blow-up. The race is run again, with a fresh run of the path that lost, after [[RacesApart]] times
 * its length, so that a stream whose statistics change is followed; while the same path keeps winning, the races
 * grow apart, up to 2^[[Doublings]] times that, so that a steady stream pays for few of them. Once [[Consensus]]
 * races on an evaluator's partitions agree, every partition still in its first race goes on with their choice, its
 * next race that far off.
 */
object ChainCost {
  /** A path that has done more than Factor times the other's work (plus the costliest events' and [[Slack]]) is dropped. */
  val Factor = 2L
  /** Work either path may do ahead of the other before the comparison means anything (a few events' worth). */
  val Slack = 256L
  /**
   * The fewest events a race compares over, where a window holds only a few events: fewer let a bursty stretch decide
   * (with 64, c_rising's paths traded the lead 373 times on the trace's 10 stocks).
   */
  val MinRaceEvents = 256L
  /** A decided race is run again after this many times its length in events (at least [[MinRaceEvents]]). */
  val RacesApart = 8L
  /** How many times the races may double their distance while the same path keeps winning. */
  val Doublings = 3
  /** How many races an evaluator's partitions decide before their choice leads new partitions (nine in ten agreeing). */
  val Consensus = 16L
  /**
   * A race whose loser did at most Close times the winner's work was close: either path would have done, so a
   * challenger takes the lead only from further ahead (a leader kept puts the next race further off).
   */
  val Close = 1.25
  /**
   * What a condition check weighs against the other steps: it evaluates an expression over the events' values, where
   * the others move a pointer, an index or a state (on the stock trace, one takes about twice as long as a transition).
   */
  val ConditionCheck = 2L

  /** The work counted so far, in the units the race compares. */
  def of(work: Work): Long = work.steps + (ConditionCheck - 1) * work.conditionChecks

  def describe(chain: Chains, registers: String): String =
    s"${chain.describe}, or $registers, whichever does less work on each partition: both read its first two " +
      s"windows counting their work, a path past ${Factor}x the other's is dropped, and the race is run again after " +
      s"${RacesApart}x its length (up to ${RacesApart << Doublings}x while the same path wins); once $Consensus races " +
      "agree, partitions in their first race go on with their choice"
}

/**
 * The choices [[AdaptiveChainRun]] made on an evaluator's partitions, and what it measured to make them (the work per
 * event of each path over the race), for the runner's summary and Spark's metrics: the cost model's estimate and
 * choice as the stream showed them.
 */
final class ChainDecisions {
  /** Per path, how many races it won. */
  val won = new Array[Long](ChainPath.all.length)
  /** Per path, how many races it lost by little (at most [[ChainCost.Close]] times the winner's work). */
  val lostClosely = new Array[Long](ChainPath.all.length)
  /** Per path, its work over the races decided, and the events they spanned. */
  val work = new Array[Long](ChainPath.all.length)
  var events = 0L

  def isEmpty: Boolean = won.forall(_ == 0)

  private var agreedOn: Option[ChainPath] = None

  /** Records a race `winner` won, with each path's work over the `measured` events compared. */
  def decided(winner: Int, cost: Array[Long], measured: Long): Unit = {
    won(winner) += 1
    if (cost(1 - winner) <= ChainCost.Close * cost(winner)) lostClosely(1 - winner) += 1
    for (p <- cost.indices) work(p) += cost(p)
    events += measured
    agreedOn = agreed
  }

  /**
   * The path the races decided so far agree on: once there are [[ChainCost.Consensus]] of them and in nine in ten it
   * won or lost by little (of two such paths, the one that won more). Partitions of one stream mostly look alike, so
   * a new one starts on it ([[AdaptiveChainRun]]), racing later; where the paths are close, following either costs
   * little, and racing on every partition would cost more. Read at every event a race reads: found when a race ends.
   */
  def consensus: Option[ChainPath] = agreedOn

  private def agreed: Option[ChainPath] = {
    val races = won.sum
    val near = ChainPath.all.filter(p => 10 * (won(p.index) + lostClosely(p.index)) >= 9 * races)
    if (races < ChainCost.Consensus || near.isEmpty) None else Some(near.maxBy(p => won(p.index)))
  }

  /** The events a race's comparison spanned, on average. */
  def meanRace: Long = events / math.max(1L, won.sum)

  def describe: String = {
    val per = ChainPath.all.map(p => f"${p.name} ${work(p.index).toDouble / math.max(1L, events)}%.1f").mkString(", ")
    ChainPath.all.map(p => s"${p.name} chosen ${won(p.index)} times").mkString(", ") +
      s" (work per event measured in the races: $per)"
  }
}
