"""
`spark_cer.translate`: MATCH_RECOGNIZE statements written for Snowflake, Oracle and Trino, translated and run. The
documentation examples of each engine, written in its dialect over the data the documents give, must give the rows
those documents show (`DOCUMENTED`); around them, the mapping of functions, types, quoting and null order, and the
errors, each placed in the statement as written.
"""

from __future__ import annotations

import datetime as dt
import doctest
import sys
from decimal import Decimal, InvalidOperation
import warnings
from pathlib import Path
from typing import List, Optional, Tuple

import pytest

from spark_cer import PatternSyntaxError, TranslationError, dialect_rules, translate

from documented_examples import DOCUMENTED, TABLES, Example


@pytest.fixture(scope="module")
def documented_tables(spark):
    """The documents' tables, as they create them, as temporary views."""
    for name, (schema, rows) in TABLES.items():
        spark.createDataFrame(rows, schema).createOrReplaceTempView(name)
    return spark


def shown(value) -> Optional[str]:
    """A value as the documents print it: dates and times in ISO form, booleans as True and False."""
    if value is None:
        return None
    if isinstance(value, dt.datetime):
        return value.isoformat(sep=" ")
    return value.isoformat() if isinstance(value, dt.date) else str(value)


@pytest.mark.parametrize("example", DOCUMENTED, ids=lambda e: e.id)
def test_a_documented_example_gives_the_documented_rows(documented_tables, example: Example) -> None:
    spark = documented_tables
    written = translate(example.query, read=example.dialect, spark=spark)
    df = spark.sql(written)
    # The document's columns in its order, by name without regard to case (Snowflake writes unquoted names in upper
    # case): SELECT * under ALL ROWS PER MATCH lays them out as the source engine does.
    assert [c.lower() for c in df.columns] == [h.lower() for h in example.header], (
        f"{example.id}: columns {df.columns}; translated:\n{written}"
    )
    got = [tuple(shown(v) for v in row) for row in df.collect()]
    expected = example.rows
    if not example.ordered:
        got, expected = sorted(got, key=str), sorted(expected, key=str)
    assert got == expected, f"{example.id}, translated:\n{written}"


def test_functions_types_quoting_and_null_order_are_mapped(spark) -> None:
    spark.createDataFrame(
        [("a", 1, 10.0, None), ("a", 2, 8.0, "x"), ("a", 3, 9.5, None), ("a", None, 7.0, None)],
        "Sym string, day int, price double, note string",
    ).createOrReplaceTempView("quoted_trades")
    snowflake = """SELECT "Sym", dip, note_or_none FROM quoted_trades MATCH_RECOGNIZE (
        PARTITION BY "Sym" ORDER BY day
        MEASURES IFF(FIRST(up.price)::number(10, 2) > 9, 'deep', 'shallow') AS dip,
                 NVL(LAST(down.note), 'none') AS note_or_none
        PATTERN (start down+ up)
        DEFINE down AS price < LAG(price), up AS price > LAG(price))"""
    written = translate(snowflake, read="snowflake", spark=spark)
    assert "IF(CAST(FIRST(up.price) AS DECIMAL(10, 2)) > 9, 'deep', 'shallow')" in written
    assert "COALESCE(LAST(down.note), 'none')" in written and "`Sym`" in written
    assert "ORDER BY day NULLS LAST" in written, "Snowflake sorts NULLs last in ascending order, Spark first"
    # Snowflake's LAG in DEFINE reads the partition, as PREV does.
    assert "DEFINE down AS price < PREV(price, 1)" in written
    # NULLS LAST puts the row without a day after the others: it cannot start the match, which day 1 does.
    assert [tuple(r) for r in spark.sql(written).collect()] == [("a", "deep", "x")]


def test_dates_and_running_final_from_oracle(spark) -> None:
    oracle = """SELECT * FROM (SELECT 'a' AS k, DATE '2024-01-01' + n AS d, n AS v FROM oracle_days) MATCH_RECOGNIZE (
        PARTITION BY k ORDER BY d DESC
        MEASURES FINAL COUNT(*) AS n, RUNNING LAST(A.d) AS last_a, TO_CHAR(FIRST(A.d), 'YYYY-MM-DD') AS first_a
        ALL ROWS PER MATCH
        PATTERN (A+)
        DEFINE A AS A.v > 0)"""
    spark.range(0, 3).selectExpr("CAST(id AS INT) AS n").createOrReplaceTempView("oracle_days")
    written = translate(oracle, read="oracle", spark=spark)
    assert "FINAL COUNT(*) AS n, RUNNING LAST(A.d) AS last_a" in written
    assert "ORDER BY d DESC NULLS FIRST" in written, "Oracle sorts NULLs first in descending order, as Spark does"
    rows = spark.sql(written).select("n", "first_a").collect()
    assert [tuple(r) for r in rows] == [(2, "2024-01-03")] * 2


