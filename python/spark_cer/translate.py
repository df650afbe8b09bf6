"""
``spark_cer.translate``: a MATCH_RECOGNIZE statement written for another engine, made one that spark-cer runs.

The work is split by what each side knows:

- the JVM finds the statement's MATCH_RECOGNIZE clauses with the grammar that runs them (there is one, on the JVM;
  Python parses neither CEQL nor MATCH_RECOGNIZE), and tells where each piece of a clause stands: its relation,
  each PARTITION BY expression, ORDER BY item, MEASURES expression and DEFINE condition;
- sqlglot (pinned) reads each of those pieces, and the statement around the clauses, in the source dialect;
- every function and operator is given its meaning in Spark by :mod:`spark_cer.dialect_rules` (kept, mapped, or
  refused: an allow-list, so that a translated statement returns the source engine's rows or is refused);
- sqlglot writes the result for Spark: quoting, the null order of ORDER BY; ``SELECT *`` over a clause of ALL ROWS
  PER MATCH is laid out as the source engine lays it out;
- the result is checked by the JVM, each translated clause by :func:`spark_cer.validate`.

What cannot be read, kept or written for Spark is raised as :class:`TranslationError`, with its line and column in
the statement as written, never dropped. ``docs/translate.md`` lists the rules and why each is what it is.
"""

from __future__ import annotations

import re
import warnings
from typing import Any, Dict, List, Optional, Tuple

from spark_cer.dialect_rules import SPARK_DIALECTS, RULES, Refused, Site, in_spark_terms, reader
from spark_cer.validate import PatternError, _ask, from_spark_error, validate

__all__ = ["TranslationError", "translate", "DIALECTS"]

#: The engines whose MATCH_RECOGNIZE statements ``translate`` reads (sqlglot's dialect names): those whose functions'
#: meaning in Spark is decided (:mod:`spark_cer.dialect_rules`), and Databricks, whose functions are Spark's.
DIALECTS = (*RULES, "databricks")

_PLACEHOLDER = "__cer_mr_{}"
_NEXT = "__cer_next"  # the navigation NEXT, as sqlglot's parsers read it
_STAR = "__cer_all_rows_{}"  # a SELECT * laid out as the source engine lays out ALL ROWS PER MATCH


class TranslationError(PatternError):
    """A piece of the statement that cannot be written for Spark: where it stands, and what sqlglot or the JVM said."""


def _place(sql: str, offset: int, length: int, problem: str) -> TranslationError:
    """The error at `offset`, worded as the JVM words its own: the line and column, then the line with a caret."""
    line = sql.count("\n", 0, offset) + 1
    line_start = sql.rfind("\n", 0, offset) + 1
    line_end = sql.find("\n", offset)
    text = sql[line_start : line_end if line_end >= 0 else len(sql)]
    column = offset - line_start + 1
    caret = " " * (column - 1) + "^" * max(1, min(length, len(text) - column + 1))
    message = f"line {line}, column {column}: {problem}\n  {text}\n  {caret}"
    return TranslationError(message, problem=problem, line=line, column=column, offset=offset, length=length, query=sql)


def _first_token(node) -> Optional[Tuple[int, int]]:
    """The offsets (first and last character) of the first token of `node` whose place sqlglot kept."""
    placed = [n.meta for n in node.walk() if "start" in n.meta]
    first = min(placed, key=lambda m: m["start"], default=None)
    return (first["start"], first["end"]) if first else None


def _sqlglot():
    try:
        import sqlglot
    except ImportError as e:  # pragma: no cover - a dependency of the package
        raise ImportError("spark_cer.translate needs sqlglot: pip install sqlglot") from e
    return sqlglot


