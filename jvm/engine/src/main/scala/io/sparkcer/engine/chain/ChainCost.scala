package io.sparkcer.engine.chain

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
 * (ChainComplexitySuite), `A AS a ; B AS b ; C AS c FILTER a.v + 95 < b.v AND a.v < c.v` costs the lazy chain 14
 * times the registers' work, and the gap grows with the window: at each c it searches the pairs of a and b again,
 * where the registers checked each pair once, as b came, and keep one partial match per a. With
 * `a.v + 95 < c.v AND b.v < c.v` instead, the same counts, the registers do 12 times the lazy chain's work: they keep
 * a partial match per pair of a and b at every event, where the lazy chain looks only from each c, whose conditions
 * prune at once. A model from frequencies and assumed selectivities would be wrong by such factors.
 *
 * So the statistics are measured on the stream: both paths read the partition's first events, each counting its
 * work ([[io.sparkcer.engine.eval.Work]]: transitions, condition checks, buffered events visited, enumeration steps,
 * in the same units), and the cheaper one goes on alone. A path whose work passes [[Factor]] times the other's, by
 * more than the costliest single event of each (the lazy chain works in bursts, at the events that can end a match)
 * and [[Slack]], is dropped at once: so a race costs at most 1 + [[Factor]] times the cheaper path, plus a few events'
 * work, never a blow-up. The race is run again, with a fresh run of the path that lost, after [[RacesApart]] times
 * its length, so that a stream whose statistics change is followed; while the same path keeps winning, the races
 * grow apart, up to 2^[[Doublings]] times that, so that a steady stream pays for few of them. Once [[Consensus]]
 * races on an evaluator's partitions agree, a new partition starts on their choice, its first race that far off.
 */
object ChainCost {
  /** A path that has done more than Factor times the other's work (plus the costliest events' and [[Slack]]) is dropped. */
  val Factor = 2L
  /** Work either path may do ahead of the other before the comparison means anything (a few events' worth). */
  val Slack = 256L
  /** The fewest events a race compares over, where a window holds only a few events. */
  val MinRaceEvents = 64L
  /** A decided race is run again after this many times its length in events (at least [[MinRaceEvents]]). */
  val RacesApart = 8L
  /** How many times the races may double their distance while the same path keeps winning. */
  val Doublings = 3
  /** How many races an evaluator's partitions decide before their choice leads new partitions (nine in ten agreeing). */
  val Consensus = 16L

  def describe(chain: Chains, registers: String): String =
    s"${chain.describe}, or $registers, whichever does less work on each partition: both read its first two " +
      s"windows counting their work, a path past ${Factor}x the other's is dropped, and the race is run again after " +
      s"${RacesApart}x its length (up to ${RacesApart << Doublings}x while the same path wins); once $Consensus races " +
      "agree, a new partition starts on their choice"
}

/**
 * The choices [[AdaptiveChainRun]] made on an evaluator's partitions, and what it measured to make them (the work per
 * event of each path over the race), for the runner's summary and Spark's metrics: the cost model's estimate and
 * choice as the stream showed them.
 */
final class ChainDecisions {
  /** Per path, how many races it won. */
  val won = new Array[Long](ChainPath.all.length)
  /** Per path, its work over the races decided, and the events they spanned. */
  val work = new Array[Long](ChainPath.all.length)
  var events = 0L

  def isEmpty: Boolean = won.forall(_ == 0)

  /**
   * The path the races decided so far agree on: once there are [[ChainCost.Consensus]] of them and nine in ten chose
   * it. Partitions of one stream mostly look alike, so a new one starts on it ([[AdaptiveChainRun]]), racing later.
   */
  def consensus: Option[ChainPath] = {
    val races = won.sum
    if (races < ChainCost.Consensus) None else ChainPath.all.find(p => 10 * won(p.index) >= 9 * races)
  }

  /** The events a race's comparison spanned, on average. */
  def meanRace: Long = events / math.max(1L, won.sum)

  def describe: String = {
    val per = ChainPath.all.map(p => f"${p.name} ${work(p.index).toDouble / math.max(1L, events)}%.1f").mkString(", ")
    ChainPath.all.map(p => s"${p.name} chosen ${won(p.index)} times").mkString(", ") +
      s" (work per event measured in the races: $per)"
  }
}
