"""
What another engine's functions and operators mean in Spark: the rules :func:`spark_cer.translate` applies to every
expression it writes.

sqlglot reads each dialect into one tree of expressions, and writes most of them for Spark with the same meaning. Not
all: Snowflake's ``DATEDIFF`` counts date-part boundaries where Spark's counts whole units, ``::int`` rounds where
Spark's cast truncates, Trino divides integers as integers, Oracle's ``''`` is NULL. A translation that runs and returns
other rows than the source engine would is worse than one refused, so the rules are an allow-list: every function
(each :class:`sqlglot.exp.Func`) and each operator whose meaning differs between engines (division, concatenation,
LIKE) is either kept, because it means in Spark what it meant at the source, or mapped to an expression that does,
each with the vendor's page that says what it means there; anything else is refused where it stands, with what to
write instead. ``docs/translate.md`` lists the same rules for readers, and the tests run every rule against the
source engine's documented values.

A clause's navigation follows its engine: Snowflake's ``LAG`` and ``LEAD`` read the partition in DEFINE (its window
frame starts at the matching attempt, except for ``LAG``, ``LEAD``, ``FIRST_VALUE`` and ``LAST_VALUE``) and the
match's rows in MEASURES, where ``PREV`` is kept within the match and ``NEXT`` is ``LEAD``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Dict, Optional, Tuple, Type, Union

import sqlglot
from sqlglot import exp
from sqlglot.dialects.oracle import Oracle
from sqlglot.dialects.snowflake import Snowflake

__all__ = ["Refused", "Rule", "Site", "RULES", "SPARK_DIALECTS", "in_spark_terms", "reader", "rules_table"]

#: The pieces of a statement an expression stands in: a MATCH_RECOGNIZE clause's ("define", "measure", "partition",
#: "order") or the statement around the clauses ("statement").
CLAUSE_KINDS = ("define", "measure", "partition", "order")


class Refused(Exception):
    """
    An expression whose meaning at the source no Spark expression here is known to keep (`node`, as sqlglot read it):
    what to write instead.
    """

    def __init__(self, message: str, node: Optional[exp.Expression] = None) -> None:
        super().__init__(message)
        self.node = node


@dataclass(frozen=True)
class Site:
    """Where an expression stands: the source dialect and the kind of piece (see :data:`CLAUSE_KINDS`)."""

    dialect: str
    kind: str

    @property
    def in_clause(self) -> bool:
        return self.kind in CLAUSE_KINDS


Rewrite = Callable[[Site, exp.Expression], exp.Expression]


@dataclass(frozen=True)
class Rule:
    """
    What a function or operator of a dialect means in Spark. `rewrite` is None where Spark's meaning is the source's;
    otherwise it gives the Spark expression of the same meaning (or raises :class:`Refused` where there is none).
    `clause_only`: a MATCH_RECOGNIZE function, refused outside a clause. `source`: the page that says what it means.
    """

    meaning: str
    source: str
    rewrite: Optional[Rewrite] = None
    clause_only: bool = False


Key = Union[Type[exp.Expression], str]

# ---- Spark expressions built from a template ----------------------------------------------------------------------


def _spark(template: str, **parts: exp.Expression) -> exp.Expression:
    """`template`, Spark SQL whose bare columns named in `parts` stand for those expressions (copied)."""

    def put(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Column) and not node.table and node.name in parts:
            return parts[node.name].copy()
        return node

    return sqlglot.parse_one(template, read="spark").transform(put)


def _navigation(node: exp.Expression) -> Tuple[exp.Expression, exp.Expression]:
    """A navigation's value and offset (1 where it is not given): LAG(x, n), or PREV(x, n) as sqlglot reads it."""
    if isinstance(node, exp.Anonymous):
        value, *rest = node.expressions
        offset = rest[0] if rest else None
    else:
        value, offset = node.this, node.args.get("offset")
    return value, offset or exp.Literal.number(1)


# ---- MATCH_RECOGNIZE's navigation --------------------------------------------------------------------------------


def _within_match(site: Site, node: exp.Expression, backwards: bool) -> exp.Expression:
    """
    Snowflake's LAG, LEAD, PREV and NEXT in MEASURES read the rows of the match (its window frame): NULL before the
    match's first row and past its last, where the standard's PREV and NEXT read on in the partition.
    """
    value, offset = _navigation(node)
    if any(c.table for c in value.find_all(exp.Column)):
        raise Refused(
            f"{node.sql(site.dialect)}: Snowflake navigates from the current row of the match, not from "
            "a variable's rows; write FIRST(var.col, n) or LAST(var.col, n)"
        )
    navigation = exp.Anonymous(this="PREV" if backwards else "NEXT", expressions=[value.copy(), offset.copy()])
    if backwards:
        inside = exp.GT(this=exp.Count(this=exp.Star()), expression=offset.copy())
    else:
        inside = exp.GTE(
            this=exp.Sub(this=exp.Var(this="FINAL COUNT(*)"), expression=exp.Count(this=exp.Star())),
            expression=offset.copy(),
        )
    return exp.If(this=inside, true=navigation, false=exp.Null())


