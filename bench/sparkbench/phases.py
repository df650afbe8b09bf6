"""The experiments: which workloads are measured at which scales, grouped so that each group's Spark runs are
interleaved, and the checks that every system finds the same matches."""

from __future__ import annotations

import argparse
import json
from typing import Any, Dict, List, Optional, Tuple

from .plain_sql import NoSql, SeqSpec, kleene_count_sql, parse_sequence, plain_sql
from .record import Result, key
from .runs import Bench, Task, error_text, floor_workload
from .workloads import (
    RANGE_SPLIT,
    RANGE_WIDTH_MS,
    SCALING,
    SEQ_NONE,
    SEQ_OUT,
    SLICE_EVENTS,
    SPLIT,
    T,
    W,
    WINDOW_NONE,
    WINDOW_OUT,
    Workload,
)


def run_engine_phase(b: Bench, a: argparse.Namespace) -> None:
    print("\n== the engine alone (its runner; time of the pass over the sorted events, CSV parsing excluded)")
    for w in SEQ_OUT + WINDOW_OUT[1:]:
        b.engine(w, a.scale, a.engine_passes)
    for w in SEQ_NONE + WINDOW_NONE[1:]:  # short passes (no output): more of them
        b.engine(w, a.scale, 2 * a.engine_passes)
    if max(a.scales) > a.scale:  # the window ratio of the engine alone on passes long enough to time well
        for w in WINDOW_NONE:
            b.engine(w, max(a.scales), a.engine_passes)
    for w in a.ops:
        b.engine(w, a.ops_scale, a.engine_passes)
    for k in a.scales:
        for w in SCALING:
            b.engine(w, k, a.engine_passes if k <= a.scale else 1)


def compare(b: Bench, what: str, w: Workload, scale: int, ours: Result, other: Result, checksums: bool) -> None:
    if not (ours.ok and other.ok):
        return
    if ours.rows != other.rows:
        b.rec.fail(f"{what}, {w.name} at x{scale}: {ours.rows} matches by spark-cer, {other.rows} by the other")
    elif checksums and ours.checksum != other.checksum:
        b.rec.fail(
            f"{what}, {w.name} at x{scale}: same count ({ours.rows}) but different matches (id checksums "
            f"{ours.checksum} vs {other.checksum})"
        )


def slice_check(b: Bench, w: Workload, sql: str) -> Dict[str, Any]:
    """On the first SLICE_EVENTS events: the exact set of matches (as tuples of ids) from both sides."""
    b.view(None)
    ours = b.spark.sql(w.text()).cache()  # whole rows first: the check must not depend on column pruning
    cols = b.id_columns(ours)
    theirs = b.spark.sql(sql).cache()
    try:

        def diff():
            a, c = ours.selectExpr(*cols), theirs.selectExpr(*cols)
            return (
                ours.count(),
                theirs.count(),
                a.exceptAll(c).count(),
                c.exceptAll(a).count(),
                a.exceptAll(c).limit(3).collect(),
                c.exceptAll(a).limit(3).collect(),
            )

        status, value, _, message = b.guarded(diff, min(60.0, b.args.timeout))
    finally:
        ours.unpersist()
        theirs.unpersist()
    if status == "timeout":
        return {"status": f"not compared ({message})"}
    if status != "ok":
        b.rec.fail(f"slice check of {w.name}: {message}")
        return {"status": "error"}
    n_ours, n_sql, only_ours, only_sql, ex_ours, ex_sql = value
    same = only_ours == 0 and only_sql == 0 and n_ours == n_sql
    out = {"status": "same" if same else "DIFFERENT", "matches": n_ours, "sql_matches": n_sql}
    if not same:
        b.rec.fail(
            f"slice check of {w.name}: spark-cer gives {n_ours} matches, plain SQL {n_sql}; {only_ours} only "
            f"in spark-cer (e.g. {[tuple(r) for r in ex_ours]}), {only_sql} only in plain SQL "
            f"(e.g. {[tuple(r) for r in ex_sql]})"
        )
    return out


