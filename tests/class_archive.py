"""
A class-data archive for the JVMs the Python tests start: the classes a Spark driver loads as it starts, plans and
runs a query, a MATCH_RECOGNIZE clause and a stream, already parsed and verified, mapped into each JVM at its start
(the JDK's class-data sharing, with the dynamic archive of JDK 13 and later) instead of searched for in PySpark's
279 jars and parsed again by each JVM.

Every Spark JVM of the run starts from it: pytest's sessions, the workers' drivers and their executors, the notebooks'
kernels' drivers, the Connect server. A driver's start and first queries took 14 CPU-seconds without it and 8 with
it; a two-executor local cluster's, 26 and 14. A JVM whose class path differs from the archive's (sbt, the Kafka
broker, Spark's launcher) silently goes without it, as does any JVM if the archive is stale.

The archive is made once per PySpark install, Java and spark-cer jar (about 45 CPU-seconds, the run that writes it)
and kept under target/ for the runs after.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path
from typing import Dict, Optional

from checkout import REPO, spark_cer

#: What the archive is made from: a driver that reads and writes CSV and Parquet, runs CEQL with a condition relating
#: events, a MATCH_RECOGNIZE clause and a CEQL stream on the RocksDB state store, then stops. Its JVM writes the
#: archive as it exits, which it does once its standard input is closed.
WORKLOAD = """
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, {tests!r})
from checkout import spark_cer
from pyspark.sql import functions as F

spark = spark_cer.session(
    app_name="spark-cer class archive",
    master="local[2]",
    **{{
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.shuffle.partitions": "2",
        "spark.driver.extraJavaOptions": "-XX:ArchiveClassesAtExit={archive}",
    }},
)
work = Path(tempfile.mkdtemp(prefix="spark-cer-class-archive-"))
events = spark.range(400).selectExpr(
    "IF(id % 3 = 0, 'SELL', 'BUY') AS event_type", "id", "CAST(id % 4 AS STRING) AS name", "id * 1.5 AS price",
    "id AS volume", "id * 100 AS stock_time",
)
events.write.csv(str(work / "csv"), header=True)
events.write.parquet(str(work / "parquet"))
table = spark.read.csv(str(work / "csv"), header=True, schema=events.schema)
table.cer("SELL AS s ; BUY AS b FILTER b.price > s.price WITHIN 1000 [stock_time]", partition_by="name").collect()
table.match_recognize(
    "PARTITION BY name ORDER BY stock_time MEASURES count(*) AS n PATTERN (A B+) DEFINE B AS price > PREV(price)"
).collect()
spark.read.parquet(str(work / "parquet")).groupBy("name").count().collect()
stream = (
    spark.readStream.schema(events.schema).option("header", True).csv(str(work / "csv"))
    .withColumn("ts", F.timestamp_millis("stock_time")).withWatermark("ts", "1 second")
)
query = (
    stream.cer("SELL AS s ; BUY AS b WITHIN 1 SECONDS", partition_by="name", order_by="ts")
    .writeStream.format("memory").queryName("archive").option("checkpointLocation", str(work / "checkpoint")).start()
)
query.processAllAvailable()
query.stop()
driver = spark.sparkContext._gateway.proc
spark.stop()
driver.stdin.close()
driver.wait()
"""


def _key(java_options: str) -> str:
    """What the archive depends on: PySpark's jars as installed (a JVM checks each jar's size and time against the
    archive's, and goes without it if one differs), this Java, the spark-cer jar and the JVMs' options."""
    import pyspark

    java = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr
    jars = Path(pyspark.__file__).resolve().parent / "jars"
    files = [jars.stat(), Path(spark_cer.jar_path()).stat()]
    parts = [pyspark.__version__, str(jars), java, java_options] + [f"{f.st_size} {f.st_mtime_ns}" for f in files]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def class_archive(environment: Dict[str, str], directory: Path = REPO / "target" / "test-jvms") -> Optional[Path]:
    """
    The archive for the JVMs started with `environment` (their JDK_JAVA_OPTIONS), made if this
    PySpark, Java and jar have none yet; None when it cannot be made (the tests then run without it).
    """
    try:
        key = _key(environment.get("JDK_JAVA_OPTIONS", ""))
    except OSError:  # no Java on the path, or no jar yet (the tests that need one skip)
        return None
    archive = directory / f"spark-classes-{key}.jsa"
    if archive.exists():
        return archive
    directory.mkdir(parents=True, exist_ok=True)
    for stale in directory.glob("spark-classes-*"):
        stale.unlink()
    written = archive.with_suffix(".tmp")
    script = WORKLOAD.format(tests=str(Path(__file__).resolve().parent), archive=str(written))
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=600, env=dict(os.environ, **environment)
    )
    if done.returncode != 0 or not written.exists():
        print(f"no class-data archive for the tests' JVMs:\n{done.stderr[-2000:]}", file=sys.stderr)
        return None
    written.rename(archive)
    return archive