def _snowflake_lag_lead(site: Site, node: exp.Expression) -> exp.Expression:
    backwards = isinstance(node, exp.Lag)
    if not site.in_clause:
        if not isinstance(node.parent, exp.Window):
            raise Refused(f"{node.sql(site.dialect)}: LAG and LEAD outside MATCH_RECOGNIZE need an OVER clause")
        return node
    if node.args.get("default") is not None:
        raise Refused(
            f"{node.sql(site.dialect)}: a default value has no PREV or NEXT form; write COALESCE(LAG(...), default)"
        )
    if site.kind == "measure":
        return _within_match(site, node, backwards)
    # DEFINE: the frame of LAG and LEAD is the partition, not the match attempt.
    value, offset = _navigation(node)
    return exp.Anonymous(this="PREV" if backwards else "NEXT", expressions=[value.copy(), offset.copy()])


def _snowflake_prev_next(site: Site, node: exp.Expression) -> exp.Expression:
    return _within_match(site, node, node.name.upper() == "PREV") if site.kind == "measure" else node


def _window_only(site: Site, node: exp.Expression) -> exp.Expression:
    """LAG and LEAD as window functions; in a clause, the engines whose clauses have PREV and NEXT refuse them."""
    if site.in_clause:
        raise Refused(
            f"{node.sql(site.dialect)}: {site.dialect.capitalize()} has no LAG or LEAD in "
            "MATCH_RECOGNIZE; write PREV or NEXT"
        )
    if not isinstance(node.parent, exp.Window):
        raise Refused(f"{node.sql(site.dialect)}: LAG and LEAD need an OVER clause")
    return node


def _snowflake_sequence_number(site: Site, node: exp.Expression) -> exp.Expression:
    """MATCH_SEQUENCE_NUMBER(): the row's place in the match."""
    return exp.Count(this=exp.Star())


# ---- values ------------------------------------------------------------------------------------------------------

# Spark's integral types, and the Snowflake and Oracle integer types (NUMBER(38, 0) both).
_INTEGRAL = {exp.DataType.Type.TINYINT, exp.DataType.Type.SMALLINT, exp.DataType.Type.INT, exp.DataType.Type.BIGINT}
_CASTABLE = _INTEGRAL | {
    exp.DataType.Type.DECIMAL,
    exp.DataType.Type.DOUBLE,
    exp.DataType.Type.FLOAT,
    exp.DataType.Type.VARCHAR,
    exp.DataType.Type.TEXT,
    exp.DataType.Type.CHAR,
    exp.DataType.Type.NVARCHAR,
    exp.DataType.Type.DATE,
    exp.DataType.Type.TIMESTAMP,
    exp.DataType.Type.TIMESTAMPNTZ,
    exp.DataType.Type.DATETIME,
    exp.DataType.Type.BOOLEAN,
}


def _cast(site: Site, node: exp.Expression) -> exp.Expression:
    """
    A cast to an integer rounds in all three engines (half away from zero), where Spark's truncates: Snowflake's and
    Oracle's integers are NUMBER(38, 0), which Spark's DECIMAL(38, 0) is (its cast rounds half up, away from zero);
    Trino's keep their width, the value rounded first.
    """
    to: exp.DataType = node.args["to"]
    if (
        to.this not in _CASTABLE
        or to.expressions
        and to.this
        not in (
            exp.DataType.Type.DECIMAL,
            exp.DataType.Type.VARCHAR,
            exp.DataType.Type.CHAR,
            exp.DataType.Type.TIMESTAMP,
        )
    ):
        raise Refused(
            f"{node.sql(site.dialect)}: a cast to {to.sql(site.dialect)} is not among the casts "
            "translated (numbers, text, dates, timestamps and booleans)"
        )
    if to.this == exp.DataType.Type.DECIMAL and not to.expressions:
        if site.dialect == "trino" and isinstance(node.this, exp.Literal) and node.this.is_string:
            # Trino's DECIMAL '1.0' is a DECIMAL(2, 1), which sqlglot reads as CAST('1.0' AS DECIMAL), a DECIMAL(38, 0)
            raise Refused(f"{node.sql(site.dialect)}: write the number (1.0) or CAST('...' AS DECIMAL(p, s))")
        # DECIMAL and NUMBER are DECIMAL(38, 0) in the three engines, DECIMAL(10, 0) in Spark.
        return node.__class__(this=node.this.copy(), to=exp.DataType.build("DECIMAL(38, 0)"))
    if to.this not in _INTEGRAL:
        return node
    if site.dialect in ("snowflake", "oracle"):
        to = exp.DataType.build("DECIMAL(38, 0)")
        return node.__class__(this=node.this.copy(), to=to)
    rounded = exp.Round(this=node.this.copy())
    return node.__class__(this=rounded, to=to.copy())


