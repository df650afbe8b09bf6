"""
``DataFrame.cer`` and ``DataFrame.match_recognize``: CEQL and SQL:2016's MATCH_RECOGNIZE on a DataFrame, through
table functions of the extension (classic and Spark Connect).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING, List, Optional, Sequence, Union

from spark_cer.validate import from_spark_error

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

__all__ = ["cer", "match_recognize", "install"]


def _name(column: str) -> str:
    """A column name as SQL text, backquoted."""
    return "`" + column.strip().replace("`", "``") + "`"


def _columns(value: Union[str, Sequence[str]], argument: str) -> List[str]:
    items = [value] if isinstance(value, str) else list(value) if isinstance(value, Iterable) else []
    if not items or not all(isinstance(c, str) and c.strip() for c in items):
        raise TypeError(f"{argument} must be a column name or a non-empty list of column names, not {value!r}")
    return items


def _order_key(key: str) -> str:
    """``"ts"``, ``"id DESC"`` or ``"id ASC"`` as SQL text."""
    words = key.split()
    if len(words) >= 2 and words[-1].upper() in ("ASC", "DESC"):
        return f"{_name(' '.join(words[:-1]))} {words[-1].upper()}"
    return _name(key)


def _table_argument(
    partition_by: Optional[Union[str, Sequence[str]]], order_by: Optional[Union[str, Sequence[str]]]
) -> str:
    """``TABLE(df)`` with the partitioning and the order Spark's table arguments take."""
    text = "TABLE({cer_input})"
    if partition_by is not None:
        text += " PARTITION BY (" + ", ".join(_name(c) for c in _columns(partition_by, "partition_by")) + ")"
    if order_by is not None:
        # Spark's grammar orders a table argument only after its partitioning.
        text += "" if partition_by is not None else " WITH SINGLE PARTITION"
        text += " ORDER BY (" + ", ".join(_order_key(k) for k in _columns(order_by, "order_by")) + ")"
    return text


def cer(
    df: "DataFrame",
    query: str,
    *,
    order_by: Optional[Union[str, Sequence[str]]] = None,
    partition_by: Optional[Union[str, Sequence[str]]] = None,
    type_column: Optional[str] = None,
    time_column: Optional[str] = None,
) -> "DataFrame":
    """
    Runs a CEQL query on a DataFrame: one row per match.

    The DataFrame is the stream, so the query leaves ``FROM`` out: it is a pattern with its clauses
    (``SELL AS s ; BUY AS b FILTER s[price > 100] WITHIN 1 MINUTES``), optionally preceded by
    ``SELECT [strategy] vars WHERE``. It runs as ``SELECT * FROM cer(TABLE(df) PARTITION BY (..) ORDER BY (..),
    '<query>', ...)``: the JVM parses and analyzes it, on classic and Spark Connect sessions alike, and its errors
    are raised here as :class:`~spark_cer.PatternError` with their line and column.

    On a streaming DataFrame the query runs continuously and gives the matches it would give on the same rows
    as a table: the first ``order_by`` column is the event time, a timestamp with a watermark
    (``df.withWatermark("ts", "10 seconds")``), the query needs ``WITHIN``, and each match is emitted once
    (append mode) when the watermark passes its last event.

    Parameters
    ----------
    df : :class:`DataFrame`
        The events, a table or a stream.
    query : str
        The CEQL query, without ``FROM``.
    order_by : str or list of str, optional
        The stream order, e.g. ``"ts"`` or ``["ts", "id DESC"]``; the same as an ``ORDER BY`` clause.
    partition_by : str or list of str, optional
        Columns whose values split the stream into independent substreams; the same as ``PARTITION BY``.
    type_column : str, optional
        The column holding each event's type (default: ``spark.cer.eventTypeColumn``, ``event_type``).
    time_column : str, optional
        The stream order when the query has no ``ORDER BY`` (default: ``spark.cer.timeColumn``).

    Returns
    -------
    :class:`DataFrame`
        The ``PARTITION BY`` columns, ``match_start`` and ``match_end`` (the order column at the first and last
        event of the match), then one column per selected variable: a struct of the event's columns when the
        variable binds exactly one event in every match, else an array of structs.

    Raises
    ------
    PatternSyntaxError, PatternAnalysisError
        The query is not valid for this DataFrame (or a clause is given both in the query and as an argument, or
        the query has a ``FROM``); the message names the line and column. Both are subclasses of ``ValueError``.

    Examples
    --------
    >>> import spark_cer
    >>> spark = spark_cer.session()  # doctest: +SKIP
    >>> df = spark.createDataFrame(
    ...     [("SELL", "INTC", 101.0, 1), ("BUY", "INTC", 99.0, 2), ("BUY", "INTC", 98.5, 3)],
    ...     "event_type string, name string, price double, ts long")  # doctest: +SKIP
    >>> df.cer("SELL AS s ; BUY AS b FILTER s[price > 100]", order_by="ts", partition_by="name").select(
    ...     "name", "match_start", "match_end", "b.price").show()  # doctest: +SKIP
    +----+-----------+---------+-----+
    |name|match_start|match_end|price|
    +----+-----------+---------+-----+
    |INTC|          1|        2| 99.0|
    |INTC|          1|        3| 98.5|
    +----+-----------+---------+-----+

    A selection strategy and projections:

    >>> df.cer("SELECT LAST s[price], b[price] WHERE SELL AS s ; BUY+ AS b",
    ...        order_by="ts").printSchema()  # doctest: +SKIP
    root
     |-- match_start: long (nullable = true)
     |-- match_end: long (nullable = true)
     |-- s: struct (nullable = true)
     |    |-- price: double (nullable = true)
     |-- b: array (nullable = true)
     |    |-- element: struct (containsNull = true)
     |    |    |-- price: double (nullable = true)
    """
    if not isinstance(query, str):
        raise TypeError(f"query must be a string, not {type(query).__name__}")
    # Strings become SQL string literals (escaped by PySpark's formatter), the DataFrame a view; a column not given
    # is NULL, which the table function reads as "the default".
    columns = {"cer_type_column": type_column, "cer_time_column": time_column}
    given = {k: v for k, v in columns.items() if v is not None}
    for key, value in given.items():
        if not isinstance(value, str):
            argument = key.removeprefix("cer_")
            raise TypeError(f"{argument} must be a column name (a string), not {value!r}")
    arguments = "".join(", {" + k + "}" if k in given else ", NULL" for k in columns)
    sql = "SELECT * FROM cer(" + _table_argument(partition_by, order_by) + ", {cer_query}" + arguments + ")"
    return _analyzed(df, sql, query, cer_input=df, cer_query=query, **given)


