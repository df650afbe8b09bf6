package io.sparkcer.engine.chain

import java.io.{DataInput, DataOutput}

import io.sparkcer.engine.eval.{Run, TooManyMatchesException, Work}
import io.sparkcer.engine.eval.MatchSink
import io.sparkcer.engine.tecs.Tecs

/**
 * A chain on one partition, evaluated on whichever of its two paths ([[ChainPath]]) does less work there, as
 * [[ChainCost]] measures it: the leader's matches are reported; while a race is on, a challenger on the other path
 * reads the same events, and its matches are found (that is its work) and dropped.
 *
 * A run of either path that starts at an event of window key k misses only matches with an event before it, so its
 * matches are all there once the window threshold reaches k: a challenger can start fresh at any event, and may take
 * the lead from then on (at the partition's first event, at once). A race warms the challenger up for one window,
 * then compares the two over the next one (at least [[ChainCost.MinRaceEvents]] events); at any event, a path whose
 * work passes [[ChainCost.Factor]] times the other's, by more than the costliest event of each, is dropped. After the
 * race, the winner runs alone for [[ChainCost.RacesApart]] times the race's length (twice that for each race in a row
 * the leader kept its lead, up to [[ChainCost.Doublings]] times; once only, for a race decided in the partition's
 * first window), then a fresh challenger starts the next race; a challenger takes the lead only when clearly
 * cheaper ([[ChainCost.Close]]). Once the races on the evaluator's other partitions agree
 * ([[ChainDecisions.consensus]]), a partition's first race ends then (at once, for one begun later), on their path,
 * the next put off as the longest run of kept leads would: many partitions alike pay for a few races, not one each. A
 * leader that passes a bound of its own on an event ([[TooManyMatchesException]]) before reporting any of that
 * event's matches hands over to a challenger that has them all; a challenger that passes one loses the race. The saved state
 * records the leader, the race in progress and the challenger's run, so a stream restarted from a checkpoint goes on
 * with the same choice.
 *
 * @param newRun  a run of a path with nothing read, over the partition's events
 * @param first   the path that leads at the partition's first event
 * @param work    the evaluator's counters: each path's work is what it adds to them while it reads
 */
