"""
Bad queries at scale: CEQL queries mutated the way people and red teams mistype them (tokens deleted, doubled,
swapped; unbalanced brackets; keywords as names; long and non-ASCII identifiers; deep nesting and long chains).

Thousands go through the parser and analysis (the validation JVM of `spark_cer.validate`), hundreds through a
session's `validate` and through `df.cer` (`spark.sql` with the `cer` table function). Every answer is a query or
a `CeqlError` whose message says where and what, never a stack trace and never a hang; and `validate` accepts
exactly what Spark runs, with the same message.
"""

from __future__ import annotations

import random
import re
import signal
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, List, Optional

import pytest

from spark_cer import CeqlError, validate

REPO = Path(__file__).resolve().parents[1]
STOCK_COLUMNS = ["event_type", "id", "name", "volume", "price", "stock_time"]
SEEDS = [re.sub(r"(?i)\bFROM\s+\w+\s+", "", p.read_text()) for p in sorted(REPO.glob("sql/**/*.ceql"))] + [
    "SELECT NEXT s[price], b WHERE (SELL AS s ; (BUY FILTER BUY[volume >= 1000])+ AS b) "
    "PARTITION BY name WITHIN 2000 [stock_time]",
    "SELECT NONE WHERE NOT(BUY FILTER BUY[price < 3]) : SELL:+ AS x PARTITION BY [name, id], [volume] "
    "WITHIN 1 HOURS 30 MINUTES ORDER BY stock_time CONSUME BY PARTITION LIMIT 5",
    "BUY AS b FILTER b[lower(name) LIKE 'in%' AND price IN RANGE(1, 2) AND id NOT IN {1, 2} AND volume IN 1..9 "
    "AND volume IS NOT NULL AND -price < -1.5e2] WITHIN 10 EVENTS ORDER BY stock_time, id DESC",
    "SELECT MAX * WHERE SELL AS s ; BUY AS b FILTER s[cast(price AS int) > 1 AND CASE WHEN volume > 10 THEN true "
    "ELSE false END] AND b[exists(array(1, 2), t -> t > volume)] ORDER BY stock_time WITHIN 5 SECONDS",
]
TOKEN = re.compile(r"`[^`]*`|'(?:[^'\\]|\\.)*'|\"[^\"]*\"|\d+(?:\.\d+)?|[A-Za-z_]\w*|\.\.|[<>!=:]=?|\S")
KEYWORDS = [
    "SELECT",
    "FROM",
    "WHERE",
    "PATTERN",
    "FILTER",
    "AS",
    "OR",
    "AND",
    "NOT",
    "WITHIN",
    "ORDER",
    "BY",
    "PARTITION",
    "CONSUME",
    "LIMIT",
    "IN",
    "NULL",
    "EVENTS",
    "ANY",
    "LAST",
    "RANGE",
]
ODD_NAMES = ["x" * 5000, "prix\u20ac", "\u540d\u524d", "`\u540d\u524d`", "`\U0001f600 ts`", "`a``b`", "_", "`order`"]
BRACKETS = list("()[]{}")


def mutate(query: str, rng: random.Random) -> str:
    """One to three random mutations of a query's tokens."""
    tokens = TOKEN.findall(query)
    for _ in range(rng.randint(1, 3)):
        if not tokens:
            break
        i = rng.randrange(len(tokens))
        kind = rng.randrange(10)
        if kind == 0:
            del tokens[i]
        elif kind == 1:
            tokens.insert(i, tokens[i])
        elif kind == 2 and i + 1 < len(tokens):
            tokens[i], tokens[i + 1] = tokens[i + 1], tokens[i]
        elif kind == 3:
            tokens.insert(i, rng.choice(BRACKETS))
        elif kind == 4:
            brackets = [k for k, t in enumerate(tokens) if t in BRACKETS]
            if brackets:
                del tokens[rng.choice(brackets)]
        elif kind == 5:
            tokens[i] = rng.choice(KEYWORDS)
        elif kind == 6:
            names = [k for k, t in enumerate(tokens) if re.match(r"[A-Za-z_]\w*$", t) and t.upper() not in KEYWORDS]
            if names:
                tokens[rng.choice(names)] = rng.choice(ODD_NAMES)
        elif kind == 7:
            depth = rng.choice([3, 50, 255, 256, 257, 600])
            tokens[i] = "(" * depth + tokens[i] + ")" * depth
        elif kind == 8:
            tokens.insert(i, " ; ".join(["SELL"] * rng.choice([10, 999, 1001, 3000])) + " ;")
        else:
            tokens.insert(i, rng.choice(tokens))
    return " ".join(tokens)


