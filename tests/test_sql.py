"""
spark-cer through `spark.sql`, on the real jar in a local SparkSession: the CEQL statement (PATTERN and WHERE),
the `cer` table function inside larger SQL, CORE's stock queries on the trace, the output schema, NULLs,
several streams, and the errors a user sees. Every result is compared with the engine's command-line runner
on the same data.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
from pyspark.errors import AnalysisException, ParseException
from pyspark.sql.types import ArrayType, DoubleType, LongType, StringType, StructField, StructType

from conftest import EVENT_COLUMNS, REPO, STOCK_ORDER, STOCK_SCHEMA, STOCKS, canonical, write_stock_csv

PATTERN = "SELL AS s ; BUY AS b FILTER s[price > 100] AND b[volume >= 30]"
CLAUSES = "PARTITION BY sym ORDER BY ts, id WITHIN 8 [ts]"
STATEMENT = f"SELECT * FROM events PATTERN {PATTERN} {CLAUSES}"

EVENT_STRUCT = StructType(
    [
        StructField("event_type", StringType()),
        StructField("id", LongType()),
        StructField("sym", StringType()),
        StructField("price", DoubleType()),
        StructField("volume", LongType()),
        StructField("ts", LongType()),
    ]
)


def no_jvm_trace(e: Exception) -> None:
    """The error a user sees is a message, not a JVM stack trace."""
    text = str(e)
    assert "\tat " not in text and "Py4JJavaError" not in text and "java.lang." not in text, text


def simple_types(schema: StructType) -> list:
    """(name, type) pairs with nullability left out, to compare schemas by shape."""

    def strip(t):
        if isinstance(t, StructType):
            return StructType([StructField(f.name, strip(f.dataType)) for f in t.fields])
        if isinstance(t, ArrayType):
            return ArrayType(strip(t.elementType))
        return t

    return [(f.name, strip(f.dataType)) for f in schema.fields]


# ---- every SQL surface gives the runner's rows ---------------------------------------------------------------


def test_statement_with_pattern(spark, events, runner, events_csv) -> None:
    expected = runner.matches(STATEMENT, events_csv)
    assert len(expected) >= 10
    assert canonical(spark.sql(STATEMENT).collect()) == canonical(expected)


def test_statement_with_where(spark, events, runner, events_csv) -> None:
    statement = f"SELECT * FROM events WHERE {PATTERN} {CLAUSES}"
    assert canonical(spark.sql(statement).collect()) == canonical(runner.matches(STATEMENT, events_csv))


def test_plain_sql_with_where_stays_spark(spark, events) -> None:
    """A statement Spark's own parser accepts keeps Spark's meaning."""
    rows = spark.sql("SELECT id FROM events WHERE price > 125 ORDER BY id").collect()
    assert [r.id for r in rows] == [r.id for r in events.where("price > 125").orderBy("id").collect()]


def test_table_function(spark, events, runner, events_csv) -> None:
    rows = spark.sql(
        f"SELECT * FROM cer(TABLE(events) PARTITION BY sym ORDER BY (ts, id), '{PATTERN} WITHIN 8 [ts]')"
    ).collect()
    assert canonical(rows) == canonical(runner.matches(STATEMENT, events_csv))


def test_table_function_by_name(spark, events, runner, events_csv) -> None:
    rows = spark.sql(f"SELECT * FROM cer('events', '{PATTERN} {CLAUSES}')").collect()
    assert canonical(rows) == canonical(runner.matches(STATEMENT, events_csv))


def test_table_function_inside_larger_sql(spark, events, runner, events_csv) -> None:
    rows = spark.sql(
        "SELECT sym, count(*) AS n, min(match_start) AS first FROM "
        f"cer(TABLE(events) PARTITION BY sym ORDER BY (ts, id), '{PATTERN} WITHIN 8 [ts]') "
        "GROUP BY sym ORDER BY sym"
    ).collect()
    expected = runner.matches(STATEMENT, events_csv)
    assert {r.sym: r.n for r in rows} == dict(Counter(m["sym"] for m in expected))
    assert {r.sym: r.first for r in rows} == {
        s: min(m["match_start"] for m in expected if m["sym"] == s) for s in {m["sym"] for m in expected}
    }


def test_table_function_joined_back(spark, events, runner, events_csv) -> None:
    """The matches are an ordinary relation: join them back to the events."""
    rows = spark.sql(
        "SELECT m.s.id AS sell, e.id AS later FROM "
        f"cer(TABLE(events) PARTITION BY sym ORDER BY (ts, id), '{PATTERN} WITHIN 8 [ts]') m "
        "JOIN events e ON e.sym = m.sym AND e.ts = m.match_end AND e.id = m.b.id"
    ).collect()
    expected = runner.matches(STATEMENT, events_csv)
    assert Counter((r.sell, r.later) for r in rows) == Counter((m["s"]["id"], m["b"]["id"]) for m in expected)


@pytest.mark.parametrize(
    "query",
    [
        f"SELECT LAST s, b FROM events PATTERN SELL AS s ; BUY+ AS b FILTER s[price > 100] {CLAUSES}",
        "SELECT * FROM events PATTERN SELL AS s ; BUY+ AS b FILTER s[price > 100] "
        "PARTITION BY sym ORDER BY ts, id WITHIN 5 [ts]",
        "SELECT NEXT s[price, ts], b[id] FROM events PATTERN SELL AS s ; BUY+ AS b ; SELL AS e "
        "FILTER e[sym IN {'A', 'B'}] AND s[price IN 90..120] PARTITION BY sym ORDER BY ts, id WITHIN 20 [ts]",
        "SELECT LAST s, b FROM events PATTERN SELL AS s ; (BUY OR SELL)+ AS b ; SELL AS e "
        "FILTER e[sym NOT IN {'C'}] AND s[price IN RANGE(90, 120)] PARTITION BY sym ORDER BY ts, id WITHIN 10 [ts]",
        "SELECT MAX * FROM events PATTERN SELL AS s : BUY:+ AS b PARTITION BY sym ORDER BY ts, id WITHIN 6 EVENTS",
        "SELECT * FROM events PATTERN SELL AS s ; NOT(SELL FILTER SELL[price > 100]) ; BUY AS b "
        "PARTITION BY sym ORDER BY ts, id WITHIN 3 [ts] CONSUME BY PARTITION",
    ],
    ids=["last-kleene", "all-kleene", "next-ranges", "last-or-sets", "max-contiguous", "not-consume"],
)
def test_strategies_and_operators(spark, events, runner, events_csv, query: str) -> None:
    expected = runner.matches(query, events_csv)
    assert expected, "the query should match something"
    assert canonical(spark.sql(query).collect()) == canonical(expected)


# ---- CORE's stock queries on the trace ------------------------------------------------------------------------

# Every query under sql/stocks/: CORE's S3 to S24 and their never-matching variants S3' to S24' (with wider
# windows for S3'), S3's shape PARTITION BY name, the Kleene burst with LAST, and CORE's other-operator queries;
# but not the benchmark's heavy workloads (millions of matches each, make bench compares those).
HEAVY = {"q1_seq4", "q2_seq4_filter", "q4_or", "q5_or_filter", "q7_kleene", "s3_x2", "s3_x3", "s3_x4"}
STOCK_QUERIES = sorted(p.stem for p in (REPO / "sql" / "stocks").glob("*.ceql") if p.stem not in HEAVY)


def stock_query(name: str, view: str = "S") -> str:
    """A query of sql/stocks/ (each reads the stream S) over `view`, in the order the file's rows arrive in."""
    text = (REPO / "sql" / "stocks" / f"{name}.ceql").read_text()
    return re.sub(r"\bFROM S\b", f"FROM {view}", text) + STOCK_ORDER + "\n"


