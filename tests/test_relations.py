"""
Conditions that relate events (n-ary conditions, as in RMA, Alevizos et al., §3) on the real jar: `var.attr` conditions,
aggregates, `prev`, NOT and AND, through `spark.sql` (the statement and the `cer` table function), `df.cer` and
`spark_cer.validate`, each compared with the engine's command-line runner on the same data; equalities across every
event run as a partition, other equalities on a PCEA (the general evaluator's rows either way), which EXPLAIN says; and
the errors a user sees, with their place.
"""

from __future__ import annotations

from collections import Counter

import pytest
from pyspark.errors import AnalysisException

import spark_cer
from spark_cer import CeqlError

from conftest import STOCK_ORDER, STOCKS, _event_rows, canonical

ORDER = "ORDER BY ts, id"

# Over the small `events` table (event_type, id, sym, price, volume, ts), with NULL prices and symbols.
QUERIES = {
    # a dearer BUY of the same symbol after a SELL: the equality is a partition, the comparison a condition
    "dearer-buy": "SELECT * FROM events PATTERN SELL AS s ; BUY AS b FILTER b.sym = s.sym AND b.price > s.price "
    f"{ORDER} WITHIN 6 [ts]",
    # the comparison alone: a lazy chain over the buffered SELLs
    "dearer-buy-any-symbol": "SELECT * FROM events PATTERN SELL AS s ; BUY AS b FILTER b.price > s.price * 1.1 "
    f"{ORDER} WITHIN 4 [ts]",
    # three rising prices in a row of purchases
    "rising": "SELECT * FROM events PATTERN (BUY AS b)+ FILTER b.price > prev(b.price) AND count(b) >= 3 "
    f"PARTITION BY sym {ORDER} WITHIN 8 [ts]",
    # a burst whose total volume passes a bound, with its average and its ends
    "burst": "SELECT * FROM events PATTERN (BUY AS b)+ FILTER sum(b.volume) > 150 AND avg(b.volume) < 70 "
    f"AND first(b.price) < last(b.price) PARTITION BY sym {ORDER} WITHIN 5 [ts]",
    # every purchase of the burst cheaper than the closing sale: a list register, under a window
    "cheaper-burst": "SELECT * FROM events PATTERN (BUY AS b)+ ; SELL AS s FILTER b.price < s.price "
    f"PARTITION BY sym {ORDER} WITHIN 5 [ts]",
    # a sale and a purchase of one symbol in either order, the purchase not dearer
    "conjunction": "SELECT * FROM events PATTERN (SELL AS s AND BUY AS b) FILTER s.sym = b.sym "
    f"AND NOT (b.price > s.price) {ORDER} WITHIN 3 [ts]",
    # equalities on two attributes, each between neighbouring events: no partition, a PCEA's chain
    "equality-chain": "SELECT * FROM events PATTERN SELL AS s ; BUY AS b ; BUY AS c FILTER s.sym = b.sym "
    f"AND b.volume = c.volume {ORDER} WITHIN 40 [ts]",
    # a condition on one event is a guard
    "unary": f"SELECT * FROM events PATTERN SELL AS s ; BUY AS b FILTER s.volume > 60 AND b[volume < 20] {ORDER} "
    "WITHIN 4 [ts]",
}


@pytest.mark.parametrize("name", list(QUERIES))
def test_statement_gives_the_runner_rows(spark, events, runner, events_csv, name: str) -> None:
    expected = runner.matches(QUERIES[name], events_csv)
    assert expected, "the query should match something on the test data"
    assert canonical(spark.sql(QUERIES[name]).collect()) == canonical(expected)


@pytest.mark.parametrize("name", ["dearer-buy", "rising", "burst", "conjunction"])
def test_table_function_and_dataframe_give_the_runner_rows(spark, events, runner, events_csv, name: str) -> None:
    statement = QUERIES[name]
    pattern = statement.split(" PATTERN ", 1)[1]
    body, order = pattern.split(f" {ORDER} ")
    within = order.strip()
    partition = None
    if " PARTITION BY sym" in body:
        body, partition = body.replace(" PARTITION BY sym", ""), "sym"
    expected = canonical(runner.matches(statement, events_csv))
    query = f"SELECT * WHERE {body} {within}"
    by_key = "PARTITION BY (sym) " if partition else "WITH SINGLE PARTITION "
    rows = spark.sql(f"SELECT * FROM cer(TABLE(events) {by_key}ORDER BY (ts, id), '{query}')").collect()
    assert canonical(rows) == expected
    assert canonical(events.cer(query, order_by=["ts", "id"], partition_by=partition).collect()) == expected


def test_stock_trace_dearer_purchase(spark, stocks, runner) -> None:
    """On the full trace: a purchase of the same stock at least 1% dearer than a sale, within 1 s."""
    query = (
        "SELECT * FROM S PATTERN SELL AS s ; BUY AS b FILTER b.name = s.name AND b.price > s.price * 1.01 "
        f"{STOCK_ORDER} WITHIN 1000 [stock_time]"
    )
    assert spark.sql(query).count() == runner.count(query, STOCKS) > 0


def test_explain_names_the_partition_and_the_evaluation(spark, events) -> None:
    plan = spark.sql(QUERIES["dearer-buy"])._jdf.queryExecution().executedPlan().toString()
    assert "partitioned by sym (from b.sym = s.sym" in plan
    assert "lazy chain" in plan
    plan = spark.sql(QUERIES["rising"])._jdf.queryExecution().executedPlan().toString()
    assert "registers (RMA)" in plan


