"""
Client-side validation of CEQL queries.

A tokenizer and a recursive-descent parser that accept exactly the language of the engine's parser
(``jvm/engine/.../ceql/Lexer.scala`` and ``CeqlParser.scala``) and word their errors the same way::

    line 3, column 21: expected ';', ':', OR or FILTER, found 'BUYY'
      WHERE SELL AS s ; BUY BUYY
                            ^^^^

then the engine's analysis checks that need no data (``Analyzer.scala``): FILTER variables bound where the
filter applies, no ``AS`` variable on both sides of ``;`` / ``:``, selected variables bound, a stream order, and,
given a schema, every column named by a predicate, a projection, ``PARTITION BY``, ``ORDER BY`` or ``WITHIN``.
Each ``var[predicate]`` is also translated to Spark SQL (CORE's ``IN {..}``, ``IN RANGE(a, b)`` and ``a..b``
become ``IN (..)`` and ``BETWEEN``) and parsed with sqlglot's Spark dialect.

The JVM stays authoritative: this module only reports the same errors earlier, without a round trip.
"""

from __future__ import annotations

import decimal
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple, Union

__all__ = [
    "CeqlError",
    "CeqlSyntaxError",
    "CeqlAnalysisError",
    "CeqlQuery",
    "OutputVariable",
    "validate",
]


# ---- errors ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Position:
    """A place in the query text: 1-based line and column, 0-based character offset."""

    line: int
    column: int
    offset: int

    def __str__(self) -> str:
        return f"line {self.line}, column {self.column}"


_UNKNOWN = Position(0, 0, -1)


def _render(problem: str, pos: Position, query: str, length: int) -> str:
    """The engine's message layout (``CeqlException.render``): position, problem, the line and a caret."""
    if pos.offset < 0 or not query:
        return problem
    lines = query.split("\n")
    line = lines[pos.line - 1] if 0 < pos.line <= len(lines) else ""
    if line.endswith("\r"):
        line = line[:-1]
    width = max(1, min(length, len(line) - (pos.column - 1)))
    return f"{pos}: {problem}\n  {line}\n  {' ' * (pos.column - 1)}{'^' * width}"


class CeqlError(ValueError):
    """
    A problem with a CEQL query, worded like the engine's errors.

    Attributes
    ----------
    problem : str
        What was expected and what was found, without the position.
    line, column : int
        1-based position of the offending text (0 when the problem has no place in the query).
    offset : int
        0-based character offset (-1 when the problem has no place in the query).
    length : int
        How many characters the caret underlines.
    query : str
        The query text.
    """

    def __init__(self, problem: str, pos: Position, query: str, length: int = 1) -> None:
        super().__init__(_render(problem, pos, query, length))
        self.problem = problem
        self.line = pos.line
        self.column = pos.column
        self.offset = pos.offset
        self.length = length
        self.query = query


class CeqlSyntaxError(CeqlError):
    """The query does not follow CEQL's grammar (or a predicate is not a Spark SQL expression)."""


class CeqlAnalysisError(CeqlError):
    """The query is well-formed but cannot mean anything: unbound or unknown variables, unknown columns, ..."""


# ---- tokens ----------------------------------------------------------------------------------------------

IDENT, QUOTED_IDENT, INT_LIT, DEC_LIT, STR_LIT, SYM, END = (
    "ident",
    "quoted_ident",
    "int",
    "decimal",
    "string",
    "symbol",
    "end",
)


@dataclass(frozen=True)
class Token:
    kind: str
    text: str
    value: str
    pos: Position

    @property
    def length(self) -> int:
        return len(self.text)

    @property
    def end(self) -> int:
        return self.pos.offset + len(self.text)


_TWO_CHAR_SYMBOLS = {"..", "==", "!=", "<>", "<=", ">="}
_ONE_CHAR_SYMBOLS = "()[]{},;:+-*/%=<>."
_CURLY_QUOTES = "\u2018\u2019"
# Java's Character.isWhitespace: Python's isspace without the no-break spaces and NEL.
_NOT_JAVA_WHITESPACE = "\u00a0\u2007\u202f\u0085"


def _is_whitespace(c: str) -> bool:
    return c.isspace() and c not in _NOT_JAVA_WHITESPACE


def _is_digit(c: str) -> bool:
    return "0" <= c <= "9"


def _is_ident_start(c: str) -> bool:
    return ("a" <= c <= "z") or ("A" <= c <= "Z") or c == "_"


def _is_ident_part(c: str) -> bool:
    return _is_ident_start(c) or _is_digit(c)


