"""
`spark_cer.validate`, answered by the JVM's grammar and analysis through both channels (the validation JVM a
process without a session starts, and a session's `cer_validate`): every kind of error with its exact line,
column and caret, the queries of the repository, the Spark SQL form of CORE's predicates, and the same answers
from both channels.
"""

from __future__ import annotations

import doctest
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional, Sequence, Type

import pytest
from pyspark.sql.types import LongType, StructField, StructType

import spark_cer
from spark_cer import CeqlAnalysisError, CeqlError, CeqlSyntaxError, OutputVariable, validate

REPO = Path(__file__).resolve().parents[1]
STOCK_COLUMNS = ["event_type", "id", "name", "volume", "price", "stock_time"]
QUERY_FILES = sorted(REPO.glob("sql/**/*.ceql"))


def message(head: str, *lines: str) -> str:
    """An error message: 'line L, column C: problem', then the quoted line and the caret line, indented."""
    return "\n".join([head] + ["  " + line for line in lines])


@dataclass(frozen=True)
class Case:
    id: str
    query: str
    columns: Optional[Sequence[str]]
    time_column: Optional[str]
    error: Type[CeqlError]
    message: str


CASES: List[Case] = [
    Case(
        "comment",
        "SELL /* never closed",
        None,
        None,
        CeqlSyntaxError,
        message(
            "line 1, column 6: expected '*/' to close the comment, found the end of the query",
            "SELL /* never closed",
            "     ^^",
        ),
    ),
    Case(
        "string",
        "SELL AS s FILTER s[name = 'INTC] ORDER BY id",
        None,
        None,
        CeqlSyntaxError,
        message(
            "line 1, column 27: expected a closing ' to end the string, found the end of the query",
            "SELL AS s FILTER s[name = 'INTC] ORDER BY id",
            "                          ^^^^^^^^^^^^^^^^^^",
        ),
    ),
    Case(
        "backquote",
        "SELL AS `s FILTER s[price > 1]",
        None,
        None,
        CeqlSyntaxError,
        message(
            "line 1, column 9: expected a closing ` to end the name, found the end of the query",
            "SELL AS `s FILTER s[price > 1]",
            "        ^^^^^^^^^^^^^^^^^^^^^^",
        ),
    ),
    Case(
        "empty_backquote",
        "SELL AS `` ORDER BY id",
        None,
        None,
        CeqlSyntaxError,
        message(
            "line 1, column 9: expected a name between the backquotes, found ``",
            "SELL AS `` ORDER BY id",
            "        ^^",
        ),
    ),
    Case(
        "character",
        "SELL AS s ; BUY AS b FILTER s[price > 1] && b[price < 2]",
        None,
        None,
        CeqlSyntaxError,
        message(
            "line 1, column 42: expected a name, a number, a string or an operator, found '&'",
            "SELL AS s ; BUY AS b FILTER s[price > 1] && b[price < 2]",
            "                                         ^",
        ),
    ),
    Case(
        "empty",
        "",
        None,
        None,
        CeqlSyntaxError,
        message(
            "expected SELECT, FROM, WHERE, PATTERN, an event type, '(' or NOT, found the end of the query",
        ),
    ),
    Case(
        "select_without_selection",
        "SELECT FROM S WHERE SELL",
        None,
        None,
        CeqlSyntaxError,
        message(
            "line 1, column 8: expected '*', NONE or a variable, found 'FROM' (FROM is a reserved word; write `FROM` to use it as a name)",
            "SELECT FROM S WHERE SELL",
            "       ^^^^",
        ),
    ),
    Case(
        "from_without_where",
        "SELECT * FROM S SELL ; BUY",
        None,
        None,
        CeqlSyntaxError,
        message(
            "line 1, column 17: expected ',', WHERE or PATTERN, found 'SELL'",
            "SELECT * FROM S SELL ; BUY",
            "                ^^^^",
        ),
    ),
    Case(
        "two_types",
        "SELECT * FROM S WHERE SELL BUY",
        None,
        None,
        CeqlSyntaxError,
        message(
            "line 1, column 28: expected ';', ':', AND, OR, FILTER, a clause (PARTITION BY, ORDER BY, WITHIN, CONSUME BY, LIMIT) or the end of the query, found 'BUY'",
            "SELECT * FROM S WHERE SELL BUY",
            "                           ^^^",
        ),
    ),
    Case(
        "missing_operand_line2",
        "SELECT * FROM S\nWHERE SELL AS s ;\n      ; BUY AS b\nORDER BY id",
        None,
        None,
        CeqlSyntaxError,
        message(
            "line 3, column 7: expected an event type, '(' or NOT, found ';'",
            "      ; BUY AS b",
            "      ^",
        ),
    ),
    Case(
        "unclosed_paren",
        "SELECT * FROM S WHERE (SELL ; BUY ORDER BY id",
        None,
        None,
        CeqlSyntaxError,
        message(
            "line 1, column 35: expected ';', ':', AND, OR, FILTER or ')', found 'ORDER'",
            "SELECT * FROM S WHERE (SELL ; BUY ORDER BY id",
            "                                  ^^^^^",
        ),
    ),
    Case(
        "reserved_word",
        "SELECT * FROM S WHERE SELL AS order ; BUY ORDER BY id",
        None,
        None,
        CeqlSyntaxError,
        message(
            "line 1, column 31: expected a variable name, found 'order' (order is a reserved word; write `order` to use it as a name)",
            "SELECT * FROM S WHERE SELL AS order ; BUY ORDER BY id",
            "                              ^^^^^",
        ),
    ),
    Case(
        "duplicate_clause",
        "SELL ; BUY ORDER BY id PARTITION BY name ORDER BY stock_time",
        None,
        None,
        CeqlSyntaxError,
        message(
            "line 1, column 42: expected at most one ORDER BY clause, found a second one",
            "SELL ; BUY ORDER BY id PARTITION BY name ORDER BY stock_time",
            "                                         ^^^^^^^^",
        ),
    ),
    Case(
        "window_fraction",
        "SELL ; BUY WITHIN 1.5 MILLISECONDS",
        None,
        None,
        CeqlSyntaxError,
        message(
            "line 1, column 19: expected a positive whole number of milliseconds, found 1.5 ms",
            "SELL ; BUY WITHIN 1.5 MILLISECONDS",
            "                  ^^^^^^^^^^^^^^^^",
        ),
    ),
    Case(
        "window_too_long",
        "SELL ; BUY WITHIN 9999999999999999 DAYS",
        None,
        None,
        CeqlSyntaxError,
        message(
            "line 1, column 19: expected at most 9223372036854775807 milliseconds, found 863999999999999913600000 ms",
            "SELL ; BUY WITHIN 9999999999999999 DAYS",
            "                  ^^^^^^^^^^^^^^^^^^^^^",
        ),
    ),
    Case(
        "window_unit",
        "SELL ; BUY WITHIN 10 stock_time",
        None,
        None,
        CeqlSyntaxError,
        message(
            "line 1, column 22: expected EVENTS, a time unit (DAYS, HOURS, MINUTES, SECONDS, MILLISECONDS) or '[', found 'stock_time'",
            "SELL ; BUY WITHIN 10 stock_time",
            "                     ^^^^^^^^^^",
        ),
    ),
    Case(
        "limit_zero",
        "SELL ; BUY ORDER BY id LIMIT 0",
        None,
        None,
        CeqlSyntaxError,
        message(
            "line 1, column 30: expected a positive integer, found '0'",
            "SELL ; BUY ORDER BY id LIMIT 0",
            "                             ^",
        ),
    ),
    Case(
        "double_range",
        "SELL AS s FILTER s[price > 1e400] ORDER BY id",
        None,
        None,
        CeqlSyntaxError,
        message(
            "line 1, column 28: Spark SQL cannot parse the predicate s[price > 1e400]: [INVALID_NUMERIC_LITERAL_RANGE] Numeric literal 1e400 is outside the valid range for double with minimum value of -1.7976931348623157E+308 and maximum value of 1.7976931348623157E+308. Please adjust the value accordingly. SQLSTATE: 22003",
            "SELL AS s FILTER s[price > 1e400] ORDER BY id",
            "                           ^",
        ),
    ),
    Case(
        "qualified_type",
        "SELECT * FROM db.S WHERE db.S ORDER BY id",
        None,
        None,
        CeqlSyntaxError,
        message(
            "line 1, column 31: expected '>', found 'ORDER'",
            "SELECT * FROM db.S WHERE db.S ORDER BY id",
            "                              ^^^^^",
        ),
    ),
    Case(
        "predicate_operand",
        "SELL AS s FILTER s[price > ] ORDER BY id",
        None,
        None,
        CeqlSyntaxError,
        message(
            "line 1, column 27: Spark SQL cannot parse the predicate s[price >]: [PARSE_SYNTAX_ERROR] Syntax error at or near end of input. SQLSTATE: 42601",
            "SELL AS s FILTER s[price > ] ORDER BY id",
            "                          ^",
        ),
    ),
    Case(
        "predicate_bracket",
        "SELL AS s FILTER s[price > 1 ORDER BY id",
        None,
        None,
        CeqlSyntaxError,
        message(
            "line 1, column 41: expected ']' to end the predicate s[... opened at line 1, column 19, found the end of the query",
            "SELL AS s FILTER s[price > 1 ORDER BY id",
            "                                        ^",
        ),
    ),
    Case(
        "in_form",
        "SELL AS s FILTER s[name IN 'INTC'] ORDER BY id",
        None,
        None,
        CeqlSyntaxError,
        message(
            "line 1, column 28: Spark SQL cannot parse the predicate s[name IN 'INTC']: [PARSE_SYNTAX_ERROR] Syntax error at or near ''INTC'': extra input ''INTC''. SQLSTATE: 42601",
            "SELL AS s FILTER s[name IN 'INTC'] ORDER BY id",
            "                           ^",
        ),
    ),
    Case(
        "consume",
        "SELL ; BUY ORDER BY id CONSUME BY ALL",
        None,
        None,
        CeqlSyntaxError,
        message(
            "line 1, column 35: expected ANY, PARTITION or NONE, found 'ALL'",
            "SELL ; BUY ORDER BY id CONSUME BY ALL",
            "                                  ^^^",
        ),
    ),
    Case(
        "found_string",
        "SELL 'BUY' ORDER BY id",
        None,
        None,
        CeqlSyntaxError,
        message(
            "line 1, column 6: expected ';', ':', AND, OR, FILTER, a clause (PARTITION BY, ORDER BY, WITHIN, CONSUME BY, LIMIT) or the end of the query, found the string 'BUY'",
            "SELL 'BUY' ORDER BY id",
            "     ^^^^^",
        ),
    ),
    Case(
        "spark_sql",
        "SELL AS s FILTER s[price = = 1] ORDER BY id",
        None,
        None,
        CeqlSyntaxError,
        message(
            "line 1, column 28: Spark SQL cannot parse the predicate s[price = = 1]: [PARSE_SYNTAX_ERROR] Syntax error at or near '='. SQLSTATE: 42601",
            "SELL AS s FILTER s[price = = 1] ORDER BY id",
            "                           ^",
        ),
    ),
    Case(
        "unknown_stream",
        "SELECT * FROM S WHERE T>SELL ; S>BUY ORDER BY id",
        None,
        None,
        CeqlAnalysisError,
        message(
            "line 1, column 23: unknown stream 'T' in 'T>...'; FROM names: S",
            "SELECT * FROM S WHERE T>SELL ; S>BUY ORDER BY id",
            "                      ^",
        ),
    ),
    Case(
        "filter_unbound",
        "SELECT * FROM S WHERE SELL AS s ; BUY AS b FILTER x[price > 1] ORDER BY id",
        None,
        None,
        CeqlAnalysisError,
        message(
            "line 1, column 51: variable 'x' is not bound in the pattern this FILTER applies to; bind it with AS (e.g. BUY AS x) or filter one of: SELL, s, BUY, b",
            "SELECT * FROM S WHERE SELL AS s ; BUY AS b FILTER x[price > 1] ORDER BY id",
            "                                                  ^",
        ),
    ),
    Case(
        "filter_bound_elsewhere",
        "SELECT * FROM S WHERE SELL AS s ; (BUY AS b FILTER s[price > 1]) ORDER BY id",
        None,
        None,
        CeqlAnalysisError,
        message(
            "line 1, column 52: variable 's' is not bound in the pattern this FILTER applies to; 's' is bound elsewhere in the pattern: move this FILTER outward, onto a part of the pattern that contains where 's' is bound, e.g. (... AS s ; ...) FILTER s[...]",
            "SELECT * FROM S WHERE SELL AS s ; (BUY AS b FILTER s[price > 1]) ORDER BY id",
            "                                                   ^",
        ),
    ),
    Case(
        "not_filter",
        "SELECT * FROM S WHERE SELL AS s ; NOT(BUY FILTER s[price > 1]) ; SELL ORDER BY id",
        None,
        None,
        CeqlAnalysisError,
        message(
            "line 1, column 50: inside NOT(BUY FILTER ...) a filter can only name 'BUY'",
            "SELECT * FROM S WHERE SELL AS s ; NOT(BUY FILTER s[price > 1]) ; SELL ORDER BY id",
            "                                                 ^",
        ),
    ),
    Case(
        "unknown_variable",
        "SELECT s, t FROM S WHERE SELL AS s ; BUY AS b ORDER BY id",
        None,
        None,
        CeqlAnalysisError,
        message(
            "line 1, column 11: unknown variable 't' in SELECT; the pattern binds: SELL, s, BUY, b",
            "SELECT s, t FROM S WHERE SELL AS s ; BUY AS b ORDER BY id",
            "          ^",
        ),
    ),
    Case(
        "column_predicate",
        "SELL AS s FILTER s[prize > 1] ORDER BY id",
        STOCK_COLUMNS,
        None,
        CeqlAnalysisError,
        message(
            "line 1, column 20: unknown column 'prize'; the columns are: event_type, id, name, volume, price, stock_time",
            "SELL AS s FILTER s[prize > 1] ORDER BY id",
            "                   ^^^^^",
        ),
    ),
    Case(
        "column_function_argument",
        "SELL AS s FILTER s[lower(nam) = 'intc'] ORDER BY id",
        STOCK_COLUMNS,
        None,
        CeqlAnalysisError,
        message(
            "line 1, column 26: unknown column 'nam'; the columns are: event_type, id, name, volume, price, stock_time",
            "SELL AS s FILTER s[lower(nam) = 'intc'] ORDER BY id",
            "                         ^^^",
        ),
    ),
    Case(
        "column_projection",
        "SELECT s[price, vol] FROM S WHERE SELL AS s ORDER BY id",
        STOCK_COLUMNS,
        None,
        CeqlAnalysisError,
        message(
            "line 1, column 17: unknown column 'vol'; the columns are: event_type, id, name, volume, price, stock_time",
            "SELECT s[price, vol] FROM S WHERE SELL AS s ORDER BY id",
            "                ^^^",
        ),
    ),
    Case(
        "column_partition",
        "SELL ; BUY PARTITION BY symbol ORDER BY id",
        STOCK_COLUMNS,
        None,
        CeqlAnalysisError,
        message(
            "line 1, column 25: unknown column 'symbol'; the columns are: event_type, id, name, volume, price, stock_time",
            "SELL ; BUY PARTITION BY symbol ORDER BY id",
            "                        ^^^^^^",
        ),
    ),
    Case(
        "column_order",
        "SELL ; BUY ORDER BY ts",
        STOCK_COLUMNS,
        None,
        CeqlAnalysisError,
        message(
            "line 1, column 21: unknown column 'ts'; the columns are: event_type, id, name, volume, price, stock_time",
            "SELL ; BUY ORDER BY ts",
            "                    ^^",
        ),
    ),
    Case(
        "column_within",
        "SELL ; BUY WITHIN 10 [ts]",
        STOCK_COLUMNS,
        None,
        CeqlAnalysisError,
        message(
            "line 1, column 23: unknown column 'ts'; the columns are: event_type, id, name, volume, price, stock_time",
            "SELL ; BUY WITHIN 10 [ts]",
            "                      ^^",
        ),
    ),
    Case(
        "window_not_order",
        "SELL ; BUY ORDER BY id WITHIN 1000 [stock_time]",
        STOCK_COLUMNS,
        None,
        CeqlAnalysisError,
        message(
            "line 1, column 37: WITHIN 1000 [stock_time] measures the stream order, but the stream is ordered by id: put stock_time first in ORDER BY",
            "SELL ; BUY ORDER BY id WITHIN 1000 [stock_time]",
            "                                    ^^^^^^^^^^",
        ),
    ),
    Case(
        "window_descending",
        "SELL ; BUY ORDER BY stock_time DESC WITHIN 1000 [stock_time]",
        STOCK_COLUMNS,
        None,
        CeqlAnalysisError,
        message(
            "line 1, column 50: WITHIN 1000 [stock_time] needs stock_time in ascending order: drop DESC",
            "SELL ; BUY ORDER BY stock_time DESC WITHIN 1000 [stock_time]",
            "                                                 ^",
        ),
    ),
    Case(
        "missing_order",
        "SELECT * FROM S WHERE SELL ; BUY",
        STOCK_COLUMNS,
        None,
        CeqlAnalysisError,
        message(
            "line 1, column 23: the stream has no order, so sequencing is undefined: add ORDER BY <column> (e.g. ORDER BY ts), or WITHIN n [<column>], or set the time column (spark.cer.timeColumn / timeColumn=...)",
            "SELECT * FROM S WHERE SELL ; BUY",
            "                      ^",
        ),
    ),
    Case(
        "missing_order_events",
        "SELL ; BUY WITHIN 5 EVENTS",
        STOCK_COLUMNS,
        None,
        CeqlAnalysisError,
        message(
            "line 1, column 12: the stream has no order, so sequencing is undefined: add ORDER BY <column> (e.g. ORDER BY ts), or WITHIN n [<column>], or set the time column (spark.cer.timeColumn / timeColumn=...)",
            "SELL ; BUY WITHIN 5 EVENTS",
            "           ^",
        ),
    ),
    Case(
        "missing_order_duration",
        "SELL ; BUY\nWITHIN 2 SECONDS",
        STOCK_COLUMNS,
        None,
        CeqlAnalysisError,
        message(
            "line 2, column 1: the stream has no order, so sequencing is undefined: add ORDER BY <column> (e.g. ORDER BY ts), or WITHIN n [<column>], or set the time column (spark.cer.timeColumn / timeColumn=...)",
            "WITHIN 2 SECONDS",
            "^",
        ),
    ),
    Case(
        "time_column",
        "SELL ; BUY",
        STOCK_COLUMNS,
        "ts",
        CeqlAnalysisError,
        message(
            "the time column 'ts' is not a column; the columns are: event_type, id, name, volume, price, stock_time",
        ),
    ),
]


