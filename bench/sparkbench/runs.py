"""How one thing is measured: the engine alone (its runner in a JVM of its own), spark-cer, plain SQL and the floor
in a local SparkSession, each run under a timeout and repeated in interleaved rounds."""

from __future__ import annotations

import argparse
import hashlib
import itertools
import os
import platform
import re
import shutil
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

from .data import data_paths
from .record import Record, Result, key
from .workloads import COLUMNS, RANGE_SPLIT, REPO, Workload, partition_keys


@dataclass
class Task:
    system: str
    w: Workload
    scale: int
    make_df: Callable[[], Any]
    timeout: float
    # observe: the rows written to Spark's noop sink, their count and id checksum observed in the same pass;
    # write: the noop write alone (the floor); collect: the first column of the first row (a count in SQL)
    action: str = "observe"
    metrics: bool = False
    skip: Optional[Callable[[], Optional[Result]]] = None  # at warm-up: a Result to record instead of running
    check: Optional[Callable[[], None]] = None  # after a successful warm-up: inspects the run just made
    # the fewest runs kept even when the warm-up is longer than --long: a baseline whose one run varies too much
    # for the goal that reads it
    least_runs: int = 1


class Bench:
    def __init__(self, args: argparse.Namespace):
        self.args = args
        self.cache = Path(args.cache)
        self.rec = Record(args=args)
        self.spark = None
        self.engine_cp = ""
        self.jar = ""
        self.jar_source = ""
        self.jar_sha = ""
        self.group = ""  # the job group of the last guarded run
        self._ids = itertools.count()
        self.started = time.perf_counter()

    # -- snapshots of what is measured: the lead may rebuild the jar while this runs -------------------------

    def snapshot(self) -> None:
        import spark_cer

        snap = self.cache / "snapshot"
        if snap.exists():
            shutil.rmtree(snap)
        snap.mkdir(parents=True)
        jar = Path(spark_cer.jar_path())
        self.jar = str(snap / "spark-cer.jar")
        shutil.copy2(jar, self.jar)
        self.jar_source = str(jar)
        self.jar_sha = hashlib.sha256(Path(self.jar).read_bytes()).hexdigest()[:16]
        os.environ["SPARK_CER_JAR"] = self.jar
        classpath = (REPO / "jvm" / "engine" / "target" / "engine-classpath.txt").read_text().strip().split(":")
        copied = []
        for i, entry in enumerate(classpath):
            p = Path(entry)
            if p.is_dir():
                target = snap / f"engine-classes-{i}"
                shutil.copytree(p, target)
                copied.append(str(target))
            else:
                copied.append(entry)
        tool = snap / "engine-tool"
        subprocess.run(
            ["javac", "-cp", ":".join(copied), "-d", str(tool), str(REPO / "bench" / "engine" / "EngineRepeat.java")],
            check=True,
        )
        self.engine_cp = ":".join([str(tool)] + copied)

    def machine_facts(self) -> List[Tuple[str, str]]:
        """The machine, the software and the jar measured, for the report's header; collected at the end of the
        run (it calls java and git), never when the report is rebuilt."""
        import pyspark

        cpu = "?"
        try:
            for line in Path("/proc/cpuinfo").read_text().splitlines():
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
        except OSError:
            pass
        mem = "?"
        try:
            kb = int(re.search(r"MemTotal:\s+(\d+)", Path("/proc/meminfo").read_text())[1])
            mem = f"{kb / 1024 / 1024:.1f} GiB"
        except (OSError, TypeError):
            pass
        java = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr.splitlines()
        try:
            import matplotlib

            mpl = matplotlib.__version__
        except ImportError:
            mpl = "not installed"
        git = subprocess.run(
            ["git", "-C", str(REPO), "log", "-1", "--format=%h %s"], capture_output=True, text=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(REPO), "status", "--porcelain", "jvm", "python"], capture_output=True, text=True
        ).stdout.strip()
        return [
            ("CPU", f"{cpu}, {os.cpu_count()} cores"),
            ("memory", mem),
            ("OS", platform.platform()),
            ("Java", java[0] if java else "?"),
            ("Spark (PySpark)", pyspark.__version__),
            ("Python", platform.python_version()),
            ("matplotlib", mpl),
            ("commit", git[:100] + (" (jvm/ or python/ modified in the work tree)" if dirty else "")),
            ("spark-cer jar", f"{self.jar_source} (sha256 {self.jar_sha}…), copied before the run"),
        ]

    # -- the engine alone ------------------------------------------------------------------------------------

    def engine(self, w: Workload, scale: int, passes: int) -> Result:
        k = key("engine", w, scale)
        if k in self.rec.results:
            return self.rec.results[k]
        query = self.cache / "queries" / f"{w.name.replace(' ', '_')}.ceql"
        query.parent.mkdir(parents=True, exist_ok=True)
        query.write_text(w.text())
        _, csv = data_paths(self.cache, scale)
        r = Result(events=self.rec.events.get(scale))
        started = time.perf_counter()
        try:
            p = subprocess.run(
                [
                    "java",
                    f"-Xmx{self.args.engine_heap}",
                    "-cp",
                    self.engine_cp,
                    "EngineRepeat",
                    str(1 + passes),
                    "--query",
                    str(query),
                    "--csv",
                    str(csv),
                    "--quiet",
                ],
                capture_output=True,
                text=True,
                timeout=self.args.engine_timeout,
            )
        except subprocess.TimeoutExpired:
            p = None
            r.status, r.message = "timeout", f"> {self.args.engine_timeout:.0f} s"
        if p is not None:
            r.extra["wall"] = time.perf_counter() - started
            reports = re.findall(r"pass (\d+): events: (\d+), matches: (\d+), seconds: ([\d.]+)", p.stderr)
            peaks = re.findall(r"peak active states (\d+), peak tECS nodes (\d+)", p.stderr)
            if p.returncode != 0 or not reports:
                r.status = "error"
                r.message = (p.stderr.strip().splitlines() or ["no output"])[-1][:300]
            else:
                r.extra["warmup"] = float(reports[0][3])
                r.runs = [float(x[3]) for x in reports[1:]] or [float(reports[0][3])]
                r.events, r.rows = int(reports[-1][1]), int(reports[-1][2])
                if len({x[2] for x in reports}) > 1:
                    self.rec.fail(f"engine alone, {w.name} at x{scale}: passes disagree ({[x[2] for x in reports]})")
                if peaks:
                    r.extra["peak_states"] = max(int(x[0]) for x in peaks)
                    r.extra["peak_nodes"] = max(int(x[1]) for x in peaks)
        best = min(r.runs) if r.runs else None
        r.extra["load1"] = os.getloadavg()[0]
        r.seconds = best
        if r.status != "ok":
            self.rec.fail(f"engine alone, {w.name} at x{scale}: {r.status} {r.message}")
        self.rec.results[k] = r
        self.show("engine", w, scale, r)
        return r

    # -- Spark -----------------------------------------------------------------------------------------------

    def start_spark(self) -> None:
        import spark_cer

        conf = {
            "spark.driver.memory": self.args.driver_memory,
            "spark.ui.enabled": "false",
            "spark.ui.showConsoleProgress": "false",
            "spark.sql.session.timeZone": "UTC",
            RANGE_SPLIT: "true",
        }
        self.spark = spark_cer.session(app_name="spark-cer-bench", master="local[2]", **conf)
        self.spark.sparkContext.setLogLevel("ERROR")

    def view(self, scale: Optional[int]) -> None:
        """Makes the table S the data at this scale (None: the slice of the first events)."""
        path = self.cache / "data" / "slice.parquet" if scale is None else data_paths(self.cache, scale)[0]
        self.spark.read.parquet(str(path)).createOrReplaceTempView("S")

    def guarded(self, fn: Callable[[], Any], timeout: float) -> Tuple[str, Any, float, str]:
        """fn() under a job group that a timer cancels after `timeout` s; (status, value, seconds, message)."""
        sc = self.spark.sparkContext
        self.group = group = f"bench-{next(self._ids)}"
        sc.setJobGroup(group, group, interruptOnCancel=True)
        fired = threading.Event()

        def cancel() -> None:
            fired.set()
            sc.cancelJobGroup(group)

        timer = threading.Timer(timeout, cancel)
        started = time.perf_counter()
        timer.start()
        try:
            value = fn()
            return "ok", value, time.perf_counter() - started, ""
        except Exception as e:  # noqa: BLE001 - a failed or cancelled run is a result
            seconds = time.perf_counter() - started
            if fired.is_set():
                time.sleep(2)
                return "timeout", None, seconds, f"> {timeout:.0f} s (cancelled)"
            return "error", None, seconds, error_text(e)
        finally:
            timer.cancel()
            sc.setLocalProperty("spark.jobGroup.id", None)
            # setJobGroup also set the job description, which names SQL executions (executed_plan() looks for
            # it): later unguarded runs must not take this run's name
            sc.setLocalProperty("spark.job.description", None)

    def run_once(
        self, make_df: Callable[[], Any], timeout: float, action: str
    ) -> Tuple[str, float, Optional[int], Optional[int], str]:
        """One timed action (see Task.action); (status, seconds, rows, checksum, message)."""
        from pyspark.sql import Observation
        from pyspark.sql import functions as F

        def go():
            df = make_df()
            if action == "collect":
                return int(df.collect()[0][0] or 0), None
            if action == "write":
                df.write.format("noop").mode("overwrite").save()
                return None, None
            obs = Observation(f"obs_{next(self._ids)}")
            df.observe(
                obs,
                F.count(F.lit(1)).alias("rows"),
                F.expr(f"bit_xor(xxhash64({', '.join(self.id_columns(df))}))").alias("h"),
            ).write.format("noop").mode("overwrite").save()
            got = obs.get
            return got["rows"], got["h"]

        status, value, seconds, message = self.guarded(go, timeout)
        rows, h = value if value else (None, None)
        return status, seconds, rows, h, message

    @staticmethod
    def id_columns(df) -> List[str]:
        """The ids of every matched event: v.id for a struct variable, the array of ids for a list variable; for
        rows of flat columns (MATCH_RECOGNIZE's measures, plain SQL's), every column."""
        from pyspark.sql.types import ArrayType, StructType

        out = []
        for f in df.schema.fields:
            if isinstance(f.dataType, StructType):
                out.append(f"`{f.name}`.id")
            elif isinstance(f.dataType, ArrayType):
                out.append(f"transform(`{f.name}`, e -> e.id)")
        return out or [f"`{f.name}`" for f in df.schema.fields]

    def measure_many(self, tasks: List[Task]) -> List[Result]:
        """Each task's warm-up run in order, then `repeat` rounds in which every task runs once (interleaved, so
        that a change in the machine's load hits all of them alike); the best run of each is kept. A warm-up
        longer than --long is the only run, unless the task asks for more (`least_runs`); a failed or cancelled run
        ends the task."""
        pending: List[Tuple[Task, Result, int]] = []  # with the timed rounds each takes
        keys = []
        for n, t in enumerate(tasks, 1):
            k = key(t.system, t.w, t.scale)
            keys.append(k)
            if k in self.rec.results or any(k == key(p.system, p.w, p.scale) for p, _, _ in pending):
                continue
            if t.skip:
                inferred = t.skip()
                if inferred is not None:
                    self.rec.results[k] = inferred
                    print(f"  {t.system:<14} {t.w.name:<26} x{t.scale:<3} {inferred.message}", flush=True)
                    continue
            r = Result(events=self.rec.events.get(t.scale))
            self.progress(f"warm-up {n}/{len(tasks)}", t.system, t.w, t.scale)
            status, seconds, rows, h, message = self.run_once(t.make_df, t.timeout, t.action)
            r.extra["warmup"] = seconds
            r.status, r.message, r.rows, r.checksum = status, message, rows, h
            if status == "ok" and t.metrics:
                r.extra.update(self.cer_metrics())
            if status == "ok" and t.check:
                t.check()
            long = seconds > self.args.long
            if status != "ok" or (long and t.least_runs <= 1):
                r.runs = [seconds] if status == "ok" else []
                self._finish(t, r)
            else:
                # a long warm-up counts among the runs of a task that asks for more than one
                r.runs = [seconds] if long else []
                pending.append((t, r, t.least_runs - 1 if long else self.args.repeat))
        total = max((rounds for _, _, rounds in pending), default=0)
        for i in range(total):
            timed = [(t, r) for t, r, rounds in pending if r.status == "ok" and i < rounds]
            for n, (t, r) in enumerate(timed, 1):
                self.progress(f"round {i + 1}/{total}, {n}/{len(timed)}", t.system, t.w, t.scale)
                status, seconds, rows, h, message = self.run_once(t.make_df, t.timeout, t.action)
                if status != "ok":
                    r.status, r.message = status, message
                    continue
                r.runs.append(seconds)
                if (rows, h) != (r.rows, r.checksum):
                    self.rec.fail(f"{t.system}, {t.w.name} at x{t.scale}: two runs differ ({r.rows} vs {rows} rows)")
                if t.metrics:
                    r.extra.update(self.cer_metrics())
        for t, r, _ in pending:
            self._finish(t, r)
        return [self.rec.results[k] for k in keys]

    def progress(self, step: str, system: str, w: Workload, scale: int) -> None:
        """What runs now, and how far its phase is: a line before each run, so that a long bench is never silent
        (a task's result comes once all its runs are done)."""
        elapsed = time.perf_counter() - self.started
        print(f"  .. {step:<20} {system:<14} {w.name:<26} x{scale:<3} ({elapsed / 60:.1f} min in)", flush=True)

    def _finish(self, t: Task, r: Result) -> None:
        r.seconds = min(r.runs) if r.runs and r.status == "ok" else None
        if r.status == "error":
            self.rec.fail(f"{t.system}, {t.w.name} at x{t.scale}: {r.message}")
        r.extra["load1"] = os.getloadavg()[0]
        self.rec.results[key(t.system, t.w, t.scale)] = r
        self.show(t.system, t.w, t.scale, r)

    def _status_store(self):
        return self.spark._jsparkSession.sharedState().statusStore()

    def _polls(self, count: int):
        """The last `count` SQL executions in Spark's status store, newest first, once per poll: the store is fed
        by the listener bus, asynchronously, so a caller that does not find what it looks for polls again."""
        store = self._status_store()
        for _ in range(20):
            n = store.executionsCount()
            execs = store.executionsList(max(0, n - count), min(count, n))
            yield store, [execs.apply(i) for i in range(execs.size() - 1, -1, -1)]
            time.sleep(0.1)

    def cer_metrics(self) -> Dict[str, Any]:
        """The CerExec metrics of the last SQL execution (events read, over all tasks; peak tECS nodes and active
        states per task, the largest task)."""
        found: Dict[str, Any] = {}
        for store, executions in self._polls(3):
            for e in executions:
                values = store.executionMetrics(e.executionId())
                ms = e.metrics()
                for j in range(ms.size()):
                    m = ms.apply(j)
                    v = values.get(m.accumulatorId())
                    if not v.isDefined():
                        continue
                    text = v.get().strip()
                    if m.name() == "number of events read" and re.fullmatch(r"[\d,]+", text):
                        found["spark_events"] = found.get("spark_events", 0) + int(text.replace(",", ""))
                    elif m.name().startswith("peak tECS nodes") or m.name().startswith("peak active states"):
                        # an average metric shows "total (min, med, max (stage ...))"; one task its value alone
                        nums = re.search(r"\(([\d,.]+), ([\d,.]+), ([\d,.]+) \(", text)
                        peak = nums[3] if nums else text if re.fullmatch(r"[\d,.]+", text) else None
                        if peak is not None:
                            k = "spark_peak_nodes" if "tECS" in m.name() else "spark_peak_states"
                            found[k] = max(found.get(k, 0), int(float(peak.replace(",", ""))))
                if found:
                    return found
        return found

    def executed_plan(self) -> str:
        """The physical plan of the last guarded run's SQL execution (the execution's description is the run's
        job group); "" when it is not found."""
        for _, executions in self._polls(5):
            for e in executions:
                if e.description() == self.group:
                    # only the physical plan: the parsed and analyzed plans of the extended format keep every Sort
                    return e.physicalPlanDescription().split("== Physical Plan ==", 1)[-1].strip()
        return ""

    def cer_df(self, w: Workload):
        return lambda: self.spark.sql(w.text())

    def explain(self, w: Workload) -> str:
        """spark-cer's physical plan for the workload, or why Spark could not plan it."""
        try:
            df = self.spark.sql(w.text())
            return self.spark._jvm.PythonSQLUtils.explainString(df._jdf.queryExecution(), "simple")
        except Exception as e:  # noqa: BLE001 - the report shows it
            return f"(EXPLAIN failed: {error_text(e)})"

    # -- the floor: read, shuffle and sort as the query's plan does, and produce every sorted row ---------------

    def floor_task(self, kind: str, keys: Tuple[str, ...], scale: int) -> Task:
        """kind: single (one sorted partition, the plan of an unpartitioned query without range split),
        global (orderBy: a range-partitioned sort on every core), hash (repartition by the PARTITION BY keys and
        sort each partition). Timed as a bare noop write, nothing above the sort: under an aggregate (count()) the
        optimizer drops the sort (EliminateSorts) and prunes every column, leaving a parquet row count."""
        from pyspark.sql import functions as F

        sort = [F.col(k) for k in keys] + [F.col("stock_time"), F.desc("id")]

        def make():
            df = self.spark.table("S")
            if kind == "single":
                return df.repartition(1).sortWithinPartitions(*sort)
            if kind == "global":
                return df.orderBy(*sort)
            return df.repartition(*[F.col(k) for k in keys]).sortWithinPartitions(*sort)

        w = floor_workload(kind, keys)
        return Task(
            "floor",
            w,
            scale,
            make,
            self.args.cer_timeout,
            action="write",
            check=lambda: self.check_floor(f"{w.name}@x{scale}"),
        )

    def check_floor(self, name: str) -> None:
        """The floor's write as Spark executed it must still sort, and read every column: otherwise it measures
        less than the work every query's plan does. The plan is kept for the report."""
        plan = self.executed_plan()
        self.rec.plans[name] = plan
        if plan:
            schema = re.search(r"ReadSchema: struct<([^>]*)>", plan)
            read = {f.split(":")[0] for f in schema[1].split(",")} if schema else set()
            problems = [] if re.search(r"\bSort\b", plan) else ["no Sort in its executed plan"]
            problems += [f"column {c} not read" for c in COLUMNS if c not in read]
        else:
            problems = ["its execution was not found in Spark's status store: its sort and columns are unchecked"]
        if problems:
            self.rec.fail(f"the floor {name}: {'; '.join(problems)}")

    def floor_kinds(self, w: Workload, plan: str) -> List[Tuple[str, Tuple[str, ...]]]:
        """The floor matching spark-cer's plan: hash for PARTITION BY keys; else both a single sorted partition
        and a global sort (the faster of the two is the stricter floor)."""
        keys = tuple(partition_keys(w))
        if keys and "hashpartitioning" in plan and "__cer" not in plan:
            return [("hash", keys)]
        return [("single", keys), ("global", keys)]

    def show(self, system: str, w: Workload, scale: int, r: Result) -> None:
        tail = f"{r.seconds:.2f} s, {r.eps:,.0f} events/s" if r.ok and r.seconds else r.message
        rows = f"{r.rows:,} rows" if r.rows is not None else ""
        print(f"  {system:<14} {w.name:<26} x{scale:<3} {tail:<36} {rows}", flush=True)


def error_text(e: BaseException) -> str:
    """The line of a Spark error that says what went wrong (not py4j's "An error occurred while calling")."""
    lines = [line.strip() for line in str(e).splitlines() if line.strip()]
    for pattern in (r"INTERNAL_ERROR|SparkException: \[|AnalysisException|Caused by", r"Exception|Error"):
        hit = next((line for line in lines if re.search(pattern, line) and "An error occurred" not in line), None)
        if hit:
            return hit[:400]
    return (lines[0] if lines else type(e).__name__)[:400]


def floor_workload(kind: str, keys: Tuple[str, ...]) -> Workload:
    """The floor's results are keyed like a workload's: by kind and sort keys, shared by every query with them."""
    return Workload(f"floor:{kind}:{','.join(keys)}", "")