@pytest.fixture(scope="module")
def trace_head(spark, trace, tmp_path_factory) -> Path:
    """The trace's first events (about an hour of it, conftest's TRACE_EVENTS) as a CSV file for the runner and as
    the view `trace_head`: each query's count on them is compared, and the full trace's rows on a few below."""
    path = tmp_path_factory.mktemp("trace-head") / "stocks.csv"
    write_stock_csv(path, trace)
    spark.read.csv(str(path), header=True, schema=STOCK_SCHEMA).createOrReplaceTempView("trace_head")
    return path


@pytest.mark.parametrize("name", STOCK_QUERIES)
def test_stock_query_count(spark, trace_head, runner, name: str) -> None:
    query = stock_query(name, view="trace_head")
    assert spark.sql(query).count() == runner.count(query, trace_head)


@pytest.mark.parametrize("name", ["s3_by_name", "rising_last"])
def test_stock_query_rows_on_the_full_trace(spark, stocks, runner, name: str) -> None:
    query = stock_query(name)
    expected = runner.matches(query, STOCKS)
    assert len(expected) > 100
    assert canonical(spark.sql(query).collect()) == canonical(expected)


def test_next_strategy_with_partition_by(spark, stocks, runner) -> None:
    """NEXT chooses among every match of the formula before WITHIN drops the long ones (Foundations of CEP, Bucchi et
    al., VLDB 2018, §4, then CORE's WITHIN, §2.2), per key."""
    query = stock_query("rising_last").replace("SELECT LAST", "SELECT NEXT")
    assert spark.sql(query).count() == runner.count(query, STOCKS)


