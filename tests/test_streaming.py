"""
CEQL on Structured Streaming, on the real jar in a local SparkSession: a file stream cut into many micro-batches
gives the batch query's matches (every surface: `df.cer`, the statement on a view, the `cer` table function),
whatever the cut; a query whose executor and then driver are killed on a multi-process cluster, restarted, writes
every match exactly once; rows behind the watermark are dropped and never match; the state stays bounded on a long stream; and the errors a user sees when the
watermark or the window is missing.

How a test stream ends: a match is emitted in the micro-batch whose watermark (the largest event time seen in
earlier batches, minus the delay) passes its last event. So every stream here ends with two flush files, each
one row far in the future: the first moves the maximum, the second runs the batch whose watermark passes every
real event. Flush rows never match (their type is FLUSH).
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import pytest
from pyspark.errors import AnalysisException
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

import spark_cer

from checkout import spark_environment
from conftest import STOCK_SCHEMA, batch_files, kill_group, multiset, wait_for_worker, write_stock_csv
import streaming_worker
from streaming_worker import FLUSH_ID, FLUSH_MS, stock_batch, stock_stream

pytestmark = pytest.mark.slow  # streams of the trace, and workers on a local cluster killed and restarted

WORKER = Path(streaming_worker.__file__).resolve()
assert streaming_worker.SCHEMA == STOCK_SCHEMA

FILES = 4  # files of the stream (plus the two flush files), one per micro-batch


# ---- writing streams ------------------------------------------------------------------------------------------


def _flush_rows(k: int) -> List[list]:
    return [["FLUSH", FLUSH_ID + k, "FLUSH", 1, 1.0, FLUSH_MS + 1000 * k]]


def _age_in_order(paths: Sequence[Path]) -> None:
    """The file source reads the oldest file first: modification times one second apart, in the given order."""
    base = time.time() - 10 * len(paths)
    for i, path in enumerate(paths):
        os.utime(path, (base + i, base + i))


def write_stock_files(directory: Path, rows: Sequence[Sequence], sizes: Sequence[int]) -> List[Path]:
    """`rows` cut into consecutive CSV files of the given sizes, then the two flush files; returns the files."""
    assert sum(sizes) == len(rows)
    directory.mkdir(parents=True, exist_ok=True)
    paths, start = [], 0
    for i, size in enumerate(sizes):
        path = directory / f"part-{i:04d}.csv"
        write_stock_csv(path, rows[start : start + size])
        paths.append(path)
        start += size
    for k in range(2):
        path = directory / f"part-{len(sizes) + k:04d}.csv"
        write_stock_csv(path, _flush_rows(k))
        paths.append(path)
    _age_in_order(paths)
    return paths


def even_sizes(total: int, parts: int) -> List[int]:
    return [total // parts + (1 if i < total % parts else 0) for i in range(parts)]


@pytest.fixture(scope="module")
def stock_files(tmp_path_factory, trace) -> Path:
    directory = tmp_path_factory.mktemp("stock-stream")
    write_stock_files(directory, trace, even_sizes(len(trace), FILES))
    return directory


# ---- running streams ------------------------------------------------------------------------------------------


def run_to_end(
    spark: SparkSession, matches: DataFrame, checkpoint: Path, sink: str = "memory"
) -> Tuple[Optional[DataFrame], List[dict]]:
    """Runs a streaming DataFrame into a sink until every available file is processed; returns the sink's table
    (for the memory sink) and the progress reports of the batches."""
    assert matches.isStreaming
    name = "cer_" + uuid.uuid4().hex[:12]
    writer = matches.writeStream.format(sink).outputMode("append").option("checkpointLocation", str(checkpoint))
    query = (writer.queryName(name) if sink == "memory" else writer).start()
    try:
        query.processAllAvailable()
        # The reports as Spark writes them (JSON). PySpark's `recentProgress` converts each from the JVM's objects, and
        # ends the iteration of every map it reads with a Java exception, whose conversion looks classes up by name
        # in every jar of the classpath: a tenth of the CPU of a stream test went there.
        progress = [json.loads(report.json()) for report in query._jsq.recentProgress()]
    finally:
        query.stop()
    return (spark.table(name) if sink == "memory" else None), progress


def state_of(report: dict) -> dict:
    operators = report.get("stateOperators") or []
    return operators[0] if operators else {}


def ids_in(match: str) -> set:
    """The event ids inside one match of a multiset (its variables' structs and arrays)."""
    found = set()

    def walk(value) -> None:
        if isinstance(value, dict):
            if "id" in value:
                found.add(value["id"])
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    walk(json.loads(match))
    return found


def dropped_by_watermark(progress: List[dict]) -> int:
    return sum(state_of(p).get("numRowsDroppedByWatermark", 0) for p in progress)


# ---- 1. a stream cut into micro-batches gives the batch query's matches ----------------------------------------

Build = Callable[[SparkSession, DataFrame, str], DataFrame]


def by_cer(query: str, partition_by=None) -> Build:
    return lambda spark, df, view: df.cer(query, order_by=["ts", "id"], partition_by=partition_by)


def by_sql(statement: str) -> Build:
    """A SQL text over `{v}`, run on a temporary view of the (streaming or batch) DataFrame."""

    def build(spark: SparkSession, df: DataFrame, view: str) -> DataFrame:
        df.createOrReplaceTempView(view)
        return spark.sql(statement.format(v=view))

    return build


S3_BY_NAME = (
    "SELL AS s ; BUY AS b ; BUY AS c FILTER s[volume >= 5000] AND b[volume >= 1000] AND c[volume >= 1000] "
    "WITHIN 1 SECONDS"
)
CASES: Dict[str, Build] = {
    # S3's shape within each stock
    "partitioned-cer": by_cer(S3_BY_NAME, partition_by="name"),
    # CORE's S3 over the whole stream (one key), with a 2 s window
    "unpartitioned-statement": by_sql(
        "SELECT * FROM {v} PATTERN SELL AS s ; BUY AS b ; BUY AS c "
        "FILTER s[name = 'INTC'] AND b[name = 'RIMM'] AND c[name = 'QQQ'] ORDER BY ts, id WITHIN 2 SECONDS"
    ),
    # a burst of large purchases between two sales, the most recent events per closing sale
    "kleene-last-table-function": by_sql(
        "SELECT * FROM cer(TABLE({v}) PARTITION BY (name) ORDER BY (ts, id), "
        "'SELECT LAST s, burst, e WHERE SELL AS s ; (BUY FILTER BUY[volume >= 1000])+ AS burst ; SELL AS e "
        "WITHIN 2 SECONDS')"
    ),
    # maximal bursts between a large sale and the next sale
    "kleene-max-cer": by_cer(
        "SELECT MAX * WHERE SELL AS s ; (BUY FILTER BUY[volume >= 500])+ AS b ; SELL AS e "
        "FILTER s[volume >= 1000] WITHIN 1 SECONDS",
        partition_by="name",
    ),
    # conditions relating events: a dearer purchase of the same stock (a derived partition and a lazy chain)
    "dearer-purchase-statement": by_sql(
        "SELECT * FROM {v} PATTERN SELL AS s ; BUY AS b FILTER b.name = s.name AND b.price > s.price "
        "ORDER BY ts, id WITHIN 500 MILLISECONDS"
    ),
    # three rising purchases (prev and count: registers saved between batches) and a burst's total volume
    "rising-prev-cer": by_cer(
        "SELECT * WHERE (BUY AS b)+ FILTER b.price > prev(b.price) AND count(b) = 3 WITHIN 300 MILLISECONDS",
        partition_by="name",
    ),
    # 100 ms: over 200 ms a run per distinct (sum, count) of up to three BUYs held about 5 M tECS nodes in a task,
    # past spark.cer.maxPartialMatchNodes (4 M); 100 ms holds about 1 M and still matches 852 times.
    "burst-sum-table-function": by_sql(
        "SELECT * FROM cer(TABLE({v}) PARTITION BY (name) ORDER BY (ts, id), "
        "'SELECT * WHERE (BUY AS b)+ FILTER sum(b.volume) > 20000 AND count(b) <= 3 WITHIN 100 MILLISECONDS')"
    ),
    # a count window: the statement form with PATTERN and WITHIN n EVENTS
    "events-window-statement": by_sql(
        "SELECT * FROM {v} PATTERN SELL AS s ; BUY AS b FILTER s[volume >= 1000] AND b[volume >= 1000] "
        "PARTITION BY name ORDER BY ts, id WITHIN 5 EVENTS"
    ),
    # MATCH_RECOGNIZE whose DEFINE and MEASURES read NEXT: each stock's last row never gets one, and its last matches
    # are decided once the watermark passes that row by the bound (they were held back for good). The flush rows' own
    # match is dropped after the operator: a filter before it would be pushed below the watermark, which would not move
    "next-match-recognize": lambda spark, df, view: df.match_recognize(
        "PARTITION BY name ORDER BY ts, id MEASURES FIRST(id) AS first_id, LAST(id) AS last_id, "
        "NEXT(LAST(price)) AS after PATTERN (N+ X) WITHIN INTERVAL '30' SECOND DEFINE N AS NEXT(price) >= price"
    ).where("name <> 'FLUSH'"),
}


def check_stream_equals_batch(spark: SparkSession, directory: Path, build: Build, checkpoint: Path) -> int:
    view = "v_" + uuid.uuid4().hex[:8]
    expected_df = build(spark, stock_batch(spark, directory), view + "_batch")
    streaming = build(spark, stock_stream(spark, directory), view)
    assert [(f.name, f.dataType) for f in streaming.schema.fields] == [
        (f.name, f.dataType) for f in expected_df.schema.fields
    ], "the streaming query has the batch query's columns"
    expected = multiset(expected_df)
    assert expected, "the query should match something"
    got_df, progress = run_to_end(spark, streaming, checkpoint)
    got = multiset(got_df)
    data_batches = sum(1 for p in progress if p["numInputRows"] > 0)
    assert data_batches >= 3, f"the stream ran in {data_batches} batches with input, expected several"
    assert got == expected, (
        f"stream vs batch: {sum(got.values())} vs {sum(expected.values())} matches; "
        f"only in the stream: {list((got - expected).elements())[:3]}; "
        f"only in the batch: {list((expected - got).elements())[:3]}"
    )
    assert max(got.values()) == 1, "a match was emitted twice"
    return sum(got.values())


@pytest.mark.parametrize("case", list(CASES))
def test_stream_gives_the_batch_matches(spark, stock_files, tmp_path, case: str) -> None:
    check_stream_equals_batch(spark, stock_files, CASES[case], tmp_path / "checkpoint")


def test_cut_points_do_not_matter(spark, trace, tmp_path) -> None:
    """Files of very different sizes, cut inside runs of equal timestamps: the same matches as the batch."""
    rng = random.Random(11)
    cuts = set()
    while len(cuts) < 9:
        i = rng.randrange(1, len(trace) - 1)
        if trace[i][5] == trace[i - 1][5]:  # a millisecond split between two files
            cuts.add(i)
    cuts.update({37, 38, len(trace) - 5})  # a one-event file and a tiny last one
    bounds = [0] + sorted(cuts) + [len(trace)]
    sizes = [b - a for a, b in zip(bounds, bounds[1:])]
    directory = tmp_path / "in"
    write_stock_files(directory, trace, sizes)
    # Kleene bursts under MAX: runs that span file boundaries, compared across runs inside the engine's state
    n = check_stream_equals_batch(spark, directory, CASES["kleene-max-cer"], tmp_path / "checkpoint")
    print(f"\n[cut points] {len(sizes)} files of {sorted(sizes)} events: {n} matches, as the batch")


# ---- 2. killed and restarted: every match exactly once -------------------------------------------------------


# Spark's multi-process mode: the driver's JVM runs a master and two workers, each executor is a JVM of its own.
CLUSTER = "local-cluster[2,1,1024]"


def _start_worker(input_dir: Path, checkpoint: Path, sink: Path, log: Path, kill_executor: Path):
    env = spark_environment()
    with open(log, "ab") as out:
        return subprocess.Popen(
            [
                sys.executable,
                str(WORKER),
                "--input",
                str(input_dir),
                "--checkpoint",
                str(checkpoint),
                "--sink",
                str(sink),
                "--master",
                CLUSTER,
                "--kill-executor",
                str(kill_executor),
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,  # its own process group: the JVMs die with it
        )


def test_kill_and_restart_writes_each_match_once(spark, trace, tmp_path) -> None:
    """On the multi-process cluster, with the RocksDB state store: the CEQL query and the MATCH_RECOGNIZE clause run
    side by side in one driver; an executor is killed in one batch, the driver in a later one; restarted from their
    checkpoints, both queries write every match once."""
    input_dir, checkpoint, sink, log = tmp_path / "in", tmp_path / "checkpoint", tmp_path / "sink", tmp_path / "log"
    marker = tmp_path / "kill-an-executor"
    files = write_stock_files(input_dir, trace, even_sizes(len(trace), 7))
    batch = stock_batch(spark, input_dir)
    expected = {
        language: multiset(streaming_worker.matches_of(batch, language)) for language in streaming_worker.LANGUAGES
    }
    for language, rows in expected.items():
        assert rows and max(rows.values()) == 1, language
    # The kills are timed on the CEQL query's batches; the other query runs its own, on the same executors.
    commits_dir, offsets_dir = checkpoint / "ceql" / "commits", checkpoint / "ceql" / "offsets"

    # First run: once two batches are committed, the next match kills its executor (the batch reruns on the one the
    # cluster starts instead); a batch after that one, the driver is killed while the next one is running.
    started = time.time()
    proc = _start_worker(input_dir, checkpoint, sink, log, marker)
    taken = Path(f"{marker}.taken")
    try:
        deadline, in_flight, executor_killed_at = time.time() + 300, False, None
        while time.time() < deadline:
            assert proc.poll() is None, f"the worker ended early ({proc.returncode}):\n{log.read_text()[-3000:]}"
            commits, offsets = batch_files(commits_dir), batch_files(offsets_dir)
            if len(commits) >= 2 and executor_killed_at is None and not marker.exists() and not taken.exists():
                marker.touch()
            if executor_killed_at is None and taken.exists():
                executor_killed_at = len(offsets)
            if executor_killed_at is not None and len(commits) > executor_killed_at:
                if len(offsets) > len(commits):
                    in_flight = True
                    break
                if len(commits) >= executor_killed_at + 4:  # never caught a batch in flight: kill between two
                    break
            time.sleep(0.02)
        else:
            raise AssertionError(f"no executor killed or no batch after in 300 s:\n{log.read_text()[-3000:]}")
    finally:
        kill_group(proc)
    done = len(batch_files(commits_dir))
    print(
        f"\n[kill/restart] an executor killed in batch {executor_killed_at - 1}, the driver after {done} of "
        f"{len(files)} batches (a batch in flight: {in_flight}), {time.time() - started:.0f} s after the start"
    )
    assert 0 < done < len(files), "the kill should come in the middle of the stream"

    # Second run from the same checkpoints, as fast as it goes, to the end.
    proc = _start_worker(input_dir, checkpoint, sink, log, marker)
    wait_for_worker(proc, log, "the restarted worker")
    print(f"[kill/restart] the restarted run ended {time.time() - started:.0f} s after the first start")

    for language in streaming_worker.LANGUAGES:
        assert len(batch_files(checkpoint / language / "commits")) >= len(files), language
        written = spark.read.parquet(str(sink / language))
        # The flush rows are a stock of their own (named FLUSH), whose matches the batch has not.
        got = multiset(written.where("name <> 'FLUSH'") if language == "match_recognize" else written)
        duplicates = [row for row, n in got.items() if n > 1]
        assert not duplicates, f"{language}: {len(duplicates)} matches written more than once, e.g. {duplicates[:2]}"
        assert got == expected[language], (
            f"{language}, sink vs batch: {sum(got.values())} vs {sum(expected[language].values())} matches; "
            f"only in the sink: {list((got - expected[language]).elements())[:3]}; "
            f"only in the batch: {list((expected[language] - got).elements())[:3]}"
        )


# ---- 3. late rows are dropped and never match ----------------------------------------------------------------

LATE_SCHEMA = "event_type string, id long, name string, price double, t long"
LATE_QUERY = "SELL AS s ; BUY AS b FILTER s[price > 100] WITHIN 30 SECONDS"
LATE_ID = 6
LATE_FILES = [
    # batch 0 (watermark: none yet)
    [("SELL", 1, "A", 110.0, 0), ("BUY", 2, "B", 90.0, 5_000), ("SELL", 3, "B", 130.0, 8_000)],
    # batch 1 (watermark 8 s - 10 s: nothing is late)
    [("BUY", 4, "C", 80.0, 40_000), ("BUY", 8, "B", 97.0, 30_000), ("SELL", 5, "B", 120.0, 45_000)],
    # batch 2 (watermark 45 s - 10 s = 35 s): the BUY of A at 20 s is late; accepted, it would match the SELL at 0 s
    [("BUY", LATE_ID, "A", 95.0, 20_000), ("BUY", 7, "B", 99.0, 50_000)],
    # flush
    [("FLUSH", FLUSH_ID, "FLUSH", 1.0, FLUSH_MS)],
    [("FLUSH", FLUSH_ID + 1, "FLUSH", 1.0, FLUSH_MS + 1000)],
]


def _write_json_files(directory: Path, files) -> List[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for i, rows in enumerate(files):
        path = directory / f"part-{i:04d}.json"
        fields = ["event_type", "id", "name", "price", "t"]
        path.write_text("".join(json.dumps(dict(zip(fields, r))) + "\n" for r in rows))
        paths.append(path)
    _age_in_order(paths)
    return paths


def test_late_rows_are_dropped(spark, tmp_path) -> None:
    directory = tmp_path / "in"
    _write_json_files(directory, LATE_FILES)
    stream = (
        spark.readStream.schema(LATE_SCHEMA)
        .option("maxFilesPerTrigger", 1)
        .json(str(directory))
        .withColumn("ts", F.timestamp_millis("t"))
        .withWatermark("ts", "10 seconds")
    )
    batch = (
        spark.read.schema(LATE_SCHEMA)
        .json(str(directory))
        .where("event_type <> 'FLUSH'")
        .withColumn("ts", F.timestamp_millis("t"))
    )

    def cer(df: DataFrame) -> DataFrame:
        return df.cer(LATE_QUERY, order_by=["ts", "id"], partition_by="name")

    with_late = multiset(cer(batch))
    assert any(LATE_ID in ids_in(m) for m in with_late), "accepted, the late row would complete a match"
    expected = multiset(cer(batch.where(f"id <> {LATE_ID}")))
    assert any(ids_in(m) == {3, 8} for m in expected), "a match across two batches"

    got_df, progress = run_to_end(spark, cer(stream), tmp_path / "checkpoint")
    dropped = dropped_by_watermark(progress)
    print(f"\n[late rows] numRowsDroppedByWatermark summed over {len(progress)} batches: {dropped}")
    assert dropped > 0, "the late row should be counted in numRowsDroppedByWatermark"
    got = multiset(got_df)
    assert not any(LATE_ID in ids_in(m) for m in got), "a match used the late row"
    assert got == expected


# ---- 4. the state stays bounded on a long stream --------------------------------------------------------------

LONG_FILES, LONG_EVENTS, LONG_STEP_MS = 26, 2000, 10  # 26 files of 20 s of events each, 4 keys
# RocksDB's memoryUsedBytes includes its block cache, which fills up to its capacity (8 MB per state store
# instance by default) whatever the state holds; a 1 MB cache keeps the figure about the state itself.
SMALL_BLOCK_CACHE = ("spark.sql.streaming.stateStore.rocksdb.blockCacheSizeMB", "1")


def test_state_stays_flat(spark, tmp_path) -> None:
    rng = random.Random(5)
    rows, t = [], 0
    for i in range(LONG_FILES * LONG_EVENTS):
        t += LONG_STEP_MS
        kind = rng.choice(["BUY", "SELL"])
        rows.append([kind, i + 1, f"K{i % 4}", rng.randrange(1, 1000), round(rng.uniform(90, 110), 2), t])
    directory = tmp_path / "in"
    write_stock_files(directory, rows, [LONG_EVENTS] * LONG_FILES)
    matches = stock_stream(spark, directory).cer(
        "SELL AS s ; BUY AS b FILTER s[price > 108] AND b[price < 92] WITHIN 2 SECONDS",
        order_by=["ts", "id"],
        partition_by="name",
    )
    spark.conf.set(*SMALL_BLOCK_CACHE)
    try:
        _, progress = run_to_end(spark, matches, tmp_path / "checkpoint", sink="noop")
    finally:
        spark.conf.unset(SMALL_BLOCK_CACHE[0])

    figures = [
        (
            p["batchId"],
            p["numInputRows"],
            state_of(p)["numRowsTotal"],
            state_of(p)["memoryUsedBytes"],
            state_of(p).get("customMetrics", {}).get("rocksdbSstFileSize", 0),
            p["durationMs"].get("triggerExecution"),
        )
        for p in progress
        if state_of(p)
    ]
    print(
        f"\n[state] {LONG_FILES} files x {LONG_EVENTS} events, 4 keys, WITHIN 2 SECONDS, watermark delay 10 s, "
        f"block cache {SMALL_BLOCK_CACHE[1]} MB"
    )
    line = "{:>5} {:>6} {:>12} {:>15} {:>18} {:>6}"
    print(line.format("batch", "input", "numRowsTotal", "memoryUsedBytes", "rocksdbSstFileSize", "ms"))
    for figure in figures:
        print(line.format(*figure))

    data = [f for f in figures if f[1] == LONG_EVENTS]
    assert len(data) >= LONG_FILES - 2, f"expected a batch per file, got {len(data)} batches with {LONG_EVENTS} rows"
    early, late = data[6:13], data[-7:]  # past the first batches, where the caches warm up
    # The store's memory also holds blocks that RocksDB's cache keeps after compaction until it is full (1 MB
    # here): a state as small as this one (only rows a guard accepts are kept) is still filling it at the end.
    for column, name, floor in ((2, "numRowsTotal", 0), (3, "memoryUsedBytes", 2 << 20), (4, "rocksdbSstFileSize", 0)):
        early_max, late_max = max(f[column] for f in early), max(f[column] for f in late)
        print(f"{name}: batches 6-12 max {early_max:,}, last 7 max {late_max:,}")
        assert early_max > 0, f"{name} should count the state"
        assert late_max <= max(2 * early_max, floor), (
            f"{name} grows with the stream: {early_max:,} early, {late_max:,} late"
        )


# ---- 5. errors --------------------------------------------------------------------------------------------------


def expect_analysis_error(build: Callable[[], DataFrame], tmp_path: Path) -> str:
    """
    The error raised while a streaming query is defined or started; the query never runs. `df.cer` raises it as a
    CeqlAnalysisError, `spark.sql` as Spark's AnalysisException.
    """
    query, checkpoint = None, tmp_path / ("checkpoint-" + uuid.uuid4().hex[:8])
    try:
        with pytest.raises((AnalysisException, spark_cer.CeqlAnalysisError)) as info:
            query = (
                build()
                .writeStream.format("memory")
                .queryName("cer_err_" + uuid.uuid4().hex[:8])
                .outputMode("append")
                .option("checkpointLocation", str(checkpoint))
                .start()
            )
            query.processAllAvailable()
    finally:
        if query is not None:
            query.stop()
    return str(info.value)


@pytest.fixture(scope="module")
def small_files(tmp_path_factory, trace) -> Path:
    directory = tmp_path_factory.mktemp("small-stream")
    write_stock_files(directory, trace[:200], [100, 100])
    return directory


PATTERN = "SELL AS s ; BUY AS b FILTER s[volume >= 1000]"


def test_error_without_watermark(spark, small_files, tmp_path) -> None:
    raw = stock_stream(spark, small_files, watermark=False)
    message = expect_analysis_error(
        lambda: raw.cer(PATTERN + " WITHIN 30 SECONDS", order_by=["ts", "id"], partition_by="name"), tmp_path
    )
    assert "withWatermark" in message, message
    raw.createOrReplaceTempView("no_watermark")
    message = expect_analysis_error(
        lambda: spark.sql(
            f"SELECT * FROM no_watermark PATTERN {PATTERN} PARTITION BY name ORDER BY ts, id WITHIN 30 SECONDS"
        ),
        tmp_path,
    )
    assert "withWatermark" in message, message


def test_error_without_within(spark, small_files, tmp_path) -> None:
    stream = stock_stream(spark, small_files)
    message = expect_analysis_error(lambda: stream.cer(PATTERN, order_by=["ts", "id"], partition_by="name"), tmp_path)
    assert "WITHIN" in message, message
    stream.createOrReplaceTempView("no_within")
    message = expect_analysis_error(
        lambda: spark.sql(f"SELECT * FROM no_within PATTERN {PATTERN} PARTITION BY name ORDER BY ts, id"), tmp_path
    )
    assert "WITHIN" in message, message
    message = expect_analysis_error(
        lambda: spark.sql(f"SELECT * FROM cer(TABLE(no_within) PARTITION BY (name) ORDER BY (ts, id), '{PATTERN}')"),
        tmp_path,
    )
    assert "WITHIN" in message, message


def test_error_watermark_on_another_column(spark, small_files, tmp_path) -> None:
    stream = (
        stock_stream(spark, small_files, watermark=False)
        .withColumn("arrival", F.col("ts") + F.expr("INTERVAL 1 SECOND"))
        .withWatermark("arrival", "10 seconds")
    )
    message = expect_analysis_error(
        lambda: stream.cer(PATTERN + " WITHIN 30 SECONDS", order_by=["ts", "id"], partition_by="name"), tmp_path
    )
    assert "arrival" in message and re.search(r"\bts\b", message), message


# ---- 6. a live source -------------------------------------------------------------------------------------------


def test_rate_source_finds_matches(spark, tmp_path) -> None:
    events = (
        spark.readStream.format("rate")
        .option("rowsPerSecond", 50)
        .load()
        .selectExpr(
            "CASE WHEN value % 3 = 0 THEN 'SELL' ELSE 'BUY' END AS event_type",
            "value AS id",
            "concat('K', CAST(value % 2 AS STRING)) AS name",
            "CAST(value % 7 AS DOUBLE) AS price",
            "timestamp AS ts",
        )
        .withWatermark("ts", "1 second")
    )
    matches = events.cer(
        "SELL AS s ; BUY AS b FILTER s[price > 3] AND b[price < 2] WITHIN 2 SECONDS",
        order_by=["ts", "id"],
        partition_by="name",
    )
    name = "cer_rate_" + uuid.uuid4().hex[:8]
    query = (
        matches.writeStream.format("memory")
        .queryName(name)
        .outputMode("append")
        .option("checkpointLocation", str(tmp_path / "checkpoint"))
        .trigger(processingTime="1 second")
        .start()
    )
    try:
        deadline, found = time.time() + 60, 0
        while time.time() < deadline and not found:
            assert query.exception() is None, query.exception()
            time.sleep(1)
            found = spark.table(name).count()
    finally:
        query.stop()
    assert found > 0, "no match from the rate source within 60 s"
    rows = spark.table(name).collect()
    assert all(r.s.event_type == "SELL" and r.b.event_type == "BUY" and r.s.name == r.name for r in rows)
    assert all(r.match_start <= r.match_end for r in rows)
