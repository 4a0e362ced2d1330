"""The contents of step lines: `when:` requests, `then:` assertions, `extract:` targets.

Each function takes the text after the keyword and a `locate(offset, length)` that maps a
place in that text to the file, and raises `LineError` pointing at the offending part.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any, Callable

from scenario_core.language.errors import CONDITION, JSON_PATH, clip
from scenario_core.language.json_paths import (
    JsonPathFunction,
    JsonPathSyntaxError,
    PathArgument,
    dotted_path,
    filters_for_jsonpath_ng,
    is_definite,
    parse_argument,
    split_function,
    split_items,
)
from scenario_core.language.nodes.assertions import (
    NO_RESPONSE,
    Assertion,
    BodyAssertion,
    HeaderAssertion,
    JsonPathAssertion,
    SchemaAssertion,
    SourceAssertion,
    StatusAssertion,
    TimeAssertion,
)
from scenario_core.language.nodes.base import JsonTemplate, SourceLocation
from scenario_core.language.nodes.steps import AssertStep, ExtractStep
from scenario_core.language.response_sources import SourceError, read_source, starts_with_source
from scenario_core.language.templates import NAME, JsonTextError, Locate, TemplateError, json_template
from scenario_core.support.records import fields
from scenario_core.support.text_scan import TopLevelSpaces

METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")


class LineError(ValueError):
    """`code`: the Diagnostic code it is reported with (JSON_PATH for a path that cannot compile)."""

    def __init__(self, message: str, offset: int = 0, length: int = 1, code: str = ""):
        super().__init__(message)
        self.offset = offset
        self.length = max(length, 1)
        self.code = code


# ---------------------------------------------------------------- when:

_REQUEST = re.compile(r"(\S+)(\s+)(\S.*)?")


def split_request(text: str) -> tuple[str, str, int]:
    """`POST /pets` -> ("POST", "/pets", offset of the path)."""
    match = _REQUEST.fullmatch(text)
    method = match.group(1) if match else text
    if method not in METHODS:
        hint = ""
        import difflib  # only for a hint: not imported by every start-up

        close = difflib.get_close_matches(method.upper(), METHODS, n=1, cutoff=0.5)
        if method.upper() in METHODS:
            hint = f"; methods are upper case: {method.upper()}"
        elif close:
            hint = f"; did you mean {close[0]}?"
        else:
            hint = f"; use one of {', '.join(METHODS)}"
        raise LineError(f"unknown HTTP method '{method}'{hint}", 0, len(method))
    if not match or not match.group(3):
        raise LineError(f"'{method}' needs a path, e.g. when: {method} /pets", 0, len(text))
    return method, match.group(3), match.start(3)


# ---------------------------------------------------------------- JSON paths


class JsonPathError(ValueError):
    pass


@lru_cache(maxsize=4096)
def compile_json_path(path: str) -> Any:
    """Compile once per distinct path: jsonpath-ng's `ext` dialect (filters, arithmetic, len)
    with Jayway's additions (json_paths.py): a function at the end (a JsonPathFunction), `in`
    in a filter."""
    shown = path if len(path) <= 60 else path[:59] + "…"
    try:
        function = split_function(path)
        if function is None:
            return _compile_plain(path)
        base, name, raw_arguments = function
        arguments = tuple(parse_argument(a) for a in split_items(raw_arguments))
        arguments = tuple(
            PathArgument(_compile_plain(a)) if isinstance(a, str) and a.startswith("$") else a for a in arguments
        )
        return JsonPathFunction(path, _compile_plain(base), name, arguments, is_definite(base))
    except JsonPathSyntaxError as error:
        raise JsonPathError(f"invalid JSON path '{shown}': {error}") from None


def _compile_plain(path: str) -> Any:
    """jsonpath-ng's compiled path; raises JsonPathError."""
    if not path.startswith("$"):
        raise JsonPathError(f"a JSON path starts with $ (e.g. $.id), got '{path}'")
    dotted = dotted_path(path)
    if dotted is not None:
        return dotted
    from jsonpath_ng.ext.parser import parse  # imported lazily: it is the slowest import of a check

    try:
        return parse(filters_for_jsonpath_ng(path))
    except JsonPathSyntaxError:
        raise
    except Exception as error:  # jsonpath-ng raises bare Exception subclasses of several kinds
        detail = str(error).splitlines()[0] if str(error) else type(error).__name__
        shown = path if len(path) <= 60 else path[:59] + "…"
        raise JsonPathError(f"invalid JSON path '{shown}': {detail}") from None


# ---------------------------------------------------------------- then:

# Longest first, so `not contains` wins over `contains` and `<=` over `<`.
_OPERATORS = (
    "not contains",
    "not exists",
    "contains",
    "matches",
    "exists",
    "==",
    "!=",
    "<=",
    ">=",
    "<",
    ">",
    "hasSize",
    "startsWith",
    "endsWith",
    "notEmpty",
    "in",
)
_NO_OPERAND = ("exists", "not exists", "notEmpty")
_BODY_OPERATORS = ("contains", "not contains", "matches", "==", "!=")
_STATUS = re.compile(r"status(\s+)(\S+)\s*")
_TIME = re.compile(r"time(\s+)(<=|<|>=|>)(\s*)([0-9]+(?:\.[0-9]+)?)\s*(ms|s)\s*")
_HEADER_NAME = re.compile(r"header(\s+)([!#$%&'*+.^_`|~0-9A-Za-z-]+)")


_SPACES = re.compile(r"[ \t]*")


def _find_operator(text: str, start: int) -> tuple[str, int] | None:
    """The first operator at bracket depth 0 outside quotes, standing between spaces."""
    for _, after_spaces in TopLevelSpaces(text, start):
        for op in _OPERATORS:
            if text.startswith(op, after_spaces):
                following = text[after_spaces + len(op) : after_spaces + len(op) + 1]
                if not following or following in " \t" or op in ("==", "!=", "<=", ">=", "<", ">"):
                    return op, after_spaces
    return None


def _expected(text: str, offset: int, operator: str, locate: Locate, location: SourceLocation) -> JsonTemplate | None:
    operand = text[offset:].strip()
    start = offset + (len(text[offset:]) - len(text[offset:].lstrip()))
    if operator in _NO_OPERAND:
        if operand:
            raise LineError(f"'{operator}' takes no value, found '{operand}'", start, len(operand))
        return None
    if not operand:
        raise LineError(f"'{operator}' needs a value: a JSON literal or {{{{NAME}}}}", len(text), 1)
    try:
        template = json_template(operand, lambda o, n: locate(start + o, n), location)
    except TemplateError as error:
        raise LineError(str(error), start + error.offset) from None
    except JsonTextError as problem:
        if "digits is too long" in str(problem):
            raise LineError(str(problem), start + problem.offset, len(operand)) from None
        shown = operand if len(operand) <= 60 else operand[:59] + "…"
        # `'ok'` is a string in single quotes: the fix is "ok", not "'ok'".
        inner = shown[1:-1] if len(shown) >= 2 and shown[0] == shown[-1] == "'" else shown
        hint = f' (strings need double quotes: "{inner}")' if operand[0] not in '"[{' else ""
        raise LineError(
            f"expected a JSON value or {{{{NAME}}}} after '{operator}', got '{shown}'{hint}",
            start,
            len(operand),
        ) from None
    check_operand(operator, template, start, len(operand))
    return template


def check_operand(operator: str, template: JsonTemplate, offset: int, length: int) -> None:
    """What an operator needs of a value written in the file, checked now (a value from a
    variable is checked when the assertion runs)."""
    if template.refs:
        return
    value = template.constant
    base = operator[4:] if operator.startswith("not ") else operator
    if base == "matches" and isinstance(value, str):
        _check_pattern(value, offset, length)
    elif base == "hasSize" and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
        raise LineError(f"hasSize takes a whole number (hasSize 2), got {template.text}", offset, length)
    elif base == "in" and not isinstance(value, list):
        raise LineError(f'in takes a list of values: in ["a", "b"], got {template.text}', offset, length)


def _check_pattern(pattern: str, offset: int, length: int) -> None:
    """A pattern fixed in the file is compiled now, by the same engine and dialect that
    matches at run time (the `regex` package), so a broken one is a located `check` error."""
    import regex  # only files with a `matches` pay for the import

    try:
        regex.compile(pattern)
    except regex.error as error:
        raise LineError(f"invalid regular expression {json.dumps(pattern)[:60]}: {error}", offset, length) from None


# Files repeat their assertions (`status 200` on every other line): an assertion without
# references is parsed once per distinct text and then only rebuilt at its new location.
_PARSED: dict[str, Callable[[SourceLocation], Assertion]] = {}


def parse_assertion(text: str, locate: Locate, location: SourceLocation) -> Assertion:
    """`location` is the step's: sub-nodes share it (their own columns matter only in errors)."""
    rebuild = _PARSED.get(text)
    if rebuild is not None:
        return rebuild(location)
    assertion = _parse_assertion(text, locate, location)
    expected = getattr(assertion, "expected", None)
    if (expected is None or not expected.refs) and len(_PARSED) < 4096:
        _PARSED[text] = _rebuilder(assertion)
    return assertion


def _rebuilder(assertion: Assertion) -> Callable[[SourceLocation], Assertion]:
    kind = type(assertion)
    values = {f.name: getattr(assertion, f.name) for f in fields(assertion) if f.init}
    expected = values.get("expected")

    def rebuild(location: SourceLocation) -> Assertion:
        if expected is None:
            return kind(**{**values, "location": location})
        relocated = JsonTemplate(expected.text, expected.segments, expected.constant, location)
        return kind(**{**values, "expected": relocated, "location": location})

    return rebuild