@pytest.fixture(params=["server", "session"])
def channel(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch):
    """The `spark` argument of validate: None through the validation JVM, or the test session."""
    if request.param == "server":
        monkeypatch.setattr(sys.modules["spark_cer.validate"], "_active_session", lambda: None)
        return None
    return request.getfixturevalue("spark")


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_error_message(case: Case, channel) -> None:
    with pytest.raises(case.error) as info:
        validate(case.query, case.columns, time_column=case.time_column, spark=channel)
    assert str(info.value) == case.message


def test_errors_are_value_errors_with_their_position(channel) -> None:
    with pytest.raises(ValueError) as info:
        validate(
            "SELECT * FROM S\nWHERE SELL AS s ; BUY AS b FILTER s[prize > 1]\nORDER BY id", STOCK_COLUMNS, spark=channel
        )
    e = info.value
    assert isinstance(e, CeqlAnalysisError) and isinstance(e, CeqlError)
    assert (e.line, e.column, e.offset, e.length) == (2, 37, 52, 5)
    assert e.problem.startswith("unknown column 'prize'")
    assert e.query.splitlines()[1][e.column - 1 : e.column - 1 + e.length] == "prize"


def test_error_without_a_place_has_no_caret(channel) -> None:
    with pytest.raises(CeqlAnalysisError) as info:
        validate("SELL ; BUY", STOCK_COLUMNS, time_column="ts", spark=channel)
    assert (info.value.line, info.value.column, info.value.offset) == (0, 0, -1)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("path", QUERY_FILES, ids=lambda p: p.name)
