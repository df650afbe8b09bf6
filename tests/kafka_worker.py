"""
The Spark sides of tests/test_kafka.py, each in a process of its own with Spark's Kafka connector:

    python tests/kafka_worker.py produce --bootstrap HOST:PORT --topic T --events CSV --chunks N --pause S
        [--wait-for FILE]
    python tests/kafka_worker.py match --bootstrap HOST:PORT --topic T --out DIR [--keep-running]
        [--fresh-checkpoints DIR] [--read-back JSON]

`produce` writes the CSV's events (tests/streaming_worker.py's schema) into the topic as JSON, in N chunks of
consecutive event times, S seconds apart, so that a stream reading the topic sees them arrive over time; then one
flush event far in the future, whose watermark makes every match final. With --wait-for, the chunks after the
first wait until FILE exists (the test's signal that the stream has started). Within a chunk the events are spread over
the topic's partitions, so the stream gets them in no single order.

`match` reads the topic as a stream with a watermark and runs streaming_worker's CEQL query and its MATCH_RECOGNIZE
query, each written twice: to a Kafka topic `<language>-matches` by spark-cer's exactly-once sink (a row's JSON as
the value, its stock as the key), and to parquet files under DIR/<language>/files. Each of the four streaming
queries has its checkpoint under DIR/<language>/. It returns once every event in the topic is processed (with
--keep-running, never). With --fresh-checkpoints it then starts each language's Kafka query again on a new checkpoint
under that folder, with the same transactional id, and prints `<language> refused: <message>` (or `<language> not
refused`). With --read-back it then reads each language's output topic as Kafka's consumers of committed data do
(`isolation.level=read_committed`) and writes {language: [row, ...]} to the JSON file. The test kills it in the
middle and starts it again on the same folders.

Spark's connector comes as its documentation says (`spark.jars.packages`), resolved from Maven Central into
Spark's Ivy cache at the first start.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Optional

from checkout import spark_cer  # installed, or from this checkout

from pyspark.errors import StreamingQueryException
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.streaming import StreamingQuery

import streaming_worker
from streaming_worker import LANGUAGES, matches_of
from kafka_broker import SPARK_KAFKA_PACKAGE


def session(app: str) -> SparkSession:
    spark = spark_cer.session(
        app_name=f"spark-cer kafka {app}",
        master="local[2]",
        **dict(streaming_worker.CONF, **{"spark.jars.packages": SPARK_KAFKA_PACKAGE}),
    )
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def produce(
    spark: SparkSession, bootstrap: str, topic: str, events: str, chunks: int, pause: float, wait_for: Optional[Path]
) -> None:
    rows = spark.read.csv(events, header=True, schema=streaming_worker.SCHEMA).orderBy("stock_time", "id").collect()
    flush = spark.createDataFrame(
        [("FLUSH", streaming_worker.FLUSH_ID, "FLUSH", 1, 1.0, streaming_worker.FLUSH_MS)], streaming_worker.SCHEMA
    )
    size = -(-len(rows) // chunks)
    for start in range(0, len(rows), size):
        chunk = spark.createDataFrame(rows[start : start + size], streaming_worker.SCHEMA)
        _write(chunk, bootstrap, topic)
        print(f"produced events {start} to {min(start + size, len(rows)) - 1}", flush=True)
        while wait_for and not wait_for.exists():
            time.sleep(0.1)
        time.sleep(pause)
    _write(flush, bootstrap, topic)
    print("produced the flush event", flush=True)


def _write(events: DataFrame, bootstrap: str, topic: str) -> None:
    # One task writes, so that each partition of the topic gets its events in time order; the partition is the id's
    # remainder, so consecutive events land in different ones.
    (
        events.repartition(1)
        .sortWithinPartitions("stock_time", "id")
        .select(
            F.col("name").alias("key"),
            F.to_json(F.struct("*")).alias("value"),
            F.pmod("id", F.lit(3)).cast("int").alias("partition"),
        )
        .write.format("kafka")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("topic", topic)
        .save()
    )


def stock_topic(spark: SparkSession, bootstrap: str, topic: str) -> DataFrame:
    """The topic's events as a stream, with `ts` (the event time) and its watermark."""
    event = F.from_json(F.col("value").cast("string"), streaming_worker.SCHEMA).alias("event")
    return (
        spark.readStream.format("kafka")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("subscribe", topic)
        .option("startingOffsets", "earliest")
        .load()
        .select(event)
        .select("event.*")
        .withColumn("ts", F.timestamp_millis("stock_time"))
        .withWatermark("ts", streaming_worker.DELAY)
    )


