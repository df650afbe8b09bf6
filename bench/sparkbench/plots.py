"""The PNG plots of bench/results, drawn from a Record with matplotlib (no Spark, no Java)."""

from __future__ import annotations

from typing import List

from .record import Record
from .workloads import LENGTH, RANGE_SPLIT, RESULTS, SEQ_NONE, SEQ_OUT, SPLIT, T, W, WINDOW_NONE, WINDOW_OUT, Workload


PLOTS = [
    (
        "spark-length.png",
        "throughput vs sequence length (S3..S24 with and without output): engine alone, spark-cer, plain SQL, floor",
    ),
    ("spark-window.png", "throughput vs window T..4T (S3' and S3)"),
    ("spark-memory.png", "peak tECS nodes and active states vs stream length"),
    ("spark-scale.png", "S3 throughput vs stream length"),
    ("spark-range-split.png", f"end-to-end time with {RANGE_SPLIT} false and true"),
    ("spark-operators.png", "throughput on the other-operator queries"),
]


def plots(rec: Record) -> None:
    """The PNGs of PLOTS in bench/results, from the record of a run."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    a, S = rec.args, rec.args.scale
    systems = [
        ("engine", "engine alone", "o-"),
        ("spark-cer", "spark-cer end to end", "s-"),
        ("sql-bucketed", "plain SQL (bucketed joins)", "^-"),
        ("sql-naive", "plain SQL (naive joins)", "v-"),
    ]

    def series(system: str, ws: List[Workload], k: int, xs: List[float]):
        """Throughput of `system` ("floor": the floor each workload was compared with) over the x values."""
        result = (lambda w: rec.floor_of(w, k)) if system == "floor" else (lambda w: rec.get(system, w, k))
        pts = [(x, r.eps) for x, w in zip(xs, ws) if (r := result(w)) and r.ok and r.eps]
        return [p[0] for p in pts], [p[1] for p in pts]

    def timeouts(system: str, ws: List[Workload], k: int, xs: List[float]):
        return [x for x, w in zip(xs, ws) if (r := rec.get(system, w, k)) and r.status == "timeout"]

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5), sharey=True)
    for ax, ws, title in ((axes[0], SEQ_OUT, "with output (S3..S24)"), (axes[1], SEQ_NONE, "no output (S3'..S24')")):
        xs = [LENGTH[w.file.split("_")[0]] for w in ws]
        for system, label, style in systems:
            x, y = series(system, ws, S, xs)
            if x:
                ax.plot(x, y, style, label=label)
            t = timeouts(system, ws, S, xs)
            if t:  # at most events / timeout
                ax.plot(
                    t,
                    [rec.events.get(S, 0) / a.timeout] * len(t),
                    "x",
                    markersize=9,
                    color=ax.lines[-1].get_color() if x else "red",
                    label=f"{label}: cancelled after {a.timeout:.0f} s (at most)",
                )
        x, y = series("floor", ws, S, xs)
        if x:
            ax.plot(x, y, "k--", label="floor (read, shuffle, sort)")
        ax.set_xscale("log", base=2)
        ax.set_xticks(xs, [str(v) for v in xs])
        ax.set_yscale("log")
        ax.set_xlabel("sequence length")
        ax.set_title(f"{title}, x{S} ({rec.events.get(S, 0):,} events)")
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
        x, y = series("floor", ws, S, xs)
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
        pts = [
            (rec.events.get(k), r.extra.get("peak_nodes"), r.extra.get("peak_states"))
            for k in a.scales
            if (r := rec.get("engine", w, k)) and r.ok
        ]
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
        pts = [(rec.events[k], r.eps) for k in a.scales if (r := rec.get(system, s3, k)) and r.ok and r.eps]
        if pts:
            ax.plot(*zip(*pts), style, label=label)
    pts = [(rec.events[k], r.eps) for k in a.scales if (r := rec.floor_of(s3, k)) and r.ok and r.eps]
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
            off, on = rec.get("split-false", w, k), rec.get("split-true", w, k)
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
        ys = [(r.eps if (r := rec.get(system, w, a.ops_scale)) and r.ok and r.eps else 0) for w in ws]
        ax.bar([x + (i - 1) * 0.27 for x in xs], ys, 0.27, label=label)
    fys = [(r.eps if (r := rec.floor_of(w, a.ops_scale)) and r.ok and r.eps else 0) for w in ws]
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
