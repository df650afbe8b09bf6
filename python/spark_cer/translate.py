"""
``spark_cer.translate``: a MATCH_RECOGNIZE statement written for another engine, made one that spark-cer runs.

The work is split by what each side knows:

- the JVM finds the statement's MATCH_RECOGNIZE clauses with the grammar that runs them (there is one, on the JVM;
  Python parses neither CEQL nor MATCH_RECOGNIZE), and tells where each piece of a clause stands: its relation,
  each PARTITION BY expression, ORDER BY item, MEASURES expression and DEFINE condition;
- sqlglot (pinned) maps each of those pieces, and the statement around the clauses, from the source dialect to
  Spark's: functions (``IFF``, ``NVL``, ``DATEADD``), casts (``::``), quoting, the null order of ORDER BY;
- the functions a dialect has of its own in a clause are then written as the standard's (Snowflake's ``LAG`` and
  ``LEAD``, which read the match's rows, as ``PREV`` and ``NEXT`` bounded by the match);
- the result is checked by the JVM, each translated clause by :func:`spark_cer.validate`.

What sqlglot cannot read or write for Spark is raised as :class:`TranslationError`, with its line and column in the
statement as written, never dropped.
"""

from __future__ import annotations

import re
from typing import Any, Dict, List, Optional, Tuple

from spark_cer.validate import PatternError, _ask, from_spark_error, validate

__all__ = ["TranslationError", "translate", "DIALECTS"]

#: The engines whose MATCH_RECOGNIZE statements ``translate`` reads (sqlglot's dialect names).
DIALECTS = ("snowflake", "oracle", "trino", "databricks")

_PLACEHOLDER = "__cer_mr_{}"


class TranslationError(PatternError):
    """A piece of the statement that cannot be written for Spark: where it stands, and what sqlglot or the JVM said."""


def _place(sql: str, offset: int, length: int, problem: str) -> TranslationError:
    """The error at `offset`, worded as the JVM words its own: the line and column, then the line with a caret."""
    line = sql.count("\n", 0, offset) + 1
    line_start = sql.rfind("\n", 0, offset) + 1
    line_end = sql.find("\n", offset)
    text = sql[line_start:line_end if line_end >= 0 else len(sql)]
    column = offset - line_start + 1
    caret = " " * (column - 1) + "^" * max(1, min(length, len(text) - column + 1))
    message = f"line {line}, column {column}: {problem}\n  {text}\n  {caret}"
    return TranslationError(message, problem=problem, line=line, column=column, offset=offset, length=length, query=sql)


def _sqlglot():
    try:
        import sqlglot
    except ImportError as e:  # pragma: no cover - a dependency of the package
        raise ImportError("spark_cer.translate needs sqlglot: pip install sqlglot") from e
    return sqlglot


