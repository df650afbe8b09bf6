"""The goals of the Spark benchmark (spark-cer against plain Spark SQL and the floor) and their verdicts. A ratio over plain SQL is a lower bound when plain SQL was cancelled at
the timeout: a verdict says PASS or FAIL only when the ratios, bounds included, show it, and "not shown" (with the
reason) when they cannot."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

from .record import Record, Result
from .workloads import SEQ_OUT, WINDOW_NONE, WINDOW_OUT, W

NOISE = 0.10  # an exact ratio this much below an earlier one still counts as growing: run-to-run noise
TARGET = 10.0  # "at least 10x faster than plain SQL at length 3"


@dataclass(frozen=True)
class Ratio:
    value: float
    bound: bool = False  # a lower bound: the other side was cancelled at the timeout

    def __str__(self) -> str:
        return f"> {self.value:.0f}" if self.bound else f"{self.value:.2f}"


def speedup(ours: Optional[Result], other: Optional[Result]) -> Optional[Ratio]:
    """other's time over ours (> 1: we are faster); a lower bound when the other timed out."""
    if not ours or not ours.ok or not ours.seconds or not other:
        return None
    if other.ok and other.seconds:
        return Ratio(other.seconds / ours.seconds)
    if other.status == "timeout":
        return Ratio(timeout_of(other) / ours.seconds, bound=True)
    return None


def timeout_of(r: Result) -> float:
    """The timeout a cancelled run was cancelled at, from its message ("> 120 s ...")."""
    m = re.search(r"> (\d+)", r.message)
    return float(m[1]) if m else float("nan")


@dataclass(frozen=True)
class Goal:
    text: str
    measured: str
    verdict: Optional[bool]  # None: the measurements neither show nor refute it
    why: str = ""  # why not shown

    def cell(self) -> str:
        if self.verdict is None:
            return f"not shown: {self.why}"
        return "PASS" if self.verdict else "**FAIL**"


def steady(runs: Sequence[Tuple[str, Optional[Result]]], other: str) -> Optional[str]:
    """Why a growth verdict over `other` cannot be read, or None: when the runs of one workload differ by more than
    NOISE, the ratios' differences may be the baseline's own variation, not the effect measured."""
    spreads = [(name, min(r.runs), max(r.runs)) for name, r in runs if r and r.ok and len(r.runs) > 1]
    name, low, high = max(spreads, key=lambda s: s[2] / s[1], default=("", 1.0, 1.0))
    if high <= (1 + NOISE) * low:
        return None
    return (
        f"{other}'s runs of one workload differ by up to {high / low:.1f}x ({name}: {low:.1f} s and "
        f"{high:.1f} s), more than the {NOISE:.0%} a ratio may fall and still count as growing"
    )


def flat_memory(what: str, peaks: Sequence[Tuple[str, Optional[int]]]) -> Goal:
    """Memory flat in stream length: the peak at the longest stream at most 1.5 times (plus 16) the peak at the
    shortest; not measured when a run failed or kept no metrics (its peak None)."""
    if peaks and all(p is not None for _, p in peaks):
        low, high = peaks[0][1], peaks[-1][1]
        return Goal(
            f"memory flat in stream length ({what})", ", ".join(f"{n}: {p}" for n, p in peaks), high <= 1.5 * low + 16
        )
    return Goal("memory flat in stream length", "not measured", None, "a run failed or kept no metrics")


def growing(points: Sequence[Tuple[str, Optional[Ratio]]], other: str = "plain SQL") -> Tuple[Optional[bool], str]:
    """Whether ratios in this order grow. FAIL: an exact ratio more than NOISE below an earlier ratio (an earlier
    lower bound counts too: the ratio there is at least that). PASS: the exact ratios come first and grow (within
    NOISE), and every lower bound after them is at least the last exact ratio; lower bounds are not compared with
    each other, the true ratios behind them being unknown. Otherwise not shown, and the text says why (`other`: what
    was cancelled)."""
    known = [(name, r) for name, r in points if r is not None]
    top: Optional[Tuple[str, Ratio]] = None
    for name, r in known:
        if top and not r.bound and r.value < (1 - NOISE) * top[1].value:
            return False, ""
        if top is None or r.value > top[1].value:
            top = (name, r)
    if len(known) < 2:
        return None, "fewer than two ratios"
    n_exact = next((i for i, (_, r) in enumerate(known) if r.bound), len(known))
    exact, bounds = known[:n_exact], known[n_exact:]
    if not exact:
        return None, f"only lower bounds ({other} cancelled every time)"
    if any(not r.bound for _, r in bounds):
        return None, "an exact ratio follows a lower bound, whose true value may be larger"
    last_name, last = exact[-1]
    low = [f"{name} ({r})" for name, r in bounds if r.value < last.value]
    if low:
        return None, (
            f"{', '.join(low)}: lower bound{'s' if len(low) > 1 else ''} under the last exact ratio "
            f"({last_name}: {last}), {other} cancelled too early to tell"
        )
    return True, ""