def _analyzed(df: "DataFrame", sql: str, text: str, **arguments: object) -> "DataFrame":
    """
    ``sql`` with its arguments, analyzed now (on Spark Connect too, so that errors surface here), spark-cer's errors
    raised as :class:`~spark_cer.PatternError` placed in ``text``.
    """
    try:
        result = df.sparkSession.sql(sql, **arguments)
        result.schema
    except Exception as e:
        error = from_spark_error(e, text)
        if error is None:
            raise
        raise error from e
    return result


def match_recognize(df: "DataFrame", clause: str) -> "DataFrame":
    """
    Runs a MATCH_RECOGNIZE clause (SQL:2016 row pattern recognition) on a DataFrame.

    ``df.match_recognize(clause)`` is ``SELECT * FROM df MATCH_RECOGNIZE (clause)``: the standard's preferred matches
    of the pattern in each partition, with its measures, as Trino evaluates them. It runs as
    ``SELECT * FROM __cer_mr(TABLE(df), '<clause>')`` on classic and Spark Connect sessions alike, and errors in the
    clause are raised here as :class:`~spark_cer.PatternError` placed in ``clause``.

    On a streaming DataFrame, ORDER BY starts with its watermarked event time and PATTERN (...) has a bound,
    ``WITHIN INTERVAL '10' MINUTES``: a match is output once the watermark shows that no later row can make a
    preferred one, and the rows are the table's on the same input, however the stream is cut.

    Parameters
    ----------
    df : :class:`DataFrame`
        The rows (a table or a stream).
    clause : str
        What stands between MATCH_RECOGNIZE's parentheses: ``[PARTITION BY ...] [ORDER BY ...] [MEASURES ...]
        [ONE ROW PER MATCH | ALL ROWS PER MATCH ...] [AFTER MATCH SKIP ...] PATTERN (...) [SUBSET ...] [DEFINE ...]``.

    Returns
    -------
    :class:`DataFrame`
        ONE ROW PER MATCH (the default): the PARTITION BY columns, then the measures. ALL ROWS PER MATCH: the
        PARTITION BY columns, the ORDER BY columns, the measures, then the other columns, one row per row of a match.

    Raises
    ------
    PatternSyntaxError, PatternAnalysisError
        The clause is not valid for this DataFrame; the message names the line and column in ``clause``.

    Examples
    --------
    >>> prices = spark.createDataFrame(
    ...     [("A", 1, 10.0), ("A", 2, 8.0), ("A", 3, 7.0), ("A", 4, 9.0), ("A", 5, 12.0)],
    ...     "symbol string, day int, price double")  # doctest: +SKIP
    >>> prices.match_recognize('''
    ...     PARTITION BY symbol ORDER BY day
    ...     MEASURES FIRST(day) AS top_day, LAST(DOWN.price) AS bottom, LAST(UP.price) AS back
    ...     PATTERN (START DOWN+ UP+)
    ...     DEFINE DOWN AS price < PREV(price), UP AS price > PREV(price)''').show()  # doctest: +SKIP
    +------+-------+------+----+
    |symbol|top_day|bottom|back|
    +------+-------+------+----+
    |     A|      1|   7.0|12.0|
    +------+-------+------+----+
    """
    if not isinstance(clause, str):
        raise TypeError(f"clause must be a string, not {type(clause).__name__}")
    return _analyzed(
        df, "SELECT * FROM __cer_mr(TABLE({mr_input}), {mr_clause})", clause, mr_input=df, mr_clause=clause
    )


def install() -> None:
    """
    Installs :func:`cer` as ``DataFrame.cer`` and :func:`match_recognize` as ``DataFrame.match_recognize`` on
    PySpark's DataFrame classes (classic and Spark Connect).

    Importing :mod:`spark_cer` calls this. Both DataFrame classes derive from :class:`pyspark.sql.DataFrame`,
    so the method is set there, and on the Connect class too when its module is loaded.
    """
    from pyspark.sql import DataFrame

    # A plain function set on the class is a method: df.cer(query, ...) calls cer(df, query, ...).
    DataFrame.cer = cer  # type: ignore[attr-defined]
    DataFrame.match_recognize = match_recognize  # type: ignore[attr-defined]
    for module in ("pyspark.sql.classic.dataframe", "pyspark.sql.connect.dataframe"):
        loaded = sys.modules.get(module)
        if loaded is not None and hasattr(loaded, "DataFrame"):
            loaded.DataFrame.cer = cer
            loaded.DataFrame.match_recognize = match_recognize
