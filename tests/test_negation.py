"""
Negation between events, `φ ; NONE(R [AS v] [FILTER f]) ; ψ`, on the real jar: "no B of the account between A and
C" (the lazy chain paper's SEQ(A a, !(B b), C c), Kolchinsky et al., §4.4) through `spark.sql` on a small table, its
rows worked out by hand; the contrast with `NOT(...)`, which reads one event that is not an R; and
`spark_cer.validate` refusing a NONE where it cannot stand, at its place.
"""

from __future__ import annotations

import pytest

import spark_cer
from spark_cer import CeqlAnalysisError, CeqlSyntaxError

# (event_type, acct, ts): A@0 and C@3 have a B of their account (B@2) between; A@1 and C@4 only a B of another one;
# A@1 and C@7 have B@5 of theirs between; nothing comes between A@6 and C@7.
ROWS = [("A", 1, 0), ("A", 2, 1), ("B", 1, 2), ("C", 1, 3), ("C", 2, 4), ("B", 2, 5), ("A", 2, 6), ("C", 2, 7)]
COLUMNS = ["event_type", "acct", "ts"]


@pytest.fixture(scope="module")
def transfers(spark):
    spark.createDataFrame(ROWS, "event_type string, acct long, ts long").createOrReplaceTempView("transfers")


def pairs(rows) -> list:
    return sorted((r.a.ts, r.c.ts) for r in rows)


# A count window judges the NONE on the lazy chain or the registers, raced; a window on ts lets acct be a partition
# (nothing counts the events between), where the NONE tests its event alone, and an unpartitioned query is cut into
# ranges of ts.
WINDOWS = ["10 EVENTS", "10 [ts]"]


@pytest.mark.parametrize("window", WINDOWS)
def test_no_b_of_the_account_between_a_and_c(spark, transfers, window: str) -> None:
    rows = spark.sql(
        "SELECT * FROM transfers PATTERN A AS a ; NONE(B AS b FILTER b.acct = a.acct) ; C AS c "
        f"FILTER c.acct = a.acct ORDER BY ts WITHIN {window}"
    ).collect()
    assert pairs(rows) == [(1, 4), (6, 7)]
    assert [(r.match_start, r.match_end) for r in sorted(rows)] == [(1, 4), (6, 7)]


@pytest.mark.parametrize("window", WINDOWS)
def test_none_excludes_every_such_event_not_reads_one(spark, transfers, window: str) -> None:
    query = "SELECT * FROM transfers PATTERN A AS a ; {} ; C AS c ORDER BY ts WITHIN " + window
    # No B at all between: only A@6 and C@7.
    assert pairs(spark.sql(query.format("NONE(B)")).collect()) == [(6, 7)]
    # Some event between that is not a B.
    assert pairs(spark.sql(query.format("NOT(B)")).collect()) == [(0, 3), (0, 4), (0, 7), (1, 4), (1, 7)]


def test_validate_refuses_none_where_it_cannot_stand(spark, transfers) -> None:
    with pytest.raises(CeqlSyntaxError) as info:
        spark_cer.validate("SELECT * FROM transfers\nPATTERN A ; NONE(B) : C ORDER BY ts", COLUMNS, spark=spark)
    e = info.value
    assert (e.line, e.column, e.length) == (2, 13, 7)
    assert "with ':' no event comes between: A : NOT(B) : C already says" in e.problem
    assert str(e).splitlines()[-1].strip() == "^^^^^^^"

    with pytest.raises(CeqlAnalysisError) as info:
        spark_cer.validate(
            "SELECT b FROM transfers PATTERN A AS a ; NONE(B AS b FILTER b.acct = a.acct) ; C AS c ORDER BY ts",
            COLUMNS,
            spark=spark,
        )
    assert (info.value.line, info.value.column) == (1, 8)
    assert "'b' is the event of NONE(...) at line 1, column 42, which binds nothing in the match" in info.value.problem
