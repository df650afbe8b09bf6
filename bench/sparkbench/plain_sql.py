"""The plain Spark SQL a user writes instead of a CEQL sequence query, derived from its .ceql file: self-joins on
the stream order with the window condition, naive or time-bucketed, and, for Q7, a count of its matches."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Dict, List

from .workloads import COLUMNS


@dataclass
class Var:
    name: str
    types: List[str]
    preds: List[str] = field(default_factory=list)


@dataclass
class SeqSpec:
    vars: List[Var]
    window: int
    partition: List[str]


class NoSql(Exception):
    """The query has no plain-SQL formulation here; the message says why."""


def parse_sequence(text: str) -> SeqSpec:
    """A CEQL query made of a sequence of single events (types or disjunctions of types), each filtered, with a
    window on stock_time and optionally PARTITION BY: what self-joins can express. Anything else raises NoSql."""
    body = " ".join(line.split("--")[0] for line in text.splitlines())
    body = " ".join(body.split())
    if re.search(r"\bLIMIT\b", body, re.I):
        raise NoSql(
            "LIMIT n keeps the first n matches of each completing event in the engine's enumeration "
            "order, which plain SQL does not define"
        )
    if re.search(r"\bCONSUME BY\b", body, re.I):
        raise NoSql(
            "CONSUME BY ANY discards partial matches as the stream is read: a sequential fold that "
            "self-joins cannot express"
        )
    strategy = re.match(r"SELECT\s+(ANY|NEXT|LAST|MAX|STRICT)\b", body, re.I)
    if strategy:
        raise NoSql(
            f"SELECT {strategy[1].upper()}: a selection strategy picks among the matches completed by "
            "the same event under an order on valuations, which self-joins do not express"
        )
    if re.search(r"\)\s*:?\+", body):
        raise NoSql(
            "Kleene closure: a match binds any number of events (every subset of the candidates), "
            "which a fixed number of self-joins cannot enumerate"
        )
    m = re.match(
        r"SELECT\s+(?P<sel>.*?)\s+FROM\s+S\s+WHERE\s+\((?P<pat>.*?)\)\s*FILTER\s+(?P<filt>.*?)"
        r"(?:\s+PARTITION BY\s+(?P<part>.*?))?\s+WITHIN\s+(?P<w>\d+)\s*\[stock_time\]\s*"
        r"(?P<rest>.*)$",
        body,
        re.I,
    )
    if not m:
        raise NoSql("not a filtered sequence with a window on stock_time")
    if m["sel"].strip() != "*":
        raise NoSql(f"SELECT {m['sel']}: a selection strategy picks among matches, which self-joins do not")
    variables: List[Var] = []
    for atom in m["pat"].split(";"):
        atom = atom.strip()
        if "+" in atom:
            raise NoSql(
                "Kleene closure: a match binds any number of events (every subset of the candidates), "
                "which a fixed number of self-joins cannot enumerate"
            )
        a = re.fullmatch(r"\(?\s*([A-Z]+(?:\s+OR\s+[A-Z]+)*)\s*\)?\s+AS\s+(\w+)", atom, re.I)
        if not a:
            raise NoSql(f"pattern element {atom!r} is not a type or a disjunction of types")
        variables.append(Var(a[2], [t.upper() for t in re.split(r"\s+OR\s+", a[1], flags=re.I)]))
    by_name = {v.name.lower(): v for v in variables}
    filters = m["filt"]
    for f in re.finditer(r"(\w+)\[([^\]]*)\]", filters):
        if f[1].lower() not in by_name:
            raise NoSql(f"filter on {f[1]}, not a variable of the sequence")
        by_name[f[1].lower()].preds.append(f[2].strip())
    if re.sub(r"(\w+)\[([^\]]*)\]", "", filters).replace("AND", "").replace("and", "").strip():
        raise NoSql("filters other than a conjunction of var[predicate]")
    partition = [p.strip() for p in (m["part"] or "").replace("[", "").replace("]", "").split(",") if p.strip()]
    rest = re.sub(r"ORDER BY stock_time, id DESC", "", m["rest"], flags=re.I).strip()
    if rest:
        raise NoSql(f"unsupported clause {rest!r}")
    return SeqSpec(variables, int(m["w"]), partition)


def _before(a: str, b: str) -> str:
    """Event b comes after event a in the stream order (stock_time, then id descending)."""
    return f"({b}.stock_time > {a}.stock_time OR ({b}.stock_time = {a}.stock_time AND {b}.id < {a}.id))"


def plain_sql(spec: SeqSpec, bucketed: bool) -> str:
    """
    The pattern as a Spark user writes it: one filtered relation per variable, joined on the stream order with
    the window between the first and the last event (every event of a match lies in [first, first + W)).
    bucketed: the window condition also becomes an equi-join on time buckets of width W (the first event's
    bucket; each later event is offered for its own bucket and the one before), so Spark can hash-join instead
    of comparing every pair (BroadcastNestedLoopJoin / CartesianProduct), the usual range-join trick.
    """
    w = spec.window
    ctes, joins = [], []
    for i, v in enumerate(spec.vars, start=1):
        types = v.types[0] if len(v.types) == 1 else None
        conds = [f"event_type = '{types}'" if types else "event_type IN (" + ", ".join(f"'{t}'" for t in v.types) + ")"]
        conds += [f"({p})" for p in v.preds] + [f"{k} IS NOT NULL" for k in spec.partition]
        bucket = f"floor(stock_time / {w})"
        extra = ""
        if bucketed:
            extra = f", {bucket} AS kb" if i == 1 else f", explode(array({bucket}, {bucket} - 1)) AS kb"
        ctes.append(f"e{i} AS (SELECT *{extra} FROM S WHERE {' AND '.join(conds)})")
        if i > 1:
            on = ([f"t{i}.kb = t1.kb"] if bucketed else []) + [f"t{i}.{k} = t1.{k}" for k in spec.partition]
            on += [_before(f"t{i - 1}", f"t{i}"), f"t{i}.stock_time - t1.stock_time < {w}"]
            joins.append(f"JOIN e{i} t{i} ON " + " AND ".join(on))
    n = len(spec.vars)
    select = [f"t1.{k} AS {k}" for k in spec.partition]
    select += ["t1.stock_time AS match_start", f"t{n}.stock_time AS match_end"]
    select += [
        f"struct({', '.join(f't{i}.{c}' for c in COLUMNS)}) AS {v.name}" for i, v in enumerate(spec.vars, start=1)
    ]
    return (
        "WITH " + ",\n     ".join(ctes) + "\nSELECT " + ",\n       ".join(select) + "\nFROM e1 t1\n" + "\n".join(joins)
    )


def kleene_count_sql(text: str) -> str:
    """
    Q7 (A ; X+ AS v ; B, every event of v filtered alike), as far as plain SQL goes: the number of matches, not
    the matches. For each pair (a, b) in order within the window, with k candidates for v strictly between
    them, there are 2^k - 1 matches. Enumerating them needs one join per element of the subset.
    """
    body = " ".join(" ".join(line.split("--")[0] for line in text.splitlines()).split())
    m = re.match(
        r"SELECT \* FROM S WHERE \((\w+) AS (\w+); \(BUY OR SELL\)\+ AS (\w+); (\w+) AS (\w+)\) FILTER "
        r"(.*?) WITHIN (\d+) \[stock_time\]",
        body,
        re.I,
    )
    if not m:
        raise NoSql("not of Q7's shape")
    first_type, first, mid, last_type, last, filters, w = m.groups()
    preds: Dict[str, List[str]] = {first: [], mid: [], last: []}
    for f in re.finditer(r"(\w+)\[([^\]]*)\]", filters):
        preds[f[1]].append(f"({f[2]})")
    conds = lambda v, types: " AND ".join([types] + preds[v])  # noqa: E731
    return f"""