class _Translation:
    """One statement's translation from `read`, its errors placed in `sql` (the statement as written)."""

    def __init__(self, sql: str, read: str, spark: Optional[Any]) -> None:
        self.sql = sql
        self.read = read
        self.spark = spark
        self.sqlglot = _sqlglot()
        self.queries = False  # whether the statement is queries only, once read
        self.clauses = 0  # how many MATCH_RECOGNIZE clauses it has, once read

    # ---- sqlglot, its errors placed ------------------------------------------------------------------------

    def parsed(self, text: str, at: int):
        """`text` (standing at offset `at` of the statement) parsed in the source dialect."""
        errors = self.sqlglot.errors
        try:
            return self.sqlglot.parse_one(text, read=self.read)
        except (errors.ParseError, errors.TokenError) as e:
            first = e.errors[0] if isinstance(e, errors.ParseError) and e.errors else {}
            offset = at
            if first.get("line"):
                lines = text.split("\n")
                start = sum(len(line) + 1 for line in lines[: first["line"] - 1])
                offset = at + max(0, min(len(text), start + first["col"] - len(first.get("highlight") or " ")))
            problem = f"{self.read} SQL that sqlglot cannot read: {first.get('description', str(e))}"
            raise _place(self.sql, offset, len(first.get("highlight") or "") or 1, problem) from None

    def written(self, tree, at: int, length: int) -> str:
        """A parsed piece written for Spark; what Spark cannot express is an error at the piece's place."""
        errors = self.sqlglot.errors
        try:
            return tree.sql(dialect="spark", unsupported_level=self.sqlglot.ErrorLevel.RAISE)
        except errors.UnsupportedError as e:
            said = " ".join(str(e).split())
            raise _place(self.sql, at, length, f"cannot be written for Spark: {said}") from None

    # ---- the pieces of a clause ----------------------------------------------------------------------------

    def text(self, piece: Dict[str, Any]) -> str:
        """A piece as written, with the JVM's edits applied: RUNNING and FINAL as functions, which any parser reads."""
        text = self.sql[piece["start"]:piece["end"]]
        for offset, length, replacement in sorted(piece["edits"], key=lambda e: -e[0]):
            text = text[:offset] + replacement + text[offset + length:]
        return text

    def qualified(self, text: str, variables: List[str]) -> str:
        """
        `text` with the pattern variables that qualify a column (`START.price`) quoted where the source dialect's
        tokenizer reads them as keywords, which its parser would not take as a qualifier.
        """
        try:
            tokens = self.sqlglot.tokenize(text, read=self.read)
        except self.sqlglot.errors.TokenError:
            return text  # which the parser then refuses, at its place
        TokenType = self.sqlglot.tokens.TokenType
        names = {v.upper() for v in variables}
        quote = '"' if '"' in self.sqlglot.Dialect.get_or_raise(self.read).tokenizer_class.IDENTIFIERS else "`"
        for t, after in reversed(list(zip(tokens, tokens[1:]))):
            if after.token_type == TokenType.DOT and t.text.upper() in names and \
                    t.token_type not in (TokenType.VAR, TokenType.IDENTIFIER):
                text = text[:t.start] + quote + t.text + quote + text[t.end + 1:]
        return text

    def expression(self, piece: Dict[str, Any], variables: List[str]) -> str:
        """A PARTITION BY or MEASURES expression or a DEFINE condition, in a clause's terms."""
        exp = self.sqlglot.exp
        at, length = piece["start"], piece["end"] - piece["start"]
        tree = self.parsed(self.qualified(self.text(piece), variables), at)

        def standard(node):
            if self.read == "snowflake":
                node = self.snowflake(node, piece["kind"], at, length)
            # RUNNING and FINAL, which the JVM gave as functions so that any dialect's parser reads them.
            if isinstance(node, exp.Anonymous) and node.name.lower() in ("__mr_running", "__mr_final"):
                word = "RUNNING" if node.name.lower() == "__mr_running" else "FINAL"
                return exp.Var(this=f"{word} {self.written(node.expressions[0], at, length)}")
            return node

        return self.written(tree.transform(standard), at, length)

    def snowflake(self, node, kind: str, at: int, length: int):
        """
        Snowflake's own functions of a clause, in the standard's terms. Its navigation functions read the match's
        frame, from the match's first row to its last, not the partition: ``LAG(x, n)`` is NULL on the match's first
        n rows, and in MEASURES ``LEAD(x, n)`` on its last n. Its ``MATCH_SEQUENCE_NUMBER()`` is the row's place in
        the match, and ``CLASSIFIER`` may go without parentheses.
        """
        exp = self.sqlglot.exp
        if isinstance(node, (exp.Lag, exp.Lead)):
            if node.args.get("default") is not None:
                raise _place(self.sql, at, length, f"{node.sql(self.read)}: a default value has no PREV or NEXT "
                             "form; write COALESCE(LAG(...), default)")
            offset = node.args.get("offset") or exp.Literal.number(1)
            lag = isinstance(node, exp.Lag)
            navigation = exp.Anonymous(this="PREV" if lag else "NEXT", expressions=[node.this, offset])
            position = self.sqlglot.parse_one("COUNT(*)")
            if lag:
                inside = exp.GT(this=position, expression=offset.copy())
            elif kind == "measure":
                inside = exp.GTE(this=exp.Sub(this=exp.Var(this="FINAL COUNT(*)"), expression=position),
                                 expression=offset.copy())
            else:  # in DEFINE the frame has no last row yet: the next rows of the partition
                return navigation
            return exp.If(this=inside, true=navigation, false=exp.Null())
        if isinstance(node, exp.Anonymous) and node.name.upper() == "MATCH_SEQUENCE_NUMBER" and not node.expressions:
            return self.sqlglot.parse_one("COUNT(*)")
        if isinstance(node, exp.Column) and not node.table and node.name.upper() == "CLASSIFIER" and \
                not node.this.quoted:
            return exp.Anonymous(this="CLASSIFIER", expressions=[])
        return node

    def name(self, piece: Dict[str, Any]) -> str:
        """A measure's name, quoted as Spark quotes names."""
        at, end = piece["start"], piece["end"]
        prefix = "SELECT 1 AS "
        tree = self.parsed(prefix + self.sql[at:end], at - len(prefix))
        return self.written(tree.expressions[0].args["alias"], at, end - at)

    def order_item(self, piece: Dict[str, Any]) -> str:
        """An ORDER BY item with its direction; the source's null order written out where Spark's differs."""
        at, end = piece["start"], piece["end"]
        prefix = "SELECT 1 ORDER BY "
        tree = self.parsed(prefix + self.sql[at:end], at - len(prefix))
        return self.written(tree.args["order"].expressions[0], at, end - at)

    def relation(self, start: int, end: int) -> str:
        """The relation a clause reads, as a FROM item (a name, a query in parentheses, ...)."""
        prefix = "SELECT * FROM "
        inner = _Translation(prefix + self.sql[start:end], self.read, self.spark)
        try:
            text = inner.statement()
        except TranslationError as e:
            raise _place(self.sql, start + max(0, e.offset - len(prefix)), e.length, e.problem) from None
        if not text.startswith(prefix):  # pragma: no cover - sqlglot writes a SELECT * as it reads it
            raise RuntimeError(f"sqlglot wrote the relation {self.sql[start:end]!r} as {text!r}")
        # A relation with clauses of its own is a query (sqlglot reads no clause); any other one sqlglot reads.
        source = None if inner.clauses else self.sqlglot.parse_one(text, read="spark").args["from_"].this
        if isinstance(source, self.sqlglot.exp.Values) and source.args.get("alias"):
            # Spark writes an inline table bare (`VALUES (1, 2) AS t(a, b)`), which only a FROM clause reads; before
            # MATCH_RECOGNIZE it stands as a query in parentheses, as the source wrote it.
            alias = source.args["alias"].pop()
            return f"({source.sql(dialect='spark')}) AS {alias.sql(dialect='spark')}"
        return text[len(prefix):]

    def clause(self, found: Dict[str, Any]) -> str:
        """`MATCH_RECOGNIZE (...)` with its pieces translated, its layout and the rest of its words as written."""
        start, end = found["clause"]
        text = self.sql[start:end]
        for piece in sorted(found["pieces"], key=lambda p: -p["start"]):
            kind = piece["kind"]
            translated = self.order_item(piece) if kind == "order" else self.name(piece) if kind == "name" else \
                self.expression(piece, found["variables"])
            text = text[: piece["start"] - start] + translated + text[piece["end"] - start:]
        return text

    # ---- the statement -------------------------------------------------------------------------------------

    def jvm_view(self) -> str:
        """
        The statement as the JVM reads it, of the same length: names quoted with double quotes, as the source dialect
        quotes them (its own tokenizer tells them from strings), are quoted with backquotes, as Spark quotes them.
        """
        dialect = self.sqlglot.Dialect.get_or_raise(self.read)
        if '"' not in dialect.tokenizer_class.IDENTIFIERS:
            return self.sql
        view = list(self.sql)
        try:
            tokens = self.sqlglot.tokenize(self.sql, read=self.read)
        except self.sqlglot.errors.TokenError as e:
            raise _place(self.sql, 0, 1, f"{self.read} SQL that sqlglot cannot read: {e}") from None
        for t in tokens:
            if t.token_type == self.sqlglot.tokens.TokenType.IDENTIFIER and view[t.start] == '"' and view[t.end] == '"':
                view[t.start] = view[t.end] = "`"
        return "".join(view)

    def statement(self) -> str:
        answer = _ask({"query": self.jvm_view(), "language": "statement"}, self.spark, self.sql)
        # A clause inside another's relation is translated with that relation.
        spans = answer["clauses"]
        self.clauses = len(spans)
        outer = [c for c in spans if not any(o is not c and o["relation"][0] <= c["relation"][0] and
                                             c["clause"][1] <= o["clause"][1] for o in spans)]
        # The statement with each clause (and its relation) as a name, which any dialect reads: (offset in the
        # text given to sqlglot, offset in the statement) where each stand-in starts, to place sqlglot's errors.
        text, moved, last = "", [(0, 0)], 0
        for n, c in enumerate(outer):
            text += self.sql[last:c["relation"][0]]
            text += _PLACEHOLDER.format(n)
            last = c["clause"][1]
            moved.append((len(text), last))
        text += self.sql[last:]
        written = self.outer(text, moved)
        for n, c in enumerate(outer):
            stand_in = re.compile(r"\b" + re.escape(_PLACEHOLDER.format(n)) + r"\b")
            if len(stand_in.findall(written)) != 1:  # pragma: no cover - sqlglot keeps a table's plain name
                raise RuntimeError(f"sqlglot did not keep the stand-in of clause {n}: {written}")
            # What stands between the relation and the clause (an alias the clause's output does not take) as written.
            between = self.sql[c["relation"][1]:c["clause"][0]]
            clause = f"{self.relation(*c['relation'])}{between}{self.clause(c)}"
            written = stand_in.sub(lambda _: clause, written)
        return written

    def outer(self, text: str, moved: List[Tuple[int, int]]) -> str:
        """The statement around its clauses, for Spark."""
        errors = self.sqlglot.errors

        def original(offset: int) -> int:
            at, was = max((m for m in moved if m[0] <= offset), key=lambda m: m[0])
            return was + offset - at

        try:
            trees = self.sqlglot.parse(text, read=self.read)
        except errors.ParseError as e:
            first = e.errors[0] if e.errors else {}
            lines = text.split("\n")
            offset = sum(len(line) + 1 for line in lines[: max(0, first.get("line", 1) - 1)]) + \
                max(0, first.get("col", 1) - len(first.get("highlight") or " "))
            raise _place(self.sql, original(offset), len(first.get("highlight") or "") or 1,
                         f"{self.read} SQL that sqlglot cannot read: {first.get('description', str(e))}") from None
        statements = [t for t in trees if t is not None]
        self.queries = all(isinstance(t, self.sqlglot.exp.Query) for t in statements)
        return ";\n".join(self.written(t, 0, len(self.sql)) for t in statements)

    def check(self, written: str) -> None:
        """
        Each translated clause checked by the grammar and analysis that run it; with a session given, and a
        statement that is a query (never a command, which Spark would run), the statement analyzed by Spark: its
        tables, columns and functions resolved, as ``spark.sql`` would.
        """
        answer = _ask({"query": written, "language": "statement"}, self.spark)
        for found in answer.get("clauses", ()):
            start, end = found["clause"]
            opened = written.index("(", start) + 1
            try:
                validate(written[opened: end - 1], match_recognize=True, spark=self.spark)
            except PatternError as e:
                raise _place(written, opened + max(0, e.offset), e.length,
                             f"the translated clause is refused: {e.problem}") from None
        if self.spark is not None and self.queries:
            from pyspark.errors import PySparkException

            try:
                self.spark.sql(written).schema
            except PySparkException as e:
                placed = from_spark_error(e, written)
                if placed is not None:  # spark-cer's own, at its place in the translated statement
                    raise _place(written, placed.offset, placed.length,
                                 f"Spark cannot analyze the translated statement: {placed.problem}") from None
                problem = " ".join(str(e).strip().split("\n")[0].split())
                raise _place(written, 0, len(written.split("\n")[0]),
                             f"Spark cannot analyze the translated statement: {problem}") from None


