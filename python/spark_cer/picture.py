"""
``spark_cer.explain_pattern``: the automaton a query runs on, drawn.

EXPLAIN tells an automaton's size; this shows it: the states, and the transitions labelled by the events they read
(their type and the tests of that event alone), the conditions they check and the variables they bind. It is the
automaton the JVM compiled (``jvm/engine/.../picture/AutomatonGraph.scala``): CORE's CEA, the PCEA of a pattern
whose equalities one keys, or a MATCH_RECOGNIZE pattern's program. Given a DataFrame that ran, the picture comes with
the metrics the Spark UI shows for its pattern operator.

The drawing is matplotlib's (no system binary); :meth:`AutomatonPicture.to_dot` gives Graphviz's text for those who
render with ``dot``.
"""

from __future__ import annotations

import json
import textwrap
from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Tuple, Union

from spark_cer.validate import SchemaLike, _ask, _schema_fields

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from pyspark.sql import DataFrame

__all__ = ["AutomatonPicture", "GraphEdge", "GraphNode", "explain_pattern"]


@dataclass(frozen=True)
class GraphNode:
    """A state (``kind``: ``start``, ``state`` or ``accepting``) or a ``junction`` that reads nothing: a PCEA
    transition joining several runs, or a program's split or jump."""

    id: str
    label: str
    kind: str


@dataclass(frozen=True)
class GraphEdge:
    """A transition: ``read`` (reads an event or row), ``skip`` (passes one by, or moves without reading) or ``join``
    (a PCEA run joined by an equality). Transitions between the same two nodes share an edge, a label per line."""

    source: str
    target: str
    label: str
    kind: str


