package io.sparkcer.spark

import org.apache.spark.sql.internal.SQLConf

/** The SQL confs of spark-cer (DESIGN §3): read per query, settable with `SET` or `spark.conf.set`. */
object CerConf {
  /** The column holding each row's event type. */
  val EventTypeColumn = "spark.cer.eventTypeColumn"
  val DefaultEventTypeColumn = "event_type"
  /** The stream order when a query has neither ORDER BY nor `WITHIN n [column]`. */
  val TimeColumn = "spark.cer.timeColumn"

  /** Whether a windowed query without PARTITION BY runs in parallel on ranges of the order column ([[RangeSplit]]). */
  val RangeSplitEnabled = "spark.cer.rangeSplit.enabled"
  /** The length of such a range, in windows: each range also reads one window before it. */
  val RangeSplitWindowsPerRange = "spark.cer.rangeSplit.windowsPerRange"
  /**
   * How many tasks share the ranges; by default one per core (Spark's default parallelism): the ranges are many
   * and small, and a shuffle into `spark.sql.shuffle.partitions` mostly empty partitions costs more than it gives.
   */
  val RangeSplitPartitions = "spark.cer.rangeSplit.partitions"

  def eventTypeColumn(conf: SQLConf): String = conf.getConfString(EventTypeColumn, DefaultEventTypeColumn)

  def timeColumn(conf: SQLConf): Option[String] =
    Option(conf.getConfString(TimeColumn, null)).map(_.trim).filter(_.nonEmpty)

  def rangeSplitEnabled(conf: SQLConf): Boolean = conf.getConfString(RangeSplitEnabled, "true").trim.toBoolean

  def rangeSplitPartitions(conf: SQLConf, defaultParallelism: => Int): Int =
    Option(conf.getConfString(RangeSplitPartitions, null)).map(_.trim.toInt).getOrElse(defaultParallelism).max(1)

  def rangeSplitWindowsPerRange(conf: SQLConf): Long = {
    val n = conf.getConfString(RangeSplitWindowsPerRange, "32").trim.toLong
    require(n >= 1, s"$RangeSplitWindowsPerRange must be at least 1, not $n")
    n
  }
}
