"""What a benchmark run records, and its round trip through bench/results/spark.json. The report and the plots are
built from a Record alone, so that --report-only rebuilds them from the JSON without running anything."""

from __future__ import annotations

import argparse
import datetime as dt
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from .workloads import W, Workload


@dataclass
class Result:
    status: str = "ok"  # ok | timeout | error | skipped
    seconds: Optional[float] = None  # the best run
    runs: List[float] = field(default_factory=list)
    events: Optional[int] = None
    rows: Optional[int] = None  # matches (None for the floor, which observes nothing)
    checksum: Optional[int] = None  # bit_xor of xxhash64 over the ids of each match
    message: str = ""
    extra: Dict[str, Any] = field(default_factory=dict)

    @property
    def eps(self) -> Optional[float]:
        return self.events / self.seconds if self.ok and self.seconds and self.events else None

    @property
    def ok(self) -> bool:
        return self.status == "ok"


# The fields of a Result in spark.json; everything else there is an extra (events_per_s is derived).
FIELDS = ("status", "seconds", "runs", "events", "rows", "checksum", "message")


def key(system: str, w: Workload, scale: int) -> str:
    return f"{system}|{w.name}|x{scale}"


Load = Tuple[float, float, float]  # 1-, 5- and 15-minute load averages


@dataclass
class Record:
    args: Optional[argparse.Namespace] = None  # settled: --quick applied, scales a sorted list, ops Workloads
    command: str = ""
    started: Optional[dt.datetime] = None
    elapsed: Optional[float] = None  # seconds
    results: Dict[str, Result] = field(default_factory=dict)  # by key(system, workload, scale)
    failures: List[str] = field(default_factory=list)
    notes: List[str] = field(default_factory=list)  # the checks run before the measurements
    events: Dict[int, int] = field(default_factory=dict)  # events per scale
    plans: Dict[str, str] = field(default_factory=dict)  # plans (floors: as executed), plain SQL, slice checks
    load: List[Tuple[str, Load]] = field(default_factory=list)  # at the start and at the end
    machine: List[Tuple[str, str]] = field(default_factory=list)

    def fail(self, message: str) -> None:
        self.failures.append(message)
        print(f"\n!!! FAILURE: {message}\n", flush=True)

    def get(self, system: str, w: Workload, scale: int) -> Optional[Result]:
        return self.results.get(key(system, w, scale))

    def floor_of(self, w: Workload, scale: int) -> Optional[Result]:
        """The floor spark-cer's time on w is compared with: the faster of the floors matching its plan."""
        return self.results.get(key("floor-used", w, scale))

    def write(self, path: Path) -> None:
        results = {
            k: {
                "status": r.status,
                "seconds": r.seconds,
                "runs": r.runs,
                "events": r.events,
                "rows": r.rows,
                "checksum": r.checksum,
                "events_per_s": r.eps,
                "message": r.message,
                **r.extra,
            }
            for k, r in self.results.items()
        }
        args = None if self.args is None else {**vars(self.args), "ops": [[w.file, w.limit] for w in self.args.ops]}
        path.write_text(
            json.dumps(
                {
                    "command": self.command,
                    "date": self.started.isoformat() if self.started else None,
                    "elapsed": self.elapsed,
                    "args": args,
                    "machine": self.machine,
                    "load": self.load,
                    "notes": self.notes,
                    "failures": self.failures,
                    "results": results,
                    "events": self.events,
                    "plans": self.plans,
                },
                indent=1,
                default=str,
            )
            + "\n"
        )

    @classmethod
    def read(cls, path: Path) -> "Record":
        """A record written by write(). Files from before the harness recorded args, elapsed, machine, load and
        notes (bench/results/spark.json of the first runs) load with those left empty."""
        data = json.loads(path.read_text())
        args = data.get("args")
        if args is not None:
            args = argparse.Namespace(**{**args, "ops": [W(file, limit) for file, limit in args["ops"]]})
        results = {
            k: Result(
                **{f: v[f] for f in FIELDS if v.get(f) is not None},
                extra={x: y for x, y in v.items() if x not in FIELDS and x != "events_per_s"},
            )
            for k, v in data["results"].items()
        }
        return cls(
            args=args,
            command=data["command"],
            started=dt.datetime.fromisoformat(data["date"]) if data.get("date") else None,
            elapsed=data.get("elapsed"),
            results=results,
            failures=data.get("failures", []),
            notes=data.get("notes", []),
            events={int(k): v for k, v in data.get("events", {}).items()},
            plans=data.get("plans", {}),
            load=[(label, tuple(v)) for label, v in data.get("load", [])],
            machine=[(k, v) for k, v in data.get("machine", [])],
        )
