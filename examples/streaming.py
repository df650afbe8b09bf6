"""
spark-cer on Structured Streaming: the NYSE stock trace of the CORE paper replayed as a live stream, a CEQL query
over it, and each match printed as soon as it is final.

    .venv/bin/python examples/streaming.py [--seconds 30] [--events-per-batch 1000]

The trace (../shared/data/stocks.csv, else data/stocks.csv.gz) is cut into small CSV files in a temporary folder
and read by Spark's file source one file per second, so every micro-batch brings the next trades of the day. The
query looks, within each stock, for a sale, then a burst of large purchases, then another sale, all within two
seconds of trading time, and keeps for each closing sale the match made of the most recent trades (LAST). The
matches go to the console sink in append mode. After --seconds the query stops and a summary is printed.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import os
import tempfile
import time
from pathlib import Path

from stocks import SCHEMA, STOCKS, clock, trade  # first: it finds spark_cer in a checkout

import spark_cer
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.strip().split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=30, help="how long the stream runs (default 30)")
    parser.add_argument("--events-per-batch", type=int, default=1000, help="trades per file, one file a second")
    args = parser.parse_args()

    spark: SparkSession = spark_cer.session(
        app_name="spark-cer streaming demo",
        **{
            "spark.ui.enabled": "false",
            "spark.ui.showConsoleProgress": "false",
            "spark.sql.shuffle.partitions": "4",
            "spark.sql.session.timeZone": "UTC",
        },
    )
    spark.sparkContext.setLogLevel("ERROR")

    with tempfile.TemporaryDirectory(prefix="spark-cer-stream-") as tmp:
        replay, checkpoint = Path(tmp) / "trades", Path(tmp) / "checkpoint"
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
        trades.createOrReplaceTempView("trades")
        print("\n".join("   " + line for line in QUERY.strip().splitlines()))
        matches = spark.sql(QUERY)  # a streaming DataFrame, like its input

        readable = matches.select(
            "name",
            clock("match_start").alias("start"),
            clock("match_end").alias("end"),
            trade("s").alias("sale"),
            F.size("burst").alias("buys"),
            F.expr("transform(burst, b -> b.volume)").alias("burst volumes"),
            trade("e").alias("next sale"),
        )
        query = (
            readable.writeStream.format("console")
            .option("truncate", False)
            .option("numRows", 10)
            .option("checkpointLocation", str(checkpoint))
            .outputMode("append")  # a match is written once, in the batch where the watermark makes it final
            .trigger(processingTime="1 second")
            .start()
        )
        try:
            query.awaitTermination(args.seconds)
            # Stop between two batches: stopping in the middle of one aborts its write (and Spark logs it as an error).
            deadline = time.time() + 10
            while query.status["isTriggerActive"] and time.time() < deadline:
                time.sleep(0.05)
        finally:
            query.stop()
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

    spark.stop()


if __name__ == "__main__":
    main()
