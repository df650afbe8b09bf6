"""
MATCH_RECOGNIZE on the real jar (SQL:2016 row pattern recognition, as Trino reads it): Flink's MatchRecognizeITCase
and the golden cases of a Spark fork's MATCH_RECOGNIZE, ported with exact rows and Spark's types, through
`spark.sql` and `DataFrame.match_recognize`; errors raised as `PatternError`s placed in the clause.

Where Flink's expected rows differ from the standard's, the standard (as Trino evaluates it) is followed and the
test says why: Flink's greedy quantifiers never give back a row that the next variable could take, and Flink reports
the first match to complete rather than the preferred one.
"""

from __future__ import annotations

import datetime as dt

import pytest

import spark_cer

BASE = dt.datetime(2023, 12, 1, 12, 0, 0)


def _at(seconds: int) -> dt.datetime:
    return BASE + dt.timedelta(seconds=seconds)


def _rows(df) -> list:
    return [tuple(r) for r in df.collect()]


def test_time_constraint_within(spark) -> None:
    """Flink F1: WITHIN INTERVAL bounds a match's span; 6-7-8 spans 61 s and does not match."""
    t = spark.createDataFrame(
        [
            (1, "z", _at(1)),
            (2, "a", _at(2)),
            (3, "b", _at(30)),
            (4, "c", _at(60)),
            (5, "x", _at(100)),
            (6, "a", _at(101)),
            (7, "b", _at(131)),
            (8, "c", _at(162)),
            (9, "z", _at(200)),
        ],
        "id int, name string, ts timestamp",
    )
    t.createOrReplaceTempView("my_table")
    df = spark.sql("""
        SELECT T.aid, T.bid, T.cid FROM my_table MATCH_RECOGNIZE (
          ORDER BY ts
          MEASURES A.id AS aid, B.id AS bid, C.id AS cid
          PATTERN (A B C) WITHIN INTERVAL '1' MINUTE
          DEFINE A AS name = 'a', B AS name = 'b', C AS name = 'c'
        ) AS T""")
    assert _rows(df) == [(2, 3, 4)]
    assert [f.dataType.simpleString() for f in df.schema.fields] == ["int", "int", "int"]


def test_simple_pattern_with_nulls(spark) -> None:
    """Flink F2: NULL fields read through variables and LAST."""
    spark.createDataFrame(
        [
            (i, n, None, _at(i))
            for i, n in [(1, "a"), (2, "b"), (3, "c"), (4, "d"), (5, None), (6, "a"), (7, "b"), (8, "c"), (9, None)]
        ],
        "id int, name string, nullField string, ts timestamp",
    ).createOrReplaceTempView("nulls_table")
    df = spark.sql("""
        SELECT T.aid, T.bNull, T.cid, T.aNull FROM nulls_table MATCH_RECOGNIZE (
          ORDER BY ts
          MEASURES A.id AS aid, A.nullField AS aNull, LAST(B.nullField) AS bNull, C.id AS cid
          PATTERN (A B C)
          DEFINE
            A AS name = 'a' AND nullField IS NULL,
            B AS name = 'b' AND LAST(A.nullField) IS NULL,
            C AS name = 'c'
        ) AS T""")
    assert _rows(df) == [(1, None, 3, None), (6, None, 8, None)]


def test_events_are_properly_ordered(spark) -> None:
    """Flink F3: ORDER BY with a descending secondary key."""
    data = [
        (2, 12, 1, "a", 1),
        (1, 11, 2, "b", 2),
        (3, 10, 3, "c", 3),
        (4, 8, 4, "a", 4),
        (4, 9, 5, "b", 5),
        (5, 7, 6, "c", 6),
        (6, 6, 8, "a", 7),
        (6, 6, 7, "b", 8),
        (8, 4, 9, "c", 9),
        (9, 3, 10, "a", 10),
        (10, 2, 11, "b", 11),
        (11, 1, 12, "c", 12),
    ]
    spark.createDataFrame(
        [(_at(s), o2, o3, n, i) for s, o2, o3, n, i in data],
        "ts timestamp, secondaryOrder int, ternaryOrder int, name string, id int",
    ).createOrReplaceTempView("ordered")
    df = spark.sql("""
        SELECT T.aid, T.bid, T.cid FROM ordered MATCH_RECOGNIZE (
          ORDER BY ts, secondaryOrder DESC, ternaryOrder ASC
          MEASURES A.id AS aid, B.id AS bid, C.id AS cid
          PATTERN (A B C)
          DEFINE A AS name = 'a', B AS name = 'b', C AS name = 'c'
        ) AS T""")
    assert _rows(df) == [(10, 11, 12)]


