"""
A Kafka broker on this machine, for the Kafka demo (examples/streaming.py --kafka) and tests/test_kafka.py: Apache
Kafka in KRaft mode (one process is both the broker and its controller, no ZooKeeper), started in a JVM of its own
from the jars of the Kafka release Spark's connector uses. `make` resolves them from Maven Central with build/sbt
(the `kafkaBroker` project of build.sbt) and writes their classpath to BROKER_CLASSPATH; nothing is fetched here.

    with KafkaBroker.start() as broker:
        broker.bootstrap_servers  # 'localhost:PORT', for the kafka.bootstrap.servers option of Spark's source and sink

The broker's data and log live in a temporary folder that stop() deletes.
"""

from __future__ import annotations

import base64
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import uuid
from pathlib import Path
from typing import Optional

REPO = Path(__file__).resolve().parents[1]
BROKER_CLASSPATH = REPO / "jvm" / "kafka-broker" / "target" / "broker-classpath.txt"
#: What a Spark session needs to read and write Kafka: Spark's connector, for spark.jars.packages (Spark's resolver
#: fetches it and its dependencies from Maven Central into ~/.ivy2.5.2 at the session's start). The connector of
#: Spark 4.0.0, not 4.0.1: the Maven Central this project's machines reach serves 4.0.1's connector but not the
#: spark-token-provider-kafka-0-10 4.0.1 it depends on; 4.0.0's brings kafka-clients 3.9.0, the broker's release.
SPARK_KAFKA_PACKAGE = "org.apache.spark:spark-sql-kafka-0-10_2.13:4.0.0"

# One node, so every replication factor is 1; transactions and consumer offsets need their internal topics to be
# creatable on it. New topics get three partitions: a topic's events then arrive in no single order.
_SETTINGS = """\
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@localhost:{controller_port}
listeners=PLAINTEXT://localhost:{port},CONTROLLER://localhost:{controller_port}
advertised.listeners=PLAINTEXT://localhost:{port}
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs={data}
num.partitions=3
auto.create.topics.enable=true
offsets.topic.replication.factor=1
offsets.topic.num.partitions=3
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=3
group.initial.rebalance.delay.ms=0
"""
_LOGGING = """\
log4j.rootLogger=INFO, file
log4j.appender.file=org.apache.log4j.FileAppender
log4j.appender.file.File={log}
log4j.appender.file.layout=org.apache.log4j.PatternLayout
log4j.appender.file.layout.ConversionPattern=[%d] %p %m (%c)%n
"""
_STARTED = "Kafka Server started"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("localhost", 0))
        return s.getsockname()[1]


def _cluster_id() -> str:
    """A cluster id as Kafka writes one (its Uuid: 16 random bytes in URL-safe base64, unpadded)."""
    return base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")


class KafkaBroker:
    """A running broker; :meth:`start` makes one, :meth:`stop` (or leaving a ``with`` block) ends it."""

    def __init__(self, process: subprocess.Popen, port: int, directory: Path) -> None:
        self.process = process
        self.port = port
        self.directory = directory

    @property
    def bootstrap_servers(self) -> str:
        return f"localhost:{self.port}"

    @property
    def log(self) -> Path:
        return self.directory / "broker.log"

    @classmethod
    def start(cls, *, java: Optional[str] = None, timeout: float = 90) -> "KafkaBroker":
        """Formats a new KRaft log folder, starts the broker and returns once it serves clients."""
        if not BROKER_CLASSPATH.exists():
            raise FileNotFoundError(
                f"no Kafka classpath at {BROKER_CLASSPATH}: `make {BROKER_CLASSPATH.relative_to(REPO)}` writes it "
                "(build/sbt resolves Apache Kafka from Maven Central; `make test` and `make demo-stream ARGS=--kafka` "
                "do it too)"
            )
        java = java or (str(Path(os.environ["JAVA_HOME"]) / "bin" / "java") if "JAVA_HOME" in os.environ else "java")
        directory = Path(tempfile.mkdtemp(prefix="spark-cer-kafka-"))
        port, controller_port = _free_port(), _free_port()
        settings, logging = directory / "server.properties", directory / "log4j.properties"
        settings.write_text(_SETTINGS.format(port=port, controller_port=controller_port, data=directory / "data"))
        logging.write_text(_LOGGING.format(log=directory / "broker.log"))
        command = [
            java,
            "-Xms128m",
            "-Xmx512m",
            f"-Dlog4j.configuration=file:{logging}",
            "-cp",
            BROKER_CLASSPATH.read_text().strip(),
        ]
        output = open(directory / "broker.out", "wb")
        try:
            # KRaft needs its storage formatted with a cluster id before the first start, as kafka-storage.sh does.
            subprocess.run(
                command + ["kafka.tools.StorageTool", "format", "-t", _cluster_id(), "-c", str(settings)],
                stdout=output,
                stderr=subprocess.STDOUT,
                check=True,
                timeout=timeout,
            )
            process = subprocess.Popen(
                command + ["kafka.Kafka", str(settings)],
                stdout=output,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own group, so that a test killing a driver's group leaves it running
            )
        except BaseException:
            output.close()
            shutil.rmtree(directory, ignore_errors=True)
            raise
        output.close()
        broker = cls(process, port, directory)
        deadline = time.time() + timeout
        while not (broker.log.exists() and _STARTED in broker.log.read_text(errors="replace")):
            if process.poll() is not None or time.time() > deadline:
                tail = (directory / "broker.out").read_text(errors="replace")[-3000:]
                tail += broker.log.read_text(errors="replace")[-3000:] if broker.log.exists() else ""
                broker.stop()
                raise RuntimeError(f"the Kafka broker did not start within {timeout:g} s:\n{tail}")
            time.sleep(0.2)
        return broker

    def stop(self, timeout: float = 30) -> None:
        """Shuts the broker down (SIGTERM, then SIGKILL after `timeout` seconds) and deletes its folder."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.directory, ignore_errors=True)

    def __enter__(self) -> "KafkaBroker":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()
