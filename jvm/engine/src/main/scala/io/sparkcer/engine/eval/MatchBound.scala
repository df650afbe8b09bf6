package io.sparkcer.engine.eval

/**
 * The most matches one event may complete, and the setting its user raises it with (a conf, a flag), which the
 * error names. Under ALL every combination of earlier events the pattern can pick is a match, exponentially many
 * under an iteration without a window (`(A AS a)+` over n events: 2^(n-1) at the n-th), and the matches of one
 * event are enumerated together, before the next event is read: past the bound the evaluation fails, before
 * they exhaust memory.
 */
final case class MatchBound(perEvent: Long, setting: String) {
  require(perEvent >= 1, s"$setting must be at least 1, not $perEvent")
}

object MatchBound {
  /**
   * Above what real workloads reach: on the stock trace CORE's Q5 completes up to about 416,000 matches at one
   * event, Q4 486,000 and Q7 919,000 (without LIMIT); at the bound, `(A AS a)+` holds about 200 MB of matches.
   */
  val DefaultPerEvent = 1000000L
  /** For the engine's own API (`LocalEngine`), whose option `EngineOptions.matchBound` sets the bound. */
  val Default: MatchBound = MatchBound(DefaultPerEvent, "EngineOptions.matchBound")
}

/** One event completed more matches than its [[MatchBound]] allows. */
final class TooManyMatchesException(message: String) extends RuntimeException(message)
