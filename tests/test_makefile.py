"""
Every `make` command of the README works as the first command on a fresh clone with an empty cache.

Each runs in a fresh copy of the repository's tracked files (as they are in the work tree, so uncommitted edits
count), with stubs for sbt, java and Python (tests/make_stubs.py) that record their calls, check the files the
real tools would read and create those they would write: the recipes' shell-level mistakes show in seconds,
without a build.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
from typing import Dict, List, Tuple

import pytest

from conftest import REPO
from make_stubs import CLASSPATH, RUNNER, wrapper

# Each README command, and the call that does its work: the tool and the start of its arguments. (`make test` runs
# the JVM suites beside pytest: the test checks both calls.)
COMMANDS: Dict[str, Tuple[str, List[str]]] = {
    "make demo": ("python", ["examples/demo.py"]),
    "make test": ("python", ["-m", "pytest", "-q", "--numprocesses=2", "--dist=loadfile", "tests"]),
    "make test-quick": (
        "python",
        ["-m", "pytest", "-q", "--numprocesses=2", "--dist=loadfile", "-m", "not slow", "tests"],
    ),
    "make engine-run QUERY=sql/stocks/s3.ceql CSV=data/stocks.csv.gz": (
        "java",
        ["-cp", CLASSPATH, RUNNER, "--query", "sql/stocks/s3.ceql", "--csv", "data/stocks.csv.gz"],
    ),
    "make wheel": ("python", ["-m", "pip", "wheel"]),
    "make demo-stream": ("python", ["examples/streaming.py"]),
    "make demo-stream ARGS=--kafka": ("python", ["examples/streaming.py", "--kafka"]),
    "make notebooks": ("python", ["examples/notebooks.py"]),
    "make bench": ("python", ["bench/spark_bench.py"]),
    "make bench-engine": ("sbt", ["bench/run data/stocks.csv.gz"]),
    "make bench-stream": ("python", ["bench/stream_stocks.py"]),
}


def tracked_files() -> List[str]:
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout
    return [name for name in listed.decode().split("\0") if name and (REPO / name).is_file()]


@pytest.fixture(scope="module")
def files() -> List[str]:
    if shutil.which("make") is None or shutil.which("git") is None:
        pytest.skip("needs make and git")
    try:
        return tracked_files()
    except subprocess.CalledProcessError:
        pytest.skip("not a git checkout")


def test_every_make_command_of_the_readme_is_checked():
    readme = (REPO / "README.md").read_text()
    mentioned = set(re.findall(r"(?:^|`)make ([a-z][\w-]*)", readme, re.M))
    assert mentioned == {command.split()[1] for command in COMMANDS}


@pytest.mark.parametrize("command", COMMANDS)
def test_readme_command_on_a_fresh_clone(command, files, tmp_path):
    clone = tmp_path / "clone"
    for name in files:
        (clone / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / name, clone / name)
    stubs = tmp_path / "stubs"
    stubs.mkdir()
    for tool in ("sbt", "java", "python3"):
        (stubs / tool).write_text(wrapper(tool))
        (stubs / tool).chmod(0o755)
    log = tmp_path / "calls.jsonl"
    log.touch()
    cache = tmp_path / "cache"
    cache.mkdir()
    # A clean environment: no MAKEFLAGS or variables of an enclosing make (make test runs this test).
    env = {
        "PATH": f"{stubs}{os.pathsep}{os.environ['PATH']}",
        "HOME": str(tmp_path),
        "STUB_LOG": str(log),
        "SPARK_CER_CACHE": str(cache),
    }

    done = subprocess.run(
        [*shlex.split(command), f"SBT={stubs / 'sbt'}", f"JAVA={stubs / 'java'}"],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert done.returncode == 0, f"{command} failed on a fresh clone:\n{done.stdout}\n{done.stderr}"
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    tool, arguments = COMMANDS[command]
    last = calls[-1]
    if command == "make test":  # the JVM suites may end after pytest
        assert {"tool": "sbt", "args": ["engine/test", "bench/compile", "spark/test"]} in calls, calls
        last = next(call for call in reversed(calls) if call["tool"] != "sbt")
    assert (last["tool"], last["args"][: len(arguments)]) == (tool, arguments), calls