def _trino_try_cast(site: Site, node: exp.Expression) -> exp.Expression:
    """
    Trino's TRY_CAST to an integer rounds a number but refuses the text of one ('12.7'): no one Spark cast does both.
    """
    if node.args["to"].this in _INTEGRAL:
        raise Refused(
            f"{node.sql(site.dialect)}: TRY_CAST to an integer is not translated; write "
            "TRY_CAST(ROUND(x) AS ...) for numbers"
        )
    return _cast(site, node)


def _oracle_empty_string(site: Site, node: exp.Expression) -> exp.Expression:
    """Oracle stores and compares the empty string as NULL."""
    return exp.Null() if node.is_string and node.this == "" else node


def _null_if_any_null(site: Site, node: exp.Expression) -> exp.Expression:
    """GREATEST and LEAST are NULL where an argument is; Spark's skip NULL arguments."""
    arguments = [node.this, *node.expressions]
    any_null = exp.or_(*(exp.Is(this=a.copy(), expression=exp.Null()) for a in arguments))
    return exp.If(this=any_null, true=exp.Null(), false=node.copy())


def _oracle_concat(site: Site, node: exp.Expression) -> exp.Expression:
    """
    Oracle's ``||`` and CONCAT read NULL as the empty string, and an empty result is NULL (its empty string is NULL).
    """
    parts = [node.this, node.expression] if isinstance(node, exp.DPipe) else node.expressions
    joined = exp.Concat(expressions=[exp.Coalesce(this=p.copy(), expressions=[exp.Literal.string("")]) for p in parts])
    return exp.Nullif(this=joined, expression=exp.Literal.string(""))


def _oracle_decode(site: Site, node: exp.Expression) -> exp.Expression:
    """DECODE(x, s1, r1, ..., default): the first search value equal to x, NULL equal to NULL."""
    value, *rest = node.expressions
    default = rest.pop() if len(rest) % 2 else exp.Null()
    case = exp.Case()
    for search, result in zip(rest[::2], rest[1::2]):
        case = case.when(exp.NullSafeEQ(this=value.copy(), expression=search.copy()), result.copy())
    return case.else_(default.copy())


def _like(site: Site, node: exp.Expression) -> exp.Expression:
    """
    LIKE with a pattern without backslashes: Spark reads a backslash as its escape character, the source engines
    (without ESCAPE) as itself.
    """
    pattern = node.expression
    if not (isinstance(pattern, exp.Literal) and pattern.is_string and "\\" not in pattern.this):
        raise Refused(
            f"{node.sql(site.dialect)}: only a pattern written as a string without backslashes means the "
            "same in Spark's LIKE"
        )
    return node


# ---- division ----------------------------------------------------------------------------------------------------


def _average(function: str) -> Rewrite:
    """
    An AVG as the source engine averages: its sum divided by its count, by spark-cer's `function`, which decides on
    the sum's type (Snowflake's division keeps decimals in an average of exact numbers, Trino's average of DECIMALs
    keeps their scale).
    """

    def rewrite(site: Site, node: exp.Expression) -> exp.Expression:
        if isinstance(node.this, exp.Distinct):
            raise Refused(f"{node.sql(site.dialect)}: AVG(DISTINCT ...) is not translated")
        return exp.Anonymous(
            this=function, expressions=[exp.Sum(this=node.this.copy()), exp.Count(this=node.this.copy())]
        )

    return rewrite


def _operator(function: str) -> Rewrite:
    """A binary operator as the source engine computes it, decided on the operands' types by spark-cer's function."""

    def rewrite(site: Site, node: exp.Expression) -> exp.Expression:
        return exp.Anonymous(this=function, expressions=[node.this.copy(), node.expression.copy()])

    return rewrite


def _subtraction(function: str) -> Rewrite:
    """
    A subtraction as Snowflake and Oracle subtract: a DATE minus a DATE is a number of days, decided on the operands'
    types by spark-cer's function. An operand written as a number or an interval makes it Spark's `-` as written
    (a date minus a number of days is a date in all three engines).
    """
    as_function = _operator(function)

    def rewrite(site: Site, node: exp.Expression) -> exp.Expression:
        if any(
            isinstance(side, exp.Interval) or isinstance(side, exp.Literal) and side.is_number
            for side in (node.this, node.expression)
        ):
            return node
        return as_function(site, node)

    return rewrite


# ---- dates and times ---------------------------------------------------------------------------------------------

