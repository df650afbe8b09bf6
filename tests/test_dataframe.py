"""
The Python API on the real jar: `DataFrame.cer` (validated in Python first, then the `cer` table function),
`spark_cer.session` / `configure` / `jar_path` (Spark Connect: tests/test_connect_server.py).
"""

from __future__ import annotations

import os
from collections import Counter

import pytest
from pyspark.errors import AnalysisException
from pyspark.sql import DataFrame, SparkSession

import spark_cer
from conftest import REPO, STOCK_ORDER, STOCKS, canonical

PATTERN = "SELL AS s ; BUY AS b FILTER s[price > 100] AND b[volume >= 30] WITHIN 8 [ts]"
REFERENCE = f"SELECT * FROM events WHERE {PATTERN} PARTITION BY sym ORDER BY ts, id"


def test_cer_gives_the_runner_rows(events, runner, events_csv) -> None:
    rows = events.cer(PATTERN, partition_by="sym", order_by=["ts", "id"]).collect()
    expected = runner.matches(REFERENCE, events_csv)
    assert expected and canonical(rows) == canonical(expected)


def test_cer_function_and_clauses_in_the_query(events, runner, events_csv) -> None:
    rows = spark_cer.cer(events, PATTERN + " PARTITION BY sym ORDER BY ts, id").collect()
    assert canonical(rows) == canonical(runner.matches(REFERENCE, events_csv))


def test_cer_with_select_and_strategy(events, runner, events_csv) -> None:
    query = "SELECT LAST s[price, ts], b WHERE SELL AS s ; BUY+ AS b FILTER s[price > 100] WITHIN 8 [ts]"
    df = events.cer(query, partition_by=["sym"], order_by=["ts", "id"])
    assert [f.name for f in df.schema.fields] == ["sym", "match_start", "match_end", "s", "b"]
    expected = runner.matches(
        query.replace("WHERE", "FROM events WHERE") + " PARTITION BY sym ORDER BY ts, id", events_csv
    )
    assert expected and canonical(df.collect()) == canonical(expected)


def test_cer_descending_order_key_and_core_forms(events, runner, events_csv) -> None:
    """`IN {..}`, quotes and Spark's backslash escapes survive the trip through the SQL string literal."""
    query = (
        "SELECT s, b WHERE SELL AS s ; BUY AS b "
        "FILTER s[sym IN {'A', 'B'} AND price IN 95..125] AND b[event_type RLIKE '^B\\\\w+$' AND volume > 20] "
        "WITHIN 6 [ts]"
    )
    rows = events.cer(query, order_by=["ts", "id DESC"]).collect()
    expected = runner.matches(query.replace("WHERE", "FROM events WHERE") + " ORDER BY ts, id DESC", events_csv)
    assert expected and canonical(rows) == canonical(expected)


def test_cer_type_and_time_columns(spark, events, runner, events_csv) -> None:
    kinds = events.selectExpr("id", "sym", "price", "volume", "ts * 1000 + id AS t", "event_type AS kind")
    rows = kinds.cer("SELECT s, b WHERE SELL AS s ; BUY AS b WITHIN 3 EVENTS", type_column="kind", time_column="t")
    expected = runner.matches(
        "SELECT s, b FROM events WHERE SELL AS s ; BUY AS b WITHIN 3 EVENTS ORDER BY ts, id", events_csv
    )
    assert Counter((r.s.id, r.b.id) for r in rows.collect()) == Counter((m["s"]["id"], m["b"]["id"]) for m in expected)
    # only the time column given: the type column comes from the conf's default
    only_time = events.withColumn("t", events.ts * 1000 + events.id).cer(
        "SELECT s, b WHERE SELL AS s ; BUY AS b WITHIN 3 EVENTS", time_column="t"
    )
    assert only_time.count() == len(expected)


def test_cer_on_a_stock_query(stocks, runner) -> None:
    text = (REPO / "sql/stocks/s3_by_name.ceql").read_text()
    pattern = text[text.index("WHERE") + len("WHERE") :]
    rows = stocks.cer(pattern, order_by=["stock_time", "id DESC"])
    assert rows.count() == runner.count(text + STOCK_ORDER + "\n", STOCKS)


