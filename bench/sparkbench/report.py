"""bench/results/spark.md: the goals, the tables of every experiment, how it was measured and the plans, written
from a Record (a run just made, or bench/results/spark.json with --report-only)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Dict, List, Optional

from .goals import NOISE, goals, speedup
from .plots import PLOTS
from .record import Record, Result
from .workloads import (
    DAY_MS,
    RANGE_SPLIT,
    REPO,
    RESULTS,
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


def report(rec: Record) -> None:
    """bench/results/spark.md from the record of a run."""
    a, S = rec.args, rec.args.scale
    out: List[str] = []
    add = out.append

    add("# spark-cer against plain Spark SQL and the floor\n")
    add(f"Command: `{rec.command}`  ")
    when = f"Date: {rec.started:%Y-%m-%d %H:%M} UTC" if rec.started else "Date: not recorded"
    when += f", {rec.elapsed / 60:.0f} minutes." if rec.elapsed is not None else "."
    if rec.load:
        when += f" Load average (1, 5, 15 min) at the start {rec.load[0][1]}, at the end {rec.load[-1][1]}."
    add(when + "\n")
    if rec.machine:
        add("| machine | |\n|---|---|")
        for k, v in rec.machine:
            add(f"| {k} | {v} |")
        add("")
    else:
        add("The machine was not recorded in spark.json.\n")
    add(
        f"Settings: main scale x{S} ({rec.events.get(S, 0):,} events), other operators at x{a.ops_scale} "
        f"({rec.events.get(a.ops_scale, 0):,} events), stream lengths x{', x'.join(map(str, a.scales))}; "
        f"best of {a.repeat} runs after a warm-up (a warm-up longer than {a.long:.0f} s is the only run); "
        f"plain SQL cancelled after {a.timeout:.0f} s; Spark `local[2]`, driver memory {a.driver_memory}, "
        f"Spark's defaults otherwise (AQE on, 200 shuffle partitions coalesced by AQE, broadcast under 10 MB), "
        f"`{RANGE_SPLIT}=true` unless stated.\n"
    )
    loads = sorted(r.extra["load1"] for r in rec.results.values() if "load1" in r.extra)
    if loads:
        busy = sum(1 for x in loads if x > 2.5)
        # The benchmark itself keeps both cores busy (load about 2): more means other work competed with it.
        verdict = (
            "other work (builds, tests) competed with the benchmark for part of the run, and absolute "
            "numbers are lower than on a quiet machine"
            if busy
            else "the benchmark had the machine to itself (it keeps both cores busy itself)"
        )
        add(
            f"1-minute load average after each measurement: median {loads[len(loads) // 2]:.1f}, max "
            f"{loads[-1]:.1f}; {busy} of {len(loads)} above 2.5 on these 2 cores: {verdict}. `spark.json` has the "
            "load after every measurement.\n"
        )

    if rec.failures:
        add("## FAILURES\n")
        add("**Results that disagree or runs that failed. Read these first.**\n")
        for f in rec.failures:
            add(f"- **{f}**")
        add("")
    else:
        add(
            "No failures: every spark-cer result equals the engine alone's match count, every plain SQL result "
            "the same matches (count and id checksum), the slices the same match sets, and the range split "
            "the same matches on and off.\n"
        )

    if rec.notes:
        add("Checks run before the measurements:\n")
        for n in rec.notes:
            add(f"- {n}")
        add("")

    add("## Goals\n")
    add("| goal | measured | verdict |\n|---|---|---|")
    for g in goals(rec):
        add(f"| {g.text} | {g.measured} | {g.cell()} |")
    add("")
    add(
        "Ratios: *over plain SQL* is plain SQL's time over spark-cer's (a lower bound, `>`, when plain SQL was "
        "cancelled); *over the floor* is spark-cer's throughput over the floor's (1 would be free pattern "
        "matching). The goal on plain SQL is read against both formulations below; the bucketed one is the "
        f"strong baseline. A speed-up grows when each exact ratio is at least {1 - NOISE:.0%} of every ratio "
        "before it (run-to-run noise) and every lower bound after the exact ratios is at least the last of them; "
        "lower bounds are not compared with each other (the ratios behind them are unknown). A lower bound "
        "under a goal's threshold neither meets nor misses it: *not shown*, with the reason.\n"
    )

    # range split headline
    add(f"## Range split (`{RANGE_SPLIT}`), end to end on 2 cores\n")
    add(
        "| query | scale | false: events/s | true: events/s | speed-up | matches (false / true) | same matches | "
        "events read (false / true) | plan (true) |\n|---|---|---:|---:|---:|---|---|---:|---|"
    )
    overheads: List[float] = []
    ranges: Dict[int, int] = {}
    for k in sorted({a.scale, max(a.scales)}):
        for w in SPLIT if k == a.scale else SPLIT[:1]:
            off, on = rec.get("split-false", w, k), rec.get("split-true", w, k)
            if not off or not on:
                continue
            x = off.seconds / on.seconds if off.ok and on.ok else None
            same = (off.rows, off.checksum) == (on.rows, on.checksum) if off.ok and on.ok else None
            plan = rec.plans.get(f"split=true:{w.name}@x{k}", "")
            exch = ", ".join(sorted(set(re.findall(r"Exchange (\w+)", plan)))) or "?"
            if on.extra.get("ranges"):
                ranges[k] = on.extra["ranges"]
            read = (off.extra.get("spark_events"), on.extra.get("spark_events"))
            if all(read):
                overheads.append(read[1] / read[0] - 1)
            add(
                f"| {w.name} | x{k} | {fmt_eps(off)} | {fmt_eps(on)} | "
                f"{f'{x:.2f}' if x else '-'} | {off.rows} / {on.rows} | "
                f"{'yes' if same else ('**NO**' if same is False else '-')} | "
                f"{' / '.join(f'{n:,}' if n else '-' for n in read)} | Exchange {exch} |"
            )
    add("")
    if overheads:
        extra = max(overheads)
        add(
            f"*Events read* counts the rows the operator reads after the filter on the pattern's atoms: with the "
            f"split, each range also reads the window before it as context, here {extra:.1%} more rows at most "
            "(a window over 32 windows per range is 1/32 = 3.1% where rows are spread evenly). That is the whole "
            "per-task overhead of the split besides the shuffle by range (Expand adds the context copies before it). "
            "On a cluster of N cores, each task sorts and evaluates about 1/N of the rows plus that context, so "
            f"the evaluation scales as N / {1 + extra:.3f}: the split cuts the stream into at least two ranges per "
            "task, each at most 32 windows of 10 s long (S spans "
            f"{', '.join(f'{n:,} such ranges at x{k}' for k, n in sorted(ranges.items())) or 'an unrecorded number of ranges'}"
            "); the scan and the "
            "shuffle scale as they do for any Spark query. On these 2 cores the reading and shuffling of the "
            "parquet files is a large share of the time and is already parallel without the split: the split "
            "speeds up what follows the shuffle.\n"
        )
    norm = lambda plan: re.sub(r"#\d+L?|plan_id=\d+", "", plan)  # noqa: E731
    same_plans = [
        w.name
        for w in SPLIT
        if norm(rec.plans.get(f"split=true:{w.name}@x{a.scale}", "a"))
        == norm(rec.plans.get(f"split=false:{w.name}@x{a.scale}", "b"))
    ]
    if same_plans:
        add(
            f"**The plans with true and false are identical for {', '.join(same_plans)}: the setting had no "
            "effect in this build** (the spark-cer jar above).\n"
        )
    else:
        add("The plans differ between true and false (see the plans at the end).\n")

    # per-experiment tables
    def table(title: str, workloads: List[Workload], k: int, with_naive: bool = False) -> None:
        add(f"## {title}\n")
        add(f"x{k}: {rec.events.get(k, 0):,} events. Throughput in events/s (input events over wall time).\n")
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
            eng, cer, sql = rec.get("engine", w, k), rec.get("spark-cer", w, k), rec.get("sql-bucketed", w, k)
            if sql is None:
                sql = rec.get("sql-none", w, k)
            count = rec.get("sql-count", w, k)
            fl = rec.floor_of(w, k)
            matches = cer.rows if cer and cer.rows is not None else (eng.rows if eng else None)
            row = f"| {w.name} | {matches:,} |" if isinstance(matches, int) else f"| {w.name} | - |"
            row += f" {fmt_eps(eng)} | {fmt_eps(cer)} | {fmt_eps(sql)}"
            if count:
                row += f" (count only: {fmt_eps(count)})"
            row += " |"
            if with_naive:
                row += f" {fmt_eps(rec.get('sql-naive', w, k))} |"
            vs_sql = speedup(cer, sql if sql and sql.status != "skipped" else None) or "-"
            vs_floor = f"{cer.eps / fl.eps:.2f}" if cer and cer.ok and fl and fl.ok else "-"
            eng_over = f"{eng.eps / cer.eps:.1f}" if eng and eng.ok and cer and cer.ok else "-"
            nodes = eng.extra.get("peak_nodes", "-") if eng else "-"
            row += f" {fmt_eps(fl)} | {vs_sql} | {vs_floor} | {eng_over} | {nodes} |"
            add(row)
        if any("not run" in (r.message if (r := rec.get("sql-bucketed", w, k)) else "") for w in workloads):
            add(
                "\n† not run: the query's first joins are those of the shorter sequence before it, which was "
                "cancelled; its time is at least as long."
            )
        notes = [(w.name, rec.get("sql-none", w, k)) for w in workloads]
        for name, r in notes:
            if r:
                add(f"\n- {name}: no plain SQL: {r.message}.")
        add("")

    table(f"Sequences with output (CORE's S3..S24, window {T})", SEQ_OUT, S, with_naive=True)
    table("Sequences without output (S3'..S24': a last event that never occurs)", SEQ_NONE, S, with_naive=True)
    table(f"S3' (no output) with windows T..4T ({T})", WINDOW_NONE, S)
    table("S3 (with output) with windows T..4T", WINDOW_OUT, S)
    add(
        "Window ratios (4T over T, throughput): "
        + "; ".join(
            f"{system} {w1.name}: {r4.eps / r1.eps:.2f}"
            for system in ("engine", "spark-cer", "sql-bucketed")
            for w1, w4 in ((W("s3_none"), W("s3_none_x4")), (W("s3"), W("s3_x4")))
            if (r1 := rec.get(system, w1, S)) and (r4 := rec.get(system, w4, S)) and r1.ok and r4.ok
        )
        + "\n"
    )
    table("Other operators (CORE's Q1..Q7, window 30 s; PARTITION BY; Kleene + LAST)", a.ops, a.ops_scale)
    add(
        "Q4 and Q7 enumerate 87 M and 30 M matches on the one-day trace (every subset for Q7's Kleene closure); "
        "by default they run with `LIMIT 1000` (at most 1000 matches per completing event), as CORE's paper "
        'measured every system ("we only enumerate the first thousand"); `--heavy` adds the full runs, '
        "with Q4's plain SQL and a plain SQL that only counts Q7's matches (2^k - 1 per pair of end events).\n"
    )

    s3, s3n = W("s3"), W("s3_none")
    add("## Stream length (the trace replayed k times)\n")
    add(
        "| scale | events | S3: engine | S3: spark-cer | S3: plain SQL (bucketed) | S3: plain SQL (naive) | "
        "S3: floor | S3: ours over floor | S3': engine | S3': spark-cer | matches S3 (per copy) |"
    )
    add("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for k in a.scales:
        e3, c3, q3, n3 = (rec.get(system, s3, k) for system in ("engine", "spark-cer", "sql-bucketed", "sql-naive"))
        f3 = rec.floor_of(s3, k)
        en, cn = rec.get("engine", s3n, k), rec.get("spark-cer", s3n, k)
        vs = f"{c3.eps / f3.eps:.2f}" if c3 and c3.ok and f3 and f3.ok else "-"
        per = f"{c3.rows // k:,}" if c3 and c3.rows is not None else "-"
        add(
            f"| x{k} | {rec.events.get(k, 0):,} | {fmt_eps(e3)} | {fmt_eps(c3)} | {fmt_eps(q3)} | "
            f"{fmt_eps(n3) if n3 else 'not run (timed out at a smaller scale)'} | {fmt_eps(f3)} | {vs} | "
            f"{fmt_eps(en)} | {fmt_eps(cn)} | {per} |"
        )
    add("")
    add(
        "Memory: the engine's peak tECS nodes and peak active states (engine alone; spark-cer's CerExec "
        "metrics, largest task), per query and stream length. The runner holds the whole CSV in memory, so its "
        "process size is not the engine's; these peaks are.\n"
    )
    mem_ws = [s3n, s3, W("s3_by_name"), W("rising_last")]
    add("| query | " + " | ".join(f"x{k}" for k in a.scales) + " |")
    add("|---|" + "---:|" * len(a.scales))
    for w in mem_ws:
        cells = []
        for k in a.scales:
            e, c = rec.get("engine", w, k), rec.get("spark-cer", w, k)
            cell = (
                f"{e.extra.get('peak_nodes', '?')} nodes / {e.extra.get('peak_states', '?')} states"
                if e and e.ok
                else "-"
            )
            if c and c.ok and "spark_peak_nodes" in c.extra:
                cell += f" (Spark: {c.extra['spark_peak_nodes']} / {c.extra.get('spark_peak_states', '?')})"
            cells.append(cell)
        add(f"| {w.name} | " + " | ".join(cells) + " |")
    add("")

    add("## How this was measured\n")
    # the harness observed the floor's row count until the floor became a bare write, which counts nothing
    observed_floor = any(r.rows is not None for k, r in rec.results.items() if k.startswith("floor|"))
    add(
        "- **Data.** CORE's NYSE trace (224,473 BUY/SELL events of 10 stocks in one day, ms since midnight). "
        f"Scale xk replays it k times, copy i shifted by i days ({DAY_MS:,} ms; the trace spans 13 hours, so "
        "no window crosses copies) and its ids by i times (largest id + 1): the matches of xk are k times "
        "those of x1. Parquet for Spark, a CSV sorted in stream order for the engine's runner, both written "
        f"once to `{Path(a.cache).relative_to(REPO) if Path(a.cache).is_relative_to(REPO) else a.cache}`."
    )
    add(
        "- **Stream order.** `ORDER BY stock_time, id DESC` appended to every query (the file's order among "
        "events of the same millisecond), for the engine and for spark-cer alike."
    )
    add(
        "- **Engine alone.** The engine's runner (`io.sparkcer.engine.runner.Main --query Q --csv F --quiet`), "
        f"called 1 + {a.engine_passes} times in one JVM by `bench/engine/EngineRepeat.java` (1 + "
        f"{2 * a.engine_passes} for the queries without output, whose passes are short; 1 + 1 at scales above "
        "the main one); the best pass after the first (JIT warm-up) is kept. The "
        "runner's reported time is the pass over events already parsed and sorted: CSV parsing and the sort "
        "are outside it. Throughput is events over that time."
    )
    add(
        "- **Rounds.** Within each experiment every Spark measurement (spark-cer, plain SQL, floors) gets "
        f"one warm-up run, then {a.repeat} rounds in which each runs once, interleaved, so that a change in the "
        "machine's load hits all of them alike; the best run is kept."
    )
    add(
        "- **spark-cer end to end.** `spark.sql(query + ORDER BY)` over the temp view `S` (the parquet files), "
        'timed as `df.observe(count, bit_xor(xxhash64(ids)))` + `write.format("noop")`: every match row is '
        "built, and its count and an id checksum are collected in the same pass. Plain SQL is timed the "
        "same way; the floor by the write alone."
    )
    add(
        "- **Plain SQL.** One filtered relation per variable, self-joined on the stream order "
        "(`t2.stock_time > t1.stock_time OR (= AND t2.id < t1.id)`) with `tn.stock_time - t1.stock_time < W` "
        "and the PARTITION BY keys as equalities; the output has the same columns (match_start, match_end, a "
        "struct per variable). *Naive*: exactly that (Spark plans a BroadcastNestedLoopJoin or a "
        "CartesianProduct: quadratic). *Bucketed*: plus an equi-join on time buckets of width W (the first "
        "event's bucket; each later event offered for its own bucket and the one before), the usual range-join "
        "trick, so Spark hash-joins. Checked against spark-cer: the same count and id checksum at every scale, "
        f"and the same set of id tuples on the first {SLICE_EVENTS:,} events. Runs longer than the timeout are "
        "cancelled (job group) and reported as `timeout (> N s)`, the ratio then a lower bound."
    )
    add(
        "- **Floor.** Spark reading the same parquet files, shuffling and sorting them by the query's keys and "
        'producing every column of every sorted row: the sorted frame written with `write.format("noop")`, '
        "with nothing observed or aggregated above the sort (with `count()` or another aggregate over it, "
        "Spark's optimizer drops the sort, EliminateSorts, and prunes every column: a parquet row count). Each "
        "floor's executed plan is checked to sort and to read all six columns (a FAILURE otherwise; the plans "
        "are at the end). For an unpartitioned query, the faster of one sorted partition "
        "(`repartition(1).sortWithinPartitions(stock_time, id desc)`, the plan of a single-task query) and a "
        "global sort (`orderBy`, range partitioning on both cores); for PARTITION BY, "
        "`repartition(keys).sortWithinPartitions(keys, stock_time, id desc)`, the query's plan."
        + (
            " (This run predates that: its floors' row counts were observed, `df.observe`, during the write; an "
            "observation is not among the operators EliminateSorts looks through, so the sort and the columns "
            "were kept there too.)"
            if observed_floor
            else ""
        )
    )
    add(
        "- **Not expressible in plain SQL** (the tables say which): Kleene closure (a match binds any subset "
        "of the candidates: no fixed number of joins enumerates them; window functions do not either), "
        "selection strategies (LAST), CONSUME BY ANY (a sequential fold over the stream), LIMIT per "
        "completing event (the engine's enumeration order)."
    )
    add(
        "- The machine is shared: builds running beside the benchmark slow it (see the load averages above). "
        "Ratios within one run are the result; absolute numbers move.\n"
    )

    slices = {k.split("|", 1)[1]: json.loads(v) for k, v in rec.plans.items() if k.startswith("slice|")}
    if slices:
        add(
            f"Exact match sets on the first {SLICE_EVENTS:,} events (spark-cer vs plain SQL): "
            + ", ".join(f"{n}: {s['status']} ({s.get('matches', '?')} matches)" for n, s in slices.items())
            + ".\n"
        )

    add("## Plots\n")
    for png, what in PLOTS:
        if (RESULTS / png).exists():
            add(f"- `{png}`: {what}")
    add("")
    add("## Plans\n")
    for name in (f"s3@x{S}", f"split=false:s3@x{S}", f"split=true:s3@x{S}", f"s3_by_name@x{S}"):
        if name in rec.plans:
            add(f"spark-cer, {name}:\n\n```\n{rec.plans[name].strip()}\n```\n")
    for kind in ("single", "global"):
        plan = rec.plans.get(f"floor:{kind}:@x{S}")
        if plan:
            tree = plan.split("\n\n")[0]  # without the details of each node that the formatted plan adds
            add(f"Floor ({kind}), x{S}, as executed:\n\n```\n{tree}\n```\n")
    if "sql-bucketed:s3" in rec.plans:
        add(f"Plain SQL (bucketed), s3:\n\n```sql\n{rec.plans['sql-bucketed:s3'].strip()}\n```\n")
    (RESULTS / "spark.md").write_text("\n".join(out) + "\n")