# Snowflake's DATEDIFF counts the boundaries of a date part crossed between two values: each part's difference of
# its serial number (weeks start on Monday, Snowflake's WEEK_START default).
_BOUNDARIES = {
    "YEAR": "YEAR(_b) - YEAR(_a)",
    "QUARTER": "(YEAR(_b) * 4 + QUARTER(_b)) - (YEAR(_a) * 4 + QUARTER(_a))",
    "MONTH": "(YEAR(_b) * 12 + MONTH(_b)) - (YEAR(_a) * 12 + MONTH(_a))",
    "WEEK": "DATEDIFF(CAST(DATE_TRUNC('WEEK', _b) AS DATE), CAST(DATE_TRUNC('WEEK', _a) AS DATE)) DIV 7",
    "DAY": "DATEDIFF(CAST(_b AS DATE), CAST(_a AS DATE))",
    "HOUR": "DATEDIFF(CAST(_b AS DATE), CAST(_a AS DATE)) * 24 + HOUR(_b) - HOUR(_a)",
    "MINUTE": "(DATEDIFF(CAST(_b AS DATE), CAST(_a AS DATE)) * 24 + HOUR(_b) - HOUR(_a)) * 60"
    " + MINUTE(_b) - MINUTE(_a)",
    "SECOND": "((DATEDIFF(CAST(_b AS DATE), CAST(_a AS DATE)) * 24 + HOUR(_b) - HOUR(_a)) * 60"
    " + MINUTE(_b) - MINUTE(_a)) * 60 + SECOND(_b) - SECOND(_a)",
}


def _snowflake_datediff(site: Site, node: exp.Expression) -> exp.Expression:
    unit = (node.unit.name if node.args.get("unit") is not None else "DAY").upper()
    if unit not in _BOUNDARIES:
        raise Refused(
            f"{node.sql(site.dialect)}: DATEDIFF is translated in years, quarters, months, weeks, days, "
            "hours, minutes and seconds"
        )
    return exp.Paren(this=_spark(_BOUNDARIES[unit], _a=node.expression, _b=node.this))


# Oracle's datetime format elements (Oracle Database SQL Language Reference, "Format Models") and Snowflake's
# ("Date and time formats in conversion functions") as Spark's datetime patterns ("Datetime Patterns"). RR is
# handled by its own rule; other elements are refused.
_FORMAT_ELEMENTS = {
    "oracle": {
        "YYYY": "yyyy",
        "YY": "yy",
        "RR": "yy",
        "MM": "MM",
        "MONTH": "MMMM",
        "MON": "MMM",
        "DD": "dd",
        "DY": "EEE",
        "DAY": "EEEE",
        "HH24": "HH",
        "HH12": "hh",
        "HH": "hh",
        "MI": "mm",
        "SS": "ss",
        "AM": "a",
        "PM": "a",
        "FF3": "SSS",
        "FF6": "SSSSSS",
    },
    "snowflake": {
        "YYYY": "yyyy",
        "YY": "yy",
        "MM": "MM",
        "MMMM": "MMMM",
        "MON": "MMM",
        "DD": "dd",
        "DY": "EEE",
        "HH24": "HH",
        "HH12": "hh",
        "MI": "mm",
        "SS": "ss",
        "AM": "a",
        "PM": "a",
        "FF3": "SSS",
        "FF6": "SSSSSS",
        "FF9": "SSSSSSSSS",
    },
}
_SEPARATORS = set(" -/.,:;")  # as they are; any other text is quoted in the source ("T") and in Spark ('T')


def _datetime_pattern(site: Site, node: exp.Expression, format_: str) -> Tuple[str, bool]:
    """A source format as Spark's pattern, and whether it has Oracle's RR (a two-digit year of the nearer century)."""
    elements = _FORMAT_ELEMENTS[site.dialect]
    longest = sorted(elements, key=len, reverse=True)
    pattern, at, rr = "", 0, False
    while at < len(format_):
        if format_[at] in _SEPARATORS:
            pattern += format_[at]
            at += 1
            continue
        if format_[at] == '"':  # quoted text
            end = format_.find('"', at + 1)
            if end < 0:
                break
            pattern += "'" + format_[at + 1 : end].replace("'", "''") + "'"
            at = end + 1
            continue
        element = next((e for e in longest if format_[at : at + len(e)].upper() == e), None)
        if element is None:
            raise Refused(
                f"{node.sql(site.dialect)}: the format element at {format_[at:]!r} is not among those "
                f"translated ({', '.join(sorted(elements))})"
            )
        rr = rr or element == "RR"
        pattern += elements[element]
        at += len(element)
    else:
        return pattern, rr
    raise Refused(f"{node.sql(site.dialect)}: an unclosed quote in the format {format_!r}")


def _format_literal(site: Site, node: exp.Expression, argument: Optional[exp.Expression]) -> str:
    if not (isinstance(argument, exp.Literal) and argument.is_string):
        raise Refused(f"{node.sql(site.dialect)}: a datetime format is translated when it is written as a string")
    return argument.this


