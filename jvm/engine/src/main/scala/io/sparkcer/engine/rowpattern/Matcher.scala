package io.sparkcer.engine.rowpattern

import java.io.{DataInput, DataOutput}

import scala.collection.mutable

/**
 * Finds the preferred matches of a row pattern in one partition, SQL:2016's semantics (as Trino evaluates them),
 * in one pass over the rows and in time linear in them for a pattern of a given size.
 *
 * **Preferred match.** From each row where the search tries a match, the preferred one is the first in the order of
 * preference (left alternatives first, greedy quantifiers longest first, reluctant shortest first). The matcher runs
 * the program's threads in that order, Pike's way: a thread is an instruction and the labels read so far; all threads
 * advance one row together; when one reaches Done, it is the best match so far of its start and the threads behind it
 * of that start are dropped, while those before it run on and may find a better one. A start is decided when none of
 * its threads is left.
 *
 * **Equivalent threads.** Two threads at the same instruction whose matches look the same to the DEFINE conditions
 * accept the same rows from there on, so only the first (preferred) is kept ([[ThreadEquivalence]]).
 *
 * **Every start at once.** Rather than trying one start at a time, and reading the rows after a failed start again
 * for the next (quadratic on long runs that never match), a thread starts at every row, behind the older ones, and
 * the outcomes are taken in order of start as AFTER MATCH SKIP dictates. Under SKIP PAST LAST ROW a later start's
 * thread that has read a row is dropped for an equivalent one of the start being tried (when the conditions do not
 * read the match's start): if that one fails, so would the later one; if it matches, the match reaches at least the
 * row before the one both stand at, so it covers the later start, which is skipped. Only the start being tried
 * stands for others: an intermediate start may itself be skipped. Not a thread that has read no row yet either (a
 * match that ends right there would not cover it), nor under a window (the later start may still read rows that the
 * earlier may not).
 *
 * **Followers.** Under the other skips every start's own match is reported, so no start stands for another; but when
 * the conditions read nothing of the match and there is no window, a later start whose threads are the tried start's
 * (the same instructions in the same order) has the same future: it follows the tried start, its leader, and holds
 * no thread of its own, only its labels so far. Its match is its leader's from there on, after its own labels, if the
 * leader finds a match after that point; otherwise the best it had. So `A+` under SKIP TO NEXT ROW, where each match
 * is a suffix of the one before, holds one thread and one history, not a history per start.
 *
 * **Deferred starts.** Where no thread stands for another (conditions that read the match, as `B AS price >= A.price
 * AND avg(B.price) >= 10`), a long run of rows that keeps every start alive holds a history per start: work per row
 * and memory grow with the run. Once those histories hold more than `deferAbove` rows besides the tried start's, the
 * later starts are deferred: their threads are dropped and only the tried start runs on. If its match covers them
 * (under SKIP PAST LAST ROW a match reaches at least the row it stands at), they are skipped without ever being read
 * again, so one long match costs what its rows do; otherwise the search goes back to the next start not decided and
 * reads the rows after it again, all starts at once as before. Rows read again are counted against `bound`: past it
 * the query fails, saying what to write (a run that keeps every start alive and matches none, `A B+ C` where no C
 * comes, is quadratic however it is searched).
 *
 * **One start at a time.** Where the conditions read MATCH_NUMBER() ([[ConditionReads.number]]), a start's number
 * is known only once every start before it is decided, so every later start is deferred as it comes: the search is
 * the standard's own, one start after another, reading the rows after a failed start again for the next.
 *
 * @param conditions the DEFINE conditions, and what they read of a match
 * @param window the longest span of a match (WITHIN): the order value of each position, and the bound that a
 *               match's last row's value minus its first's must stay under
 * @param bound      the most rows read again for deferred starts ([[PartialMatchBound]])
 * @param deferAbove the most rows the undecided starts but the oldest may hold before the later ones are deferred
 */
