"""
spark-cer against what a Spark user would do instead, on CORE's stock workload: the report of issue 5.

    .venv/bin/python bench/spark_bench.py [--scale 4] [--scales 1,4,16] [--repeat 3] [--timeout 120] [--quick]
    make bench                                  # the same, after installing bench/requirements.txt

Every workload (sql/stocks/*.ceql: CORE's sequences S3..S24 with and without output, S3 with windows T..4T,
CORE's other-operator queries Q1..Q7, a PARTITION BY query, Kleene + LAST) is measured in the same run four ways:
(1) the engine alone (its command-line runner, one JVM per run), (2) spark-cer end to end in a local SparkSession
on 2 cores, (3) the same pattern written as plain Spark SQL (self-joins on the stream order with the window
condition), checked to return the same matches, (4) the floor: Spark reading the same data, shuffling and sorting
it by the query's keys, and counting. Larger inputs replay the one-day trace k times, each copy shifted by k days
(and its ids by k times the largest id), written once to bench/target/spark-bench/.

Writes bench/results/spark.md (tables, ratios, goals with PASS/FAIL), bench/results/spark.json (every number)
and the PNG plots in bench/results/. Timings compare systems within one run on this machine, never assertions.
The run takes about 25 minutes on 2 cores; --quick about 5.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import itertools
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python"))

SQL_DIR = REPO / "sql" / "stocks"
RESULTS = REPO / "bench" / "results"
CACHE = REPO / "bench" / "target" / "spark-bench"
SCHEMA = "event_type string, id long, name string, volume long, price double, stock_time long"
COLUMNS = ["event_type", "id", "name", "volume", "price", "stock_time"]
STREAM_ORDER = "ORDER BY stock_time, id DESC"  # appended to every query: time, then the file's order in a ms
DAY_MS = 86_400_000  # the trace spans 13 hours of one day; each replayed copy starts one day later
SLICE_EVENTS = 20_000  # the first events of the trace, for the exact comparison of match sets
RANGE_SPLIT = "spark.cer.rangeSplit.enabled"

T = "T = 10 s"


# ---------------------------------------------------------------------------------------------------------------
# Workloads

@dataclass(frozen=True)
class Workload:
    name: str  # shown in the report
    file: str  # sql/stocks/<file>.ceql
    limit: Optional[int] = None  # CEQL LIMIT n appended (CORE's "first thousand outputs per occurrence")

    def text(self) -> str:
        text = (SQL_DIR / f"{self.file}.ceql").read_text()
        text = text.rstrip() + "\n" + STREAM_ORDER + "\n"
        return text + (f"LIMIT {self.limit}\n" if self.limit else "")


def W(file: str, limit: Optional[int] = None) -> Workload:
    return Workload(file + (f" LIMIT {limit}" if limit else ""), file, limit)


SEQ_OUT = [W(f"s{n}") for n in (3, 6, 9, 12, 24)]
SEQ_NONE = [W(f"s{n}_none") for n in (3, 6, 9, 12, 24)]
WINDOW_NONE = [W("s3_none"), W("s3_none_x2"), W("s3_none_x3"), W("s3_none_x4")]
WINDOW_OUT = [W("s3"), W("s3_x2"), W("s3_x3"), W("s3_x4")]
OPS = [W("q1_seq4"), W("q2_seq4_filter"), W("q3_seq4_by_volume"), W("q4_or", 1000), W("q5_or_filter"),
       W("q6_or_by_volume"), W("q7_kleene", 1000), W("s3_by_name"), W("rising_last")]
OPS_HEAVY = [W("q4_or"), W("q7_kleene")]  # 87 M and 30 M matches on the one-day trace: --heavy only
OPS_QUICK = [W("q2_seq4_filter"), W("q3_seq4_by_volume"), W("q7_kleene", 1000), W("s3_by_name"), W("rising_last")]
SPLIT = [W("s3"), W("s3_none"), W("s3_none_x4")]
LENGTH = {"s3": 3, "s6": 6, "s9": 9, "s12": 12, "s24": 24}


# ---------------------------------------------------------------------------------------------------------------
# The plain Spark SQL formulation of a sequence query, derived from its .ceql file

@dataclass
class Var:
    name: str
    types: List[str]
    preds: List[str] = field(default_factory=list)


@dataclass
class SeqSpec:
    vars: List[Var]
    window: int
    partition: List[str]


class NoSql(Exception):
    """The query has no plain-SQL formulation here; the message says why."""


def parse_sequence(text: str) -> SeqSpec:
    """A CEQL query made of a sequence of single events (types or disjunctions of types), each filtered, with a
    window on stock_time and optionally PARTITION BY: what self-joins can express. Anything else raises NoSql."""
    body = " ".join(line.split("--")[0] for line in text.splitlines())
    body = " ".join(body.split())
    if re.search(r"\bLIMIT\b", body, re.I):
        raise NoSql("LIMIT n keeps the first n matches of each completing event in the engine's enumeration "
                    "order, which plain SQL does not define")
    if re.search(r"\bCONSUME BY\b", body, re.I):
        raise NoSql("CONSUME BY ANY discards partial matches as the stream is read: a sequential fold that "
                    "self-joins cannot express")
    strategy = re.match(r"SELECT\s+(ANY|NEXT|LAST|MAX|STRICT)\b", body, re.I)
    if strategy:
        raise NoSql(f"SELECT {strategy[1].upper()}: a selection strategy picks among the matches completed by "
                    "the same event under an order on valuations, which self-joins do not express")
    if re.search(r"\)\s*:?\+", body):
        raise NoSql("Kleene closure: a match binds any number of events (every subset of the candidates), "
                    "which a fixed number of self-joins cannot enumerate")
    m = re.match(r"SELECT\s+(?P<sel>.*?)\s+FROM\s+S\s+WHERE\s+\((?P<pat>.*?)\)\s*FILTER\s+(?P<filt>.*?)"
                 r"(?:\s+PARTITION BY\s+(?P<part>.*?))?\s+WITHIN\s+(?P<w>\d+)\s*\[stock_time\]\s*"
                 r"(?P<rest>.*)$", body, re.I)
    if not m:
        raise NoSql("not a filtered sequence with a window on stock_time")
    if m["sel"].strip() != "*":
        raise NoSql(f"SELECT {m['sel']}: a selection strategy picks among matches, which self-joins do not")
    variables: List[Var] = []
    for atom in m["pat"].split(";"):
        atom = atom.strip()
        if "+" in atom:
            raise NoSql("Kleene closure: a match binds any number of events (every subset of the candidates), "
                        "which a fixed number of self-joins cannot enumerate")
        a = re.fullmatch(r"\(?\s*([A-Z]+(?:\s+OR\s+[A-Z]+)*)\s*\)?\s+AS\s+(\w+)", atom, re.I)
        if not a:
            raise NoSql(f"pattern element {atom!r} is not a type or a disjunction of types")
        variables.append(Var(a[2], [t.upper() for t in re.split(r"\s+OR\s+", a[1], flags=re.I)]))
    by_name = {v.name.lower(): v for v in variables}
    filters = m["filt"]
    for f in re.finditer(r"(\w+)\[([^\]]*)\]", filters):
        if f[1].lower() not in by_name:
            raise NoSql(f"filter on {f[1]}, not a variable of the sequence")
        by_name[f[1].lower()].preds.append(f[2].strip())
    if re.sub(r"(\w+)\[([^\]]*)\]", "", filters).replace("AND", "").replace("and", "").strip():
        raise NoSql("filters other than a conjunction of var[predicate]")
    partition = [p.strip() for p in (m["part"] or "").replace("[", "").replace("]", "").split(",") if p.strip()]
    rest = re.sub(r"ORDER BY stock_time, id DESC", "", m["rest"], flags=re.I).strip()
    if rest:
        raise NoSql(f"unsupported clause {rest!r}")
    return SeqSpec(variables, int(m["w"]), partition)


def _before(a: str, b: str) -> str:
    """Event b comes after event a in the stream order (stock_time, then id descending)."""
    return f"({b}.stock_time > {a}.stock_time OR ({b}.stock_time = {a}.stock_time AND {b}.id < {a}.id))"


def plain_sql(spec: SeqSpec, bucketed: bool) -> str:
    """
    The pattern as a Spark user writes it: one filtered relation per variable, joined on the stream order with
    the window between the first and the last event (every event of a match lies in [first, first + W)).
    bucketed: the window condition also becomes an equi-join on time buckets of width W (the first event's
    bucket; each later event is offered for its own bucket and the one before), so Spark can hash-join instead
    of comparing every pair (BroadcastNestedLoopJoin / CartesianProduct), the usual range-join trick.
    """
    w = spec.window
    ctes, joins = [], []
    for i, v in enumerate(spec.vars, start=1):
        types = v.types[0] if len(v.types) == 1 else None
        conds = [f"event_type = '{types}'" if types else
                 "event_type IN (" + ", ".join(f"'{t}'" for t in v.types) + ")"]
        conds += [f"({p})" for p in v.preds] + [f"{k} IS NOT NULL" for k in spec.partition]
        bucket = f"floor(stock_time / {w})"
        extra = ""
        if bucketed:
            extra = f", {bucket} AS kb" if i == 1 else f", explode(array({bucket}, {bucket} - 1)) AS kb"
        ctes.append(f"e{i} AS (SELECT *{extra} FROM S WHERE {' AND '.join(conds)})")
        if i > 1:
            on = ([f"t{i}.kb = t1.kb"] if bucketed else []) + [f"t{i}.{k} = t1.{k}" for k in spec.partition]
            on += [_before(f"t{i - 1}", f"t{i}"), f"t{i}.stock_time - t1.stock_time < {w}"]
            joins.append(f"JOIN e{i} t{i} ON " + " AND ".join(on))
    n = len(spec.vars)
    select = [f"t1.{k} AS {k}" for k in spec.partition]
    select += ["t1.stock_time AS match_start", f"t{n}.stock_time AS match_end"]
    select += [f"struct({', '.join(f't{i}.{c}' for c in COLUMNS)}) AS {v.name}"
               for i, v in enumerate(spec.vars, start=1)]
    return ("WITH " + ",\n     ".join(ctes) + "\nSELECT " + ",\n       ".join(select) +
            "\nFROM e1 t1\n" + "\n".join(joins))


def kleene_count_sql(text: str) -> str:
    """
    Q7 (A ; X+ AS v ; B, every event of v filtered alike), as far as plain SQL goes: the number of matches, not
    the matches. For each pair (a, b) in order within the window, with k candidates for v strictly between
    them, there are 2^k - 1 matches. Enumerating them needs one join per element of the subset.
    """
    body = " ".join(" ".join(line.split("--")[0] for line in text.splitlines()).split())
    m = re.match(r"SELECT \* FROM S WHERE \((\w+) AS (\w+); \(BUY OR SELL\)\+ AS (\w+); (\w+) AS (\w+)\) FILTER "
                 r"(.*?) WITHIN (\d+) \[stock_time\]", body, re.I)
    if not m:
        raise NoSql("not of Q7's shape")
    first_type, first, mid, last_type, last, filters, w = m.groups()
    preds: Dict[str, List[str]] = {first: [], mid: [], last: []}
    for f in re.finditer(r"(\w+)\[([^\]]*)\]", filters):
        preds[f[1]].append(f"({f[2]})")
    conds = lambda v, types: " AND ".join([types] + preds[v])  # noqa: E731
    return f"""