def output_topic(language: str) -> str:
    return f"{language.replace('_', '-')}-matches"


def to_kafka(matches: DataFrame, bootstrap: str, language: str, checkpoint: Path) -> StreamingQuery:
    """A language's matches into its output topic through spark-cer's exactly-once sink, one transactional id per
    language."""
    return (
        matches.select(F.col("name").alias("key"), F.to_json(F.struct("*")).alias("value"))
        .writeStream.format("kafka-exactly-once")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("topic", output_topic(language))
        .option("kafka.transactional.id", f"spark-cer-test-{language}")
        .option("checkpointLocation", str(checkpoint))
        .outputMode("append")
        .start()
    )


def try_fresh_checkpoints(events: DataFrame, bootstrap: str, fresh: Path) -> None:
    """Each language's Kafka query on a new checkpoint: it numbers its batches from 0 again, which the sink, whose
    transactional id has committed later batches, refuses rather than skip them. Prints what it said."""
    for language in LANGUAGES:
        query = to_kafka(matches_of(events, language), bootstrap, language, fresh / language)
        try:
            query.processAllAvailable()
            print(f"{language} not refused", flush=True)
        except StreamingQueryException as refusal:
            print(f"{language} refused: {' '.join(str(refusal).split())}", flush=True)
        finally:
            query.stop()


def match(
    spark: SparkSession,
    bootstrap: str,
    topic: str,
    out: Path,
    *,
    keep_running: bool = False,
    fresh_checkpoints: Optional[Path] = None,
    read_back: Optional[str] = None,
) -> None:
    events = stock_topic(spark, bootstrap, topic)
    queries = []
    for language in LANGUAGES:
        matches = matches_of(events, language)
        home = out / language
        queries.append(to_kafka(matches, bootstrap, language, home / "kafka-checkpoint"))
        queries.append(
            matches.writeStream.format("parquet")
            .option("path", str(home / "files"))
            .option("checkpointLocation", str(home / "file-checkpoint"))
            .outputMode("append")
            .start()
        )
    print("started", flush=True)
    if keep_running:
        spark.streams.awaitAnyTermination()
    for query in queries:
        query.processAllAvailable()
    print("done", flush=True)
    for query in queries:
        query.stop()
    if fresh_checkpoints:
        try_fresh_checkpoints(events, bootstrap, fresh_checkpoints)
    if read_back:
        written = {}
        for language in LANGUAGES:
            values = (
                spark.read.format("kafka")
                .option("kafka.bootstrap.servers", bootstrap)
                .option("subscribe", output_topic(language))
                .option("kafka.isolation.level", "read_committed")
                .load()
                .select(F.col("value").cast("string"))
                .collect()
            )
            written[language] = [json.loads(v.value) for v in values]
        Path(read_back).write_text(json.dumps(written))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("action", choices=["produce", "match"])
    parser.add_argument("--bootstrap", required=True)
    parser.add_argument("--topic", required=True)
    parser.add_argument("--events", help="produce: a CSV of stock events")
    parser.add_argument("--chunks", type=int, default=8)
    parser.add_argument("--pause", type=float, default=1.0)
    parser.add_argument("--wait-for", help="produce: a file to wait for after the first chunk")
    parser.add_argument("--out", help="match: the folder of the checkpoints and the file sinks")
    parser.add_argument("--keep-running", action="store_true", help="match: run until killed")
    parser.add_argument("--fresh-checkpoints", help="match: then each Kafka query again on a new checkpoint here")
    parser.add_argument("--read-back", help="match: the JSON file the output topics are read back into")
    args = parser.parse_args(argv)

    spark = session(args.action)
    if args.action == "produce":
        produce(
            spark,
            args.bootstrap,
            args.topic,
            args.events,
            args.chunks,
            args.pause,
            Path(args.wait_for) if args.wait_for else None,
        )
    else:
        match(
            spark,
            args.bootstrap,
            args.topic,
            Path(args.out),
            keep_running=args.keep_running,
            fresh_checkpoints=Path(args.fresh_checkpoints) if args.fresh_checkpoints else None,
            read_back=args.read_back,
        )
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