final class Matcher[S](pattern: AnalyzedRowPattern, conditions: LabelEvaluator[_, S], sink: RowPatternSink,
    window: Option[(Long => Long, Long)] = None, bound: PartialMatchBound = PartialMatchBound.Default,
    deferAbove: Long = Matcher.DeferAbove) {
  import Program._

  private val program = pattern.program
  private val skip = pattern.clause.skip
  private val withUnmatched = pattern.clause.rowsPerMatch == RowsPerMatch.AllWithUnmatched
  private val defined = pattern.defined.toArray
  private val reads = conditions.reads
  private val perRow = Array.tabulate(pattern.labels.length)(l => defined(l) && conditions.perRow(l))
  /**
   * Whether threads of different starts may stand for each other (see the class comment): not under a window, where
   * the later start has longer to go.
   */
  private val acrossStarts = skip == SkipTo.PastLastRow && reads.none && window.isEmpty
  /** Whether a later start may follow the tried start (see the class comment): where none stands for another. */
  private val following = skip != SkipTo.PastLastRow && reads.none && window.isEmpty
  private val excludedAt = program.excluded

  private var current = new Threads[S]
  private var next = new Threads[S]
  /** The threads added at the current position, by key, each once up to equivalence. */
  private val seen = ThreadEquivalence[S](reads, program, pattern.labels.length)
  /** The rows pushed so far. */
  private var pushed = 0L
  /** The next row the threads read: `pushed` but while deferred starts read rows again. */
  private var position = 0L
  /** The first start whose threads are deferred (see the class comment); Long.MaxValue when none is. */
  private var deferredFrom = Long.MaxValue
  /** The rows read again for deferred starts, counted against `bound`. */
  private var reread = 0L
  /** The start whose outcome comes next, and the outcomes of the starts from it on (index: start - attempt). */
  private var attempt = 0L
  private val outcomes = mutable.ArrayDeque.empty[StartOutcome[S]]
  private var matches = 0L
  /**
   * Under SKIP PAST LAST ROW, the end of the best match so far of the start being tried: the later starts before it
   * are skipped whatever match that start ends with (one it prefers can only end later), so their threads are cut
   * at once. Without it a condition that reads the match (`B AS price > A.price`) keeps a thread per row alive
   * through a long match, each reading its history: cubic in the match's length.
   */
  private var triedMatchEnd = 0L
  /** The last row of the matches reported so far (rows up to it are in a match). */
  private var covered = -1L
  /**
   * The closure passes, numbered: a start's threads after its Done in one pass are cut (`StartOutcome.cut` is that
   * pass's number), and a start is alive after a step when a thread of it is (`StartOutcome.alive`, the step's).
   */
  private var pass = 0L

  /** The oldest row a thread or an outcome still waiting to be reported may read. */
  def oldestNeeded: Long = attempt

  /** Instructions visited so far, a measure of the work done (for the tests that show it linear in the rows). */
  def work: Long = visits
  private var visits = 0L

  /** Reads the next row of the partition (its position is the number of rows pushed before it). */
  def push(): Unit = {
    outcomes += new StartOutcome[S]
    pushed += 1
    run()
  }

  /** Steps the threads through the rows pushed, deciding starts after each; deferred starts go back and read again. */
  private def run(): Unit = while (position < pushed) {
    step(position)
    position += 1
    swap()
    if (following) follow()
    decide()
  }

  /**
   * The threads read row `p`; a new start at p joins them, unless the starts after the tried one are deferred. Where
   * the conditions read MATCH_NUMBER(), every start after the tried one is deferred as it comes: its number depends
   * on whether the tried one matches.
   */
  private def step(p: Long): Unit = {
    if (p < deferredFrom && reads.number && p > attempt) deferredFrom = p
    if (p < deferredFrom) {
      // A new start at p, behind every older thread; it shares the set of threads at p that the last step made.
      pass += 1
      closure(0, p, null, p, atEnd = false, current)
    }
    seen.clear()
    pass += 1
    var k = 0
    while (k < current.size) {
      val pc = current.pcs(k)
      val start = current.starts(k)
      if (!cut(start) && program.opcodes(pc) == MatchLabel && inWindow(start, p)) {
        val label = program.a(pc)
        if (!defined(label) || (perRow(label) && conditions.holdsAtRow(start, label, p)))
          closure(pc + 1, start, read(pc, current.histories(k)), p + 1, atEnd = false, next)
        else if (!perRow(label)) {
          val row = read(pc, current.histories(k))
          // The number of the match tried: where the conditions read MATCH_NUMBER(), the only start whose threads run.
          if (conditions.holds(start, row, matches + 1)) closure(pc + 1, start, row, p + 1, atEnd = false, next)
        }
      }
      k += 1
    }
  }

  /** A thread's history after it reads a row at instruction `pc` (a MatchLabel). */
  private def read(pc: Int, history: LabelNode[S]): LabelNode[S] = {
    val label = program.a(pc)
    new LabelNode(label, excludedAt(pc), history, if (history == null) 1 else history.length + 1,
      seen.hash(if (history == null) 0L else history.hash, label))
  }

  /**
   * The partition ends: threads waiting for its end go on, then every start is decided; deferred starts read their
   * rows again first, and end the same way.
   */
  def finish(): Unit = {
    do {
      run()
      seen.clear()
      pass += 1
      var k = 0
      while (k < current.size) {
        val (pc, start) = (current.pcs(k), current.starts(k))
        if (!cut(start) && program.opcodes(pc) == PartitionEnd)
          closure(pc + 1, start, current.histories(k), position, atEnd = true, next)
        k += 1
      }
      swap()
      current.clear() // at the end nothing reads another row
      decide()
    } while (position < pushed)
    require(outcomes.isEmpty, "every start is decided at the end of the partition")
  }

  /**
   * On a stream: no row whose order value is below `now` can come any more. The threads that only such a row could
   * extend within the window are over, and the starts they held are decided, as at the end of a partition. Without a
   * window nothing expires: a thread waits for the next row, however late.
   */
  def expire(now: Long): Unit = window.foreach { case (time, span) =>
    var again = true
    while (again) {
      current.retain(start => now - time(start) < span)
      decide()
      again = position < pushed // deferred starts read their rows again, and may end by the window too
      run()
    }
  }

  /** Whether no start is undecided: what the matcher carries to the next row is its counters alone. */
  def idle: Boolean = current.size == 0 && outcomes.isEmpty

  /** The order value from which [[expire]] ends the oldest undecided start's threads; None when none is waiting. */
  def expiresAt: Option[Long] = window.collect { case (time, span) if current.size > 0 => time(attempt) + span }

  /**
   * Writes what the matcher carries from one row to the next (a stream keeps it between micro-batches): the counters,
   * the undecided starts' outcomes and the threads, their label histories each node once ([[LabelHistories]]).
   */
  def save(out: DataOutput): Unit = {
    Seq(pushed, attempt, matches, covered, triedMatchEnd, deferredFrom, reread).foreach(out.writeLong)
    StartOutcome.save(outcomes.toSeq, current, histories, out)
  }

  /** Makes this fresh matcher (of the same clause) the one [[save]] wrote. */
  def load(in: DataInput): Unit = {
    require(pushed == 0 && outcomes.isEmpty && current.size == 0, "a matcher is loaded when fresh")
    pushed = in.readLong(); attempt = in.readLong(); matches = in.readLong(); covered = in.readLong()
    triedMatchEnd = in.readLong(); deferredFrom = in.readLong(); reread = in.readLong()
    position = pushed
    outcomes ++= StartOutcome.load(in, histories, current)
  }

  private val histories = new LabelHistories[S](seen.hash)

  private def swap(): Unit = {
    val t = current; current = next; next = t
    next.clear()
  }

  private def cut(start: Long): Boolean =
    start < attempt || (start > attempt && start < triedMatchEnd) || outcomes((start - attempt).toInt).cut == pass

  // Read at every thread and row: plain fields rather than the Option.
  private val timeOf: Long => Long = window.map(_._1).orNull
  private val longestSpan = window.fold(0L)(_._2)
  private def inWindow(start: Long, p: Long): Boolean = timeOf == null || timeOf(p) - timeOf(start) < longestSpan

  /**
   * Adds the threads that instruction `pc` leads to without reading a row ([[Program.closure]], in order of
   * preference) to `into`; they stand at position `at`. A thread equivalent to one already there is dropped; Done
   * records a match and cuts the threads of its start that come after it. Only the instructions that read a row or
   * end the match are visited, as a depth-first walk marking every instruction would find them: one that reaches an
   * instruction of its start's already marked reaches nothing new through it.
   */
  private def closure(pc0: Int, start: Long, history: LabelNode[S], at: Long, atEnd: Boolean, into: Threads[S])
      : Unit = {
    val outcome = outcomes((start - attempt).toInt)
    val key = if (acrossStarts && start == attempt) -1L - start else start
    val reached = program.closure(pc0, atStart = at == 0, atEnd)
    var k = 0
    while (k < reached.length && outcome.cut != pass) {
      val pc = reached(k)
      visits += 1
      if (program.opcodes(pc) == Done) {
        // Not among the equivalent threads: a match ends here, and an earlier start's match ending here does not
        // cover this start.
        outcome.matched = true
        outcome.end = at
        outcome.history = history
        outcome.updates += 1
        outcome.cut = pass
        if (skip == SkipTo.PastLastRow && start == attempt) triedMatchEnd = math.max(triedMatchEnd, at)
      } else if (!standsFor(pc, start, at) && seen.add(pc, key, history)) into.add(pc, start, history)
      k += 1
    }
  }

  /**
   * Whether a thread of the start being tried at instruction `pc` stands for this thread of a later start (see the
   * class comment). The tried start's threads are keyed `-1 - start`: when the start being tried changes between the
   * two passes that share a position's keys, those of the one before stand for nothing any more.
   */
  private def standsFor(pc: Int, start: Long, at: Long): Boolean =
    acrossStarts && start != attempt && start < at && seen.contains(pc, -1L - attempt)

  /**
   * The later starts whose threads are the tried start's, instruction for instruction, follow it from here (see the
   * class comment): they keep their labels so far and drop their threads. Threads run oldest start first, so each
   * start's are together; a follower's threads have one history, its labels so far.
   */
  private def follow(): Unit = if (current.size > 0 && current.starts(0) == attempt) {
    val leader = outcomes.head
    var n = 1
    while (n < current.size && current.starts(n) == attempt) n += 1
    var k = n
    var followers = false
    while (k < current.size) {
      val start = current.starts(k)
      var same = true
      var i = 0
      while (k + i < current.size && current.starts(k + i) == start) {
        same &&= i < n && current.pcs(k + i) == current.pcs(i) && (current.histories(k + i) eq current.histories(k))
        i += 1
      }
      if (same && i == n) {
        val o = outcomes((start - attempt).toInt)
        o.leader = leader; o.leaderUpdates = leader.updates; o.from = position; o.prefix = current.histories(k)
        followers = true
      }
      k += i
    }
    if (followers) current.retain(start => outcomes((start - attempt).toInt).leader == null)
  }

  /**
   * The starts whose threads are all gone are decided; the outcomes are reported in order while the next is known.
   * Past `deferAbove` rows held, the starts after the oldest are deferred; when the next start to try is deferred,
   * the threads go back to it (see the class comment).
   */
  private def decide(): Unit = {
    pass += 1
    var k = 0
    var held = 0L // the rows since each start alive but the oldest (threads run oldest start first)
    while (k < current.size) {
      val start = current.starts(k)
      val o = outcomes((start - attempt).toInt)
      if (o.alive != pass && k > 0) held += position - start
      o.alive = pass
      k += 1
    }
    if (held > deferAbove) defer(current.starts(0) + 1)
    // A start at or past `position` has not begun (the threads read rows again for deferred starts), nor a deferred one.
    while (outcomes.nonEmpty && attempt < math.min(deferredFrom, position) && outcomes.head.alive != pass) {
      val o = outcomes.removeHead()
      if (o.borrowed) { o.matched = true; o.end = o.leader.end }
      val start = attempt
      attempt += 1
      if (o.matched) report(start, o) else if (withUnmatched && start > covered) sink.unmatched(start)
    }
    if (attempt >= deferredFrom) goBack()
  }

  /** Drops the threads of the starts from `from` on, which will read their rows again unless a match covers them. */
  private def defer(from: Long): Unit = {
    current.retain(_ < from)
    for (start <- from until math.min(deferredFrom, position)) outcomes((start - attempt).toInt) = new StartOutcome[S]
    deferredFrom = math.min(deferredFrom, from)
  }

  /** The next start to try was deferred: the threads read the rows from it on again, every start at once. */
  private def goBack(): Unit = {
    reread += position - attempt
    if (reread > bound.rows) throw bound.exceeded(reread, position, attempt, apart, window.nonEmpty)
    position = attempt
    deferredFrom = Long.MaxValue
    seen.clear() // what the last step added stood at another row
  }

  /** Why no start stands for another here, for the error past `bound`. */
  private def apart: String =
    if (reads.number)
      "the DEFINE conditions read MATCH_NUMBER(), which a start has only once the one before it is decided"
    else if (!reads.none) "the DEFINE conditions read other rows of their match (navigation through a variable, " +
      "aggregates, CLASSIFIER)"
    else if (window.nonEmpty) "WITHIN gives each its own span, which ends at a different row"
    else "they stand at different places of the pattern (a bounded repetition counts each one's rows apart)"

  private var matchLabels = new Array[Int](16)
  private var matchExcluded = new Array[Boolean](16)

  /** Reports the match of `start` and moves the search to where AFTER MATCH SKIP says. */
  private def report(start: Long, o: StartOutcome[S]): Unit = {
    val length = (o.end - start).toInt
    if (matchLabels.length < length) {
      matchLabels = new Array[Int](length * 2); matchExcluded = new Array[Boolean](length * 2)
    }
    o.labelsInto(start, length, matchLabels, matchExcluded)
    matches += 1
    sink.matched(matches, start, length, matchLabels, matchExcluded)
    if (length > 0) covered = math.max(covered, start + length - 1)
    skipTo(AfterMatchSkip.resume(pattern, matches, start, length, matchLabels))
  }

  /** The search goes on at `resume`: the outcomes and threads of the starts before it are dropped. */
  private def skipTo(resume: Long): Unit = {
    while (attempt < resume && outcomes.nonEmpty) { outcomes.removeHead(); attempt += 1 }
    attempt = math.max(attempt, resume)
    current.retain(_ >= attempt)
  }
}

object Matcher {
  /** The rows the undecided starts but the oldest hold before the later ones are deferred: about 4 MB of histories. */
  val DeferAbove = 100000L
}