def test_logical_offsets(spark) -> None:
    """
    Flink F4, by the standard: rows 1-3 match too (DOWN = 19, 17; UP = 13), which Flink misses because its greedy
    DOWN{2,} keeps 13 rather than give it back to UP.
    """
    spark.createDataFrame(
        [("ACME", t, p, t) for t, p in [(1, 19), (2, 17), (3, 13), (4, 20), (5, 20), (6, 26), (7, 20), (8, 25)]],
        "symbol string, tstamp long, price int, tax long",
    ).createOrReplaceTempView("ticker_py")
    df = spark.sql("""
        SELECT * FROM ticker_py MATCH_RECOGNIZE (
          ORDER BY tstamp
          MEASURES FIRST(DOWN.tstamp) AS start_tstamp, LAST(DOWN.tstamp) AS bottom_tstamp, UP.tstamp AS end_tstamp,
                   FIRST(DOWN.price + DOWN.tax + 1) AS bottom_total, UP.price + UP.tax AS end_total
          ONE ROW PER MATCH
          AFTER MATCH SKIP PAST LAST ROW
          PATTERN (DOWN{2,} UP)
          DEFINE
            DOWN AS price < LAST(DOWN.price, 1) OR LAST(DOWN.price, 1) IS NULL,
            UP AS price < FIRST(DOWN.price)
        ) AS T""")
    assert _rows(df) == [(1, 2, 3, 21, 16), (6, 7, 8, 33, 33)]
    assert [f.dataType.simpleString() for f in df.schema.fields] == ["bigint"] * 5


def test_aggregates(spark) -> None:
    """
    Flink F5, by the standard (its weightedAvg UDAF written as Spark's sum(price * weight) / sum(weight)): the
    greedy D? takes row 8, so the one match runs to row 9, where Flink reports the first match to complete (E = 8)
    and then a second from row 9.
    """
    data = [
        (1, "a", 1, 0.8, 1),
        (2, "z", 2, 0.8, 3),
        (3, "b", 1, 0.8, 2),
        (4, "c", 1, 0.8, 5),
        (5, "d", 4, 0.1, 5),
        (6, "a", 2, 1.5, 2),
        (7, "b", 2, 0.8, 3),
        (8, "c", 1, 0.8, 2),
        (9, "h", 4, 0.8, 3),
        (10, "h", 4, 0.8, 3),
        (11, "h", 2, 0.8, 3),
        (12, "h", 2, 0.8, 3),
    ]
    spark.createDataFrame(data, "id int, name string, price int, rate double, weight int").createOrReplaceTempView(
        "aggregated"
    )
    df = spark.sql("""
        SELECT * FROM aggregated MATCH_RECOGNIZE (
          ORDER BY id
          MEASURES FIRST(id) AS startId, SUM(A.price) AS sumA, COUNT(D.price) AS countD, SUM(D.price) AS sumD,
                   sum(price * weight) / sum(weight) AS wAvg, AVG(B.price) AS avgB, SUM(B.price * B.rate) AS sumExprB,
                   LAST(id) AS endId
          AFTER MATCH SKIP PAST LAST ROW
          PATTERN (A+ B+ C D? E)
          DEFINE
            A AS SUM(A.price) < 6,
            B AS SUM(B.price * B.rate) < SUM(A.price) AND SUM(B.price * B.rate) > 0.2 AND SUM(B.price) >= 1 AND
                 AVG(B.price) >= 1 AND sum(price * weight) / sum(weight) > 1
        )""")
    ((start, sum_a, count_d, sum_d, w_avg, avg_b, sum_expr_b, end),) = _rows(df)
    assert (start, sum_a, count_d, sum_d, avg_b, end) == (1, 5, 1, 1, 3.0, 9)
    assert w_avg == pytest.approx(58 / 26) and sum_expr_b == pytest.approx(3.4)


