"""
The example notebook (examples/stocks_notebook.ipynb) runs top to bottom in a fresh kernel, as a user runs it, so
it cannot rot: a cell that raises fails the test, and a few outputs are checked against what its text says.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import List

import nbformat
from ipykernel.kernelspec import write_kernel_spec
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import AsyncKernelManager
from nbclient import NotebookClient

from conftest import REPO

NOTEBOOK = REPO / "examples" / "stocks_notebook.ipynb"


def kernel_manager(kernels: Path) -> AsyncKernelManager:
    """A kernel on this very interpreter. An installed kernel spec would not do: the one ipykernel puts in the venv
    runs whatever `python` comes first on the PATH, and a system-wide one another Python, without pyspark."""
    write_kernel_spec(kernels / "python3")  # its argv starts with sys.executable
    return AsyncKernelManager(kernel_name="python3", kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(kernels)]))


def outputs(notebook: nbformat.NotebookNode, tag: str) -> List[nbformat.NotebookNode]:
    """The outputs of the one cell with this tag (cell metadata), in the executed notebook."""
    [cell] = [c for c in notebook.cells if tag in c.metadata.get("tags", [])]
    return cell.outputs


def result(notebook: nbformat.NotebookNode, tag: str):
    """The value the tagged cell ends with, read back from its text form."""
    [value] = [o for o in outputs(notebook, tag) if o.output_type == "execute_result"]
    return ast.literal_eval(value.data["text/plain"])


def test_notebook_runs_top_to_bottom(jar, tmp_path) -> None:
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    code = [c for c in notebook.cells if c.cell_type == "code"]
    assert not any(c.outputs for c in code), "the notebook is committed without outputs: clear them"

    client = NotebookClient(
        notebook,
        km=kernel_manager(tmp_path / "kernels"),
        timeout=180,  # per cell
        resources={"metadata": {"path": str(NOTEBOOK.parent)}},  # the kernel starts where Jupyter starts it
    )
    # cleanup_kc: the client shuts the kernel down (and with it the notebook's Spark driver) although it did not
    # create the kernel manager. A cell that raises fails here, with its traceback.
    client.execute(cleanup_kc=True)

    assert result(notebook, "match-count") > 0, "S3 has matches on the trace"
    strategies = result(notebook, "strategies")
    assert strategies["ALL"] >= strategies["LAST"] > strategies["NEXT"], f"as the notebook explains: {strategies}"
    assert any("image/png" in o.get("data", {}) for o in outputs(notebook, "plot")), "the plot cell shows a figure"
