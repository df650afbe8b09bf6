"""
CEQL on a stream against the same query on a table: the stock trace replayed as a file stream of N micro-batches.

    .venv/bin/python bench/stream_stocks.py [--files 20] [--csv PATH]

For each query: the table run (end to end, collect), then the stream run (file source, one file per micro-batch,
memory sink), checked to give the same number of matches. Prints the ratio of the two wall times, the time per
micro-batch, and the bytes of state after each batch, read back with Spark's state data source: the engine's
saved state (flat when the window bounds it) and the rows still waiting for the watermark.
Timings are for comparison within one run on this machine, never assertions.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python"))

import spark_cer  # noqa: E402
from pyspark.sql import functions as F  # noqa: E402
from pyspark.sql.window import Window  # noqa: E402

SCHEMA = "event_type string, id long, name string, volume long, price double, stock_time long"
QUERIES = {
    "S3 (unpartitioned)": (
        "SELL AS T1 ; BUY AS T2 ; BUY AS T3 FILTER T1[name = 'INTC'] AND T2[name = 'RIMM'] AND T3[name = 'QQQ'] "
        "WITHIN 10 SECONDS",
        None,
    ),
    "SELL;BUY per stock": (
        "SELL AS s ; BUY AS b FILTER s[volume >= 500] AND b[volume >= 500] WITHIN 2 SECONDS",
        "name",
    ),
}
ORDER = ["ts", "id DESC"]


def stock_csv(given: str | None) -> str:
    if given:
        return given
    shared = REPO.parent / "shared" / "data" / "stocks.csv"
    return str(shared if shared.exists() else REPO / "data" / "stocks.csv.gz")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("--files", type=int, default=20, help="micro-batches the trace is cut into")
    parser.add_argument(
        "--csv", help="the stock trace (default: data/stocks.csv.gz, or an uncompressed copy beside the checkout)"
    )
    args = parser.parse_args()

    spark = spark_cer.session(
        app_name="spark-cer-stream-bench",
        master="local[2]",
        **{"spark.sql.shuffle.partitions": "2", "spark.ui.enabled": "false", "spark.sql.session.timeZone": "UTC"},
    )
    spark.sparkContext.setLogLevel("ERROR")
    table = (
        spark.read.csv(stock_csv(args.csv), header=True, schema=SCHEMA)
        .withColumn("ts", F.timestamp_millis("stock_time"))
        .orderBy("stock_time", F.desc("id"))
        .cache()
    )
    events = table.count()
    work = Path(tempfile.mkdtemp(prefix="cer-stream-bench-"))
    source = work / "in"
    source.mkdir()
    # One file per micro-batch, in time order, then two rows far ahead so that the watermark passes every real
    # event; the file source takes files in order of modification time.
    order = Window.orderBy("stock_time", F.desc("id"))
    table.withColumn("part", F.ntile(args.files).over(order)).write.partitionBy("part").parquet(str(work / "parts"))
    flush = spark.createDataFrame(
        [("FLUSH", 10**12 + k, "FLUSH", 0, 0.0, 10**11 + k, k + 1) for k in range(2)], SCHEMA + ", part int"
    ).withColumn("ts", F.timestamp_millis("stock_time"))
    flush.write.partitionBy("part").parquet(str(work / "flush"))
    batches = [work / "parts" / f"part={i}" for i in range(1, args.files + 1)]
    batches += [work / "flush" / f"part={k}" for k in (1, 2)]
    for i, directory in enumerate(batches):
        for f in directory.glob("*.parquet"):
            target = source / f"{i:04d}-{f.name}"
            f.rename(target)
            os.utime(target, (1_000_000 + i, 1_000_000 + i))

    print(f"{events} events, {args.files} micro-batches (+2 flush batches), local[2]")
    for name, (query, partition) in QUERIES.items():
        started = time.perf_counter()
        expected = table.cer(query, order_by=ORDER, partition_by=partition).count()
        batch_seconds = time.perf_counter() - started

        stream = (
            spark.readStream.schema(table.schema)
            .option("maxFilesPerTrigger", 1)
            .parquet(str(source))
            .withWatermark("ts", "1 second")
        )
        sink = "bench_" + str(abs(hash(name)))
        started = time.perf_counter()
        q = (
            stream.cer(query, order_by=ORDER, partition_by=partition)
            .writeStream.format("memory")
            .queryName(sink)
            .outputMode("append")
            .option("checkpointLocation", str(work / f"ck-{sink}"))
            .start()
        )
        q.processAllAvailable()
        stream_seconds = time.perf_counter() - started
        progress = [p for p in q.recentProgress if p["numInputRows"] or p["stateOperators"]]
        q.stop()
        got = spark.table(sink).count()
        state = [(p["batchId"], p["stateOperators"][0]["numRowsTotal"]) for p in progress if p["stateOperators"]]
        per_batch = [p["durationMs"]["triggerExecution"] for p in progress]
        print(f"\n{name}: {got} matches streamed, {expected} on the table{'' if got == expected else '  <-- MISMATCH'}")
        print(
            f"  table {batch_seconds:.1f} s, stream {stream_seconds:.1f} s: stream/table = "
            f"{stream_seconds / batch_seconds:.1f}; {events / stream_seconds:,.0f} events/s streamed"
        )
        print(f"  per micro-batch: median {sorted(per_batch)[len(per_batch) // 2]} ms, max {max(per_batch)} ms")
        print(f"  state rows after each batch:      {[r for _, r in state]}")
        print(
            f"  saved engine state (KB), per batch: "
            f"{[round(state_bytes(spark, work / f'ck-{sink}', b, 'engine') / 1024) for b, _ in state]}"
        )
        print(
            f"  rows waiting for the watermark (KB): "
            f"{[round(state_bytes(spark, work / f'ck-{sink}', b, 'pending') / 1024) for b, _ in state]}"
        )
    spark.stop()


def state_bytes(spark, checkpoint: Path, batch: int, variable: str) -> int:
    """The bytes a state variable of the CER processor holds after a batch, read with Spark's state data source."""
    state = (
        spark.read.format("statestore")
        .option("path", str(checkpoint))
        .option("batchId", batch)
        .option("stateVarName", variable)
        .load()
    )
    column = "value.value" if variable == "engine" else "list_element.value"
    return state.select(F.coalesce(F.sum(F.length(column)), F.lit(0))).first()[0]


if __name__ == "__main__":
    main()