def test_repository_queries_are_valid(path: Path) -> None:
    q = validate(path.read_text(), STOCK_COLUMNS)
    assert q.outputs and q.within and q.within.startswith("WITHIN")


def test_core_stock_query_s3(channel) -> None:
    q = validate((REPO / "sql/stocks/s3.ceql").read_text(), STOCK_COLUMNS, spark=channel)
    assert q.strategy == "ALL"
    assert q.streams == ("S",)
    assert q.variables == ("SELL", "T1", "BUY", "T2", "T3")
    assert q.outputs == (OutputVariable("T1", True), OutputVariable("T2", True), OutputVariable("T3", True))
    assert q.predicates == {"T1": ["name = 'INTC'"], "T2": ["name = 'RIMM'"], "T3": ["name = 'QQQ'"]}
    assert q.partition_by == () and q.order_by == ()
    assert q.within == "WITHIN 10000 [stock_time]"
    assert (q.consume_by, q.limit) == ("NONE", None)


def test_kleene_query_outputs_an_array() -> None:
    q = validate((REPO / "sql/stocks/rising_last.ceql").read_text(), STOCK_COLUMNS)
    assert q.strategy in ("NEXT", "LAST")
    assert q.partition_by == ("name",)
    assert [(o.name, o.single) for o in q.outputs] == [("s", True), ("burst", False), ("e", True)]
    assert q.predicates == {"BUY": ["volume >= 1000"]}