WITH a AS (SELECT *, floor(stock_time / {w}) AS kb FROM S WHERE {conds(first, f"event_type = '{first_type}'")}),
     b AS (SELECT *, explode(array(floor(stock_time / {w}), floor(stock_time / {w}) - 1)) AS kb
           FROM S WHERE {conds(last, f"event_type = '{last_type}'")}),
     x AS (SELECT *, explode(array(floor(stock_time / {w}), floor(stock_time / {w}) - 1)) AS kb
           FROM S WHERE {conds(mid, "event_type IN ('BUY', 'SELL')")}),
     pairs AS (SELECT a.id AS aid, a.stock_time AS a_t, b.id AS bid, b.stock_time AS b_t, a.kb
               FROM a JOIN b ON b.kb = a.kb AND {_before("a", "b")} AND b.stock_time - a.stock_time < {w}),
     k AS (SELECT p.aid, p.bid, count(x.id) AS k
           FROM pairs p LEFT JOIN x ON x.kb = p.kb
             AND (x.stock_time > p.a_t OR (x.stock_time = p.a_t AND x.id < p.aid))
             AND (p.b_t > x.stock_time OR (p.b_t = x.stock_time AND p.bid < x.id))
           GROUP BY p.aid, p.bid)
SELECT CAST(sum(pow(2, k) - 1) AS BIGINT) AS matches FROM k WHERE k > 0
"""
