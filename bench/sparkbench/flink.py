"""Flink SQL's MATCH_RECOGNIZE, the peer a Spark user would otherwise pick, on recognize.py's stock workloads:
each workload in Flink's batch and streaming modes, run by bench/sparkbench/flink_peer.py in a virtual environment of
its own (bench/.flink-venv, apache-flink as pinned in bench/flink-requirements.txt, made here on first use so that
the project's .venv stays small), on the CSV of the trace that the engine's runner reads (the same rows as Spark's
parquet, in stream order), at Spark's parallelism. Its rows are checked against spark-cer running Flink's clause
(flink_dialect.py) on the same table."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import List, Optional, Tuple

from .data import data_paths
from .flink_dialect import SPARK_ORDER, digest, query
from .record import Result, key
from .runs import Bench
from .workloads import REPO, Workload

VENV = REPO / "bench" / ".flink-venv"
REQUIREMENTS = REPO / "bench" / "flink-requirements.txt"
PEER = Path(__file__).resolve().with_name("flink_peer.py")
MODES = ("batch", "streaming")
READ = Workload("read", "read", query="(Flink reading the CSV into its blackhole sink, no pattern)", order="")
CLAUSE = "spark-cer, Flink's clause"  # the system whose rows Flink's are checked against
RESULT_MARKER = "FLINK_PEER_RESULT "  # as flink_peer.py prints it (that module imports pyflink: not imported here)


def system(mode: str) -> str:
    return f"flink-{mode}"


def flink_python() -> Tuple[Optional[Path], str]:
    """The Python of bench/.flink-venv, made or brought up to bench/flink-requirements.txt first; (None, why) when
    it cannot be (no Java, no registry)."""
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        return None, "no Java (PyFlink needs java on PATH or JAVA_HOME)"
    python = VENV / "bin" / "python"
    stamp = VENV / ".installed"
    wanted = REQUIREMENTS.read_text()
    if python.exists() and stamp.exists() and stamp.read_text() == wanted:
        return python, ""
    print(f"  making {VENV.relative_to(REPO)} from {REQUIREMENTS.relative_to(REPO)} (once; about 850 MB)", flush=True)
    try:
        if not python.exists():
            subprocess.run(
                [sys.executable, "-m", "venv", str(VENV)], check=True, capture_output=True, text=True, timeout=300
            )
        subprocess.run(
            [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", "-r", str(REQUIREMENTS)],
            check=True,
            capture_output=True,
            text=True,
            timeout=1800,
        )
    except subprocess.CalledProcessError as e:
        last = (e.stderr or e.stdout or "").strip().splitlines()
        return None, f"could not make {VENV.relative_to(REPO)}: {last[-1] if last else e}"[:300]
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, f"could not make {VENV.relative_to(REPO)}: {e}"[:300]
    stamp.write_text(wanted)
    return python, ""


def run_peer(b: Bench, python: Path, w: Workload, mode: str, scale: int, parallelism: int, collect: bool) -> Result:
    """One flink_peer.py process: JVM start, warm-up, --repeat timed runs into the blackhole sink, then (collect)
    the rows. The Result's time is the best net runtime (the job alone, as Flink reports it); the wall times
    (submission to end, with planning and the job's local cluster), the warm-up and the JVM's start are extras."""
    csv = data_paths(b.cache, scale)[1]
    log = b.cache / "flink" / f"{w.name}-{mode}-x{scale}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    command = [
        str(python),
        str(PEER),
        "--csv",
        str(csv),
        "--workload",
        w.name,
        "--mode",
        mode,
        "--parallelism",
        str(parallelism),
        "--runs",
        str(b.args.repeat),
    ] + (["--collect"] if collect else [])
    r = Result(events=b.rec.events.get(scale))
    try:
        p = subprocess.run(command, capture_output=True, text=True, timeout=b.args.flink_timeout)
    except subprocess.TimeoutExpired as e:
        log.write_text(_text(e.stderr))
        # an error, not a timeout: the limit is the whole process's, no lower bound on one run
        r.status, r.message = "error", f"killed after {b.args.flink_timeout:.0f} s (the whole process; log {log})"
        return r
    log.write_text(p.stderr)
    line = next((x for x in reversed(p.stdout.splitlines()) if x.startswith(RESULT_MARKER)), None)
    if line is None:
        r.status, r.message = "error", f"no result (exit {p.returncode}; log {log})"
        return r
    out = json.loads(line[len(RESULT_MARKER) :])
    if "error" in out:
        r.status, r.message = "error", out["error"]
    r.runs = [run["net"] for run in out.get("runs", [])]
    r.seconds = min(r.runs) if r.runs and r.ok else None
    r.rows = out.get("rows")
    r.extra.update(
        {
            "wall": [run["wall"] for run in out.get("runs", [])],
            "warmup": out.get("warmup"),
            "jvm_start": out.get("jvm_start"),
            "digest": out.get("digest"),
            "flink": out.get("flink"),
            "parallelism": parallelism,
            "statement": out.get("statement"),
            "load1": os.getloadavg()[0],
        }
    )
    return r


def _text(data) -> str:
    return data.decode(errors="replace") if isinstance(data, bytes) else (data or "")


def clause_rows(b: Bench, w: Workload, scale: int) -> Result:
    """spark-cer's rows for Flink's clause on the same table: the count and digest Flink's must equal."""
    status, value, seconds, message = b.guarded(
        lambda: digest(tuple(row) for row in b.spark.sql(query(w.name, "S", SPARK_ORDER)).collect()), b.args.cer_timeout
    )
    r = Result(
        status=status, message=message if message else "rows for the check, not timed", events=b.rec.events.get(scale)
    )
    if status == "ok":
        r.rows, r.extra["digest"] = value
    return r


def run_flink_phase(b: Bench, a: argparse.Namespace, workloads: List[Workload], scale: int) -> None:
    """Every workload (and Flink's reading alone) in both modes, one process each after spark-cer's runs; each
    workload's rows checked against spark-cer on Flink's clause. Skipped, with the reason recorded, under --no-flink
    or when Flink's environment cannot be made."""
    python, why = (None, "--no-flink") if a.no_flink else flink_python()
    if python is None:
        print(f"  Flink SQL peer skipped: {why}", flush=True)
        for w in workloads + [READ]:
            for mode in MODES:
                b.rec.results[key(system(mode), w, scale)] = Result(status="skipped", message=f"skipped ({why})")
        return
    parallelism = b.spark.sparkContext.defaultParallelism  # local[n]: n
    for w in workloads:
        b.rec.results[key(CLAUSE, w, scale)] = mine = clause_rows(b, w, scale)
        b.show(CLAUSE, w, scale, mine)
    peers = [(w, mode) for w in workloads + [READ] for mode in MODES]
    for n, (w, mode) in enumerate(peers, 1):
        b.progress(f"Flink {n}/{len(peers)}", system(mode), w, scale)
        r = run_peer(b, python, w, mode, scale, parallelism, collect=w is not READ)
        b.rec.results[key(system(mode), w, scale)] = r
        b.show(system(mode), w, scale, r)
        mine = b.rec.get(CLAUSE, w, scale)
        if not r.ok:
            b.rec.fail(f"Flink {mode}, {w.name} at x{scale}: {r.status} {r.message}")
        elif mine and mine.ok and (r.rows, r.extra.get("digest")) != (mine.rows, mine.extra.get("digest")):
            b.rec.fail(
                f"Flink {mode}, {w.name} at x{scale}: {r.rows} rows (digest {r.extra.get('digest')}), "
                f"spark-cer on Flink's clause {mine.rows} (digest {mine.extra.get('digest')})"
            )
