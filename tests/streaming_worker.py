"""
Streaming queries in a process of their own, for the kill/restart test of tests/test_streaming.py:

    python tests/streaming_worker.py --input DIR --checkpoint DIR --sink DIR [--master MASTER]
        [--kill-executor MARKER]

It reads the stock trace as a file stream (CSV files with a header, one file per micro-batch), runs QUERY and the
MATCH_RECOGNIZE clause on it, side by side in one driver, and appends each one's matches to a parquet file sink with
a checkpoint of its own (DIR/ceql and DIR/match_recognize); it stops once every file in the input folder is processed
by both. The test kills it with SIGKILL in the middle, starts it again with the same
checkpoint and checks that the sink holds every match exactly once. `stock_stream` and the query are imported by
the test too, so both sides read the same stream. On a multi-process MASTER (``local-cluster[...]``), the first
match output once the file MARKER exists kills the executor that made it (tests/cluster_worker.py), so that the
batch in flight loses its executor and its state store's instance there.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from checkout import spark_cer  # installed, or from this checkout

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

SCHEMA = "event_type string, id long, name string, volume long, price double, stock_time long"
DELAY = "10 seconds"
# A flush event, of a stock (and type) of its own, FLUSH: ten days after midnight, past every event and every
# window, so that the watermark it brings makes every match final.
FLUSH_MS = 10 * 24 * 3600 * 1000
FLUSH_ID = 10**12
# S3's shape within each stock: a large sale, then two large purchases of the same stock within one second.
QUERY = (
    "SELL AS s ; BUY AS b ; BUY AS c FILTER s[volume >= 5000] AND b[volume >= 1000] AND c[volume >= 1000] "
    "WITHIN 1 SECONDS"
)
# The same shape as a MATCH_RECOGNIZE clause: a large sale, then the longest run of large purchases (at least two)
# within a second, one match per sale.
MATCH_RECOGNIZE = (
    "PARTITION BY name ORDER BY ts, id "
    "MEASURES s.id AS sale, FIRST(b.id) AS first_buy, LAST(b.id) AS last_buy, count(b.id) AS buys, "
    "MATCH_NUMBER() AS n "
    "AFTER MATCH SKIP TO NEXT ROW "
    "PATTERN (s b{2,}) WITHIN INTERVAL '1' SECOND "
    "DEFINE s AS event_type = 'SELL' AND volume >= 5000, b AS event_type = 'BUY' AND volume >= 1000"
)
LANGUAGES = ("ceql", "match_recognize")
ORDER_BY = ["ts", "id"]  # event time first, then id: a total order, so ties in time are never ambiguous
PARTITION_BY = "name"

CONF = {
    "spark.sql.shuffle.partitions": "4",
    "spark.default.parallelism": "2",
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.session.timeZone": "UTC",
}


def stock_stream(spark: SparkSession, directory, *, watermark: bool = True, files_per_trigger: int = 1) -> DataFrame:
    """The stock CSV files of `directory` as a stream, oldest file first, with `ts` (the event time)."""
    events = (
        spark.readStream.schema(SCHEMA)
        .option("header", True)
        .option("maxFilesPerTrigger", files_per_trigger)
        .csv(str(directory))
        .withColumn("ts", F.timestamp_millis("stock_time"))
    )
    return events.withWatermark("ts", DELAY) if watermark else events


def stock_batch(spark: SparkSession, directory) -> DataFrame:
    """The same files as a batch table, without the flush rows: what the stream's matches are compared with."""
    return (
        spark.read.schema(SCHEMA)
        .option("header", True)
        .csv(str(directory))
        .where("event_type <> 'FLUSH'")
        .withColumn("ts", F.timestamp_millis("stock_time"))
    )


def matches_of(events: DataFrame, language: str) -> DataFrame:
    """The matches of QUERY (ceql) or of the MATCH_RECOGNIZE clause on `events`."""
    if language == "match_recognize":
        return events.match_recognize(MATCH_RECOGNIZE)
    return events.cer(QUERY, order_by=ORDER_BY, partition_by=PARTITION_BY)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--input", required=True)
    parser.add_argument("--checkpoint", required=True)
    parser.add_argument("--sink", required=True)
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--kill-executor", help="a file whose appearance makes the next match kill its executor")
    args = parser.parse_args(argv)

    spark = spark_cer.session(app_name="spark-cer streaming worker", master=args.master, **CONF)
    spark.sparkContext.setLogLevel("ERROR")
    events = stock_stream(spark, args.input)
    if args.kill_executor:
        from cluster_worker import killing_an_executor
    queries = []
    for language in LANGUAGES:
        matches = matches_of(events, language)
        if args.kill_executor:
            matches = killing_an_executor(matches, Path(args.kill_executor))
        writer = (
            matches.writeStream.format("parquet")
            .option("path", str(Path(args.sink) / language))
            .option("checkpointLocation", str(Path(args.checkpoint) / language))
            .outputMode("append")
        )
        queries.append(writer.start())
        print(f"started {language}: {queries[-1].id}", flush=True)
    for query in queries:
        query.processAllAvailable()
    # Counted on the JVM's reports: PySpark's `recentProgress` would convert each, at a Java exception per map it reads.
    print("done: " + ", ".join(f"{len(q._jsq.recentProgress())} batches" for q in queries), flush=True)
    for query in queries:
        query.stop()
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