class _Lexer:
    """Splits CEQL text into tokens, skipping blanks, ``-- line`` and ``/* block */`` comments."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.i = 0
        self.line = 1
        self.column = 1

    def here(self) -> Position:
        return Position(self.line, self.column, self.i)

    def has(self, k: int = 0) -> bool:
        return self.i + k < len(self.text)

    def at(self, k: int = 0) -> str:
        return self.text[self.i + k] if self.has(k) else "\0"

    def bump(self, n: int = 1) -> None:
        for _ in range(n):
            if self.text[self.i] == "\n":
                self.line += 1
                self.column = 1
            else:
                self.column += 1
            self.i += 1

    def tokens(self) -> List[Token]:
        out: List[Token] = []
        end = self.here()
        self.skip_blanks()
        while self.has():
            out.append(self.token())
            end = self.here()
            self.skip_blanks()
        out.append(Token(END, "", "", end))
        return out

    def skip_blanks(self) -> None:
        while True:
            if self.has() and _is_whitespace(self.at()):
                self.bump()
            elif self.at() == "-" and self.at(1) == "-":
                while self.has() and self.at() != "\n":
                    self.bump()
            elif self.at() == "/" and self.at(1) == "*":
                start = self.here()
                self.bump(2)
                while self.has() and not (self.at() == "*" and self.at(1) == "/"):
                    self.bump()
                if not self.has():
                    self.fail("expected '*/' to close the comment, found the end of the query", start, 2)
                self.bump(2)
            else:
                return

    def token(self) -> Token:
        start = self.here()
        c = self.at()
        if _is_ident_start(c):
            while _is_ident_part(self.at()):
                self.bump()
            return self.make(IDENT, start)
        if _is_digit(c):
            return self.number(start)
        if c == "`":
            return self.quoted(start, lambda x: x == "`", QUOTED_IDENT, "name")
        if c in ("'", '"'):
            return self.quoted(start, lambda x: x == c, STR_LIT, "string")
        if c in _CURLY_QUOTES:
            return self.quoted(start, lambda x: x in _CURLY_QUOTES, STR_LIT, "string")
        return self.symbol(start)

    def number(self, start: Position) -> Token:
        kind = INT_LIT
        while _is_digit(self.at()):
            self.bump()
        if self.at() == "." and _is_digit(self.at(1)):
            kind = DEC_LIT
            self.bump()
            while _is_digit(self.at()):
                self.bump()
        if self.at() in ("e", "E") and (
            _is_digit(self.at(1)) or (self.at(1) in ("+", "-") and _is_digit(self.at(2)))
        ):
            kind = DEC_LIT
            self.bump(2)
            while _is_digit(self.at()):
                self.bump()
        return self.make(kind, start)

    def quoted(self, start: Position, closes: Any, kind: str, what: str) -> Token:
        opening = self.at()
        value: List[str] = []
        self.bump()
        while True:
            if not self.has():
                line_end = self.text.find("\n", start.offset)
                if line_end < 0:
                    line_end = len(self.text)
                self.fail(
                    f"expected a closing {opening} to end the {what}, found the end of the query",
                    start,
                    line_end - start.offset,
                )
            c = self.at()
            self.bump()
            if closes(c) and self.at() == c:
                value.append(c)
                self.bump()
            elif closes(c):
                break
            else:
                value.append(c)
        if kind == QUOTED_IDENT and not value:
            self.fail("expected a name between the backquotes, found ``", start, 2)
        return self.make(kind, start, "".join(value))

    def symbol(self, start: Position) -> Token:
        if self.has(1) and self.text[self.i : self.i + 2] in _TWO_CHAR_SYMBOLS:
            n = 2
        elif self.at() in _ONE_CHAR_SYMBOLS and self.at() != "\0":
            n = 1
        else:
            self.fail(f"expected a name, a number, a string or an operator, found '{self.at()}'", start, 1)
        self.bump(n)
        return self.make(SYM, start)

    def make(self, kind: str, start: Position, value: Optional[str] = None) -> Token:
        source = self.text[start.offset : self.i]
        return Token(kind, source, source if value is None else value, start)

    def fail(self, problem: str, pos: Position, length: int) -> None:
        raise CeqlSyntaxError(problem, pos, self.text, length)


def tokenize(text: str) -> List[Token]:
    """The tokens of ``text``, ending with an END token placed right after the last one."""
    return _Lexer(text).tokens()


# ---- syntax tree (the engine's Ast.scala) ------------------------------------------------------------------


@dataclass(frozen=True)
class Name:
    value: str
    pos: Position


@dataclass(frozen=True)
class SelectItem:
    variable: Name
    attributes: Tuple[Name, ...]


@dataclass(frozen=True)
class OrderKey:
    column: Name
    descending: bool


@dataclass(frozen=True)
class Window:
    """``kind`` is ``events``, ``duration`` (``amount`` in milliseconds) or ``attribute``."""

    kind: str
    amount: int
    pos: Position
    attribute: Optional[Name] = None
    text: str = ""


# CEL formulas
@dataclass(frozen=True)
class Atom:
    stream: Optional[Name]
    event_type: Name
    pos: Position


@dataclass(frozen=True)
class Not:
    atom: Atom
    filter: Optional["Filter"]
    pos: Position


@dataclass(frozen=True)
class Bind:
    body: "Cel"
    variable: Name
    pos: Position


@dataclass(frozen=True)
class Sequence_:
    first: "Cel"
    second: "Cel"
    contiguous: bool
    pos: Position


@dataclass(frozen=True)
class Or:
    left: "Cel"
    right: "Cel"
    pos: Position


@dataclass(frozen=True)
class Iteration:
    body: "Cel"
    contiguous: bool
    pos: Position


@dataclass(frozen=True)
class Filtered:
    body: "Cel"
    filter: "Filter"
    pos: Position


Cel = Union[Atom, Not, Bind, Sequence_, Or, Iteration, Filtered]


# FILTER
@dataclass(frozen=True)
class OnVariable:
    variable: Name
    predicate: "Expr"
    text: str
    pos: Position


@dataclass(frozen=True)
class FilterAnd:
    left: "Filter"
    right: "Filter"
    pos: Position


@dataclass(frozen=True)
class FilterOr:
    left: "Filter"
    right: "Filter"
    pos: Position


Filter = Union[OnVariable, FilterAnd, FilterOr]


# predicates
@dataclass(frozen=True)
class Column:
    name: Name

    @property
    def pos(self) -> Position:
        return self.name.pos


@dataclass(frozen=True)
class Literal:
    value: Any
    text: str
    pos: Position


@dataclass(frozen=True)
class Unary:
    """``-x`` (op ``-``) or ``NOT x`` (op ``NOT``)."""

    op: str
    operand: "Expr"
    pos: Position


@dataclass(frozen=True)
class Binary:
    """Arithmetic (``+ - * / %``), comparison (``= != < <= > >=``), ``AND`` and ``OR``."""

    op: str
    left: "Expr"
    right: "Expr"
    pos: Position


@dataclass(frozen=True)
class InSet:
    operand: "Expr"
    values: Tuple["Expr", ...]
    negated: bool
    pos: Position


@dataclass(frozen=True)
class InRange:
    operand: "Expr"
    low: "Expr"
    high: "Expr"
    negated: bool
    pos: Position


@dataclass(frozen=True)
class Like:
    operand: "Expr"
    pattern: "Expr"
    regex: bool
    negated: bool
    pos: Position


@dataclass(frozen=True)
class IsNull:
    operand: "Expr"
    negated: bool
    pos: Position


@dataclass(frozen=True)
class Call:
    function: Name
    arguments: Tuple["Expr", ...]
    pos: Position


Expr = Union[Column, Literal, Unary, Binary, InSet, InRange, Like, IsNull, Call]


@dataclass(frozen=True)
class Statement:
    strategy: str
    selection: Union[str, Tuple[SelectItem, ...]]  # "*", "NONE" or the items
    streams: Tuple[Name, ...]
    pattern: Cel
    partition_by: Tuple[Tuple[Name, ...], ...]
    order_by: Tuple[OrderKey, ...]
    within: Optional[Window]
    consume_by: str
    limit: Optional[int]


# ---- parser (the engine's CeqlParser.scala, rule for rule) -------------------------------------------------

RESERVED_WORDS = frozenset(
    "SELECT FROM WHERE PATTERN PARTITION ORDER BY WITHIN CONSUME LIMIT AS OR AND NOT FILTER IN LIKE RLIKE IS "
    "NULL TRUE FALSE BETWEEN".split()
)
STRATEGIES = ("ALL", "ANY", "NEXT", "LAST", "MAX", "STRICT")
_CLAUSES = ("PARTITION BY", "ORDER BY", "WITHIN", "CONSUME BY", "LIMIT")
_A_CLAUSE = "a clause (" + ", ".join(_CLAUSES) + ")"
_TIME_UNITS: Dict[str, int] = {"MS": 1}
for _unit, _ms in (("DAY", 86400000), ("HOUR", 3600000), ("MINUTE", 60000), ("SECOND", 1000), ("MILLISECOND", 1)):
    _TIME_UNITS[_unit] = _ms
    _TIME_UNITS[_unit + "S"] = _ms
_A_TIME_UNIT = "a time unit (DAYS, HOURS, MINUTES, SECONDS, MILLISECONDS)"
_AN_OPERATOR = "an operator"
_COMPARISONS = {"=": "=", "==": "=", "!=": "!=", "<>": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}
_NEGATABLE = ("IN", "BETWEEN", "LIKE", "RLIKE")
_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1
# Scala's BigDecimal arithmetic (MathContext.DECIMAL128).
_DECIMAL128 = decimal.Context(prec=34, rounding=decimal.ROUND_HALF_EVEN, Emax=6144, Emin=-6143)


def _scala_trim(s: str) -> str:
    start, end = 0, len(s)
    while start < end and s[start] <= " ":
        start += 1
    while end > start and s[end - 1] <= " ":
        end -= 1
    return s[start:end]


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = tokenize(text)
        self.index = 0
        self.expected: Dict[str, None] = {}  # an ordered set

    # ---- statement ----

    def query(self) -> Statement:
        select = self.accept_kw("SELECT")
        strategy = self.strategy_word() if select else "ALL"
        selection = self.selection() if select else "*"
        streams: List[Name] = []
        if self.accept_kw("FROM"):
            streams = self.comma_list(lambda: self.qualified_name("a stream name"))
        if not (self.accept_kw("WHERE") or self.accept_kw("PATTERN")) and (select or streams):
            self.fail()
        pattern = self.cel()
        partition_by: List[Tuple[Name, ...]] = []
        order_by: List[OrderKey] = []
        within: Optional[Window] = None
        consume_by = "NONE"
        limit: Optional[int] = None
        seen: set = set()
        nxt = self.clause_keywords(seen)
        while nxt is not None:
            clause, at = nxt
            if clause == "PARTITION BY":
                partition_by = self.partition_keys()
            elif clause == "ORDER BY":
                order_by = self.comma_list(self.order_key)
            elif clause == "WITHIN":
                w = self.window(at)
                within = Window(w.kind, w.amount, w.pos, w.attribute, self.text[at.offset : self.tokens[self.index - 1].end])
            elif clause == "CONSUME BY":
                consume_by = self.consumption()
            else:
                limit = self.positive(self.number_token("a positive integer"))
            nxt = self.clause_keywords(seen)
        return Statement(
            strategy,
            selection if isinstance(selection, str) else tuple(selection),
            tuple(streams),
            pattern,
            tuple(partition_by),
            tuple(order_by),
            within,
            consume_by,
            limit,
        )

    def strategy_word(self) -> str:
        nxt = self.peek
        followed_by_selection = not (
            self.is_sym(",", nxt)
            or self.is_sym("[", nxt)
            or nxt.kind == END
            or any(self.is_kw(k, nxt) for k in ("FROM", "WHERE", "PATTERN"))
        )
        for s in STRATEGIES:
            if self.is_kw(s) and followed_by_selection:
                self.advance()
                return s
        return "ALL"

    def selection(self) -> Union[str, List[SelectItem]]:
        if self.accept_sym("*"):
            return "*"
        if self.at_kw("NONE") and not self.is_sym(",", self.peek) and not self.is_sym("[", self.peek):
            self.advance()
            return "NONE"
        return self.comma_list(self.select_item)

    def select_item(self) -> SelectItem:
        variable = self.name("a variable")
        attributes: List[Name] = []
        if self.accept_sym("["):
            attributes = self.closed_by("]", lambda: self.comma_list(lambda: self.name("an attribute")))
        return SelectItem(variable, tuple(attributes))

    def clause_keywords(self, seen: set) -> Optional[Tuple[str, Position]]:
        clause = next((c for c in _CLAUSES if self.is_kw(c.split(" ")[0])), None)
        if clause is None:
            self.expected[_A_CLAUSE] = None
            return None
        first = self.tok
        two_words = " " in clause
        if clause in seen:
            last = self.peek if two_words and self.is_kw("BY", self.peek) else first
            raise self.error(
                f"expected at most one {clause} clause, found a second one", first, last.end - first.pos.offset
            )
        seen.add(clause)
        self.advance()
        if two_words:
            self.expect_kw("BY")
        return clause, first.pos

    def partition_keys(self) -> List[Tuple[Name, ...]]:
        if self.is_sym("["):

            def group() -> Tuple[Name, ...]:
                self.expect_sym("[")
                return tuple(self.closed_by("]", lambda: self.comma_list(lambda: self.name("a column"))))

            return self.comma_list(group)
        return [(n,) for n in self.comma_list(lambda: self.name("a column", "'['"))]

    def order_key(self) -> OrderKey:
        column = self.name("a column")
        descending = self.accept_kw("DESC")
        if not descending:
            self.accept_kw("ASC")
        return OrderKey(column, descending)

    def window(self, at: Position) -> Window:
        amount = self.number_token("a number")
        if self.accept_kw("EVENTS"):
            return Window("events", self.positive(amount), at)
        millis = self.time_unit()
        if millis is not None:
            return Window("duration", self.duration(amount, millis), at)
        self.expect_sym("[")
        attribute = self.closed_by("]", lambda: self.name("an attribute"))
        return Window("attribute", self.positive(amount), at, attribute)

    def duration(self, first: Token, first_unit: int) -> int:
        ctx = _DECIMAL128
        total = ctx.multiply(decimal.Decimal(first.text), decimal.Decimal(first_unit))
        while self.tok.kind in (INT_LIT, DEC_LIT):
            amount = decimal.Decimal(self.advance().text)
            unit = self.time_unit()
            if unit is None:
                self.fail()
            total = ctx.add(total, ctx.multiply(amount, decimal.Decimal(unit)))
        whole = total == total.to_integral_value()
        if total > 0 and whole and total <= _LONG_MAX:
            return int(total)
        found = format(total.normalize(ctx), "f")
        wanted = f"at most {_LONG_MAX}" if total > 0 and whole else "a positive whole number of"
        raise self.error(
            f"expected {wanted} milliseconds, found {found} ms",
            first,
            self.tokens[self.index - 1].end - first.pos.offset,
        )

    def time_unit(self) -> Optional[int]:
        millis = _TIME_UNITS.get(self.tok.text.upper()) if self.tok.kind == IDENT else None
        if millis is not None:
            self.advance()
        else:
            self.expected[_A_TIME_UNIT] = None
        return millis

    def consumption(self) -> str:
        for k in ("ANY", "PARTITION", "NONE"):
            if self.accept_kw(k):
                return k
        self.fail()
        raise AssertionError  # unreachable

    # ---- CEL: FILTER < OR < ':' < ';' < postfix (AS, +, :+) ----

    def cel(self) -> Cel:
        formula = self.disjunction()
        while self.accept_kw("FILTER"):
            formula = Filtered(formula, self.filter(), formula.pos)
        return formula

    def disjunction(self) -> Cel:
        return self.chain(self.contiguous, lambda: self.keyword("OR"), lambda _, l, r: Or(l, r, l.pos))

    def contiguous(self) -> Cel:
        return self.chain(
            self.sequence, lambda: self.symbol(":"), lambda _, l, r: Sequence_(l, r, True, l.pos)
        )

    def sequence(self) -> Cel:
        return self.chain(self.postfix, lambda: self.symbol(";"), lambda _, l, r: Sequence_(l, r, False, l.pos))

    def postfix(self) -> Cel:
        formula = self.primary()
        while True:
            if self.is_kw("AS"):
                self.advance()
                formula = Bind(formula, self.name("a variable name"), formula.pos)
            elif self.is_sym("+"):
                self.advance()
                formula = Iteration(formula, False, formula.pos)
            elif self.is_sym(":") and self.is_sym("+", self.peek):
                self.advance()
                self.advance()
                formula = Iteration(formula, True, formula.pos)
            else:
                return formula

    def primary(self) -> Cel:
        if self.is_sym("("):
            self.advance()
            return self.closed_by(")", self.cel)
        if self.is_kw("NOT"):
            not_token = self.advance()
            self.expect_sym("(")
            atom = self.atom()
            flt = self.filter() if self.accept_kw("FILTER") else None
            self.expect_sym(")")
            return Not(atom, flt, not_token.pos)
        for e in ("an event type", "'('", "NOT"):
            self.expected[e] = None
        return self.atom()

    def atom(self) -> Atom:
        start = self.index
        first = self.qualified_name("an event type")
        if self.is_sym(">"):
            self.advance()
            return Atom(first, self.name("an event type"), first.pos)
        if self.index - start > 1:
            self.fail("'>'")
        return Atom(None, first, first.pos)

    # ---- FILTER: OR < AND < (filter) | var[predicate] ----

    def filter(self) -> Filter:
        return self.chain(self.filter_term, lambda: self.keyword("OR"), lambda _, l, r: FilterOr(l, r, l.pos))

    def filter_term(self) -> Filter:
        return self.chain(self.filter_factor, lambda: self.keyword("AND"), lambda _, l, r: FilterAnd(l, r, l.pos))

    def filter_factor(self) -> Filter:
        if self.is_sym("("):
            self.advance()
            return self.closed_by(")", self.filter)
        variable = self.name("a variable", "'('")
        opening = self.expect_sym("[")
        predicate = self.expr()
        closing = self.expect_sym("]")
        return OnVariable(
            variable, predicate, _scala_trim(self.text[opening.end : closing.pos.offset]), variable.pos
        )

    # ---- predicates: OR < AND < NOT < comparison, IN, LIKE, IS, BETWEEN < + - < * / % < unary minus ----

    def expr(self) -> Expr:
        return self.chain(self.conjunction, lambda: self.keyword("OR"), lambda _, l, r: Binary("OR", l, r, l.pos))

    def conjunction(self) -> Expr:
        return self.chain(self.negation, lambda: self.keyword("AND"), lambda _, l, r: Binary("AND", l, r, l.pos))

    def negation(self) -> Expr:
        if self.is_kw("NOT"):
            not_token = self.advance()
            return Unary("NOT", self.negation(), not_token.pos)
        return self.predicate()

    def predicate(self) -> Expr:
        e = self.additive()
        while True:
            left = e
            negated = self.is_kw("NOT") and any(self.is_kw(k, self.peek) for k in _NEGATABLE)
            if negated:
                self.advance()
            op = self.comparison()
            if op is not None:
                e = Binary(op, left, self.additive(), left.pos)
            elif self.is_kw("IN"):
                self.advance()
                e = self.membership(left, negated)
            elif self.is_kw("BETWEEN"):
                self.advance()
                low = self.additive()
                self.expect_kw("AND")
                e = InRange(left, low, self.additive(), negated, left.pos)
            elif self.is_kw("LIKE") or self.is_kw("RLIKE"):
                regex = self.is_kw("RLIKE")
                self.advance()
                e = Like(left, self.additive(), regex, negated, left.pos)
            elif self.is_kw("IS"):
                self.advance()
                is_not = self.accept_kw("NOT")
                self.expect_kw("NULL")
                e = IsNull(left, is_not, left.pos)
            else:
                self.expected[_AN_OPERATOR] = None
                return left

    def comparison(self) -> Optional[str]:
        op = _COMPARISONS.get(self.tok.text) if self.tok.kind == SYM else None
        if op is not None:
            self.advance()
        return op

    def membership(self, operand: Expr, negated: bool) -> Expr:
        if self.is_sym("{") or self.is_sym("("):
            close = "}" if self.advance().text == "{" else ")"
            values = self.closed_by(close, lambda: self.comma_list(self.expr))
            return InSet(operand, tuple(values), negated, operand.pos)
        if self.is_kw("RANGE") and self.is_sym("(", self.peek):
            self.advance()
            self.advance()
            low = self.expr()
            self.expect_sym(",")
            return InRange(operand, low, self.closed_by(")", self.expr), negated, operand.pos)
        for e in ("'{'", "'('", "RANGE"):
            self.expected[e] = None
        low = self.additive()
        self.expect_sym("..")
        return InRange(operand, low, self.additive(), negated, operand.pos)

    def additive(self) -> Expr:
        return self.chain(
            self.multiplicative, lambda: self.arithmetic("+", "-"), lambda op, l, r: Binary(op, l, r, l.pos)
        )

    def multiplicative(self) -> Expr:
        return self.chain(
            self.unary, lambda: self.arithmetic("*", "/", "%"), lambda op, l, r: Binary(op, l, r, l.pos)
        )

    def arithmetic(self, *ops: str) -> Optional[str]:
        op = next((o for o in ops if self.is_sym(o)), None)
        if op is not None:
            self.advance()
        else:
            self.expected[_AN_OPERATOR] = None
        return op

    def unary(self) -> Expr:
        if not self.is_sym("-"):
            return self.primary_expr()
        minus = self.advance()
        if self.tok.kind in (INT_LIT, DEC_LIT):
            return self.number(self.advance(), minus)
        return Unary("-", self.unary(), minus.pos)

    def primary_expr(self) -> Expr:
        t = self.tok
        if t.kind in (INT_LIT, DEC_LIT):
            return self.number(self.advance(), None)
        if t.kind == STR_LIT:
            self.advance()
            return Literal(t.value, t.text, t.pos)
        if t.kind == IDENT and (self.is_kw("TRUE") or self.is_kw("FALSE")):
            self.advance()
            return Literal(t.text.upper() == "TRUE", t.text.upper(), t.pos)
        if t.kind == IDENT and self.is_kw("NULL"):
            self.advance()
            return Literal(None, "NULL", t.pos)
        if t.kind == SYM and self.is_sym("("):
            self.advance()
            return self.closed_by(")", self.expr)
        function = self.name("an expression")
        if not self.is_sym("("):
            return Column(function)
        self.advance()
        arguments: List[Expr] = []
        if not self.accept_sym(")"):
            arguments = self.closed_by(")", lambda: self.comma_list(self.expr))
        return Call(function, tuple(arguments), function.pos)

    def number(self, t: Token, minus: Optional[Token]) -> Literal:
        source = ("-" if minus is not None else "") + t.text
        pos = (minus or t).pos
        if t.kind == INT_LIT:
            n = int(source)
            if not (_LONG_MIN <= n <= _LONG_MAX):
                raise self.error(f"expected an integer between {_LONG_MIN} and {_LONG_MAX}, found '{source}'", t)
            return Literal(n, source, pos)
        d = float(source)
        if d in (float("inf"), float("-inf")):
            raise self.error(f"expected a number within the range of a double, found '{source}'", t)
        return Literal(d, source, pos)

    # ---- shared pieces ----

    def name(self, *what: str) -> Name:
        t = self.tok
        if t.kind == QUOTED_IDENT:
            self.advance()
            return Name(t.value, t.pos)
        if t.kind == IDENT and t.text.upper() not in RESERVED_WORDS:
            self.advance()
            return Name(t.text, t.pos)
        if t.kind == IDENT:
            for w in what:
                self.expected[w] = None
            raise self.error(
                f"{self.expectation()} ({t.text} is a reserved word; write `{t.text}` to use it as a name)"
            )
        self.fail(*what)
        raise AssertionError  # unreachable

    def qualified_name(self, what: str) -> Name:
        first = self.name(what)
        parts = [first.value]
        while self.is_sym("."):
            self.advance()
            parts.append(self.name("a name").value)
        return Name(".".join(parts), first.pos)

    def number_token(self, what: str) -> Token:
        if self.tok.kind in (INT_LIT, DEC_LIT):
            return self.advance()
        self.fail(what)
        raise AssertionError  # unreachable

    def positive(self, t: Token) -> int:
        n = int(t.text) if t.kind == INT_LIT and int(t.text) <= _LONG_MAX else 0
        if n > 0:
            return n
        raise self.error(f"expected a positive integer, found '{t.text}'", t)

    def comma_list(self, item: Any) -> List[Any]:
        items = [item()]
        while self.accept_sym(","):
            items.append(item())
        return items

    def closed_by(self, close: str, body: Any) -> Any:
        result = body()
        self.expect_sym(close)
        return result

    def chain(self, operand: Any, operator: Any, combine: Any) -> Any:
        left = operand()
        op = operator()
        while op is not None:
            left = combine(op, left, operand())
            op = operator()
        return left

    def keyword(self, k: str) -> Optional[str]:
        return k if self.accept_kw(k) else None

    def symbol(self, s: str) -> Optional[str]:
        return s if self.accept_sym(s) else None

    # ---- tokens and errors ----

    @property
    def tok(self) -> Token:
        return self.tokens[self.index]

    @property
    def peek(self) -> Token:
        return self.tokens[min(self.index + 1, len(self.tokens) - 1)]

    def advance(self) -> Token:
        t = self.tok
        if t.kind != END:
            self.index += 1
        self.expected.clear()
        return t

    def is_sym(self, s: str, t: Optional[Token] = None) -> bool:
        t = t or self.tok
        return t.kind == SYM and t.text == s

    def is_kw(self, k: str, t: Optional[Token] = None) -> bool:
        t = t or self.tok
        return t.kind == IDENT and t.text.upper() == k.upper()

    def at_sym(self, s: str) -> bool:
        if self.is_sym(s):
            return True
        self.expected[f"'{s}'"] = None
        return False

    def at_kw(self, k: str) -> bool:
        if self.is_kw(k):
            return True
        self.expected[k] = None
        return False

    def accept_sym(self, s: str) -> bool:
        if self.at_sym(s):
            self.advance()
            return True
        return False

    def accept_kw(self, k: str) -> bool:
        if self.at_kw(k):
            self.advance()
            return True
        return False

    def expect_sym(self, s: str) -> Token:
        if self.at_sym(s):
            return self.advance()
        self.fail()
        raise AssertionError  # unreachable

    def expect_kw(self, k: str) -> Token:
        if self.at_kw(k):
            return self.advance()
        self.fail()
        raise AssertionError  # unreachable

    def complete(self, result: Any) -> Any:
        if self.tok.kind != END:
            self.fail("the end of the query")
        return result

    def fail(self, *what: str) -> None:
        for w in what:
            self.expected[w] = None
        raise self.error(self.expectation())

    def expectation(self) -> str:
        alternatives = list(self.expected)
        if len(alternatives) < 2:
            listed = "".join(alternatives)
        else:
            listed = ", ".join(alternatives[:-1]) + " or " + alternatives[-1]
        t = self.tok
        if t.kind == END:
            found = "the end of the query"
        elif t.kind == STR_LIT:
            found = f"the string {t.text}"
        else:
            found = f"'{t.text}'"
        return f"expected {listed}, found {found}"

    def error(self, problem: str, at: Optional[Token] = None, length: int = -1) -> CeqlSyntaxError:
        at = at or self.tok
        return CeqlSyntaxError(problem, at.pos, self.text, length if length > 0 else max(1, at.length))


def parse(text: str) -> Statement:
    """Parses a CEQL statement (syntax only); raises :class:`CeqlSyntaxError`."""
    p = _Parser(text)
    return p.complete(p.query())


# ---- analysis (the engine's Analyzer.scala, the checks that need no data) ----------------------------------


def _bound_variables(cel: Cel) -> List[str]:
    """Every variable a formula binds: its event types and its AS names (NOT binds nothing)."""
    if isinstance(cel, Atom):
        return [cel.event_type.value]
    if isinstance(cel, Not):
        return []
    if isinstance(cel, Bind):
        return _distinct(_bound_variables(cel.body) + [cel.variable.value])
    if isinstance(cel, (Sequence_,)):
        return _distinct(_bound_variables(cel.first) + _bound_variables(cel.second))
    if isinstance(cel, Or):
        return _distinct(_bound_variables(cel.left) + _bound_variables(cel.right))
    return _bound_variables(cel.body)  # Iteration, Filtered


def _as_variables(cel: Cel) -> List[str]:
    """AS names in order of first appearance."""
    if isinstance(cel, (Atom, Not)):
        return []
    if isinstance(cel, Bind):
        return _distinct(_as_variables(cel.body) + [cel.variable.value])
    if isinstance(cel, Sequence_):
        return _distinct(_as_variables(cel.first) + _as_variables(cel.second))
    if isinstance(cel, Or):
        return _distinct(_as_variables(cel.left) + _as_variables(cel.right))
    return _as_variables(cel.body)


def _distinct(xs: Iterable[str]) -> List[str]:
    return list(dict.fromkeys(xs))


def _multiplicity(cel: Cel, variable: Optional[str]) -> Optional[int]:
    """How many events ``variable`` binds in every match (None: it varies); ``None`` counts every marked event."""
    if isinstance(cel, Atom):
        return 1 if variable is None or variable == cel.event_type.value else 0
    if isinstance(cel, Not):
        return 0
    if isinstance(cel, Bind):
        return _multiplicity(cel.body, None if variable == cel.variable.value else variable)
    if isinstance(cel, Sequence_):
        a, b = _multiplicity(cel.first, variable), _multiplicity(cel.second, variable)
        return a + b if a is not None and b is not None else None
    if isinstance(cel, Or):
        a, b = _multiplicity(cel.left, variable), _multiplicity(cel.right, variable)
        return a if a == b else None
    if isinstance(cel, Iteration):
        return 0 if _multiplicity(cel.body, variable) == 0 else None
    return _multiplicity(cel.body, variable)  # Filtered


def _atoms(cel: Cel) -> List[Atom]:
    if isinstance(cel, Atom):
        return [cel]
    if isinstance(cel, Not):
        return [cel.atom]
    if isinstance(cel, Sequence_):
        return _atoms(cel.first) + _atoms(cel.second)
    if isinstance(cel, Or):
        return _atoms(cel.left) + _atoms(cel.right)
    return _atoms(cel.body)


def _on_variables(f: Filter) -> List[OnVariable]:
    if isinstance(f, OnVariable):
        return [f]
    return _on_variables(f.left) + _on_variables(f.right)


def _expr_columns(e: Expr) -> List[Name]:
    """The column references of a predicate, in the order the engine checks them."""
    if isinstance(e, Column):
        return [e.name]
    if isinstance(e, Literal):
        return []
    if isinstance(e, Unary):
        return _expr_columns(e.operand)
    if isinstance(e, Binary):
        return _expr_columns(e.left) + _expr_columns(e.right)
    if isinstance(e, InSet):
        return _expr_columns(e.operand) + [n for v in e.values for n in _expr_columns(v)]
    if isinstance(e, InRange):
        return _expr_columns(e.operand) + _expr_columns(e.low) + _expr_columns(e.high)
    if isinstance(e, Like):
        return _expr_columns(e.operand) + _expr_columns(e.pattern)
    if isinstance(e, IsNull):
        return _expr_columns(e.operand)
    return [n for a in e.arguments for n in _expr_columns(a)]  # Call


# ---- predicates as Spark SQL, checked with sqlglot -----------------------------------------------------------


def _quote_identifier(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def _quote_string(value: str) -> str:
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def to_spark_sql(e: Expr) -> str:
    """A predicate as Spark SQL: CORE's ``IN {..}``, ``IN RANGE(a, b)`` and ``a..b`` become ``IN (..)`` and BETWEEN."""
    if isinstance(e, Column):
        return _quote_identifier(e.name.value)
    if isinstance(e, Literal):
        if isinstance(e.value, str):
            return _quote_string(e.value)
        return e.text
    if isinstance(e, Unary):
        return f"(NOT {to_spark_sql(e.operand)})" if e.op == "NOT" else f"(-{to_spark_sql(e.operand)})"
    if isinstance(e, Binary):
        return f"({to_spark_sql(e.left)} {e.op} {to_spark_sql(e.right)})"
    if isinstance(e, InSet):
        inner = f"{to_spark_sql(e.operand)} IN ({', '.join(to_spark_sql(v) for v in e.values)})"
    elif isinstance(e, InRange):
        inner = f"{to_spark_sql(e.operand)} BETWEEN {to_spark_sql(e.low)} AND {to_spark_sql(e.high)}"
    elif isinstance(e, Like):
        inner = f"{to_spark_sql(e.operand)} {'RLIKE' if e.regex else 'LIKE'} {to_spark_sql(e.pattern)}"
    elif isinstance(e, IsNull):
        return f"({to_spark_sql(e.operand)} IS {'NOT ' if e.negated else ''}NULL)"
    else:  # Call
        return f"{e.function.value}({', '.join(to_spark_sql(a) for a in e.arguments)})"
    return f"(NOT ({inner}))" if e.negated else f"({inner})"


