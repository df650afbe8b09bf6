package io.sparkcer.spark.kafka

import java.util.concurrent.TimeUnit

import scala.jdk.CollectionConverters._
import scala.util.Using
import scala.util.control.NonFatal

import org.apache.kafka.clients.admin.{Admin, ListConsumerGroupOffsetsOptions, ListConsumerGroupOffsetsSpec}
import org.apache.kafka.clients.consumer.{ConsumerGroupMetadata, OffsetAndMetadata}
import org.apache.kafka.clients.producer.{KafkaProducer, ProducerRecord}
import org.apache.kafka.common.TopicPartition
import org.apache.kafka.common.errors.ProducerFencedException
import org.apache.spark.internal.Logging
import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.execution.streaming.{Sink, StreamExecution}

import io.sparkcer.spark.kafka.TransactionalKafkaSink.QueryPrefix

/**
 * Writes each micro-batch to a Kafka topic exactly once.
 *
 * Spark runs a batch again when a failure came between the batch's output and its commit in the checkpoint; a sink
 * that simply writes (Spark's Kafka sink) then writes the batch twice. Here each batch is one Kafka transaction of a
 * producer whose transactional id names the query, and the same transaction commits the batch's id, plus one, as
 * the offset of a consumer group of the sink's own (`sendOffsetsToTransaction`, how Kafka commits a consumer's
 * progress with its output). So the group's offset says which batches are in the topic:
 *  - a new producer with the id first aborts whatever transaction a dead predecessor left open (`initTransactions`),
 *    so the rows of an interrupted attempt never become visible;
 *  - a batch below the committed offset is skipped, any other is written.
 * Readers with `isolation.level=read_committed` therefore see each row once. The offset also records the id of the
 * query (Spark keeps it in the checkpoint): a query with a new checkpoint numbers its batches from 0 again, and would
 * skip them all under an old offset, so it is refused instead.
 *
 * The rows go through the driver: a Kafka transaction belongs to one producer. That suits the matches of a pattern,
 * a small part of its input; `spark.driver.maxResultSize` bounds what one batch may bring. A producer lives for one
 * batch (a V1 sink is never told that its query stopped), which costs a few round trips per batch.
 */
final class TransactionalKafkaSink(options: KafkaSinkOptions) extends Sink with Logging {
  // The first batch not in the topic yet: read from Kafka at this run's first batch, then kept.
  private var nextBatch: Option[Long] = None
  // The offset of the progress group is kept on the output topic's first partition.
  private val progress = new TopicPartition(options.topic, 0)

  override def name: String = s"${KafkaExactlyOnceProvider.Name}[${options.topic}]"

  override def addBatch(batchId: Long, data: DataFrame): Unit = {
    val records = KafkaRecords(data.schema)
    Using.resource(new KafkaProducer[Array[Byte], Array[Byte]](options.producerConfig)) { producer =>
      producer.initTransactions()
      // Also makes sure that the topic exists (or has the broker create it) before an offset is kept on it.
      producer.partitionsFor(options.topic)
      val queryId = Option(data.sparkSession.sparkContext.getLocalProperty(StreamExecution.QUERY_ID_KEY))
        .getOrElse(throw new IllegalStateException(s"$name is a sink of streaming queries"))
      val next = nextBatch.getOrElse(committedNext(queryId))
      if (batchId < next) {
        logInfo(s"$name: batch $batchId is in the topic already (the progress group is at $next); skipped")
      } else {
        val rows = records.collect(data)
        producer.beginTransaction()
        try {
          rows.foreach { case (key, value) => producer.send(new ProducerRecord(options.topic, key, value)) }
          producer.sendOffsetsToTransaction(
            Map(progress -> new OffsetAndMetadata(batchId + 1, s"$QueryPrefix$queryId")).asJava,
            new ConsumerGroupMetadata(options.progressGroup))
          producer.commitTransaction() // sends what send() buffered; fails if any of it failed
        } catch {
          case e: ProducerFencedException => throw new IllegalStateException(
              s"$name: another producer took over kafka.transactional.id=${options.transactionalId} while batch " +
                s"$batchId was written: give each query an id of its own",
              e
            )
          case NonFatal(e) =>
            try producer.abortTransaction()
            catch { case NonFatal(abort) => e.addSuppressed(abort) }
            throw e
        }
        logInfo(s"$name: batch $batchId committed, ${rows.length} records")
      }
      nextBatch = Some(math.max(next, batchId + 1))
    }
  }

  /** The progress group's committed offset: the first batch not written yet (0 for a new query). */
  private def committedNext(queryId: String): Long = Using.resource(Admin.create(options.adminConfig)) { admin =>
    // All of the group's offsets (it has one): asked for by partition, a broker that has only just created the topic
    // may not know the partition yet. requireStable: an offset whose transaction is still being completed is waited
    // for, not read as absent.
    val offsets = admin.listConsumerGroupOffsets(
      java.util.Map.of(options.progressGroup, new ListConsumerGroupOffsetsSpec),
      new ListConsumerGroupOffsetsOptions().requireStable(true))
    val committed = offsets.partitionsToOffsetAndMetadata(options.progressGroup).get(2, TimeUnit.MINUTES)
    Option(committed.get(progress)).fold(0L) { offset =>
      val writer = offset.metadata.stripPrefix(QueryPrefix)
      if (writer != queryId) throw new IllegalStateException(s"$name: kafka.transactional.id=" +
        s"${options.transactionalId} has written batches 0 to ${offset.offset - 1} of another query ($writer), and " +
        s"this query ($queryId) numbers its batches from its own checkpoint, so its batches up to " +
        s"${offset.offset - 1} would be skipped: give it a kafka.transactional.id of its own, or, to start the id " +
        s"over, delete the consumer group ${options.progressGroup} " +
        s"(kafka-consumer-groups.sh --delete --group ${options.progressGroup})")
      offset.offset
    }
  }
}

private object TransactionalKafkaSink {
  // What the progress offset's metadata says before the id of the query that wrote it.
  val QueryPrefix = "spark query "
}
