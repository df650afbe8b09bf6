package io.sparkcer.spark

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.execution.streaming.FileSystemBasedCheckpointFileManager

/**
 * The local sessions the Spark suites run on: two cores, spark-cer's extension, no UI, times in UTC. Every suite of
 * the test JVM shares one SparkContext (starting one takes seconds, a session on it nothing) and gets a session of
 * its own on it, with its own confs, temporary views and functions; the context ends with the JVM.
 *
 * Streams write their checkpoints through Hadoop's FileSystem API rather than its FileContext, Spark's default:
 * without Hadoop's native library, the local file system starts a `readlink` process for each rename FileContext
 * makes, two of every three processes the streaming suites started (54,614 of them), for a sixth of their CPU time.
 */
object LocalSpark {
  private lazy val context: SparkSession = SparkSession.builder()
    .master("local[2]")
    .config("spark.sql.extensions", classOf[CerSparkSessionExtensions].getName)
    .config("spark.ui.enabled", "false")
    .config("spark.sql.session.timeZone", "UTC")
    .config("spark.sql.streaming.checkpointFileManagerClass", classOf[FileSystemBasedCheckpointFileManager].getName)
    .getOrCreate()

  /** A new session with these SQL confs; active from here on, as `getOrCreate()` makes the session it returns. */
  def session(confs: (String, String)*): SparkSession = {
    val session = context.newSession()
    confs.foreach { case (key, value) => session.conf.set(key, value) }
    SparkSession.setActiveSession(session)
    SparkSession.setDefaultSession(session)
    session
  }

  /** The session the streaming suites run on: `transformWithState` needs the RocksDB state store. */
  def streamingSession(): SparkSession = session(
    "spark.sql.shuffle.partitions" -> "2",
    "spark.sql.streaming.stateStore.providerClass" ->
      "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider"
  )
}