def _check_with_sqlglot(f: OnVariable, text: str) -> str:
    """Parses the predicate's Spark SQL form with sqlglot's Spark dialect; returns sqlglot's rendering."""
    import sqlglot
    from sqlglot.errors import ParseError, TokenError

    sql = to_spark_sql(f.predicate)
    try:
        parsed = sqlglot.parse_one(sql, read="spark")
        while isinstance(parsed, sqlglot.exp.Paren):
            parsed = parsed.this
        return parsed.sql(dialect="spark")
    except (ParseError, TokenError) as e:
        errors = getattr(e, "errors", None) or []
        detail = errors[0].get("description") if errors else str(e).splitlines()[0]
        first_line = f.text.split("\n")[0]
        raise CeqlSyntaxError(
            f"expected a Spark SQL expression in {f.variable.value}[...], found {f.text!r} "
            f"(read as Spark SQL: {sql}; {detail})",
            f.predicate.pos,
            text,
            max(1, len(first_line)),
        ) from None


# ---- the result ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class OutputVariable:
    """A selected variable: a struct when it binds exactly one event in every match, else an array of structs."""

    name: str
    single: bool
    attributes: Tuple[str, ...] = ()


@dataclass(frozen=True)
class CeqlQuery:
    """
    A validated CEQL query.

    Attributes
    ----------
    text : str
        The query as given.
    strategy : str
        The selection strategy: ``ALL``, ``ANY``, ``NEXT``, ``LAST``, ``MAX`` or ``STRICT``.
    streams : tuple of str
        The ``FROM`` names (empty when FROM is left out).
    variables : tuple of str
        Every variable the pattern binds: its event types and ``AS`` names.
    outputs : tuple of OutputVariable
        The selected variables in output order (after ``PARTITION BY`` columns, ``match_start`` and ``match_end``).
    predicates : dict of str to list of str
        For each filtered variable, its predicates as Spark SQL (as sqlglot renders them).
    partition_by : tuple of str
        The ``PARTITION BY`` columns (the first name of each bracket group).
    order_by : tuple of (str, bool)
        The ``ORDER BY`` columns with ``True`` for ``DESC``.
    within : str or None
        The ``WITHIN`` clause as written.
    consume_by : str
        ``NONE``, ``ANY`` or ``PARTITION``.
    limit : int or None
        The ``LIMIT``.
    """

    text: str
    strategy: str
    streams: Tuple[str, ...]
    variables: Tuple[str, ...]
    outputs: Tuple[OutputVariable, ...]
    predicates: Dict[str, List[str]] = field(default_factory=dict)
    partition_by: Tuple[str, ...] = ()
    order_by: Tuple[Tuple[str, bool], ...] = ()
    within: Optional[str] = None
    consume_by: str = "NONE"
    limit: Optional[int] = None
    statement: Optional[Statement] = field(default=None, repr=False, compare=False)


