"""
spark-cer in a notebook: a ``%%sql`` cell magic, as Databricks' ``%sql`` cells, whose cell is one SQL statement run
by the active Spark session (CEQL, MATCH_RECOGNIZE or any Spark SQL) and shown as a table.

Importing ``spark_cer`` in IPython registers the magic (``%load_ext spark_cer`` does too)::

    %%sql
    SELECT * FROM stocks PATTERN SELL AS s ; BUY AS b FILTER s[price > 100] WITHIN 1 SECONDS

    %%sql --limit 5 matches
    SELECT ...            -- the first 5 rows shown; the DataFrame kept in the variable `matches`

    %%sql --read snowflake
    SELECT ...            -- written for Snowflake: translated (spark_cer.translate), printed, then run

A query's errors are spark-cer's (:class:`~spark_cer.PatternError`, with line, column and caret), without Spark's
stack.
"""

from __future__ import annotations

import html
import shlex
from typing import TYPE_CHECKING, Any, List, Optional

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

__all__ = ["Table", "load_ipython_extension", "register"]


class Table:
    """
    The first rows of a DataFrame, shown as a table: HTML in a notebook, Spark's own text table elsewhere. The
    rows are read once, when the table is made.

    Attributes
    ----------
    df : DataFrame
        The whole result.
    columns : list of str
    rows : list of tuple
        At most ``limit`` rows.
    more : bool
        Whether the DataFrame has more rows than those shown.
    """

    def __init__(self, df: "DataFrame", limit: int = 20) -> None:
        self.df = df
        self.limit = limit
        taken = df.limit(limit + 1).collect()
        self.columns: List[str] = list(df.columns)
        self.rows = [tuple(row) for row in taken[:limit]]
        self.more = len(taken) > limit

    @staticmethod
    def _text(value: Any) -> str:
        """A value as Spark's own tables show it: a struct (a matched event) as its values in brackets."""
        from pyspark.sql import Row

        if value is None:
            return "null"
        if isinstance(value, Row):
            return "{" + ", ".join(Table._text(v) for v in value) + "}"
        if isinstance(value, list):
            return "[" + ", ".join(Table._text(v) for v in value) + "]"
        return str(value)

    def _repr_html_(self) -> str:
        def cell(value: Any) -> str:
            return "<td><i>null</i></td>" if value is None else f"<td>{html.escape(self._text(value))}</td>"

        head = "".join(f"<th>{html.escape(c)}</th>" for c in self.columns)
        body = "".join("<tr>" + "".join(cell(v) for v in row) + "</tr>" for row in self.rows)
        tail = f"<p>only the first {self.limit} rows shown</p>" if self.more else ""
        return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{tail}"

    def __repr__(self) -> str:
        cells = [[self._text(v) for v in row] for row in self.rows]
        widths = [max([len(c)] + [len(row[i]) for row in cells]) for i, c in enumerate(self.columns)]
        rule = "+" + "+".join("-" * (w + 2) for w in widths) + "+"

        def line(values: List[str]) -> str:
            return "| " + " | ".join(v.ljust(w) for v, w in zip(values, widths)) + " |"

        text = [rule, line(self.columns), rule] + [line(row) for row in cells] + [rule]
        if self.more:
            text.append(f"only the first {self.limit} rows shown")
        return "\n".join(text)


def _sql_magic(line: str, cell: str) -> Optional[Table]:
    """
    ``%%sql [--limit N] [--read DIALECT] [variable]``: the cell's statement, run (translated from DIALECT first); its
    rows as a table (a command shows none).
    """
    from pyspark.sql import SparkSession

    from spark_cer.translate import translate
    from spark_cer.validate import from_spark_error

    words = shlex.split(line)
    limit, name, dialect = 20, None, None
    while words:
        word = words.pop(0)
        if word == "--limit" and words:
            limit = int(words.pop(0))
        elif word == "--read" and words:
            dialect = words.pop(0)
        elif not word.startswith("-") and name is None:
            name = word
        else:
            raise ValueError(f"%%sql takes [--limit N] [--read DIALECT] [variable], not {line!r}")
    spark = SparkSession.getActiveSession()
    if spark is None:
        raise RuntimeError("%%sql runs its cell in the active Spark session: start one first (spark_cer.session())")
    if dialect is not None:
        cell = translate(cell, read=dialect, spark=spark)
        print(cell)
    try:
        df = spark.sql(cell)
    except Exception as e:
        placed = from_spark_error(e, cell)
        if placed is None:
            raise
        raise placed from None
    if name:
        from IPython import get_ipython

        get_ipython().user_ns[name] = df
    return Table(df, limit) if df.columns else None


def register(ipython: Any) -> None:
    """Registers ``%%sql`` in an IPython shell."""
    ipython.register_magic_function(_sql_magic, magic_kind="cell", magic_name="sql")


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext spark_cer`` (or ``spark_cer.notebook``)."""
    register(ipython)


def register_in_running_shell() -> None:
    """Registers ``%%sql`` where ``spark_cer`` is imported in IPython (a notebook's kernel); elsewhere nothing."""
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is not None:
        register(shell)