# ---- the output contract -------------------------------------------------------------------------------------


def test_schema_struct_and_array(spark, events) -> None:
    df = spark.sql(
        "SELECT * FROM events PATTERN SELL AS s ; BUY+ AS b ; SELL AS e PARTITION BY sym ORDER BY ts, id WITHIN 3 [ts]"
    )
    assert simple_types(df.schema) == [
        ("sym", StringType()),
        ("match_start", LongType()),
        ("match_end", LongType()),
        ("s", EVENT_STRUCT),
        ("b", ArrayType(EVENT_STRUCT)),
        ("e", EVENT_STRUCT),
    ]


def test_schema_projections(spark, events) -> None:
    df = spark.sql("SELECT s[price, ts], b[id] FROM events PATTERN SELL AS s ; BUY+ AS b ORDER BY ts, id WITHIN 2 [ts]")
    assert simple_types(df.schema) == [
        ("match_start", LongType()),
        ("match_end", LongType()),
        ("s", StructType([StructField("price", DoubleType()), StructField("ts", LongType())])),
        ("b", ArrayType(StructType([StructField("id", LongType())]))),
    ]


def test_schema_without_as_uses_event_types(spark, events) -> None:
    df = spark.sql("SELECT * FROM events PATTERN SELL ; BUY PARTITION BY sym, event_type ORDER BY ts, id WITHIN 2 [ts]")
    assert [f.name for f in df.schema.fields] == ["sym", "event_type", "match_start", "match_end", "SELL", "BUY"]


def test_select_none(spark, events, runner, events_csv) -> None:
    query = "SELECT NONE FROM events PATTERN SELL AS s ; BUY AS b ORDER BY ts, id WITHIN 3 EVENTS"
    df = spark.sql(query)
    assert [f.name for f in df.schema.fields] == ["match_start", "match_end"]
    assert canonical(df.collect()) == canonical(runner.matches(query, events_csv))


def test_null_partition_keys_are_left_out(spark, events, runner, events_csv) -> None:
    query = "SELECT * FROM events PATTERN SELL AS s ; BUY AS b PARTITION BY sym ORDER BY ts, id WITHIN 8 [ts]"
    rows = spark.sql(query).collect()
    assert rows and all(r.sym is not None for r in rows)
    assert canonical(rows) == canonical(runner.matches(query, events_csv))
    # the NULL-key rows would have matched among themselves
    assert events.where("sym IS NULL AND event_type = 'SELL'").count() > 0
    assert events.where("sym IS NULL AND event_type = 'BUY'").count() > 0


def test_null_predicate_is_false(spark, events, runner, events_csv) -> None:
    either = "SELECT NONE FROM events PATTERN SELL AS s ; BUY AS b FILTER s[price > 100 OR NOT (price > 100)] ORDER BY ts, id WITHIN 3 EVENTS"
    every = "SELECT NONE FROM events PATTERN SELL AS s ; BUY AS b ORDER BY ts, id WITHIN 3 EVENTS"
    n_either, n_every = spark.sql(either).count(), spark.sql(every).count()
    assert n_either == runner.count(either, events_csv)
    assert n_either < n_every  # a SELL with a NULL price satisfies neither price > 100 nor its negation
    nulls = spark.sql(
        "SELECT s FROM events PATTERN SELL AS s ; BUY AS b FILTER s[price IS NULL] ORDER BY ts, id WITHIN 3 EVENTS"
    ).collect()
    assert nulls and all(r.s.price is None for r in nulls)


