package io.sparkcer.spark.common

import org.apache.spark.sql.SparkSession
import org.scalatest.funsuite.AnyFunSuite

import io.sparkcer.spark.LocalSpark

/** spark-cer's confs are Spark confs: typed, documented, with their defaults, checked when set. */
class CerConfSuite extends AnyFunSuite {

  private lazy val spark: SparkSession = LocalSpark.session()

  private val keys = Seq(
    "spark.cer.eventTypeColumn",
    "spark.cer.timeColumn",
    "spark.cer.rangeSplit.enabled",
    "spark.cer.rangeSplit.windowsPerRange",
    "spark.cer.rangeSplit.partitions",
    "spark.cer.maxMatchesPerEvent",
    "spark.cer.maxPartialMatchNodes"
  )

  test("SET -v lists every conf with its default, its documentation and its version") {
    val listed = spark.sql("SET -v").collect().map(r => r.getString(0) -> r).toMap
    for (key <- keys) {
      val row = listed.getOrElse(key, fail(s"SET -v does not list $key"))
      assert(row.getString(2).length > 40, s"$key: documentation '${row.getString(2)}'")
      assert(row.getString(3) == "0.1.0")
    }
    assert(listed("spark.cer.eventTypeColumn").getString(1) == "event_type")
    assert(listed("spark.cer.rangeSplit.windowsPerRange").getString(1) == "32")
    assert(listed("spark.cer.rangeSplit.partitions").getString(1) == "<undefined>")
  }

  test("defaults are read through spark.conf, and a typed value is checked when it is set") {
    assert(spark.conf.get("spark.cer.rangeSplit.enabled") == "true")
    val notANumber = intercept[IllegalArgumentException](spark.conf.set("spark.cer.rangeSplit.windowsPerRange", "many"))
    assert(notANumber.getMessage.contains("spark.cer.rangeSplit.windowsPerRange should be long"), notANumber.getMessage)
    val zero = intercept[IllegalArgumentException](spark.conf.set("spark.cer.rangeSplit.partitions", "0"))
    assert(zero.getMessage.contains("must be at least 1"), zero.getMessage)
    assert(spark.conf.getOption("spark.cer.rangeSplit.partitions").isEmpty)
  }

  test("a blank time column is no time column") {
    spark.conf.set("spark.cer.timeColumn", "  ")
    try assert(CerConf.timeColumn(spark.sessionState.conf).isEmpty)
    finally spark.conf.unset("spark.cer.timeColumn")
  }

  test("a duration is read in Spark's spellings, as the README writes it, and checked when set") {
    val key = CerConf.STREAM_PARTITION_IDLE_TIMEOUT.key
    try {
      for ((written, millis) <- Seq("30 minutes" -> 1800000L, "INTERVAL 1 HOUR 30 MINUTES" -> 5400000L,
          "30min" -> 1800000L, "90s" -> 90000L, "1 day" -> 86400000L)) {
        spark.conf.set(key, written)
        assert(CerConf.streamPartitionIdleTimeoutMillis(spark.sessionState.conf).contains(millis), written)
      }
      for (wrong <- Seq("soon", "1 month", "0 seconds", "-5 minutes")) {
        val e = intercept[IllegalArgumentException](spark.conf.set(key, wrong))
        assert(e.getMessage.contains(s"'$wrong' in $key is invalid") && e.getMessage.contains("'30 minutes'"),
          e.getMessage)
      }
    } finally spark.conf.unset(key)
  }
}
