"""
`spark_cer` for the tests' processes (pytest's and the workers it starts): the installed package, or in a checkout
without one, the package from `python/` directly; the examples' helpers (examples/kafka_broker.py); and the
environment of the Spark processes a test starts.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Dict

REPO = Path(__file__).resolve().parents[1]
try:
    import spark_cer
except ImportError:
    sys.path.insert(0, str(REPO / "python"))
    import spark_cer
sys.path.append(str(REPO / "examples"))  # after the tests' own modules, so that no example shadows one

#: PySpark's own folder, as pip installs it: its bin/ scripts and jars/ are a Spark distribution's.
PYSPARK_HOME = Path(__import__("pyspark").__file__).resolve().parent


def spark_environment(**extra: str) -> Dict[str, str]:
    """This process's environment for a Spark process a test starts: SPARK_HOME is PySpark's folder (a standalone
    worker starts its executors with SPARK_HOME's scripts and jars), and Python workers run this interpreter."""
    return dict(os.environ, SPARK_HOME=str(PYSPARK_HOME), PYSPARK_PYTHON=sys.executable, **extra)


__all__ = ["PYSPARK_HOME", "REPO", "spark_cer", "spark_environment"]