def test_aggregates_with_null_inputs(spark) -> None:
    """Flink F6: sum and count skip NULLs; count(*) counts rows."""
    spark.createDataFrame(
        [
            (1, "a", 10),
            (2, "z", 10),
            (3, "b", None),
            (4, "c", None),
            (5, "d", 3),
            (6, "c", 3),
            (7, "c", 3),
            (8, "c", 3),
            (9, "c", 2),
        ],
        "id int, name string, price int",
    ).createOrReplaceTempView("null_inputs")
    df = spark.sql("""
        SELECT * FROM null_inputs MATCH_RECOGNIZE (
          ORDER BY id
          MEASURES SUM(A.price) AS sumA, COUNT(A.id) AS countAId, COUNT(A.price) AS countAPrice,
                   COUNT(*) AS countAll, COUNT(price) AS countAllPrice, LAST(id) AS endId
          AFTER MATCH SKIP PAST LAST ROW
          PATTERN (A+ C)
          DEFINE A AS SUM(A.price) < 30, C AS C.name = 'c'
        )""")
    assert _rows(df) == [(29, 7, 5, 8, 6, 8)]
    assert [f.dataType.simpleString() for f in df.schema.fields] == ["bigint"] * 5 + ["int"]


@pytest.mark.parametrize(
    "skip, expected",
    [
        ("PAST LAST ROW", [(26, 1, 4), (17, 5, 7)]),
        ("TO NEXT ROW", [(26, 1, 4), (24, 2, 5), (25, 3, 6), (22, 4, 7), (17, 5, 7), (7, 6, 7)]),
    ],
)
def test_after_match_skip(spark, skip, expected) -> None:
    """Flink F7 (its documentation's table), by the standard: under TO NEXT ROW the start at 7 still matches."""
    spark.createDataFrame(
        [("XYZ", p, _at(i + 1)) for i, p in enumerate([7, 9, 10, 5, 10, 7, 14])],
        "symbol string, price int, rowtime timestamp",
    ).createOrReplaceTempView("xyz")
    df = spark.sql(f"""
        SELECT sumPrice, second(startTime), second(endTime) FROM xyz MATCH_RECOGNIZE (
          PARTITION BY symbol ORDER BY rowtime
          MEASURES SUM(A.price) AS sumPrice, FIRST(rowtime) AS startTime, LAST(rowtime) AS endTime
          ONE ROW PER MATCH
          AFTER MATCH SKIP {skip}
          PATTERN (A+ C)
          DEFINE A AS SUM(A.price) < 30
        )""")
    assert _rows(df) == expected


def test_after_match_skip_to_the_first_row_fails(spark) -> None:
    """Flink F7's SKIP TO FIRST A: the standard's runtime error, which Spark raises."""
    spark.createDataFrame([(p, i) for i, p in enumerate([7, 9, 10, 5])], "price int, t int").createOrReplaceTempView(
        "skipping"
    )
    with pytest.raises(Exception, match="cannot skip to first row of match"):
        spark.sql(
            "SELECT * FROM skipping MATCH_RECOGNIZE (ORDER BY t AFTER MATCH SKIP TO FIRST A "
            "PATTERN (A+ C) DEFINE A AS SUM(A.price) < 30)"
        ).collect()


@pytest.mark.parametrize(
    "table, pattern, define, span",
    [
        ("quant", "A+", "A AS price > 80", (1, 3)),
        ("quant", "A+ B", "A AS price > 80, B AS price <= 80", (1, 4)),
        ("grouped", "(A B)+", "A AS price < 100, B AS price >= 100", (1, 4)),
        ("grouped", "(A B)+ C", "A AS price < 100, B AS price >= 100, C AS price < 50", (1, 5)),
    ],
)
def test_spark_fork_golden(spark, table, pattern, define, span) -> None:
    """The cloud-fan/spark fork's golden file: spans and the schema struct<start_ts:bigint,end_ts:bigint>."""
    data = {
        "quant": [(1, 100), (2, 110), (3, 120), (4, 50)],
        "grouped": [(1, 50), (2, 150), (3, 60), (4, 200), (5, 10)],
    }
    spark.createDataFrame(data[table], "ts long, price long").createOrReplaceTempView(table)
    df = spark.sql(
        f"SELECT * FROM {table} MATCH_RECOGNIZE (ORDER BY ts MEASURES FIRST(ts) AS start_ts, "
        f"LAST(ts) AS end_ts PATTERN ({pattern}) DEFINE {define})"
    )
    assert df.schema.simpleString() == "struct<start_ts:bigint,end_ts:bigint>"
    assert _rows(df) == [span]