def _parsed_datetime(site: Site, node: exp.Expression) -> exp.Expression:
    """
    TO_DATE and TO_TIMESTAMP with a format. Oracle's RR reads years 00-49 in this century and 50-99 in the last
    (while the current year ends in 00-49); Spark's yy reads 2000-2099, so a year of 2050 or later is moved back a
    century.
    """
    format_ = node.args.get("format")
    if isinstance(format_, exp.Literal) and format_.this.startswith("%"):
        return node  # a TIMESTAMP '...' literal, which sqlglot reads with a format of its own
    function = "TO_TIMESTAMP" if isinstance(node, exp.StrToTime) else "TO_DATE"
    pattern, rr = _datetime_pattern(site, node, _format_literal(site, node, node.args.get("format")))
    parsed = exp.Anonymous(this=function, expressions=[node.this.copy(), exp.Literal.string(pattern)])
    if not rr:
        return parsed
    step = "ADD_MONTHS(_d, -1200)" if function == "TO_DATE" else "_d - INTERVAL 100 YEARS"
    return _spark(f"IF(YEAR(_d) >= 2050, {step}, _d)", _d=parsed)


def _formatted_datetime(site: Site, node: exp.Expression) -> exp.Expression:
    """TO_CHAR of a date or timestamp with a format; without one, the text depends on the session's settings."""
    if node.args.get("format") is None:
        raise Refused(
            f"{node.sql(site.dialect)}: without a format, {site.dialect.capitalize()}'s text depends on "
            "the session's output format; give one (TO_CHAR(x, 'YYYY-MM-DD')), or CAST(x AS VARCHAR)"
        )
    format_ = _format_literal(site, node, node.args["format"])
    named = re.search(r"MON|MONTH|MMMM|DY|DAY|AM|PM", format_, re.IGNORECASE)
    if named:
        # Oracle writes names in the case of the element and pads MONTH and DAY; Spark writes them capitalized.
        raise Refused(
            f"{node.sql(site.dialect)}: TO_CHAR is translated with numeric elements only ({named.group()} "
            "writes a name)"
        )
    pattern, rr = _datetime_pattern(site, node, format_)
    if rr:
        raise Refused(f"{node.sql(site.dialect)}: RR is a format for reading; write YY")
    return exp.Anonymous(this="DATE_FORMAT", expressions=[node.this.copy(), exp.Literal.string(pattern)])


# ---- the rules ---------------------------------------------------------------------------------------------------

_STANDARD = "ISO/IEC 9075 (SQL:2016), and each engine's function reference"
_SNOWFLAKE_MR = "https://docs.snowflake.com/en/sql-reference/constructs/match_recognize"
_ORACLE_MR = "https://docs.oracle.com/database/121/DWHSG/pattern.htm"
_TRINO_MR = "https://trino.io/docs/current/sql/match-recognize.html"


def _same(meaning: str, source: str = _STANDARD, clause_only: bool = False) -> Rule:
    return Rule(meaning, source, None, clause_only)


# What the four engines' SQL shares with Spark's.
_COMMON: Dict[Key, Rule] = {
    exp.And: _same("AND, three-valued"),
    exp.Or: _same("OR, three-valued"),
    exp.Exists: _same("EXISTS (query)"),
    exp.Count: _same("COUNT: rows, or values not NULL"),
    exp.Sum: _same("SUM"),
    exp.Min: _same("MIN"),
    exp.Max: _same("MAX"),
    exp.Avg: _same("AVG: of integers a double (Oracle's NUMBER keeps 38 digits, Spark's double about 16)"),
    exp.Abs: _same("ABS"),
    exp.Round: _same("ROUND, half away from zero"),
    exp.Floor: _same("FLOOR"),
    exp.Ceil: _same("CEIL"),
    exp.Sqrt: _same("SQRT"),
    exp.Pow: _same("POWER"),
    exp.Ln: _same("LN"),
    exp.Exp: _same("EXP"),
    exp.Mod: _same("MOD and %: the remainder has the dividend's sign"),
    exp.Upper: _same("UPPER"),
    exp.Lower: _same("LOWER"),
    exp.Length: _same("LENGTH, in characters"),
    exp.Substring: _same("SUBSTR(s, start, length), start 1-based, 0 read as 1, negative from the end"),
    exp.Trim: _same("TRIM"),
    exp.Replace: _same("REPLACE"),
    exp.Coalesce: _same("COALESCE and NVL"),
    exp.Nullif: _same("NULLIF"),
    exp.Case: _same("CASE"),
    exp.Greatest: Rule("GREATEST: NULL where an argument is NULL (Spark's skips NULLs)", _STANDARD, _null_if_any_null),
    exp.Least: Rule("LEAST: NULL where an argument is NULL (Spark's skips NULLs)", _STANDARD, _null_if_any_null),
    exp.Cast: Rule(
        "CAST to an integer rounds (Spark's truncates); to numbers, text, dates, timestamps, booleans",
        "Snowflake: https://docs.snowflake.com/en/sql-reference/data-types-numeric; Oracle: SQL Language "
        "Reference, CAST; Trino: https://trino.io/docs/current/functions/conversion.html",
        _cast,
    ),
    exp.Extract: _same("EXTRACT(YEAR | MONTH | DAY | HOUR | MINUTE | SECOND FROM x)"),
    exp.CurrentDate: _same("CURRENT_DATE"),
    exp.RowNumber: _same("ROW_NUMBER() OVER (...)"),
    exp.Rank: _same("RANK() OVER (...)"),
    exp.DenseRank: _same("DENSE_RANK() OVER (...)"),
    exp.Like: Rule("LIKE, a pattern without backslashes (Spark's escape character)", _STANDARD, _like),
    # MATCH_RECOGNIZE's own functions (PREV and NEXT per engine, below).
    exp.First: _same("FIRST(x [, n]): the match's first row (of a variable)", _STANDARD, clause_only=True),
    exp.Last: _same("LAST(x [, n]): the match's last row (of a variable)", _STANDARD, clause_only=True),
    "CLASSIFIER": _same("CLASSIFIER(): the row's variable", _STANDARD, clause_only=True),
    "MATCH_NUMBER": _same("MATCH_NUMBER(): the match's number in its partition", _STANDARD, clause_only=True),
    "__MR_RUNNING": _same("RUNNING", _STANDARD, clause_only=True),
    "__MR_FINAL": _same("FINAL", _STANDARD, clause_only=True),
}

