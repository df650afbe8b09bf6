"""
`spark_cer.explain_pattern`: the automaton the JVM compiled, as a graph and a drawing, for a CEQL query on CORE's CEA,
one on a PCEA, and a MATCH_RECOGNIZE program; for a DataFrame, with the metrics the Spark UI shows after its run.
"""

from __future__ import annotations

import doctest
import re

import matplotlib
import pytest

import spark_cer
from spark_cer import AutomatonPicture, PatternSyntaxError, explain_pattern

matplotlib.use("Agg")


def reads(picture: AutomatonPicture):
    """The reading edges as (source label, target label, edge label)."""
    label = {n.id: n.label for n in picture.nodes}
    return [(label[e.source], label[e.target], e.label) for e in picture.edges if e.kind == "read"]


def drawn(picture: AutomatonPicture) -> None:
    """The picture draws: a figure with a circle per state, and a PNG for notebooks."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Circle

    figure = picture.draw()
    circles = [p for p in figure.axes[0].patches if isinstance(p, Circle)]
    states = [n for n in picture.nodes if n.kind != "junction"]
    assert len(circles) >= len(states), (len(circles), len(states))
    plt.close(figure)
    assert picture._repr_png_().startswith(b"\x89PNG")


def test_a_ceql_sequence_is_drawn_as_cores_automaton() -> None:
    picture = explain_pattern("SELL AS s ; BUY AS b FILTER s[price > 100] WITHIN 10 [ts]")
    assert picture.automaton == "CEA" and picture.size == 4
    assert "4-state CEA" in picture.summary and "output-linear delay" in picture.summary
    assert [n.kind for n in picture.nodes].count("start") == 1
    assert [n.label for n in picture.nodes if n.kind == "accepting"] == ["q2"]
    assert reads(picture) == [("q0", "q1", "SELL[price > 100] → s"), ("q1", "q2", "BUY → b"), ("q3", "q2", "BUY → b")]
    skips = [(e.source, e.target) for e in picture.edges if e.kind == "skip"]
    assert ("q0", "q0") in skips, "state 0 waits for a match to start, skipping any event"
    dot = picture.to_dot()
    assert dot.startswith("digraph CEA {") and '"q0" -> "q1" [label="SELL[price > 100] → s"];' in dot
    drawn(picture)


def test_conditions_relating_events_label_the_transitions_that_check_them() -> None:
    picture = explain_pattern("SELL AS s ; (BUY AS b)+ FILTER b.price > s.price WITHIN 10 [ts]", spark=None)
    assert picture.automaton == "CEA" and "registers (RMA)" in picture.summary
    assert any(label.startswith("BUY if b.price > s.price → b") for _, _, label in reads(picture)), reads(picture)
    drawn(picture)


def test_equalities_are_drawn_as_the_pcea_that_keys_them() -> None:
    picture = explain_pattern(
        "SELECT * FROM T WHERE (LOGIN AS l ; TRANSFER AS t1 ; TRANSFER AS t2) "
        "FILTER l.acct = t1.src AND t1.dst = t2.src WITHIN 10 [ts]"
    )
    assert picture.automaton == "PCEA" and "equality correlation by PCEA" in picture.summary
    assert reads(picture) == [
        ("start", "l", "LOGIN → l"),
        ("l", "t1", "TRANSFER → t1\nt1.src = l.acct"),
        ("t1", "t2", "TRANSFER → t2\nt2.src = t1.dst"),
    ]
    drawn(picture)


def test_a_pcea_joins_the_operands_of_and_at_junctions() -> None:
    picture = explain_pattern(
        "SELECT * FROM T WHERE (A AS a ; B AS b) AND (C AS c ; D AS d) "
        "FILTER a.k = c.k AND b.k = d.k AND a.k = b.k WITHIN 10 [ts]"
    )
    assert picture.automaton == "PCEA"
    junctions = {n.id for n in picture.nodes if n.kind == "junction"}
    assert len(junctions) == 2, "a transition reading b or d joins a run of each operand"
    joins = sorted(e.label for e in picture.edges if e.kind == "join")
    assert joins == ["b.k = a.k", "b.k = d.k", "d.k = b.k", "d.k = c.k"]
    assert all(e.target in junctions for e in picture.edges if e.kind == "join")
    drawn(picture)


def test_a_match_recognize_pattern_is_drawn_as_its_program() -> None:
    picture = explain_pattern(
        "ORDER BY ts PATTERN (A B+ C*) DEFINE B AS price < PREV(price), C AS price > PREV(price)", match_recognize=True
    )
    assert picture.automaton == "program" and picture.size == 7
    assert reads(picture) == [("A", "B", "any row"), ("B", "", "price < PREV(price)"), ("C", "", "price > PREV(price)")]
    preferences = sorted(e.label for e in picture.edges if e.kind == "skip" and e.label)
    # B+ splits after each B; C* before the first C and after each: greedy, one more row first.
    assert preferences == ["1st"] * 3 + ["2nd"] * 3
    assert [n.label for n in picture.nodes if n.kind == "accepting"] == ["match"]
    drawn(picture)


def test_a_graph_too_large_to_draw_keeps_its_summary() -> None:
    picture = explain_pattern("ORDER BY ts PATTERN (PERMUTE(A, B, C, D, E)) DEFINE A AS x > 0", match_recognize=True)
    assert picture.size > 300 and picture.nodes == () and picture.edges == ()
    with pytest.raises(ValueError, match=r"too many to draw; its summary: a program of \d+ instructions"):
        picture.draw()
    assert picture._repr_png_() is None


def test_errors_are_validations() -> None:
    with pytest.raises(PatternSyntaxError, match="line 1, column 8: expected"):
        explain_pattern("SELL ; ; BUY ORDER BY ts")


def test_a_dataframe_shows_the_spark_ui_metrics_of_its_last_run(spark, events) -> None:
    query = "SELECT * FROM events PATTERN SELL AS s ; BUY AS b FILTER s[price > 100] WITHIN 5 [ts] -- a picture"
    df = spark.sql(query)
    before = explain_pattern(df)
    assert before.automaton == "CEA" and before.metrics == (), "no run yet"
    matches = len(df.collect())
    after = explain_pattern(df)
    metrics = dict(after.metrics)
    assert metrics["number of matches"] == f"{matches:,}", metrics
    assert 0 < int(metrics["number of events read"].replace(",", "")) <= events.count()
    assert "run transitions" in metrics
    drawn(after)

    recognized = events.match_recognize(
        "ORDER BY ts MEASURES count(*) AS n PATTERN (A B+) DEFINE B AS price > PREV(price)"
    )
    recognized.count()  # an action on another DataFrame of the same pattern: the UI shows it
    picture = explain_pattern(recognized)
    assert picture.automaton == "program"
    assert re.fullmatch(r"[\d,]+", dict(picture.metrics)["number of output rows"])

    with pytest.raises(ValueError, match="has no pattern of spark-cer"):
        explain_pattern(events)
    with pytest.raises(ValueError, match="has 2 patterns: choose one with pattern=0 .. 1"):
        explain_pattern(df.crossJoin(recognized))
    assert explain_pattern(df.crossJoin(recognized), pattern=1).automaton == "program"


def test_docstring_examples() -> None:
    result = doctest.testmod(spark_cer.picture, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted >= 5
