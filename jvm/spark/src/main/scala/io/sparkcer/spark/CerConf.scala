package io.sparkcer.spark

import org.apache.spark.sql.internal.SQLConf

/** The SQL confs of spark-cer (DESIGN §3): read per query, settable with `SET` or `spark.conf.set`. */
object CerConf {
  /** The column holding each row's event type. */
  val EventTypeColumn = "spark.cer.eventTypeColumn"
  val DefaultEventTypeColumn = "event_type"
  /** The stream order when a query has neither ORDER BY nor `WITHIN n [column]`. */
  val TimeColumn = "spark.cer.timeColumn"

  def eventTypeColumn(conf: SQLConf): String = conf.getConfString(EventTypeColumn, DefaultEventTypeColumn)

  def timeColumn(conf: SQLConf): Option[String] =
    Option(conf.getConfString(TimeColumn, null)).map(_.trim).filter(_.nonEmpty)
}