WITH a AS (SELECT *, floor(stock_time / {w}) AS kb FROM S WHERE {conds(first, f"event_type = '{first_type}'")}),
     b AS (SELECT *, explode(array(floor(stock_time / {w}), floor(stock_time / {w}) - 1)) AS kb
           FROM S WHERE {conds(last, f"event_type = '{last_type}'")}),
     x AS (SELECT *, explode(array(floor(stock_time / {w}), floor(stock_time / {w}) - 1)) AS kb
           FROM S WHERE {conds(mid, "event_type IN ('BUY', 'SELL')")}),
     pairs AS (SELECT a.id AS aid, a.stock_time AS a_t, b.id AS bid, b.stock_time AS b_t, a.kb
               FROM a JOIN b ON b.kb = a.kb AND {_before('a', 'b')} AND b.stock_time - a.stock_time < {w}),
     k AS (SELECT p.aid, p.bid, count(x.id) AS k
           FROM pairs p LEFT JOIN x ON x.kb = p.kb
             AND (x.stock_time > p.a_t OR (x.stock_time = p.a_t AND x.id < p.aid))
             AND (p.b_t > x.stock_time OR (p.b_t = x.stock_time AND p.bid < x.id))
           GROUP BY p.aid, p.bid)
SELECT CAST(sum(pow(2, k) - 1) AS BIGINT) AS matches FROM k WHERE k > 0
"""


# ---------------------------------------------------------------------------------------------------------------
# Data: the trace replayed k times, as parquet (Spark) and as a sorted CSV (the engine's runner)

def stock_csv(given: Optional[str]) -> Path:
    if given:
        return Path(given)
    shared = REPO.parent / "shared" / "data" / "stocks.csv"
    return shared if shared.exists() else REPO / "data" / "stocks.csv.gz"


def data_paths(cache: Path, k: int) -> Tuple[Path, Path]:
    return cache / "data" / f"x{k}.parquet", cache / "data" / f"x{k}.csv"


def prepare(source: Path, cache: Path, scales: List[int]) -> None:
    """Runs in a child process (its own Spark driver), so that the engine's runs and the benchmark's session
    start from a quiet machine."""
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F

    stamp = f"{source.resolve()} {source.stat().st_size} {int(source.stat().st_mtime)}"
    todo = [k for k in scales if not (cache / "data" / f"x{k}.done").exists()
            or (cache / "data" / f"x{k}.done").read_text() != stamp]
    slice_done = cache / "data" / "slice.done"
    if not todo and slice_done.exists() and slice_done.read_text() == stamp:
        return
    spark = (SparkSession.builder.master("local[2]").appName("spark-cer-bench-data")
             .config("spark.driver.memory", "6g").config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    base = spark.read.csv(str(source), header=True, schema=SCHEMA).cache()
    max_id = base.agg(F.max("id")).first()[0] + 1
    for k in todo:
        started = time.perf_counter()
        parquet, csv = data_paths(cache, k)
        reps = spark.range(k).withColumnRenamed("id", "rep")
        replay = (base.crossJoin(reps)
                  .select("event_type", (F.col("id") + F.col("rep") * max_id).alias("id"), "name", "volume",
                          "price", (F.col("stock_time") + F.col("rep") * DAY_MS).alias("stock_time")))
        ordered = replay.orderBy("stock_time", F.desc("id"))
        ordered.repartition(max(2, min(k, 16))).write.mode("overwrite").parquet(str(parquet))
        tmp = cache / "data" / f"x{k}.csv.d"
        spark.read.parquet(str(parquet)).orderBy("stock_time", F.desc("id")).coalesce(1).write.mode(
            "overwrite").option("header", True).csv(str(tmp))
        part = next(tmp.glob("part-*.csv"))
        part.replace(csv)
        shutil.rmtree(tmp)
        (cache / "data" / f"x{k}.done").write_text(stamp)
        print(f"  data x{k}: {spark.read.parquet(str(parquet)).count():,} events "
              f"({time.perf_counter() - started:.0f} s)", flush=True)
    (base.orderBy("stock_time", F.desc("id")).limit(SLICE_EVENTS).coalesce(1)
     .write.mode("overwrite").parquet(str(cache / "data" / "slice.parquet")))
    slice_done.write_text(stamp)
    spark.stop()


# ---------------------------------------------------------------------------------------------------------------
# Measurements

@dataclass
class Result:
    status: str = "ok"  # ok | timeout | error | skipped
    seconds: Optional[float] = None  # the best run
    runs: List[float] = field(default_factory=list)
    events: Optional[int] = None
    rows: Optional[int] = None  # matches (or rows counted by the floor)
    checksum: Optional[int] = None  # bit_xor of xxhash64 over the ids of each match
    message: str = ""
    extra: Dict[str, Any] = field(default_factory=dict)

    @property
    def eps(self) -> Optional[float]:
        return self.events / self.seconds if self.ok and self.seconds and self.events else None

    @property
    def ok(self) -> bool:
        return self.status == "ok"


class Bench:
    def __init__(self, args: argparse.Namespace):
        self.args = args
        self.cache = Path(args.cache)
        self.results: Dict[str, Result] = {}
        self.failures: List[str] = []
        self.notes: List[str] = []
        self.events: Dict[int, int] = {}
        self.spark = None
        self.plans: Dict[str, str] = {}
        self.engine_cp = ""
        self.jar = ""
        self.load: List[Tuple[str, Tuple[float, float, float]]] = []
        self._ids = itertools.count()

    def fail(self, message: str) -> None:
        self.failures.append(message)
        print(f"\n!!! FAILURE: {message}\n", flush=True)

    def key(self, system: str, w: Workload, scale: int) -> str:
        return f"{system}|{w.name}|x{scale}"

    def get(self, system: str, w: Workload, scale: int) -> Optional[Result]:
        return self.results.get(self.key(system, w, scale))

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
        subprocess.run(["javac", "-cp", ":".join(copied), "-d", str(tool),
                        str(REPO / "bench" / "engine" / "EngineRepeat.java")], check=True)
        self.engine_cp = ":".join([str(tool)] + copied)

    # -- the engine alone ------------------------------------------------------------------------------------

    def engine(self, w: Workload, scale: int, passes: int) -> Result:
        key = self.key("engine", w, scale)
        if key in self.results:
            return self.results[key]
        query = self.cache / "queries" / f"{w.name.replace(' ', '_')}.ceql"
        query.parent.mkdir(parents=True, exist_ok=True)
        query.write_text(w.text())
        _, csv = data_paths(self.cache, scale)
        r = Result(events=self.events.get(scale))
        started = time.perf_counter()
        try:
            p = subprocess.run(["java", f"-Xmx{self.args.engine_heap}", "-cp", self.engine_cp, "EngineRepeat",
                                str(1 + passes), "--query", str(query), "--csv", str(csv), "--quiet"],
                               capture_output=True, text=True, timeout=self.args.engine_timeout)
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
                    self.fail(f"engine alone, {w.name} at x{scale}: passes disagree ({[x[2] for x in reports]})")
                if peaks:
                    r.extra["peak_states"] = max(int(x[0]) for x in peaks)
                    r.extra["peak_nodes"] = max(int(x[1]) for x in peaks)
        best = min(r.runs) if r.runs else None
        r.extra["load1"] = os.getloadavg()[0]
        r.seconds = best
        if r.status != "ok":
            self.fail(f"engine alone, {w.name} at x{scale}: {r.status} {r.message}")
        self.results[key] = r
        self._print("engine", w, scale, r)
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
        group = f"bench-{next(self._ids)}"
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

    def run_once(self, make_df: Callable[[], Any], timeout: float, checksum: bool, action: str = "noop"
                 ) -> Tuple[str, float, Optional[int], Optional[int], str]:
        """One timed action; (status, seconds, rows, checksum, message)."""
        from pyspark.sql import Observation
        from pyspark.sql import functions as F

        def go():
            df = make_df()
            if action == "collect":
                return int(df.collect()[0][0] or 0), None
            obs = Observation(f"obs_{next(self._ids)}")
            exprs = [F.count(F.lit(1)).alias("rows")]
            if checksum:
                exprs.append(F.expr(f"bit_xor(xxhash64({', '.join(self.id_columns(df))}))").alias("h"))
            df.observe(obs, *exprs).write.format("noop").mode("overwrite").save()
            got = obs.get
            return got["rows"], got.get("h")

        status, value, seconds, message = self.guarded(go, timeout)
        rows, h = value if value else (None, None)
        return status, seconds, rows, h, message

    @staticmethod
    def id_columns(df) -> List[str]:
        """The ids of every matched event: v.id for a struct variable, the array of ids for a list variable."""
        from pyspark.sql.types import ArrayType, StructType

        out = []
        for f in df.schema.fields:
            if isinstance(f.dataType, StructType):
                out.append(f"`{f.name}`.id")
            elif isinstance(f.dataType, ArrayType):
                out.append(f"transform(`{f.name}`, e -> e.id)")
        return out

    def measure(self, system: str, w: Workload, scale: int, make_df: Callable[[], Any], timeout: float,
                checksum: bool = True, action: str = "noop", repeat: Optional[int] = None,
                metrics: bool = False) -> Result:
        """A warm-up run, then the best of `repeat` runs; a warm-up longer than --long is the measurement."""
        key = self.key(system, w, scale)
        if key in self.results:
            return self.results[key]
        repeat = self.args.repeat if repeat is None else repeat
        r = Result(events=self.events.get(scale))
        status, seconds, rows, h, message = self.run_once(make_df, timeout, checksum, action)
        r.extra["warmup"] = seconds
        if status == "ok" and seconds > self.args.long:
            r.runs = [seconds]
        elif status == "ok":
            for _ in range(repeat):
                status, seconds, rows2, h2, message = self.run_once(make_df, timeout, checksum, action)
                if status != "ok":
                    break
                r.runs.append(seconds)
                if (rows2, h2) != (rows, h):
                    self.fail(f"{system}, {w.name} at x{scale}: two runs differ ({rows} vs {rows2} rows)")
        r.status, r.message, r.rows, r.checksum = status, message, rows, h
        r.seconds = min(r.runs) if r.runs and status == "ok" else None
        if status == "error":
            self.fail(f"{system}, {w.name} at x{scale}: {message}")
        if metrics and status == "ok":
            r.extra.update(self.cer_metrics())
        r.extra["load1"] = os.getloadavg()[0]
        self.results[key] = r
        self._print(system, w, scale, r)
        return r

    def cer_metrics(self) -> Dict[str, Any]:
        """The CerExec metrics of the last SQL execution (peak tECS nodes and active states per task, the largest
        task), read from Spark's SQL status store."""
        store = self.spark._jsparkSession.sharedState().statusStore()
        found: Dict[str, Any] = {}
        for _ in range(20):
            n = store.executionsCount()
            execs = store.executionsList(max(0, n - 3), min(3, n))
            for i in range(execs.size() - 1, -1, -1):
                e = execs.apply(i)
                values = store.executionMetrics(e.executionId())
                ms = e.metrics()
                for j in range(ms.size()):
                    m = ms.apply(j)
                    v = values.get(m.accumulatorId())
                    if not v.isDefined():
                        continue
                    text = v.get()
                    if m.name().startswith("peak tECS nodes") or m.name().startswith("peak active states"):
                        nums = re.search(r"\(([\d,.]+), ([\d,.]+), ([\d,.]+) \(", text)
                        if nums:
                            key = "spark_peak_nodes" if "tECS" in m.name() else "spark_peak_states"
                            found[key] = max(found.get(key, 0), int(float(nums[3].replace(",", ""))))
                        elif re.fullmatch(r"[\d,.]+", text.strip()):
                            key = "spark_peak_nodes" if "tECS" in m.name() else "spark_peak_states"
                            found[key] = max(found.get(key, 0), int(float(text.strip().replace(",", ""))))
                if found:
                    return found
            time.sleep(0.1)
        return found

    def cer_df(self, w: Workload):
        return lambda: self.spark.sql(w.text())

    def explain(self, df) -> str:
        return self.spark._jvm.PythonSQLUtils.explainString(df._jdf.queryExecution(), "simple")

    # -- the floor: read, shuffle and sort as the query's plan does, then count --------------------------------

    def floor(self, kind: str, keys: Tuple[str, ...], scale: int) -> Result:
        """kind: single (one sorted partition, the plan of an unpartitioned query without range split),
        global (orderBy: a range-partitioned sort on every core), hash (repartition by the PARTITION BY keys and
        sort each partition)."""
        from pyspark.sql import functions as F

        fake = Workload(f"floor:{kind}:{','.join(keys)}", "")
        sort = [F.col(k) for k in keys] + [F.col("stock_time"), F.desc("id")]

        def make():
            df = self.spark.table("S")
            if kind == "single":
                return df.repartition(1).sortWithinPartitions(*sort)
            if kind == "global":
                return df.orderBy(*sort)
            return df.repartition(*[F.col(k) for k in keys]).sortWithinPartitions(*sort)

        r = self.measure("floor", fake, scale, make, self.args.cer_timeout, checksum=False)
        r.extra["kind"] = kind
        return r

    def floor_for(self, w: Workload, scale: int, plan: str) -> Result:
        """The floor matching spark-cer's plan: hash for PARTITION BY keys, else the faster of a single sorted
        partition and a global sort (both measured; the faster is the stricter floor)."""
        keys = partition_keys(w)
        if keys and "hashpartitioning" in plan:
            return self.floor("hash", tuple(keys), scale)
        single = self.floor("single", tuple(keys), scale)
        glob = self.floor("global", tuple(keys), scale)
        candidates = [r for r in (single, glob) if r.ok]
        return min(candidates, key=lambda r: r.seconds) if candidates else single

    def _print(self, system: str, w: Workload, scale: int, r: Result) -> None:
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