final class AdaptiveChainRun(newRun: ChainPath => Run, first: ChainPath, work: Work, decisions: ChainDecisions)
    extends Run {
  private val runs: Array[Run] = Array.fill(ChainPath.all.length)(null)
  private var leader = first.index
  private def challenger = 1 - leader
  runs(leader) = newRun(first)

  /** Whether the partition has read an event: a challenger that starts later misses the matches before it. */
  private var begun = false
  /** The window key of the challenger's first event. */
  private var startedAt = 0L
  /** From this window threshold on, the challenger has every match: it read every event a match may bind. */
  private var exactFrom = 0L
  /** The window key at which the comparison began, the challenger warmed up; Long.MaxValue while it warms up. */
  private var comparedFrom = Long.MaxValue
  /** Per path, its work since the comparison began (while the challenger warms up, since it started). */
  private val cost = new Array[Long](ChainPath.all.length)
  /**
   * Per path, the most work it did on one event in this race. The lazy chain's work comes in bursts, at the events
   * that can end a match: a comparison is only decided past what one more event of each path may add.
   */
  private val peak = new Array[Long](ChainPath.all.length)
  /** The events that work was measured over. */
  private var measured = 0L
  /** Events read since the challenger started. */
  private var raced = 0L
  /** While the leader runs alone, the events left before the next race. */
  private var untilRace = 0L
  /** How many races in a row the leader has kept its lead: each one puts the next race twice as far. */
  private var kept = 0

  private def racing: Boolean = runs(challenger) != null
  /** The path whose matches are reported now. */
  def leading: ChainPath = ChainPath.all(leader)
  def liveNodes: Int = runs(leader).liveNodes + (if (racing) runs(challenger).liveNodes else 0)
  def maxOutputDepth: Int = math.max(runs(leader).maxOutputDepth, if (racing) runs(challenger).maxOutputDepth else 0)
  def activeStates: Int = runs(leader).activeStates + (if (racing) runs(challenger).activeStates else 0)

  def read(position: Long, symbol: Int, bits: Array[Long], key: Long, threshold: Long, sink: MatchSink): Int = {
    if (!racing) { if (untilRace <= 0) startRace(key) else untilRace -= 1 }
    else if (exactFrom == Long.MinValue) decisions.consensus.foreach(follow)
    begun = true
    if (!racing) runs(leader).read(position, symbol, bits, key, threshold, sink)
    else {
      // Each path's cost is the work it adds to the counters while it reads.
      val before = ChainCost.of(work)
      val found =
        try runs(leader).read(position, symbol, bits, key, threshold, if (sink == null) null else Counting.to(sink))
        catch {
          case _: Tecs.Full | _: TooManyMatchesException if threshold >= exactFrom && Counting.accepted == 0 =>
            // The leader passed a bound of its own on this event (the lazy chain's on an iteration's subsets, the
            // registers' on their runs) before reporting any of its matches, and the challenger has them all: it
            // takes over, and reads the event in its place.
            decide(challenger)
            return runs(leader).read(position, symbol, bits, key, threshold, sink)
        }
      val between = ChainCost.of(work)
      add(leader, between - before)
      val challenging =
        try { runs(challenger).read(position, symbol, bits, key, threshold, if (sink == null) null else Discard); true }
        catch { case _: Tecs.Full | _: TooManyMatchesException => false } // the registers' bounds: it would cost more
      add(challenger, ChainCost.of(work) - between)
      raced += 1
      measured += 1
      if (challenging) judge(key, threshold) else decide(leader)
      found
    }
  }

  private def add(path: Int, steps: Long): Unit = {
    cost(path) += steps
    peak(path) = math.max(peak(path), steps)
  }

  private def startRace(key: Long): Unit = {
    runs(challenger) = newRun(ChainPath.all(challenger))
    startedAt = key
    exactFrom = if (begun) key else Long.MinValue
    comparedFrom = Long.MaxValue
    java.util.Arrays.fill(cost, 0L)
    java.util.Arrays.fill(peak, 0L)
    measured = 0
    raced = 0
  }

  /** After an event both paths read: drops a path far behind, begins the comparison, or decides the race. */
  private def judge(key: Long, threshold: Long): Unit =
    if (farBehind(challenger)) decide(leader)
    else if (threshold >= exactFrom && farBehind(leader)) decide(challenger)
    else if (comparedFrom == Long.MaxValue) {
      if (threshold >= startedAt) {
        comparedFrom = key
        java.util.Arrays.fill(cost, 0L)
        measured = 0
      }
    } else if (threshold >= comparedFrom && measured >= ChainCost.MinRaceEvents)
      decide(if (ChainCost.Close * cost(challenger) < cost(leader)) challenger else leader)

  /** Whether a path has done more than [[ChainCost.Factor]] times the other's work, whatever one more event adds. */
  private def farBehind(path: Int): Boolean =
    cost(path) > ChainCost.Factor * cost(1 - path) + peak(0) + peak(1) + ChainCost.Slack

  /**
   * Ends the race: `winner` leads alone until the next one. A race decided in the partition's first window saw both
   * paths on a window still filling, where their costs may compare otherwise than later: the next one comes after as
   * long again. (Later, a challenger dropped as it warms up did more work on a window filling than the leader on a
   * full one: it would do more yet.)
   */
  private def decide(winner: Int): Unit = {
    decisions.decided(winner, cost, measured)
    val filling = exactFrom == Long.MinValue && comparedFrom == Long.MaxValue
    if (!filling) kept = if (winner == leader) kept + 1 else 0
    // A winner the other partitions' races agree on is as sure as after the longest run of kept leads.
    val agreed = decisions.consensus.exists(_.index == winner)
    if (agreed) kept = math.max(kept, ChainCost.Doublings)
    runs(1 - winner) = null
    leader = winner
    untilRace = if (filling && !agreed) raced
    else math.max(raced, ChainCost.MinRaceEvents) * (ChainCost.RacesApart << math.min(kept, ChainCost.Doublings))
  }

  /**
   * Ends the partition's first race, on the path the races of the evaluator's other partitions agree on
   * ([[ChainDecisions.consensus]]): both runs began with the partition, so either has every match and may lead. Where
   * partitions interleave, they all begin their first races before any is decided: each ends as soon as the consensus
   * is there. The next race comes as late as after the longest run of kept leads, so that a partition whose stream
   * differs finds out then; the race is not counted as decided, so the consensus stays what races measured.
   */
  private def follow(path: ChainPath): Unit = {
    leader = path.index
    runs(challenger) = null
    kept = ChainCost.Doublings
    untilRace = math.max(decisions.meanRace, ChainCost.MinRaceEvents) * (ChainCost.RacesApart << kept)
  }

  def expire(threshold: Long): Unit = runs.foreach(r => if (r != null) r.expire(threshold))

  def save(out: DataOutput): Unit = {
    out.writeByte(leader)
    runs(leader).save(out)
    out.writeBoolean(runs(challenger) != null)
    if (runs(challenger) != null) runs(challenger).save(out)
    out.writeBoolean(begun)
    out.writeInt(kept)
    (Seq(startedAt, exactFrom, comparedFrom) ++ cost ++ peak ++ Seq(measured, raced, untilRace)).foreach(out.writeLong)
  }

  def load(in: DataInput): Unit = {
    leader = in.readByte()
    runs(leader) = newRun(ChainPath.all(leader))
    runs(leader).load(in)
    runs(challenger) = if (in.readBoolean()) newRun(ChainPath.all(challenger)) else null
    if (runs(challenger) != null) runs(challenger).load(in)
    begun = in.readBoolean()
    kept = in.readInt()
    startedAt = in.readLong(); exactFrom = in.readLong(); comparedFrom = in.readLong()
    cost.indices.foreach(cost(_) = in.readLong())
    peak.indices.foreach(peak(_) = in.readLong())
    measured = in.readLong(); raced = in.readLong(); untilRace = in.readLong()
  }

  /** The leader's matches while a race is on, counted on their way to the sink. */
  private object Counting extends MatchSink {
    private var sink: MatchSink = _
    var accepted = 0L
    def to(sink: MatchSink): MatchSink = { this.sink = sink; accepted = 0; this }
    def accept(start: Long, size: Int, positions: Array[Long], labels: Array[Int]): Boolean = {
      accepted += 1
      sink.accept(start, size, positions, labels)
    }
  }

  /** The challenger's matches: found, since that is the work being measured, and dropped. */
  private object Discard extends MatchSink {
    def accept(start: Long, size: Int, positions: Array[Long], labels: Array[Int]): Boolean = true
  }
}
