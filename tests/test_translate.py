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
from typing import Optional

import pytest

from spark_cer import PatternSyntaxError, TranslationError, translate

from documented_examples import DOCUMENTED, TABLES, Example


@pytest.fixture(scope="module")
def documented_tables(spark):
    """The documents' tables, as they create them, as temporary views."""
    for name, (schema, rows) in TABLES.items():
        spark.createDataFrame(rows, schema).createOrReplaceTempView(name)
    return spark


def shown(value) -> Optional[str]:
    """A value as the documents print it: dates in ISO form, booleans as True and False."""
    if value is None:
        return None
    return value.isoformat() if isinstance(value, dt.date) else str(value)


@pytest.mark.parametrize("example", DOCUMENTED, ids=lambda e: e.id)
def test_a_documented_example_gives_the_documented_rows(documented_tables, example: Example) -> None:
    spark = documented_tables
    written = translate(example.query, read=example.dialect, spark=spark)
    df = spark.sql(written)
    # The document's columns, by name without regard to case (Snowflake writes unquoted names in upper case); the
    # order of the columns of SELECT * differs between engines under ALL ROWS PER MATCH, the values do not.
    names = [c.lower() for c in df.columns]
    missing = [h for h in example.header if h.lower() not in names]
    assert not missing, f"{example.id}: no column {missing} in {df.columns}; translated:\n{written}"
    at = [names.index(h.lower()) for h in example.header]
    got = [tuple(shown(row[i]) for i in at) for row in df.collect()]
    expected = example.rows
    if not example.ordered:
        got, expected = sorted(got, key=str), sorted(expected, key=str)
    assert got == expected, f"{example.id}, translated:\n{written}"


def test_functions_types_quoting_and_null_order_are_mapped(spark) -> None:
    spark.createDataFrame(
        [("a", 1, 10.0, None), ("a", 2, 8.0, "x"), ("a", 3, 9.5, None), ("a", None, 7.0, None)],
        "Sym string, day int, price double, note string",
    ).createOrReplaceTempView("quoted_trades")
    snowflake = '''SELECT "Sym", dip, note_or_none FROM quoted_trades MATCH_RECOGNIZE (
        PARTITION BY "Sym" ORDER BY day
        MEASURES IFF(FIRST(up.price)::number(10, 2) > 9, 'deep', 'shallow') AS dip,
                 NVL(LAST(down.note), 'none') AS note_or_none
        PATTERN (start down+ up)
        DEFINE down AS price < LAG(price), up AS price > LAG(price))'''
    written = translate(snowflake, read="snowflake", spark=spark)
    assert "IF(CAST(FIRST(up.price) AS DECIMAL(10, 2)) > 9, 'deep', 'shallow')" in written
    assert "COALESCE(LAST(down.note), 'none')" in written and "`Sym`" in written
    assert "ORDER BY day NULLS LAST" in written, "Snowflake sorts NULLs last in ascending order, Spark first"
    # Snowflake's LAG reads the match's rows: NULL on its first row, where PREV would read the row before it.
    assert "DEFINE down AS price < IF(COUNT(*) > 1, PREV(price, 1), NULL)" in written
    # NULLS LAST puts the row without a day after the others: it cannot start the match, which day 1 does.
    assert [tuple(r) for r in spark.sql(written).collect()] == [("a", "deep", "x")]


def test_dates_and_running_final_from_oracle(spark) -> None:
    oracle = '''SELECT * FROM (SELECT 'a' AS k, DATE '2024-01-01' + n AS d, n AS v FROM oracle_days) MATCH_RECOGNIZE (
        PARTITION BY k ORDER BY d DESC
        MEASURES FINAL COUNT(*) AS n, RUNNING LAST(A.d) AS last_a, TO_CHAR(FIRST(A.d)) AS first_a
        ALL ROWS PER MATCH
        PATTERN (A+)
        DEFINE A AS A.v > 0)'''
    spark.range(0, 3).selectExpr("CAST(id AS INT) AS n").createOrReplaceTempView("oracle_days")
    written = translate(oracle, read="oracle", spark=spark)
    assert "FINAL COUNT(*) AS n, RUNNING LAST(A.d) AS last_a" in written
    assert "ORDER BY d DESC NULLS FIRST" in written, "Oracle sorts NULLs first in descending order, as Spark does"
    rows = spark.sql(written).select("n", "first_a").collect()
    assert [tuple(r) for r in rows] == [(2, "2024-01-03")] * 2