def partition_keys(w: Workload) -> List[str]:
    text = " ".join(line.split("--")[0] for line in (SQL_DIR / f"{w.file}.ceql").read_text().splitlines())
    m = re.search(r"PARTITION BY\s+(.*?)\s+(WITHIN|CONSUME|LIMIT|ORDER|$)", " ".join(text.split()), re.I)
    if not m:
        return []
    return [p.strip() for p in m[1].replace("[", "").replace("]", "").split(",") if p.strip()]


# ---------------------------------------------------------------------------------------------------------------
# The experiments

def run_engine_phase(b: Bench, a: argparse.Namespace) -> None:
    print("\n== the engine alone (its runner; time of the pass over the sorted events, CSV parsing excluded)")
    for w in SEQ_OUT + SEQ_NONE + WINDOW_NONE[1:] + WINDOW_OUT[1:]:
        b.engine(w, a.scale, a.engine_passes)
    for w in a.ops:
        b.engine(w, a.ops_scale, a.engine_passes)
    for k in a.scales:
        for w in (W("s3"), W("s3_none"), W("s3_by_name"), W("rising_last")):
            b.engine(w, k, a.engine_passes if k <= a.scale else 1)


def compare(b: Bench, what: str, w: Workload, scale: int, ours: Result, other: Result, checksums: bool) -> None:
    if not (ours.ok and other.ok):
        return
    if ours.rows != other.rows:
        b.fail(f"{what}, {w.name} at x{scale}: {ours.rows} matches by spark-cer, {other.rows} by the other")
    elif checksums and ours.checksum != other.checksum:
        b.fail(f"{what}, {w.name} at x{scale}: same count ({ours.rows}) but different matches (id checksums "
               f"{ours.checksum} vs {other.checksum})")