def _parse_assertion(text: str, locate: Locate, location: SourceLocation) -> Assertion:
    if not text:
        raise LineError('then: needs an assertion, e.g. then: status 200 or then: $.name == "Rex"', 0, 1)
    if text == "schema" or text.startswith("schema "):
        if text != "schema":
            raise LineError(
                "schema takes nothing after it: the response is checked against the schema its operation declares",
                7,
                len(text) - 7,
            )
        return SchemaAssertion(location)
    match = _STATUS.fullmatch(text)
    if text.startswith("status") and (match or text == "status"):
        value = match.group(2) if match else ""
        offset = match.start(2) if match else 0
        status = status_assertion(value, location, offset)
        if status is None:
            raise LineError(
                f"status takes a 3-digit code (200) or a class (2xx), got '{value}'", offset, len(value) or len(text)
            )
        return status
    if text.startswith("status") and not (text[6].isalnum() or text[6] in "_.[$"):
        _status_mistake(text)
    if text.startswith("time"):
        match = _TIME.fullmatch(text)
        if not match:
            raise LineError("a time assertion reads like: time < 500ms (or 2s); operators < <= > >=", 0, len(text))
        amount = float(match.group(4)) * (1000 if match.group(5) == "s" else 1)
        return TimeAssertion(match.group(2), amount, location)
    if text.startswith("header"):
        match = _HEADER_NAME.match(text)
        if not match:
            raise LineError('a header assertion reads like: header Content-Type contains "json"', 0, len(text))
        found = _find_operator(text, match.end())
        if not found or text[match.end() : found[1]].strip():
            raise LineError(
                f"expected an operator after 'header {match.group(2)}': " + ", ".join(_OPERATORS),
                match.end(),
                len(text) - match.end(),
            )
        op, offset = found
        return HeaderAssertion(match.group(2), op, _expected(text, offset + len(op), op, locate, location), location)
    if starts_with_source(text):  # cookie NAME, regex "…", xpath "…"
        kind, argument, end = _source(text, 0)
        found = _find_operator(text, end)
        if not found or text[end : found[1]].strip():
            raise LineError(f"expected an operator after '{text[:end]}': " + ", ".join(_OPERATORS), end, 1)
        op, offset = found
        expected = _expected(text, offset + len(op), op, locate, location)
        return SourceAssertion(kind, argument, text[:end], op, expected, location)
    if text.startswith("body"):
        found = _find_operator(text, 4)
        if not found or found[0] in _NO_OPERAND or text[4 : found[1]].strip():
            raise LineError('a body assertion reads like: body contains "text" (or matches, ==, !=)', 0, len(text))
        op, offset = found
        if op not in _BODY_OPERATORS:
            raise LineError(f"body takes contains, not contains, matches, == or !=, not {op}", offset, len(op))
        expected = _expected(text, offset + len(op), op, locate, location)
        assert expected is not None  # every body operator takes a value
        return BodyAssertion(op, expected, location)
    if text.startswith("$"):
        found = _find_operator(text, 0)
        if not found:
            try:
                compile_json_path(text.split()[0] if text.split() else text)
            except JsonPathError as error:
                raise LineError(str(error), 0, len(text), JSON_PATH) from None
            _operator_mistake(text)
            raise LineError("expected an operator after the JSON path: " + ", ".join(_OPERATORS), len(text), 1)
        op, offset = found
        path = text[:offset].strip()
        try:
            compiled = compile_json_path(path)
        except JsonPathError as error:
            raise LineError(str(error), 0, len(path), JSON_PATH) from None
        return JsonPathAssertion(path, compiled, op, _expected(text, offset + len(op), op, locate, location), location)
    word = text.split()[0] if text.split() else text
    raise LineError(
        f"unknown assertion '{word}': use status, a JSON path ($.name == \"Rex\"), header, cookie, body, regex, xpath, time or schema",
        0,
        len(word),
    )


# Comparisons written as in other languages (or BerryCrush's `assert`) -> ours in `then:`.
_OTHER_COMPARISONS = re.compile(r"(=|equals\b|not\s+equals\b|is\b)\s*")


def _operator_mistake(text: str) -> None:
    """`$.s = "ok"`, `$.s equals "ok"`: say which operator was meant, not only which exist."""
    path = text.split()[0]
    start = len(text) - len(text[len(path) :].lstrip())
    found = _OTHER_COMPARISONS.match(text, start)
    if found:
        meant = "!=" if found.group(1).startswith("not") else "=="
        raise LineError(
            f"'{found.group(1)}' does not compare in then:; did you mean '{meant}'? "
            f"then: {path} {meant} {clip(text[found.end() :].strip())}",
            start,
            len(found.group(1)),
            CONDITION,
        )


