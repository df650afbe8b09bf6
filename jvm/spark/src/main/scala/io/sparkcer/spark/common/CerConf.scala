package io.sparkcer.spark.common

import scala.util.Try

import org.apache.spark.network.util.JavaUtils
import org.apache.spark.sql.catalyst.util.{DateTimeConstants, IntervalUtils}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.unsafe.types.UTF8String

import io.sparkcer.engine.eval.MatchBound
import io.sparkcer.engine.rowpattern.PartialMatchBound

/**
 * The SQL confs of spark-cer, declared as Spark declares its own: typed, documented, checked when set,
 * listed by `SET -v`. Read per query; settable with `SET` or `spark.conf.set`.
 */
object CerConf {
  private val Since = "0.1.0"

  val EVENT_TYPE_COLUMN = SQLConf.buildConf("spark.cer.eventTypeColumn")
    .doc("The column holding each row's event type, for queries that do not name one (the type_column " +
      "argument of cer, or type_column= of DataFrame.cer).")
    .version(Since)
    .stringConf
    .createWithDefault("event_type")

  /** The key of [[EVENT_TYPE_COLUMN]], as error messages name it. */
  val EventTypeColumn: String = EVENT_TYPE_COLUMN.key

  val TIME_COLUMN = SQLConf.buildConf("spark.cer.timeColumn")
    .doc("The stream order of a query that has neither ORDER BY nor WITHIN n [column]; unset (or blank), such " +
      "a query is refused.")
    .version(Since)
    .stringConf
    .transform(_.trim)
    .createOptional

  val RANGE_SPLIT_ENABLED = SQLConf.buildConf("spark.cer.rangeSplit.enabled")
    .doc("Whether a windowed query without PARTITION BY runs in parallel on ranges of its order column (EXPLAIN " +
      "shows CerMatch in ranges of ...); the result is the single-task result either way.")
    .version(Since)
    .booleanConf
    .createWithDefault(true)

  val RANGE_SPLIT_WINDOWS_PER_RANGE = SQLConf.buildConf("spark.cer.rangeSplit.windowsPerRange")
    .doc("The longest a range of the split stream may be, in windows; each range also reads the window before it. " +
      "A stream shorter than two such ranges per task is cut into two ranges per task.")
    .version(Since)
    .longConf
    .checkValue(_ >= 1, "must be at least 1")
    .createWithDefault(32)

  /**
   * By default one task per core (Spark's default parallelism): the ranges are many and small, and a shuffle into
   * `spark.sql.shuffle.partitions` mostly empty partitions costs more than it gives.
   */
  val RANGE_SPLIT_PARTITIONS = SQLConf.buildConf("spark.cer.rangeSplit.partitions")
    .doc("How many tasks share the ranges of a split stream; by default one per core (spark.default.parallelism).")
    .version(Since)
    .intConf
    .checkValue(_ >= 1, "must be at least 1")
    .createOptional

  val PCEA_ENABLED = SQLConf.buildConf("spark.cer.pcea.enabled")
    .doc("Whether a pattern related by equalities (a.acct = b.src) runs on a parallelized complex event automaton, " +
      "which joins each event with the runs it extends by one hash lookup (EXPLAIN names it, or says why a pattern " +
      "cannot); off, equalities are conditions as any other. The matches are the same either way.")
    .version(Since)
    .booleanConf
    .createWithDefault(true)

  val MAX_MATCHES_PER_EVENT = SQLConf.buildConf("spark.cer.maxMatchesPerEvent")
    .doc("The most matches one event may complete: past it the query fails, saying what to write instead. Under " +
      "SELECT ALL each combination of earlier events the pattern can pick is a match (exponentially many under an " +
      "iteration + without a window), and the matches of one event are held in memory together; a window " +
      "(WITHIN), SELECT LAST or MAX, or LIMIT n bound them.")
    .version(Since)
    .longConf
    .checkValue(_ >= 1, "must be at least 1")
    .createWithDefault(MatchBound.DefaultPerEvent)

  val MAX_PARTIAL_MATCH_NODES = SQLConf.buildConf("spark.cer.maxPartialMatchNodes")
    .doc("CEQL: the most tECS nodes the partial matches of one partition may hold (a node per run and event of the " +
      "window): past it the query fails, saying what to write instead, rather than run out of memory. Conditions keep " +
      "runs apart by the values they read: an aggregate over a repeating variable (sum(s.volume) over (SELL AS s)+) " +
      "takes a value per subset of the window's events, exponentially many before any match completes. A shorter " +
      "window, PARTITION BY, or consecutive events (':+') bound them.")
    .version(Since)
    .intConf
    .checkValue(_ >= 1, "must be at least 1")
    .createWithDefault(MatchBound.DefaultNodes)

