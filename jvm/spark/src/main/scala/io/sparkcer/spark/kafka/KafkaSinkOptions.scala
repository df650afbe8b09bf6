package io.sparkcer.spark.kafka

import java.util.Locale

import scala.jdk.CollectionConverters._

import org.apache.kafka.clients.admin.AdminClientConfig
import org.apache.kafka.clients.producer.ProducerConfig
import org.apache.kafka.common.serialization.ByteArraySerializer

/**
 * The options of the `kafka-exactly-once` sink, as Spark's Kafka sink takes them: `topic`, and Kafka's own settings
 * prefixed with `kafka.` (`kafka.bootstrap.servers`, security settings, ...), of which `kafka.transactional.id` is
 * required here. The transactional id names the query to Kafka: it must be the same across the query's restarts and
 * differ between queries (two writers with one id fence each other out).
 */
final case class KafkaSinkOptions(topic: String, transactionalId: String, kafka: Map[String, String]) {

  /** The consumer group whose committed offset is the sink's progress ([[TransactionalKafkaSink]]). */
  def progressGroup: String = s"spark-cer-sink.$transactionalId"

  def producerConfig: java.util.Map[String, Object] = (kafka ++ Map(
    ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG -> classOf[ByteArraySerializer].getName,
    ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG -> classOf[ByteArraySerializer].getName,
    ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG -> "true"
  )).toMap[String, Object].asJava

  /** The settings an admin client knows (servers, security), without the producer's, which it would warn about. */
  def adminConfig: java.util.Map[String, Object] =
    kafka.filter { case (k, _) => AdminClientConfig.configNames().contains(k) }.toMap[String, Object].asJava
}

object KafkaSinkOptions {
  private val Prefix = "kafka."
  // Set by the sink itself: it writes bytes, and a transaction needs idempotence.
  private val Fixed = Set(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
    ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG)

  def apply(parameters: Map[String, String]): KafkaSinkOptions = {
    val kafka = parameters.collect {
      case (k, v) if k.toLowerCase(Locale.ROOT).startsWith(Prefix) => k.drop(Prefix.length) -> v
    }
    def required(name: String, value: Option[String], what: String): String = value.filter(_.trim.nonEmpty)
      .getOrElse(
        throw new IllegalArgumentException(s"the ${KafkaExactlyOnceProvider.Name} sink needs the option " +
          s"$name: $what"))
    required(
      s"${Prefix}${ProducerConfig.BOOTSTRAP_SERVERS_CONFIG}",
      kafka.get(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG),
      "the brokers to write to, host:port[,host:port...]"
    )
    val fixed = kafka.keySet.intersect(Fixed)
    if (fixed.nonEmpty)
      throw new IllegalArgumentException(s"the ${KafkaExactlyOnceProvider.Name} sink sets " +
        fixed.toSeq.sorted.map(Prefix + _).mkString(", ") + " itself: leave it out")
    KafkaSinkOptions(
      topic = required("topic", parameters.get("topic"), "the topic the rows go to"),
      transactionalId = required(
        s"${Prefix}${ProducerConfig.TRANSACTIONAL_ID_CONFIG}",
        kafka.get(ProducerConfig.TRANSACTIONAL_ID_CONFIG),
        "a name for this query, the same across its restarts and unique among the queries writing to Kafka"
      ),
      kafka = kafka
    )
  }
}