@pytest.mark.parametrize(
    "pattern, outputs",
    [
        ("SELL ; BUY", [("SELL", True), ("BUY", True)]),  # no AS: the event types
        ("SELL ; SELL", [("SELL", False)]),  # binds two events: an array
        ("SELL AS s ; BUY+ AS b", [("s", True), ("b", False)]),
        ("(SELL OR BUY) AS x ; BUY AS y", [("x", True), ("y", True)]),
        ("SELL AS x OR BUY AS y", [("x", False), ("y", False)]),  # unbound in one branch: an array
        ("SELL AS s ; NOT(BUY) ; SELL AS e", [("s", True), ("e", True)]),
        ("(SELL AS s ; BUY AS b) AS all", [("s", True), ("b", True), ("all", False)]),
        ("SELL AS x ; BUY AS x", [("x", False)]),  # one variable on both sides binds the events of both
        ("(SELL AS x ; BUY) : BUY AS x", [("x", False)]),
        ("(SELL AS s AND BUY AS b) ; SELL AS e", [("s", True), ("b", True), ("e", True)]),  # AND inside ';'
    ],
)
def test_struct_or_array(pattern: str, outputs: list) -> None:
    q = validate(pattern + " ORDER BY stock_time", STOCK_COLUMNS)
    assert [(o.name, o.single) for o in q.outputs] == outputs


