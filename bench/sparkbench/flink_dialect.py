"""The MATCH_RECOGNIZE workloads of recognize.py as Flink SQL can state them, and the digest both sides' rows are
compared by. Standard library only: bench/sparkbench/flink_peer.py imports it in Flink's virtual environment, the
harness in the project's.

Flink 2.3 refuses three things these workloads use, so each clause is adapted as little as gives the same rows:

- PREV reads only rows of the partial match: on a match's first row it is NULL. v_shape's B+ and rising's first B
  read the row before the match, so a leading variable with no condition (P, A) stands for that row; alternation's
  S already does.
- A greedy quantifier may not end the pattern ("Greedy quantifiers are not allowed as the last element of a
  Pattern yet"). A closing variable X, the first row that is not a rise, ends C+ and B+ where the greedy run ends,
  and AFTER MATCH SKIP TO LAST C (LAST B) lets X start the next match as SKIP PAST LAST ROW lets it in the original.
  Flink so drops a match whose run reaches the partition's last row (nothing follows to close it): a few matches in
  all, which the harness counts by running spark-cer on these clauses too.
- Alternation and quantified groups ("Group patterns are not supported yet"): (U | F){2,4} becomes UF{2,4} with
  UF AS price >= PREV(price) (U or F: mutually exclusive single rows), and since PREV may not appear in MEASURES,
  count(U.*) is written out over the at most four UF rows with FIRST(UF.price, i); flats are the rest.

`ORDER BY {order}`: Flink orders by a time attribute first (the event-time attribute `ts`, a TIMESTAMP_LTZ of
stock_time), spark-cer by stock_time; both then by id DESC, the trace's order within a millisecond."""

from __future__ import annotations

import hashlib
from typing import Any, Dict, Iterable, Sequence, Tuple

WORKLOADS = ("v_shape", "rising", "alternation")


def _ups() -> str:
    """count(U.*) over UF{2,4}: the UF rows that rise over the row before them (S before the first)."""
    terms = ["CASE WHEN FIRST(UF.price, 0) > S.price THEN 1 ELSE 0 END"]
    terms += [f"CASE WHEN FIRST(UF.price, {i}) > FIRST(UF.price, {i - 1}) THEN 1 ELSE 0 END" for i in (1, 2, 3)]
    return "(" + " + ".join(terms) + ")"


CLAUSES: Dict[str, str] = {
    "v_shape": """
  PARTITION BY name ORDER BY {order}
  MEASURES FIRST(B.stock_time) AS down_start, LAST(B.stock_time) AS bottom, LAST(C.stock_time) AS up_end,
           COUNT(B.price) AS downs, COUNT(C.price) AS ups
  ONE ROW PER MATCH
  AFTER MATCH SKIP TO LAST C
  PATTERN (P B+ C+ X)
  DEFINE B AS price < PREV(price), C AS price > PREV(price), X AS NOT (price > PREV(price))""",
    "rising": """
  PARTITION BY name ORDER BY {order}
  MEASURES A.stock_time AS start_time, LAST(B.stock_time) AS end_time, COUNT(B.price) AS ups
  ONE ROW PER MATCH
  AFTER MATCH SKIP TO LAST B
  PATTERN (A B+ X)
  DEFINE B AS price > PREV(price), X AS NOT (price > PREV(price))""",
    "alternation": f"""
  PARTITION BY name ORDER BY {{order}}
  MEASURES FIRST(S.stock_time) AS start_time, LAST(D.stock_time) AS end_time, {_ups()} AS ups,
           COUNT(UF.price) - {_ups()} AS flats
  ONE ROW PER MATCH
  AFTER MATCH SKIP PAST LAST ROW
  PATTERN (S UF{{2,4}} D)
  DEFINE UF AS price >= PREV(price), D AS price < PREV(price)""",
}

FLINK_ORDER = "ts, id DESC"
SPARK_ORDER = "stock_time, id DESC"


def query(workload: str, table: str, order: str) -> str:
    """The workload's statement over `table`, ordered by `order` (FLINK_ORDER or SPARK_ORDER)."""
    return f"SELECT * FROM {table} MATCH_RECOGNIZE ({CLAUSES[workload].replace('{order}', order)})"


def digest(rows: Iterable[Sequence[Any]]) -> Tuple[int, str]:
    """(the number of rows, a hash of the rows as a set): each row's values as text (integers as Python prints
    them, so that Flink's BIGINT and INT and Spark's long agree), the lines sorted, SHA-256's first 16 hex digits."""
    lines = sorted("|".join("NULL" if v is None else str(v) for v in row) for row in rows)
    return len(lines), hashlib.sha256("\n".join(lines).encode()).hexdigest()[:16]