@dataclass(frozen=True)
class AutomatonPicture:
    """
    A compiled automaton, to draw.

    In a notebook the object shows itself as its drawing.

    Attributes
    ----------
    automaton : str
        ``CEA``, ``PCEA`` or ``program`` (MATCH_RECOGNIZE).
    summary : str
        What EXPLAIN says of it (strategy, size, evaluator, window, guarantee).
    size : int
        Its states (a program's instructions).
    nodes, edges : tuple
        The graph; empty when it is too large to draw (more than 300 nodes).
    metrics : tuple of (str, str)
        After a run of the DataFrame given: the operator's metrics as the Spark UI's SQL tab shows them.
    """

    automaton: str
    summary: str
    size: int
    nodes: Tuple[GraphNode, ...]
    edges: Tuple[GraphEdge, ...]
    metrics: Tuple[Tuple[str, str], ...] = ()

    @classmethod
    def _from_answer(cls, answer: Dict[str, Any]) -> "AutomatonPicture":
        return cls(
            automaton=answer["automaton"],
            summary=answer["summary"],
            size=int(answer["size"]),
            nodes=tuple(GraphNode(n["id"], n["label"], n["kind"]) for n in answer["nodes"]),
            edges=tuple(GraphEdge(e["from"], e["to"], e["label"], e["kind"]) for e in answer["edges"]),
            metrics=tuple((str(k), str(v)) for k, v in answer.get("metrics", ())),
        )

    # ---- Graphviz ----------------------------------------------------------------------------------------

    def to_dot(self) -> str:
        """
        The graph in Graphviz's DOT language, left to right, for ``dot -Tsvg`` or any DOT viewer.

        >>> print(AutomatonPicture("CEA", "", 2, (GraphNode("q0", "q0", "start"), GraphNode("q1", "q1", "accepting")),
        ...                        (GraphEdge("q0", "q1", "SELL → s", "read"),)).to_dot())
        digraph CEA {
          rankdir=LR;
          "q0" [label="q0", shape=circle, style=bold];
          "q1" [label="q1", shape=doublecircle];
          "q0" -> "q1" [label="SELL → s"];
        }
        """
        shapes = {
            "start": "shape=circle, style=bold",
            "state": "shape=circle",
            "accepting": "shape=doublecircle",
            "junction": "shape=point",
        }
        styles = {"read": "", "skip": ", style=dashed, color=gray", "join": ", style=dashed, color=darkgreen"}
        lines = [f"digraph {self.automaton} {{", "  rankdir=LR;"]
        lines += [f"  {_quoted(n.id)} [label={_quoted(n.label)}, {shapes[n.kind]}];" for n in self.nodes]
        lines += [
            f"  {_quoted(e.source)} -> {_quoted(e.target)} [label={_quoted(e.label)}{styles[e.kind]}];"
            for e in self.edges
        ]
        return "\n".join(lines + ["}"])

    # ---- matplotlib --------------------------------------------------------------------------------------

    def draw(self, ax: Optional["Axes"] = None) -> "Figure":
        """
        Draws the automaton with matplotlib, left to right from its start, and returns the figure. With ``ax``, on
        those axes; otherwise on a new figure sized to the graph, the metrics of the last run beside it.

        Reading edges are solid, skips dashed grey, a PCEA's joins dashed green; accepting states have a double ring.
        """
        try:
            import matplotlib.pyplot as plt
        except ImportError as e:  # pragma: no cover - matplotlib is in the test environment
            raise ImportError(
                "drawing an automaton needs matplotlib: pip install matplotlib "
                "(or use AutomatonPicture.to_dot() with Graphviz)"
            ) from e
        if not self.nodes:
            raise ValueError(
                f"this {self.automaton} has {self.size} states, too many to draw; its summary: {self.summary}"
            )
        layout = _Layout(self)
        # The metrics a run set, each as its total (an average metric's first figure): zeros are paths not taken.
        metrics = [
            (name, value.split()[0]) for name, value in self.metrics if value.split() and value.split()[0] != "0"
        ]
        if ax is None:
            width, height = layout.size
            height = max(height, 0.14 * (len(metrics) + 3))
            side = 3.4 if metrics else 0.0  # the metrics' column, in inches
            caption = textwrap.fill(f"{self.automaton}: {self.summary}", width=max(60, int(15 * (width + side))))
            below = 0.2 + 0.13 * (caption.count("\n") + 1)
            fig = plt.figure(figsize=(width + side, height + below))
            ax = fig.add_axes((0, below / (height + below), width / (width + side), height / (height + below)))
            fig.text(0.01, 0.1 / (height + below), caption, fontsize=7, va="bottom")
            if metrics:
                text = "\n".join(f"{name}: {value}" for name, value in sorted(metrics))
                fig.text(
                    width / (width + side) + 0.01,
                    0.97,
                    "Spark UI, last run\n\n" + text,
                    fontsize=6.5,
                    va="top",
                    family="monospace",
                )
        layout.draw(ax)
        return ax.figure

    def __repr__(self) -> str:
        return f"<{self.automaton} of {self.size} states: {self.summary}>"

    def _repr_png_(self) -> Optional[bytes]:
        """The drawing, for Jupyter; None (its text form instead) without matplotlib or for a graph too large."""
        try:
            import matplotlib.pyplot as plt
        except ImportError:  # pragma: no cover
            return None
        if not self.nodes:
            return None
        import io

        fig = self.draw()
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=90, metadata={"Software": None})
        plt.close(fig)
        return buffer.getvalue()


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