def test_cer_on_empty_input(events) -> None:
    df = events.where("id < 0").cer(PATTERN, partition_by="sym", order_by=["ts", "id"])
    assert df.collect() == []
    assert [f.name for f in df.schema.fields] == ["sym", "match_start", "match_end", "s", "b"]


def test_cer_result_is_a_dataframe(events) -> None:
    df = events.cer(PATTERN, partition_by="sym", order_by=["ts", "id"])
    assert isinstance(df, DataFrame)
    summary = df.groupBy("sym").count().orderBy("sym").collect()
    assert sum(r["count"] for r in summary) == df.count()


# ---- validation happens in Python, before the JVM ------------------------------------------------------------


def test_cer_unknown_column_is_caught_in_python(events) -> None:
    with pytest.raises(spark_cer.CeqlAnalysisError) as info:
        events.cer("SELL AS s FILTER s[prize > 1]", order_by="ts")
    assert str(info.value) == "\n".join(
        [
            "line 1, column 20: unknown column 'prize'; the columns are: event_type, id, sym, price, volume, ts",
            "  SELL AS s FILTER s[prize > 1]",
            "                     ^^^^^",
        ]
    )


def test_cer_syntax_error_is_caught_in_python(events) -> None:
    with pytest.raises(spark_cer.CeqlSyntaxError, match=r"line 1, column 8: expected an event type, '\(' or NOT"):
        events.cer("SELL ; ; BUY", order_by="ts")


def test_cer_missing_order_is_caught_in_python(events) -> None:
    with pytest.raises(spark_cer.CeqlAnalysisError, match="the stream has no order"):
        events.cer("SELL ; BUY")


def test_cer_time_column_conf_gives_the_order(spark, events) -> None:
    spark.conf.set("spark.cer.timeColumn", "ts")
    try:
        assert events.cer("SELECT NONE WHERE SELL ; BUY WITHIN 2 EVENTS").count() > 0
    finally:
        spark.conf.unset("spark.cer.timeColumn")


def test_cer_rejects_from_and_repeated_clauses(events) -> None:
    with pytest.raises(spark_cer.CeqlAnalysisError, match="leave FROM out of the pattern") as info:
        events.cer("SELECT * FROM events WHERE SELL ; BUY", order_by="ts")
    assert (info.value.line, info.value.column, info.value.length) == (1, 15, 6)
    with pytest.raises(spark_cer.CeqlAnalysisError, match="PARTITION BY is given twice"):
        events.cer("SELL ; BUY PARTITION BY sym", partition_by="sym", order_by="ts")
    with pytest.raises(spark_cer.CeqlAnalysisError, match="ORDER BY is given twice"):
        events.cer("SELL ; BUY ORDER BY ts", order_by="ts")
    with pytest.raises(spark_cer.CeqlAnalysisError, match="the input has no event type column 'kind'"):
        events.cer("SELL ; BUY", order_by="ts", type_column="kind")


def test_cer_spark_errors_in_predicates_are_placed(events) -> None:
    """Spark's own analysis errors in a predicate come back as a CeqlAnalysisError pointing at the predicate."""
    with pytest.raises(
        spark_cer.CeqlAnalysisError, match=r"in the predicate s\[price = TRUE\]: \[DATATYPE_MISMATCH"
    ) as info:
        events.cer("SELL AS s FILTER s[price = TRUE]", order_by="ts")
    assert (info.value.line, info.value.column, info.value.length) == (1, 18, len("s[price = TRUE]"))
    assert isinstance(info.value.__cause__, AnalysisException)


# ---- sessions and packaging ------------------------------------------------------------------------------------


def test_dataframe_classes_have_cer() -> None:
    from pyspark.sql.classic.dataframe import DataFrame as ClassicDataFrame

    assert DataFrame.cer.__name__ == "cer" and "CEQL" in DataFrame.cer.__doc__
    assert ClassicDataFrame.cer is DataFrame.cer
    try:
        from pyspark.sql.connect.dataframe import DataFrame as ConnectDataFrame
    except ImportError:  # the Spark Connect client libraries (grpcio, pandas, pyarrow) are not installed
        return
    spark_cer.dataframe.install()
    assert ConnectDataFrame.cer is DataFrame.cer


