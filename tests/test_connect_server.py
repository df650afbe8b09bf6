"""
Spark Connect for real: a Connect server started as a user starts one, with PySpark's own
``spark-submit`` (``--class org.apache.spark.sql.connect.service.SparkConnectServer``), the jar in ``--jars`` and
the extension in ``spark.sql.extensions``; then two client sessions at once (tests/connect_client.py) whose
``spark.sql``, ``df.cer``, ``df.match_recognize`` and ``spark_cer.validate`` give this run's classic session's rows
and errors over their own views, and whose views and settings the other does not see.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

import connect_client
from checkout import PYSPARK_HOME, spark_environment
import spark_cer
from conftest import canonical

pytestmark = pytest.mark.slow  # a Spark Connect server and its clients

CLIENT = Path(__file__).resolve().parent / "connect_client.py"
START_TIMEOUT = 180  # seconds until the server listens


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("localhost", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(jar, tmp_path_factory):
    """A Spark Connect server on a free port, stopped at the end of the module."""
    pytest.importorskip("grpc", reason="the Spark Connect client needs grpcio, pandas and pyarrow")
    pytest.importorskip("pyarrow", reason="the Spark Connect client needs grpcio, pandas and pyarrow")
    port = _free_port()
    log = tmp_path_factory.mktemp("connect") / "server.log"
    command = [
        str(PYSPARK_HOME / "bin" / "spark-submit"),
        "--class",
        "org.apache.spark.sql.connect.service.SparkConnectServer",
        "--master",
        "local[2]",
        "--jars",
        jar,
        "--conf",
        f"spark.sql.extensions={spark_cer.EXTENSION_CLASS}",
        "--conf",
        f"spark.connect.grpc.binding.port={port}",
        "--conf",
        "spark.ui.enabled=false",
        "--conf",
        "spark.sql.shuffle.partitions=4",
        "--conf",
        "spark.sql.session.timeZone=UTC",
    ]
    env = spark_environment()
    with open(log, "w") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env)
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        assert process.poll() is None, f"the server exited:\n{log.read_text()[-4000:]}"
        try:
            socket.create_connection(("localhost", port), timeout=1).close()
            break
        except OSError:
            assert time.monotonic() < deadline, f"the server did not listen:\n{log.read_text()[-4000:]}"
            time.sleep(0.5)
    yield f"sc://localhost:{port}"
    process.terminate()
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()


@pytest.fixture(scope="module")
def clients(server, events_csv):
    done = subprocess.run(
        [sys.executable, str(CLIENT), "--url", server, "--events", str(events_csv)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _classic(spark, events, view: str) -> dict:
    """What the client's workload gives on this run's classic session, over the same rows."""
    events.where(view).createOrReplaceTempView("connect_events")
    rows = lambda q: sorted(canonical(spark.sql(q.replace("FROM events", "FROM connect_events")).collect()).elements())
    df = spark.table("connect_events")
    return {
        "ceql": rows(connect_client.CEQL),
        "df.cer": sorted(
            canonical(df.cer(connect_client.PATTERN, partition_by="sym", order_by=["ts", "id"]).collect()).elements()
        ),
        "match_recognize": rows(connect_client.MATCH_RECOGNIZE),
        "df.match_recognize": sorted(canonical(df.match_recognize(connect_client.CLAUSE).collect()).elements()),
    }


@pytest.mark.parametrize("session", list(connect_client.VIEWS))
def test_each_session_gets_the_classic_rows_of_its_own_view(spark, events, clients, session: str) -> None:
    got = clients[session]
    assert got["module"] == "pyspark.sql.connect.dataframe"
    expected = _classic(spark, events, connect_client.VIEWS[session])
    for query, rows in expected.items():
        assert rows, f"{query} should match something over {session}"
        assert got[query] == rows, query
    assert clients["all"]["ceql"] != clients["one symbol"]["ceql"], "the two views should give other rows"


def test_validate_on_a_connect_session_places_the_error(clients) -> None:
    at = connect_client.WRONG.index("prize") + 1
    for session in connect_client.VIEWS:
        kind, line, column, message = clients[session]["validate"]
        assert (kind, line, column) == ("PatternAnalysisError", 1, at), message
        assert "unknown column 'prize'" in message


def test_a_session_sees_neither_the_others_views_nor_its_settings(clients) -> None:
    assert not any(clients["views seen across sessions"].values()), clients["views seen across sessions"]
    # The first session turned PCEA off for itself only.
    assert "not by PCEA: PCEA is turned off" in clients["all"]["plan"]
    assert "equality correlation by PCEA" in clients["one symbol"]["plan"]
