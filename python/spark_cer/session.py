"""Spark sessions with spark-cer: the bundled jar and the SQL extension."""

from __future__ import annotations

import glob
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, List, Optional

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["EXTENSION_CLASS", "jar_path", "configure", "session"]

#: The class registered in ``spark.sql.extensions``.
EXTENSION_CLASS = "io.sparkcer.spark.CerSparkSessionExtensions"
ROCKSDB_PROVIDER = "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider"
_STATE_STORE_PROVIDER = "spark.sql.streaming.stateStore.providerClass"

_PACKAGE_DIR = Path(__file__).resolve().parent
# In a checkout of the repository, the jar built by `build/sbt spark/package`.
_BUILD_DIR = _PACKAGE_DIR.parent.parent / "jvm" / "spark" / "target" / "scala-2.13"
_JAR_PATTERN = "spark-cer_2.13-*.jar"


def _jars_in(directory: Path, pattern: str) -> List[str]:
    found = sorted(glob.glob(str(directory / pattern)))
    return [j for j in found if not j.endswith(("-sources.jar", "-javadoc.jar", "-tests.jar"))]


def jar_path() -> str:
    """
    The path of the spark-cer jar (the Spark extension with the engine inside).

    Looked up in this order: the environment variable ``SPARK_CER_JAR``; then the jar shipped inside the
    package (``spark_cer/jars/``) or, in a checkout of the repository, the jar built by
    ``build/sbt spark/package``, whichever is newer. Nothing is downloaded.

    Returns
    -------
    str
        An absolute path to an existing file.

    Raises
    ------
    FileNotFoundError
        When no jar is found; the message says how to build one.

    Examples
    --------
    >>> import spark_cer
    >>> spark_cer.jar_path()  # doctest: +SKIP
    '/.../site-packages/spark_cer/jars/spark-cer.jar'

    For ``spark-submit``:

    .. code-block:: sh

        spark-submit --jars "$(python -c 'import spark_cer; print(spark_cer.jar_path())')" \\
            --conf spark.sql.extensions=io.sparkcer.spark.CerSparkSessionExtensions app.py
    """
    override = os.environ.get("SPARK_CER_JAR")
    if override:
        if not os.path.isfile(override):
            raise FileNotFoundError(f"SPARK_CER_JAR={override} is not a file")
        return os.path.abspath(override)
    packaged = _jars_in(_PACKAGE_DIR / "jars", "*.jar")  # the Makefile copies the jar there as spark-cer.jar
    built = _jars_in(_BUILD_DIR, _JAR_PATTERN)
    if packaged or built:
        # In a checkout both may exist: the newest wins, so a rebuilt jar is never shadowed by an old copy.
        return max(packaged[-1:] + built[-1:], key=os.path.getmtime)
    raise FileNotFoundError(
        f"no spark-cer jar in {_PACKAGE_DIR / 'jars'} (nor in {_BUILD_DIR}): build it with "
        "`build/sbt spark/package` and copy it there (the Makefile does both), or set SPARK_CER_JAR"
    )


def _append(current: Optional[Any], item: str) -> str:
    items = [x.strip() for x in str(current or "").split(",") if x.strip()]
    if item not in items:
        items.append(item)
    return ",".join(items)


def configure(builder: "SparkSession.Builder", *, jar: Optional[str] = None) -> "SparkSession.Builder":
    """
    Adds spark-cer to a :class:`SparkSession.Builder`: the jar to ``spark.jars`` and the extension to
    ``spark.sql.extensions``.

    Values the builder already has are kept (the jar and the class are appended to the comma-separated lists,
    once), so spark-cer combines with other extensions such as Delta Lake. Unless the builder names one, the
    streaming state store becomes RocksDB (``spark.sql.streaming.stateStore.providerClass``): CEQL on a stream
    runs on Spark's ``transformWithState``, which needs it. Both settings are static: call this
    before the first ``getOrCreate()``. For Spark Connect, the server must be started with them (a client cannot
    add a SQL extension); a local Connect server started by ``builder.remote("local[*]")`` takes them from
    the builder.

    Parameters
    ----------
    builder : :class:`SparkSession.Builder`
        The builder to extend (changed in place).
    jar : str, optional
        The jar to use instead of :func:`jar_path`.

    Returns
    -------
    :class:`SparkSession.Builder`
        The same builder, for chaining.

    Examples
    --------
    >>> from pyspark.sql import SparkSession
    >>> import spark_cer
    >>> builder = SparkSession.builder.master("local[2]").config(
    ...     "spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
    >>> spark = spark_cer.configure(builder).getOrCreate()  # doctest: +SKIP
    >>> spark.conf.get("spark.sql.extensions")  # doctest: +SKIP
    'io.delta.sql.DeltaSparkSessionExtension,io.sparkcer.spark.CerSparkSessionExtensions'
    """
    jar = jar or jar_path()
    options = getattr(builder, "_options", {})
    builder.config("spark.jars", _append(options.get("spark.jars"), jar))
    builder.config("spark.sql.extensions", _append(options.get("spark.sql.extensions"), EXTENSION_CLASS))
    if _STATE_STORE_PROVIDER not in options:
        builder.config(_STATE_STORE_PROVIDER, ROCKSDB_PROVIDER)
    return builder


def session(app_name: str = "spark-cer", master: str = "local[*]", **conf: Any) -> "SparkSession":
    """
    A ready SparkSession with spark-cer: ``spark.sql`` understands CEQL statements and the ``cer`` table
    function, and ``DataFrame.cer`` works.

    Parameters
    ----------
    app_name : str
        The application name.
    master : str
        The master URL, ``local[*]`` by default.
    **conf
        More Spark settings; keys with dots are passed as a dict: ``session(**{"spark.ui.enabled": "false"})``.

    Returns
    -------
    :class:`SparkSession`

    Raises
    ------
    RuntimeError
        When a SparkSession without spark-cer is already running in this process (static settings cannot
        change): stop it first.

    Examples
    --------
    >>> import spark_cer
    >>> spark = spark_cer.session(master="local[2]", **{"spark.sql.shuffle.partitions": "4"})  # doctest: +SKIP
    >>> spark.sql(
    ...     "SELECT * FROM stocks PATTERN SELL AS s ; BUY AS b FILTER s[price > 100] WITHIN 1000 [stock_time]"
    ... ).show()  # doctest: +SKIP
    """
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName(app_name).master(master)
    for key, value in conf.items():
        builder = builder.config(key, value)
    spark = configure(builder).getOrCreate()
    extensions = spark.conf.get("spark.sql.extensions", "") or ""
    if EXTENSION_CLASS not in extensions:
        raise RuntimeError(
            "a SparkSession without spark-cer is already running in this process, and spark.sql.extensions "
            "cannot change while it runs: stop it (spark.stop()) before spark_cer.session(), or build the "
            "first session with spark_cer.configure(builder)"
        )
    return spark