def test_selection_projections_and_none(channel) -> None:
    q = validate(
        "SELECT MAX s[PRICE, name], b FROM S WHERE SELL AS s ; BUY AS b ORDER BY id", STOCK_COLUMNS, spark=channel
    )
    assert q.strategy == "MAX"
    assert q.outputs == (OutputVariable("s", True, ("price", "name")), OutputVariable("b", True))
    assert validate("SELECT NONE FROM S WHERE SELL ORDER BY id", spark=channel).outputs == ()
    # a strategy word is a variable when nothing selectable follows it
    assert [o.name for o in validate("SELECT ANY FROM S WHERE ANY ORDER BY id", spark=channel).outputs] == ["ANY"]


@pytest.mark.parametrize(
    "predicate, spark_sql",
    [
        ("name IN {'INTC', 'RIMM'}", "name IN ('INTC', 'RIMM')"),
        ("volume NOT IN {1, 2}", "volume NOT IN (1, 2)"),
        ("price IN RANGE(10, 20.5)", "price BETWEEN (10) AND ( 20.5)"),
        ("price IN 10..20", "price BETWEEN 10 AND 20"),
        ("price NOT IN 10..20", "price NOT BETWEEN 10 AND 20"),
        ("price BETWEEN 1 AND 2", "price BETWEEN 1 AND 2"),
        ("price == 1 AND volume <> 2", "price == 1 AND volume <> 2"),
        ("name = \u2018it\u2019\u2019s\u2019", "name = 'it\u2019s'"),  # typographic quotes, doubled
        ("name = 'it''s'", "name = 'it\\'s'"),
        ("name = 'it\\'s'", "name = 'it\\'s'"),  # Spark's own escapes stay
        ("lower(name) = 'intc' AND abs(price - 1) % 2 > 0", "lower(name) = 'intc' AND abs(price - 1) % 2 > 0"),
    ],
)
def test_core_forms_read_as_spark_sql(predicate: str, spark_sql: str) -> None:
    q = validate(f"BUY AS b FILTER b[{predicate}] ORDER BY id", STOCK_COLUMNS)
    assert q.predicates == {"b": [spark_sql]}