def slice_check(b: Bench, w: Workload, sql: str) -> Dict[str, Any]:
    """On the first SLICE_EVENTS events: the exact set of matches (as tuples of ids) from both sides."""
    b.view(None)
    ours = b.spark.sql(w.text()).cache()  # whole rows first: the check must not depend on column pruning
    cols = b.id_columns(ours)
    theirs = b.spark.sql(sql).cache()
    try:
        def diff():
            a, c = ours.selectExpr(*cols), theirs.selectExpr(*cols)
            return (ours.count(), theirs.count(), a.exceptAll(c).count(), c.exceptAll(a).count(),
                    a.exceptAll(c).limit(3).collect(), c.exceptAll(a).limit(3).collect())
        status, value, _, message = b.guarded(diff, min(60.0, b.args.timeout))
    finally:
        ours.unpersist()
        theirs.unpersist()
    if status == "timeout":
        return {"status": f"not compared ({message})"}
    if status != "ok":
        b.fail(f"slice check of {w.name}: {message}")
        return {"status": "error"}
    n_ours, n_sql, only_ours, only_sql, ex_ours, ex_sql = value
    same = only_ours == 0 and only_sql == 0 and n_ours == n_sql
    out = {"status": "same" if same else "DIFFERENT", "matches": n_ours, "sql_matches": n_sql}
    if not same:
        b.fail(f"slice check of {w.name}: spark-cer gives {n_ours} matches, plain SQL {n_sql}; {only_ours} only "
               f"in spark-cer (e.g. {[tuple(r) for r in ex_ours]}), {only_sql} only in plain SQL "
               f"(e.g. {[tuple(r) for r in ex_sql]})")
    return out


def run_workload(b: Bench, w: Workload, scale: int, naive: bool = False, sql_after: Optional[Workload] = None
                 ) -> None:
    """spark-cer, plain SQL (bucketed, and optionally naive), the floor; checked against each other and the
    engine alone."""
    a = b.args
    b.view(scale)
    cer = b.measure("spark-cer", w, scale, b.cer_df(w), a.cer_timeout, metrics=True)
    try:
        plan = b.explain(b.spark.sql(w.text()))
    except Exception as e:  # noqa: BLE001
        plan = f"(EXPLAIN failed: {e})"
    b.plans[f"{w.name}@x{scale}"] = plan
    cer.extra["plan_exchange"] = ", ".join(sorted(set(re.findall(r"Exchange (\w+)", plan)))) or "none"
    floor = b.floor_for(w, scale, plan)
    cer.extra["floor"] = floor.extra.get("kind")
    b.results[b.key("floor-used", w, scale)] = floor
    eng = b.get("engine", w, scale)
    if eng and eng.ok and cer.ok and eng.rows != cer.rows:
        b.fail(f"{w.name} at x{scale}: the engine alone finds {eng.rows} matches, spark-cer {cer.rows}")
    try:
        spec = parse_sequence(w.text())
    except NoSql as why:
        b.results[b.key("sql-none", w, scale)] = Result(status="skipped", message=str(why))
        if w.file == "q7_kleene" and not w.limit:
            count_sql = kleene_count_sql(w.text())
            r = b.measure("sql-count", w, scale, lambda: b.spark.sql(count_sql), a.timeout, action="collect")
            if r.ok and cer.ok and r.rows != cer.rows:
                b.fail(f"{w.name} at x{scale}: spark-cer finds {cer.rows} matches, the SQL count {r.rows}")
        return
    for variant, bucketed in (("sql-bucketed", True), ("sql-naive", False)):
        if variant == "sql-naive" and not naive:
            continue
        sql = plain_sql(spec, bucketed)
        b.plans[f"{variant}:{w.name}"] = sql
        before = b.get(variant, sql_after, scale) if sql_after else None
        if before is not None and before.status == "timeout":
            # the joins of the shorter sequence are this query's first joins, in the same order: no faster
            b.results[b.key(variant, w, scale)] = Result(
                status="timeout", message=f"> {a.timeout:.0f} s (not run: its first joins are {sql_after.name}'s, "
                                          "which were cancelled)")
            print(f"  {variant:<14} {w.name:<26} x{scale:<3} not run: {sql_after.name} was cancelled", flush=True)
            continue
        r = b.measure(variant, w, scale, lambda sql=sql: b.spark.sql(sql), a.timeout)
        compare(b, variant, w, scale, cer, r, checksums=True)
    key = f"slice|{w.name}"
    if key not in b.plans:
        b.plans[key] = json.dumps(slice_check(b, w, plain_sql(spec, True)))
        b.view(scale)


def run_spark_phase(b: Bench, a: argparse.Namespace) -> None:
    b.start_spark()
    for k in sorted(set(a.scales) | {a.scale, a.ops_scale}):
        b.view(k)
        b.events[k] = b.spark.table("S").count()

    print(f"\n== sequences with output, x{a.scale} ({b.events[a.scale]:,} events)")
    surface_check(b)
    warm_up(b, a.scale)
    for previous, w in zip([None] + SEQ_OUT, SEQ_OUT):
        run_workload(b, w, a.scale, naive=(w.file == "s3"), sql_after=previous)
    print(f"\n== sequences without output (a last event that never occurs), x{a.scale}")
    for w in SEQ_NONE:
        run_workload(b, w, a.scale, naive=(w.file == "s3_none"))
    print(f"\n== S3' and S3 with windows T..4T ({T}), x{a.scale}")
    for w in WINDOW_NONE[1:] + WINDOW_OUT[1:]:
        run_workload(b, w, a.scale)
    print(f"\n== other operators, x{a.ops_scale} ({b.events[a.ops_scale]:,} events)")
    for w in a.ops:
        run_workload(b, w, a.ops_scale)

    print(f"\n== stream length: scales {a.scales}")
    for k in a.scales:
        for w in (W("s3"), W("s3_none"), W("s3_by_name")):
            run_workload(b, w, k, naive=(w.file == "s3" and not naive_timed_out(b, w, a.scales, k)))
        b.view(k)
        w = W("rising_last")
        b.measure("spark-cer", w, k, b.cer_df(w), a.cer_timeout, metrics=True)

    print(f"\n== {RANGE_SPLIT}: true vs false, x{a.scale} and x{max(a.scales)}")
    split_scales = sorted({a.scale, max(a.scales)})
    for k in split_scales:
        b.view(k)
        for w in SPLIT if k == a.scale else SPLIT[:1]:
            for value in ("false", "true"):
                b.spark.conf.set(RANGE_SPLIT, value)
                try:
                    b.plans[f"split={value}:{w.name}@x{k}"] = b.explain(b.spark.sql(w.text()))
                except Exception as e:  # noqa: BLE001
                    b.plans[f"split={value}:{w.name}@x{k}"] = f"(EXPLAIN failed: {e})"
                b.measure(f"split-{value}", w, k, b.cer_df(w), a.cer_timeout, metrics=True)
            b.spark.conf.set(RANGE_SPLIT, "true")
            off, on = b.get("split-false", w, k), b.get("split-true", w, k)
            if off.ok and on.ok and (off.rows, off.checksum) != (on.rows, on.checksum):
                b.fail(f"RANGE SPLIT CHANGES THE RESULT: {w.name} at x{k}: {off.rows} matches with "
                       f"{RANGE_SPLIT}=false, {on.rows} with true (id checksums {off.checksum} vs {on.checksum})")
    b.spark.stop()