def test_several_streams_in_from(spark, events, runner, events_csv, tmp_path: Path) -> None:
    """Two streams without a type column: each row's type is its stream's name, and the streams are merged."""
    spark.sql("SELECT id, sym, price, volume, ts FROM events WHERE event_type = 'SELL'").createOrReplaceTempView(
        "sells"
    )
    spark.sql("SELECT id, sym, price, volume, ts FROM events WHERE event_type = 'BUY'").createOrReplaceTempView("buys")
    query = (
        "SELECT * FROM sells, buys PATTERN sells AS s ; buys AS b FILTER s[price > 100] AND b[volume >= 30] "
        "PARTITION BY sym ORDER BY ts, id WITHIN 8 [ts]"
    )
    rows = spark.sql(query).collect()
    # the runner on the same events, their type column renamed to the stream names
    renamed = tmp_path / "streams.csv"
    renamed.write_text(events_csv.read_text().replace("SELL,", "sells,").replace("BUY,", "buys,"))
    expected = runner.matches(query, renamed)
    assert expected
    key = lambda sym, start, end, s, b: (sym, start, end, s, b)  # noqa: E731
    assert Counter(key(r.sym, r.match_start, r.match_end, r.s.id, r.b.id) for r in rows) == Counter(
        key(m["sym"], m["match_start"], m["match_end"], m["s"]["id"], m["b"]["id"]) for m in expected
    )


def test_type_column_and_time_column(spark, events, runner, events_csv) -> None:
    """The confs spark.cer.eventTypeColumn and spark.cer.timeColumn, and the same as table function arguments."""
    spark.sql(
        "SELECT id, sym, price, volume, ts * 1000 + id AS t, event_type AS kind FROM events"
    ).createOrReplaceTempView("kinds")
    pattern = "SELECT s, b WHERE SELL AS s ; BUY AS b FILTER b[volume > 50] WITHIN 3 EVENTS"
    try:
        spark.conf.set("spark.cer.eventTypeColumn", "kind")
        spark.conf.set("spark.cer.timeColumn", "t")
        with_confs = spark.sql(pattern.replace("WHERE", "FROM kinds PATTERN")).collect()
    finally:
        spark.conf.unset("spark.cer.eventTypeColumn")
        spark.conf.unset("spark.cer.timeColumn")
    with_arguments = spark.sql(f"SELECT * FROM cer(TABLE(kinds), '{pattern}', 'kind', 't')").collect()
    # t orders the stream as ts, id does
    expected = runner.matches(pattern.replace("WHERE", "FROM events WHERE") + " ORDER BY ts, id", events_csv)
    pairs = Counter((m["s"]["id"], m["b"]["id"]) for m in expected)
    assert pairs
    assert Counter((r.s.id, r.b.id) for r in with_confs) == pairs
    assert Counter((r.s.id, r.b.id) for r in with_arguments) == pairs


def test_empty_input(spark, events) -> None:
    events.where("id < 0").createOrReplaceTempView("nothing")
    df = spark.sql(f"SELECT * FROM nothing PATTERN {PATTERN} {CLAUSES}")
    assert df.collect() == []
    assert [f.name for f in df.schema.fields] == ["sym", "match_start", "match_end", "s", "b"]


def test_unknown_type_matches_nothing(spark, events) -> None:
    """An event type that never occurs is no error (a stream need not hold every type): the pattern never matches."""
    assert spark.sql("SELECT * FROM events PATTERN SELL AS s ; HOLD AS h ORDER BY ts, id").collect() == []