SPARK_PREDICATES = [
    "cast(price AS int) > 1",
    "CASE WHEN volume > 10 THEN true ELSE false END",
    "price::int > 1 AND tags[0] = 'x'",
    "exists(tags, t -> t = 'x')",
    "ts > TIMESTAMP '2020-01-01 00:00:00' + INTERVAL 1 DAY",
    "name || '!' = 'INTC!' AND (volume & 4) != 0",
    "name RLIKE '^I[N]+' AND name LIKE 'I%'",
]


@pytest.mark.parametrize("predicate", SPARK_PREDICATES)
def test_every_spark_expression_is_a_predicate(predicate: str, channel) -> None:
    from pyspark.sql.types import ArrayType, DoubleType, LongType, StringType, StructField, StructType, TimestampType

    schema = StructType(
        [
            StructField("event_type", StringType()),
            StructField("name", StringType()),
            StructField("price", DoubleType()),
            StructField("volume", LongType()),
            StructField("tags", ArrayType(StringType())),
            StructField("ts", TimestampType()),
        ]
    )
    q = validate(f"BUY AS b FILTER b[{predicate}] ORDER BY ts", schema, spark=channel)
    assert q.predicates == {"b": [predicate]}


def test_schema_as_struct_type(channel) -> None:
    from pyspark.sql.types import DoubleType, LongType, StringType, StructField, StructType

    schema = StructType(
        [StructField("event_type", StringType()), StructField("price", DoubleType()), StructField("ts", LongType())]
    )
    validate("SELL AS s FILTER s[Price > 1] ORDER BY TS", schema, spark=channel)  # names are case-insensitive
    with pytest.raises(CeqlAnalysisError, match=r"unknown column 'name'; the columns are: event_type, price, ts"):
        validate("SELL AS s FILTER s[name = 'x'] ORDER BY ts", schema, spark=channel)


