package io.sparkcer.engine.eval

/**
 * What one evaluation may hold, each bound with the setting its user raises it with (a conf, a flag), which the
 * error names; past either, the evaluation fails, saying what to write instead, before memory is exhausted.
 *
 *  - `perEvent`: the most matches one event may complete. Under ALL every combination of earlier events the pattern
 *    can pick is a match, exponentially many under an iteration without a window (`(A AS a)+` over n events:
 *    2^(n-1) at the n-th), and the matches of one event are enumerated together, before the next event is read.
 *  - `nodes`: the most tECS nodes the partial matches of one partition may hold. The tECS keeps a node per run and
 *    event of the window; conditions keep runs apart by the values they read (one run per distinct value of
 *    `sum(s.volume)`, which over `(SELL AS s)+` takes a value per subset of the window's SELLs), so the runs may
 *    be exponentially many long before a match completes and `perEvent` is reached.
 */
final case class MatchBound(perEvent: Long, setting: String, nodes: Int = MatchBound.DefaultNodes,
    nodesSetting: String = MatchBound.DefaultNodesSetting) {
  require(perEvent >= 1, s"$setting must be at least 1, not $perEvent")
  require(nodes >= 1, s"$nodesSetting must be at least 1, not $nodes")
}

object MatchBound {
  /**
   * Above what real workloads reach: on the stock trace CORE's Q5 completes up to about 416,000 matches at one
   * event, Q4 486,000 and Q7 919,000 (without LIMIT); at the bound, `(A AS a)+` holds about 200 MB of matches.
   */
  val DefaultPerEvent = 1000000L
  /**
   * 4,194,304 nodes of 38 bytes, 160 MB: 30 times the most any query under sql/stocks holds on the stock trace
   * (135,414, c_rising); a power of two, so that the node arrays, which double, stop at it.
   */
  val DefaultNodes: Int = 1 << 22
  private val DefaultNodesSetting = "nodes (MatchBound of LocalEngine.compile)"
  /** For the engine's own API, where the bound is an argument of [[io.sparkcer.engine.LocalEngine.compile]]. */
  val Default: MatchBound = MatchBound(DefaultPerEvent, "matchBound (LocalEngine.compile)")
}

/** One event completed more matches than its [[MatchBound]] allows, or a partition's partial matches held too much. */
final class TooManyMatchesException(message: String) extends RuntimeException(message)