class _Layout:
    """
    Columns by distance from the start (breadth first), so that a sequence reads left to right, each column's nodes
    in order of first appearance, centred; the gap after a column as wide as the labels of the edges that cross it.
    An edge bends where it goes back, stays in its column, skips columns or has a twin the other way. One unit of the
    drawing is :attr:`Inch` inches, so that labels keep their size whatever the graph's.
    """

    Inch = 0.55
    Row = 1.7  # between the nodes of a column
    Radius = 0.34
    Char = 0.1  # a label's character, in units (6.5 points)

    def __init__(self, picture: AutomatonPicture) -> None:
        self.picture = picture
        outgoing: Dict[str, List[str]] = {n.id: [] for n in picture.nodes}
        for e in picture.edges:
            outgoing[e.source].append(e.target)
        column: Dict[str, int] = {}
        queue = deque(n.id for n in picture.nodes if n.kind == "start")
        for node in queue:
            column[node] = 0
        while queue:
            node = queue.popleft()
            for target in outgoing[node]:
                if target not in column:
                    column[target] = column[node] + 1
                    queue.append(target)
        last = max(column.values(), default=-1)
        for n in picture.nodes:  # unreachable ones (none in a compiled automaton) after the rest
            column.setdefault(n.id, last + 1)
        columns: Dict[int, List[str]] = {}
        for n in picture.nodes:
            columns.setdefault(column[n.id], []).append(n.id)
        gaps = {c: 2.0 for c in columns}
        for e in picture.edges:
            c = min(column[e.source], column[e.target])
            width = max((len(line) for line in e.label.split("\n")), default=0) * self.Char + 1.0
            if abs(column[e.target] - column[e.source]) == 1:
                gaps[c] = max(gaps[c], width)
        x, left = 0.0, {}
        for c in sorted(columns):
            left[c] = x
            x += gaps[c]
        self.position: Dict[str, Tuple[float, float]] = {}
        for c, ids in columns.items():
            for i, node in enumerate(ids):
                self.position[node] = (left[c], ((len(ids) - 1) / 2 - i) * self.Row)
        self.column = column
        xs = [p[0] for p in self.position.values()]
        ys = [p[1] for p in self.position.values()]
        self.limits = ((min(xs) - 1.2, max(xs) + 1.2), (min(ys) - 1.4, max(ys) + 1.6))

    @property
    def size(self) -> Tuple[float, float]:
        """The drawing's width and height in inches."""
        (x0, x1), (y0, y1) = self.limits
        return (x1 - x0) * self.Inch, (y1 - y0) * self.Inch

    def draw(self, ax: "Axes") -> None:
        from matplotlib.patches import Circle, FancyArrowPatch

        kinds = {n.id: n.kind for n in self.picture.nodes}
        colours = {"read": "black", "skip": "grey", "join": "darkgreen"}
        pairs = {(e.source, e.target) for e in self.picture.edges}
        for e in self.picture.edges:
            (x0, y0), (x1, y1) = self.position[e.source], self.position[e.target]
            style = "-" if e.kind == "read" else "--"
            if e.source == e.target:
                loop = FancyArrowPatch(
                    (x0 - 0.2, y0 + 0.27),
                    (x0 + 0.2, y0 + 0.27),
                    connectionstyle="arc3,rad=-2.2",
                    arrowstyle="-|>",
                    mutation_scale=9,
                    color=colours[e.kind],
                    linestyle=style,
                    lw=0.9,
                )
                ax.add_patch(loop)
                ax.text(x0, y0 + 0.98, e.label, ha="center", va="bottom", fontsize=6.5)
                continue
            span = self.column[e.target] - self.column[e.source]
            # arc3 bends to the right of the direction of travel: an edge and its twin the other way part.
            bend = 0.0 if span == 1 and (e.target, e.source) not in pairs else 0.3
            shrink = {"junction": 3.0, "start": 13.5, "state": 13.5, "accepting": 13.5}
            ax.add_patch(
                FancyArrowPatch(
                    (x0, y0),
                    (x1, y1),
                    connectionstyle=f"arc3,rad={bend}",
                    arrowstyle="-|>",
                    mutation_scale=10,
                    shrinkA=shrink[kinds[e.source]],
                    shrinkB=shrink[kinds[e.target]],
                    color=colours[e.kind],
                    linestyle=style,
                    lw=0.9,
                )
            )
            if e.label:
                # The middle of arc3's quadratic curve: halfway from the chord's middle to the control point.
                mx, my = (x0 + x1) / 2, (y0 + y1) / 2
                lx, ly = mx + bend * (y1 - y0) / 2, my - bend * (x1 - x0) / 2
                ax.text(
                    lx,
                    ly,
                    e.label,
                    ha="center",
                    va="center",
                    fontsize=6.5,
                    color=colours[e.kind],
                    bbox=dict(boxstyle="round,pad=0.15", fc="white", ec="none", alpha=0.85),
                )
        for n in self.picture.nodes:
            x, y = self.position[n.id]
            if n.kind == "junction":
                ax.add_patch(Circle((x, y), 0.07, color="black"))
                if n.label:
                    ax.text(x, y - 0.2, n.label, ha="center", va="top", fontsize=7)
                continue
            ax.add_patch(Circle((x, y), self.Radius, fc="white", ec="black", lw=1.8 if n.kind == "start" else 1.0))
            if n.kind == "accepting":
                ax.add_patch(Circle((x, y), self.Radius - 0.07, fc="none", ec="black", lw=1.0))
            ax.text(x, y, n.label, ha="center", va="center", fontsize=max(5.5, min(8.0, 22.0 / max(1, len(n.label)))))
        ax.set_xlim(*self.limits[0])
        ax.set_ylim(*self.limits[1])
        ax.set_aspect("equal")
        ax.axis("off")


