"""The queries measured (sql/stocks/*.ceql), how they are grouped into experiments, and the paths and constants
every part of the harness shares."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional

REPO = Path(__file__).resolve().parents[2]
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


@dataclass(frozen=True)
class Workload:
    name: str  # shown in the report
    file: str  # sql/stocks/<file>.ceql
    limit: Optional[int] = None  # CEQL LIMIT n appended (CORE's "first thousand outputs per occurrence")
    query: Optional[str] = None  # the query itself, for a generated workload (no file)
    order: str = STREAM_ORDER

    def text(self) -> str:
        text = self.query if self.query else (SQL_DIR / f"{self.file}.ceql").read_text()
        text = text.rstrip() + "\n" + self.order + "\n"
        return text + (f"LIMIT {self.limit}\n" if self.limit else "")


def W(file: str, limit: Optional[int] = None) -> Workload:
    return Workload(file + (f" LIMIT {limit}" if limit else ""), file, limit)


SEQ_OUT = [W(f"s{n}") for n in (3, 6, 9, 12, 24)]
SEQ_NONE = [W(f"s{n}_none") for n in (3, 6, 9, 12, 24)]
WINDOW_NONE = [W("s3_none"), W("s3_none_x2"), W("s3_none_x3"), W("s3_none_x4")]
WINDOW_OUT = [W("s3"), W("s3_x2"), W("s3_x3"), W("s3_x4")]
OPS = [
    W("q1_seq4"),
    W("q2_seq4_filter"),
    W("q3_seq4_by_volume"),
    W("q4_or", 1000),
    W("q5_or_filter"),
    W("q6_or_by_volume"),
    W("q7_kleene", 1000),
    W("s3_by_name"),
    W("rising_last"),
]
OPS_HEAVY = [W("q4_or"), W("q7_kleene")]  # 87 M and 30 M matches on the one-day trace: --heavy only
OPS_QUICK = [W("q2_seq4_filter"), W("q3_seq4_by_volume"), W("q7_kleene", 1000), W("s3_by_name"), W("rising_last")]
SPLIT = [W("s3"), W("s3_none"), W("s3_none_x4")]
LENGTH = {"s3": 3, "s6": 6, "s9": 9, "s12": 12, "s24": 24}
SCALING = [W("s3"), W("s3_none"), W("s3_by_name"), W("rising_last")]  # run at every stream length


def partition_keys(w: Workload) -> List[str]:
    text = " ".join(line.split("--")[0] for line in (SQL_DIR / f"{w.file}.ceql").read_text().splitlines())
    m = re.search(r"PARTITION BY\s+(.*?)\s+(WITHIN|CONSUME|LIMIT|ORDER|$)", " ".join(text.split()), re.I)
    if not m:
        return []
    return [p.strip() for p in m[1].replace("[", "").replace("]", "").split(",") if p.strip()]


# The range split's longest range: 32 windows (spark.cer.rangeSplit.windowsPerRange) of the 10 s window T.
RANGE_WIDTH_MS = 32 * 10_000
