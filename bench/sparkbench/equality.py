"""Equality correlation by PCEA: patterns whose events are related by equalities that no partition
expresses, on a synthetic stream of account events and on the stock trace, three ways in one run: spark-cer (the
planner takes the PCEA), spark-cer with the PCEA turned off (spark.cer.pcea.enabled=false: the general evaluator of
conditions relating events, registers or the lazy chain), and the plain Spark SQL a user writes (hash self-joins with the equality as
the join key and the window as a join condition), checked to give the same matches. Writes
bench/results/equality.json, equality.md and equality.png.

The synthetic stream: ACCOUNTS accounts, events of five types, one per millisecond (`ts`, unique, is the stream
order). A TRANSFER moves money from `acct` to `peer`; the chain of length L is L - 1 transfers, each from the
account the previous one paid, then a WITHDRAW from the last account paid, within the window: every equality relates
two neighbouring events on two different attributes, so no partition holds it. Without output, the WITHDRAW is
replaced by a type that never occurs: every event still updates the runs, and nothing is enumerated.

The update time against the window is measured three ways, because two things besides the window change from T to 8T
on that stream: without PARTITION BY the range split cuts the 10 M ms into ranges of at most 32 windows, at least two
per task, so that each range reads a larger share of context at 8T (a window before it); and with 100,000 accounts, a transfer finds a live run of its account
more often in a larger window, so more transitions fire per event (the work per event is bounded by the automaton,
not constant). So the window series also runs in one task (the range split off), and on a DENSE stream of 10,000
accounts, where nearly every transfer finds runs of its account at T already: there what changes from T to 8T is the
window alone. The floor is Spark reading the rows the pattern's atoms accept and sorting them in one task, with no
pattern matching: what any evaluation in stream order costs at least."""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

from .goals import Goal, Ratio, flat_memory, growing, speedup
from .phases import compare
from .plain_sql import _before
from .record import Record
from .runs import Bench, Task
from .workloads import RESULTS, Workload

ACCOUNTS = 100_000
DENSE_ACCOUNTS = 10_000
TYPES = ["TRANSFER"] * 8 + ["DEPOSIT"] * 3 + ["WITHDRAW"] * 3 + ["LOGIN"] * 3 + ["LOGOUT"] * 3  # 40 % transfers
COLUMNS = ["event_type", "id", "acct", "peer", "amount", "ts"]
T_MS = 60_000  # the window T: one minute
LENGTHS = (2, 3, 4, 6, 8)
WINDOWS = (1, 2, 4, 8)  # T to 8T
MAIN = 10  # millions of events: 10 M, as many as the goal names (--quick: 2)
MEMORY = (1, 3, 10)  # stream lengths (millions) at which the PCEA's state is read (--quick: 2, 3)


def main_scale(args: argparse.Namespace) -> int:
    return 2 if args.quick else MAIN


def memory_scales(args: argparse.Namespace) -> Tuple[int, ...]:
    return (2, 3) if args.quick else MEMORY


STOCK_SCALE = 4  # trace copies for the stock workloads
GENERAL = "spark.cer.pcea.enabled"


def chain(length: int, windows: int = 1, output: bool = True) -> Workload:
    """Transfers t1..t(L-1) along the accounts they pay, then a withdrawal from the last one paid, within windows*T."""
    hops = [f"TRANSFER AS t{i}" for i in range(1, length)]
    last = "WITHDRAW AS w" if output else "CLOSE AS w"  # no event is a CLOSE: the runs are built, nothing matches
    pairs = [(f"t{i}", f"t{i + 1}") for i in range(1, length - 1)] + [(f"t{length - 1}", "w")]
    query = (
        f"SELECT * FROM S\nWHERE {' ; '.join(hops + [last])}\n"
        f"FILTER {' AND '.join(f'{a}.peer = {b}.acct' for a, b in pairs)}\nWITHIN {windows * T_MS} [ts]"
    )
    name = f"chain{length}" + (f"_x{windows}" if windows > 1 else "") + ("" if output else "_none")
    return Workload(name, name, query=query, order="ORDER BY ts")


