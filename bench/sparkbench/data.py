"""The input: CORE's one-day stock trace replayed k times, as parquet (Spark) and as a CSV sorted in stream order
(the engine's runner), written once to the cache; and the slice of its first events for the exact checks."""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import List, Optional, Tuple

from .workloads import DAY_MS, REPO, SCHEMA, SLICE_EVENTS


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
    todo = [
        k
        for k in scales
        if not (cache / "data" / f"x{k}.done").exists() or (cache / "data" / f"x{k}.done").read_text() != stamp
    ]
    slice_done = cache / "data" / "slice.done"
    if not todo and slice_done.exists() and slice_done.read_text() == stamp:
        return
    spark = (
        SparkSession.builder.master("local[2]")
        .appName("spark-cer-bench-data")
        .config("spark.driver.memory", "6g")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    base = spark.read.csv(str(source), header=True, schema=SCHEMA).cache()
    max_id = base.agg(F.max("id")).first()[0] + 1
    for k in todo:
        started = time.perf_counter()
        parquet, csv = data_paths(cache, k)
        reps = spark.range(k).withColumnRenamed("id", "rep")
        replay = base.crossJoin(reps).select(
            "event_type",
            (F.col("id") + F.col("rep") * max_id).alias("id"),
            "name",
            "volume",
            "price",
            (F.col("stock_time") + F.col("rep") * DAY_MS).alias("stock_time"),
        )
        ordered = replay.orderBy("stock_time", F.desc("id"))
        ordered.repartition(max(2, min(k, 16))).write.mode("overwrite").parquet(str(parquet))
        tmp = cache / "data" / f"x{k}.csv.d"
        spark.read.parquet(str(parquet)).orderBy("stock_time", F.desc("id")).coalesce(1).write.mode("overwrite").option(
            "header", True
        ).csv(str(tmp))
        part = next(tmp.glob("part-*.csv"))
        part.replace(csv)
        shutil.rmtree(tmp)
        (cache / "data" / f"x{k}.done").write_text(stamp)
        print(
            f"  data x{k}: {spark.read.parquet(str(parquet)).count():,} events ({time.perf_counter() - started:.0f} s)",
            flush=True,
        )
    (
        base.orderBy("stock_time", F.desc("id"))
        .limit(SLICE_EVENTS)
        .coalesce(1)
        .write.mode("overwrite")
        .parquet(str(cache / "data" / "slice.parquet"))
    )
    slice_done.write_text(stamp)
    spark.stop()