SchemaLike = Union[Sequence[str], Any]


def _column_names(schema: Optional[SchemaLike]) -> Optional[List[str]]:
    if schema is None:
        return None
    if hasattr(schema, "fieldNames"):  # pyspark StructType
        return list(schema.fieldNames())
    if hasattr(schema, "schema") and hasattr(schema.schema, "fieldNames"):  # a DataFrame
        return list(schema.schema.fieldNames())
    if isinstance(schema, str):
        raise TypeError("schema must be a StructType or a list of column names, not a string")
    return [str(c) for c in schema]


class _Analysis:
    def __init__(
        self, st: Statement, text: str, columns: Optional[List[str]], time_column: Optional[str]
    ) -> None:
        self.st = st
        self.text = text
        self.columns = columns
        self.time_column = time_column

    def fail(self, problem: str, pos: Position, length: int = 1) -> None:
        raise CeqlAnalysisError(problem, pos, self.text, length)

    def column(self, name: Name) -> Optional[str]:
        """The column's spelling in the schema; None without a schema."""
        if self.columns is None:
            return None
        for c in self.columns:
            if c.lower() == name.value.lower():
                return c
        self.fail(
            f"unknown column '{name.value}'; the columns are: {', '.join(self.columns)}", name.pos, len(name.value)
        )
        return None

    def run(self) -> None:
        self.check_streams(self.st.pattern)
        self.check_well_formed(self.st.pattern)
        self.check_safe(self.st.pattern)
        self.check_outputs()
        for k in self.st.order_by:
            self.column(k.column)
        for group in self.st.partition_by:
            for n in group:
                self.column(n)
        self.check_window()

    def check_streams(self, cel: Cel) -> None:
        streams = [s.value for s in self.st.streams]
        for atom in _atoms(cel):
            s = atom.stream
            if s is not None and streams and s.value not in streams:
                self.fail(
                    f"unknown stream '{s.value}' in '{s.value}>...'; FROM names: {', '.join(streams)}",
                    s.pos,
                    len(s.value),
                )

    def check_well_formed(self, cel: Cel) -> None:
        if isinstance(cel, Filtered):
            self.check_well_formed(cel.body)
            bound = _bound_variables(cel.body)
            for f in _on_variables(cel.filter):
                v = f.variable.value
                if v not in bound:
                    if v in _bound_variables(self.st.pattern):
                        hint = (
                            f"'{v}' is bound elsewhere in the pattern: move this FILTER outward, onto a part "
                            f"of the pattern that contains where '{v}' is bound, e.g. (... AS {v} ; ...) FILTER {v}[...]"
                        )
                    else:
                        hint = f"bind it with AS (e.g. BUY AS {v}) or filter one of: {', '.join(bound)}"
                    self.fail(
                        f"variable '{v}' is not bound in the pattern this FILTER applies to; {hint}",
                        f.variable.pos,
                        len(v),
                    )
                self.check_columns(f.predicate)
        elif isinstance(cel, Not):
            for f in _on_variables(cel.filter) if cel.filter is not None else []:
                t = cel.atom.event_type.value
                if f.variable.value != t:
                    self.fail(
                        f"inside NOT({t} FILTER ...) a filter can only name '{t}'",
                        f.variable.pos,
                        len(f.variable.value),
                    )
                self.check_columns(f.predicate)
        elif isinstance(cel, (Bind, Iteration)):
            self.check_well_formed(cel.body)
        elif isinstance(cel, Sequence_):
            self.check_well_formed(cel.first)
            self.check_well_formed(cel.second)
        elif isinstance(cel, Or):
            self.check_well_formed(cel.left)
            self.check_well_formed(cel.right)

    def check_columns(self, e: Expr) -> None:
        for n in _expr_columns(e):
            self.column(n)

    def check_safe(self, cel: Cel) -> None:
        if isinstance(cel, Sequence_):
            self.check_safe(cel.first)
            self.check_safe(cel.second)
            right = set(_as_variables(cel.second))
            both = [v for v in _as_variables(cel.first) if v in right]
            if both:
                v = both[0]
                op = ":" if cel.contiguous else ";"
                self.fail(
                    f"variable '{v}' is bound on both sides of '{op}'; give each side its own name "
                    f"(e.g. {v}1 and {v}2), or bind the whole sequence once: (... {op} ...) AS {v}",
                    cel.pos,
                )
        elif isinstance(cel, (Bind, Iteration, Filtered)):
            self.check_safe(cel.body)
        elif isinstance(cel, Or):
            self.check_safe(cel.left)
            self.check_safe(cel.right)

    def outputs(self) -> List[OutputVariable]:
        pattern = self.st.pattern
        sel = self.st.selection
        if sel == "NONE":
            return []
        if sel == "*":
            names = _as_variables(pattern) or _bound_variables(pattern)
            return [OutputVariable(n, _multiplicity(pattern, n) == 1) for n in names]
        return [
            OutputVariable(
                i.variable.value,
                _multiplicity(pattern, i.variable.value) == 1,
                tuple(self.column(a) or a.value for a in i.attributes),
            )
            for i in sel
        ]

    def check_outputs(self) -> None:
        sel = self.st.selection
        if isinstance(sel, tuple):
            known = _bound_variables(self.st.pattern)
            for i in sel:
                if i.variable.value not in known:
                    self.fail(
                        f"unknown variable '{i.variable.value}' in SELECT; the pattern binds: {', '.join(known)}",
                        i.variable.pos,
                        len(i.variable.value),
                    )
            for i in sel:
                for a in i.attributes:
                    self.column(a)

    def option_column(self, name: str, what: str) -> None:
        if self.columns is not None and not any(c.lower() == name.lower() for c in self.columns):
            self.fail(
                f"the {what} '{name}' is not a column; the columns are: {', '.join(self.columns)}", _UNKNOWN
            )

    def missing_order(self) -> None:
        w = self.st.within
        raise CeqlAnalysisError(
            "the stream has no order, so sequencing is undefined: add ORDER BY <column> (e.g. ORDER BY ts), "
            "or WITHIN n [<column>], or set the time column (spark.cer.timeColumn / timeColumn=...)",
            w.pos if w is not None else self.st.pattern.pos,
            self.text,
        )

    def check_window(self) -> None:
        if self.time_column is not None:
            self.option_column(self.time_column, "time column")
        order = self.st.order_by
        has_leading = bool(order) or self.time_column is not None
        w = self.st.within
        if w is None or w.kind == "events":
            if not has_leading:
                self.missing_order()
        elif w.kind == "duration":
            if not has_leading:
                self.missing_order()
        else:
            attribute = w.attribute
            assert attribute is not None
            spelled = self.column(attribute) or attribute.value
            if order:
                head = order[0]
                head_name = self.column(head.column) or head.column.value
                if head_name.lower() != spelled.lower():
                    self.fail(
                        f"WITHIN {w.amount} [{attribute.value}] measures the stream order, but the stream is "
                        f"ordered by {head_name}: put {attribute.value} first in ORDER BY",
                        attribute.pos,
                        len(attribute.value),
                    )
                if head.descending:
                    self.fail(
                        f"WITHIN {w.amount} [{attribute.value}] needs {attribute.value} in ascending order: drop DESC",
                        attribute.pos,
                    )