def test_dataframe_match_recognize(spark) -> None:
    """DataFrame.match_recognize: the clause alone, a V-shape per symbol, ALL ROWS with CLASSIFIER."""
    prices = spark.createDataFrame(
        [("A", 1, 10.0), ("A", 2, 8.0), ("A", 3, 7.0), ("A", 4, 9.0), ("A", 5, 12.0), ("B", 1, 5.0), ("B", 2, 6.0)],
        "symbol string, day int, price double",
    )
    v = prices.match_recognize("""
        PARTITION BY symbol ORDER BY day
        MEASURES FIRST(day) AS top_day, LAST(DOWN.price) AS bottom, LAST(UP.price) AS back
        PATTERN (START DOWN+ UP+)
        DEFINE DOWN AS price < PREV(price), UP AS price > PREV(price)""")
    assert _rows(v) == [("A", 1, 7.0, 12.0)]
    labelled = spark_cer.match_recognize(
        prices.where("symbol = 'A'"),
        """
        ORDER BY day MEASURES CLASSIFIER() AS label ALL ROWS PER MATCH
        PATTERN (START DOWN+ UP+) DEFINE DOWN AS price < PREV(price), UP AS price > PREV(price)""",
    )
    assert [(r.day, r.label) for r in labelled.collect()] == [
        (1, "START"),
        (2, "DOWN"),
        (3, "DOWN"),
        (4, "UP"),
        (5, "UP"),
    ]
    assert labelled.columns == ["day", "label", "symbol", "price"]


def test_errors_are_placed_in_the_clause(spark) -> None:
    df = spark.createDataFrame([(1, 2.0)], "day int, price double")
    with pytest.raises(spark_cer.PatternSyntaxError) as syntax:
        df.match_recognize("ORDER BY day\nPATTERN (A+ |)")
    assert (syntax.value.line, syntax.value.column) == (2, 14)
    with pytest.raises(spark_cer.PatternAnalysisError) as unknown:
        df.match_recognize("ORDER BY day PATTERN (A) DEFINE A AS prize > 1")
    assert "unknown column 'prize'" in unknown.value.problem and "day, price" in unknown.value.problem
    with pytest.raises(spark_cer.PatternAnalysisError, match="DUPLICATE_PATTERN_VARIABLE"):
        df.match_recognize("ORDER BY day PATTERN (A B) DEFINE A AS price > 1, A AS price > 2")


def test_the_errors_have_names_for_both_languages_and_keep_their_old_ones(spark) -> None:
    """A MATCH_RECOGNIZE error is a PatternSyntaxError; CeqlSyntaxError, its name before, is the same class."""
    assert spark_cer.CeqlError is spark_cer.PatternError
    assert spark_cer.CeqlSyntaxError is spark_cer.PatternSyntaxError
    assert spark_cer.CeqlAnalysisError is spark_cer.PatternAnalysisError
    df = spark.createDataFrame([(1, 2.0)], "day int, price double")
    with pytest.raises(spark_cer.CeqlSyntaxError) as caught:
        df.match_recognize("ORDER BY day PATTERN (A")
    assert type(caught.value).__name__ == "PatternSyntaxError" and isinstance(caught.value, ValueError)


def test_validate_a_clause(spark) -> None:
    """spark_cer.validate reads a MATCH_RECOGNIZE clause with the grammar and analysis that run it."""
    clause = (
        "PARTITION BY symbol ORDER BY day MEASURES LAST(B.price) AS low, MATCH_NUMBER() AS m "
        "ALL ROWS PER MATCH PATTERN (A B+) SUBSET U = (A, B) DEFINE B AS price < PREV(price)"
    )
    q = spark_cer.validate(clause, match_recognize=True)
    assert isinstance(q, spark_cer.RowPatternQuery)
    assert (q.variables, q.subsets, q.measures) == (("A", "B"), {"U": ("A", "B")}, ("low", "m"))
    assert (q.rows_per_match, q.after_match) == (
        "ALL ROWS PER MATCH SHOW EMPTY MATCHES",
        "AFTER MATCH SKIP PAST LAST ROW",
    )
    assert q.output is None
    schema = "symbol string, day int, price double, volume long"
    typed = spark_cer.validate(clause, spark.createDataFrame([], schema).schema, spark=spark, match_recognize=True)
    assert typed.output == ("symbol", "day", "low", "m", "price", "volume")
    with pytest.raises(spark_cer.PatternSyntaxError) as syntax:
        spark_cer.validate("ORDER BY day PATTERN (A B", match_recognize=True)
    assert (syntax.value.line, syntax.value.column) == (1, 26)
    with pytest.raises(spark_cer.PatternAnalysisError, match="unknown column 'prize'"):
        spark_cer.validate(
            "ORDER BY day PATTERN (A) DEFINE A AS prize > 1",
            spark.createDataFrame([], schema).schema,
            spark=spark,
            match_recognize=True,
        )