  val STREAM_PARTITION_IDLE_TIMEOUT = SQLConf.buildConf("spark.cer.streaming.partitionIdleTimeout")
    .doc("MATCH_RECOGNIZE on a stream: a partition (a PARTITION BY key) whose rows stop for longer than this, in " +
      "event time, ends there, as a table's partition ends: its matches are decided (NEXT reads NULL past its last " +
      "row) and its state leaves the state store; the key's next row starts a new partition (PREV reads no row " +
      "before it, MATCH_NUMBER counts from 1). Unset, a stream's partitions never end, and a key whose query reads " +
      "rows before its matches (PREV), counts them (MATCH_NUMBER) or anchors them (^) keeps that state for ever.")
    .version(Since)
    .stringConf
    .checkValue(
      durationMillis(_).exists(_ > 0),
      "It must be a positive duration, written as Spark writes intervals " +
        "(withWatermark's delay), e.g. '30 minutes', '1 hour 30 minutes', or as its time confs, e.g. '30min', '90s'"
    )
    .createOptional

  val MAX_PARTIAL_MATCH_ROWS = SQLConf.buildConf("spark.cer.matchRecognize.maxPartialMatchRows")
    .doc("MATCH_RECOGNIZE: the most rows of a partition read again for matches tried later. A match is tried from " +
      "every row; when DEFINE conditions read other rows of the match (A.price, aggregates), each start that stays " +
      "undecided holds its own labels, so past 100,000 such rows the later starts wait for the first one's outcome, " +
      "and read their rows again only if its match does not cover them (where DEFINE reads MATCH_NUMBER(), they " +
      "always wait: a start's number depends on the outcome of the one before). A run of rows that keeps every start alive " +
      "and matches none reads its rows again for each start, quadratic in its length: past this the query fails, " +
      "saying what to write, rather than run for hours.")
    .version(Since)
    .longConf
    .checkValue(_ >= 1, "must be at least 1")
    .createWithDefault(PartialMatchBound.DefaultRows)

  def eventTypeColumn(conf: SQLConf): String = conf.getConf(EVENT_TYPE_COLUMN)

  def timeColumn(conf: SQLConf): Option[String] = conf.getConf(TIME_COLUMN).filter(_.nonEmpty)

  def rangeSplitPartitions(conf: SQLConf, defaultParallelism: => Int): Int =
    conf.getConf(RANGE_SPLIT_PARTITIONS).getOrElse(defaultParallelism.max(1))

  def pceaEnabled(conf: SQLConf): Boolean = conf.getConf(PCEA_ENABLED)

  def streamPartitionIdleTimeoutMillis(conf: SQLConf): Option[Long] =
    conf.getConf(STREAM_PARTITION_IDLE_TIMEOUT).flatMap(durationMillis)

  /**
   * A duration conf's milliseconds, in the spellings Spark reads durations in: its time confs' ('30min', '90s',
   * '500ms'; a bare number is milliseconds) and its intervals' ('30 minutes', 'INTERVAL 1 HOUR 30 MINUTES', as
   * `withWatermark` reads them). None when it is neither, or counts months, which are no fixed duration.
   */
  private def durationMillis(text: String): Option[Long] =
    Try(JavaUtils.timeStringAsMs(text.trim)).toOption.orElse {
      Try(IntervalUtils.stringToInterval(UTF8String.fromString(text))).toOption.filter(_.months == 0)
        .map(i => i.days * DateTimeConstants.MILLIS_PER_DAY + i.microseconds / DateTimeConstants.MICROS_PER_MILLIS)
    }

  /** The matcher's bound on the rows of MATCH_RECOGNIZE's partial matches, naming this conf as the way to raise it. */
  def partialMatchBound(conf: SQLConf): PartialMatchBound =
    PartialMatchBound(conf.getConf(MAX_PARTIAL_MATCH_ROWS), MAX_PARTIAL_MATCH_ROWS.key)

  /** The engine's bounds on the matches of one event and the partial matches of a partition, naming these confs. */
  def matchBound(conf: SQLConf): MatchBound = MatchBound(conf.getConf(MAX_MATCHES_PER_EVENT), MAX_MATCHES_PER_EVENT.key,
    conf.getConf(MAX_PARTIAL_MATCH_NODES), MAX_PARTIAL_MATCH_NODES.key)

  /**
   * Does nothing but load this object, which registers the confs with Spark: the extension calls it, so that
   * `SET -v` and `spark.conf.get` know them from the session's start, before a query reads one.
   */
  def register(): Unit = ()
}