def validate(
    query: str,
    schema: Optional[SchemaLike] = None,
    *,
    time_column: Optional[str] = None,
) -> CeqlQuery:
    """
    Checks a CEQL query before it reaches the JVM.

    The query is parsed with the engine's grammar, each ``var[predicate]`` is read as Spark SQL with sqlglot,
    and the engine's analysis is applied: FILTER variables must be bound by the sub-pattern the filter applies
    to, an ``AS`` variable cannot be bound on both sides of ``;`` or ``:``, selected variables must be bound and
    the stream needs an order (``ORDER BY``, ``WITHIN n [column]`` or a time column). With a schema, every
    column the query names must exist.

    Parameters
    ----------
    query : str
        A CEQL statement (``SELECT ... FROM ... WHERE <cel> ...``) or just a pattern with its clauses.
    schema : :class:`pyspark.sql.types.StructType` or list of str, optional
        The input's columns. Without it, column names are not checked.
    time_column : str, optional
        The time column used when the query has no ``ORDER BY`` (``spark.cer.timeColumn``).

    Returns
    -------
    :class:`CeqlQuery`
        What the query selects and how: strategy, output variables (struct or array), predicates as Spark SQL,
        partition and order columns.

    Raises
    ------
    CeqlSyntaxError
        The text is not CEQL. The message names the line and column, what was expected and what was found, and
        quotes the line with a caret under the offending text.
    CeqlAnalysisError
        The query is well-formed but cannot be evaluated (same message layout).

    Examples
    --------
    >>> from spark_cer import validate
    >>> q = validate("SELECT * FROM S WHERE SELL AS s ; BUY AS b FILTER s[price > 100] WITHIN 1000 [ts]")
    >>> [(o.name, o.single) for o in q.outputs]
    [('s', True), ('b', True)]
    >>> q.predicates
    {'s': ['`price` > 100']}

    An unknown column, given the schema:

    >>> validate("SELL AS s FILTER s[prize > 100] ORDER BY ts", ["event_type", "price", "ts"])
    Traceback (most recent call last):
        ...
    spark_cer.validate.CeqlAnalysisError: line 1, column 20: unknown column 'prize'; the columns are: event_type, price, ts
      SELL AS s FILTER s[prize > 100] ORDER BY ts
                         ^^^^^

    A syntax error:

    >>> validate("SELECT * FROM S WHERE SELL ; ; BUY ORDER BY ts")
    Traceback (most recent call last):
        ...
    spark_cer.validate.CeqlSyntaxError: line 1, column 30: expected an event type, '(' or NOT, found ';'
      SELECT * FROM S WHERE SELL ; ; BUY ORDER BY ts
                                   ^
    """
    if not isinstance(query, str):
        raise TypeError(f"query must be a string, not {type(query).__name__}")
    st = parse(query)
    columns = _column_names(schema)
    analysis = _Analysis(st, query, columns, time_column)

    predicates: Dict[str, List[str]] = {}

    def collect(cel: Cel) -> None:
        filters: List[OnVariable] = []
        if isinstance(cel, Filtered):
            collect(cel.body)
            filters = _on_variables(cel.filter)
        elif isinstance(cel, Not):
            filters = _on_variables(cel.filter) if cel.filter is not None else []
        elif isinstance(cel, (Bind, Iteration)):
            collect(cel.body)
        elif isinstance(cel, Sequence_):
            collect(cel.first)
            collect(cel.second)
        elif isinstance(cel, Or):
            collect(cel.left)
            collect(cel.right)
        for f in filters:
            predicates.setdefault(f.variable.value, []).append(_check_with_sqlglot(f, query))

    collect(st.pattern)
    analysis.run()

    return CeqlQuery(
        text=query,
        strategy=st.strategy,
        streams=tuple(s.value for s in st.streams),
        variables=tuple(_bound_variables(st.pattern)),
        outputs=tuple(analysis.outputs()),
        predicates=predicates,
        partition_by=tuple(g[0].value for g in st.partition_by),
        order_by=tuple((k.column.value, k.descending) for k in st.order_by),
        within=st.within.text if st.within is not None else None,
        consume_by=st.consume_by,
        limit=st.limit,
        statement=st,
    )