# What Snowflake's and Trino's SQL share with Spark's, and Oracle's does not have.
_DATE_PARTS: Dict[Key, Rule] = {
    exp.If: _same("IF (Snowflake's IFF, and what sqlglot writes as IF: ZEROIFNULL)"),
    exp.Year: _same("YEAR"),
    exp.Quarter: _same("QUARTER"),
    exp.Month: _same("MONTH"),
    exp.Day: _same("DAY"),
    exp.Hour: _same("HOUR"),
    exp.Minute: _same("MINUTE"),
    exp.Second: _same("SECOND"),
}

_STANDARD_NAVIGATION: Dict[Key, Rule] = {
    "PREV": _same("PREV(x [, n]): n rows back in the partition", _STANDARD, clause_only=True),
    "NEXT": _same("NEXT(x [, n]): n rows ahead in the partition", _STANDARD, clause_only=True),
}

#: The rules of each dialect spark-cer translates from, by sqlglot's class or (for functions sqlglot does not know)
#: by the function's name in upper case.
RULES: Dict[str, Dict[Key, Rule]] = {
    "snowflake": {
        **_COMMON,
        **_DATE_PARTS,
        exp.Concat: _same("CONCAT: NULL where an argument is NULL"),
        exp.DPipe: _same("||: NULL where an operand is NULL"),
        exp.TryCast: Rule("TRY_CAST, as CAST", "https://docs.snowflake.com/en/sql-reference/functions/try_cast", _cast),
        exp.ILike: Rule("ILIKE, a pattern without backslashes", _STANDARD, _like),
        exp.StartsWith: _same("STARTSWITH"),
        exp.Contains: _same("CONTAINS"),
        exp.Avg: Rule(
            "AVG of exact numbers keeps decimals as its division does (1, 2, 2: 1.666667)",
            "https://docs.snowflake.com/en/developer-guide/snowpark/reference/python/latest/api/"
            "snowflake.snowpark.functions.avg",
            _average("cer_snowflake_divide"),
        ),
        exp.DateAdd: _same(
            "DATEADD(part, n, x): a month added to its last day stays within the next month",
            "https://docs.snowflake.com/en/sql-reference/functions/dateadd",
        ),
        exp.DateDiff: Rule(
            "DATEDIFF(part, a, b): the boundaries of the part crossed from a to b (Spark's counts whole parts)",
            "https://docs.snowflake.com/en/sql-reference/functions/datediff",
            _snowflake_datediff,
        ),
        exp.Div: Rule(
            "/: a quotient of exact numbers keeps max(s1, min(s1 + 6, 12)) decimals (Spark's is a double "
            "for integers): cer_snowflake_divide",
            "https://docs.snowflake.com/en/sql-reference/operators-arithmetic",
            _operator("cer_snowflake_divide"),
        ),
        exp.Sub: Rule(
            "-: a DATE minus a DATE is the number of days between them (Spark's is an interval), a "
            "TIMESTAMP minus a TIMESTAMP is refused: cer_snowflake_subtract",
            "https://docs.snowflake.com/en/sql-reference/operators-arithmetic",
            _subtraction("cer_snowflake_subtract"),
        ),
        exp.StrToTime: Rule(
            "TO_TIMESTAMP(s, format)",
            "https://docs.snowflake.com/en/sql-reference/date-time-input-output",
            _parsed_datetime,
        ),
        exp.TsOrDsToDate: Rule(
            "TO_DATE(s [, format])",
            "https://docs.snowflake.com/en/sql-reference/functions/to_date",
            lambda site, node: _parsed_datetime(site, node) if node.args.get("format") is not None else node,
        ),
        exp.ToChar: Rule(
            "TO_CHAR(x, format) of a date or timestamp",
            "https://docs.snowflake.com/en/sql-reference/functions/to_char",
            _formatted_datetime,
        ),
        exp.TimeToStr: Rule(
            "TO_CHAR(x, format) of what is read as a date or timestamp",
            "https://docs.snowflake.com/en/sql-reference/functions/to_char",
            _formatted_datetime,
        ),
        exp.Lag: Rule(
            "LAG(x [, n]): in DEFINE the partition's row n back; in MEASURES the match's, NULL before its first row",
            _SNOWFLAKE_MR,
            _snowflake_lag_lead,
        ),
        exp.Lead: Rule(
            "LEAD(x [, n]): in DEFINE the partition's row n ahead; in MEASURES the match's, NULL past its last row",
            _SNOWFLAKE_MR,
            _snowflake_lag_lead,
        ),
        "PREV": Rule(
            "PREV(x [, n]): in MEASURES kept within the match, as LAG",
            _SNOWFLAKE_MR,
            _snowflake_prev_next,
            clause_only=True,
        ),
        "NEXT": Rule(
            "NEXT(x [, n]): in MEASURES LEAD, NULL past the match's last row",
            _SNOWFLAKE_MR,
            _snowflake_prev_next,
            clause_only=True,
        ),
        "MATCH_SEQUENCE_NUMBER": Rule(
            "MATCH_SEQUENCE_NUMBER(): the row's place in the match",
            _SNOWFLAKE_MR,
            _snowflake_sequence_number,
            clause_only=True,
        ),
    },
    "oracle": {
        **_COMMON,
        **_STANDARD_NAVIGATION,
        exp.Literal: Rule("'' is NULL", "Oracle Database SQL Language Reference, Nulls", _oracle_empty_string),
        exp.DateStrToDate: _same("DATE 'yyyy-mm-dd'", "Oracle Database SQL Language Reference, Datetime Literals"),
        exp.Concat: Rule(
            "CONCAT: NULL read as '', and an empty result NULL",
            "Oracle Database SQL Language Reference, CONCAT",
            _oracle_concat,
        ),
        exp.DPipe: Rule(
            "||: NULL read as '', and an empty result NULL",
            "Oracle Database SQL Language Reference, Concatenation Operator",
            _oracle_concat,
        ),
        exp.DecodeCase: Rule(
            "DECODE: NULL equal to NULL", "Oracle Database SQL Language Reference, DECODE", _oracle_decode
        ),
        exp.Sub: Rule(
            "-: a DATE minus a DATE is the number of days between them (Spark's is an interval): cer_oracle_subtract",
            "Oracle Database SQL Language Reference, Datetime/Interval Arithmetic",
            _subtraction("cer_oracle_subtract"),
        ),
        exp.StrToDate: Rule(
            "TO_DATE(s, format), RR a two-digit year of the nearer century",
            "Oracle Database SQL Language Reference, Format Models",
            _parsed_datetime,
        ),
        exp.StrToTime: Rule(
            "TO_TIMESTAMP(s, format)", "Oracle Database SQL Language Reference, Format Models", _parsed_datetime
        ),
        exp.ToChar: Rule(
            "TO_CHAR(x, format) of a date or timestamp",
            "Oracle Database SQL Language Reference, TO_CHAR (datetime)",
            _formatted_datetime,
        ),
        exp.TimeToStr: Rule(
            "TO_CHAR(x, format) of what is read as a date or timestamp",
            "Oracle Database SQL Language Reference, TO_CHAR (datetime)",
            _formatted_datetime,
        ),
        exp.Lag: Rule("LAG(x [, n]) OVER (...)", _ORACLE_MR, _window_only),
        exp.Lead: Rule("LEAD(x [, n]) OVER (...)", _ORACLE_MR, _window_only),
    },
    "trino": {
        **_COMMON,
        **_DATE_PARTS,
        **_STANDARD_NAVIGATION,
        exp.Concat: _same("CONCAT: NULL where an argument is NULL"),
        exp.DPipe: _same("||: NULL where an operand is NULL"),
        exp.TryCast: Rule(
            "TRY_CAST, as CAST, but not to an integer",
            "https://trino.io/docs/current/functions/conversion.html",
            _trino_try_cast,
        ),
        exp.DateAdd: _same("date_add(unit, n, x)", "https://trino.io/docs/current/functions/datetime.html"),
        exp.DateDiff: _same(
            "date_diff(unit, a, b): whole units", "https://trino.io/docs/current/functions/datetime.html"
        ),
        exp.Avg: Rule(
            "avg of DECIMALs keeps their scale, rounded half up (Spark's adds four decimals): cer_trino_average",
            "https://trino.io/docs/current/functions/aggregate.html",
            _average("cer_trino_average"),
        ),
        exp.Div: Rule(
            "/: integers divided as integers, decimals to the larger scale: cer_trino_divide",
            "https://trino.io/docs/current/functions/math.html",
            _operator("cer_trino_divide"),
        ),
        exp.Lag: Rule("lag(x [, n]) OVER (...)", _TRINO_MR, _window_only),
        exp.Lead: Rule("lead(x [, n]) OVER (...)", _TRINO_MR, _window_only),
    },
}

