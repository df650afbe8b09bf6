"""
spark-cer over a Delta table, in a session of its own, for tests/test_spark_settings.py:

    python tests/delta_worker.py --events CSV --table DIR --queries JSON --out JSON

The session has both extensions, Delta Lake's and spark-cer's (``spark_cer.configure`` appends to what the builder
has), and Delta's catalog; Delta's jars come as Delta documents it for pip users (``configure_spark_with_delta_pip``:
Maven Central, through Spark's own resolver, into ~/.ivy2). The worker writes the CSV's rows as a Delta table in
DIR, reads each query of the JSON object (name -> SQL over a table `t`) once over a view of the table and once with
`t` written as the table's path (``delta.`DIR```), and writes the rows, canonical, per query and way.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from checkout import spark_cer  # installed, or from this checkout

from delta import configure_spark_with_delta_pip
from pyspark.sql import SparkSession

EVENT_SCHEMA = "event_type string, id long, sym string, price double, volume long, ts long"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", required=True)
    parser.add_argument("--table", required=True)
    parser.add_argument("--queries", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)

    builder = (
        SparkSession.builder.appName("spark-cer delta worker")
        .master("local[2]")
        .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
        .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.session.timeZone", "UTC")
    )
    spark = configure_spark_with_delta_pip(spark_cer.configure(builder)).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    spark.read.csv(args.events, header=True, schema=EVENT_SCHEMA).write.format("delta").save(args.table)
    spark.read.format("delta").load(args.table).createOrReplaceTempView("t")

    def rows(query: str) -> list:
        return sorted(json.dumps(r.asDict(recursive=True), sort_keys=True) for r in spark.sql(query).collect())

    out = {}
    for name, query in json.loads(args.queries).items():
        path = f"delta.`{args.table}`"
        by_path = query.replace("TABLE(t)", f"TABLE({path})").replace("FROM t ", f"FROM {path} ")
        assert by_path != query, f"{name} reads no table t"
        out[name] = {"view": rows(query), "path": rows(by_path)}
    Path(args.out).write_text(json.dumps(out))
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