def test_too_large_a_permute_is_refused_before_it_is_written_out(spark) -> None:
    """12 PERMUTE items are 479,001,600 orders: the size is checked before they are written out (they ran out of
    memory), and the refusal says what fits."""
    clause = "ORDER BY day PATTERN (PERMUTE(" + ", ".join("ABCDEFGHIJKL") + "))"
    with pytest.raises(spark_cer.PatternAnalysisError, match="up to 7 of these fit"):
        spark_cer.validate(clause, match_recognize=True)
    df = spark.createDataFrame([(1, 2.0)], "day int, price double")
    with pytest.raises(spark_cer.PatternAnalysisError, match="PERMUTE of 12 items"):
        df.match_recognize(clause)


def test_what_users_porting_from_trino_write(spark) -> None:
    """What users porting from Trino write, through DataFrame.match_recognize, the rows worked out by the standard as
    Trino reads it:
    CLASSIFIER() inside navigation and aggregates, PREV of a RUNNING navigation, NEXT(CLASSIFIER()) in a measure,
    FIRST with a logical offset past the current row, MATCH_NUMBER() in DEFINE, and the errors' places and counts."""
    prices = spark.createDataFrame(
        [("A", 1, 10.0), ("A", 2, 8.0), ("A", 3, 7.0), ("A", 4, 9.0), ("A", 5, 12.0)],
        "symbol string, day int, price double",
    )
    v = prices.match_recognize("""
        PARTITION BY symbol ORDER BY day
        MEASURES FINAL LAST(CLASSIFIER()) AS last_label, LAST(CLASSIFIER(), 1) AS before,
                 lower(LAST(CLASSIFIER())) AS label, concat_ws('', RUNNING array_agg(lower(CLASSIFIER(DOWN)))) AS downs,
                 PREV(RUNNING LAST(price)) AS prev_price, NEXT(CLASSIFIER()) AS next_label,
                 FIRST(price, 2) AS third_price
        ALL ROWS PER MATCH
        PATTERN (START DOWN+ UP+)
        DEFINE DOWN AS price < PREV(price), UP AS price > PREV(price)""")
    assert [tuple(r)[2:9] for r in v.collect()] == [
        ("UP", None, "start", "", None, "DOWN", 7.0),
        ("UP", "START", "down", "down", 10.0, "DOWN", 7.0),
        ("UP", "DOWN", "down", "downdown", 8.0, "UP", 7.0),
        ("UP", "DOWN", "up", "downdown", 7.0, "UP", 7.0),
        ("UP", "UP", "up", "downdown", 9.0, None, 7.0),
    ]

    # MATCH_NUMBER() in DEFINE: the number of the match tried; a third rising run would be number 3.
    runs = spark.createDataFrame(
        [
            (p, i + 1, v)
            for p, vs in (("x", (1, 2, 3, 1, 2, 1, 2, 3)), ("y", (5, 6, 5, 6, 5, 6)))
            for i, v in enumerate(vs)
        ],
        "p string, ts int, v int",
    )
    numbered = runs.match_recognize("""
        PARTITION BY p ORDER BY ts MEASURES MATCH_NUMBER() AS n, FIRST(ts) AS first_ts, LAST(ts) AS last_ts
        PATTERN (A B+) DEFINE B AS v > PREV(v) AND MATCH_NUMBER() <= 2""")
    assert sorted(_rows(numbered)) == [("x", 1, 1, 3), ("x", 2, 4, 5), ("y", 1, 1, 2), ("y", 2, 3, 4)]

    # A measure named like a column ALL ROWS PER MATCH outputs, refused where it is written.
    with pytest.raises(spark_cer.PatternAnalysisError, match="an input column, which ALL ROWS PER MATCH outputs too"):
        prices.match_recognize(
            "ORDER BY day MEASURES count(*) AS price ALL ROWS PER MATCH PATTERN (A+) DEFINE A AS price > 0"
        )
    # A skip to a variable absent from the match names its rows as users count them, from 1.
    with pytest.raises(Exception, match=r"not present in match 1 \(rows 1 to 2 of its partition, counted from 1\)"):
        prices.match_recognize(
            "ORDER BY day MEASURES count(*) AS n AFTER MATCH SKIP TO LAST C "
            "PATTERN (A B | C) DEFINE A AS price > 9, B AS price < 9"
        ).collect()