# Oracle's quotient is a NUMBER of 38 significant digits; Spark's closest is its double (about 16): the digits past
# those differ, never a comparison's outcome at the data's precision.
RULES["oracle"][exp.Div] = _same(
    "/: a double quotient (Oracle's NUMBER keeps 38 digits, Spark's double about 16)",
    "Oracle Database SQL Language Reference, Arithmetic Operators",
)

#: Databricks SQL is Spark's own: its functions mean what Spark's do.
SPARK_DIALECTS = ("databricks", "spark")

# The operators whose meaning differs between engines; every function is checked too.
_OPERATORS = (exp.Div, exp.DPipe, exp.Like, exp.ILike, exp.Mod, exp.IntDiv, exp.Bracket, exp.RegexpLike)


def _rule_for(dialect: str, node: exp.Expression) -> Tuple[Optional[Key], Optional[Rule]]:
    """The rule of `dialect` for `node` (and its key); (None, None) where the node is structure, not meaning."""
    rules = RULES[dialect]
    if isinstance(node, exp.If) and isinstance(node.parent, exp.Case):
        return None, None  # a WHEN of a CASE, as sqlglot holds it
    if isinstance(node, exp.Anonymous):
        key: Key = node.name.upper()
    elif isinstance(node, (exp.Func, *_OPERATORS)) or type(node) in rules:
        key = type(node)
    else:
        return None, None
    return key, rules.get(key)


