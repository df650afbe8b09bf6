"""
spark-cer demo: CEQL queries over the NYSE stock trace of the CORE paper (224,473 BUY/SELL events of 10 stocks
in one day), run by Spark.

    .venv/bin/python examples/demo.py

It starts a local SparkSession with spark-cer, loads the trace into a DataFrame, and runs three queries from
sql/stocks/: CORE's S3 (a sequence over the whole stream), the same shape within each stock (PARTITION BY),
and a burst of large purchases between two sales (Kleene + with the LAST strategy); then a query through the
DataFrame API, `stocks.cer(...)`. For each it shows a few matches and prints the match count and the events
per second.
"""

from __future__ import annotations

import time

from stocks import REPO, SCHEMA, STOCKS, clock, trade  # first: it finds spark_cer in a checkout

import spark_cer
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

# The stream order: time (ms since midnight), then the file's order among events of the same millisecond.
STREAM_ORDER = "ORDER BY stock_time, id DESC"


def run(spark: SparkSession, events: int, title: str, file: str, show) -> DataFrame:
    text = (REPO / "sql" / "stocks" / file).read_text()
    query = text + STREAM_ORDER + "\n"
    print(f"\n== {title}  (sql/stocks/{file})")
    print("\n".join("   " + line for line in text.strip().splitlines() if not line.startswith("--")))
    matches = spark.sql(query)
    started = time.perf_counter()
    count = matches.count()
    seconds = time.perf_counter() - started
    print(f"-> {count:,} matches in {seconds:.2f} s ({events / seconds:,.0f} events/s)")
    show(matches)
    return matches


def main() -> None:
    spark = spark_cer.session(
        app_name="spark-cer demo",
        **{
            "spark.ui.enabled": "false",
            "spark.ui.showConsoleProgress": "false",
            "spark.sql.shuffle.partitions": "8",
            "spark.sql.session.timeZone": "UTC",
        },
    )
    spark.sparkContext.setLogLevel("ERROR")

    stocks = spark.read.csv(str(STOCKS), header=True, schema=SCHEMA).cache()
    events = stocks.count()
    stocks.createOrReplaceTempView("S")  # the queries read FROM S
    print(f"Loaded {events:,} events from {STOCKS}")
    stocks.show(3)

    run(
        spark,
        events,
        "CORE's S3: an INTC sale, then RIMM and QQQ purchases, within 10 s",
        "s3.ceql",
        lambda m: (
            m.select(
                clock("match_start", millis=True).alias("start"),
                clock("match_end", millis=True).alias("end"),
                trade("T1").alias("T1"),
                trade("T2").alias("T2"),
                trade("T3").alias("T3"),
            )
            .orderBy("match_end", "T1.id", "T2.id", "T3.id")
            .show(5, truncate=False)
        ),
    )

    def per_stock(m: DataFrame) -> None:
        m.groupBy("name").count().orderBy(F.desc("count")).show(10)
        m.select(
            "name",
            clock("match_start", millis=True).alias("start"),
            clock("match_end", millis=True).alias("end"),
            trade("T1").alias("T1"),
            trade("T2").alias("T2"),
            trade("T3").alias("T3"),
        ).orderBy("match_end", "name").show(5, truncate=False)

    run(
        spark,
        events,
        "S3's shape within each stock (PARTITION BY name), large volumes, within 1 s",
        "s3_by_name.ceql",
        per_stock,
    )

    run(
        spark,
        events,
        "A burst of large purchases between two sales of a stock (Kleene +, LAST)",
        "rising_last.ceql",
        lambda m: (
            m.select(
                "name",
                clock("match_start", millis=True).alias("start"),
                clock("match_end", millis=True).alias("end"),
                trade("s").alias("sale"),
                F.size("burst").alias("buys"),
                F.expr("transform(burst, b -> b.volume)").alias("burst volumes"),
                trade("e").alias("next sale"),
            )
            .orderBy("match_end", "name")
            .show(5, truncate=False)
        ),
    )

    print("\n== The DataFrame API: a sale then a purchase of 10,000 shares or more of one stock within 0.5 s")
    pattern = (
        "SELECT s, b WHERE SELL AS s ; BUY AS b FILTER s[volume >= 10000] AND b[volume >= 10000] "
        "WITHIN 500 [stock_time]"
    )
    print(f"   stocks.cer({pattern!r},\n              partition_by='name', order_by=['stock_time', 'id DESC'])")
    big = stocks.cer(pattern, partition_by="name", order_by=["stock_time", "id DESC"])
    started = time.perf_counter()
    count = big.count()
    seconds = time.perf_counter() - started
    print(f"-> {count:,} matches in {seconds:.2f} s ({events / seconds:,.0f} events/s)")
    big.select(
        "name",
        clock("match_start", millis=True).alias("start"),
        clock("match_end", millis=True).alias("end"),
        trade("s").alias("sale"),
        trade("b").alias("purchase"),
    ).orderBy("match_end", "name").show(5, truncate=False)

    spark.stop()


if __name__ == "__main__":
    main()