def test_what_cannot_be_read_or_written_is_placed_in_the_statement() -> None:
    statement = (
        "SELECT *\nFROM t MATCH_RECOGNIZE (ORDER BY x\n  PATTERN (A) DEFINE A AS REGEXP_SUBSTR(s, 'a', 1, 2) = 'a')"
    )
    with pytest.raises(TranslationError) as info:
        translate(statement, read="snowflake")
    e = info.value
    assert (e.line, e.column) == (3, 27) and e.problem.startswith(
        "REGEXP_SUBSTR(s, 'a', 1, 2): not among the Snowflake functions and operators whose meaning in Spark"
    )
    assert str(e).endswith("  " + " " * 26 + "^" * len("REGEXP_SUBSTR(s, 'a', 1, 2)"))

    with pytest.raises(TranslationError) as info:
        translate(
            "SELECT * FROM t MATCH_RECOGNIZE (ORDER BY x PATTERN (A) DEFINE A AS x < LAG(x, 1, 0))", read="snowflake"
        )
    assert info.value.problem.startswith("LAG(x, 1, 0): a default value has no PREV or NEXT form")
    assert info.value.column == 73, "at LAG itself"

    with pytest.raises(TranslationError) as info:
        translate("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY x PATTERN (A) DEFINE A AS x MEMBER OF y)", read="oracle")
    assert info.value.problem.startswith("oracle SQL that sqlglot cannot read") and info.value.column == 78, (
        "at OF, where sqlglot stops"
    )

    with pytest.raises(TranslationError) as info:  # around the clause: placed where it stands as written
        translate(
            "SELECT * FROM t MATCH_RECOGNIZE (ORDER BY x PATTERN (A) DEFINE A AS x > 0) WHERE y MEMBER OF z",
            read="oracle",
        )
    assert info.value.problem.startswith("oracle SQL that sqlglot cannot read") and info.value.column > 75

    with pytest.raises(PatternSyntaxError, match="expected '\\)' to close MATCH_RECOGNIZE"):
        translate("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY x PATTERN (A) DEFINE A AS x < (1 +)", read="trino")


def test_a_translation_spark_refuses_is_reported(spark) -> None:
    spark.range(3).selectExpr("id AS x").createOrReplaceTempView("refused")
    with pytest.raises(TranslationError) as info:
        translate(
            "SELECT * FROM refused MATCH_RECOGNIZE (ORDER BY x PATTERN (A) DEFINE A AS PREV(PREV(x)) > 0)",
            read="trino",
            spark=spark,
        )
    assert info.value.problem.startswith("Spark cannot analyze the translated statement: in the condition of A")
    assert "a navigation reads columns of one row" in info.value.problem
    assert info.value.query.index("PREV(PREV(x))") == info.value.offset, "placed in the translated statement"
    with pytest.raises(TranslationError, match="Spark cannot analyze the translated statement: .*no_such_column"):
        translate(
            "SELECT * FROM refused MATCH_RECOGNIZE (ORDER BY x MEASURES MAX(A.x) AS h PATTERN (A+) "
            "DEFINE A AS x > 0) WHERE no_such_column > 0",
            read="snowflake",
            spark=spark,
        )


def test_nested_clauses_and_aliases() -> None:
    trino = (
        "SELECT * FROM (SELECT * FROM orders MATCH_RECOGNIZE (ORDER BY day MEASURES A.price AS p PATTERN (A B+) "
        "SUBSET U = (A, B) DEFINE B AS B.price < PREV(B.price))) x MATCH_RECOGNIZE (ORDER BY p PATTERN (A) "
        "DEFINE A AS true) AS y"
    )
    written = translate(trino, read="trino", check=False)
    assert written.count("MATCH_RECOGNIZE") == 2 and "SUBSET U = (A, B)" in written
    assert ") x MATCH_RECOGNIZE (ORDER BY p NULLS LAST" in written and written.endswith(") AS y")


def test_a_statement_without_a_clause_is_translated_whole() -> None:
    assert translate("SELECT IFF(a, 1, 2) FROM t", read="snowflake") == "SELECT IF(a, 1, 2) FROM t"


