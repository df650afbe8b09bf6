package io.sparkcer.spark

import org.apache.spark.sql.SparkSession

/** The local session the Spark suites run on: two cores, spark-cer's extension, no UI, times in UTC. */
object LocalSpark {
  def session(confs: (String, String)*): SparkSession = {
    val builder = SparkSession.builder()
      .master("local[2]")
      .config("spark.sql.extensions", classOf[CerSparkSessionExtensions].getName)
      .config("spark.ui.enabled", "false")
      .config("spark.sql.session.timeZone", "UTC")
    confs.foldLeft(builder) { case (b, (key, value)) => b.config(key, value) }.getOrCreate()
  }

  /** The session the streaming suites run on: `transformWithState` needs the RocksDB state store. */
  def streamingSession(): SparkSession = session(
    "spark.sql.shuffle.partitions" -> "2",
    "spark.sql.streaming.stateStore.providerClass" ->
      "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider")
}