def test_with_a_session_and_a_schema_spark_types_the_predicates(spark) -> None:
    from pyspark.sql.types import DoubleType, LongType, StringType, StructField, StructType

    schema = StructType(
        [StructField("event_type", StringType()), StructField("price", DoubleType()), StructField("ts", LongType())]
    )
    with pytest.raises(CeqlAnalysisError, match=r"the predicate s\[price \+ 1\] is DOUBLE, not BOOLEAN"):
        validate("SELL AS s FILTER s[price + 1] ORDER BY ts", schema, spark=spark)
    with pytest.raises(CeqlAnalysisError, match=r"event_type is a STRING compared with a number"):
        validate("SELL AS s FILTER s[event_type > 1] ORDER BY ts", schema, spark=spark)


def test_through_a_session_no_job_runs(spark) -> None:
    """Checking a query is analysis only: the session answers without starting a Spark job (an editor or a notebook
    may validate at every keystroke)."""
    context, group = spark.sparkContext, "validate-runs-no-job"
    context.setJobGroup(group, "validate through the session")
    try:
        validate("SELL AS s ; BUY AS b FILTER s[price > 1] WITHIN 10 [ts]", ["event_type", "price", "ts"], spark=spark)
        with pytest.raises(CeqlSyntaxError):
            validate("SELL AS s ;; BUY", spark=spark)
        spark.range(1).collect()  # one job, seen by the tracker after any started before it (events come in order)
    finally:
        context.setLocalProperty("spark.jobGroup.id", None)
    deadline = time.monotonic() + 30
    while not context.statusTracker().getJobIdsForGroup(group) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert len(context.statusTracker().getJobIdsForGroup(group)) == 1, "only the collect ran a job"