def test_docstring_examples() -> None:
    result = doctest.testmod(sys.modules["spark_cer.translate"], optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted >= 2


# ---- the source engine's rows where Spark's functions read otherwise ------------------------------------------------


def rows_of(spark, statement: str, read: str = "snowflake") -> List[Tuple[Optional[str], ...]]:
    """The rows of `statement` (written for `read`), translated and run, each value as the documents show it."""
    written = translate(statement, read=read, spark=spark)
    return [tuple(shown(v) for v in row) for row in spark.sql(written).collect()]


def test_snowflake_lag_in_define_reads_the_partition(documented_tables) -> None:
    # The reference: DEFINE's window frame starts at the matching attempt, except for LAG, LEAD, FIRST_VALUE and
    # LAST_VALUE, which read the partition: a run of rises starts with a row above the one before the match.
    assert rows_of(
        documented_tables,
        """\
SELECT company, s, n FROM stock_price_history MATCH_RECOGNIZE (
    PARTITION BY company ORDER BY price_date
    MEASURES FIRST(price_date) AS s, COUNT(*) AS n
    ONE ROW PER MATCH
    PATTERN (UP+)
    DEFINE UP AS price > LAG(price))
ORDER BY company, s""",
    ) == [
        ("ABCD", "2020-10-03", "2"),
        ("ABCD", "2020-10-06", "3"),
        ("XYZ", "2020-10-03", "3"),
        ("XYZ", "2020-10-08", "1"),
        ("XYZ", "2020-10-10", "1"),
    ]
    # The introduction's variables, each quantified: a fall of 10% or more on the day before, then rises of 5%.
    assert rows_of(
        documented_tables,
        """\
SELECT company, s, n FROM stock_price_history MATCH_RECOGNIZE (
    PARTITION BY company ORDER BY price_date
    MEASURES FIRST(price_date) AS s, COUNT(*) AS n
    ONE ROW PER MATCH
    PATTERN (DECREASED_10_PERCENT+ INCREASED_05_PERCENT+)
    DEFINE DECREASED_10_PERCENT AS LAG(price) * 0.90 >= price,
           INCREASED_05_PERCENT AS LAG(price) * 1.05 <= price)
ORDER BY company, s""",
    ) == [
        ("ABCD", "2020-10-02", "3"),
        ("ABCD", "2020-10-05", "4"),
        ("XYZ", "2020-10-02", "3"),
        ("XYZ", "2020-10-06", "3"),
        ("XYZ", "2020-10-09", "2"),
    ]


def test_snowflake_prev_and_next_in_measures_stay_within_the_match(documented_tables) -> None:
    # The reference keeps PREV within the match, as LAG, and makes NEXT LEAD: the window-frame example's columns.
    frame = next(e for e in DOCUMENTED if e.id == "snowflake-window-frame")
    query = frame.query.replace("LAG(price_date) AS", "PREV(price_date) AS").replace(
        "LEAD(price_date) AS", "NEXT(price_date) AS"
    )
    assert "PREV(price_date) AS" in query and "NEXT(price_date) AS" in query
    assert rows_of(documented_tables, query) == frame.rows


def test_snowflake_datediff_counts_boundaries(spark) -> None:
    spark.sql("""SELECT 1 AS k, CAST(ts AS TIMESTAMP) AS ts FROM VALUES ('2024-01-01 23:00:00'),
                 ('2024-01-02 01:00:00'), ('2024-01-03 02:00:00') AS t(ts)""").createOrReplaceTempView("late_evenings")
    # 23:00 to 01:00 crosses a day's boundary: 1 in Snowflake, where two hours are no whole day.
    assert rows_of(
        spark,
        """\
SELECT ts FROM late_evenings MATCH_RECOGNIZE (
    PARTITION BY k ORDER BY ts
    ALL ROWS PER MATCH
    PATTERN (A B+)
    DEFINE B AS DATEDIFF(day, LAG(ts), ts) = 1)""",
    ) == [("2024-01-01 23:00:00",), ("2024-01-02 01:00:00",), ("2024-01-03 02:00:00",)]
    spark.sql(
        "SELECT 1 AS k, CAST(d AS DATE) AS d FROM VALUES ('2024-11-28'), ('2024-12-05') AS t(d)"
    ).createOrReplaceTempView("month_ends")
    # DATEDIFF's own page: 2024-11-28 to 2024-12-05 is one month.
    assert rows_of(
        spark,
        """\
SELECT months FROM month_ends MATCH_RECOGNIZE (
    PARTITION BY k ORDER BY d
    MEASURES DATEDIFF(month, FIRST(d), LAST(d)) AS months
    PATTERN (A B))""",
    ) == [("1",)]


def test_a_date_minus_a_date_is_a_number_of_days(spark) -> None:
    spark.sql(
        "SELECT 1 AS k, CAST(d AS DATE) AS d FROM VALUES ('2024-01-01'), ('2024-01-02'), ('2024-01-05'), "
        "('2024-01-06') AS t(d)"
    ).createOrReplaceTempView("visits")
    # Consecutive days, and the days each run spans: numbers in Snowflake and Oracle, intervals in Spark's own `-`.
    for dialect in ("snowflake", "oracle"):
        assert rows_of(
            spark,
            """\
SELECT first_day, span FROM visits MATCH_RECOGNIZE (
    PARTITION BY k ORDER BY d
    MEASURES FIRST(d) AS first_day, LAST(d) - FIRST(d) AS span
    ONE ROW PER MATCH
    PATTERN (A B+)
    DEFINE B AS d - PREV(d) = 1)""",
            read=dialect,
        ) == [("2024-01-01", "1"), ("2024-01-05", "1")], dialect
    spark.sql(
        "SELECT CAST(ts AS TIMESTAMP) AS ts FROM VALUES ('2024-01-01 10:00:00') AS t(ts)"
    ).createOrReplaceTempView("stamps")
    with pytest.raises(TranslationError, match="Snowflake's `-` does not subtract timestamps; write DATEDIFF"):
        translate("SELECT ts - ts FROM stamps", read="snowflake", spark=spark)


def test_snowflake_int_cast_rounds(documented_tables) -> None:
    # INT is NUMBER(38, 0), to which Snowflake rounds half away from zero: 50 / 4 = 12.5 is 13.
    assert rows_of(
        documented_tables,
        """\
SELECT q FROM stock_price_history MATCH_RECOGNIZE (
    PARTITION BY company ORDER BY price_date
    MEASURES (FIRST(price) / 4)::int AS q
    ONE ROW PER MATCH
    PATTERN (A B)
    DEFINE A AS TRUE, B AS TRUE)
WHERE company = 'ABCD'
ORDER BY q""",
    ) == [("8",), ("10",), ("13",), ("18",), ("19",)]


def test_oracle_dates_in_its_formats(spark) -> None:
    # Example 20-1 over Oracle's own INSERTs, whose dates are text ('01-Apr-11') read with TO_DATE's RR and Mon.
    oracle = next(e for e in DOCUMENTED if e.id == "oracle-v-shape")
    _, rows = TABLES["ticker"]
    as_text = [(symbol, day.strftime("%d-%b-%y"), price) for symbol, day, price in rows]
    spark.createDataFrame(as_text, "symbol string, day string, price int").createOrReplaceTempView("ticker_text")
    query = oracle.query.replace(
        "FROM Ticker", "FROM (SELECT symbol, TO_DATE(day, 'DD-Mon-RR') AS tstamp, price FROM ticker_text)"
    )
    assert rows_of(spark, query, read="oracle") == oracle.rows
    # RR's century: 99 is 1999 while this century's years end in 00-49; MON reads any case.
    assert rows_of(
        spark, "SELECT TO_DATE('01-APR-99', 'DD-MON-RR'), TO_DATE('01-apr-49', 'DD-Mon-RR')", read="oracle"
    ) == [("1999-04-01", "2049-04-01")]
    with pytest.raises(TranslationError) as info:  # refused as it is translated, not when it runs
        translate("SELECT TO_DATE(day, 'DD-Mon-RR J') FROM ticker_text", read="oracle")
    assert info.value.column == 8 and "the format element at 'J' is not among those translated" in info.value.problem


def test_select_star_keeps_the_source_layout(documented_tables) -> None:
    query = """SELECT * FROM stock_price_history MATCH_RECOGNIZE (
        PARTITION BY company ORDER BY price_date MEASURES MATCH_NUMBER() AS m
        ALL ROWS PER MATCH PATTERN (A) DEFINE A AS price > 80)"""
    assert documented_tables.sql(translate(query, read="snowflake", spark=documented_tables)).columns == [
        "company",
        "price_date",
        "price",
        "m",
    ], "Snowflake: the input's columns, then the measures"
    assert documented_tables.sql(translate(query, read="trino", spark=documented_tables)).columns == [
        "company",
        "price_date",
        "m",
        "price",
    ], "Trino: the partition, the order, the measures, the rest"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        written = translate(
            query.replace("stock_price_history", "no_such_table"),
            read="snowflake",
            check=False,
            spark=documented_tables,
        )
    assert written.startswith("SELECT * FROM no_such_table")
    assert [w for w in caught if "keeps spark-cer's column order, not Snowflake's" in str(w.message)]


# ---- every function: the source engine's value, or refused ----------------------------------------------------------

#: A MATCH_RECOGNIZE clause whose match is its whole partition (so that navigation reads within it in every
#: engine's terms), with the functions the three engines share.
NAVIGATION = """\
SELECT m, c, f, l, p, n FROM (SELECT 1 AS k, 1 AS x UNION ALL SELECT 1, 2 UNION ALL SELECT 1, 3) t
MATCH_RECOGNIZE (
    PARTITION BY k ORDER BY x
    MEASURES MATCH_NUMBER() AS m, CLASSIFIER() AS c, FINAL FIRST(A.x) AS f, RUNNING LAST(x) AS l,
             PREV(x) AS p, NEXT(x) AS n
    ALL ROWS PER MATCH
    PATTERN (A B+)
    DEFINE B AS x > PREV(x) AND (NEXT(x) IS NULL OR NEXT(x) > x))
ORDER BY l"""

#: What the three engines (Snowflake, Oracle, Trino) compute alike, in SQL each of them reads.
COMMON: List[Tuple[str, List[Tuple[Optional[str], ...]]]] = [
    (NAVIGATION, [("1", "A", "1", "1", None, "2"), ("1", "B", "1", "2", "1", "3"), ("1", "B", "1", "3", "2", None)]),
    (
        "SELECT COUNT(*), COUNT(x), SUM(x), MIN(x), MAX(x) FROM (SELECT 1 AS x UNION ALL SELECT NULL UNION ALL "
        "SELECT 4) t",
        [("3", "2", "5", "1", "4")],
    ),
    (
        "SELECT x, ROW_NUMBER() OVER (ORDER BY x), RANK() OVER (ORDER BY x), DENSE_RANK() OVER (ORDER BY x) FROM "
        "(SELECT 1 AS x UNION ALL SELECT 1 UNION ALL SELECT 2) t ORDER BY 2",
        [("1", "1", "1", "1"), ("1", "2", "1", "1"), ("2", "3", "3", "2")],
    ),
    ("(1 < 2 AND NULL) IS NULL OR (NULL OR 1 < 2)", [("True",)]),
    ("EXISTS (SELECT 1)", [("True",)]),
    ("ABS(-2)", [("2",)]),
    ("ROUND(2.5)", [("3",)]),
    ("ROUND(-2.5)", [("-3",)]),
    ("FLOOR(-1.5)", [("-2",)]),
    ("CEIL(1.2)", [("2",)]),
    ("SQRT(4)", [("2",)]),
    ("POWER(2, 3)", [("8",)]),
    ("LN(1)", [("0",)]),
    ("EXP(0)", [("1",)]),
    ("MOD(-7, 3)", [("-1",)]),
    ("UPPER('ab')", [("AB",)]),
    ("LOWER('AB')", [("ab",)]),
    ("LENGTH('abc')", [("3",)]),
    ("SUBSTR('abcdef', 2, 3)", [("bcd",)]),
    ("TRIM('  a ')", [("a",)]),
    ("REPLACE('abc', 'b', 'x')", [("axc",)]),
    ("COALESCE(NULL, 1)", [("1",)]),
    ("NULLIF(1, 1)", [(None,)]),
    ("CASE WHEN 1 > 2 THEN 'a' ELSE 'b' END", [("b",)]),
    ("GREATEST(1, NULL, 3)", [(None,)]),
    ("LEAST(2, 1)", [("1",)]),
    ("LEAST(2, NULL)", [(None,)]),
    ("'abc' LIKE 'a%'", [("True",)]),
    ("EXTRACT(YEAR FROM DATE '2024-05-06')", [("2024",)]),
    ("CURRENT_DATE IS NOT NULL", [("True",)]),
]

#: What each rule keeps or maps, as the source engine computes it: (dialect, a statement or an expression to SELECT,
#: the rows it gives there, each value as the documents show it). Values from each vendor's function page.
MEANINGS: List[Tuple[str, str, List[Tuple[Optional[str], ...]]]] = [
    *[(dialect, text, rows) for dialect in ("snowflake", "oracle", "trino") for text, rows in COMMON],
    # Snowflake
    ("snowflake", "DATEDIFF(month, '2024-11-28'::date, '2024-12-05'::date)", [("1",)]),
    ("snowflake", "DATEDIFF(year, '2024-12-31'::date, '2025-01-01'::date)", [("1",)]),
    ("snowflake", "DATEDIFF(quarter, '2024-03-31'::date, '2024-04-01'::date)", [("1",)]),
    ("snowflake", "DATEDIFF(week, '2024-01-07'::date, '2024-01-08'::date)", [("1",)]),  # Sunday to Monday
    ("snowflake", "DATEDIFF(day, '2024-01-01 23:00'::timestamp, '2024-01-02 01:00'::timestamp)", [("1",)]),
    ("snowflake", "DATEDIFF(hour, '2024-01-01 23:59'::timestamp, '2024-01-02 00:01'::timestamp)", [("1",)]),
    ("snowflake", "DATEDIFF(minute, '2024-01-01 10:00:59'::timestamp, '2024-01-01 10:01:00'::timestamp)", [("1",)]),
    ("snowflake", "DATEDIFF(second, '2024-01-01 10:00:00'::timestamp, '2024-01-01 09:59:58'::timestamp)", [("-2",)]),
    ("snowflake", "DATEADD(month, 1, '2024-01-31'::date)", [("2024-02-29",)]),
    ("snowflake", "DATEADD(day, 1, '2024-01-31'::date)", [("2024-02-01",)]),
    ("snowflake", "12.5::int", [("13",)]),
    ("snowflake", "(-12.5)::int", [("-13",)]),
    ("snowflake", "12.4::integer", [("12",)]),
    ("snowflake", "'12.7'::int", [("13",)]),
    ("snowflake", "TRY_CAST('12.7' AS INT)", [("13",)]),
    ("snowflake", "1.005::number(10, 2)", [("1.01",)]),
    ("snowflake", "1.5::float", [("1.5",)]),
    ("snowflake", "1.5::varchar", [("1.5",)]),
    ("snowflake", "'2024-01-02'::date", [("2024-01-02",)]),
    ("snowflake", "'true'::boolean", [("True",)]),
    ("snowflake", "1 / 3", [("0.333333",)]),
    ("snowflake", "2 / 3", [("0.666667",)]),
    ("snowflake", "CAST(1 AS NUMBER(10, 2)) / 3", [("0.33333333",)]),
    ("snowflake", "1.5::float / 2", [("0.75",)]),
    ("snowflake", "DIV0(1, 0)", [("0.000000",)]),  # 0 of the quotient's type
    ("snowflake", "SELECT AVG(x) FROM (VALUES (1), (2), (2)) AS t(x)", [("1.666667",)]),
    ("snowflake", "'2024-03-01'::date - '2024-02-01'::date", [("29",)]),
    ("snowflake", "'2024-03-01'::date - 1", [("2024-02-29",)]),
    ("snowflake", "SELECT x - y FROM (VALUES (7, 2.5)) AS t(x, y)", [("4.5",)]),
    (
        "snowflake",
        "SELECT COUNT(*), COUNT(x), SUM(x), MIN(x), MAX(x) FROM (VALUES (1), (NULL), (4)) AS t(x)",
        [("3", "2", "5", "1", "4")],
    ),
    ("snowflake", "IFF(1 < 2, 'a', 'b')", [("a",)]),
    ("snowflake", "NVL(NULL, 5)", [("5",)]),
    ("snowflake", "ZEROIFNULL(NULL)", [("0",)]),
    ("snowflake", "SUBSTR('abcdef', 0, 2)", [("ab",)]),
    ("snowflake", "SUBSTR('abcdef', -3, 2)", [("de",)]),
    ("snowflake", "CONCAT('a', NULL)", [(None,)]),
    ("snowflake", "'a' || NULL", [(None,)]),
    ("snowflake", "STARTSWITH('abc', 'ab')", [("True",)]),
    ("snowflake", "CONTAINS('abc', 'bc')", [("True",)]),
    ("snowflake", "'ABC' ILIKE 'a%'", [("True",)]),
    ("snowflake", "TO_DATE('02/01/2024', 'DD/MM/YYYY')", [("2024-01-02",)]),
    ("snowflake", "TO_DATE('02/01/2024 10', 'DD/MM/YYYY HH24')", [("2024-01-02",)]),
    ("snowflake", "TO_DATE('2024-01-02')", [("2024-01-02",)]),
    ("snowflake", "TO_TIMESTAMP('2024-01-02 10:11', 'YYYY-MM-DD HH24:MI')", [("2024-01-02 10:11:00",)]),
    ("snowflake", """TO_TIMESTAMP('2024-01-02T10:11:12', 'YYYY-MM-DD"T"HH24:MI:SS')""", [("2024-01-02 10:11:12",)]),
    ("snowflake", "TO_CHAR('2024-01-02'::date, 'YYYY/MM/DD')", [("2024/01/02",)]),
    ("snowflake", "SELECT TO_CHAR(d, 'YYYY') FROM (SELECT '2024-01-02'::date AS d) t", [("2024",)]),
    ("snowflake", "DATE '2024-01-02'", [("2024-01-02",)]),
    (
        "snowflake",
        "YEAR('2024-05-06'::date) * 10000 + MONTH('2024-05-06'::date) * 100 + DAY('2024-05-06'::date)",
        [("20240506",)],
    ),
    ("snowflake", "QUARTER('2024-05-06'::date)", [("2",)]),
    (
        "snowflake",
        "HOUR('2024-01-01 10:11:12'::timestamp) * 10000 + MINUTE('2024-01-01 10:11:12'::timestamp) * 100"
        " + SECOND('2024-01-01 10:11:12'::timestamp)",
        [("101112",)],
    ),
    (
        "snowflake",
        "SELECT x, LAG(x) OVER (ORDER BY x), LEAD(x) OVER (ORDER BY x) FROM (VALUES (1), (2)) AS t(x) ORDER BY x",
        [("1", None, "2"), ("2", "1", None)],
    ),
    # Oracle
    ("oracle", "'' IS NULL", [("True",)]),
    ("oracle", "'a' || NULL", [("a",)]),
    ("oracle", "CAST(NULL AS VARCHAR(1)) || NULL", [(None,)]),
    ("oracle", "CONCAT('a', NULL)", [("a",)]),
    ("oracle", "DECODE(NULL, NULL, 'n', 'x')", [("n",)]),
    ("oracle", "DECODE(2, 1, 'one', 2, 'two', 'other')", [("two",)]),
    ("oracle", "TO_DATE('01-Apr-11', 'DD-Mon-RR')", [("2011-04-01",)]),
    ("oracle", "TO_TIMESTAMP('2011-04-01 13:14:15', 'YYYY-MM-DD HH24:MI:SS')", [("2011-04-01 13:14:15",)]),
    ("oracle", "TO_CHAR(DATE '2011-04-01', 'DD.MM.YYYY')", [("01.04.2011",)]),
    ("oracle", "SELECT TO_CHAR(d, 'YYYY') FROM (SELECT DATE '2011-04-01' AS d) t", [("2011",)]),
    ("oracle", "CAST(2.5 AS INTEGER)", [("3",)]),
    ("oracle", "CAST(-2.5 AS NUMBER(5))", [("-3",)]),
    ("oracle", "7 / 2", [("3.5",)]),
    ("oracle", "DATE '2024-03-01' - DATE '2024-02-01'", [("29",)]),
    ("oracle", "DATE '2024-03-01' - 1", [("2024-02-29",)]),
    ("oracle", "SELECT x - y FROM (SELECT 7 AS x, 2 AS y) t", [("5",)]),
    ("oracle", "NVL(NULL, 'x')", [("x",)]),
    ("oracle", "SUBSTR('abcdef', 0, 2)", [("ab",)]),
    ("oracle", "SELECT AVG(x) FROM (SELECT 1 AS x UNION ALL SELECT 2) t", [("1.5",)]),
    (
        "oracle",
        "SELECT x, LAG(x) OVER (ORDER BY x), LEAD(x) OVER (ORDER BY x) FROM "
        "(SELECT 1 AS x UNION ALL SELECT 2) t ORDER BY x",
        [("1", None, "2"), ("2", "1", None)],
    ),
    # Trino
    ("trino", "7 / 2", [("3",)]),
    ("trino", "-7 / 2", [("-3",)]),
    ("trino", "7.0 / 2", [("3.5",)]),
    ("trino", "1.0 / 3.0", [("0.3",)]),
    ("trino", "CAST(1.5 AS DECIMAL) / 2", [("1",)]),  # DECIMAL is DECIMAL(38, 0): 2 / 2
    ("trino", "CAST(1 AS DOUBLE) / 4", [("0.25",)]),
    ("trino", "CAST(2.5 AS INTEGER)", [("3",)]),
    ("trino", "CAST(-2.5 AS BIGINT)", [("-3",)]),
    ("trino", "TRY_CAST('x' AS DOUBLE)", [(None,)]),
    ("trino", "date_diff('day', TIMESTAMP '2020-03-01 00:00:00', TIMESTAMP '2020-03-02 00:00:00')", [("1",)]),
    ("trino", "date_diff('hour', TIMESTAMP '2020-03-01 23:59:00', TIMESTAMP '2020-03-02 00:01:00')", [("0",)]),
    ("trino", "date_add('month', 1, DATE '2020-01-31')", [("2020-02-29",)]),
    (
        "trino",
        "year(DATE '2024-05-06') * 10000 + month(DATE '2024-05-06') * 100 + day(DATE '2024-05-06')",
        [("20240506",)],
    ),
    ("trino", "quarter(DATE '2024-05-06')", [("2",)]),
    (
        "trino",
        "hour(TIMESTAMP '2024-01-01 10:11:12') * 10000 + minute(TIMESTAMP '2024-01-01 10:11:12') * 100 + "
        "second(TIMESTAMP '2024-01-01 10:11:12')",
        [("101112",)],
    ),
    ("trino", "if(1 < 2, 'a', 'b')", [("a",)]),
    ("trino", "COALESCE(NULL, 'x')", [("x",)]),
    ("trino", "concat('a', NULL)", [(None,)]),
    ("trino", "'a' || 'b'", [("ab",)]),
    ("trino", "SELECT avg(x) FROM (VALUES 1, 2) AS t(x)", [("1.5",)]),
    ("trino", "SELECT avg(CAST(x AS DECIMAL(5, 2))) FROM (VALUES 1, 2, 2) AS t(x)", [("1.67",)]),
    ("trino", "SELECT avg(CAST(x AS DOUBLE)) FROM (VALUES 1, 2) AS t(x)", [("1.5",)]),
    (
        "trino",
        "SELECT x, lag(x) OVER (ORDER BY x), lead(x) OVER (ORDER BY x) FROM (VALUES 1, 2) AS t(x) ORDER BY x",
        [("1", None, "2"), ("2", "1", None)],
    ),
]


def _statement(text: str) -> str:
    return text if text.lstrip().upper().startswith("SELECT ") else f"SELECT {text}"


def _number_or_text(value: Optional[str]):
    """A shown value compared as a number where it is one: 2.0 (Spark's double) is Oracle's NUMBER 2."""
    try:
        return Decimal(value) if value is not None and value not in ("True", "False") else value
    except InvalidOperation:
        return value


@pytest.mark.parametrize("dialect, text, rows", MEANINGS, ids=lambda v: v if isinstance(v, str) else None)
def test_a_function_gives_the_source_engines_value(spark, dialect: str, text: str, rows) -> None:
    written = translate(_statement(text), read=dialect, spark=spark)
    got = [tuple(shown(v) for v in row) for row in spark.sql(written).collect()]
    assert [tuple(map(_number_or_text, r)) for r in got] == [tuple(map(_number_or_text, r)) for r in rows], (
        f"{dialect}: {text}, translated: {written}"
    )


@pytest.mark.parametrize(
    "dialect, text, at, problem",
    [
        ("snowflake", "SELECT HASH_AGG(x) FROM t", "HASH_AGG", "HASH_AGG(x): not among the Snowflake functions"),
        ("snowflake", "SELECT DAYOFWEEK(d) FROM t", "DAYOFWEEK", "DAYOFWEEK(d): not among the Snowflake functions"),
        ("snowflake", "SELECT x::variant FROM t", "x::", "a cast to VARIANT is not among the casts translated"),
        ("snowflake", "SELECT DATEDIFF(millisecond, a, b) FROM t", "DATEDIFF", "DATEDIFF is translated in years"),
        # Snowflake's string '\\\\' is one backslash, which its LIKE reads as itself and Spark's as its escape character.
        (
            "snowflake",
            "SELECT s LIKE 'a\\\\_%' FROM t",
            "s LIKE",
            "only a pattern written as a string without backslashes",
        ),
        ("snowflake", "SELECT TO_CHAR(d) FROM t", "TO_CHAR", "without a format, Snowflake's text depends on"),
        (
            "snowflake",
            "SELECT TO_CHAR(d, 'DD-MON-YYYY') FROM t",
            "TO_CHAR",
            "TO_CHAR is translated with numeric elements",
        ),
        ("snowflake", "SELECT FIRST(x) FROM t", "FIRST", "a MATCH_RECOGNIZE function, outside MATCH_RECOGNIZE"),
        ("snowflake", "SELECT LAG(x) FROM t", "LAG", "LAG and LEAD outside MATCH_RECOGNIZE need an OVER clause"),
        (
            "snowflake",
            "SELECT * FROM t MATCH_RECOGNIZE (ORDER BY x MEASURES PREV(A.x) AS p PATTERN (A B) DEFINE A AS TRUE)",
            "PREV",
            "Snowflake navigates from the current row of the match",
        ),
        ("oracle", "SELECT TRUNC(d) FROM t", "TRUNC", "TRUNC(d): not among the Oracle functions"),
        (
            "oracle",
            "SELECT * FROM t MATCH_RECOGNIZE (ORDER BY x PATTERN (A) DEFINE A AS x > LAG(x))",
            "LAG",
            "Oracle has no LAG or LEAD in MATCH_RECOGNIZE; write PREV or NEXT",
        ),
        ("trino", "SELECT TRY_CAST(x AS INTEGER) FROM t", "TRY_CAST", "TRY_CAST to an integer is not translated"),
        ("trino", "SELECT DECIMAL '1.0' / 3 FROM t", "'1.0'", "write the number (1.0)"),
        ("trino", "SELECT approx_distinct(x) FROM t", "approx_distinct", "APPROX_DISTINCT(x): not among the Trino"),
    ],
)
def test_a_function_whose_meaning_is_not_known_is_refused_where_it_stands(
    dialect: str, text: str, at: str, problem: str
) -> None:
    with pytest.raises(TranslationError) as info:
        translate(text, read=dialect, check=False)
    assert problem in info.value.problem and info.value.offset == text.index(at), str(info.value)


def test_a_dialect_without_rules_is_refused() -> None:
    with pytest.raises(ValueError, match="translate reads snowflake, oracle, trino, databricks, not 'mysql'"):
        translate("SELECT 1", read="mysql")


def test_every_rule_is_run_by_a_test(monkeypatch) -> None:
    """Each rule of each dialect is used by a translation the tests above check against the source's values."""
    used = set()
    rules = dialect_rules.in_spark_terms

    def recording(tree, site, applied=None):
        return rules(tree, site, applied=lambda dialect, key: used.add((dialect, key)))

    monkeypatch.setattr(sys.modules["spark_cer.translate"], "in_spark_terms", recording)
    statements = [(d, _statement(t)) for d, t, _ in MEANINGS] + [(e.dialect, e.query) for e in DOCUMENTED]
    for dialect, statement in statements:
        translate(statement, read=dialect, check=False)
    unused = [
        f"{d}: {k if isinstance(k, str) else k.__name__}"
        for d, rules_ in dialect_rules.RULES.items()
        for k in rules_
        if (d, k) not in used
    ]
    assert not unused, f"rules no test runs: {unused}"


def test_the_translators_docs_list_its_rules() -> None:
    docs = (Path(__file__).resolve().parents[1] / "docs/translate.md").read_text()
    tables = {d: dialect_rules.rules_table(d) for d in dialect_rules.RULES}
    stale = [d for d, table in tables.items() if table not in docs]
    assert not stale, (
        "docs/translate.md lists other rules than spark_cer.dialect_rules; its tables are now:\n\n"
        + "\n\n".join(f"### {d.capitalize()}\n\n{tables[d]}" for d in stale)
    )
