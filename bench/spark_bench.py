"""
spark-cer against what a Spark user would do instead, on CORE's stock workload: bench/results/spark.md.

    .venv/bin/python bench/spark_bench.py [--scale 4] [--scales 1,4,16] [--repeat 3] [--timeout 120] [--quick]
    .venv/bin/python bench/spark_bench.py --report-only   # spark.md, correlated.md and the plots again, from the records
    .venv/bin/python bench/spark_bench.py --equality-only # equality correlation by PCEA: equality.md
    .venv/bin/python bench/spark_bench.py --recognize-only  # MATCH_RECOGNIZE and Flink SQL: recognize.md
    .venv/bin/python bench/spark_bench.py --recognize-only --no-flink  # the same without Flink
    make bench                                  # the same, after installing bench/requirements.txt

Every workload (sql/stocks/*.ceql: CORE's sequences S3..S24 with and without output, S3 with windows T..4T,
CORE's other-operator queries Q1..Q7, a PARTITION BY query, Kleene + LAST) is measured in the same run four ways:
(1) the engine alone (its command-line runner, one JVM per run), (2) spark-cer end to end in a local SparkSession
on 2 cores, (3) the same pattern written as plain Spark SQL (self-joins on the stream order with the window
condition), checked to return the same matches, (4) the floor: Spark reading the same data, shuffling and sorting
it by the query's keys, and producing every sorted row (a noop write). Larger inputs replay the one-day trace k
times, copy i shifted by i days (and its ids by i times the largest id + 1), written once to
bench/target/spark-bench/.

Writes bench/results/spark.json (every number), then bench/results/spark.md (tables, ratios, goals with
PASS/FAIL) and the PNG plots in bench/results/ from it. Timings compare systems within one run on this machine,
never assertions. The run takes about 25 minutes on 2 cores; --quick about 5. The harness is the package
bench/sparkbench/; this file is its command line.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import List, Optional

from sparkbench import correlated, equality, recognize
from sparkbench.data import data_paths, prepare, stock_csv
from sparkbench.phases import run_engine_phase, run_spark_phase
from sparkbench.plots import plots
from sparkbench.record import Record
from sparkbench.report import report
from sparkbench.runs import Bench
from sparkbench.workloads import CACHE, OPS, OPS_HEAVY, OPS_QUICK, REPO, RESULTS

sys.path.insert(0, str(REPO / "python"))  # spark_cer, imported where a run starts Spark


def parse_args(argv: List[str]) -> argparse.Namespace:
    """The arguments, settled: --quick applied, scales a sorted list of ints, ops the other-operator workloads."""
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument("--scale", type=int, default=4, help="trace copies for the sequence and window runs")
    parser.add_argument("--ops-scale", type=int, default=1, help="trace copies for the other-operator queries")
    parser.add_argument(
        "--scales",
        default="1,4,16,64",
        help="stream lengths (trace copies) for memory and scaling; x64 is about 14 M events",
    )
    parser.add_argument("--repeat", type=int, default=3, help="timed runs after the warm-up (best is kept)")
    parser.add_argument(
        "--engine-passes",
        type=int,
        default=2,
        help="timed passes of the engine alone after a warm-up pass, in one JVM (best is kept)",
    )
    parser.add_argument("--timeout", type=float, default=120, help="seconds before a plain SQL run is cancelled")
    parser.add_argument(
        "--growth-timeout",
        type=float,
        default=600,
        help="seconds before a plain SQL key join of the growth runs is cancelled",
    )
    parser.add_argument("--cer-timeout", type=float, default=900, help="the same for spark-cer and the floor")
    parser.add_argument("--engine-timeout", type=float, default=900, help="the same for the engine's runner")
    parser.add_argument("--long", type=float, default=15, help="a warm-up longer than this is the only run")
    parser.add_argument("--heavy", action="store_true", help="also Q4 and Q7 without LIMIT (87 M, 30 M matches)")
    parser.add_argument("--quick", action="store_true", help="x1, scales 1,2, one timed run, 20 s timeout")
    parser.add_argument(
        "--csv", help="the stock trace (default data/stocks.csv.gz, or an uncompressed copy beside the checkout)"
    )
    parser.add_argument("--cache", default=str(CACHE), help="where the replayed data is written once")
    parser.add_argument("--driver-memory", default="8g")
    parser.add_argument("--engine-heap", default="12g", help="-Xmx of the engine's runner")
    parser.add_argument(
        "--report-only",
        action="store_true",
        help="run nothing: rebuild spark.md and the plots from bench/results/spark.json, and "
        "correlated.md from the newer of spark.json and correlated.json",
    )
    parser.add_argument(
        "--correlated-only",
        action="store_true",
        help="only the correlated workloads: bench/results/correlated.json and .md",
    )
    parser.add_argument(
        "--equality-only",
        action="store_true",
        help="only equality correlation by PCEA, on a synthetic stream of 10 M account "
        "events and the stock trace: bench/results/equality.json, .md and .png",
    )
    parser.add_argument(
        "--recognize-only",
        action="store_true",
        help="only MATCH_RECOGNIZE, on the stock trace and pathological patterns, with "
        "Flink SQL as the peer: bench/results/recognize.json and .md",
    )
    parser.add_argument(
        "--no-flink",
        action="store_true",
        help="leave out the Flink SQL peer of --recognize-only (and the making of bench/.flink-venv)",
    )
    parser.add_argument(
        "--flink-timeout",
        type=float,
        default=1800,
        help="seconds before one Flink peer process (JVM start, warm-up, timed runs, rows) is killed",
    )
    parser.add_argument("--prepare-only", action="store_true", help=argparse.SUPPRESS)
    a = parser.parse_args(argv)
    if a.quick:
        a.scale, a.ops_scale, a.scales, a.repeat, a.timeout, a.engine_passes = 1, 1, "1,2", 1, 20, 1
        a.growth_timeout = 20
    a.scales = sorted({int(s) for s in str(a.scales).split(",")})
    a.ops = (OPS_QUICK if a.quick else OPS) + (OPS_HEAVY if a.heavy else [])
    return a


def publish(rec: Record, correlated_rec: Optional[Record] = None) -> None:
    """The plots, then spark.md (which lists the plots that exist), and correlated.md (from `correlated_rec`, else
    from the same run)."""
    try:
        plots(rec)
    except Exception as e:  # noqa: BLE001 - the report is still written
        rec.fail(f"plots: {e}")
    report(rec)
    correlated.report(correlated_rec or rec)


def publish_equality(rec: Record) -> None:
    """equality.png, then equality.md (which shows the plot when it exists)."""
    try:
        equality.plot(rec)
    except Exception as e:  # noqa: BLE001 - the report is still written
        rec.fail(f"equality plot: {e}")
    equality.report(rec)


def recorded(path: Path) -> Record:
    rec = Record.read(path)
    if rec.args is None:  # recorded before the record kept the arguments: they are the command's
        rec.args = parse_args(shlex.split(rec.command)[2:])
    return rec


def latest_correlated(rec: Record) -> Record:
    """The record correlated.md comes from: the newer of a full run's and a --correlated-only run's."""
    path = RESULTS / "correlated.json"
    if not path.exists():
        return rec
    other = recorded(path)
    return other if other.started and (rec.started is None or other.started > rec.started) else rec


def main() -> None:
    a = parse_args(sys.argv[1:])
    if a.report_only:
        rec = recorded(RESULTS / "spark.json")
        newer = latest_correlated(rec)
        publish(rec, newer)
        print(
            f"wrote {RESULTS / 'spark.md'} and the plots from spark.json (the run of `{rec.command}`), and "
            f"correlated.md from the run of `{newer.command}`"
        )
        if (RESULTS / "equality.json").exists():
            publish_equality(recorded(RESULTS / "equality.json"))
            print(f"wrote {RESULTS / 'equality.md'} and equality.png from equality.json")
        if (RESULTS / "recognize.json").exists():
            recognize.report(recorded(RESULTS / "recognize.json"))
            print(f"wrote {RESULTS / 'recognize.md'} from recognize.json")
        return
    source = stock_csv(a.csv)
    needed = sorted(set(a.scales) | {a.scale, a.ops_scale, correlated.GROWTH_SCALE} | set(correlated.MEMORY_SCALES))
    if a.correlated_only:
        needed = sorted({a.scale, correlated.GROWTH_SCALE} | set(correlated.MEMORY_SCALES))
    if a.equality_only:
        needed = [a.scale if a.quick else equality.STOCK_SCALE]
    if a.recognize_only:
        needed = [recognize.stock_scale(a)]
    if a.prepare_only:
        prepare(source, Path(a.cache), needed)
        return

    b = Bench(a)
    b.rec.command = " ".join([".venv/bin/python", "bench/spark_bench.py"] + sys.argv[1:])
    b.rec.started = dt.datetime.now(dt.timezone.utc)
    t0 = time.perf_counter()
    b.rec.load.append(("start", tuple(round(x, 2) for x in os.getloadavg())))
    print(f"spark-cer benchmark: {b.rec.command}\nsource {source}; scales {needed}; cache {a.cache}", flush=True)
    print("== data (replayed trace, written once)", flush=True)
    subprocess.run(
        [
            sys.executable,
            __file__,
            "--prepare-only",
            "--cache",
            a.cache,
            "--csv",
            str(source),
            "--scales",
            ",".join(map(str, needed)),
            "--scale",
            str(a.scale),
            "--ops-scale",
            str(a.ops_scale),
        ],
        check=True,
    )
    b.snapshot()
    for k in needed:  # events per scale, from the CSV the engine reads (Spark recounts them later)
        with open(data_paths(Path(a.cache), k)[1], "rb") as f:
            b.rec.events[k] = sum(1 for _ in f) - 1
    if a.correlated_only or a.equality_only or a.recognize_only:
        b.start_spark()
        for k in needed:
            b.view(k)
            b.rec.events[k] = b.spark.table("S").count()
    else:
        run_engine_phase(b, a)
        run_spark_phase(b, a)
    if a.equality_only:
        equality.run_equality_phase(b, a)
    elif a.recognize_only:
        recognize.run_recognize_phase(b, a)
    else:
        correlated.run_correlated_phase(b, a)
    b.spark.stop()
    b.rec.load.append(("end", tuple(round(x, 2) for x in os.getloadavg())))
    b.rec.elapsed = time.perf_counter() - t0
    b.rec.machine = b.machine_facts()
    RESULTS.mkdir(parents=True, exist_ok=True)
    if a.recognize_only:
        b.rec.write(RESULTS / "recognize.json")
        recognize.report(b.rec)
        print(f"\nwrote {RESULTS / 'recognize.json'} and recognize.md ({b.rec.elapsed / 60:.1f} minutes)")
    elif a.equality_only:
        b.rec.write(RESULTS / "equality.json")
        publish_equality(b.rec)
        print(f"\nwrote {RESULTS / 'equality.json'}, equality.md and equality.png ({b.rec.elapsed / 60:.1f} minutes)")
    elif a.correlated_only:
        b.rec.write(RESULTS / "correlated.json")
        correlated.report(b.rec)
        print(f"\nwrote {RESULTS / 'correlated.json'} and correlated.md ({b.rec.elapsed / 60:.1f} minutes)")
    else:
        b.rec.write(RESULTS / "spark.json")  # first: a report that fails to build can be rebuilt with --report-only
        publish(b.rec)
        print(
            f"\nwrote {RESULTS / 'spark.json'}, spark.md, correlated.md and the plots ({b.rec.elapsed / 60:.1f} minutes)"
        )
    if b.rec.failures:
        print(f"\n{len(b.rec.failures)} FAILURE(S):\n" + "\n".join(f"  - {f}" for f in b.rec.failures))
        sys.exit(1)


if __name__ == "__main__":
    main()
