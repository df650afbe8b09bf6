"""
spark.cer.maxMatchesPerEvent: an event completing more matches fails the query with an error that says where
and what to write instead, raised as soon as the bound is passed (before the matches exhaust memory), and shown
to the user as it is (not inside the job's failure and its stack traces).
"""

from __future__ import annotations

import pytest
from pyspark.errors import SparkRuntimeException

# Under ALL without a window, the k-th A completes 2^(k-1) matches: 2^59 at the 60th.
UNBOUNDED = "SELECT * FROM runs WHERE (A AS a)+ ORDER BY pos"
BOUND = "spark.cer.maxMatchesPerEvent"


@pytest.fixture(scope="module")
def runs(spark):
    spark.range(60).selectExpr("'A' AS event_type", "id AS pos").createOrReplaceTempView("runs")


def test_too_many_matches_at_one_event_is_a_readable_error(spark, runs):
    with pytest.raises(SparkRuntimeException) as raised:
        spark.sql(UNBOUNDED).collect()
    message = raised.value.getMessage()
    # The 21st event (pos 20) completes 2^20 = 1,048,576 matches, the first count above the default 1,000,000.
    assert message.startswith(f"the event at pos = 20 completes more than 1000000 matches, the bound {BOUND}."), message
    for remedy in ("WITHIN", "SELECT LAST", "LIMIT n", f"raise {BOUND}"):
        assert remedy in message


def test_the_conf_sets_the_bound(spark, runs):
    # WITHIN 11 EVENTS: from the 11th event on, each completes 2^10 = 1024 matches.
    windowed = "SELECT * FROM runs WHERE (A AS a)+ ORDER BY pos WITHIN 11 EVENTS"
    spark.conf.set(BOUND, "1023")
    try:
        with pytest.raises(SparkRuntimeException, match="the event at pos = 10 completes more than 1023 matches"):
            spark.sql(windowed).count()
        spark.conf.set(BOUND, "1024")
        assert spark.sql(windowed).count() == 2047 + 49 * 1024
    finally:
        spark.conf.unset(BOUND)


def test_what_the_error_suggests_runs(spark, runs):
    assert spark.sql("SELECT LAST * FROM runs WHERE (A AS a)+ ORDER BY pos").count() == 60
    assert spark.sql(UNBOUNDED + " LIMIT 3").count() == 1 + 2 + 58 * 3


NODES = "spark.cer.maxPartialMatchNodes"


def test_partial_matches_past_the_node_bound_are_a_readable_error(spark):
    # Sums of subsets of distinct powers of two are all distinct: a run per subset of the window's events.
    spark.range(200).selectExpr(
        "'A' AS event_type", "id AS pos", "shiftleft(1L, CAST(id % 40 AS INT)) AS v"
    ).createOrReplaceTempView("powers")
    query = "SELECT * FROM powers WHERE (A AS a)+ FILTER sum(a.v) < 0 ORDER BY pos WITHIN 40 EVENTS"
    spark.conf.set(NODES, "100000")
    try:
        # Under SELECT ALL the lazy chain (its subsets bounded per event) races the registers (their tECS nodes
        # bounded): whichever leads when its bound is passed stops the query, saying which bound and what to write.
        with pytest.raises(SparkRuntimeException) as raised:
            spark.sql(query).collect()
        message = raised.value.getMessage()
        assert ("the lazy chain visit more than" in message or "tECS nodes" in message) and "WITHIN" in message, message
        # With LIMIT the registers alone run it (the lazy chain takes SELECT ALL alone): a run per subset's sum.
        with pytest.raises(SparkRuntimeException) as raised:
            spark.sql(query + " LIMIT 10").collect()
        message = raised.value.getMessage()
        assert message.startswith(
            "at the event at pos = 16, the partial matches of its partition hold more than "
            f"100000 tECS nodes (one per run and event of the window), the bound {NODES}"
        ), message
        for remedy in ("WITHIN", "PARTITION BY", "':+'", f"raise {NODES}"):
            assert remedy in message
        # Over consecutive events the same sum keeps one run per start.
        assert spark.sql(query.replace(")+", "):+")).count() == 0
    finally:
        spark.conf.unset(NODES)
