"""
The example notebooks (examples/*_notebook.ipynb) run top to bottom in a fresh kernel, as a user runs them, and show
what is committed in them: a cell that raises fails the test, and so does one whose output differs from the committed
one (`make notebooks` writes the outputs a run gives). A few outputs are also checked against what the text around
them says.
"""

from __future__ import annotations

import ast
from typing import List

import nbformat
import pytest

from notebooks import NOTEBOOKS, differences, executed

pytestmark = pytest.mark.slow  # a kernel per notebook


def outputs(notebook: nbformat.NotebookNode, tag: str) -> List[nbformat.NotebookNode]:
    """The outputs of the one cell with this tag (cell metadata)."""
    [cell] = [c for c in notebook.cells if tag in c.metadata.get("tags", [])]
    return cell.outputs


def result(notebook: nbformat.NotebookNode, tag: str):
    """The value the tagged cell ends with, read back from its text form."""
    [value] = [o for o in outputs(notebook, tag) if o.output_type == "execute_result"]
    return ast.literal_eval(value.data["text/plain"])


def has_image(notebook: nbformat.NotebookNode, tag: str) -> bool:
    return any("image/png" in o.get("data", {}) for o in outputs(notebook, tag))


@pytest.fixture(scope="module", params=NOTEBOOKS, ids=lambda p: p.stem)
def run(request, jar):
    """A notebook as committed, and as a fresh run shows it."""
    committed = nbformat.read(request.param, as_version=4)
    return request.param.stem, committed, executed(request.param)


def test_the_committed_outputs_are_what_a_run_shows(run) -> None:
    name, committed, fresh = run
    problems = differences(committed, fresh)
    assert not problems, f"{name}: the committed outputs are stale (run `make notebooks`):\n" + "\n".join(problems)


def test_what_the_notebooks_say(run) -> None:
    name, _, notebook = run
    if name == "stocks_notebook":
        assert result(notebook, "match-count") > 0, "S3 has matches on the trace"
        strategies = result(notebook, "strategies")
        assert strategies["ALL"] >= strategies["LAST"] > strategies["NEXT"], f"as the notebook explains: {strategies}"
        assert all(n > 0 for n in result(notebook, "relations").values())
        assert all(n > 0 for n in result(notebook, "skipping").values()), "LAST over iterations with trades between"
        assert all(has_image(notebook, tag) for tag in ("plot", "pcea-picture", "cea-picture", "program-picture"))
    elif name == "streaming_notebook":
        said = result(notebook, "exactly-once")
        assert said["written by the two runs"] == said["on the table"] > 0 and said["the same matches"], said
    elif name == "fraud_notebook":
        assert result(notebook, "chains") > 0
        takeovers = [o for o in outputs(notebook, "takeovers") if o.output_type == "execute_result"]
        rows = takeovers[0].data["text/plain"].strip().splitlines()[1:]
        assert len(rows) == 15, "every planted takeover is found, once"
        assert has_image(notebook, "plot")
    elif name == "sql_notebook":
        translated = [
            o.text
            for c in notebook.cells
            if c.source.startswith("%%sql --read snowflake")
            for o in c.outputs
            if o.output_type == "stream"
        ]
        assert translated and "PREV(price, 1)" in translated[0], "the Snowflake query is shown as translated"


def test_the_sql_magic_shows_a_table(spark) -> None:
    """`%%sql`'s table: the first rows with their columns (a matched event as its values), and what it refuses."""
    from spark_cer.notebook import Table, _sql_magic

    df = spark.sql("SELECT id, named_struct('a', id, 'b', 'x') AS e FROM range(3) ORDER BY id")
    table = Table(df, limit=2)
    assert (table.columns, table.more) == (["id", "e"], True)
    assert repr(table).splitlines()[1:5] == ["| id | e      |", "+----+--------+", "| 0  | {0, x} |", "| 1  | {1, x} |"]
    assert "<th>e</th>" in table._repr_html_() and "only the first 2 rows shown" in table._repr_html_()
    with pytest.raises(ValueError, match=r"%%sql takes \[--limit N\] \[--read DIALECT\] \[variable\]"):
        _sql_magic("--bogus", "SELECT 1")
    assert _sql_magic("--limit 1", "CREATE OR REPLACE TEMP VIEW magic_view AS SELECT 1 AS one") is None
    assert _sql_magic("", "SELECT one FROM magic_view").rows == [(1,)]