def surface_check(b: Bench) -> None:
    """spark-cer's output projected (column pruning), with the range split on and off, on the slice."""
    b.view(None)
    q = W("s3").text()
    for value in ("true", "false"):
        b.spark.conf.set(RANGE_SPLIT, value)
        for label, make in (("selectExpr('T1.id', 'T3.id')", lambda: b.spark.sql(q).selectExpr("T1.id", "T3.id")),
                            ("select('match_start')", lambda: b.spark.sql(q).select("match_start")),
                            ("(whole rows)", lambda: b.spark.sql(q))):
            try:
                n = make().count()
                b.notes.append(f"spark.sql(s3 + ORDER BY).{label}.count() with {RANGE_SPLIT}={value}: {n} rows")
            except Exception as e:  # noqa: BLE001
                b.fail(f"spark-cer fails when its output is projected: spark.sql(<sql/stocks/s3.ceql> + "
                       f"'ORDER BY stock_time, id DESC').{label}.count() on the first {SLICE_EVENTS} events, "
                       f"{RANGE_SPLIT}={value}: {error_text(e)}")
    b.spark.conf.set(RANGE_SPLIT, "true")


def warm_up(b: Bench, scale: int) -> None:
    """Untimed runs before the first measurement, so that the first workloads do not pay for a cold JVM."""
    from pyspark.sql import functions as F

    b.view(scale)
    spec = parse_sequence(W("s3").text())
    for _ in range(2):
        for make in (lambda: b.spark.sql(W("s3").text()), lambda: b.spark.sql(plain_sql(spec, True)),
                     lambda: b.spark.table("S").repartition(1).sortWithinPartitions("stock_time", F.desc("id")),
                     lambda: b.spark.sql(W("s3_by_name").text())):
            b.guarded(lambda: make().write.format("noop").mode("overwrite").save(), b.args.cer_timeout)


def naive_timed_out(b: Bench, w: Workload, scales: List[int], k: int) -> bool:
    """The naive join is quadratic: once it timed out at a scale, larger scales are not tried."""
    return any((r := b.get("sql-naive", w, s)) is not None and r.status == "timeout" for s in scales if s < k)


# ---------------------------------------------------------------------------------------------------------------
# The report

def fmt_eps(r: Optional[Result]) -> str:
    if r is None:
        return "-"
    if r.ok and r.eps:
        return f"{r.eps:,.0f}"
    if r.status == "timeout":
        bound = re.match(r"> \d+ s", r.message)
        return "timeout " + (bound[0] if bound else r.message) + (" †" if "not run" in r.message else "")
    if r.status == "skipped":
        return "n/a"
    return f"**{r.status}**"


def speedup(ours: Optional[Result], other: Optional[Result]) -> Tuple[Optional[float], str]:
    """other's time over ours (> 1: we are faster); a lower bound when the other timed out."""
    if not ours or not ours.ok or not ours.seconds or not other:
        return None, "-"
    if other.ok and other.seconds:
        x = other.seconds / ours.seconds
        return x, f"{x:.2f}"
    if other.status == "timeout":
        bound = b_timeout(other) / ours.seconds
        return bound, f"> {bound:.0f}"
    return None, "-"


def b_timeout(r: Result) -> float:
    m = re.search(r"> (\d+)", r.message)
    return float(m[1]) if m else float("nan")


def machine_facts(b: Bench) -> List[Tuple[str, str]]:
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
    git = subprocess.run(["git", "-C", str(REPO), "log", "-1", "--format=%h %s"], capture_output=True,
                         text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "jvm", "python"],
                           capture_output=True, text=True).stdout.strip()
    return [
        ("CPU", f"{cpu}, {os.cpu_count()} cores"),
        ("memory", mem),
        ("OS", platform.platform()),
        ("Java", java[0] if java else "?"),
        ("Spark (PySpark)", pyspark.__version__),
        ("Python", platform.python_version()),
        ("matplotlib", mpl),
        ("commit", git[:100] + (" (jvm/ or python/ modified in the work tree)" if dirty else "")),
        ("spark-cer jar", f"{b.jar_source} (sha256 {b.jar_sha}…), copied before the run"),
    ]