def in_spark_terms(
    tree: exp.Expression, site: Site, applied: Optional[Callable[[str, Key], None]] = None
) -> exp.Expression:
    """
    `tree` (read in `site.dialect`) with each function and operator given its meaning in Spark, innermost first; an
    expression no rule keeps is :class:`Refused`. `applied` hears of each rule used (the tests count them).
    """
    if site.dialect in SPARK_DIALECTS:
        return tree
    for node in reversed(list(tree.walk())):
        key, rule = _rule_for(site.dialect, node)
        if key is None:
            continue
        if rule is None:
            raise Refused(
                f"{node.sql(site.dialect)}: not among the {site.dialect.capitalize()} functions and "
                "operators whose meaning in Spark spark-cer knows (the list is in docs/translate.md); "
                "write it with those",
                node,
            )
        if rule.clause_only and not site.in_clause:
            raise Refused(f"{node.sql(site.dialect)}: a MATCH_RECOGNIZE function, outside MATCH_RECOGNIZE", node)
        if applied is not None:
            applied(site.dialect, key)
        if rule.rewrite is not None:
            try:
                written = rule.rewrite(site, node)
            except Refused as e:
                raise Refused(str(e), node) from None
            if written is not node:
                if node is tree:
                    tree = written
                else:
                    node.replace(written)
    return tree


class _SnowflakeFormats(Snowflake):
    """Snowflake, its datetime formats read as written (sqlglot's own notation would lose what it does not know)."""

    TIME_MAPPING: Dict[str, str] = {}


class _OracleFormats(Oracle):
    """Oracle, its datetime formats read as written."""

    TIME_MAPPING: Dict[str, str] = {}


def reader(dialect: str) -> Union[str, Type[sqlglot.Dialect]]:
    """The sqlglot dialect that reads `dialect` for these rules: the datetime formats as the source wrote them."""
    return {"snowflake": _SnowflakeFormats, "oracle": _OracleFormats}.get(dialect, dialect)


def _node_name(key: Key) -> str:
    return key if isinstance(key, str) else f"exp.{key.__name__}"


def rules_table(dialect: str) -> str:
    """The rules of `dialect` as a Markdown table, as docs/translate.md lists them (``python -m`` prints them all)."""
    rows = ["| read as (sqlglot) | in Spark | where | source |", "|---|---|---|---|"]
    for key, rule in sorted(RULES[dialect].items(), key=lambda kv: _node_name(kv[0]).lower()):
        how = "kept" if rule.rewrite is None else "mapped"
        where = "MATCH_RECOGNIZE" if rule.clause_only else "anywhere"
        rows.append(f"| `{_node_name(key)}` | {how}: {rule.meaning} | {where} | {rule.source} |")
    return "\n".join(rows)


if __name__ == "__main__":
    for name in RULES:
        print(f"### {name.capitalize()}\n\n{rules_table(name)}\n")
