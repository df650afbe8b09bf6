"""
Shared fixtures: one local SparkSession with spark-cer for the whole run, the stock trace, and the engine's
command-line runner (the reference the Spark surfaces are compared with); and what the streaming tests share.
"""

from __future__ import annotations

import csv
import gzip
import json
import logging
import os
import signal
import subprocess
import time
from pathlib import Path
from collections import Counter
from typing import Dict, List, Sequence, Tuple

import pytest
from pyspark.logger import PySparkLogger
from pyspark.sql import DataFrame

from class_archive import class_archive
from checkout import REPO, spark_cer  # noqa: F401  (installed, or from this checkout)

SHARED_STOCKS = REPO.parent / "shared" / "data" / "stocks.csv"
STOCKS = SHARED_STOCKS if SHARED_STOCKS.exists() else REPO / "data" / "stocks.csv.gz"
STOCK_SCHEMA = "event_type string, id long, name string, volume long, price double, stock_time long"
STOCK_COLUMNS = ["event_type", "id", "name", "volume", "price", "stock_time"]
TRACE_EVENTS = 30_000  # the first events of the trace by time: a slice big enough to match, small enough to stream fast
# The file's arrival order: time, then (within one millisecond) descending id.
STOCK_ORDER = "ORDER BY stock_time, id DESC"


#: For every JVM of the run, the session's and those of the processes the tests start (workers' drivers and executors,
#: Connect servers, notebooks' kernels, the Kafka broker):
#: - the first tier of the JIT only: the tests run many short queries, each compiling its own code, so the optimizing
#:   compiler (C2) spends more CPU than it saves; at the first tier the run takes about a quarter less CPU (each JVM
#:   says so in a line on standard error);
#: - streams that write their checkpoints through Hadoop's FileSystem API rather than its FileContext (Spark's
#:   default; a Spark conf given as a system property is a default of every SparkConf): without Hadoop's native
#:   library, which PySpark does not ship, the local file system starts a `readlink` process for each rename
#:   FileContext makes, most of the processes a stream starts (the streaming notebook: 8,365 with FileContext, 3,640
#:   without, and a quarter less CPU). Both are Spark's, and a rename is atomic on a local disk either way;
#: - and, added once the archive is made, the classes of tests/class_archive.py.
TEST_JVMS = {
    "JDK_JAVA_OPTIONS": "-XX:TieredStopAtLevel=1 -Dspark.sql.streaming.checkpointFileManagerClass="
    "org.apache.spark.sql.execution.streaming.FileSystemBasedCheckpointFileManager"
}


def pytest_configure(config: pytest.Config) -> None:
    # Before the session's JVM starts, and inherited by every process started: pytest-xdist's workers too, which
    # therefore leave it as they find it.
    if not hasattr(config, "workerinput"):
        os.environ.update(TEST_JVMS)
        archive = class_archive(TEST_JVMS)
        if archive is not None:  # a JVM of another class path, or of another Java, goes without it, saying nothing
            os.environ["JDK_JAVA_OPTIONS"] += f" -XX:SharedArchiveFile={archive} -Xlog:cds=off -Xlog:cds+dynamic=off"
    # PySpark logs each SQL error it raises once more, as JSON on standard error with the Java stack trace, which it
    # fetches from the JVM (`_log_exception` of its captured exceptions): about 40 ms an error, and the tests raise
    # thousands. The errors themselves are what the tests check.
    for name in ("SQLQueryContextLogger", "DataFrameQueryContextLogger"):
        PySparkLogger.getLogger(name).setLevel(logging.CRITICAL)
    config.addinivalue_line(
        "markers",
        "slow: starts processes of its own (a cluster, a broker, a Connect server, kernels, workers); "
        "`make test-quick` leaves it out",
    )


@pytest.fixture(scope="session")
def jar() -> str:
    """The spark-cer jar; the tests that need one are skipped without it."""
    try:
        return spark_cer.jar_path()
    except FileNotFoundError:
        pytest.skip("no spark-cer jar: build it with `build/sbt spark/package` (or set SPARK_CER_JAR)")