CONJUNCTION = Workload(
    "login_and_transfer",
    "login_and_transfer",
    order="ORDER BY ts",
    query=("SELECT * FROM S\nWHERE LOGIN AS l AND TRANSFER AS t\nFILTER l.acct = t.peer\nWITHIN 60000 [ts]"),
)
# On the stock trace: a sale, a purchase of that stock, then a purchase of the same volume as that one (of any stock):
# two equalities on two attributes, each between neighbouring events (a PCEA's chain); and a sale and two purchases of
# one stock in any order, the purchases of one volume: the name relates every event (a partition), the volume two
# operands of AND (the PCEA's q-tree).
STOCK_WINDOW = 2000  # ms
STOCK_CHAIN = Workload(
    "stock_chain",
    "stock_chain",
    query=(
        "SELECT * FROM S\nWHERE (SELL AS s ; BUY AS b ; BUY AS c)\nFILTER s.name = b.name AND b.volume = c.volume\n"
        f"WITHIN {STOCK_WINDOW} [stock_time]"
    ),
)
STOCK_CONJ = Workload(
    "stock_conj",
    "stock_conj",
    query=(
        "SELECT * FROM S\nWHERE (SELL AS s AND BUY AS b AND BUY AS c)\n"
        f"FILTER s.name = b.name AND b.name = c.name AND b.volume = c.volume\nWITHIN {STOCK_WINDOW} [stock_time]"
    ),
)

BY_LENGTH = [chain(n) for n in LENGTHS]
BY_WINDOW = [chain(4, k, output=False) for k in WINDOWS]
SYNTHETIC = BY_LENGTH + BY_WINDOW + [CONJUNCTION]
STOCKS = [STOCK_CHAIN, STOCK_CONJ]
SYSTEMS = ("pcea", "general", "sql")
ONE_TASK = "pcea-1task"  # the PCEA with the range split off
# The window series on the dense stream: named apart, since a record's key is (system, workload, scale).
DENSE_BY_WINDOW = [Workload(w.name + "_dense", w.file + "_dense", query=w.query, order=w.order) for w in BY_WINDOW]
FLOOR = Workload("floor", "floor", query="(read, filter, sort in one task)")
RANGE_SPLIT = "spark.cer.rangeSplit.enabled"


def _struct(t: str, columns: Sequence[str]) -> str:
    return f"struct({', '.join(f'{t}.{c}' for c in columns)})"


def plain_sql(w: Workload) -> str:
    """The hash self-joins a Spark user writes: each event joined to the one before it on the equality, with the
    window as a condition on the first event's time."""
    if w is CONJUNCTION:
        return f"""
WITH l AS (SELECT * FROM S WHERE event_type = 'LOGIN'), t AS (SELECT * FROM S WHERE event_type = 'TRANSFER')
SELECT least(l.ts, t.ts) AS match_start, greatest(l.ts, t.ts) AS match_end,
       {_struct("l", COLUMNS)} AS l, {_struct("t", COLUMNS)} AS t
FROM l JOIN t ON l.acct = t.peer AND abs(l.ts - t.ts) < {T_MS}"""
    if w in STOCKS:
        cols = ["event_type", "id", "name", "volume", "price", "stock_time"]
        # The CTEs are named apart from the table S: Spark resolves names without regard to case.
        if w is STOCK_CHAIN:
            return f"""
WITH sells AS (SELECT * FROM S WHERE event_type = 'SELL'), buys AS (SELECT * FROM S WHERE event_type = 'BUY')
SELECT s.stock_time AS match_start, c.stock_time AS match_end,
       {_struct("s", cols)} AS s, {_struct("b", cols)} AS b, {_struct("c", cols)} AS c
FROM sells s JOIN buys b ON b.name = s.name AND {_before("s", "b")} AND b.stock_time - s.stock_time < {STOCK_WINDOW}
JOIN buys c ON c.volume = b.volume AND {_before("b", "c")} AND c.stock_time - s.stock_time < {STOCK_WINDOW}"""
        first = "least(s.stock_time, b.stock_time, c.stock_time)"
        return f"""
WITH sells AS (SELECT * FROM S WHERE event_type = 'SELL'), buys AS (SELECT * FROM S WHERE event_type = 'BUY')
SELECT {first} AS match_start, greatest(s.stock_time, b.stock_time, c.stock_time) AS match_end,
       {_struct("s", cols)} AS s, {_struct("b", cols)} AS b, {_struct("c", cols)} AS c
FROM sells s JOIN buys b ON b.name = s.name AND abs(b.stock_time - s.stock_time) < {STOCK_WINDOW}
JOIN buys c ON c.name = s.name AND c.volume = b.volume AND c.id != b.id
WHERE greatest(s.stock_time, b.stock_time, c.stock_time) - {first} < {STOCK_WINDOW}"""
    length = int(w.name.split("_")[0][len("chain") :])
    windows = int(w.name.split("_x")[1].split("_")[0]) if "_x" in w.name else 1
    last = "WITHDRAW" if not w.name.endswith("_none") else "CLOSE"
    n = length - 1
    joins = [
        f"JOIN t t{i} ON t{i}.acct = t{i - 1}.peer AND t{i}.ts > t{i - 1}.ts AND t{i}.ts - t1.ts < {windows * T_MS}"
        for i in range(2, n + 1)
    ]
    joins.append(f"JOIN w ON w.acct = t{n}.peer AND w.ts > t{n}.ts AND w.ts - t1.ts < {windows * T_MS}")
    events = [f"{_struct(f't{i}', COLUMNS)} AS t{i}" for i in range(1, n + 1)] + [f"{_struct('w', COLUMNS)} AS w"]
    return (
        f"WITH t AS (SELECT * FROM S WHERE event_type = 'TRANSFER'), "
        f"w AS (SELECT * FROM S WHERE event_type = '{last}')\n"
        f"SELECT t1.ts AS match_start, w.ts AS match_end, {', '.join(events)}\nFROM t t1\n" + "\n".join(joins)
    )