def run_group(
    b: Bench, workloads: List[Workload], scale: int, naive: Tuple[str, ...] = (), chain: bool = False
) -> None:
    """spark-cer, plain SQL (bucketed, and naive for the files in `naive`), the floor, for every workload of the
    group, measured in interleaved rounds; then checked against each other and the engine alone. chain: plain SQL
    of a sequence is not run when that of the one before it (its first joins) was cancelled."""
    a = b.args
    b.view(scale)
    tasks: List[Task] = []
    specs: Dict[str, Optional[SeqSpec]] = {}
    floors: Dict[str, List[Tuple[str, Tuple[str, ...]]]] = {}
    previous: Optional[Workload] = None
    for w in workloads:
        tasks.append(Task("spark-cer", w, scale, b.cer_df(w), a.cer_timeout, metrics=True))
        plan = b.explain(w)
        b.rec.plans[f"{w.name}@x{scale}"] = plan
        floors[w.name] = b.floor_kinds(w, plan)
        tasks += [b.floor_task(kind, keys, scale) for kind, keys in floors[w.name]]
        try:
            spec = parse_sequence(w.text())
        except NoSql as why:
            spec = None
            b.rec.results[key("sql-none", w, scale)] = Result(status="skipped", message=str(why))
            if w.file == "q7_kleene" and not w.limit:
                count_sql = kleene_count_sql(w.text())
                tasks.append(
                    Task("sql-count", w, scale, lambda q=count_sql: b.spark.sql(q), a.timeout, action="collect")
                )
        specs[w.name] = spec
        if spec is not None:
            for variant, bucketed in (("sql-bucketed", True), ("sql-naive", False)):
                if variant == "sql-naive" and w.file not in naive:
                    continue
                sql = plain_sql(spec, bucketed)
                b.rec.plans[f"{variant}:{w.name}"] = sql

                def skip(variant=variant, before=previous if chain else None) -> Optional[Result]:
                    r = b.rec.get(variant, before, scale) if before else None
                    if r is not None and r.status == "timeout":
                        # the shorter sequence's joins are this query's first joins, in the same order
                        return Result(
                            status="timeout",
                            message=f"> {a.timeout:.0f} s (not run: its first joins "
                            f"are {before.name}'s, which were cancelled)",
                        )
                    return None

                tasks.append(Task(variant, w, scale, lambda q=sql: b.spark.sql(q), a.timeout, skip=skip))
        previous = w
    b.measure_many(tasks)

    for w in workloads:
        cer = b.rec.get("spark-cer", w, scale)
        measured = [b.rec.get("floor", floor_workload(kind, keys), scale) for kind, keys in floors[w.name]]
        ok = [r for r in measured if r and r.ok]
        b.rec.results[key("floor-used", w, scale)] = min(ok, key=lambda r: r.seconds) if ok else measured[0]
        cer.extra["floor"] = "/".join(kind for kind, _ in floors[w.name])
        eng = b.rec.get("engine", w, scale)
        if eng and eng.ok and cer.ok and eng.rows != cer.rows:
            b.rec.fail(f"{w.name} at x{scale}: the engine alone finds {eng.rows} matches, spark-cer {cer.rows}")
        count = b.rec.get("sql-count", w, scale)
        if count and count.ok and cer.ok and count.rows != cer.rows:
            b.rec.fail(f"{w.name} at x{scale}: spark-cer finds {cer.rows} matches, the plain SQL count {count.rows}")
        for variant in ("sql-bucketed", "sql-naive"):
            r = b.rec.get(variant, w, scale)
            if r is not None:
                compare(b, variant, w, scale, cer, r, checksums=True)
        spec = specs[w.name]
        if spec is not None and f"slice|{w.name}" not in b.rec.plans:
            b.rec.plans[f"slice|{w.name}"] = json.dumps(slice_check(b, w, plain_sql(spec, True)))
    b.view(scale)