class _Translation:
    """One statement's translation from `read`, its errors placed in `sql` (the statement as written)."""

    def __init__(self, sql: str, read: str, spark: Optional[Any]) -> None:
        if read not in DIALECTS and read not in SPARK_DIALECTS:
            raise ValueError(
                f"translate reads {', '.join(DIALECTS)}, not {read!r}: the meaning in Spark of another "
                "dialect's functions has not been decided"
            )
        self.sql = sql
        self.read = read
        self.spark = spark
        self.sqlglot = _sqlglot()
        self.queries = False  # whether the statement is queries only, once read
        self.clauses = 0  # how many MATCH_RECOGNIZE clauses it has, once read
        self.outer_clauses: List[Dict[str, Any]] = []  # the clauses not inside another's relation, once read

    # ---- sqlglot, its errors placed ------------------------------------------------------------------------

    def parsed(self, text: str, at: int):
        """`text` (standing at offset `at` of the statement) parsed in the source dialect."""
        errors = self.sqlglot.errors
        try:
            return self.sqlglot.parse_one(text, read=reader(self.read))
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

    def in_spark(self, tree, kind: str, text: str, at: int, length: int):
        """
        `tree`, read from `text` (which stands at offset `at` of the statement, `length` long as written), with each
        function and operator given its meaning in Spark; what has none is an error at its place.
        """
        try:
            return in_spark_terms(tree, Site(self.read, kind))
        except Refused as e:
            raise _place(self.sql, *self.place_of(e.node, text, at, length), str(e)) from None

    def as_written(self, node, text: str) -> Optional[Tuple[int, int]]:
        """Where `node` stands in `text` (and its length), where sqlglot writes it back as it was written."""
        found = re.search(r"\s*".join(re.escape(w) for w in node.sql(self.read).split()), text, re.IGNORECASE)
        return (found.start(), found.end() - found.start()) if found else None

    def place_of(self, node, text: str, at: int, length: int) -> Tuple[int, int]:
        """
        Where `node` (read from `text`) stands in the statement: its first token, found again in the statement's text
        from `at` (the text sqlglot read may differ from it by the JVM's and the quoting's edits, never in a name).
        """
        written = self.as_written(node, self.sql[at : at + length])
        if written is not None:
            return at + written[0], written[1]
        first = _first_token(node)
        if first is None:
            return at, length
        word = re.escape(text[first[0] : first[1] + 1].strip('"`'))
        found = list(re.finditer(rf"\b{word}\b", self.sql[at : at + length], re.IGNORECASE))
        earlier = len(re.findall(rf"\b{word}\b", text[: first[0]], re.IGNORECASE))
        if earlier >= len(found):
            return at, length
        start = at + found[earlier].start()
        return start, max(1, min(len(node.sql(self.read)), at + length - start))

    # ---- the pieces of a clause ----------------------------------------------------------------------------

    def text(self, piece: Dict[str, Any]) -> str:
        """A piece as written, with the JVM's edits applied: RUNNING and FINAL as functions, which any parser reads."""
        text = self.sql[piece["start"] : piece["end"]]
        for offset, length, replacement in sorted(piece["edits"], key=lambda e: -e[0]):
            text = text[:offset] + replacement + text[offset + length :]
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
            if (
                after.token_type == TokenType.DOT
                and t.text.upper() in names
                and t.token_type not in (TokenType.VAR, TokenType.IDENTIFIER)
            ):
                text = text[: t.start] + quote + t.text + quote + text[t.end + 1 :]
        return text

    def nameable_next(self, text: str) -> str:
        """
        `text` with the navigation NEXT( named so that any dialect's parser reads it as a function (Oracle's, in
        sqlglot, reads NEXT as the start of NEXT VALUE FOR).
        """
        try:
            tokens = self.sqlglot.tokenize(text, read=self.read)
        except self.sqlglot.errors.TokenError:
            return text  # which the parser then refuses, at its place
        TokenType = self.sqlglot.tokens.TokenType
        for t, after in reversed(list(zip(tokens, tokens[1:]))):
            if t.text.upper() == "NEXT" and after.token_type == TokenType.L_PAREN:
                text = text[: t.start] + _NEXT + text[t.end + 1 :]
        return text

    def expression(self, piece: Dict[str, Any], variables: List[str]) -> str:
        """A PARTITION BY or MEASURES expression or a DEFINE condition, in a clause's terms."""
        exp = self.sqlglot.exp
        at, length = piece["start"], piece["end"] - piece["start"]
        text = self.qualified(self.text(piece), variables)

        def classifier(node):
            # Snowflake's CLASSIFIER may go without parentheses.
            if (
                self.read == "snowflake"
                and isinstance(node, exp.Column)
                and not node.table
                and node.name.upper() == "CLASSIFIER"
                and not node.this.quoted
            ):
                return exp.Anonymous(this="CLASSIFIER", expressions=[])
            if isinstance(node, exp.Anonymous) and node.name == _NEXT:
                return exp.Anonymous(this="NEXT", expressions=node.expressions)
            return node

        def running_final(node):
            # RUNNING and FINAL, which the JVM gave as functions so that any dialect's parser reads them.
            if isinstance(node, exp.Anonymous) and node.name.lower() in ("__mr_running", "__mr_final"):
                word = "RUNNING" if node.name.lower() == "__mr_running" else "FINAL"
                return exp.Var(this=f"{word} {self.written(node.expressions[0], at, length)}")
            return node

        tree = self.parsed(self.nameable_next(text), at).transform(classifier)
        tree = self.in_spark(tree, piece["kind"], text, at, length)
        return self.written(tree.transform(running_final), at, length)

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
        text = prefix + self.sql[at:end]
        tree = self.in_spark(self.parsed(text, at - len(prefix)), "order", text, at - len(prefix), len(text))
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
        return text[len(prefix) :]

    def clause(self, found: Dict[str, Any]) -> str:
        """`MATCH_RECOGNIZE (...)` with its pieces translated, its layout and the rest of its words as written."""
        start, end = found["clause"]
        text = self.sql[start:end]
        for piece in sorted(found["pieces"], key=lambda p: -p["start"]):
            kind = piece["kind"]
            translated = (
                self.order_item(piece)
                if kind == "order"
                else self.name(piece)
                if kind == "name"
                else self.expression(piece, found["variables"])
            )
            text = text[: piece["start"] - start] + translated + text[piece["end"] - start :]
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
        outer = [
            c
            for c in spans
            if not any(
                o is not c and o["relation"][0] <= c["relation"][0] and c["clause"][1] <= o["clause"][1] for o in spans
            )
        ]
        self.outer_clauses = outer
        # The statement with each clause (and its relation) as a name, which any dialect reads: (offset in the
        # text given to sqlglot, offset in the statement) where each stand-in starts, to place sqlglot's errors.
        text, moved, last = "", [(0, 0)], 0
        for n, c in enumerate(outer):
            text += self.sql[last : c["relation"][0]]
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
            between = self.sql[c["relation"][1] : c["clause"][0]]
            relation = self.relation(*c["relation"])
            clause = f"{relation}{between}{self.clause(c)}"
            written = stand_in.sub(lambda _: clause, written)
            star = re.compile(r"\b" + re.escape(_STAR.format(n)) + r"\b")
            if star.search(written):
                written = star.sub(lambda _: self.all_rows_columns(relation, c), written)
        return written

    def all_rows_columns(self, relation: str, found: Dict[str, Any]) -> str:
        """
        ``SELECT *`` over a clause of ALL ROWS PER MATCH, in Snowflake's order: the input's columns as the input has
        them, then the measures (spark-cer's, as Trino's and the standard's, is the partition, the order, the measures,
        then the rest). The input's columns are asked of the session; without one that knows the relation, the
        statement keeps ``*`` and says so in a warning.
        """
        session = self.spark
        if session is None:
            from pyspark.sql import SparkSession

            session = SparkSession.getActiveSession()
        try:
            columns = list(session.sql(f"SELECT * FROM {relation}").columns) if session is not None else None
        except Exception as e:  # the relation Spark cannot analyze is reported by `check`
            columns, reason = None, " ".join(str(e).split())[:200]
        else:
            reason = "no session"
        if columns is None:
            warnings.warn(
                f"SELECT * over MATCH_RECOGNIZE keeps spark-cer's column order, not Snowflake's (the input's "
                f"columns, then the measures): its input's columns are not known here ({reason}); give "
                "translate a session that has the input (spark=...)",
                stacklevel=4,
            )
            return "*"
        names = [f"`{c.replace('`', '``')}`" if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", c) else c for c in columns]
        measures = [self.name(p) for p in found["pieces"] if p["kind"] == "name"]
        return ", ".join(names + measures)

    def outer(self, text: str, moved: List[Tuple[int, int]]) -> str:
        """The statement around its clauses, for Spark."""
        errors = self.sqlglot.errors

        def original(offset: int) -> int:
            at, was = max((m for m in moved if m[0] <= offset), key=lambda m: m[0])
            return was + offset - at

        try:
            trees = self.sqlglot.parse(text, read=reader(self.read))
        except errors.ParseError as e:
            first = e.errors[0] if e.errors else {}
            lines = text.split("\n")
            offset = sum(len(line) + 1 for line in lines[: max(0, first.get("line", 1) - 1)]) + max(
                0, first.get("col", 1) - len(first.get("highlight") or " ")
            )
            raise _place(
                self.sql,
                original(offset),
                len(first.get("highlight") or "") or 1,
                f"{self.read} SQL that sqlglot cannot read: {first.get('description', str(e))}",
            ) from None
        statements = []
        for tree in (t for t in trees if t is not None):
            if self.read == "snowflake":
                self.mark_all_rows_stars(tree)
            try:
                statements.append(in_spark_terms(tree, Site(self.read, "statement")))
            except Refused as e:
                written, first = self.as_written(e.node, text), _first_token(e.node)
                at = original(written[0]) if written else original(first[0]) if first else 0
                raise _place(self.sql, at, written[1] if written else len(e.node.sql(self.read)), str(e)) from None
        self.queries = all(isinstance(t, self.sqlglot.exp.Query) for t in statements)
        return ";\n".join(self.written(t, 0, len(self.sql)) for t in statements)

    def mark_all_rows_stars(self, tree) -> None:
        """Each ``SELECT *`` read straight from a clause of ALL ROWS PER MATCH, marked to be laid out as Snowflake's."""
        exp = self.sqlglot.exp
        stand_ins = {
            _PLACEHOLDER.format(n): n
            for n, c in enumerate(self.outer_clauses)
            if c.get("rows_per_match", "").startswith("ALL ROWS")
        }
        for select in tree.find_all(exp.Select):
            source = select.args.get("from_")
            if (
                source is None
                or select.args.get("joins")
                or len(select.expressions) != 1
                or not isinstance(select.expressions[0], exp.Star)
                or not isinstance(source.this, exp.Table)
            ):
                continue
            n = stand_ins.get(source.this.name)
            if n is not None:
                select.expressions[0].replace(exp.column(_STAR.format(n)))

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
                validate(written[opened : end - 1], match_recognize=True, spark=self.spark)
            except PatternError as e:
                raise _place(
                    written, opened + max(0, e.offset), e.length, f"the translated clause is refused: {e.problem}"
                ) from None
        if self.spark is not None and self.queries:
            from pyspark.errors import PySparkException

            try:
                self.spark.sql(written).schema
            except PySparkException as e:
                placed = from_spark_error(e, written)
                if placed is not None:  # spark-cer's own, at its place in the translated statement
                    raise _place(
                        written,
                        placed.offset,
                        placed.length,
                        f"Spark cannot analyze the translated statement: {placed.problem}",
                    ) from None
                problem = " ".join(str(e).strip().split("\n")[0].split())
                raise _place(
                    written, 0, len(written.split("\n")[0]), f"Spark cannot analyze the translated statement: {problem}"
                ) from None


def translate(sql: str, read: str, *, spark: Optional[Any] = None, check: bool = True) -> str:
    """
    A MATCH_RECOGNIZE statement written for Snowflake, Oracle, Trino or Databricks, as a statement spark-cer runs
    with ``spark.sql``.

    The translated statement returns the rows the source engine would, or translation refuses it. The JVM finds
    the clauses (the grammar that runs them) and the places of their pieces; sqlglot reads each piece and the
    statement around the clauses; every function and operator is kept where Spark's means the same (``IFF`` becomes
    ``IF``, ``NVL`` ``COALESCE``), mapped where it does not (Snowflake's ``DATEDIFF`` counts date-part boundaries,
    ``::int`` rounds, Trino divides integers as integers, Oracle's ``''`` is NULL), and refused where no Spark
    expression keeps its meaning (``docs/translate.md`` lists the rules). Quoting (``"Ticker"`` becomes
    ```Ticker```) and the null order the source engine sorts by (Snowflake and Oracle put NULLs last in ascending
    order, Spark first: ``ORDER BY d`` becomes ``ORDER BY d NULLS LAST``) are written Spark's way. In a clause,
    Snowflake's ``LAG`` and ``LEAD`` read the partition in DEFINE (``PREV`` and ``NEXT``) and the match's rows in
    MEASURES, as do its ``PREV`` and ``NEXT`` there; ``SELECT *`` over its ALL ROWS PER MATCH lists the input's
    columns, then the measures. Measure names are quoted as Spark quotes names; the clause's pattern, SUBSET, modes
    and variables are kept as written.

    Parameters
    ----------
    sql : str
        The statement, as the other engine runs it.
    read : str
        Its dialect: ``"snowflake"``, ``"oracle"``, ``"trino"`` or ``"databricks"``; another is refused, since the
        meaning of its functions in Spark has not been decided.
    spark : SparkSession, optional
        The session whose JVM finds the clauses and checks the result; by default the active one, else a JVM this
        process starts once on the bundled jar (as :func:`spark_cer.validate`). Given, a translated query is also
        analyzed by it (its tables must exist): a function that no Spark has is an error here, not when it runs; and
        ``SELECT *`` over a Snowflake clause of ALL ROWS PER MATCH is laid out from its input's columns.
    check : bool, default True
        Check each translated clause with :func:`spark_cer.validate` (and, with ``spark``, the query).

    Returns
    -------
    str
        The statement for ``spark.sql``.

    Raises
    ------
    TranslationError
        A piece that sqlglot cannot read in the source dialect or write for Spark, a function or operator whose
        meaning no Spark expression here keeps, or a translated clause that spark-cer refuses: its line and column in
        the statement as written, and why.
    ValueError
        A dialect other than those above.
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
        DEFINE up AS price > PREV(price, 1)) ORDER BY symbol NULLS LAST
    """
    if not isinstance(sql, str):
        raise TypeError(f"sql must be a string, not {type(sql).__name__}")
    translation = _Translation(sql, read, spark)
    written = translation.statement()
    if check:
        translation.check(written)
    return written