def at_least(r: Ratio, target: float) -> Tuple[Optional[bool], str]:
    """Whether the ratio reaches the target; not shown when it is a lower bound below the target."""
    if r.value >= target:
        return True, ""
    if r.bound:
        return None, f"plain SQL was cancelled at the timeout; the speed-up is only known to exceed {r.value:.1f}x"
    return False, ""


def goals(rec: Record) -> List[Goal]:
    """The goals that the record's measurements bear on, in the report's order."""
    a, S = rec.args, rec.args.scale
    s3, s3n, s3x4 = W("s3"), W("s3_none"), W("s3_none_x4")
    out: List[Goal] = []
    cer3, fl3 = rec.get("spark-cer", s3, S), rec.floor_of(s3, S)
    if cer3 and cer3.ok and fl3 and fl3.ok:
        x = cer3.seconds / fl3.seconds
        out.append(
            Goal(
                "End to end within 2x of the floor on S3 (time over the floor's)",
                f"{x:.2f}x ({cer3.eps:,.0f} vs {fl3.eps:,.0f} events/s, x{S})",
                x <= 2,
            )
        )
    # at every scale: the naive self-join is quadratic in the input, spark-cer linear
    for variant, label in (
        ("sql-bucketed", "plain SQL (bucketed self-joins)"),
        ("sql-naive", "plain SQL (naive self-joins)"),
    ):
        for k in sorted(set(a.scales) | {S}):
            x = speedup(rec.get("spark-cer", s3, k), rec.get(variant, s3, k))
            if x is not None:
                out.append(
                    Goal(f"At least {TARGET:.0f}x faster than {label} on S3, x{k}", f"{x}x", *at_least(x, TARGET))
                )
    for title, ws in (
        ("length", SEQ_OUT),
        ("the window (S3, T..4T)", WINDOW_OUT),
        ("the window, no output (S3', T..4T)", WINDOW_NONE),
    ):
        xs = [(w.name, speedup(rec.get("spark-cer", w, S), rec.get("sql-bucketed", w, S))) for w in ws]
        out.append(
            Goal(
                f"Speed-up over plain SQL (bucketed) growing with {title}",
                ", ".join(f"{n}: {'-' if x is None else x}" for n, x in xs),
                *growing(xs),
            )
        )
    # The engine alone at the largest scale: at the main scale a pass over S3' takes about 0.1 s, which the JIT's
    # warm-up and the collector decide more than the window does.
    for system, label, k in (("engine", "engine alone", max(a.scales)), ("spark-cer", "end to end", S)):
        r1, r4 = rec.get(system, s3n, k), rec.get(system, s3x4, k)
        if r1 and r4 and r1.ok and r4.ok:
            x = r4.eps / r1.eps
            out.append(
                Goal(
                    f"Flat in the window, {label}: S3' throughput at 4T over T >= 0.8 (x{k})",
                    f"{x:.2f} ({r1.eps:,.0f} and {r4.eps:,.0f} events/s)",
                    x >= 0.8,
                )
            )
    for w in (s3n, s3, W("s3_by_name")):
        peaks = [(k, rec.get("engine", w, k)) for k in a.scales]
        peaks = [(k, r.extra.get("peak_nodes")) for k, r in peaks if r and r.ok]
        if len(peaks) > 1:
            lo, hi = min(p for _, p in peaks), max(p for _, p in peaks)
            out.append(
                Goal(
                    f"Memory flat in stream length, {w.name} (engine peak tECS nodes, x{peaks[0][0]}..x{peaks[-1][0]})",
                    ", ".join(f"x{k}: {p}" for k, p in peaks),
                    hi <= 1.1 * lo,
                )
            )
    return out
