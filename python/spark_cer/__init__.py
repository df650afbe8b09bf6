"""
spark-cer: complex event recognition on Apache Spark with CEQL, CORE's query language.

>>> import spark_cer
>>> spark = spark_cer.session()                                   # doctest: +SKIP
>>> spark.sql("SELECT * FROM stocks PATTERN SELL AS s ; BUY AS b "
...           "FILTER s[price > 100] WITHIN 1000 [stock_time]")   # doctest: +SKIP
>>> df.cer("SELL AS s ; BUY AS b", order_by="ts")                 # doctest: +SKIP
>>> df.match_recognize("ORDER BY ts PATTERN (A B+) DEFINE B AS price < PREV(price)")  # doctest: +SKIP
>>> spark_cer.validate("SELL AS s ; BUY AS b ORDER BY ts", df.schema)  # doctest: +SKIP
>>> spark_cer.explain_pattern("SELL AS s ; BUY AS b ORDER BY ts")  # doctest: +SKIP
>>> spark.sql(spark_cer.translate(snowflake_statement, read="snowflake"))  # doctest: +SKIP

Importing the package installs ``DataFrame.cer`` and ``DataFrame.match_recognize`` (classic and Spark Connect),
makes a Spark Connect session's ``spark.sql`` raise spark-cer's errors without the server's stack, as a classic one,
and, in IPython, registers the ``%%sql`` cell magic (:mod:`spark_cer.notebook`).
"""

from spark_cer.connect import install as _install_connect
from spark_cer.dataframe import cer, install as _install, match_recognize
from spark_cer.notebook import load_ipython_extension, register_in_running_shell as _register_magic
from spark_cer.picture import AutomatonPicture, explain_pattern
from spark_cer.session import EXTENSION_CLASS, configure, jar_path, session
from spark_cer.translate import TranslationError, translate
from spark_cer.validate import (
    CeqlAnalysisError,
    CeqlError,
    CeqlQuery,
    CeqlSyntaxError,
    OutputVariable,
    PatternAnalysisError,
    PatternError,
    PatternSyntaxError,
    RowPatternQuery,
    validate,
)

__version__ = "0.1.0.dev0"

__all__ = [
    "EXTENSION_CLASS",
    "AutomatonPicture",
    "CeqlAnalysisError",
    "CeqlError",
    "CeqlQuery",
    "CeqlSyntaxError",
    "OutputVariable",
    "PatternAnalysisError",
    "PatternError",
    "PatternSyntaxError",
    "RowPatternQuery",
    "TranslationError",
    "cer",
    "configure",
    "explain_pattern",
    "jar_path",
    "load_ipython_extension",
    "match_recognize",
    "session",
    "translate",
    "validate",
]

_install()
_install_connect()
_register_magic()