def translate(sql: str, read: str, *, spark: Optional[Any] = None, check: bool = True) -> str:
    """
    A MATCH_RECOGNIZE statement written for Snowflake, Oracle, Trino or Databricks, as a statement spark-cer runs
    with ``spark.sql``.

    The JVM finds the clauses (the grammar that runs them) and the places of their pieces; sqlglot maps each piece
    and the statement around the clauses to Spark's SQL: functions and types (``IFF`` becomes ``IF``, ``NVL``
    ``COALESCE``, ``DATEADD(day, 1, d)`` ``DATE_ADD(d, 1)``, ``x::number(10,2)`` a CAST), quoting (``"Ticker"``
    becomes ```Ticker```), and the null order the source engine sorts by (Snowflake and Oracle put NULLs last in
    ascending order, Spark first: ``ORDER BY d`` becomes ``ORDER BY d NULLS LAST``). In a clause, Snowflake's
    navigation, which reads the match's rows (its "window frame"), becomes the standard's: ``LAG(x)`` is
    ``IF(COUNT(*) > 1, PREV(x, 1), NULL)`` (NULL on the match's first row), ``LEAD(x)`` in MEASURES likewise with
    NEXT up to the match's last row, and ``MATCH_SEQUENCE_NUMBER()`` is ``COUNT(*)``. Measure names are quoted as
    Spark quotes names; the clause's pattern, SUBSET, modes and variables are kept as written.

    Parameters
    ----------
    sql : str
        The statement, as the other engine runs it.
    read : str
        Its dialect: ``"snowflake"``, ``"oracle"``, ``"trino"`` or ``"databricks"`` (any dialect of sqlglot is read).
    spark : SparkSession, optional
        The session whose JVM finds the clauses and checks the result; by default the active one, else a JVM this
        process starts once on the bundled jar (as :func:`spark_cer.validate`). Given, a translated query is also
        analyzed by it (its tables must exist): a function that no Spark has is an error here, not when it runs.
    check : bool, default True
        Check each translated clause with :func:`spark_cer.validate` (and, with ``spark``, the query).

    Returns
    -------
    str
        The statement for ``spark.sql``.

    Raises
    ------
    TranslationError
        A piece that sqlglot cannot read in the source dialect or write for Spark, or a translated clause that
        spark-cer refuses: its line and column in the statement as written, and why.
    PatternSyntaxError
        A MATCH_RECOGNIZE clause that does not follow the grammar.

    Examples
    --------
    >>> from spark_cer import translate
    >>> print(translate('''SELECT * FROM trades MATCH_RECOGNIZE (
    ...     PARTITION BY symbol ORDER BY day
    ...     MEASURES IFF(COUNT(up.*) > 2, 'long', 'short') AS run
    ...     PATTERN (down up+)
    ...     DEFINE up AS price > LAG(price)) ORDER BY symbol''', read="snowflake"))
    SELECT * FROM trades MATCH_RECOGNIZE (
        PARTITION BY symbol ORDER BY day NULLS LAST
        MEASURES IF(COUNT(up.*) > 2, 'long', 'short') AS run
        PATTERN (down up+)
        DEFINE up AS price > IF(COUNT(*) > 1, PREV(price, 1), NULL)) ORDER BY symbol NULLS LAST
    """
    if not isinstance(sql, str):
        raise TypeError(f"sql must be a string, not {type(sql).__name__}")
    translation = _Translation(sql, read, spark)
    written = translation.statement()
    if check:
        translation.check(written)
    return written