# ---- errors ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "spark_predicate, core_predicate",
    [
        ("cast(price AS int) > 100", "price >= 101"),
        ("CASE WHEN volume >= 30 THEN true ELSE false END", "volume >= 30"),
        ("price::int > 100 AND sym || '!' != 'X!'", "price >= 101 AND sym != 'X'"),
        ("exists(array(volume, id), v -> v >= 30)", "volume >= 30 OR id >= 30"),
        ("timestamp_millis(ts * 1000) < TIMESTAMP '1970-01-01 00:00:00' + INTERVAL 30 SECONDS", "ts < 30"),
    ],
)
def test_every_spark_expression_is_a_predicate(
    spark, events, runner, events_csv, spark_predicate: str, core_predicate: str
) -> None:
    """Spark's parser reads the predicate: what the engine's runner cannot read, Spark evaluates."""
    query = "SELECT * FROM events PATTERN SELL AS s ; BUY AS b FILTER s[{}] ORDER BY ts, id WITHIN 8 [ts]"
    rows = spark.sql(query.format(spark_predicate)).collect()
    expected = runner.matches(query.format(core_predicate).replace("PATTERN", "WHERE"), events_csv)
    assert expected and canonical(rows) == canonical(expected)


def test_syntax_error(spark, events) -> None:
    with pytest.raises(ParseException) as info:
        spark.sql("SELECT * FROM events PATTERN SELL AS s ; ; BUY AS b ORDER BY ts")
    text = str(info.value)
    assert "line 1, column 42: expected an event type, '(' or NOT, found ';'" in text
    assert "  SELECT * FROM events PATTERN SELL AS s ; ; BUY AS b ORDER BY ts\n" + " " * 43 + "^" in text
    no_jvm_trace(info.value)


def test_syntax_error_in_table_function(spark, events) -> None:
    with pytest.raises(ParseException) as info:
        spark.sql("SELECT * FROM cer(TABLE(events), 'SELL AS s ; ; BUY ORDER BY ts')").collect()
    assert "line 1, column 13: expected an event type, '(' or NOT, found ';'" in str(info.value)
    assert "  SELL AS s ; ; BUY ORDER BY ts\n" + " " * 14 + "^" in str(info.value)
    no_jvm_trace(info.value)
    # a predicate is Spark SQL: Spark's parser judges it, and the error points into the pattern
    with pytest.raises(ParseException) as info:
        spark.sql("SELECT * FROM cer(TABLE(events), 'SELL AS s FILTER s[price >] ORDER BY ts')").collect()
    assert (
        "line 1, column 27: Spark SQL cannot parse the predicate s[price >]: [PARSE_SYNTAX_ERROR] Syntax error at "
        "or near end of input"
    ) in str(info.value)
    no_jvm_trace(info.value)


def test_unknown_column_lists_the_columns(spark, events) -> None:
    with pytest.raises(AnalysisException) as info:
        spark.sql("SELECT * FROM events PATTERN SELL AS s ; BUY AS b FILTER s[prize > 100] ORDER BY ts").collect()
    text = str(info.value)
    assert "unknown column 'prize'" in text
    assert all(c in text for c in EVENT_COLUMNS), text
    assert "line 1, column 60" in text
    assert "\n" + " " * 61 + "^^^^^" in text
    no_jvm_trace(info.value)


def test_missing_stream_order(spark, events) -> None:
    with pytest.raises(AnalysisException) as info:
        spark.sql("SELECT * FROM events PATTERN SELL AS s ; BUY AS b").collect()
    assert "the stream has no order" in str(info.value)
    assert "ORDER BY" in str(info.value)
    no_jvm_trace(info.value)


@pytest.mark.parametrize("predicate", ["price = TRUE", "price"], ids=["double-vs-boolean", "not-a-boolean"])
def test_type_mismatch_in_predicate(spark, events, predicate: str) -> None:
    with pytest.raises(AnalysisException) as info:
        spark.sql(f"SELECT * FROM events PATTERN SELL AS s ; BUY AS b FILTER s[{predicate}] ORDER BY ts").collect()
    assert "price" in str(info.value)
    no_jvm_trace(info.value)


def test_unknown_variable_in_select(spark, events) -> None:
    with pytest.raises(AnalysisException) as info:
        spark.sql("SELECT x FROM events PATTERN SELL AS s ; BUY AS b ORDER BY ts").collect()
    assert "unknown variable 'x' in SELECT; the pattern binds: SELL, s, BUY, b" in str(info.value)
    no_jvm_trace(info.value)


def test_unknown_table(spark) -> None:
    with pytest.raises(AnalysisException) as info:
        spark.sql("SELECT * FROM no_such_table PATTERN SELL AS s ; BUY AS b ORDER BY ts").collect()
    assert "no_such_table" in str(info.value)
    no_jvm_trace(info.value)