_STATUS_OPERATOR = re.compile(r"(==|!=|<=|>=|=|<|>|:|is\b|equals\b)\s*")


def _status_mistake(text: str) -> None:
    """`status` followed by more than one code: say what is wrong, not `unknown assertion`.
    (`status == 200` written as a comparison; `200# ok`, a `#` that starts no comment.)"""
    start = len(text) - len(text[6:].lstrip())
    rest = text[start:].rstrip()
    operator = _STATUS_OPERATOR.match(rest)
    if operator:
        code = rest[operator.end() :].split()
        example = code[0] if code and status_assertion(code[0], None) is not None else "200"  # type: ignore[arg-type]
        raise LineError(
            f"status takes a code such as 200 or 2xx, with no operator before it: then: status {example}",
            start,
            len(operator.group(1)),
        )
    hash_at = rest.find("#")
    if hash_at > 0 and not rest[hash_at - 1].isspace():
        # docs/spec/steps.md#keywords-and-comments: `#` starts a comment after whitespace, so `status 200  # ok` is fine.
        raise LineError(
            f"status takes a code such as 200 or 2xx, got '{clip(rest)}'; a # starts a comment only "
            f"after a space: then: status {rest[:hash_at].strip()}  {rest[hash_at:]}",
            start + hash_at,
            len(rest) - hash_at,
        )
    raise LineError(
        f"status takes one code such as 200 or 2xx (or a range: 200-299), got '{clip(rest)}'", start, len(rest)
    )


_STATUS_RANGE = re.compile(r"([1-5][0-9][0-9])-([1-5][0-9][0-9])")
_STATUS_PATTERN = re.compile(r"[1-5x][0-9x][0-9x]")


def status_assertion(value: str, location: SourceLocation, offset: int = 0) -> StatusAssertion | None:
    """`200`, `2xx`, `201-204` (inclusive), `20x` (x: any digit) or `-1` as a StatusAssertion; None
    for anything else; `-1` expects no response at all (docs/spec/steps.md#expecting-no-response, BerryCrush's way).
    Raises LineError for a range written high to low."""
    value = value.lower()
    if value == "-1":
        return StatusAssertion(NO_RESPONSE, None, location)
    if re.fullmatch(r"[1-5][0-9][0-9]", value):
        return StatusAssertion(int(value), None, location)
    if re.fullmatch(r"[1-5]xx", value):
        return StatusAssertion(None, int(value[0]), location)
    if _STATUS_PATTERN.fullmatch(value) and value != "xxx":
        return StatusAssertion(None, None, location, pattern=value)
    found = _STATUS_RANGE.fullmatch(value)
    if found:
        low, high = int(found.group(1)), int(found.group(2))
        if low > high:
            raise LineError(f"a status range goes from low to high: {high}-{low}, not {value}", offset, len(value))
        return StatusAssertion(None, None, location, low=low, high=high)
    return None


def parse_then(text: str, locate: Locate, location: SourceLocation) -> AssertStep:
    return AssertStep(text, parse_assertion(text, locate, location), location)


def _source(text: str, base: int) -> tuple[str, str, int]:
    try:
        return read_source(text)
    except SourceError as problem:
        raise LineError(str(problem), base + problem.offset, problem.length) from None


# ---------------------------------------------------------------- extract:

_EXTRACT = re.compile(r"(\S+)(\s+from\s+)(.+)")


def parse_extract(text: str, locate: Locate, location: SourceLocation) -> ExtractStep:
    match = _EXTRACT.fullmatch(text)
    if not match:
        raise LineError("extract reads like: extract: petId from $.id (or from header Location)", 0, len(text))
    name, source = match.group(1), match.group(3).strip()
    if not NAME.fullmatch(name):
        raise LineError(
            f"'{name}' is not a variable name: letters, digits and _, not starting with a digit", 0, len(name)
        )
    start = match.start(3)
    if source == "body" or starts_with_source(source):  # the value is read by run/response_sources.py
        if source == "body":
            return ExtractStep(name, "text", source, None, location)
        kind, argument, end = _source(source, start)
        if source[end:].strip():
            raise LineError(f"unexpected text after '{source[:end]}'", start + end, len(source) - end)
        return ExtractStep(name, kind, source, argument, location)
    if source.startswith("header"):
        header = source[len("header") :].strip()
        if not re.fullmatch(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+", header):
            raise LineError("extract from a header reads like: extract: loc from header Location", start, len(source))
        return ExtractStep(name, "header", header, None, location)
    try:
        compiled = compile_json_path(source)
    except JsonPathError as error:
        raise LineError(str(error), start, len(source), JSON_PATH) from None
    return ExtractStep(name, "body", source, compiled, location)
