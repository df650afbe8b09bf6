"""
spark-cer where users run it: on Spark's multi-process mode, ``local-cluster[2,1,1024]`` (a master, two
workers, each executor a JVM of its own), in a process of its own (tests/cluster_worker.py), with the jar shipped
through ``spark.jars`` as a user ships it. Every evaluator path of CEQL (tECS, the lazy chain, registers, PCEA, the
range split), the ``cer`` table function, MATCH_RECOGNIZE, ``df.cer`` and ``df.match_recognize`` must give exactly
the rows of this run's ``local[2]`` session, where driver and executors share one JVM; so must CEQL and
MATCH_RECOGNIZE when an executor is killed in the middle of their tasks.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import cluster_worker
from checkout import spark_environment
from conftest import STOCKS

pytestmark = pytest.mark.slow  # a local cluster in a process of its own

WORKER = Path(__file__).resolve().parent / "cluster_worker.py"
MASTER = "local-cluster[2,1,1024]"
TIMEOUT = 600  # seconds: the cluster's start and every query, on a slow machine


@pytest.fixture(scope="module")
def on_cluster(jar, events_csv, tmp_path_factory):
    """The worker's rows on the multi-process cluster, per query."""
    work = tmp_path_factory.mktemp("cluster")
    out = work / "rows.json"
    env = spark_environment(SPARK_CER_JAR=jar)
    done = subprocess.run(
        [
            sys.executable,
            str(WORKER),
            "--master",
            MASTER,
            "--events",
            str(events_csv),
            "--stocks",
            str(STOCKS),
            "--out",
            str(out),
            "--kill-dir",
            str(work),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert done.returncode == 0, f"the worker failed:\n{done.stdout[-4000:]}\n{done.stderr[-8000:]}"
    return json.loads(out.read_text())


@pytest.fixture(scope="module")
def on_one_jvm(spark, events, stocks):
    """The same queries on this run's session, over its views of the same files (`events`, `stocks`)."""
    return cluster_worker.frames(spark)


def test_the_cluster_has_executors_of_their_own(on_cluster) -> None:
    assert on_cluster["executors"] == 2


@pytest.mark.parametrize("name", list(cluster_worker.STATEMENTS) + list(cluster_worker.FRAMES))
def test_rows_on_a_cluster_are_the_rows_on_one_jvm(on_cluster, on_one_jvm, name: str) -> None:
    expected = cluster_worker.canonical_rows(on_one_jvm[name])
    assert expected, f"{name} should match something on the test data"
    assert on_cluster["rows"][name] == expected


@pytest.mark.parametrize("name", list(cluster_worker.STATEMENTS))
def test_each_query_takes_the_path_it_stands_for(on_one_jvm, name: str) -> None:
    plan = on_one_jvm[name]._jdf.queryExecution().executedPlan().toString()
    assert cluster_worker.STATEMENTS[name][1] in plan, plan


@pytest.mark.parametrize("name", cluster_worker.KILLED)
def test_an_executor_killed_in_the_middle_changes_no_row(on_cluster, on_one_jvm, name: str) -> None:
    killed = on_cluster["killed"][name]
    assert killed["killed"], "the query's first output row should have killed its executor"
    assert killed["rows"] == cluster_worker.canonical_rows(on_one_jvm[name])


def test_the_killed_executors_were_lost(on_cluster) -> None:
    assert on_cluster["executors lost"] == len(cluster_worker.KILLED)
