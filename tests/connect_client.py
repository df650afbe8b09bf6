"""
Two Spark Connect sessions on one server, at once, for tests/test_connect_server.py:

    python tests/connect_client.py --url sc://localhost:PORT --events CSV

Each session registers its own view `events` of the CSV (the first all of it, the second the rows of one symbol),
and, in two threads at once, runs CEQL through ``spark.sql`` and ``df.cer``, MATCH_RECOGNIZE through ``spark.sql``
and ``df.match_recognize``, ``spark_cer.validate`` on a wrong query, and EXPLAIN under a setting of its own (the
first turns PCEA off). It prints one JSON object: per session, each query's rows (canonical JSON, sorted), the
validation's error and the plan; and whether a view of one session is seen from the other.
"""

from __future__ import annotations

import argparse
import json
import sys
from concurrent.futures import ThreadPoolExecutor

from checkout import spark_cer  # installed, or from this checkout

from pyspark.sql import SparkSession

EVENT_SCHEMA = "event_type string, id long, sym string, price double, volume long, ts long"
CEQL = (
    "SELECT * FROM events PATTERN SELL AS s ; BUY AS b FILTER b.price > s.price PARTITION BY sym ORDER BY ts, id "
    "WITHIN 6 [ts]"
)
PATTERN = "SELL AS s ; BUY AS b FILTER b.volume > s.volume WITHIN 4 [ts]"
CLAUSE = (
    "PARTITION BY sym ORDER BY ts, id MEASURES FIRST(A.id) AS a, count(B.*) AS n PATTERN (A B+) "
    "DEFINE B AS price < PREV(price)"
)
MATCH_RECOGNIZE = f"SELECT * FROM events MATCH_RECOGNIZE ({CLAUSE})"
# Equalities between neighbouring events: a PCEA, unless the session turns it off.
EQUALITY_CHAIN = (
    "SELECT * FROM events PATTERN SELL AS s ; BUY AS b ; BUY AS c FILTER s.sym = b.sym "
    "AND b.volume = c.volume ORDER BY ts, id WITHIN 40 [ts]"
)
WRONG = "SELECT * FROM events PATTERN SELL AS s ; BUY AS b FILTER s[prize > 100] ORDER BY ts"
# What each session keeps of the CSV.
VIEWS = {"all": "true", "one symbol": "sym = 'A'"}


def canonical(rows) -> list:
    return sorted(json.dumps(r.asDict(recursive=True), sort_keys=True) for r in rows)


def workload(spark: SparkSession, csv: str, name: str) -> dict:
    events = spark.read.csv(csv, header=True, schema=EVENT_SCHEMA).where(VIEWS[name])
    events.createOrReplaceTempView("events")
    events.createOrReplaceTempView(f"only_in_{name.replace(' ', '_')}")
    if name == "all":
        spark.conf.set("spark.cer.pcea.enabled", "false")
    try:
        spark_cer.validate(WRONG, schema=events.columns, spark=spark)
        error = None
    except spark_cer.PatternError as e:
        error = [type(e).__name__, e.line, e.column, str(e).splitlines()[0]]
    events = spark.table("events")
    return {
        "module": type(events).__module__,
        "ceql": canonical(spark.sql(CEQL).collect()),
        "df.cer": canonical(events.cer(PATTERN, partition_by="sym", order_by=["ts", "id"]).collect()),
        "match_recognize": canonical(spark.sql(MATCH_RECOGNIZE).collect()),
        "df.match_recognize": canonical(events.match_recognize(CLAUSE).collect()),
        "validate": error,
        "plan": spark.sql(f"EXPLAIN {EQUALITY_CHAIN}").collect()[0][0],
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--events", required=True)
    args = parser.parse_args(argv)

    sessions = {name: SparkSession.builder.remote(args.url).create() for name in VIEWS}
    with ThreadPoolExecutor(len(sessions)) as pool:
        futures = {name: pool.submit(workload, spark, args.events, name) for name, spark in sessions.items()}
        out = {name: f.result() for name, f in futures.items()}
    seen = {}
    for name, spark in sessions.items():
        for other in VIEWS:
            if other != name:
                try:
                    spark.table(f"only_in_{other.replace(' ', '_')}").count()
                    seen[f"{other} from {name}"] = True
                except Exception:
                    seen[f"{other} from {name}"] = False
    out["views seen across sessions"] = seen
    print(json.dumps(out))
    for spark in sessions.values():
        spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