def test_without_schema_columns_are_not_checked(channel) -> None:
    validate("SELL AS s FILTER s[anything > 1] PARTITION BY whatever ORDER BY ts", spark=channel)


def test_time_column_gives_the_stream_order() -> None:
    validate("SELL ; BUY WITHIN 2 SECONDS", STOCK_COLUMNS, time_column="stock_time")
    validate("SELL ; BUY WITHIN 10 [stock_time]", STOCK_COLUMNS)  # the WITHIN column orders the stream


def test_reserved_words_backquoted_and_comments() -> None:
    q = validate(
        "-- a comment\nSELECT `order` /* block\ncomment */ FROM S\nWHERE SELL AS `order`\nORDER BY `id`", STOCK_COLUMNS
    )
    assert [o.name for o in q.outputs] == ["order"]


def test_deep_input_gets_an_error_at_its_place(channel) -> None:
    with pytest.raises(CeqlSyntaxError) as info:
        validate("(" * 500 + "SELL AS s" + ")" * 500 + " ; BUY AS b ORDER BY id", spark=channel)
    assert info.value.problem.startswith("expected at most 256 levels of nesting") and info.value.column == 257
    with pytest.raises(CeqlSyntaxError, match="expected a pattern at most 1000 operators deep"):
        validate(" ; ".join(["SELL"] * 5000) + " ORDER BY id", spark=channel)
    assert validate("(" * 200 + "SELL AS s" + ")" * 200 + " ; BUY AS b ORDER BY id", spark=channel).outputs


def test_bad_arguments() -> None:
    with pytest.raises(TypeError):
        validate(42)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        validate("SELL ORDER BY id", "id")


def test_docstring_examples() -> None:
    for module in ("spark_cer.validate", "spark_cer.session", "spark_cer.dataframe", "spark_cer"):
        result = doctest.testmod(sys.modules[module], optionflags=doctest.ELLIPSIS)
        assert result.failed == 0, module
    assert spark_cer.validate is validate


def test_a_match_recognize_clause_through_both_channels(channel) -> None:
    """A MATCH_RECOGNIZE clause (match_recognize=True) is checked through either channel."""
    q = validate(
        "ORDER BY day MEASURES count(B.*) AS n PATTERN (A B+) DEFINE B AS price < PREV(price)",
        spark=channel,
        match_recognize=True,
    )
    assert (q.variables, q.measures, q.rows_per_match) == (("A", "B"), ("n",), "ONE ROW PER MATCH")
    with pytest.raises(CeqlSyntaxError) as info:
        validate("ORDER BY day PATTERN (A B) DEFINE B AS price <", spark=channel, match_recognize=True)
    assert info.value.line == 1 and "Spark SQL cannot parse" in info.value.problem
    with pytest.raises(CeqlAnalysisError, match="DUPLICATE_PATTERN_VARIABLE"):
        validate("PATTERN (A) DEFINE A AS x > 1, A AS x > 2", spark=channel, match_recognize=True)


def test_a_match_recognize_clause_checks_the_columns_it_is_given(channel) -> None:
    """Without a session's analysis (names only, or a schema on the server) a clause's columns are still checked."""
    clause = "PARTITION BY name ORDER BY ts MEASURES LAST(B.prce) AS low PATTERN (A B+) DEFINE B AS price < PREV(price)"
    for schema in (["name", "price", "ts"], StructType([StructField(c, LongType()) for c in ("name", "price", "ts")])):
        with pytest.raises(CeqlAnalysisError) as info:
            validate(clause, schema, spark=channel, match_recognize=True)
        assert "prce" in info.value.problem and "name, price, ts" in info.value.problem
        assert clause.index("LAST") <= info.value.offset <= clause.index("prce")
    with pytest.raises(CeqlAnalysisError, match="unknown column 'tz'"):
        validate("ORDER BY tz PATTERN (A) DEFINE A AS price > 1", ["price", "ts"], spark=channel, match_recognize=True)
    fine = validate(
        "ORDER BY ts MEASURES CLASSIFIER(A) AS c, count(A.*) AS n PATTERN (A+) DEFINE A AS price > 1",
        ["price", "ts"],
        spark=channel,
        match_recognize=True,
    )
    assert fine.measures == ("c", "n")