@pytest.fixture(scope="session")
def spark(jar):
    """The one SparkSession of the run (local[2], 4 shuffle partitions, no UI), with TEST_JVMS' defaults."""
    session = spark_cer.session(
        app_name="spark-cer-tests",
        master="local[2]",
        **{
            "spark.sql.shuffle.partitions": "4",
            "spark.default.parallelism": "2",
            "spark.ui.enabled": "false",
            "spark.ui.showConsoleProgress": "false",
            "spark.sql.session.timeZone": "UTC",
            "spark.driver.memory": "2g",
        },
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture(scope="session")
def stocks(spark):
    """The stock trace as a cached DataFrame, also registered as the views `stocks` and `S`."""
    df = spark.read.csv(str(STOCKS), header=True, schema=STOCK_SCHEMA).cache()
    df.count()
    df.createOrReplaceTempView("stocks")
    df.createOrReplaceTempView("S")
    return df


class Runner:
    """
    The engine's command-line runner (`io.sparkcer.engine.runner.Main`, what `make engine-run` starts) on a query file
    and a CSV file: its entry point called with the command line's arguments in the JVM of the run's SparkSession,
    whose jar holds the engine, rather than in a JVM started per query (each of those took seconds of CPU to start
    and to compile the engine again). The runner reads the file itself and never touches Spark. Its output depends on
    nothing else, so each run is made once and its output kept for the tests that ask again.
    """

    def __init__(self, spark, workdir: Path) -> None:
        self._gateway = spark.sparkContext._gateway
        self.workdir = workdir
        self._count = 0
        self._done: Dict[tuple, Tuple[str, str]] = {}

    def _query_file(self, query: str) -> Path:
        self._count += 1
        path = self.workdir / f"query{self._count}.ceql"
        path.write_text(query, encoding="utf-8")
        return path

    def _run(self, query: str, csv: Path, *extra: str) -> Tuple[str, str]:
        """The runner's standard output and standard error; it must end well."""
        key = (query, str(csv), extra)
        if key not in self._done:
            jvm = self._gateway.jvm
            args = ["--query", str(self._query_file(query)), "--csv", str(csv), *extra]
            array = self._gateway.new_array(jvm.java.lang.String, len(args))
            for i, arg in enumerate(args):
                array[i] = arg
            stdout, stderr = jvm.java.io.ByteArrayOutputStream(), jvm.java.io.ByteArrayOutputStream()
            status = jvm.io.sparkcer.engine.runner.Main.run(
                jvm.scala.collection.immutable.ArraySeq.unsafeWrapArray(array),
                jvm.java.io.PrintStream(stdout, True, "UTF-8"),
                jvm.java.io.PrintStream(stderr, True, "UTF-8"),
            )
            assert status == 0, f"runner failed ({status}): {stderr.toString('UTF-8')}"
            self._done[key] = (stdout.toString("UTF-8"), stderr.toString("UTF-8"))
        return self._done[key]

    def matches(self, query: str, csv: Path, *extra: str) -> List[Dict]:
        """Every match, as the JSON objects the runner prints."""
        return [json.loads(line) for line in self._run(query, csv, *extra)[0].splitlines() if line]

    def count(self, query: str, csv: Path, *extra: str) -> int:
        """The match count the runner reports with --quiet."""
        stderr = self._run(query, csv, "--quiet", *extra)[1]
        first = stderr.splitlines()[0]  # events: N, matches: M, ...
        return int(first.split("matches: ")[1].split(",")[0])


@pytest.fixture(scope="session")
def runner(spark, tmp_path_factory) -> Runner:
    return Runner(spark, tmp_path_factory.mktemp("runner"))


# ---- a small event table with NULLs, written as CSV so that Spark and the runner read the same data -----------

EVENT_SCHEMA = "event_type string, id long, sym string, price double, volume long, ts long"
EVENT_COLUMNS = ["event_type", "id", "sym", "price", "volume", "ts"]


def _event_rows(n: int = 160, seed: int = 7) -> List[list]:
    import random

    rng = random.Random(seed)
    rows, ts = [], 0
    for i in range(1, n + 1):
        ts += rng.choice([0, 1, 1, 2, 3])  # ties on ts: the stream order is ts, then id
        sym = rng.choice(["A", "A", "B", "B", "C", None])  # NULL partition keys
        price = None if rng.random() < 0.08 else round(rng.uniform(80, 130), 2)  # NULL predicate inputs
        rows.append([rng.choice(["SELL", "BUY", "BUY"]), i, sym, price, rng.randrange(1, 100), ts])
    return rows


def _csv_cell(v) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:.2f}"  # always with a decimal point, so the runner reads a double as Spark does
    return str(v)


@pytest.fixture(scope="session")
def events_csv(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("events") / "events.csv"
    lines = [",".join(EVENT_COLUMNS)] + [",".join(_csv_cell(v) for v in r) for r in _event_rows()]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture(scope="session")
def events(spark, events_csv):
    """The small event table as a cached DataFrame, registered as the view `events`."""
    df = spark.read.csv(str(events_csv), header=True, schema=EVENT_SCHEMA).cache()
    df.createOrReplaceTempView("events")
    return df


def canonical(rows) -> Counter:
    """Spark rows or the runner's JSON objects as a multiset of canonical JSON strings."""
    return Counter(json.dumps(r if isinstance(r, dict) else r.asDict(recursive=True), sort_keys=True) for r in rows)


def multiset(df: DataFrame) -> Counter:
    """A batch DataFrame's rows as a multiset (JSON, so that timestamps compare as Spark prints them)."""
    return canonical(json.loads(line) for line in df.toJSON().collect())


# ---- streams: the trace's first events, the checkpoints, the worker processes ----


@pytest.fixture(scope="session")
def trace() -> List[list]:
    """The first TRACE_EVENTS events of the stock trace in stream order (time, then id), as CSV cells."""
    opener = gzip.open if STOCKS.suffix == ".gz" else open
    with opener(STOCKS, "rt", newline="") as f:
        reader = csv.reader(f)
        assert next(reader) == STOCK_COLUMNS
        rows = sorted(reader, key=lambda r: (int(r[5]), int(r[1])))
    return rows[:TRACE_EVENTS]


def write_stock_csv(path: Path, rows: Sequence[Sequence]) -> None:
    """Stock events (CSV cells or values, in STOCK_COLUMNS' order) as a CSV file with its header."""
    with open(path, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(STOCK_COLUMNS)
        writer.writerows(rows)


def batch_files(directory: Path) -> List[int]:
    """The batch ids with a file in a checkpoint's offsets/ or commits/ folder."""
    if not directory.is_dir():
        return []
    return sorted(int(p.name) for p in directory.iterdir() if p.name.isdigit())


def wait_for_worker(proc: subprocess.Popen, log: Path, what: str, timeout: float = 300) -> None:
    """Waits for a worker to end, which must end well (the tail of its log says why not); one still running at the
    timeout is killed."""
    try:
        assert proc.wait(timeout=timeout) == 0, f"{what} failed:\n{log.read_text(errors='replace')[-4000:]}"
    finally:
        if proc.poll() is None:
            kill_group(proc)


def kill_group(proc: subprocess.Popen) -> None:
    """SIGKILL to a worker and its JVMs (the process group of a worker started with start_new_session), then wait
    until they are gone."""
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    deadline = time.time() + 30
    while time.time() < deadline:
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)
    raise AssertionError("the worker's JVM outlived SIGKILL")