def run_spark_phase(b: Bench, a: argparse.Namespace) -> None:
    b.start_spark()
    for k in sorted(set(a.scales) | {a.scale, a.ops_scale}):
        b.view(k)
        b.rec.events[k] = b.spark.table("S").count()

    surface_check(b)
    warm_up(b, a.scale)
    print(f"\n== S3' and S3 with windows T..4T ({T}), x{a.scale} ({b.rec.events[a.scale]:,} events)")
    run_group(b, WINDOW_NONE + WINDOW_OUT, a.scale, naive=("s3", "s3_none"))
    print(f"\n== sequences with output, x{a.scale}")
    run_group(b, SEQ_OUT, a.scale, chain=True)
    print(f"\n== sequences without output (a last event that never occurs), x{a.scale}")
    run_group(b, SEQ_NONE, a.scale)
    print(f"\n== other operators, x{a.ops_scale} ({b.rec.events[a.ops_scale]:,} events)")
    run_group(b, a.ops, a.ops_scale)

    print(f"\n== stream length: scales {a.scales}")
    for k in a.scales:
        naive = ("s3",) if not naive_timed_out(b, W("s3"), a.scales, k) else ()
        run_group(b, SCALING, k, naive=naive)

    print(f"\n== {RANGE_SPLIT}: true vs false, x{a.scale} and x{max(a.scales)}")
    for k in sorted({a.scale, max(a.scales)}):
        b.view(k)
        tasks = []
        for w in SPLIT if k == a.scale else SPLIT[:1]:
            for value in ("false", "true"):
                b.spark.conf.set(RANGE_SPLIT, value)
                b.rec.plans[f"split={value}:{w.name}@x{k}"] = b.explain(w)

                def make(w=w, value=value):
                    b.spark.conf.set(RANGE_SPLIT, value)  # read when the write is planned, right after
                    return b.spark.sql(w.text())

                tasks.append(Task(f"split-{value}", w, k, make, a.cer_timeout, metrics=True))
        b.measure_many(tasks)
        b.spark.conf.set(RANGE_SPLIT, "true")
        # the longest ranges S spans at this scale: how many tasks could share them on a larger cluster
        ranges = b.spark.sql(f"SELECT count(DISTINCT floor(stock_time / {RANGE_WIDTH_MS})) FROM S").collect()[0][0]
        for w in SPLIT if k == a.scale else SPLIT[:1]:
            off, on = b.rec.get("split-false", w, k), b.rec.get("split-true", w, k)
            on.extra["ranges"] = ranges
            if off.ok and on.ok and (off.rows, off.checksum) != (on.rows, on.checksum):
                b.rec.fail(
                    f"RANGE SPLIT CHANGES THE RESULT: {w.name} at x{k}: {off.rows} matches with "
                    f"{RANGE_SPLIT}=false, {on.rows} with true (id checksums {off.checksum} vs "
                    f"{on.checksum})"
                )


def surface_check(b: Bench) -> None:
    """spark-cer's output projected (column pruning), with the range split on and off, on the slice."""
    b.view(None)
    q = W("s3").text()
    for value in ("true", "false"):
        b.spark.conf.set(RANGE_SPLIT, value)
        for label, make in (
            ("selectExpr('T1.id', 'T3.id')", lambda: b.spark.sql(q).selectExpr("T1.id", "T3.id")),
            ("select('match_start')", lambda: b.spark.sql(q).select("match_start")),
            ("(whole rows)", lambda: b.spark.sql(q)),
        ):
            try:
                n = make().count()
                b.rec.notes.append(f"spark.sql(s3 + ORDER BY).{label}.count() with {RANGE_SPLIT}={value}: {n} rows")
            except Exception as e:  # noqa: BLE001
                b.rec.fail(
                    f"spark-cer fails when its output is projected: spark.sql(<sql/stocks/s3.ceql> + "
                    f"'ORDER BY stock_time, id DESC').{label}.count() on the first {SLICE_EVENTS} events, "
                    f"{RANGE_SPLIT}={value}: {error_text(e)}"
                )
    b.spark.conf.set(RANGE_SPLIT, "true")


def warm_up(b: Bench, scale: int) -> None:
    """Untimed runs before the first measurement, so that the first workloads do not pay for a cold JVM."""
    from pyspark.sql import functions as F

    b.view(scale)
    spec = parse_sequence(W("s3").text())
    for _ in range(2):
        for make in (
            lambda: b.spark.sql(W("s3").text()),
            lambda: b.spark.sql(plain_sql(spec, True)),
            lambda: b.spark.table("S").repartition(1).sortWithinPartitions("stock_time", F.desc("id")),
            lambda: b.spark.sql(W("s3_by_name").text()),
        ):
            b.guarded(lambda: make().write.format("noop").mode("overwrite").save(), b.args.cer_timeout)


def naive_timed_out(b: Bench, w: Workload, scales: List[int], k: int) -> bool:
    """The naive join is quadratic: once it timed out at a scale, larger scales are not tried."""
    return any((r := b.rec.get("sql-naive", w, s)) is not None and r.status == "timeout" for s in scales if s < k)
