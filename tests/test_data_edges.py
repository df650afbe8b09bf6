"""
Data at the edges: NULLs in the order, partition and type columns, an empty input, a single row, and 100,000
distinct partition keys. Rows that cannot be placed (a NULL order or partition key) are left out, a row without
a type is an event no atom accepts, and nothing crashes; the counts are worked out by hand.
"""

from __future__ import annotations

import time

import pytest

SCHEMA = "event_type string, k string, alt string, ts long, id long"


@pytest.fixture(scope="module")
def edges(spark):
    """Ten rows in ts order; comments say which ones have NULLs."""
    rows = [
        ("A", "x", None, 1, 1),
        ("B", "x", None, None, 2),  # NULL order key: left out
        ("A", None, "x", 3, 3),  # NULL key, but its alternative `alt` is x
        ("B", "x", None, 4, 4),
        (None, "x", None, 5, 5),  # no type: an event no atom accepts
        ("B", "x", None, 6, None),  # NULL second order key: left out
        ("A", "y", None, 7, 7),
        (None, "y", None, 8, 8),  # no type
        ("B", "y", None, 9, 9),
        ("B", None, None, 10, 10),  # NULL key (and alternative): left out with PARTITION BY
    ]
    df = spark.createDataFrame(rows, SCHEMA)
    df.createOrReplaceTempView("edges")
    return df


def count(spark, query: str) -> int:
    return spark.sql(query).count()


def test_null_order_keys_are_left_out(spark, edges):
    # A@1, A@3, A@7 before B@4, B@9, B@10 (B@NULL and B@6 with id NULL are left out): 3 + 3 + 2 pairs.
    assert count(spark, "SELECT * FROM edges PATTERN A ; B ORDER BY ts, id") == 8
    # Within 4 on ts: A@1 ; B@4, A@3 ; B@4, A@7 ; B@9, A@7 ; B@10 (the stream is cut in ranges of ts).
    assert count(spark, "SELECT * FROM edges PATTERN A ; B ORDER BY ts, id WITHIN 4 [ts]") == 4
    rows = spark.sql("SELECT * FROM edges PATTERN A AS a ; B AS b ORDER BY ts, id").collect()
    assert {r.b.id for r in rows} == {4, 9, 10}


def test_null_partition_keys_are_left_out(spark, edges):
    # x: A@1 ; B@4 (A@3 has no k). y: A@7 ; B@9. B@10 has no key.
    by_k = spark.sql("SELECT * FROM edges PATTERN A AS a ; B AS b PARTITION BY k ORDER BY ts, id").collect()
    assert sorted((r.k, r.a.id, r.b.id) for r in by_k) == [("x", 1, 4), ("y", 7, 9)]
    # With CORE's alternatives, A@3 takes its key from alt: x gains A@3 ; B@4.
    by_first = "SELECT * FROM edges PATTERN A ; B PARTITION BY [k, alt] ORDER BY ts, id"
    assert count(spark, by_first) == 3
    assert edges.cer("A ; B", partition_by="k", order_by=["ts", "id"]).count() == 2


def test_rows_without_a_type_are_events_no_atom_accepts(spark, edges):
    assert count(spark, "SELECT * FROM edges PATTERN A ; B ORDER BY ts, id") == 8  # as without those rows
    # Contiguity counts them: B@4 is right after A@3 (key alt=x), but in y the untyped row is between A@7 and B@9.
    assert count(spark, "SELECT * FROM edges PATTERN A : B PARTITION BY [k, alt] ORDER BY ts, id") == 1
    # And NOT(B) reads them: A@7, then the untyped row, then B@9.
    assert count(spark, "SELECT * FROM edges PATTERN A : NOT(B) : B PARTITION BY k ORDER BY ts, id") == 1


@pytest.mark.parametrize(
    "clauses",
    [
        "ORDER BY ts, id",
        "PARTITION BY k ORDER BY ts, id",
        "ORDER BY ts WITHIN 5 [ts]",  # split in ranges of ts
        "PARTITION BY k ORDER BY ts CONSUME BY ANY",  # one pass over every key
    ],
)
def test_empty_input(spark, edges, clauses):
    edges.where("id < 0").createOrReplaceTempView("no_rows")
    edges.where("ts IS NULL").createOrReplaceTempView("no_placed_rows")
    for view in ("no_rows", "no_placed_rows"):
        df = spark.sql(f"SELECT * FROM {view} PATTERN A AS a ; B AS b {clauses}")
        assert df.collect() == []
        assert df.columns[-4:] == ["match_start", "match_end", "a", "b"]


def test_one_row(spark, edges):
    edges.where("id = 1").createOrReplaceTempView("one_row")
    rows = spark.sql("SELECT * FROM one_row PATTERN A AS a PARTITION BY k ORDER BY ts WITHIN 1 [ts]").collect()
    assert [(r.k, r.match_start, r.match_end, r.a.id) for r in rows] == [("x", 1, 1, 1)]
    assert count(spark, "SELECT * FROM one_row PATTERN A ; B ORDER BY ts") == 0
    assert count(spark, "SELECT * FROM one_row PATTERN B ORDER BY ts") == 0


@pytest.fixture(scope="module")
def many_keys(spark):
    """100,000 keys of two rows each, A then B, interleaved: key i has ts 2i and 2i + 1."""
    df = (
        spark.range(200_000)
        .selectExpr("IF(id % 2 = 0, 'A', 'B') AS event_type", "CAST(id DIV 2 AS STRING) AS k", "id AS ts")
        .cache()
    )
    df.count()
    df.createOrReplaceTempView("many_keys")
    yield df
    df.unpersist()


@pytest.mark.parametrize(
    "clauses",
    [
        "PARTITION BY k ORDER BY ts",  # each task reads one key after another
        "PARTITION BY k ORDER BY ts WITHIN 2 [ts]",
        "PARTITION BY k ORDER BY ts CONSUME BY PARTITION",
        "PARTITION BY k ORDER BY ts CONSUME BY ANY",  # one task holds every key at once
    ],
)
def test_100000_partition_keys(spark, many_keys, clauses):
    started = time.perf_counter()
    df = spark.sql(f"SELECT * FROM many_keys PATTERN A AS a ; B AS b {clauses}")
    summary = df.selectExpr(
        "count(*)", "count(DISTINCT k)", "sum(IF(b.ts = a.ts + 1 AND a.ts = CAST(k AS BIGINT) * 2, 1, 0))"
    ).first()
    seconds = time.perf_counter() - started
    assert tuple(summary) == (100_000, 100_000, 100_000)
    # A generous ceiling (about 5 s here): it catches work that grows with the number of keys per event.
    assert seconds < 120, f"{seconds:.1f} s for 100,000 keys"