def queries(count: int, seed: int) -> List[str]:
    rng = random.Random(seed)
    return [mutate(rng.choice(SEEDS), rng) for _ in range(count)]


@contextmanager
def deadline(seconds: int) -> Iterator[None]:
    """Fails the test instead of hanging when one call takes longer than `seconds`."""

    def expire(signum, frame):  # noqa: ARG001
        raise TimeoutError(f"no answer within {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def answer(check, query: str) -> str:
    """ "OK", or the error's class and message; anything but a CeqlError fails the test."""
    try:
        with deadline(60):
            check(query)
        return "OK"
    except CeqlError as e:
        return f"{type(e).__name__}: {e}"


def assert_clear(query: str, result: str) -> None:
    """A clear message: no JVM stack trace, no Java class names, a caret under the place when there is one."""
    assert not any(s in result for s in ("\tat ", "Exception", "java.", "scala.", "py4j")), (query, result)
    if result != "OK" and re.search(r"Error: line \d+, column \d+: ", result):
        assert result.rstrip().endswith("^") or "^" in result.splitlines()[-1], (query, result)


def test_thousands_of_mutated_queries_through_the_parser(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys.modules["spark_cer.validate"], "_active_session", lambda: None)
    cases = queries(3000, seed=20261123)
    started = time.monotonic()
    results = [answer(lambda q: validate(q, STOCK_COLUMNS), q) for q in cases]
    for q, r in zip(cases, results):
        assert_clear(q, r)
    errors = {r.split(":")[0] + r.split(":", 2)[-1][:40] for r in results if r != "OK"}
    assert len(errors) > 100, "the mutations should reach many different errors"
    assert 0 < results.count("OK") < len(results)
    assert time.monotonic() - started < 600


def test_validate_accepts_what_spark_runs_with_the_same_message(spark) -> None:
    from pyspark.sql.types import DoubleType, LongType, StringType, StructField, StructType

    schema = StructType(
        [
            StructField("event_type", StringType()),
            StructField("id", LongType()),
            StructField("name", StringType()),
            StructField("volume", LongType()),
            StructField("price", DoubleType()),
            StructField("stock_time", LongType()),
        ]
    )
    empty = spark.createDataFrame([], schema)
    cases = queries(150, seed=11) + SEEDS
    through_validate = [answer(lambda q: validate(q, schema, spark=spark), q) for q in cases]
    through_spark = [answer(lambda q: empty.cer(q), q) for q in cases]
    for q, v, s in zip(cases, through_validate, through_spark):
        assert_clear(q, s)
        assert v == s, (q, v, s)
    assert through_spark.count("OK") >= len(SEEDS)


@pytest.mark.parametrize("rows", [[], [("SELL", 1, None, 10, 1.0, 1)]], ids=["empty", "one-row"])
def test_mutated_queries_on_tiny_inputs_never_crash(spark, rows: List[tuple]) -> None:
    df = spark.createDataFrame(
        rows, "event_type string, id long, name string, volume long, price double, stock_time long"
    )
    for q in queries(25, seed=len(rows)) + SEEDS:

        def run(text: str, frame=df) -> Optional[int]:
            return len(frame.cer(text).collect())

        assert_clear(q, answer(run, q))
