"""
`spark_cer` for the tests' processes (pytest's and the workers it starts): the installed package, or in a checkout
without one, the package from `python/` directly.
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
try:
    import spark_cer
except ImportError:
    sys.path.insert(0, str(REPO / "python"))
    import spark_cer

__all__ = ["REPO", "spark_cer"]
