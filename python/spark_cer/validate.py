"""
Validation of CEQL queries, by the grammar and the analysis that run them.

There is one parser of CEQL, on the JVM (``jvm/engine/.../ceql/CeqlParser.scala``), and Spark's own parser reads
the predicates. This module does not parse CEQL again: it asks the JVM (``PatternValidation.scala``) and raises its
answer as a Python exception, with the same message::

    line 3, column 21: expected ';', ':', OR or FILTER, found 'BUYY'
      WHERE SELL AS s ; BUY BUYY
                            ^^^^

Why through the JVM rather than a second parser here (or one generated from a shared grammar file): the language
grows (predicates over several variables, aggregates, conjunction, MATCH_RECOGNIZE), and a second reading of it
would have to follow every change, word every error alike and agree on every predicate Spark accepts; any
difference would refuse in Python a query the JVM runs. The JVM is at hand wherever a query can run:

- with a session (given, or the active one): the SQL function ``cer_validate`` that the extension registers,
  so classic and Spark Connect sessions alike; with a schema, the query is analyzed as Spark would run it;
- without one: a small JVM started once per process on the bundled jar and PySpark's own jars (Java is what
  PySpark needs anyway); predicates are parsed by Spark's parser and their columns checked against the schema.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import subprocess
import tempfile
import threading
from dataclasses import dataclass, field
from typing import IO, Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

__all__ = [
    "PatternError",
    "PatternSyntaxError",
    "PatternAnalysisError",
    "CeqlError",
    "CeqlSyntaxError",
    "CeqlAnalysisError",
    "CeqlQuery",
    "OutputVariable",
    "RowPatternQuery",
    "validate",
]


# ---- errors ----------------------------------------------------------------------------------------------


class PatternError(ValueError):
    """
    A problem with a query, CEQL or MATCH_RECOGNIZE, as the JVM words it: the line and column, what was expected and
    what was found, then the quoted line with a caret under the offending text.

    ``CeqlError``, its name from before MATCH_RECOGNIZE shared it, is the same class.

    Attributes
    ----------
    problem : str
        What was expected and what was found, without the position.
    line, column : int
        1-based position of the offending text (0 when the problem has no place in the query).
    offset : int
        0-based character offset (-1 when the problem has no place in the query).
    length : int
        How many characters the caret underlines.
    query : str
        The query text.
    """

    def __init__(
        self, message: str, *, problem: str, line: int, column: int, offset: int, length: int, query: str
    ) -> None:
        super().__init__(message)
        self.problem = problem
        self.line = line
        self.column = column
        self.offset = offset
        self.length = length
        self.query = query


class PatternSyntaxError(PatternError):
    """
    The query does not follow CEQL's grammar or MATCH_RECOGNIZE's (or a condition is not a Spark SQL expression).
    ``CeqlSyntaxError`` is the same class.
    """


class PatternAnalysisError(PatternError):
    """
    The query is well-formed but cannot mean anything: unbound or unknown variables, unknown columns, ...
    ``CeqlAnalysisError`` is the same class.
    """


# The names from before MATCH_RECOGNIZE shared these errors, kept for the code that catches them.
CeqlError = PatternError
CeqlSyntaxError = PatternSyntaxError
CeqlAnalysisError = PatternAnalysisError


def _error(kind: str, message: str, place: Mapping[str, Any], query: str) -> PatternError:
    cls = PatternSyntaxError if kind == "syntax" else PatternAnalysisError
    return cls(
        message,
        problem=str(place["problem"]),
        line=int(place["line"]),
        column=int(place["column"]),
        offset=int(place["offset"]),
        length=int(place["length"]),
        query=query,
    )


def is_cer_error(error: Exception) -> bool:
    """Whether a Spark exception is one of spark-cer's, which carry their place in the query as message parameters."""
    from pyspark.errors import AnalysisException

    return isinstance(error, AnalysisException) and "cerProblem" in (error.getMessageParameters() or {})


def from_spark_error(error: Exception, query: str) -> Optional[PatternError]:
    """The :class:`PatternError` a Spark exception of spark-cer stands for, or None for any other exception."""
    from pyspark.errors import ParseException

    if not is_cer_error(error):
        return None
    parameters = error.getMessageParameters()
    place = {key: parameters["cer" + key.capitalize()] for key in ("problem", "line", "column", "offset", "length")}
    message = parameters.get("msg") or parameters.get("errorMessage") or place["problem"]
    return _error("syntax" if isinstance(error, ParseException) else "analysis", message, place, query)