def report(b: Bench, a: argparse.Namespace, command: str, started: dt.datetime, elapsed: float) -> None:
    RESULTS.mkdir(parents=True, exist_ok=True)
    out: List[str] = []
    add = out.append
    S = a.scale

    def res(system: str, w: Workload, k: int) -> Optional[Result]:
        return b.get(system, w, k)

    def floor_of(w: Workload, k: int) -> Optional[Result]:
        return b.results.get(b.key("floor-used", w, k))

    add("# spark-cer against plain Spark SQL and the floor (issue 5)\n")
    add(f"Command: `{command}`  ")
    add(f"Date: {started:%Y-%m-%d %H:%M} UTC, {elapsed / 60:.0f} minutes. "
        f"Load average (1, 5, 15 min) at the start {b.load[0][1]}, at the end {b.load[-1][1]}.\n")
    add("| machine | |\n|---|---|")
    for k, v in machine_facts(b):
        add(f"| {k} | {v} |")
    add("")
    add(f"Settings: main scale x{S} ({b.events.get(S, 0):,} events), other operators at x{a.ops_scale} "
        f"({b.events.get(a.ops_scale, 0):,} events), stream lengths x{', x'.join(map(str, a.scales))}; "
        f"best of {a.repeat} runs after a warm-up (a warm-up longer than {a.long:.0f} s is the only run); "
        f"plain SQL cancelled after {a.timeout:.0f} s; Spark `local[2]`, driver memory {a.driver_memory}, "
        f"Spark's defaults otherwise (AQE on, 200 shuffle partitions coalesced by AQE, broadcast under 10 MB), "
        f"`{RANGE_SPLIT}=true` unless stated.\n")
    loads = sorted(r.extra["load1"] for r in b.results.values() if "load1" in r.extra)
    if loads:
        busy = sum(1 for x in loads if x > 2.5)
        add(f"1-minute load average after each measurement: median {loads[len(loads) // 2]:.1f}, max "
            f"{loads[-1]:.1f}; {busy} of {len(loads)} above 2.5 on these 2 cores, i.e. other work (builds, "
            "tests) competed with the benchmark for part of the run, and absolute numbers are lower than on a "
            "quiet machine. `spark.json` has the load after every measurement.\n")

    if b.failures:
        add("## FAILURES\n")
        add("**Results that disagree or runs that failed. Read these first.**\n")
        for f in b.failures:
            add(f"- **{f}**")
        add("")
    else:
        add("No failures: every spark-cer result equals the engine alone's match count, every plain SQL result "
            "the same matches (count and id checksum), the slices the same match sets, and the range split "
            "the same matches on and off.\n")

    if b.notes:
        add("Checks run before the measurements:\n")
        for n in b.notes:
            add(f"- {n}")
        add("")

    # headline and goals
    s3, s3n, s3x4 = W("s3"), W("s3_none"), W("s3_none_x4")
    add("## Goals\n")
    add("| goal | measured | verdict |\n|---|---|---|")
    goals = []
    cer3, fl3 = res("spark-cer", s3, S), floor_of(s3, S)
    if cer3 and cer3.ok and fl3 and fl3.ok:
        x = cer3.seconds / fl3.seconds
        goals.append(("End to end within 2x of the floor on S3 (time over the floor's)",
                      f"{x:.2f}x ({cer3.eps:,.0f} vs {fl3.eps:,.0f} events/s, x{S})", x <= 2))
    for variant, label in (("sql-bucketed", "plain SQL (bucketed self-joins)"),
                           ("sql-naive", "plain SQL (naive self-joins)")):
        x, text = speedup(cer3, res(variant, s3, S))
        if x is not None:
            goals.append((f"At least 10x faster than {label} on S3", f"{text}x", x >= 10))
    xs = [(w.name, speedup(res("spark-cer", w, S), res("sql-bucketed", w, S))) for w in SEQ_OUT]
    xs_txt = ", ".join(f"{n}: {t}" for n, (_, t) in xs)
    vals = [x for _, (x, _) in xs if x is not None]
    grows = all(v2 >= v1 for v1, v2 in zip(vals, vals[1:])) and len(vals) > 1
    goals.append(("Speed-up over plain SQL (bucketed) growing with length", xs_txt, grows))
    ws = [(w.name, speedup(res("spark-cer", w, S), res("sql-bucketed", w, S))) for w in WINDOW_OUT]
    vals = [x for _, (x, _) in ws if x is not None]
    goals.append(("Speed-up over plain SQL (bucketed) growing with the window (S3, T..4T)",
                  ", ".join(f"{n}: {t}" for n, (_, t) in ws),
                  all(v2 >= v1 for v1, v2 in zip(vals, vals[1:])) and len(vals) > 1))
    for system, label in (("engine", "engine alone"), ("spark-cer", "end to end")):
        r1, r4 = res(system, s3n, S), res(system, s3x4, S)
        if r1 and r4 and r1.ok and r4.ok:
            x = r4.eps / r1.eps
            goals.append((f"Flat in the window, {label}: S3' throughput at 4T over T >= 0.8", f"{x:.2f}", x >= 0.8))
    for w in (s3n, s3, W("s3_by_name")):
        peaks = [(k, res("engine", w, k)) for k in a.scales]
        peaks = [(k, r.extra.get("peak_nodes")) for k, r in peaks if r and r.ok]
        if len(peaks) > 1:
            lo, hi = min(p for _, p in peaks), max(p for _, p in peaks)
            goals.append((f"Memory flat in stream length, {w.name} (engine peak tECS nodes, "
                          f"x{peaks[0][0]}..x{peaks[-1][0]})", ", ".join(f"x{k}: {p}" for k, p in peaks),
                          hi <= 1.1 * lo))
    for text, value, ok in goals:
        add(f"| {text} | {value} | {'PASS' if ok else '**FAIL**'} |")
    add("")
    add("Ratios: *over plain SQL* is plain SQL's time over spark-cer's (a lower bound, `>`, when plain SQL was "
        "cancelled); *over the floor* is spark-cer's throughput over the floor's (1 would be free pattern "
        "matching). The goal on plain SQL is read against both formulations below; the bucketed one is the "
        "strong baseline.\n")

    # range split headline
    add(f"## Range split (`{RANGE_SPLIT}`), end to end on 2 cores\n")
    add("| query | scale | false: events/s | true: events/s | speed-up | matches (false / true) | same matches | "
        "plan (true) |\n|---|---|---:|---:|---:|---|---|---|")
    split_rows = []
    for k in sorted({a.scale, max(a.scales)}):
        for w in SPLIT if k == a.scale else SPLIT[:1]:
            off, on = res("split-false", w, k), res("split-true", w, k)
            if not off or not on:
                continue
            x = off.seconds / on.seconds if off.ok and on.ok else None
            same = (off.rows, off.checksum) == (on.rows, on.checksum) if off.ok and on.ok else None
            plan = b.plans.get(f"split=true:{w.name}@x{k}", "")
            exch = ", ".join(sorted(set(re.findall(r"Exchange (\w+)", plan)))) or "?"
            split_rows.append((w.name, k, x))
            add(f"| {w.name} | x{k} | {fmt_eps(off)} | {fmt_eps(on)} | "
                f"{f'{x:.2f}' if x else '-'} | {off.rows} / {on.rows} | "
                f"{'yes' if same else ('**NO**' if same is False else '-')} | Exchange {exch} |")
    add("")
    norm = lambda plan: re.sub(r"#\d+L?|plan_id=\d+", "", plan)  # noqa: E731
    same_plans = [w.name for w in SPLIT if norm(b.plans.get(f"split=true:{w.name}@x{a.scale}", "a")) ==
                  norm(b.plans.get(f"split=false:{w.name}@x{a.scale}", "b"))]
    if same_plans:
        add(f"**The plans with true and false are identical for {', '.join(same_plans)}: the setting had no "
            "effect in this build** (the spark-cer jar above).\n")
    else:
        add("The plans differ between true and false (see the plans at the end).\n")

    # per-experiment tables
    def table(title: str, workloads: List[Workload], k: int, with_naive: bool = False) -> None:
        add(f"## {title}\n")
        add(f"x{k}: {b.events.get(k, 0):,} events. Throughput in events/s (input events over wall time).\n")
        head = "| query | matches | engine alone | spark-cer | plain SQL (bucketed) |"
        sep = "|---|---:|---:|---:|---:|"
        if with_naive:
            head += " plain SQL (naive) |"
            sep += "---:|"
        head += " floor | ours over plain SQL | ours over floor | engine over spark-cer | peak tECS nodes |"
        sep += "---:|---:|---:|---:|---:|"
        add(head)
        add(sep)
        for w in workloads:
            eng, cer, sql = res("engine", w, k), res("spark-cer", w, k), res("sql-bucketed", w, k)
            if sql is None:
                sql = b.results.get(b.key("sql-none", w, k))
            count = res("sql-count", w, k)
            fl = floor_of(w, k)
            matches = cer.rows if cer and cer.rows is not None else (eng.rows if eng else None)
            row = f"| {w.name} | {matches:,} |" if isinstance(matches, int) else f"| {w.name} | - |"
            row += f" {fmt_eps(eng)} | {fmt_eps(cer)} | {fmt_eps(sql)}"
            if count:
                row += f" (count only: {fmt_eps(count)})"
            row += " |"
            if with_naive:
                row += f" {fmt_eps(res('sql-naive', w, k))} |"
            _, vs_sql = speedup(cer, sql if sql and sql.status != "skipped" else None)
            vs_floor = f"{cer.eps / fl.eps:.2f}" if cer and cer.ok and fl and fl.ok else "-"
            eng_over = f"{eng.eps / cer.eps:.1f}" if eng and eng.ok and cer and cer.ok else "-"
            nodes = eng.extra.get("peak_nodes", "-") if eng else "-"
            row += f" {fmt_eps(fl)} | {vs_sql} | {vs_floor} | {eng_over} | {nodes} |"
            add(row)
        if any("not run" in (r.message if (r := res("sql-bucketed", w, k)) else "") for w in workloads):
            add("\n† not run: the query's first joins are those of the shorter sequence before it, which was "
                "cancelled; its time is at least as long.")
        notes = [(w.name, b.results.get(b.key("sql-none", w, k))) for w in workloads]
        for name, r in notes:
            if r:
                add(f"\n- {name}: no plain SQL: {r.message}.")
        add("")

    table(f"Sequences with output (CORE's S3..S24, window {T})", SEQ_OUT, S, with_naive=True)
    table("Sequences without output (S3'..S24': a last event that never occurs)", SEQ_NONE, S, with_naive=True)
    table(f"S3' (no output) with windows T..4T ({T})", WINDOW_NONE, S)
    table("S3 (with output) with windows T..4T", WINDOW_OUT, S)
    add("Window ratios (4T over T, throughput): " + "; ".join(
        f"{system} {w1.name}: {r4.eps / r1.eps:.2f}"
        for system in ("engine", "spark-cer", "sql-bucketed")
        for w1, w4 in ((W("s3_none"), W("s3_none_x4")), (W("s3"), W("s3_x4")))
        if (r1 := res(system, w1, S)) and (r4 := res(system, w4, S)) and r1.ok and r4.ok) + "\n")
    table("Other operators (CORE's Q1..Q7, window 30 s; PARTITION BY; Kleene + LAST)", a.ops, a.ops_scale)
    add("Q4 and Q7 enumerate 87 M and 30 M matches on the one-day trace (every subset for Q7's Kleene closure); "
        "by default they run with `LIMIT 1000` (at most 1000 matches per completing event), as CORE's paper "
        "measured every system (\"we only enumerate the first thousand\"); `--heavy` adds the full runs, "
        "with Q4's plain SQL and a plain SQL that only counts Q7's matches (2^k - 1 per pair of end events).\n")

    add("## Stream length (the trace replayed k times)\n")
    add("| scale | events | S3: engine | S3: spark-cer | S3: plain SQL (bucketed) | S3: plain SQL (naive) | "
        "S3: floor | S3: ours over floor | S3': engine | S3': spark-cer | matches S3 (per copy) |")
    add("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for k in a.scales:
        e3, c3, q3, n3 = res("engine", s3, k), res("spark-cer", s3, k), res("sql-bucketed", s3, k), \
            res("sql-naive", s3, k)
        f3 = floor_of(s3, k)
        en, cn = res("engine", s3n, k), res("spark-cer", s3n, k)
        vs = f"{c3.eps / f3.eps:.2f}" if c3 and c3.ok and f3 and f3.ok else "-"
        per = f"{c3.rows // k:,}" if c3 and c3.rows is not None else "-"
        add(f"| x{k} | {b.events.get(k, 0):,} | {fmt_eps(e3)} | {fmt_eps(c3)} | {fmt_eps(q3)} | "
            f"{fmt_eps(n3) if n3 else 'not run (timed out at a smaller scale)'} | {fmt_eps(f3)} | {vs} | "
            f"{fmt_eps(en)} | {fmt_eps(cn)} | {per} |")
    add("")
    add("Memory: the engine's peak tECS nodes and peak active states (engine alone; spark-cer's CerExec "
        "metrics, largest task), per query and stream length. The runner holds the whole CSV in memory, so its "
        "process size is not the engine's; these peaks are.\n")
    mem_ws = [s3n, s3, W("s3_by_name"), W("rising_last")]
    add("| query | " + " | ".join(f"x{k}" for k in a.scales) + " |")
    add("|---|" + "---:|" * len(a.scales))
    for w in mem_ws:
        cells = []
        for k in a.scales:
            e, c = res("engine", w, k), res("spark-cer", w, k)
            cell = f"{e.extra.get('peak_nodes', '?')} nodes / {e.extra.get('peak_states', '?')} states" \
                if e and e.ok else "-"
            if c and c.ok and "spark_peak_nodes" in c.extra:
                cell += f" (Spark: {c.extra['spark_peak_nodes']} / {c.extra.get('spark_peak_states', '?')})"
            cells.append(cell)
        add(f"| {w.name} | " + " | ".join(cells) + " |")
    add("")

    add("## How this was measured\n")
    add("- **Data.** CORE's NYSE trace (224,473 BUY/SELL events of 10 stocks in one day, ms since midnight). "
        f"Scale xk replays it k times, copy i shifted by i days ({DAY_MS:,} ms; the trace spans 13 hours, so "
        "no window crosses copies) and its ids by i times (largest id + 1): the matches of xk are k times "
        "those of x1. Parquet for Spark, a CSV sorted in stream order for the engine's runner, both written "
        f"once to `{Path(a.cache).relative_to(REPO) if Path(a.cache).is_relative_to(REPO) else a.cache}`.")
    add("- **Stream order.** `ORDER BY stock_time, id DESC` appended to every query (the file's order among "
        "events of the same millisecond), for the engine and for spark-cer alike.")
    add("- **Engine alone.** The engine's runner (`io.sparkcer.engine.runner.Main --query Q --csv F --quiet`), "
        f"called 1 + {a.engine_passes} times in one JVM by `bench/engine/EngineRepeat.java` (1 + 1 at scales "
        "above the main one); the best pass after the first (JIT warm-up) is kept. The "
        "runner's reported time is the pass over events already parsed and sorted: CSV parsing and the sort "
        "are outside it. Throughput is events over that time.")
    add("- **spark-cer end to end.** `spark.sql(query + ORDER BY)` over the temp view `S` (the parquet files), "
        "timed as `df.observe(count, bit_xor(xxhash64(ids)))` + `write.format(\"noop\")`: every match row is "
        "built, and its count and an id checksum are collected in the same pass. Plain SQL is timed the "
        "same way; the floor with the count only.")
    add("- **Plain SQL.** One filtered relation per variable, self-joined on the stream order "
        "(`t2.stock_time > t1.stock_time OR (= AND t2.id < t1.id)`) with `tn.stock_time - t1.stock_time < W` "
        "and the PARTITION BY keys as equalities; the output has the same columns (match_start, match_end, a "
        "struct per variable). *Naive*: exactly that (Spark plans a BroadcastNestedLoopJoin or a "
        "CartesianProduct: quadratic). *Bucketed*: plus an equi-join on time buckets of width W (the first "
        "event's bucket; each later event offered for its own bucket and the one before), the usual range-join "
        "trick, so Spark hash-joins. Checked against spark-cer: the same count and id checksum at every scale, "
        f"and the same set of id tuples on the first {SLICE_EVENTS:,} events. Runs longer than the timeout are "
        "cancelled (job group) and reported as `timeout (> N s)`, the ratio then a lower bound.")
    add("- **Floor.** The same parquet read, shuffled and sorted by the query's keys, counted (noop write): for "
        "an unpartitioned query the faster of one sorted partition (`repartition(1).sortWithinPartitions`, the "
        "plan of a single-task query) and a global sort (`orderBy`, range partitioning on both cores); for "
        "PARTITION BY, `repartition(keys).sortWithinPartitions(keys, stock_time, id desc)`, the query's plan.")
    add("- **Not expressible in plain SQL** (the tables say which): Kleene closure (a match binds any subset "
        "of the candidates: no fixed number of joins enumerates them; window functions do not either), "
        "selection strategies (LAST), CONSUME BY ANY (a sequential fold over the stream), LIMIT per "
        "completing event (the engine's enumeration order).")
    add("- The machine is shared: builds running beside the benchmark slow it (see the load averages above). "
        "Ratios within one run are the result; absolute numbers move.\n")

    slices = {k.split("|", 1)[1]: json.loads(v) for k, v in b.plans.items() if k.startswith("slice|")}
    if slices:
        add(f"Exact match sets on the first {SLICE_EVENTS:,} events (spark-cer vs plain SQL): " + ", ".join(
            f"{n}: {s['status']} ({s.get('matches', '?')} matches)" for n, s in slices.items()) + ".\n")

    add("## Plots\n")
    for png, what in PLOTS:
        if (RESULTS / png).exists():
            add(f"- `{png}`: {what}")
    add("")
    add("## Plans\n")
    for key in (f"s3@x{S}", f"split=false:s3@x{S}", f"split=true:s3@x{S}", f"s3_by_name@x{S}"):
        if key in b.plans:
            add(f"spark-cer, {key}:\n\n```\n{b.plans[key].strip()}\n```\n")
    if "sql-bucketed:s3" in b.plans:
        add(f"Plain SQL (bucketed), s3:\n\n```sql\n{b.plans['sql-bucketed:s3'].strip()}\n```\n")
    (RESULTS / "spark.md").write_text("\n".join(out) + "\n")

    raw = {k: {"status": r.status, "seconds": r.seconds, "runs": r.runs, "events": r.events, "rows": r.rows,
               "checksum": r.checksum, "events_per_s": r.eps, "message": r.message, **r.extra}
           for k, r in b.results.items()}
    (RESULTS / "spark.json").write_text(json.dumps(
        {"command": command, "date": started.isoformat(), "failures": b.failures, "results": raw,
         "events": b.events, "plans": b.plans}, indent=1, default=str) + "\n")


PLOTS = [
    ("spark-length.png", "throughput vs sequence length (S3..S24 with and without output): engine alone, "
                         "spark-cer, plain SQL, floor"),
    ("spark-window.png", "throughput vs window T..4T (S3' and S3)"),
    ("spark-memory.png", "peak tECS nodes and active states vs stream length"),
    ("spark-scale.png", "S3 throughput vs stream length"),
    ("spark-range-split.png", f"end-to-end time with {RANGE_SPLIT} false and true"),
    ("spark-operators.png", "throughput on the other-operator queries"),
]


def plots(b: Bench, a: argparse.Namespace) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    S = a.scale
    systems = [("engine", "engine alone", "o-"), ("spark-cer", "spark-cer end to end", "s-"),
               ("sql-bucketed", "plain SQL (bucketed joins)", "^-"), ("sql-naive", "plain SQL (naive joins)", "v-")]

    def series(system: str, ws: List[Workload], k: int, xs: List[float]):
        pts = [(x, r.eps) for x, w in zip(xs, ws) if (r := b.get(system, w, k)) and r.ok and r.eps]
        return [p[0] for p in pts], [p[1] for p in pts]

    def floor_series(ws: List[Workload], k: int, xs: List[float]):
        pts = [(x, r.eps) for x, w in zip(xs, ws)
               if (r := b.results.get(b.key("floor-used", w, k))) and r.ok and r.eps]
        return [p[0] for p in pts], [p[1] for p in pts]

    def timeouts(system: str, ws: List[Workload], k: int, xs: List[float]):
        return [x for x, w in zip(xs, ws) if (r := b.get(system, w, k)) and r.status == "timeout"]

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5), sharey=True)
    for ax, ws, title in ((axes[0], SEQ_OUT, "with output (S3..S24)"), (axes[1], SEQ_NONE, "no output (S3'..S24')")):
        xs = [LENGTH[w.file.split("_")[0]] for w in ws]
        for system, label, style in systems:
            x, y = series(system, ws, S, xs)
            if x:
                ax.plot(x, y, style, label=label)
            t = timeouts(system, ws, S, xs)
            if t:  # at most events / timeout
                ax.plot(t, [b.events.get(S, 0) / a.timeout] * len(t), "x", markersize=9,
                        color=ax.lines[-1].get_color() if x else "red",
                        label=f"{label}: cancelled after {a.timeout:.0f} s (at most)")
        x, y = floor_series(ws, S, xs)
        if x:
            ax.plot(x, y, "k--", label="floor (read, shuffle, sort, count)")
        ax.set_xscale("log", base=2)
        ax.set_xticks(xs, [str(v) for v in xs])
        ax.set_yscale("log")
        ax.set_xlabel("sequence length")
        ax.set_title(f"{title}, x{S} ({b.events.get(S, 0):,} events)")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("events/s")
    axes[1].legend(fontsize=8, loc="lower left")
    fig.tight_layout()
    fig.savefig(RESULTS / "spark-length.png", dpi=110)
    plt.close(fig)

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5), sharey=True)
    for ax, ws, title in ((axes[0], WINDOW_NONE, "S3' (no output)"), (axes[1], WINDOW_OUT, "S3 (with output)")):
        xs = [1, 2, 3, 4]
        for system, label, style in systems[:3]:
            x, y = series(system, ws, S, xs)
            if x:
                ax.plot(x, y, style, label=label)
        x, y = floor_series(ws, S, xs)
        if x:
            ax.plot(x, y, "k--", label="floor")
        ax.set_xticks(xs, ["T", "2T", "3T", "4T"])
        ax.set_yscale("log")
        ax.set_xlabel(f"window ({T})")
        ax.set_title(f"{title}, x{S}")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("events/s")
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(RESULTS / "spark-window.png", dpi=110)
    plt.close(fig)

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    for w, style in ((W("s3_none"), "o-"), (W("s3"), "s-"), (W("s3_by_name"), "^-"), (W("rising_last"), "v-")):
        pts = [(b.events.get(k), r.extra.get("peak_nodes"), r.extra.get("peak_states"))
               for k in a.scales if (r := b.get("engine", w, k)) and r.ok]
        if pts:
            axes[0].plot([p[0] for p in pts], [p[1] for p in pts], style, label=w.name)
            axes[1].plot([p[0] for p in pts], [p[2] for p in pts], style, label=w.name)
    for ax, what in ((axes[0], "peak tECS nodes"), (axes[1], "peak active states")):
        ax.set_xscale("log")
        ax.set_ylim(bottom=0)
        ax.set_xlabel("events in the stream")
        ax.set_ylabel(what)
        ax.set_title(f"{what} vs stream length (engine alone)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(RESULTS / "spark-memory.png", dpi=110)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(7, 4.5))
    s3 = W("s3")
    for system, label, style in systems:
        pts = [(b.events[k], r.eps) for k in a.scales if (r := b.get(system, s3, k)) and r.ok and r.eps]
        if pts:
            ax.plot(*zip(*pts), style, label=label)
    pts = [(b.events[k], r.eps) for k in a.scales
           if (r := b.results.get(b.key("floor-used", s3, k))) and r.ok and r.eps]
    if pts:
        ax.plot(*zip(*pts), "k--", label="floor")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("events in the stream")
    ax.set_ylabel("events/s")
    ax.set_title("S3 throughput vs stream length")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(RESULTS / "spark-scale.png", dpi=110)
    plt.close(fig)

    rows = []
    for k in sorted({a.scale, max(a.scales)}):
        for w in SPLIT if k == a.scale else SPLIT[:1]:
            off, on = b.get("split-false", w, k), b.get("split-true", w, k)
            if off and on and off.ok and on.ok:
                rows.append((f"{w.name} x{k}", off.seconds, on.seconds))
    if rows:
        fig, ax = plt.subplots(figsize=(8, 4.5))
        xs = range(len(rows))
        ax.bar([x - 0.2 for x in xs], [r[1] for r in rows], 0.4, label=f"{RANGE_SPLIT}=false")
        ax.bar([x + 0.2 for x in xs], [r[2] for r in rows], 0.4, label="true")
        for x, r in zip(xs, rows):
            ax.text(x, max(r[1], r[2]) * 1.02, f"{r[1] / r[2]:.2f}x", ha="center")
        ax.set_xticks(list(xs), [r[0] for r in rows])
        ax.set_ylabel("seconds (end to end, 2 cores)")
        ax.set_title("Range split: parallel evaluation of unpartitioned queries")
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(RESULTS / "spark-range-split.png", dpi=110)
        plt.close(fig)

    fig, ax = plt.subplots(figsize=(12, 4.5))
    ws = a.ops
    xs = list(range(len(ws)))
    for i, (system, label, _) in enumerate(systems[:3]):
        ys = [(r.eps if (r := b.get(system, w, a.ops_scale)) and r.ok and r.eps else 0) for w in ws]
        ax.bar([x + (i - 1) * 0.27 for x in xs], ys, 0.27, label=label)
    fys = [(r.eps if (r := b.results.get(b.key("floor-used", w, a.ops_scale))) and r.ok and r.eps else 0)
           for w in ws]
    ax.scatter(xs, fys, marker="_", s=400, color="k", label="floor", zorder=3)
    ax.set_xticks(xs, [w.name for w in ws], rotation=20, ha="right", fontsize=8)
    ax.set_yscale("log")
    ax.set_ylabel("events/s")
    ax.set_title(f"Other operators, x{a.ops_scale} (a missing bar: not expressible in plain SQL)")
    ax.grid(True, axis="y", which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(RESULTS / "spark-operators.png", dpi=110)
    plt.close(fig)


# ---------------------------------------------------------------------------------------------------------------

def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument("--scale", type=int, default=4, help="trace copies for the sequence and window runs")
    parser.add_argument("--ops-scale", type=int, default=1, help="trace copies for the other-operator queries")
    parser.add_argument("--scales", default="1,4,16", help="stream lengths (trace copies) for memory and scaling; "
                                                           "x64 is about 14 M events")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs after the warm-up (best is kept)")
    parser.add_argument("--engine-passes", type=int, default=2, help="timed passes of the engine alone after "
                                                                        "a warm-up pass, in one JVM (best is kept)")
    parser.add_argument("--timeout", type=float, default=120, help="seconds before a plain SQL run is cancelled")
    parser.add_argument("--cer-timeout", type=float, default=900, help="the same for spark-cer and the floor")
    parser.add_argument("--engine-timeout", type=float, default=900, help="the same for the engine's runner")
    parser.add_argument("--long", type=float, default=15, help="a warm-up longer than this is the only run")
    parser.add_argument("--heavy", action="store_true", help="also Q4 and Q7 without LIMIT (87 M, 30 M matches)")
    parser.add_argument("--quick", action="store_true", help="x1, scales 1,2, one timed run, 30 s timeout")
    parser.add_argument("--csv", help="the stock trace (default ../shared/data/stocks.csv, else data/stocks.csv.gz)")
    parser.add_argument("--cache", default=str(CACHE), help="where the replayed data is written once")
    parser.add_argument("--driver-memory", default="8g")
    parser.add_argument("--engine-heap", default="12g", help="-Xmx of the engine's runner")
    parser.add_argument("--prepare-only", action="store_true", help=argparse.SUPPRESS)
    a = parser.parse_args()
    if a.quick:
        a.scale, a.ops_scale, a.scales, a.repeat, a.timeout, a.engine_passes = 1, 1, "1,2", 1, 20, 1
    a.scales = sorted({int(s) for s in str(a.scales).split(",")})
    source = stock_csv(a.csv)
    needed = sorted(set(a.scales) | {a.scale, a.ops_scale})
    if a.prepare_only:
        prepare(source, Path(a.cache), needed)
        return
    a.ops = (OPS_QUICK if a.quick else OPS) + (OPS_HEAVY if a.heavy else [])

    command = " ".join([".venv/bin/python", "bench/spark_bench.py"] + sys.argv[1:])
    started = dt.datetime.now(dt.timezone.utc)
    t0 = time.perf_counter()
    b = Bench(a)
    b.load.append(("start", tuple(round(x, 2) for x in os.getloadavg())))
    print(f"spark-cer benchmark: {command}\nsource {source}; scales {needed}; cache {a.cache}", flush=True)
    print("== data (replayed trace, written once)", flush=True)
    subprocess.run([sys.executable, __file__, "--prepare-only", "--cache", a.cache, "--csv", str(source),
                    "--scales", ",".join(map(str, needed)), "--scale", str(a.scale),
                    "--ops-scale", str(a.ops_scale)], check=True)
    b.snapshot()
    for k in needed:  # events per scale, from the CSV the engine reads (Spark recounts them later)
        with open(data_paths(Path(a.cache), k)[1], "rb") as f:
            b.events[k] = sum(1 for _ in f) - 1
    run_engine_phase(b, a)
    run_spark_phase(b, a)
    b.load.append(("end", tuple(round(x, 2) for x in os.getloadavg())))
    elapsed = time.perf_counter() - t0
    try:
        plots(b, a)
    except Exception as e:  # noqa: BLE001 - the report is still written
        b.fail(f"plots: {e}")
    report(b, a, command, started, elapsed)
    print(f"\nwrote {RESULTS / 'spark.md'}, spark.json and the plots ({elapsed / 60:.1f} minutes)")
    if b.failures:
        print(f"\n{len(b.failures)} FAILURE(S):\n" + "\n".join(f"  - {f}" for f in b.failures))
        sys.exit(1)


if __name__ == "__main__":
    main()
