"""
spark-cer on Structured Streaming: the NYSE stock trace of the CORE paper replayed as a live stream, a CEQL query
over it, and each match printed as soon as it is final.

    .venv/bin/python examples/streaming.py [--seconds 30] [--events-per-batch 1000] [--kafka]

The trace (data/stocks.csv.gz, or an uncompressed copy beside the checkout) is cut into small CSV files in a temporary folder
and read by Spark's file source one file per second, so every micro-batch brings the next trades of the day. The
query looks, within each stock, for a sale, then a burst of large purchases, then another sale, all within two
seconds of trading time, and keeps for each closing sale the match made of the most recent trades (LAST). The
matches go to the console sink in append mode. After --seconds the query stops and a summary is printed.

With --kafka the trades go through Apache Kafka, as they would in production: the demo starts a broker of its own
(examples/kafka_broker.py, from the jars `make demo-stream ARGS=--kafka` fetches), a producer writes one file's
trades a second into the topic `trades`, and the query reads the topic with Spark's Kafka connector. Its matches
also go to the topic `matches` through spark-cer's `kafka-exactly-once` sink. Halfway, the query is stopped and
started again from its checkpoint; at the end the topic is read back as Kafka's consumers of committed data read
it, and each match is there once. The broker stops with the demo.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import os
import tempfile
import threading
import time
from pathlib import Path
from typing import List

from stocks import SCHEMA, STOCKS, clock, trade  # first: it finds spark_cer in a checkout

import spark_cer
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.streaming import StreamingQuery

# A streaming query needs event time with a watermark and a bounded window: the watermark tells the engine when
# no earlier trade can still arrive (so a match is final and the state behind it can go), and WITHIN bounds how
# long a partial match is kept. The event time is the first ORDER BY column; id breaks ties within a millisecond.
QUERY = """
SELECT LAST s, burst, e FROM trades
PATTERN SELL AS s ; (BUY FILTER BUY[volume >= 1000])+ AS burst ; SELL AS e
PARTITION BY name
ORDER BY ts, id
WITHIN 2 SECONDS
"""
WATERMARK_DELAY = "10 seconds"  # of trading time: how far out of order a trade may arrive and still count


def write_replay(directory: Path, files: int, per_file: int) -> int:
    """The first files * per_file trades of the day, in time order, as CSV files the file source reads oldest
    first; returns the number of trades written."""
    opener = gzip.open if STOCKS.suffix == ".gz" else open
    with opener(STOCKS, "rt", newline="") as f:
        reader = csv.reader(f)
        header = next(reader)
        rows = sorted(reader, key=lambda r: (int(r[5]), int(r[1])))[: files * per_file]
    base = time.time() - 2 * files
    for i in range(0, len(rows), per_file):
        path = directory / f"trades-{i // per_file:05d}.csv"
        with open(path, "w", newline="") as out:
            writer = csv.writer(out)
            writer.writerow(header)
            writer.writerows(rows[i : i + per_file])
        # The file source picks files by modification time, so the trades arrive in the day's order.
        stamp = base + i // per_file
        os.utime(path, (stamp, stamp))
    return len(rows)


def readable(matches: DataFrame) -> DataFrame:
    """One line per match: the stock, its span of trading time and its trades, readably."""
    return matches.select(
        "name",
        clock("match_start").alias("start"),
        clock("match_end").alias("end"),
        trade("s").alias("sale"),
        F.size("burst").alias("buys"),
        F.expr("transform(burst, b -> b.volume)").alias("burst volumes"),
        trade("e").alias("next sale"),
    )


def to_console(matches: DataFrame, checkpoint: Path) -> StreamingQuery:
    return (
        readable(matches)
        .writeStream.format("console")
        .option("truncate", False)
        .option("numRows", 10)
        .option("checkpointLocation", str(checkpoint))
        .outputMode("append")  # a match is written once, in the batch where the watermark makes it final
        .trigger(processingTime="1 second")
        .start()
    )


def run_for(queries: List[StreamingQuery], seconds: float) -> None:
    """Lets the queries run, then stops them between two batches: stopping in the middle of one aborts its write
    (and Spark logs it as an error)."""
    try:
        queries[0].awaitTermination(seconds)
        deadline = time.time() + 10
        while any(q.status["isTriggerActive"] for q in queries) and time.time() < deadline:
            time.sleep(0.05)
    finally:
        for query in queries:
            query.stop()


def summary(query: StreamingQuery) -> None:
    progress = list(query.recentProgress)
    state = [p["stateOperators"][0] for p in progress if p.get("stateOperators")]
    read = sum(p["numInputRows"] for p in progress)
    written_rows = [p["sink"].get("numOutputRows", -1) for p in progress if p.get("sink")]
    found = f"{sum(written_rows):,}" if written_rows and min(written_rows) >= 0 else "?"
    # recentProgress keeps the last 100 batches (spark.sql.streaming.numRecentProgressUpdates)
    batches = f"the last {len(progress)}" if len(progress) >= 100 else f"{len(progress)}"
    print(f"\n{batches} micro-batches: {read:,} trades read, {found} matches written")
    if state:
        late = sum(s.get("numRowsDroppedByWatermark", 0) for s in state)
        rows, memory = state[-1]["numRowsTotal"], state[-1]["memoryUsedBytes"]
        print(f"state at the end: {rows:,} rows, RocksDB using {memory:,} bytes; {late} late trades dropped")
    watermark = progress[-1].get("eventTime", {}).get("watermark") if progress else None
    if watermark:  # an ISO timestamp on 1970-01-01: the trace's times are ms since midnight
        print(f"watermark at the end: {watermark[11:23]} (no trade at or before it can still change a match)")


def matches_of(spark: SparkSession, trades: DataFrame) -> DataFrame:
    trades.createOrReplaceTempView("trades")
    print("\n".join("   " + line for line in QUERY.strip().splitlines()))
    return spark.sql(QUERY)  # a streaming DataFrame, like its input


def from_files(spark: SparkSession, args: argparse.Namespace, tmp: Path) -> None:
    replay, checkpoint = tmp / "trades", tmp / "checkpoint"
    replay.mkdir()
    # A few files more than the run can read, so the stream never runs dry before --seconds.
    written = write_replay(replay, files=int(args.seconds) + 5, per_file=args.events_per_batch)
    print(f"Replaying {written:,} trades from {STOCKS}, {args.events_per_batch:,} a second, for {args.seconds:g} s")
    trades = (
        spark.readStream.schema(SCHEMA)
        .option("header", True)
        .option("maxFilesPerTrigger", 1)
        .csv(str(replay))
        .withColumn("ts", F.timestamp_millis("stock_time"))  # ms since midnight -> event time
        .withWatermark("ts", WATERMARK_DELAY)
    )
    query = to_console(matches_of(spark, trades), checkpoint)
    run_for([query], args.seconds)
    summary(query)


def from_kafka(spark: SparkSession, args: argparse.Namespace, tmp: Path, servers: str) -> None:
    replay = tmp / "trades"
    replay.mkdir()
    written = write_replay(replay, files=int(args.seconds) + 5, per_file=args.events_per_batch)
    files = sorted(replay.iterdir())
    kafka = {"kafka.bootstrap.servers": servers}

    def produce(path: Path) -> None:
        (
            spark.read.schema(SCHEMA)
            .option("header", True)
            .csv(str(path))
            .select(F.col("name").alias("key"), F.to_json(F.struct("*")).alias("value"))
            .write.format("kafka")
            .options(**kafka)
            .option("topic", "trades")
            .save()
        )

    produce(files[0])  # the topic exists before the stream subscribes to it
    stop = threading.Event()

    def producer() -> None:  # one file's trades a second, as a live feed would bring them
        for path in files[1:]:
            if stop.wait(1.0):
                return
            produce(path)

    feed = threading.Thread(target=producer, daemon=True)
    feed.start()
    print(f"Producing {written:,} trades from {STOCKS} into the topic trades, {args.events_per_batch:,} a second")

    event = F.from_json(F.col("value").cast("string"), SCHEMA).alias("t")
    trades = (
        spark.readStream.format("kafka")
        .options(**kafka)
        .option("subscribe", "trades")
        .option("startingOffsets", "earliest")
        .load()
        .select(event)
        .select("t.*")
        .withColumn("ts", F.timestamp_millis("stock_time"))
        .withWatermark("ts", WATERMARK_DELAY)
    )
    matches = matches_of(spark, trades)

    def start() -> List[StreamingQuery]:
        to_topic = (
            matches.select(F.col("name").alias("key"), F.to_json(F.struct("*")).alias("value"))
            .writeStream.format("kafka-exactly-once")
            .options(**kafka)
            .option("topic", "matches")
            .option("kafka.transactional.id", "spark-cer-streaming-demo")  # names this query to Kafka, across restarts
            .option("checkpointLocation", str(tmp / "checkpoint-kafka"))
            .outputMode("append")
            .trigger(processingTime="1 second")
            .start()
        )
        return [to_console(matches, tmp / "checkpoint-console"), to_topic]

    run_for(start(), args.seconds / 2)
    print("\n--- stopped halfway; started again from the checkpoints ---\n")
    queries = start()
    run_for(queries, args.seconds / 2)
    stop.set()
    feed.join()
    print("\nSince the restart:", end="")
    summary(queries[0])

    values = (
        spark.read.format("kafka")
        .options(**kafka)
        .option("subscribe", "matches")
        .option("kafka.isolation.level", "read_committed")  # what a consumer of committed data sees
        .load()
        .select(F.col("value").cast("string"))
    )
    total, distinct = values.count(), values.distinct().count()
    print(f"the topic matches, read with isolation.level=read_committed: {total:,} matches, {distinct:,} distinct")
    if total:
        readable(values.select(F.from_json("value", matches.schema).alias("m")).select("m.*")).show(3, truncate=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.strip().split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=30, help="how long the stream runs (default 30)")
    parser.add_argument("--events-per-batch", type=int, default=1000, help="trades per file, one file a second")
    parser.add_argument("--kafka", action="store_true", help="through a Kafka broker the demo starts and stops")
    args = parser.parse_args()

    conf = {
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.shuffle.partitions": "4",
        "spark.sql.session.timeZone": "UTC",
    }
    with tempfile.TemporaryDirectory(prefix="spark-cer-stream-") as tmp:
        if not args.kafka:
            spark: SparkSession = spark_cer.session(app_name="spark-cer streaming demo", **conf)
            spark.sparkContext.setLogLevel("ERROR")
            from_files(spark, args, Path(tmp))
            spark.stop()
            return
        from kafka_broker import SPARK_KAFKA_PACKAGE, KafkaBroker

        print("Starting a Kafka broker (KRaft, one node) ...")
        with KafkaBroker.start() as broker:
            print(f"Kafka at {broker.bootstrap_servers}; Spark's connector: {SPARK_KAFKA_PACKAGE}")
            spark = spark_cer.session(
                app_name="spark-cer streaming demo (Kafka)",
                **dict(conf, **{"spark.jars.packages": SPARK_KAFKA_PACKAGE}),
            )
            spark.sparkContext.setLogLevel("ERROR")
            from_kafka(spark, args, Path(tmp), broker.bootstrap_servers)
            spark.stop()
        print("Kafka broker stopped.")


if __name__ == "__main__":
    main()