# ---- the answer ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class OutputVariable:
    """A selected variable: a struct when it binds exactly one event in every match, else an array of structs."""

    name: str
    single: bool
    attributes: Tuple[str, ...] = ()


@dataclass(frozen=True)
class CeqlQuery:
    """
    A validated CEQL query.

    Attributes
    ----------
    text : str
        The query as given.
    strategy : str
        The selection strategy: ``ALL``, ``ANY``, ``NEXT``, ``LAST``, ``MAX`` or ``STRICT``.
    streams : tuple of str
        The ``FROM`` names (empty when FROM is left out).
    variables : tuple of str
        Every variable the pattern binds: its event types and ``AS`` names.
    outputs : tuple of OutputVariable
        The selected variables in output order (after ``PARTITION BY`` columns, ``match_start`` and ``match_end``).
    predicates : dict of str to list of str
        For each filtered variable, its predicates as Spark reads them (CORE's ``IN {..}``, ``IN RANGE(a, b)``
        and ``a..b`` written as Spark's ``IN (..)`` and ``BETWEEN``).
    conditions : tuple of str
        The FILTER conditions over ``var.attr``, aggregates and ``prev``, as written, in order.
    partition_by : tuple of str
        The ``PARTITION BY`` columns (the first name of each bracket group).
    order_by : tuple of (str, bool)
        The ``ORDER BY`` columns with ``True`` for ``DESC``.
    within : str or None
        The ``WITHIN`` clause, written out (``WITHIN 10 [ts]``, ``WITHIN 1 HOURS 30 MINUTES``).
    consume_by : str
        ``NONE``, ``ANY`` or ``PARTITION``.
    limit : int or None
        The ``LIMIT``.
    """

    text: str
    strategy: str
    streams: Tuple[str, ...]
    variables: Tuple[str, ...]
    outputs: Tuple[OutputVariable, ...]
    predicates: Dict[str, List[str]] = field(default_factory=dict)
    conditions: Tuple[str, ...] = ()
    partition_by: Tuple[str, ...] = ()
    order_by: Tuple[Tuple[str, bool], ...] = ()
    within: Optional[str] = None
    consume_by: str = "NONE"
    limit: Optional[int] = None


@dataclass(frozen=True)
class RowPatternQuery:
    """
    A validated MATCH_RECOGNIZE clause (what stands between its parentheses).

    Attributes
    ----------
    text : str
        The clause as given.
    variables : tuple of str
        The pattern variables, in order of first appearance in PATTERN (upper case: they are names without regard
        to case).
    subsets : dict of str to tuple of str
        The SUBSET variables and their members.
    measures : tuple of str
        The measures' names, in order.
    rows_per_match : str
        ``ONE ROW PER MATCH`` or ``ALL ROWS PER MATCH ...`` as the clause means it (defaults written out).
    after_match : str
        ``AFTER MATCH SKIP ...``, likewise.
    output : tuple of str or None
        The output columns, when the clause was checked against a schema through a session.
    """

    text: str
    variables: Tuple[str, ...]
    subsets: Dict[str, Tuple[str, ...]]
    measures: Tuple[str, ...]
    rows_per_match: str
    after_match: str
    output: Optional[Tuple[str, ...]] = None


# ---- the JVM ---------------------------------------------------------------------------------------------

SchemaLike = Union[Sequence[str], Any]


def _schema_fields(schema: Optional[SchemaLike]) -> Dict[str, Any]:
    """The request's ``schema`` (a StructType as JSON) or ``columns`` (names only)."""
    if schema is None:
        return {}
    if hasattr(schema, "schema") and hasattr(schema.schema, "fieldNames"):  # a DataFrame
        schema = schema.schema
    if hasattr(schema, "fieldNames") and hasattr(schema, "json"):  # pyspark StructType
        return {"schema": schema.json()}
    if isinstance(schema, str) or not all(isinstance(c, str) for c in schema):
        raise TypeError(f"schema must be a StructType or a list of column names, not {schema!r}")
    return {"columns": list(schema)}


def _active_session() -> Optional[Any]:
    """The session this thread works with, classic or Spark Connect; None without one."""
    import sys

    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    connect = sys.modules.get("pyspark.sql.connect.session")
    if active is None and connect is not None:
        active = connect.SparkSession.getActiveSession()
    return active


