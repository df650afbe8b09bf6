"""
What Spark expects of an operator: the same rows with adaptive query execution on and off, with one
shuffle partition and with 200, on a skewed key (one key with more than half of the rows) under AQE's skew
handling, and with the input a cached table, a bucketed one (whose scan is already hashed by the key, so that
Spark plans no shuffle before the operator) or a Delta table (in a session of its own with Delta's extension beside
spark-cer's, tests/delta_worker.py). Each query's rows under each setting are those under Spark's defaults for this
run (AQE on, 4 shuffle partitions), over the same rows.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from contextlib import contextmanager
from pathlib import Path
from typing import Dict, Iterator

import pytest
from pyspark.sql import functions as F

from conftest import canonical

pytestmark = pytest.mark.slow  # every query under every setting, and a Delta session in a process of its own

ORDER = "ORDER BY ts, id"

# Over a table `t` with the columns of `events` (event_type, id, sym, price, volume, ts).
QUERIES = {
    # registers (prev, count) per key
    "ceql-registers": "SELECT * FROM t PATTERN (BUY AS b)+ FILTER b.price > prev(b.price) AND count(b) >= 3 "
    f"PARTITION BY sym {ORDER} WITHIN 8 [ts]",
    # the key derived from an equality, a lazy chain within it
    "ceql-derived-key": "SELECT * FROM t PATTERN SELL AS s ; BUY AS b FILTER b.sym = s.sym AND b.price > s.price "
    f"{ORDER} WITHIN 6 [ts]",
    "cer-table-function": "SELECT * FROM cer(TABLE(t) PARTITION BY (sym) ORDER BY (ts, id), "
    "'SELECT * WHERE SELL AS s ; BUY AS b FILTER b.volume > s.volume WITHIN 4 [ts]')",
    "match-recognize": "SELECT * FROM t MATCH_RECOGNIZE (PARTITION BY sym ORDER BY ts, id "
    "MEASURES FIRST(A.id) AS first_id, LAST(B.id) AS last_id, count(B.*) AS ups, MATCH_NUMBER() AS n "
    "ONE ROW PER MATCH PATTERN (A B+) DEFINE B AS price > PREV(price))",
    "match-recognize-all-rows": "SELECT * FROM t MATCH_RECOGNIZE (PARTITION BY sym ORDER BY ts, id "
    "MEASURES CLASSIFIER() AS label, RUNNING count(*) AS so_far ALL ROWS PER MATCH "
    "PATTERN (S B{2,}) DEFINE S AS event_type = 'SELL', B AS event_type = 'BUY')",
}

SETTINGS: Dict[str, Dict[str, str]] = {
    "aqe off": {"spark.sql.adaptive.enabled": "false"},
    "one shuffle partition": {"spark.sql.shuffle.partitions": "1"},
    "200 shuffle partitions, aqe off": {"spark.sql.shuffle.partitions": "200", "spark.sql.adaptive.enabled": "false"},
    "200 shuffle partitions, coalesced": {
        "spark.sql.shuffle.partitions": "200",
        "spark.sql.adaptive.coalescePartitions.enabled": "true",
    },
    "skew handling": {
        "spark.sql.adaptive.skewJoin.enabled": "true",
        "spark.sql.adaptive.skewJoin.skewedPartitionThresholdInBytes": "1k",
        "spark.sql.adaptive.skewJoin.skewedPartitionFactor": "1",
        "spark.sql.adaptive.advisoryPartitionSizeInBytes": "1k",
        "spark.sql.adaptive.optimizeSkewsInRebalancePartitions.enabled": "true",
    },
}


@contextmanager
def settings(spark, conf: Dict[str, str]) -> Iterator[None]:
    before = {k: spark.conf.get(k, None) for k in conf}
    for k, v in conf.items():
        spark.conf.set(k, v)
    try:
        yield
    finally:
        for k, v in before.items():
            if v is None:
                spark.conf.unset(k)
            else:
                spark.conf.set(k, v)


@pytest.fixture(scope="module")
def skewed(spark, events):
    """`events`, and its key A's rows five times more, later in time: A holds more than half of the rows."""
    copies = [
        events.where("sym = 'A'").select(
            "event_type",
            (F.col("id") + 1000 * k).alias("id"),
            "sym",
            "price",
            "volume",
            (F.col("ts") + 1000 * k).alias("ts"),
        )
        for k in range(1, 6)
    ]
    df = events
    for c in copies:
        df = df.unionByName(c)
    share = df.where("sym = 'A'").count() / df.count()
    assert share > 0.5, share
    return df