def prepare(b: Bench, millions: int, accounts: int = ACCOUNTS) -> Path:
    """The synthetic stream of `millions` M events over `accounts` accounts as parquet, written once to the cache
    (deterministic: every column is a hash of the event's id)."""
    from pyspark.sql import functions as F

    name = f"m{millions}" + ("" if accounts == ACCOUNTS else f"_a{accounts}")
    path = Path(b.args.cache) / "accounts" / f"{name}.parquet"
    if not (path / "_SUCCESS").exists():
        started = time.perf_counter()
        types = F.array(*[F.lit(t) for t in TYPES])
        (
            b.spark.range(millions * 1_000_000, numPartitions=8)
            .select(
                F.element_at(types, (F.pmod(F.xxhash64("id", F.lit(1)), F.lit(len(TYPES))) + 1).cast("int")).alias(
                    "event_type"
                ),
                "id",
                F.pmod(F.xxhash64("id", F.lit(2)), F.lit(accounts)).alias("acct"),
                F.pmod(F.xxhash64("id", F.lit(3)), F.lit(accounts)).alias("peer"),
                (F.pmod(F.xxhash64("id", F.lit(4)), F.lit(100_000)) / 100.0).alias("amount"),
                F.col("id").alias("ts"),
            )
            .write.mode("overwrite")
            .parquet(str(path))
        )
        print(
            f"  accounts: {millions} M events, {accounts:,} accounts ({time.perf_counter() - started:.0f} s)",
            flush=True,
        )
    return path


def _view(b: Bench, millions: int, accounts: int = ACCOUNTS) -> None:
    b.spark.read.parquet(str(prepare(b, millions, accounts))).createOrReplaceTempView("S")


def _turned_off(b: Bench, w: Workload, conf: str):
    """spark-cer with the boolean conf `conf` off: the PCEA (the query runs on the general evaluator), or the range
    split (it runs in one task)."""

    def make():
        b.spark.conf.set(conf, "false")
        try:
            return b.spark.sql(w.text())  # analyzed now: the plan keeps what was chosen while the conf is off
        finally:
            b.spark.conf.unset(conf)

    return make


def _floor(b: Bench) -> Task:
    """The rows chain4's atoms accept (transfers and withdrawals), read and sorted in one task, written to Spark's noop
    sink: nothing above the sort, which an aggregate would drop."""

    def make():
        return (
            b.spark.table("S").where("event_type IN ('TRANSFER', 'WITHDRAW')").repartition(1).sortWithinPartitions("ts")
        )

    return Task("floor", FLOOR, main_scale(b.args), make, b.args.cer_timeout, action="write")


