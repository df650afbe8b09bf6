"""
``spark.sql`` on Spark Connect: spark-cer's errors read as on a classic session.

A classic session raises a statement's error with its message (PySpark adds the JVM's stack only when
``spark.sql.pyspark.jvmStacktrace.enabled`` is set). A Spark Connect client adds the server's stack to the message
of every error while ``spark.sql.connect.serverStacktrace.enabled`` is set, as it is by default: under a CEQL or
MATCH_RECOGNIZE error, whose message is its place in the statement (the line and column, the quoted line and a caret
under the offending text), a page of the server's frames. ``DataFrame.cer`` raises those errors as
:class:`~spark_cer.PatternError`, which has no stack; ``spark.sql`` keeps Spark's exception, as on a classic session,
and shows it without the stack, which stays at hand (``error.getStackTrace()``). Other errors are left as they are.
"""

from __future__ import annotations

import functools
from typing import Any

from spark_cer.validate import is_cer_error

__all__ = ["install"]


def install() -> None:
    """
    Makes the Spark Connect session's ``sql`` raise spark-cer's errors without the server's stack; nothing when the
    Spark Connect client libraries (grpcio, pandas, pyarrow) are not installed. Importing :mod:`spark_cer` calls this.
    """
    try:
        from pyspark.sql.connect.session import SparkSession
    except ImportError:
        return
    sql = SparkSession.sql
    if getattr(sql, "_cer_errors", False):  # installed already
        return

    @functools.wraps(sql)
    def sql_with_cer_errors(self: SparkSession, sqlQuery: str, args: Any = None, **kwargs: Any) -> Any:
        try:
            return sql(self, sqlQuery, args, **kwargs)
        except Exception as e:
            if is_cer_error(e) and hasattr(e, "_display_stacktrace"):
                # Spark Connect's exceptions decide when they are made whether their message shows the stack.
                e._display_stacktrace = False  # type: ignore[attr-defined]
            raise

    sql_with_cer_errors._cer_errors = True  # type: ignore[attr-defined]
    SparkSession.sql = sql_with_cer_errors  # type: ignore[method-assign]
