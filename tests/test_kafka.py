"""
Kafka in, exactly once out, on a real broker: Apache Kafka in KRaft mode in a JVM of its own
(examples/kafka_broker.py), Spark's Kafka connector for the source, spark-cer's `kafka-exactly-once` sink for the
matches. The Spark sides run in processes of their own (tests/kafka_worker.py), since this run's session has no
Kafka connector.

The stock trace is produced into a topic over time; CEQL and MATCH_RECOGNIZE read it with a watermark and write
their matches to a topic each and to parquet files. The driver is killed in the middle and started again from the
checkpoints; then each query's last commit is taken out of its checkpoint, so that Spark runs that batch once more
(what happens when a driver dies after a batch's output and before its commit: a moment a kill only hits by luck).
In that run, each query started again on a new checkpoint under the same transactional id must be refused. The
output topics, read with `isolation.level=read_committed`, and the files must hold every match of the same query on
the table exactly once.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import List

import pytest
from pyspark.sql import functions as F

from checkout import spark_environment
from conftest import batch_files, canonical, kill_group, multiset, wait_for_worker, write_stock_csv
from kafka_broker import KafkaBroker
import kafka_worker
import streaming_worker

pytestmark = pytest.mark.slow  # a Kafka broker and streaming workers

WORKER = Path(kafka_worker.__file__).resolve()
INPUT_TOPIC = "trades"
CHUNKS = 8  # the trace reaches the topic in this many parts...
PAUSE = 1.5  # ...this many seconds apart
# The last events before the flush: one match of each language that only the flush's watermark makes final, so
# that the batch run again at the end has matches to write (twice, were the sink not exactly-once).
TAIL_MS = 10 * 3600 * 1000  # 10:00, after the trace's first events
TAIL = [
    ["SELL", 10**11, "TAIL", 6000, 10.0, TAIL_MS],
    ["BUY", 10**11 + 1, "TAIL", 1500, 10.0, TAIL_MS + 100],
    ["BUY", 10**11 + 2, "TAIL", 2500, 10.0, TAIL_MS + 200],
]


@pytest.fixture(scope="module")
def broker():
    with KafkaBroker.start() as broker:
        yield broker


def _worker(broker: KafkaBroker, log: Path, *args: str) -> subprocess.Popen:
    with open(log, "ab") as out:
        return subprocess.Popen(
            [sys.executable, str(WORKER), *args, "--bootstrap", broker.bootstrap_servers, "--topic", INPUT_TOPIC],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=spark_environment(),
            start_new_session=True,  # its own process group: the JVM dies with it
        )


def _await_line(log: Path, line: str, proc: subprocess.Popen, timeout: float = 300) -> None:
    """Waits for a worker's line; a first start on a new machine also fetches Spark's connector."""
    deadline = time.time() + timeout
    while line not in log.read_text(errors="replace"):
        assert proc.poll() is None, f"ended before it wrote {line!r}:\n{log.read_text(errors='replace')[-4000:]}"
        assert time.time() < deadline, f"no {line!r} in {timeout:g} s:\n{log.read_text(errors='replace')[-4000:]}"
        time.sleep(0.1)


def _checkpoints(out: Path) -> List[Path]:
    return sorted(out.glob("*/*-checkpoint"))


def test_kafka_in_exactly_once_out_across_a_killed_driver(spark, trace, broker, tmp_path) -> None:
    assert max(int(r[5]) for r in trace) < TAIL_MS, "the tail must come after the trace's events"
    events, out, log = tmp_path / "events.csv", tmp_path / "out", tmp_path / "log"
    write_stock_csv(events, trace + TAIL)
    table = spark.read.csv(str(events), header=True, schema=streaming_worker.SCHEMA).withColumn(
        "ts", F.timestamp_millis("stock_time")
    )
    expected = {
        language: multiset(streaming_worker.matches_of(table, language)) for language in streaming_worker.LANGUAGES
    }
    for language, matches in expected.items():
        assert max(matches.values()) == 1 and any('"TAIL"' in m for m in matches), language

    # First run: the events arrive over time; once the CEQL-to-Kafka query has committed two batches, the driver is
    # killed while its next batch runs.
    started = time.time()
    go = tmp_path / "go"
    producer = _worker(
        broker,
        log,
        "produce",
        "--events",
        str(events),
        "--chunks",
        str(CHUNKS),
        "--pause",
        str(PAUSE),
        "--wait-for",
        str(go),
    )
    _await_line(log, "produced events 0 ", producer)  # Spark's source needs the topic to exist
    first = _worker(broker, log, "match", "--out", str(out), "--keep-running")
    _await_line(log, "started", first)
    go.touch()  # the rest of the events arrive while the queries run
    watched = out / "ceql" / "kafka-checkpoint"
    try:
        deadline, in_flight = time.time() + 240, False
        while time.time() < deadline:
            assert first.poll() is None, f"the first run ended early:\n{log.read_text(errors='replace')[-4000:]}"
            commits, offsets = batch_files(watched / "commits"), batch_files(watched / "offsets")
            if len(commits) >= 2 and len(offsets) > len(commits):
                in_flight = True
                break
            if len(commits) >= 4:  # never caught a batch in flight: kill between two
                break
            time.sleep(0.02)
        else:
            raise AssertionError(f"no two batches in 240 s:\n{log.read_text(errors='replace')[-4000:]}")
    finally:
        kill_group(first)
    killed_after = len(batch_files(watched / "commits"))
    print(
        f"\n[kafka] the driver killed after {killed_after} batches (one in flight: {in_flight}), "
        f"{time.time() - started:.0f} s after the start"
    )
    wait_for_worker(producer, log, "the producer")

    # Second run, from the checkpoints, to the end of the topic.
    wait_for_worker(_worker(broker, log, "match", "--out", str(out)), log, "the restarted run")
    print(f"[kafka] the restarted run ended {time.time() - started:.0f} s after the start")

    # Each query's last batch runs again in a third run, as after a driver lost between its output and its commit.
    checkpoints = _checkpoints(out)
    assert len(checkpoints) == 4, checkpoints
    for checkpoint in checkpoints:
        last = batch_files(checkpoint / "commits")[-1]
        for name in (str(last), f".{last}.crc"):  # the commit and the checksum file Hadoop writes beside it
            (checkpoint / "commits" / name).unlink()
    # Then, in the same driver, each Kafka query on a new checkpoint: it numbers its batches from 0 again, and under
    # the same transactional id the sink refuses it rather than skip the batches the old query's offset covers. The
    # topics are read back after that, so a refusal that wrote anything would show as a match written twice.
    read_back, third_log = tmp_path / "read-back.json", tmp_path / "third.log"
    third = _worker(
        broker,
        third_log,
        "match",
        "--out",
        str(out),
        "--fresh-checkpoints",
        str(tmp_path / "fresh"),
        "--read-back",
        str(read_back),
    )
    wait_for_worker(third, third_log, "the third run")
    for checkpoint in checkpoints:
        assert batch_files(checkpoint / "commits") == batch_files(checkpoint / "offsets"), checkpoint
    print(f"[kafka] the third run ended {time.time() - started:.0f} s after the start")
    said = third_log.read_text(errors="replace")
    for language in streaming_worker.LANGUAGES:
        refusal = next((line for line in said.splitlines() if line.startswith(f"{language} ")), "nothing said")
        assert refusal.startswith(f"{language} refused: ") and "has written batches 0 to" in refusal, said[-4000:]

    topics = json.loads(read_back.read_text())
    for language in streaming_worker.LANGUAGES:
        files = multiset(spark.read.parquet(str(out / language / "files")))
        for sink, got in (("topic", canonical(topics[language])), ("files", files)):
            twice = [m for m, n in got.items() if n > 1]
            assert not twice, f"{language}, {sink}: {len(twice)} matches written more than once, e.g. {twice[:2]}"
            assert got == expected[language], (
                f"{language}, {sink} vs table: {sum(got.values())} vs {sum(expected[language].values())} matches; "
                f"only in the {sink}: {list((got - expected[language]).elements())[:2]}; "
                f"only on the table: {list((expected[language] - got).elements())[:2]}"
            )


def test_the_sink_says_what_it_needs_without_the_connector(spark) -> None:
    """This run's session has no Kafka classes: the sink names the package to add instead of failing on a class."""
    rows = spark.readStream.format("rate").load().selectExpr("CAST(value AS STRING) AS value")
    writer = rows.writeStream.format("kafka-exactly-once").option("topic", "t")
    with pytest.raises(Exception, match="needs Kafka's client classes.*spark-sql-kafka-0-10"):
        writer.start().stop()