def run_equality_phase(b: Bench, a: argparse.Namespace) -> None:
    """Every workload three ways, interleaved and checked against each other; then the PCEA's state over stream
    lengths."""
    main, stock = main_scale(a), a.scale if a.quick else STOCK_SCALE
    assert main != stock and stock not in memory_scales(a), "a record's scales name one stream each"
    print(f"\n== equality correlation by PCEA: {main} M account events, the stock trace x{stock}")
    for scale, workloads, view in ((main, SYNTHETIC, lambda: _view(b, main)), (stock, STOCKS, lambda: b.view(stock))):
        view()
        b.rec.events[scale] = b.spark.table("S").count()
        tasks: List[Task] = []
        for w in workloads:
            b.rec.plans[f"pcea:{w.name}"] = b.explain(w)
            b.rec.plans[f"sql:{w.name}"] = plain_sql(w)
            tasks += [
                Task("pcea", w, scale, b.cer_df(w), a.cer_timeout, metrics=True),
                Task("general", w, scale, _turned_off(b, w, GENERAL), a.timeout),
                Task("sql", w, scale, lambda q=plain_sql(w): b.spark.sql(q), a.timeout),
            ]
            if w in BY_WINDOW:
                tasks.append(Task(ONE_TASK, w, scale, _turned_off(b, w, RANGE_SPLIT), a.cer_timeout))
        if scale == main:
            tasks.append(_floor(b))
        b.measure_many(tasks)
        for w in workloads:
            ours = b.rec.get("pcea", w, scale)
            for system in ("general", "sql"):
                other = b.rec.get(system, w, scale)
                if ours and other:
                    compare(b, system, w, scale, ours, other, checksums=True)
    _view(b, main, DENSE_ACCOUNTS)
    b.measure_many([Task(ONE_TASK, w, main, _turned_off(b, w, RANGE_SPLIT), a.cer_timeout) for w in DENSE_BY_WINDOW])
    for m in memory_scales(a):
        _view(b, m)
        b.rec.events[m] = b.spark.table("S").count()
        b.measure_many([Task("pcea", chain(4), m, b.cer_df(chain(4)), a.cer_timeout, metrics=True)])


def goals(rec: Record) -> List[Goal]:
    main = main_scale(rec.args)

    def ratio(system: str, w: Workload) -> Optional[Ratio]:
        return speedup(rec.get("pcea", w, main), rec.get(system, w, main))

    def flat(system: str, series: Sequence[Workload]) -> Optional[float]:
        first, last = rec.get(system, series[0], main), rec.get(system, series[-1], main)
        return first.seconds / last.seconds if first and last and first.ok and last.ok else None

    four = chain(4)
    out = []
    for system, series, where in (
        (ONE_TASK, DENSE_BY_WINDOW, f"one task, {DENSE_ACCOUNTS:,} accounts (the window alone changes)"),
        (ONE_TASK, BY_WINDOW, f"one task, {ACCOUNTS:,} accounts (more transitions fire per event at 8T)"),
        ("pcea", BY_WINDOW, f"as planned (range split), {ACCOUNTS:,} accounts (8T reads more context)"),
    ):
        kept = flat(system, series)
        out.append(
            Goal(
                f"update time flat in the window: throughput at 8T over T without output (chain4_none), "
                f"{where}, at least 0.8",
                f"{kept:.2f}" if kept else "not measured",
                None if kept is None else kept >= 0.8,
                "a run failed",
            )
        )
    for system, label, short in (
        ("general", "the general evaluator (PCEA off)", "the general evaluator"),
        ("sql", "plain SQL hash self-joins", "plain SQL"),
    ):
        r = ratio(system, four)
        out.append(
            Goal(
                f"at least 10x {label} at length 4",
                str(r) if r else "not measured",
                None if r is None else r.value >= 10,
                "no ratio",
            )
        )
        points = [(w.name, ratio(system, w)) for w in BY_LENGTH]
        out.append(
            Goal(
                f"the ratio over {label} grows with the length (2 to 8)",
                ", ".join(f"{n} {r}" for n, r in points),
                *growing(points, short),
            )
        )
    runs = [(m, rec.get("pcea", four, m)) for m in memory_scales(rec.args)]
    out.append(
        flat_memory(
            "chain4's peak PCEA index entries, one task",
            [(f"{m} M", r.extra.get("spark_peak_states") if r and r.ok else None) for m, r in runs],
        )
    )
    return out


