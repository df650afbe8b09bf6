package io.sparkcer.spark.kafka

import org.apache.spark.sql.SQLContext
import org.apache.spark.sql.execution.streaming.Sink
import org.apache.spark.sql.sources.{DataSourceRegister, StreamSinkProvider}
import org.apache.spark.sql.streaming.OutputMode

/**
 * The streaming sink `writeStream.format("kafka-exactly-once")`: each micro-batch's rows go to a Kafka topic in one
 * Kafka transaction, so that a reader with `isolation.level=read_committed` sees every row once, across failures and
 * restarts from the checkpoint ([[TransactionalKafkaSink]]). Spark's own `kafka` sink is at-least-once.
 *
 * Spark finds the class through `META-INF/services`, with every data source, in sessions that have no Kafka classes
 * at all: nothing here touches them before a sink is made.
 */
class KafkaExactlyOnceProvider extends StreamSinkProvider with DataSourceRegister {
  override def shortName(): String = KafkaExactlyOnceProvider.Name

  override def createSink(
      sqlContext: SQLContext,
      parameters: Map[String, String],
      partitionColumns: Seq[String],
      outputMode: OutputMode): Sink = {
    if (partitionColumns.nonEmpty)
      throw new IllegalArgumentException(
        s"the ${shortName()} sink writes to a topic: partitionBy has no meaning for it")
    KafkaExactlyOnceProvider.requireKafkaClients()
    new TransactionalKafkaSink(KafkaSinkOptions(parameters))
  }
}

object KafkaExactlyOnceProvider {
  val Name = "kafka-exactly-once"

  private def requireKafkaClients(): Unit =
    try Class.forName("org.apache.kafka.clients.producer.KafkaProducer", false, getClass.getClassLoader)
    catch {
      case _: ClassNotFoundException => throw new IllegalArgumentException(
          s"the $Name sink needs Kafka's client classes, which Spark's Kafka connector brings: start the session with " +
            "spark.jars.packages=org.apache.spark:spark-sql-kafka-0-10_2.13:<Spark's version> (or spark-submit's " +
            "--packages)")
    }
}