def explain_pattern(
    query: Union[str, "DataFrame"],
    schema: Optional[SchemaLike] = None,
    *,
    match_recognize: bool = False,
    time_column: Optional[str] = None,
    type_column: Optional[str] = None,
    spark: Optional[Any] = None,
    pattern: Optional[int] = None,
) -> AutomatonPicture:
    """
    The automaton a query runs on, to draw: CORE's CEA, a PCEA where one keys the pattern's equalities, or a
    MATCH_RECOGNIZE pattern's program.

    Parameters
    ----------
    query : str or DataFrame
        A CEQL query, or a MATCH_RECOGNIZE clause with ``match_recognize=True``, as :func:`spark_cer.validate` takes
        them; or a DataFrame whose plan has a pattern (``spark.sql`` with CEQL or MATCH_RECOGNIZE, ``df.cer``,
        ``df.match_recognize``), classic sessions only. After the DataFrame has run, the picture carries the
        operator's metrics from the Spark UI.
    schema, match_recognize, time_column, type_column, spark
        For a query's text, as :func:`spark_cer.validate` takes them.
    pattern : int, optional
        For a DataFrame whose plan has several patterns, which one (in plan order, from 0).

    Returns
    -------
    :class:`AutomatonPicture`
        Draws itself in a notebook; ``.draw()`` gives the matplotlib figure, ``.to_dot()`` Graphviz's text.

    Raises
    ------
    PatternSyntaxError, PatternAnalysisError
        As :func:`spark_cer.validate` raises them.

    Examples
    --------
    >>> from spark_cer import explain_pattern
    >>> picture = explain_pattern("SELL AS s ; BUY AS b FILTER s[price > 100] WITHIN 10 [ts]")
    >>> picture.automaton, picture.size
    ('CEA', 4)
    >>> [(e.source, e.target, e.label) for e in picture.edges if e.kind == "read"]
    [('q0', 'q1', 'SELL[price > 100] → s'), ('q1', 'q2', 'BUY → b'), ('q3', 'q2', 'BUY → b')]
    >>> explain_pattern("PATTERN (A B+) DEFINE B AS price < PREV(price)", match_recognize=True).automaton
    'program'
    """
    if isinstance(query, str):
        request = {
            "query": query,
            "time_column": time_column,
            "type_column": type_column,
            **_schema_fields(schema),
            "language": "match_recognize" if match_recognize else "ceql",
            "automaton": True,
        }
        answer = _ask(request, spark)
        return AutomatonPicture._from_answer(answer["automaton"])
    jdf = getattr(query, "_jdf", None)
    if jdf is None:
        raise TypeError(
            "explain_pattern takes a query's text, or a DataFrame of a classic session (on Spark Connect, "
            f"pass the query's text), not {type(query).__name__}"
        )
    jvm = query.sparkSession._jvm
    found = json.loads(jvm.io.sparkcer.spark.PatternPicture.ofDataFrame(jdf))
    if not found:
        raise ValueError(
            "this DataFrame's plan has no pattern of spark-cer (a streaming DataFrame's pattern runs "
            "in a stateful operator: pass its query's text)"
        )
    if pattern is None and len(found) > 1:
        raise ValueError(
            f"this DataFrame's plan has {len(found)} patterns: choose one with pattern=0 .. {len(found) - 1}"
        )
    return AutomatonPicture._from_answer(found[pattern or 0])
