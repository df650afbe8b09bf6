"""One workload of recognize.py on Flink SQL's MATCH_RECOGNIZE, run by the harness in Flink's own virtual environment:

    bench/.flink-venv/bin/python bench/sparkbench/flink_peer.py --csv bench/target/spark-bench/data/x4.csv \
        --workload v_shape --mode streaming --parallelism 2 --runs 3 [--collect]

Starts PyFlink's JVM (timed apart: `jvm_start`), runs the job once to warm up, then `--runs` timed runs into Flink's
blackhole sink, then with --collect once more into a collecting sink (to_pandas), whose rows it reduces to a count and a digest
(flink_dialect.digest) for the harness to compare with spark-cer's. Each run is timed two ways: `wall`, from the
statement's submission to the job's end as this process sees it (planning, the job's own local cluster, the job), and
`net`, the job's net runtime as Flink's JobExecutionResult reports it (the job alone). The last line of standard
output is the JSON of the result, after the marker RESULT_MARKER; Flink's logging goes to standard error.

Workload `read`: Flink reading and parsing the CSV into the blackhole, no pattern, to tell the reading from the
matching.

Modes: `batch` (EnvironmentSettings.in_batch_mode: blocking shuffles, the adaptive scheduler's own choice of
parallelism turned off so that every operator runs at --parallelism) and `streaming` (event time: `ts` with a
watermark 1 ms behind the largest time read, so that rows of the same millisecond, which the trace has, are not
late; the CSV is in stream order, so no row is). Flink's batch mode does not sort by ORDER BY: its CEP operator
takes a non-time-attribute order column as processing time, feeding rows in arrival order and sorting only those that
arrive in the same millisecond. The rows match because the CSV is in stream order and Flink reads a CSV file as one
split (one reader), whose order the shuffle by name keeps; the harness's check would show it otherwise."""

from __future__ import annotations

import argparse
import json
import sys
import time
import traceback
from pathlib import Path
from typing import Any, Dict

sys.path.insert(0, str(Path(__file__).resolve().parent))  # flink_dialect, beside this file
from flink_dialect import FLINK_ORDER, WORKLOADS, digest, query  # noqa: E402

RESULT_MARKER = "FLINK_PEER_RESULT "
COLUMNS = "event_type STRING, id BIGINT, name STRING, volume BIGINT, price DOUBLE, stock_time BIGINT"


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    p.add_argument("--csv", required=True, help="the trace, with its header line, sorted in stream order")
    p.add_argument("--workload", required=True, choices=list(WORKLOADS) + ["read"])
    p.add_argument("--mode", required=True, choices=["batch", "streaming"])
    p.add_argument("--parallelism", type=int, default=2)
    p.add_argument("--runs", type=int, default=3, help="timed runs after the warm-up")
    p.add_argument("--collect", action="store_true", help="also one run into a collecting sink: rows and digest")
    return p.parse_args()


def environment(mode: str, parallelism: int):
    """A TableEnvironment in the mode, with the source table R and the view S (R without its header line)."""
    from pyflink.table import EnvironmentSettings, TableEnvironment

    settings = EnvironmentSettings.in_batch_mode() if mode == "batch" else EnvironmentSettings.in_streaming_mode()
    t = TableEnvironment.create(settings)
    conf = t.get_config()
    conf.set("parallelism.default", str(parallelism))
    conf.set("table.local-time-zone", "UTC")
    conf.set("execution.batch.adaptive.auto-parallelism.enabled", "false")
    conf.set("pipeline.name", "spark-cer-bench")
    return t


def create_tables(t, mode: str, csv: str) -> None:
    # Flink's CSV format has no option to skip a header line: with ignore-parse-errors the header is read as a row of
    # NULLs, which the view drops. The time is computed on a non-NULL value so that the watermark, assigned in the
    # source before the view's filter, never meets a NULL (Flink fails the job on a NULL rowtime).
    watermark = ", WATERMARK FOR ts AS ts - INTERVAL '0.001' SECOND" if mode == "streaming" else ""
    t.execute_sql(f"""CREATE TEMPORARY TABLE R ({COLUMNS}, ts AS TO_TIMESTAMP_LTZ(COALESCE(stock_time, 0), 3)
                      {watermark}) WITH ('connector' = 'filesystem', 'path' = '{csv}', 'format' = 'csv',
                      'csv.ignore-parse-errors' = 'true')""")
    t.execute_sql("CREATE TEMPORARY VIEW S AS SELECT * FROM R WHERE stock_time IS NOT NULL")


def statement(workload: str) -> str:
    if workload == "read":
        return "SELECT event_type, id, name, volume, price, stock_time FROM S"
    return query(workload, "S", FLINK_ORDER)


def timed_run(t, sql: str, n: int) -> Dict[str, float]:
    """One run into a blackhole sink shaped like the statement's rows."""
    from pyflink.table import Schema, TableDescriptor

    table = t.sql_query(sql)
    sink = f"sink_{n}"
    t.create_temporary_table(
        sink,
        TableDescriptor.for_connector("blackhole")
        .schema(Schema.new_builder().from_row_data_type(table.get_schema().to_row_data_type()).build())
        .build(),
    )
    started = time.perf_counter()
    result = table.execute_insert(sink)
    job = result.get_job_client().get_job_execution_result().result()
    wall = time.perf_counter() - started
    t.drop_temporary_table(sink)
    return {"wall": wall, "net": job.get_net_runtime() / 1000.0}


def collected(t, sql: str) -> Dict[str, Any]:
    """The rows through to_pandas (Arrow batches: Python's row-by-row collect takes minutes for 10^5 rows)."""
    started = time.perf_counter()
    frame = t.sql_query(sql).to_pandas()
    frame = frame.astype(object).where(frame.notna(), None)  # NULL as None, not a float NaN
    n, h = digest(frame.itertuples(index=False, name=None))
    return {"rows": n, "digest": h, "collect_wall": time.perf_counter() - started}


def error_line(e: BaseException) -> str:
    """The innermost cause Flink gives (its exceptions nest the reason under many 'Caused by')."""
    lines = [x.strip() for x in str(e).splitlines() if x.strip()]
    causes = [x for x in lines if x.startswith("Caused by:")]
    return (causes[-1] if causes else lines[0] if lines else type(e).__name__)[:400]


def main() -> None:
    a = parse_args()
    out: Dict[str, Any] = {"workload": a.workload, "mode": a.mode, "parallelism": a.parallelism}
    try:
        import pyflink.version

        out["flink"] = pyflink.version.__version__
        started = time.perf_counter()
        t = environment(a.mode, a.parallelism)
        create_tables(t, a.mode, str(Path(a.csv).resolve()))
        out["jvm_start"] = time.perf_counter() - started
        sql = statement(a.workload)
        out["statement"] = " ".join(sql.split())
        out["warmup"] = timed_run(t, sql, 0)
        out["runs"] = [timed_run(t, sql, i + 1) for i in range(a.runs)]
        if a.collect:
            out.update(collected(t, sql))
    except Exception as e:  # noqa: BLE001 - the harness records the failure
        traceback.print_exc(file=sys.stderr)
        out["error"] = error_line(e)
    print(RESULT_MARKER + json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
