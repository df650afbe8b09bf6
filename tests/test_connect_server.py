"""
Spark Connect for real: a Connect server started as a user starts one, with PySpark's own
``spark-submit`` (``--class org.apache.spark.sql.connect.service.SparkConnectServer``), the jar in ``--jars`` and
the extension in ``spark.sql.extensions``; then two client sessions at once (tests/connect_client.py) whose
``spark.sql``, ``df.cer``, ``df.match_recognize`` and ``spark_cer.validate`` give this run's classic session's rows
and errors over their own views, and whose views and settings the other does not see; and a third whose batch and
streaming DataFrames give the classic session's rows, and whose errors read as on a classic session.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from pyspark.errors import AnalysisException

import connect_client
from checkout import PYSPARK_HOME, spark_environment
import spark_cer
from conftest import EVENT_COLUMNS, EVENT_SCHEMA, REPO, _event_rows, canonical
from test_dataframe import PATTERN, REFERENCE

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


# A third session on the server, for the DataFrame API: a batch DataFrame and a streaming one. Two shuffle partitions:
# each is a task per shuffle and, in the stream, a state store per micro-batch. It prints JSON lines: each error of
# spark.sql, then the batch counts, then the stream's.
CONNECT_SCRIPT = """
import json
import sys
sys.path.insert(0, {python!r})
from pyspark.sql import SparkSession, functions as F
import spark_cer
builder = SparkSession.builder.remote({url!r}).config("spark.sql.shuffle.partitions", "2")
spark = spark_cer.configure(builder).getOrCreate()
df = spark.read.csv({csv!r}, header=True, schema={schema!r})
df.createOrReplaceTempView("events")
for statement in {wrong!r}:
    try:
        spark.sql(statement)
    except Exception as e:
        print(json.dumps({{"error": [type(e).__name__, str(e)]}}))
found = df.cer({pattern!r}, partition_by="sym", order_by=["ts", "id"])
print(json.dumps({{"batch": [type(df).__module__, found.count(), df.match_recognize({clause!r}).count()]}}))
stream = (spark.readStream.schema({schema!r}).option("maxFilesPerTrigger", 1).json({source!r})
          .withColumn("t", F.timestamp_millis("ts")).withWatermark("t", "1 second"))
matches = stream.cer({stream_pattern!r}, partition_by="sym", order_by=["t", "id"])
query = (matches.writeStream.format("memory").queryName("connect_matches").outputMode("append")
         .option("checkpointLocation", {checkpoint!r}).start())
query.processAllAvailable()
query.stop()
print(json.dumps({{"stream": [type(matches).__module__,
                             [[row.s.id, row.b.id] for row in spark.table("connect_matches").collect()]]}}))
spark.stop()
"""
# MATCH_RECOGNIZE over the same rows: runs of falling prices per symbol.
FALLING_RUNS = "PARTITION BY sym ORDER BY ts, id MEASURES count(*) AS n PATTERN (A B+) DEFINE B AS price < PREV(price)"
# spark.sql statements with an analysis error of CEQL's and of MATCH_RECOGNIZE's, and where each is.
WRONG = {
    "SELECT * FROM events PATTERN SELL AS s ; BUY AS b FILTER s[prize > 100] ORDER BY ts": "prize",
    "SELECT * FROM events MATCH_RECOGNIZE (ORDER BY ts MEASURES sum(A.sym) AS s PATTERN (A+) DEFINE A AS price > 1)": "sum(A.sym)",
}
# The stream: the small event table as JSON files, its integer times read as seconds.
STREAM_PATTERN = "SELL AS s ; BUY AS b FILTER s[price > 100] WITHIN 8 SECONDS"


@pytest.fixture(scope="module")
def on_connect(server, events_csv, tmp_path_factory) -> dict:
    """What the script printed on a session of the server, by kind, and the folder its stream read."""
    pytest.importorskip("pandas", reason="the Spark Connect client needs grpcio, pandas and pyarrow")
    work = tmp_path_factory.mktemp("connect")
    rows = [dict(zip(EVENT_COLUMNS, r)) for r in _event_rows_for_stream()]
    source = work / "in"
    source.mkdir()
    chunks = [rows[i : i + 40] for i in range(0, len(rows), 40)]
    chunks += [[dict(rows[-1], event_type="FLUSH", id=10**6 + k, ts=10**9 + k)] for k in range(2)]
    for i, chunk in enumerate(chunks):
        path = source / f"{i:03d}.json"
        path.write_text("".join(json.dumps(r) + "\n" for r in chunk))
        os.utime(path, (1_000_000 + i, 1_000_000 + i))  # the file source takes files by modification time
    script = CONNECT_SCRIPT.format(
        python=str(REPO / "python"),
        url=server,
        csv=str(events_csv),
        pattern=PATTERN,
        clause=FALLING_RUNS,
        wrong=list(WRONG),
        schema=EVENT_SCHEMA,
        source=str(source),
        stream_pattern=STREAM_PATTERN,
        checkpoint=str(work / "checkpoint"),
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300, env=spark_environment()
    )
    assert done.returncode == 0, done.stderr[-3000:]
    printed = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return {
        "errors": [p["error"] for p in printed if "error" in p],
        "batch": next(p["batch"] for p in printed if "batch" in p),
        "stream": next(p["stream"] for p in printed if "stream" in p),
        "source": source,
        "stdout": done.stdout,
    }


def test_spark_connect(events, events_csv, runner, on_connect) -> None:
    """df.cer and df.match_recognize on a Spark Connect session give the classic session's rows."""
    # spark.sql raises spark-cer's errors on Spark Connect as on a classic session: the message placed in the
    # statement, with its caret, and no server stack under it.
    errors = on_connect["errors"]
    assert len(errors) == len(WRONG), on_connect["stdout"]
    for (kind, message), (statement, at) in zip(errors, WRONG.items()):
        with pytest.raises(AnalysisException) as classic:
            events.sparkSession.sql(statement)
        assert kind == "AnalysisException" and message == str(classic.value), message
        column = statement.index(at) + 1
        assert message.startswith(f"line 1, column {column}: ") and " " * (column + 1) + "^" * len(at) in message
        assert "JVM stacktrace" not in message and "\tat " not in message, message
    module, count, recognized = on_connect["batch"]
    assert module == "pyspark.sql.connect.dataframe"
    assert count == len(runner.matches(REFERENCE, events_csv))
    assert recognized == events.match_recognize(FALLING_RUNS).count() > 0


def test_spark_connect_stream(spark, on_connect) -> None:
    """A streaming DataFrame of a Spark Connect session: df.cer gives the batch query's matches."""
    module, rows = on_connect["stream"]
    assert module == "pyspark.sql.connect.dataframe"
    table = spark.read.schema(EVENT_SCHEMA).json(str(on_connect["source"]))
    table = table.selectExpr("*", "timestamp_millis(ts) AS t")
    expected = Counter(
        (r.s.id, r.b.id) for r in table.cer(STREAM_PATTERN, partition_by="sym", order_by=["t", "id"]).collect()
    )
    assert expected and Counter(tuple(r) for r in rows) == expected


def _event_rows_for_stream():
    """The small event table, its integer times read as seconds (a stream's event time is a timestamp)."""
    return [r[:5] + [r[5] * 1000] for r in _event_rows()]
