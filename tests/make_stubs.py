"""
Stand-ins for the expensive tools the Makefile calls (sbt, java, the venv's python, python3), for
tests/test_makefile.py. Each records its arguments as one JSON line in $STUB_LOG, checks that the files the real
tool would read exist, and creates the files the real tool would write, so that a recipe's shell-level mistakes
(a missing folder, a wrong path, a file not in the repository) fail in seconds.

    python make_stubs.py TOOL ARG...      (run from the repository's root, as make runs its recipes)
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import List, NoReturn

#: The line `export engine/runtime:fullClasspath` prints; the runner must be started with exactly this.
CLASSPATH = "/stub/engine/classes:/stub/scala-library.jar"
#: The line `export kafkaBroker/runtime:fullClasspath` prints, and the file make writes it to.
KAFKA_CLASSPATH = "/stub/kafka_2.13.jar:/stub/kafka-clients.jar"
KAFKA_CLASSPATH_FILE = "jvm/kafka-broker/target/broker-classpath.txt"
RUNNER = "io.sparkcer.engine.runner.Main"


def fail(message: str) -> NoReturn:
    print(f"stub: {message}", file=sys.stderr)
    sys.exit(1)


def need(*paths: str) -> None:
    """The files a real tool would read: a missing one fails as it would."""
    for path in paths:
        if not Path(path).exists():
            fail(f"no such file: {path} (in {os.getcwd()})")


def spark_jar() -> Path:
    """The jar `sbt spark/package` writes, named from build.sbt as sbt names it."""
    build = Path("build.sbt").read_text()
    scala = re.search(r'scalaVersion := "(\d+\.\d+)', build).group(1)
    version = re.search(r'ThisBuild / version := "([^"]+)"', build).group(1)
    return Path(f"jvm/spark/target/scala-{scala}/spark-cer_{scala}-{version}.jar")


def sbt(args: List[str]) -> None:
    print("[info] welcome to sbt (a stub)")
    for command in args:
        if command == "spark/package":
            spark_jar().parent.mkdir(parents=True, exist_ok=True)
            spark_jar().write_bytes(b"PK stub jar")
        elif command == "export engine/runtime:fullClasspath":
            print(CLASSPATH)
        elif command == "export kafkaBroker/runtime:fullClasspath":
            print(KAFKA_CLASSPATH)
        elif command.startswith("bench/run "):
            need(*command.split()[1:])
    print("[success] Total time: 0 s")


def java(args: List[str]) -> None:
    if args[:3] != ["-cp", CLASSPATH, RUNNER]:
        fail(f"expected -cp <the exported classpath> {RUNNER}, got {args[:3]}")
    need(*[args[args.index(flag) + 1] for flag in ("--query", "--csv")])


def python(args: List[str]) -> None:
    """The venv's python: pip, pytest, or a script."""
    if args[:3] == ["-m", "pip", "install"]:
        requirements = [args[i + 1] for i, a in enumerate(args) if a == "-r"]
        need(*requirements)
        if "./python" in args:
            need("python/pyproject.toml", "python/spark_cer/jars/spark-cer.jar")
    elif args[:3] == ["-m", "pip", "wheel"]:
        need("python/pyproject.toml", "python/spark_cer/jars/spark-cer.jar")
        wheels = Path(args[args.index("-w") + 1])
        wheels.mkdir(parents=True, exist_ok=True)
        (wheels / "spark_cer-0.1.0.dev0-py3-none-any.whl").write_bytes(b"PK stub wheel")
    elif args[:3] == ["-m", "ruff", "format"]:
        need("ruff.toml")
    elif args[:2] == ["-m", "pytest"]:
        options = args[2:]  # the paths: the arguments that are neither an option nor the marker expression of -m
        need(*[a for i, a in enumerate(options) if not a.startswith("-") and (i == 0 or options[i - 1] != "-m")])
    elif args and not args[0].startswith("-"):
        need(args[0])
        if "--kafka" in args:  # the demo starts a broker from the exported classpath
            need(KAFKA_CLASSPATH_FILE)
            if Path(KAFKA_CLASSPATH_FILE).read_text().strip() != KAFKA_CLASSPATH:
                fail(f"{KAFKA_CLASSPATH_FILE} does not hold the classpath sbt exported")
    else:
        fail(f"unexpected python {args}")


def python3(args: List[str]) -> None:
    """The system python: only asked to create the venv, whose python is this stub again."""
    if args[:2] != ["-m", "venv"]:
        fail(f"unexpected python3 {args}")
    interpreter = Path(args[2]) / "bin" / "python"
    interpreter.parent.mkdir(parents=True, exist_ok=True)
    interpreter.write_text(wrapper("python"))
    interpreter.chmod(0o755)


def wrapper(tool: str) -> str:
    """An executable that runs this stub as `tool`."""
    return f'#!/bin/sh\nexec "{sys.executable}" "{Path(__file__).resolve()}" {tool} "$@"\n'


TOOLS = {"sbt": sbt, "java": java, "python": python, "python3": python3}

if __name__ == "__main__":
    tool, arguments = sys.argv[1], sys.argv[2:]
    with open(os.environ["STUB_LOG"], "a", encoding="utf-8") as log:
        log.write(json.dumps({"tool": tool, "args": arguments}) + "\n")
    TOOLS[tool](arguments)