def test_configure_appends() -> None:
    builder = SparkSession.builder.config("spark.jars", "/opt/other.jar").config(
        "spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension"
    )
    spark_cer.configure(builder, jar="/opt/spark-cer.jar")
    spark_cer.configure(builder, jar="/opt/spark-cer.jar")  # idempotent
    assert builder._options["spark.jars"] == "/opt/other.jar,/opt/spark-cer.jar"
    assert builder._options["spark.sql.extensions"] == (
        "io.delta.sql.DeltaSparkSessionExtension,io.sparkcer.spark.CerSparkSessionExtensions"
    )
    fresh = spark_cer.configure(SparkSession.builder, jar="/opt/spark-cer.jar")
    assert fresh._options["spark.sql.extensions"] == spark_cer.EXTENSION_CLASS


def test_session_has_the_extension(spark) -> None:
    assert os.path.isfile(spark_cer.jar_path())
    assert spark_cer.EXTENSION_CLASS in spark.conf.get("spark.sql.extensions")
    assert spark_cer.jar_path() in spark.sparkContext.getConf().get("spark.jars")
    assert spark_cer.session(master="local[2]") is spark  # the running session, already configured


def test_jar_path_override(monkeypatch, tmp_path) -> None:
    jar = tmp_path / "x.jar"
    jar.write_bytes(b"")
    monkeypatch.setenv("SPARK_CER_JAR", str(jar))
    assert spark_cer.jar_path() == str(jar)
    monkeypatch.setenv("SPARK_CER_JAR", str(tmp_path / "missing.jar"))
    with pytest.raises(FileNotFoundError):
        spark_cer.jar_path()


def test_python_functions_are_refused_with_what_to_write(spark, events) -> None:
    """The matcher evaluates conditions and measures itself: it calls no Python, in CEQL as in MATCH_RECOGNIZE."""
    from pyspark.sql.functions import pandas_udf, udf

    spark.udf.register("cer_twice", udf(lambda x: x * 2, "double"))
    spark.udf.register("cer_halve", pandas_udf(lambda x: x / 2, "double"))
    queries = [
        lambda: events.cer("SELL AS s ; BUY AS b FILTER b.price > cer_twice(s.price)", order_by="ts"),
        lambda: events.cer("SELL AS s FILTER s[cer_halve(price) > 1]", order_by="ts"),
        lambda: events.match_recognize("ORDER BY ts PATTERN (A B) DEFINE B AS price > cer_twice(A.price)"),
        lambda: events.match_recognize(
            "ORDER BY ts MEASURES cer_halve(LAST(A.price)) AS h PATTERN (A+) DEFINE A AS price > 1"
        ),
    ]
    for query in queries:
        with pytest.raises(spark_cer.CeqlAnalysisError) as info:
            query()
        problem = info.value.problem
        assert "calls the Python function cer_" in problem and "df.withColumn(" in problem, problem
        assert info.value.line == 1 and info.value.length > 1


def test_arguments_of_the_wrong_type_are_named(events) -> None:
    with pytest.raises(TypeError, match="partition_by must be a column name or a non-empty list"):
        events.cer("SELL ; BUY", order_by="ts", partition_by=5)
    with pytest.raises(TypeError, match=r"type_column must be a column name \(a string\), not 5"):
        events.cer("SELL ; BUY", order_by="ts", type_column=5)


def test_run_time_errors_quote_the_query_not_the_statement_it_runs_as(events) -> None:
    """
    df.cer and df.match_recognize run as a generated ``SELECT * FROM cer(TABLE(...), ...)``: Spark's run-time errors
    in a condition or a measure (an ANSI overflow) quote what the user wrote, never that statement.
    """
    from pyspark.errors import ArithmeticException

    big = events.selectExpr("*", "CAST(price AS DECIMAL(38, 0)) * 6e35BD AS big")  # two of them overflow a sum
    queries = {
        "sum(A.big)": lambda: big.match_recognize(
            "ORDER BY ts, id MEASURES sum(A.big) AS s PATTERN (A+) DEFINE A AS price > 0"
        ),
        "b.big": lambda: big.cer(
            "SELL AS s ; (BUY AS b)+ FILTER sum(b.big) > 0 WITHIN 5 EVENTS", order_by=["ts", "id"]
        ),
    }
    for written, query in queries.items():
        with pytest.raises(ArithmeticException) as info:
            query().collect()
        message = str(info.value)
        assert "== SQL" in message and f"\n{written}\n" in message, message
        assert "TABLE(" not in message and "_pyspark_" not in message, message
