package io.sparkcer.spark.kafka

import org.apache.spark.sql.types.{BinaryType, IntegerType, StringType, StructType}
import org.scalatest.funsuite.AnyFunSuite

/**
 * The `kafka-exactly-once` sink's options and columns: what it requires, what it sets itself, and the messages a user
 * reads when something is missing. Writing to a broker is tests/test_kafka.py's part.
 */
class KafkaSinkOptionsSuite extends AnyFunSuite {
  private val complete = Map("kafka.bootstrap.servers" -> "localhost:9092", "topic" -> "matches",
    "kafka.transactional.id" -> "fraud-alerts", "kafka.security.protocol" -> "PLAINTEXT")

  private def refused(parameters: Map[String, String]): String =
    intercept[IllegalArgumentException](KafkaSinkOptions(parameters)).getMessage

  test("the topic, the servers and the transactional id are required, each named when missing") {
    val options = KafkaSinkOptions(complete)
    assert(options.topic == "matches" && options.transactionalId == "fraud-alerts")
    assert(options.progressGroup == "spark-cer-sink.fraud-alerts")
    assert(refused(complete - "topic").contains("needs the option topic"))
    assert(refused(complete - "kafka.bootstrap.servers").contains("needs the option kafka.bootstrap.servers"))
    assert(
      refused(complete + ("kafka.transactional.id" -> " ")).contains(
        "needs the option kafka.transactional.id: a name for this query, the same across its restarts"))
  }

  test("serializers and idempotence are the sink's own; the admin client gets only what it knows") {
    assert(
      refused(complete + ("kafka.value.serializer" -> "x")).contains(
        "sets kafka.value.serializer itself: leave it out"))
    val producer = KafkaSinkOptions(complete).producerConfig
    assert(producer.get("enable.idempotence") == "true" && producer.get("transactional.id") == "fraud-alerts")
    val bytes = classOf[org.apache.kafka.common.serialization.ByteArraySerializer].getName
    assert(producer.get("value.serializer") == bytes && producer.get("key.serializer") == bytes)
    val admin = KafkaSinkOptions(complete).adminConfig
    assert(admin.get("bootstrap.servers") == "localhost:9092" && admin.get("security.protocol") == "PLAINTEXT")
    assert(!admin.containsKey("transactional.id"))
  }

  test("rows are a value and an optional key, strings or bytes; anything else says what to select") {
    val both = KafkaRecords(new StructType().add("key", StringType).add("VALUE", BinaryType))
    assert(both.key.isDefined)
    assert(KafkaRecords(new StructType().add("value", StringType)).key.isEmpty)
    def message(schema: StructType) = intercept[IllegalArgumentException](KafkaRecords(schema)).getMessage
    assert(message(new StructType().add("value", StringType).add("name", StringType).add("n", IntegerType))
        .contains("the rows also have `name`, `n`: select a value, for example to_json(struct(*)) AS value"))
    assert(message(new StructType().add("key", StringType)).contains("a column `value`, which the rows do not have"))
    assert(message(new StructType().add("value", IntegerType)).contains("`value` as a string or bytes, and it is int"))
  }
}