def rows(spark, df, query: str, conf: Dict[str, str] = {}) -> object:
    df.createOrReplaceTempView("t")
    with settings(spark, conf):
        return canonical(spark.sql(query).collect())


@pytest.fixture(scope="module")
def skewed_rows(spark, skewed) -> Dict[str, Counter]:
    """Each query's rows over `skewed` under this run's defaults, run once for every setting to give."""
    return {name: rows(spark, skewed, query) for name, query in QUERIES.items()}


@pytest.fixture(scope="module")
def events_rows(spark, events) -> Dict[str, Counter]:
    """Each query's rows over `events` under this run's defaults, run once for every other input to give."""
    return {name: rows(spark, events, query) for name, query in QUERIES.items()}


@pytest.mark.parametrize("setting", list(SETTINGS))
@pytest.mark.parametrize("query", list(QUERIES))
def test_the_same_rows_under_every_setting(spark, skewed, skewed_rows, query: str, setting: str) -> None:
    expected = skewed_rows[query]
    assert expected, "the query should match something"
    assert rows(spark, skewed, QUERIES[query], SETTINGS[setting]) == expected


@pytest.mark.parametrize("query", list(QUERIES))
def test_a_cached_table(spark, events, events_rows, query: str) -> None:
    expected = events_rows[query]
    cached = events.select("*").cache()
    try:
        cached.count()
        assert rows(spark, cached, QUERIES[query]) == expected
    finally:
        cached.unpersist()


@pytest.fixture(scope="module")
def bucketed(spark, events, tmp_path_factory):
    """`events` as a table bucketed by its key into 3 files, each sorted by time."""
    path = tmp_path_factory.mktemp("bucketed")
    events.write.bucketBy(3, "sym").sortBy("ts").option("path", str(path)).saveAsTable("events_bucketed")
    yield spark.table("events_bucketed")
    spark.sql("DROP TABLE IF EXISTS events_bucketed")


@pytest.mark.parametrize("query", list(QUERIES))
def test_a_bucketed_table(spark, bucketed, events_rows, query: str) -> None:
    expected = events_rows[query]
    with settings(spark, {"spark.sql.sources.bucketing.autoBucketedScan.enabled": "false"}):
        assert rows(spark, bucketed, QUERIES[query]) == expected
        plan = spark.sql(QUERIES[query])._jdf.queryExecution().executedPlan().toString()
        assert "Exchange" not in plan, plan


DELTA_WORKER = Path(__file__).resolve().parent / "delta_worker.py"


@pytest.fixture(scope="module")
def over_delta(jar, events_csv, tmp_path_factory):
    """The queries' rows over a Delta table of `events`, per query: over a view of it, and over its path."""
    pytest.importorskip("delta", reason="the Delta test needs delta-spark (tests/requirements.txt)")
    work = tmp_path_factory.mktemp("delta")
    out = work / "rows.json"
    done = subprocess.run(
        [
            sys.executable,
            str(DELTA_WORKER),
            "--events",
            str(events_csv),
            "--table",
            str(work / "events"),
            "--queries",
            json.dumps(QUERIES),
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, f"the worker failed:\n{done.stdout[-3000:]}\n{done.stderr[-6000:]}"
    return json.loads(out.read_text())


@pytest.mark.parametrize("query", list(QUERIES))
def test_a_delta_table(over_delta, events_rows, query: str) -> None:
    expected = sorted(events_rows[query].elements())
    assert over_delta[query]["view"] == expected
    assert over_delta[query]["path"] == expected
