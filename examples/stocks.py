"""What the examples share: the NYSE stock trace, its schema, and a readable rendering of matched trades."""

from __future__ import annotations

import sys
from pathlib import Path

from pyspark.sql import Column
from pyspark.sql import functions as F

REPO = Path(__file__).resolve().parents[1]
try:
    import spark_cer  # noqa: F401
except ImportError:  # run from a checkout without installing the package
    sys.path.insert(0, str(REPO / "python"))

SHARED_STOCKS = REPO.parent / "shared" / "data" / "stocks.csv"
STOCKS = SHARED_STOCKS if SHARED_STOCKS.exists() else REPO / "data" / "stocks.csv.gz"
SCHEMA = "event_type string, id long, name string, volume long, price double, stock_time long"


def clock(column: str, millis: bool = False) -> Column:
    """A time of the trading day as HH:mm:ss.SSS: a timestamp, or (millis) ms since midnight like stock_time."""
    time = F.timestamp_millis(F.col(column)) if millis else F.col(column)
    return F.date_format(time, "HH:mm:ss.SSS")


def trade(variable: str) -> Column:
    """One matched event, readably: '#1234 SELL INTC 200 @ 27.85'."""
    return F.format_string(
        "#%d %s %s %d @ %.2f",
        F.col(f"{variable}.id"),
        F.col(f"{variable}.event_type"),
        F.col(f"{variable}.name"),
        F.col(f"{variable}.volume"),
        F.col(f"{variable}.price"),
    )