def test_what_cannot_be_read_or_written_is_placed_in_the_statement() -> None:
    statement = ("SELECT *\nFROM t MATCH_RECOGNIZE (ORDER BY x\n"
                 "  PATTERN (A) DEFINE A AS REGEXP_SUBSTR(s, 'a', 1, 2) = 'a')")
    with pytest.raises(TranslationError) as info:
        translate(statement, read="snowflake")
    e = info.value
    assert (e.line, e.column) == (3, 27) and e.problem.startswith("cannot be written for Spark: Argument 'position'")
    assert str(e).endswith("  " + " " * 26 + "^" * len("REGEXP_SUBSTR(s, 'a', 1, 2) = 'a'"))

    with pytest.raises(TranslationError) as info:
        translate("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY x PATTERN (A) DEFINE A AS x < LAG(x, 1, 0))",
                  read="snowflake")
    assert info.value.problem.startswith("LAG(x, 1, 0): a default value has no PREV or NEXT form")
    assert info.value.column == 69

    with pytest.raises(TranslationError) as info:
        translate("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY x PATTERN (A) DEFINE A AS x MEMBER OF y)", read="oracle")
    assert info.value.problem.startswith("oracle SQL that sqlglot cannot read") and info.value.column == 78, \
        "at OF, where sqlglot stops"

    with pytest.raises(TranslationError) as info:  # around the clause: placed where it stands as written
        translate("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY x PATTERN (A) DEFINE A AS x > 0) WHERE y MEMBER OF z",
                  read="oracle")
    assert info.value.problem.startswith("oracle SQL that sqlglot cannot read") and info.value.column > 75

    with pytest.raises(PatternSyntaxError, match="expected '\\)' to close MATCH_RECOGNIZE"):
        translate("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY x PATTERN (A) DEFINE A AS x < (1 +)", read="trino")


def test_a_translation_spark_refuses_is_reported(spark) -> None:
    spark.range(3).selectExpr("id AS x").createOrReplaceTempView("refused")
    with pytest.raises(TranslationError) as info:
        translate("SELECT * FROM refused MATCH_RECOGNIZE (ORDER BY x PATTERN (A) DEFINE A AS PREV(PREV(x)) > 0)",
                  read="trino", spark=spark)
    assert info.value.problem.startswith("Spark cannot analyze the translated statement: in the condition of A")
    assert "a navigation reads columns of one row" in info.value.problem
    assert info.value.query.index("PREV(PREV(x))") == info.value.offset, "placed in the translated statement"
    with pytest.raises(TranslationError, match="Spark cannot analyze the translated statement: .*HASH_AGG"):
        translate("SELECT * FROM refused MATCH_RECOGNIZE (ORDER BY x MEASURES HASH_AGG(A.x) AS h PATTERN (A+) "
                  "DEFINE A AS x > 0)", read="snowflake", spark=spark)


def test_nested_clauses_and_aliases() -> None:
    trino = ("SELECT * FROM (SELECT * FROM orders MATCH_RECOGNIZE (ORDER BY day MEASURES A.price AS p PATTERN (A B+) "
             "SUBSET U = (A, B) DEFINE B AS B.price < PREV(B.price))) x MATCH_RECOGNIZE (ORDER BY p PATTERN (A) "
             "DEFINE A AS true) AS y")
    written = translate(trino, read="trino", check=False)
    assert written.count("MATCH_RECOGNIZE") == 2 and "SUBSET U = (A, B)" in written
    assert ") x MATCH_RECOGNIZE (ORDER BY p NULLS LAST" in written and written.endswith(") AS y")


def test_a_statement_without_a_clause_is_translated_whole() -> None:
    assert translate("SELECT IFF(a, 1, 2) FROM t", read="snowflake") == "SELECT IF(a, 1, 2) FROM t"


def test_docstring_examples() -> None:
    result = doctest.testmod(sys.modules["spark_cer.translate"], optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted >= 2
