"""
spark-cer's queries on a session of its own, for tests/test_cluster.py:

    python tests/cluster_worker.py --master MASTER --events CSV --stocks CSV --out JSON [--kill-dir DIR]

It starts a session on MASTER with the jar as a user ships it (``spark.jars``, which Spark serves to executors that
fetch it), runs every query of STATEMENTS and FRAMES on the small event table and the stock trace, and writes each
query's rows, canonical, to the JSON file. On ``local-cluster[2,1,1024]`` the driver and each executor are JVMs of
their own: a query that only worked because they shared a heap, a class loader or a static field gives other rows,
or fails. The test imports both and runs the same queries on its own ``local[2]`` session.

With ``--kill-dir``, the queries of KILLED run once more, each killing an executor in the middle of the operator's
tasks: the first row the operator outputs, anywhere, kills the JVM of the executor that made it (SIGKILL), once
per query. Spark runs the lost tasks again on the executor the cluster starts instead, and the map outputs lost
with the executor too; the rows must not change.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Callable, Dict, List

from checkout import spark_cer  # installed, or from this checkout

from pyspark.sql import DataFrame, SparkSession

EVENT_SCHEMA = "event_type string, id long, sym string, price double, volume long, ts long"
STOCK_SCHEMA = "event_type string, id long, name string, volume long, price double, stock_time long"
ORDER = "ORDER BY ts, id"

# name -> (the query over the views `events` and `stocks`, what EXPLAIN says of the evaluator it runs on)
STATEMENTS: Dict[str, tuple] = {
    # one-event filters only: CORE's tECS, partitioned
    "tecs": (
        "SELECT * FROM events PATTERN SELL AS s ; BUY AS b FILTER s[volume > 50] AND b[volume < 40] "
        f"PARTITION BY sym {ORDER} WITHIN 6 [ts]",
        "CerMatch PARTITION BY",
    ),
    # a condition relating two events: the lazy chain over the buffered SELLs, partitioned by the equality
    "lazy-chain": (
        "SELECT * FROM events PATTERN SELL AS s ; BUY AS b FILTER b.sym = s.sym AND b.price > s.price "
        f"{ORDER} WITHIN 6 [ts]",
        "lazy chain",
    ),
    # prev and an aggregate under an iteration: registers after the RMA paper
    "registers": (
        "SELECT * FROM events PATTERN (BUY AS b)+ FILTER b.price > prev(b.price) AND count(b) >= 3 "
        f"PARTITION BY sym {ORDER} WITHIN 8 [ts]",
        "registers (RMA)",
    ),
    # equalities between neighbouring events on two attributes: a PCEA
    "pcea": (
        "SELECT * FROM events PATTERN SELL AS s ; BUY AS b ; BUY AS c FILTER s.sym = b.sym "
        f"AND b.volume = c.volume {ORDER} WITHIN 40 [ts]",
        "equality correlation by PCEA",
    ),
    # no PARTITION BY, a window on the order column: the stream cut in ranges, one task per core
    "range-split": (
        f"SELECT * FROM events PATTERN SELL AS s ; BUY AS b ; BUY AS c {ORDER} WITHIN 5 [ts]",
        "in ranges of",
    ),
    # the cer table function
    "table-function": (
        "SELECT * FROM cer(TABLE(events) PARTITION BY (sym) ORDER BY (ts, id), "
        "'SELECT * WHERE SELL AS s ; BUY AS b FILTER b.price > s.price WITHIN 6 [ts]')",
        "CerMatch PARTITION BY",
    ),
    # MATCH_RECOGNIZE on the stock trace: V-shapes per stock
    "match-recognize": (
        "SELECT * FROM stocks MATCH_RECOGNIZE (PARTITION BY name ORDER BY stock_time, id DESC "
        "MEASURES FIRST(B.stock_time) AS down_start, LAST(C.stock_time) AS up_end, "
        "count(B.*) AS downs, MATCH_NUMBER() AS n PATTERN (B+ C+) "
        "DEFINE B AS price < PREV(price), C AS price > PREV(price))",
        "MatchRecognize",
    ),
    # ALL ROWS PER MATCH with running measures, a condition reading its match, no partition (one task)
    "match-recognize-all-rows": (
        "SELECT * FROM events MATCH_RECOGNIZE (ORDER BY ts, id MEASURES "
        "CLASSIFIER() AS label, RUNNING sum(B.volume) AS so_far, FINAL count(*) AS n "
        "ALL ROWS PER MATCH PATTERN (A B{2,}) "
        "DEFINE A AS event_type = 'SELL', B AS event_type = 'BUY' AND volume >= A.volume / 2)",
        "ALL ROWS PER MATCH",
    ),
}

# name -> the same surfaces through the DataFrame API
FRAMES: Dict[str, Callable[[SparkSession], DataFrame]] = {
    "df.cer": lambda spark: spark.table("events").cer(
        "SELECT * WHERE SELL AS s ; BUY AS b FILTER b.volume > s.volume WITHIN 4 [ts]",
        order_by=["ts", "id"],
        partition_by="sym",
    ),
    "df.match_recognize": lambda spark: spark.table("stocks").match_recognize(
        "PARTITION BY name ORDER BY stock_time, id DESC MEASURES A.stock_time AS start_time, count(B.*) AS ups "
        "PATTERN (A B+) DEFINE B AS price > PREV(price)"
    ),
}


def register(spark: SparkSession, events_csv: str, stocks_csv: str) -> None:
    """The views the queries read: `events` (the small table) and `stocks` (the trace)."""
    spark.read.csv(events_csv, header=True, schema=EVENT_SCHEMA).createOrReplaceTempView("events")
    spark.read.csv(stocks_csv, header=True, schema=STOCK_SCHEMA).createOrReplaceTempView("stocks")


def frames(spark: SparkSession) -> Dict[str, DataFrame]:
    """Every query as a DataFrame of `spark`."""
    out = {name: spark.sql(text) for name, (text, _) in STATEMENTS.items()}
    out.update({name: make(spark) for name, make in FRAMES.items()})
    return out


# The queries run again with an executor killed: CEQL's and MATCH_RECOGNIZE's operators, each over a shuffle.
KILLED = ["registers", "match-recognize"]


def killing_an_executor(df: DataFrame, marker: Path) -> DataFrame:
    """`df` unchanged, but the first of its rows made while `marker` exists kills the executor that made it.

    The first column passes through a Python UDF in the operator's own stage: the UDF takes `marker` (a rename, so
    that one task only wins it) and kills its executor, the JVM that started the Python worker running it."""
    from pyspark.sql import functions as F

    path = str(marker)

    def identity(value):
        import os
        import signal

        try:
            os.rename(path, path + ".taken")
        except FileNotFoundError:
            return value
        pid = os.getpid()
        while pid > 1:  # up from this Python worker to the executor's JVM
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if b"CoarseGrainedExecutorBackend" in f.read():
                    os.kill(pid, signal.SIGKILL)
                    return value
            with open(f"/proc/{pid}/status") as f:
                pid = int(next(line for line in f if line.startswith("PPid:")).split()[1])
        raise RuntimeError("no executor JVM above this Python worker")

    first = df.columns[0]
    udf = F.udf(identity, df.schema[first].dataType).asNondeterministic()
    return df.withColumn(first, udf(F.col(first)))


def canonical_rows(df: DataFrame) -> List[str]:
    """A query's rows as sorted canonical JSON strings (a multiset, whatever the order the tasks give)."""
    return sorted(json.dumps(r.asDict(recursive=True), sort_keys=True, default=str) for r in df.collect())


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--master", required=True)
    parser.add_argument("--events", required=True)
    parser.add_argument("--stocks", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--kill-dir", help="run KILLED again, killing an executor in each (its markers go here)")
    args = parser.parse_args(argv)

    spark = spark_cer.session(
        app_name="spark-cer cluster worker",
        master=args.master,
        **{
            "spark.sql.shuffle.partitions": "4",
            "spark.ui.enabled": "false",
            "spark.ui.showConsoleProgress": "false",
            "spark.sql.session.timeZone": "UTC",
            "spark.executor.memory": "768m",
        },
    )
    spark.sparkContext.setLogLevel("ERROR")
    register(spark, args.events, args.stocks)
    executors = spark.sparkContext._jsc.sc().getExecutorMemoryStatus().size() - 1  # less the driver's
    queries = frames(spark)
    result = {"executors": executors, "rows": {name: canonical_rows(df) for name, df in queries.items()}}
    if args.kill_dir:
        killed = {}
        for name in KILLED:
            marker = Path(args.kill_dir) / name
            marker.touch()
            rows = canonical_rows(killing_an_executor(queries[name], marker))
            killed[name] = {"rows": rows, "killed": not marker.exists() and Path(f"{marker}.taken").exists()}
        store = spark.sparkContext._jsc.sc().statusStore()
        summaries = store.executorList(False)
        dead = [summaries.apply(i) for i in range(summaries.size())]
        result["killed"] = killed
        result["executors lost"] = sum(1 for e in dead if not e.isActive() and e.id() != "driver")
    Path(args.out).write_text(json.dumps(result))
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