class _ValidationServer:
    """``io.sparkcer.spark.ValidationServer``: one JVM for this process, one JSON line in and out per query."""

    _lock = threading.Lock()
    _instance: Optional["_ValidationServer"] = None

    def __init__(self) -> None:
        import pyspark

        from spark_cer.session import jar_path

        spark_home = os.environ.get("SPARK_HOME") or os.path.dirname(pyspark.__file__)
        java_home = os.environ.get("JAVA_HOME")
        java = os.path.join(java_home, "bin", "java") if java_home else shutil.which("java")
        if not java:
            raise RuntimeError(
                "spark_cer.validate without a Spark session needs Java (set JAVA_HOME or put java on "
                "the PATH), as PySpark does; or pass spark=<session>"
            )
        classpath = os.pathsep.join([jar_path(), os.path.join(spark_home, "jars", "*")])
        self._log: IO[bytes] = tempfile.TemporaryFile()
        self._process = subprocess.Popen(
            [java, "-cp", classpath, "io.sparkcer.spark.ValidationServer"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log,
            text=True,
            encoding="utf-8",
        )
        atexit.register(self.close)

    @classmethod
    def ask(cls, request: str) -> str:
        with cls._lock:
            if cls._instance is None or cls._instance._process.poll() is not None:
                cls._instance = _ValidationServer()
            return cls._instance._ask(request)

    def _ask(self, request: str) -> str:
        assert self._process.stdin is not None and self._process.stdout is not None
        try:
            self._process.stdin.write(request + "\n")
            self._process.stdin.flush()
            answer = self._process.stdout.readline()
        except OSError:
            answer = ""
        if not answer:
            self._log.seek(0)
            log = self._log.read().decode("utf-8", "replace").strip()
            raise RuntimeError(f"the JVM that validates CEQL queries stopped: {log[-2000:] or 'no output'}")
        return answer

    def close(self) -> None:
        if self._process.poll() is None:
            assert self._process.stdin is not None
            self._process.stdin.close()
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()


def _ask(request: Dict[str, Any], spark: Optional[Any], query: Optional[str] = None) -> Dict[str, Any]:
    """The JVM's answer to a request, which must be ok: its refusal of the query (as written, `query`, where the
    request carries another form of it) raised as a PatternError."""
    payload = json.dumps(request)
    session = spark if spark is not None else _active_session()
    if session is None:
        answer = _ValidationServer.ask(payload)
    else:
        # An inline table is evaluated as the statement is analyzed, into a local relation: reading its one row
        # back runs no Spark job (a SELECT over no table would run one).
        answer = session.sql("SELECT * FROM VALUES (cer_validate(:request))", args={"request": payload}).first()[0]
    answer = json.loads(answer)
    if not answer["ok"] and answer["kind"] == "internal":
        raise RuntimeError(answer["message"])
    if not answer["ok"]:
        raise _error(answer["kind"], answer["message"], answer, query or request["query"])
    return answer


# ---- validate --------------------------------------------------------------------------------------------


def validate(
    query: str,
    schema: Optional[SchemaLike] = None,
    *,
    time_column: Optional[str] = None,
    type_column: Optional[str] = None,
    spark: Optional[Any] = None,
    match_recognize: bool = False,
) -> Union[CeqlQuery, RowPatternQuery]:
    """
    Checks a CEQL query, or a MATCH_RECOGNIZE clause, without running it, with the grammar and the analysis that run
    it.

    With ``match_recognize=True`` the text is a MATCH_RECOGNIZE clause, as ``DataFrame.match_recognize`` takes it
    (what stands between its parentheses): its pattern and variables are checked and its expressions parsed by Spark;
    with a schema and a session it is analyzed as Spark runs it, and the answer, a :class:`RowPatternQuery`, names its
    output columns.

    The query is parsed with the engine's grammar, each ``var[predicate]`` and each condition relating events
    (``b.price > s.price``, ``sum(b.volume) > 100``, ``prev(b.price)``) is parsed by Spark, and the engine's
    analysis is applied: FILTER variables must be bound by the sub-pattern the filter applies to, an ``AS``
    variable cannot be bound on both sides of ``;``, ``:`` or ``AND``, aggregates and ``prev`` need a variable that
    repeats, a condition over each event of a repeating variable needs a window, selected variables must be bound
    and the stream needs an order (``ORDER BY``, ``WITHIN n [column]`` or a time column). With a schema, every column
    the query names must exist; with a schema and a session, predicates and conditions are also typed by Spark, as
    when the query runs.

    Parameters
    ----------
    query : str
        A CEQL statement (``SELECT ... FROM ... WHERE <cel> ...``) or just a pattern with its clauses.
    schema : :class:`pyspark.sql.types.StructType`, DataFrame or list of str, optional
        The input's columns. Without it, column names are not checked.
    time_column : str, optional
        The time column used when the query has no ``ORDER BY`` (``spark.cer.timeColumn``).
    type_column : str, optional
        The event type column (default ``event_type``, ``spark.cer.eventTypeColumn``).
    spark : SparkSession, optional
        The session whose JVM checks the query (classic or Spark Connect); by default the active session, and
        without one a JVM this process starts once on the bundled jar.
    match_recognize : bool, default False
        Read the text as a MATCH_RECOGNIZE clause rather than CEQL.

    Returns
    -------
    :class:`CeqlQuery` or :class:`RowPatternQuery`
        What the query selects and how: strategy, output variables (struct or array), predicates as Spark SQL,
        partition and order columns; for a MATCH_RECOGNIZE clause, its variables, measures and modes.

    Raises
    ------
    PatternSyntaxError
        The text is not CEQL (nor a MATCH_RECOGNIZE clause), or a predicate is not Spark SQL. The message names the line and column, what was
        expected and what was found, and quotes the line with a caret under the offending text.
    PatternAnalysisError
        The query is well-formed but cannot be evaluated (same message layout).

    Examples
    --------
    >>> from spark_cer import validate
    >>> q = validate("SELECT * FROM S WHERE SELL AS s ; BUY AS b FILTER s[price > 100] WITHIN 1000 [ts]")
    >>> [(o.name, o.single) for o in q.outputs]
    [('s', True), ('b', True)]
    >>> q.predicates
    {'s': ['price > 100']}

    Conditions relating events:

    >>> validate("SELL AS s ; (BUY AS b)+ FILTER b.price > s.price * 1.01 AND sum(b.volume) > 500 "
    ...          "WITHIN 10 [ts]").conditions
    ('b.price > s.price * 1.01', 'sum(b.volume) > 500')

    An unknown column, given the schema:

    >>> validate("SELL AS s FILTER s[prize > 100] ORDER BY ts", ["event_type", "price", "ts"])
    Traceback (most recent call last):
        ...
    spark_cer.validate.PatternAnalysisError: line 1, column 20: unknown column 'prize'; the columns are: event_type, price, ts
      SELL AS s FILTER s[prize > 100] ORDER BY ts
                         ^^^^^

    A MATCH_RECOGNIZE clause:

    >>> validate("ORDER BY day MEASURES LAST(B.price) AS low PATTERN (A B+) SUBSET U = (A, B) "
    ...          "DEFINE B AS price < PREV(price)", match_recognize=True).variables
    ('A', 'B')

    A syntax error:

    >>> validate("SELECT * FROM S WHERE SELL ; ; BUY ORDER BY ts")
    Traceback (most recent call last):
        ...
    spark_cer.validate.PatternSyntaxError: line 1, column 30: expected an event type, '(' or NOT, found ';'
      SELECT * FROM S WHERE SELL ; ; BUY ORDER BY ts
                                   ^
    """
    if not isinstance(query, str):
        raise TypeError(f"query must be a string, not {type(query).__name__}")
    request = {
        "query": query,
        "time_column": time_column,
        "type_column": type_column,
        **_schema_fields(schema),
        "language": "match_recognize" if match_recognize else "ceql",
    }
    answer = _ask(request, spark)
    if answer.get("language") == "match_recognize":
        return RowPatternQuery(
            text=query,
            variables=tuple(answer["variables"]),
            subsets={name: tuple(members) for name, members in answer["subsets"].items()},
            measures=tuple(answer["measures"]),
            rows_per_match=answer["rows_per_match"],
            after_match=answer["after_match"],
            output=None if answer["output"] is None else tuple(answer["output"]),
        )
    return CeqlQuery(
        text=query,
        strategy=answer["strategy"],
        streams=tuple(answer["streams"]),
        variables=tuple(answer["variables"]),
        outputs=tuple(OutputVariable(o["name"], o["single"], tuple(o["attributes"])) for o in answer["outputs"]),
        predicates={v: list(ps) for v, ps in answer["predicates"].items()},
        conditions=tuple(answer["conditions"]),
        partition_by=tuple(answer["partition_by"]),
        order_by=tuple((c, bool(d)) for c, d in answer["order_by"]),
        within=answer["within"],
        consume_by=answer["consume_by"],
        limit=answer["limit"],
    )