def plot(rec: Record) -> Optional[Path]:
    """Throughput (events/s) against the window (chain4 without output) and against the length (with output), for
    each way of running it."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    main = main_scale(rec.args)
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    labels = {"pcea": "spark-cer (PCEA)", "general": "spark-cer, PCEA off", "sql": "plain SQL self-joins"}
    colors = {"pcea": "tab:blue", "general": "tab:orange", "sql": "tab:green"}
    series = [(system, system, BY_WINDOW, BY_LENGTH) for system in SYSTEMS]
    series += [
        ("one task", ONE_TASK, BY_WINDOW, []),
        (f"one task, {DENSE_ACCOUNTS:,} accounts", ONE_TASK, DENSE_BY_WINDOW, []),
    ]
    labels.update(
        {
            "one task": "spark-cer (PCEA), one task",
            f"one task, {DENSE_ACCOUNTS:,} accounts": f"spark-cer (PCEA), one task, {DENSE_ACCOUNTS:,} accounts",
        }
    )
    colors.update({"one task": "tab:purple", f"one task, {DENSE_ACCOUNTS:,} accounts": "tab:red"})
    for label, system, by_window, by_length in series:
        for axis, workloads, xs in ((left, by_window, WINDOWS), (right, by_length, LENGTHS)):
            points = [(x, rec.get(system, w, main)) for x, w in zip(xs, workloads)]
            points = [(x, r.eps) for x, r in points if r and r.ok and r.eps]
            if points:
                axis.plot(
                    [x for x, _ in points], [e for _, e in points], marker="o", label=labels[label], color=colors[label]
                )
    left.set(
        xlabel="window (multiples of T = 1 minute)",
        ylabel="events / s",
        title="chain4 without output",
        xticks=list(WINDOWS),
        xticklabels=[f"{k}T" for k in WINDOWS],
    )
    right.set(
        xlabel="length of the chain",
        ylabel="events / s",
        title="chains at T, with output",
        yscale="log",
        xticks=list(LENGTHS),
    )
    for axis in (left, right):
        axis.grid(alpha=0.3)
        axis.legend(fontsize=8)
    fig.suptitle(f"Equality correlation, {rec.events.get(main, 0):,} account events")
    fig.tight_layout()
    path = RESULTS / "equality.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def report(rec: Record) -> None:
    """bench/results/equality.md from the record of a run."""
    main, stock = main_scale(rec.args), rec.args.scale if rec.args.quick else STOCK_SCALE
    out = [
        "# Equality correlation by PCEA\n",
        f"Command: `{rec.command}`. Best of {rec.args.repeat} runs after a warm-up (a warm-up longer than "
        f"{rec.args.long:.0f} s is the only run); the general evaluator and plain SQL cancelled after "
        f"{rec.args.timeout:.0f} s. Times are seconds, in one run (interleaved); ratios are the other's time over "
        "the PCEA's. *General*: spark-cer with `spark.cer.pcea.enabled=false` (registers or the lazy chain). "
        "*Plain SQL*: hash self-joins on the equalities, the window a join condition.\n",
        f"The synthetic stream: {ACCOUNTS:,} accounts, five event types (40 % transfers), one event per ms; T = "
        f"{T_MS // 1000} s. chainL: L - 1 transfers, each from the account the one before paid, then a withdrawal "
        "from the last account paid; `_none`: the withdrawal replaced by a type no event has (runs are built, "
        "nothing is output); `_xk`: window kT.\n",
    ]
    for scale, workloads, title in (
        (main, SYNTHETIC, f"{rec.events.get(main, 0):,} account events"),
        (stock, STOCKS, f"the stock trace x{stock} ({rec.events.get(stock, 0):,} events)"),
    ):
        out += [
            f"\n## {title}\n",
            "| workload | matches | PCEA s | events/s | general s | general / PCEA | plain SQL s | SQL / PCEA | "
            "same matches |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---|",
        ]
        for w in workloads:
            ours = rec.get("pcea", w, scale)
            if not (ours and ours.ok):
                out.append(f"| {w.name} | - | {ours.message if ours else 'not run'} | - | - | - | - | - | - |")
                continue
            cells, same = [], []
            for system in ("general", "sql"):
                other = rec.get(system, w, scale)
                cells += [
                    f"{other.seconds:.2f}" if other and other.ok else (other.message if other else "-"),
                    str(speedup(ours, other) or "-"),
                ]
                if other and other.ok:
                    same.append((ours.rows, ours.checksum) == (other.rows, other.checksum))
            verdict = "-" if not same else ("yes" if all(same) else "**NO**")
            out.append(
                f"| {w.name} | {ours.rows:,} | {ours.seconds:.2f} | {ours.eps:,.0f} | {' | '.join(cells)} | {verdict} |"
            )
    out += ["\n## Goals\n", "| goal | measured | verdict |", "|---|---|---|"]
    out += [f"| {g.text} | {g.measured} | {g.cell()} |" for g in goals(rec)]
    span = rec.events.get(main, 0)  # one event per ms
    out += [
        "\n## Update time against the window (chain4 without output)\n",
        "Seconds, and throughput relative to T. *As planned*: the range split on (the default), cutting the stream "
        "into two ranges per task or more, each at most 32 windows long and reading the window before it, on 2 "
        f"cores (the stream spans {span / T_MS:.0f} windows of T, {span / (8 * T_MS):.0f} of 8T). *One task*: the "
        "range split "
        f"off. *Dense*: one task on the stream of {DENSE_ACCOUNTS:,} accounts, where nearly every transfer finds "
        "runs of its account at T already, so that the window is all that changes.\n",
        "| window | as planned s | rel. | one task s | rel. | dense, one task s | rel. |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for i, k in enumerate(WINDOWS):
        cells = []
        for system, series in (("pcea", BY_WINDOW), (ONE_TASK, BY_WINDOW), (ONE_TASK, DENSE_BY_WINDOW)):
            r, first = rec.get(system, series[i], main), rec.get(system, series[0], main)
            ok = r and r.ok and first and first.ok
            cells += [f"{r.seconds:.2f}" if ok else "-", f"{first.seconds / r.seconds:.2f}" if ok else "-"]
        out.append(f"| {k}T | {' | '.join(cells)} |")
    floor, ours, sql = (rec.get("floor", FLOOR, main), rec.get("pcea", chain(4), main), rec.get("sql", chain(4), main))
    if floor and floor.ok and ours and ours.ok:
        line = (
            f"\nThe floor, Spark reading the rows chain4's atoms accept and sorting them in one task with no pattern "
            f"matching: {floor.seconds:.2f} s. chain4 (with output, as planned) takes {ours.seconds:.2f} s, "
            f"{ours.seconds / floor.seconds:.2f} times the floor"
        )
        if sql and sql.ok:
            line += (
                f"; plain SQL takes {sql.seconds:.2f} s, {sql.seconds / floor.seconds:.1f} times the floor, so 10x "
                "plain SQL "
                + (
                    "would be faster than the floor: out of reach for any evaluation that reads the stream in order"
                    if sql.seconds / floor.seconds < 10
                    else "is within reach"
                )
            )
        out.append(line + ".")
    if (RESULTS / "equality.png").exists():
        out.append("\n![throughput against the window and the length](equality.png)")
    out += ["\n## Plans\n"]
    for w in SYNTHETIC + STOCKS:
        plan = rec.plans.get(f"pcea:{w.name}", "")
        line = next((x.strip() for x in plan.splitlines() if "CerMatch" in x or "PCEA" in x), "")
        out.append(f"- {w.name}: `{w.text().strip().replace(chr(10), ' ')}`\n  - {line[:400]}")
    if rec.failures:
        out += ["\n## Failures\n"] + [f"- {f}" for f in rec.failures]
    (RESULTS / "equality.md").write_text("\n".join(out) + "\n")