def test_equalities_run_on_a_pcea_and_give_the_general_evaluators_rows(spark, events) -> None:
    query = QUERIES["equality-chain"]
    plan = spark.sql(query)._jdf.queryExecution().executedPlan().toString()
    assert "equality correlation by PCEA" in plan and "keys {s.sym = b.sym}, {b.volume = c.volume}" in plan
    rows = canonical(spark.sql(query).collect())
    spark.conf.set("spark.cer.pcea.enabled", "false")
    try:
        general = spark.sql(query)
        assert "not by PCEA: PCEA is turned off" in general._jdf.queryExecution().executedPlan().toString()
        assert canonical(general.collect()) == rows
    finally:
        spark.conf.unset("spark.cer.pcea.enabled")


def test_derived_partition_is_not_an_output_column(spark, events) -> None:
    columns = spark.sql(QUERIES["dearer-buy"]).columns
    assert columns == ["match_start", "match_end", "s", "b"]


def _chosen_sale(strategy: str, window: int) -> Counter:
    """
    SELECT NEXT, LAST or MAX of `SELL AS s ; BUY AS b FILTER b.price > s.price` by brute force over the events: per
    BUY, among the SELLs before it that the condition keeps, the ≤next maximum (the earliest), the ≤last maximum (the
    latest) or every one (no {s, b} contains another), chosen before the window, which then drops those where b.ts -
    s.ts is not below `window`.
    """
    ordered = sorted(_event_rows(), key=lambda r: (r[5], r[1]))  # (event_type, id, sym, price, volume, ts)
    chosen = []
    for j, b in enumerate(ordered):
        if b[0] != "BUY" or b[3] is None:
            continue
        sales = [s for s in ordered[:j] if s[0] == "SELL" and s[3] is not None and b[3] > s[3]]
        kept = {"NEXT": sales[:1], "LAST": sales[-1:], "MAX": sales}[strategy]
        chosen += [(s[1], b[1]) for s in kept if b[5] - s[5] < window]
    return Counter(chosen)


@pytest.mark.parametrize("strategy,window", [("NEXT", 20), ("LAST", 5), ("MAX", 5)])
def test_strategies_with_a_condition_choose_before_the_window(spark, events, strategy: str, window: int) -> None:
    query = (
        f"SELECT {strategy} * FROM events PATTERN SELL AS s ; BUY AS b FILTER b.price > s.price {ORDER} "
        f"WITHIN {window} [ts]"
    )
    df = spark.sql(query)
    expected = _chosen_sale(strategy, window)
    assert expected, "the query should match something on the test data"
    assert Counter((r.s.id, r.b.id) for r in df.collect()) == expected
    plan = df._jdf.queryExecution().executedPlan().toString()
    if strategy == "MAX":
        # Every match has two events, so none contains another: MAX keeps every match, and runs as ALL does.
        assert "MAX read as ALL (every match has 2 events" in plan
    else:
        assert f"{strategy} over configurations (NFA state, registers)" in plan


ERRORS = [
    # (query, the message's start, the column the caret points at)
    (
        "SELECT * FROM events PATTERN SELL AS s ; BUY AS b FILTER b.pricee > s.price ORDER BY ts WITHIN 5 [ts]",
        "unknown column 'pricee' of b",
        "pricee",
    ),
    (
        "SELECT * FROM events PATTERN SELL AS s ; BUY AS b FILTER b.price > x.price ORDER BY ts WITHIN 5 [ts]",
        "variable 'x' is not bound",
        "x.price",
    ),
    (
        "SELECT * FROM events PATTERN SELL AS s ; BUY AS b FILTER sum(b.volume) > 5 ORDER BY ts WITHIN 5 [ts]",
        "sum(...) ranges over the events bound to b, but b binds one event here",
        "sum(",
    ),
    (
        "SELECT * FROM events PATTERN SELL AS s ; BUY AS b FILTER b.price > prev(b.price) ORDER BY ts WITHIN 5 [ts]",
        "prev(...) is the event of b before the current one",
        "prev(",
    ),
    (
        "SELECT * FROM events PATTERN (BUY AS b)+ ; SELL AS s FILTER b.price < s.price ORDER BY ts",
        "'b' binds several events here",
        "b.price",
    ),
]


@pytest.mark.parametrize("query,problem,at", ERRORS, ids=[e[1][:30] for e in ERRORS])
def test_errors_name_the_place(spark, events, query: str, problem: str, at: str) -> None:
    with pytest.raises(AnalysisException) as caught:
        spark.sql(query).collect()
    text = str(caught.value)
    assert problem in text, text
    assert f"column {query.index(at) + 1}:" in text, text
    assert "\tat " not in text and "java.lang." not in text


@pytest.mark.parametrize("query,problem,at", ERRORS, ids=[e[1][:30] for e in ERRORS])
def test_validate_gives_the_same_errors(query: str, problem: str, at: str) -> None:
    columns = ["event_type", "id", "sym", "price", "volume", "ts"]
    text = query.replace("FROM events ", "")
    with pytest.raises(CeqlError) as caught:
        spark_cer.validate(text, schema=columns)
    assert problem in caught.value.problem
    assert caught.value.column == text.index(at) + 1


def test_validate_accepts_relations() -> None:
    columns = ["event_type", "id", "sym", "price", "volume", "ts"]
    for statement in QUERIES.values():
        spark_cer.validate(statement.replace("FROM events ", ""), schema=columns)
    assert spark_cer.validate(QUERIES["burst"].replace("FROM events ", ""), schema=columns).conditions == (
        "sum(b.volume) > 150",
        "avg(b.volume) < 70",
        "first(b.price) < last(b.price)",
    )
