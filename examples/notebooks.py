"""
The example notebooks, run top to bottom in a fresh kernel as a user runs them, their outputs kept in them.

`make notebooks` runs each and writes its outputs into it, so that a reader on a code host sees the results next to
the code; `tests/test_notebook.py` runs each again and requires the outputs it gets to be the ones committed (images
aside, which only have to be there), so that a notebook whose code and shown results disagree fails the tests.

    .venv/bin/python examples/notebooks.py [name ...]     # all of them, or those named (stocks_notebook, ...)
"""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path
from typing import Any, Dict, List, Sequence

import nbformat
from ipykernel.kernelspec import write_kernel_spec
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import AsyncKernelManager
from nbclient import NotebookClient

HERE = Path(__file__).resolve().parent
NOTEBOOKS = [
    HERE / "stocks_notebook.ipynb",
    HERE / "sql_notebook.ipynb",
    HERE / "streaming_notebook.ipynb",
    HERE / "fraud_notebook.ipynb",
]
CELL_TIMEOUT = 300  # seconds


def kernel_manager(kernels: Path) -> AsyncKernelManager:
    """A kernel on this very interpreter. An installed kernel spec would not do: the one ipykernel puts in the venv
    runs whatever `python` comes first on the PATH, and a system-wide one another Python, without pyspark."""
    write_kernel_spec(kernels / "python3")  # its argv starts with sys.executable
    return AsyncKernelManager(kernel_name="python3", kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(kernels)]))


def executed(path: Path) -> nbformat.NotebookNode:
    """The notebook at `path`, its outputs cleared, run top to bottom in a fresh kernel started in its folder (a
    cell that raises raises here, with its traceback); what the run wrote to standard error left out."""
    notebook = nbformat.read(path, as_version=4)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    with tempfile.TemporaryDirectory() as kernels:
        client = NotebookClient(
            notebook,
            km=kernel_manager(Path(kernels)),
            timeout=CELL_TIMEOUT,
            record_timing=False,  # no timestamps in the cells' metadata: a rerun changes nothing it need not
            resources={"metadata": {"path": str(path.parent)}},
        )
        # cleanup_kc: the client shuts the kernel down (and with it the notebook's Spark driver) although it did
        # not create the kernel manager.
        client.execute(cleanup_kc=True)
    for cell in notebook.cells:  # Spark's and Java's start-up warnings: this machine's, not the reader's
        if cell.cell_type == "code":
            cell.outputs = [o for o in cell.outputs if not (o.output_type == "stream" and o.name == "stderr")]
    notebook.metadata["kernelspec"] = {"display_name": "Python 3", "language": "python", "name": "python3"}
    notebook.metadata.pop("widgets", None)
    return notebook


def shown(notebook: nbformat.NotebookNode) -> List[List[Dict[str, Any]]]:
    """
    What each code cell shows, as compared between runs: its text, HTML and printed output, with what differs from
    run to run by nature taken out (an object's address, a temporary path, a time taken); images only as being
    there (their bytes depend on fonts); Spark's and Python's warnings on standard error not at all.
    """

    def steady(text: str) -> str:
        text = re.sub(r" at 0x[0-9a-f]+", " at 0x…", text)
        text = re.sub(r"/tmp/[\w./-]+", "/tmp/…", text)
        return re.sub(r"\d+(\.\d+)? (s|ms|seconds)\b", "… s", text)

    cells = []
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        outputs = []
        for output in cell.outputs:
            if output.output_type == "stream":
                if output.name == "stdout":
                    outputs.append({"stdout": steady(output.text)})
            elif output.output_type == "error":
                outputs.append({"error": output.ename})
            else:
                data = output.get("data", {})
                entry = {kind: steady(data[kind]) for kind in ("text/plain", "text/html") if kind in data}
                entry.update({kind: "<image>" for kind in ("image/png", "image/svg+xml") if kind in data})
                outputs.append(entry)
        cells.append(outputs)
    return cells


def differences(committed: nbformat.NotebookNode, fresh: nbformat.NotebookNode) -> List[str]:
    """The cells whose committed outputs differ from a fresh run's, each with the first difference."""
    problems = []
    code = [c for c in committed.cells if c.cell_type == "code"]
    old, new = shown(committed), shown(fresh)
    if len(old) != len(new):
        return [f"{len(old)} code cells committed, {len(new)} run"]
    for k, (was, now) in enumerate(zip(old, new)):
        if was != now:
            source = code[k].source.strip().splitlines()[0] if code[k].source.strip() else ""
            problems.append(
                f"cell {k + 1} ({source[:60]!r}): committed {str(was)[:300]}\n    a fresh run {str(now)[:300]}"
            )
    return problems


def main(names: Sequence[str]) -> None:
    chosen = [p for p in NOTEBOOKS if not names or p.stem in names]
    for path in chosen:
        notebook = executed(path)
        nbformat.write(notebook, path)
        print(f"ran {path.relative_to(HERE.parent)}: {len(notebook.cells)} cells, outputs written", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
