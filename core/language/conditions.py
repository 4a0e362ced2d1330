"""BerryCrush's conditions, as `assert` and `if` write them (berrycrush.md §3.3, §3.5; semantics.md §5),
parsed into the assertion nodes `then:` uses plus VariableAssertion, CustomAssertion, NotAssertion,
AllOf and AnyOf (nodes.py); assertions.check evaluates them.

Where BerryCrush and semantics.md differ we keep semantics.md: `in` is real membership, inline JSON
keeps its types, and an unquoted `{{n}}` keeps its value's type.
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import re

from scenario_core.language.errors import clip
from scenario_core.language.nodes.assertions import (
    AllOf,
    AnyOf,
    Assertion,
    BodyAssertion,
    CustomAssertion,
    HeaderAssertion,
    JsonPathAssertion,
    NotAssertion,
    SchemaAssertion,
    TimeAssertion,
    VariableAssertion,
)
from scenario_core.language.nodes.base import JsonTemplate, SourceLocation, VariableRef
from scenario_core.language.step_syntax import (
    JsonPathError,
    LineError,
    check_operand,
    compile_json_path,
    status_assertion,
)
from scenario_core.language.templates import (
    REF_NAME,
    JsonTextError,
    Locate,
    TemplateError,
    json_template,
    text_template,
)
from scenario_core.support.text_scan import TopLevelSpaces

# The operator words, as written (matched case-insensitively), and what each one means.
_SPELLED = {
    "equals": "equals",
    "=": "equals",
    "matches": "matches",
    "exists": "exists",
    "hasSize": "hasSize",
    "size": "hasSize",
    "arraySize": "hasSize",
    "notEmpty": "notEmpty",
    "empty": "empty",
    "contains": "contains",
    "greaterThan": ">",
    ">": ">",
    "lessThan": "<",
    "<": "<",
    ">=": ">=",
    "<=": "<=",
    "in": "in",
    "startsWith": "startsWith",
    "endsWith": "endsWith",
}
_WORDS = {word.lower(): meaning for word, meaning in _SPELLED.items()}
_SYMBOLS = (">=", "<=", "==", "!=", "=", ">", "<")  # longest first
_NO_VALUE = ("exists", "notEmpty", "empty")
OPERATOR_LIST = (
    "equals (=), not equals, greaterThan (>), lessThan (<), >=, <=, exists, notEmpty, empty, "
    "contains, in, matches, startsWith, endsWith, hasSize"
)
_HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_TIME = re.compile(r"([0-9]+(?:\.[0-9]+)?)[ \t]*(ms|s)?", re.IGNORECASE)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r"}  # any other \c is c
_SPACE = " \t"
# An `if` joins at most this many conditions: and/or nest, and evaluating them recurses.
MAX_JOINED = 64


def parse_condition(text: str, locate: Locate, location: SourceLocation, *, in_if: bool = False) -> Assertion:
    """The condition after `assert` (in_if False) or after `if` / `else if` (in_if True: `and`,
    `or` and bare variable names). Raises step_syntax.LineError, located in `text`."""
    return _Parser(text, locate, location, in_if).parse()


class _Parser:
    def __init__(self, text: str, locate: Locate, location: SourceLocation, in_if: bool):
        self.text = text
        self.locate = locate
        self.location = location
        self.in_if = in_if
        self.keyword = "if" if in_if else "assert"

    # ------------------------------------------------------------ scanning

    def skip(self, i: int, end: int) -> int:
        while i < end and self.text[i] in _SPACE:
            i += 1
        return i

    def word_end(self, i: int, end: int) -> int:
        while i < end and self.text[i] not in _SPACE:
            i += 1
        return i

    def rstrip(self, start: int, end: int) -> int:
        while end > start and self.text[end - 1] in _SPACE:
            end -= 1
        return end

    def is_word(self, i: int, end: int, word: str) -> bool:
        """`word` (any case) stands at i, followed by a space or the end."""
        stop = i + len(word)
        return self.text[i:stop].lower() == word and (stop >= end or self.text[stop] in _SPACE)

    # ------------------------------------------------------------ and / or

    def parse(self) -> Assertion:
        if not self.text.strip():
            raise LineError(f"{self.keyword} needs a condition, e.g. {self.keyword} status 200", 0, 1)
        if not self.in_if:
            return self.simple(0, len(self.text))
        first = self.skip(0, len(self.text))
        for joint in ("and", "or"):
            if self.is_word(first, len(self.text), joint):
                raise LineError(
                    f"'{joint}' needs a condition on each side, e.g. if status 200 and $.id exists", first, len(joint)
                )
        parts, joints = self.split()
        conditions = [self.simple(start, end) for start, end in parts]
        # Right associative, no precedence (as BerryCrush): A and B or C is A and (B or C).
        node = conditions[-1]
        for index in range(len(joints) - 1, -1, -1):
            kind = AllOf if joints[index] == "and" else AnyOf
            rest = node.conditions if isinstance(node, kind) else (node,)
            node = kind((conditions[index],) + rest, self.location)
        return node

    def split(self) -> tuple[list[tuple[int, int]], list[str]]:
        """The conditions of an `if` and the and/or words between them, at bracket depth 0 and
        outside quotes. One pass: a run of spaces is crossed at once."""
        n = len(self.text)
        parts: list[tuple[int, int]] = []
        joints: list[str] = []
        start = self.skip(0, n)
        skip_to = -1  # past the last joint: its own word is not a space run's start
        for _, i in TopLevelSpaces(self.text, start, n, "[({", "])}"):
            if i < skip_to:
                continue
            joint = next((w for w in ("and", "or") if self.is_word(i, n, w)), None)
            if joint:
                if len(joints) + 1 >= MAX_JOINED:
                    raise LineError(f"an if joins at most {MAX_JOINED} conditions with and/or", i, len(joint))
                self.part(parts, start, i, joint, i)
                joints.append(joint)
                joint_at, start = i, i + len(joint)
                skip_to = start
        if joints:
            self.part(parts, start, n, joints[-1], joint_at)
        else:
            parts.append((start, n))
        return parts, joints

    def part(self, parts: list[tuple[int, int]], start: int, end: int, joint: str, where: int) -> None:
        if self.skip(start, end) >= self.rstrip(start, end):
            raise LineError(
                f"'{joint}' needs a condition on each side, e.g. if status 200 and $.id exists",
                max(where, 0),
                len(joint),
            )
        parts.append((start, end))

    # ------------------------------------------------------------ one condition

    def simple(self, start: int, end: int) -> Assertion:
        i, end = self.skip(start, end), self.rstrip(start, end)
        negated = False
        while self.is_word(i, end, "not"):
            negated = not negated
            after = self.skip(i + 3, end)
            if after >= end:
                raise LineError("'not' needs a condition after it, e.g. not status 500", i, 3)
            i = after
        node = self.positive(i, end)
        return self.negate(node, self.text[i:end]) if negated else node

    def negate(self, node: Assertion, text: str) -> Assertion:
        """`not` folds into an operator where there is one (`$.a not exists`), so the message reads
        as written; other conditions are wrapped."""
        if isinstance(node, (JsonPathAssertion, HeaderAssertion, VariableAssertion, BodyAssertion)):
            op = node.operator
            return dataclasses.replace(node, operator=op[4:] if op.startswith("not ") else "not " + op)
        return NotAssertion(node, text, self.location)

    def positive(self, i: int, end: int) -> Assertion:
        text = self.text
        stop = self.word_end(i, end)
        word = text[i:stop]
        key = word.lower()
        if key in ("status", "statuscode"):
            return self.status(word, stop, end)
        if key in ("schema", "matchesschema"):
            rest = self.skip(stop, end)
            if rest < end:
                raise LineError(
                    f"{word} takes nothing after it: the response is checked against the schema its operation declares",
                    rest,
                    end - rest,
                )
            return SchemaAssertion(self.location)
        if key == "header":
            return self.header(i, stop, end)
        if key in ("contains", "bodycontains"):
            return BodyAssertion("contains", self.value(stop, end, "contains"), self.location)
        if key == "responsetime":
            return self.time(word, stop, end)
        if text[i] == "$" or (text[i] in "\"'" and text.startswith("$", i + 1)):
            return self.json_path(i, end)
        if text.startswith("{{", i):
            return self.variable(i, end)
        if self.in_if:
            name = REF_NAME.match(text, i)
            if name and name.end() == stop:
                return self.variable(i, end)
            raise LineError(
                f'expected a condition after if: status, header, a JSON path ($.name equals "Rex"), '
                f"contains, schema, responseTime or a variable (test.type equals \"x\"), got '{clip(word)}'",
                i,
                len(word),
            )
        return self.custom(i, end)

    def status(self, word: str, stop: int, end: int) -> Assertion:
        i = self.skip(stop, end)
        value = self.text[i:end]
        found = status_assertion(value, self.location, i) if value else None
        if found is None:
            raise LineError(
                f"{word} takes a code (200), a class (2xx), a range (201-204) or a pattern (20x)"
                + (f", got '{clip(value)}'" if value else ""),
                i if value else stop,
                len(value) or 1,
            )
        return found

    def time(self, word: str, stop: int, end: int) -> Assertion:
        i = self.skip(stop, end)
        found = _TIME.fullmatch(self.text, i, end)
        if not found:
            raise LineError(
                f"{word} takes the longest time allowed: {word} 1000 (milliseconds), 500ms or 2s",
                i if i < end else stop,
                (end - i) or 1,
            )
        amount = float(found.group(1)) * (1000 if (found.group(2) or "").lower() == "s" else 1)
        return TimeAssertion("<=", amount, self.location)

    def header(self, i: int, stop: int, end: int) -> Assertion:
        j = self.skip(stop, end)
        name = _HEADER_NAME.match(self.text, j, end)
        if not name:
            raise LineError(
                "a header condition reads like: header Location, header Content-Type = "
                '"application/json" or header X-Count greaterThan 5',
                i,
                end - i,
            )
        k = self.skip(name.end(), end)
        if k >= end:
            return HeaderAssertion(name.group(), "exists", None, self.location, condition=True)
        if self.text[k] == ":" or (self.text[k] == "=" and not self.text.startswith("==", k)):
            op, after = "equals", k + 1  # `header N = "v"`, `header N: "v"`
        else:
            op, after = self.operator(k, end, f"header {clip(name.group())}")
        return HeaderAssertion(name.group(), op, self.operand(op, after, end), self.location, condition=True)

    def json_path(self, i: int, end: int) -> Assertion:
        if self.text[i] in "\"'":
            path, _, stop = self.string(i, end)
        else:
            stop = self.path_end(i, end)
            path = self.text[i:stop]
        try:
            compiled = compile_json_path(path)
        except JsonPathError as error:
            raise LineError(str(error), i, stop - i) from None
        j = self.skip(stop, end)
        if j >= end:  # `$.id` alone: equals null (as BerryCrush)
            return JsonPathAssertion(path, compiled, "equals", None, self.location, condition=True)
        op, after = self.operator(j, end, clip(path))
        return JsonPathAssertion(path, compiled, op, self.operand(op, after, end), self.location, condition=True)

    def path_end(self, i: int, end: int) -> int:
        """A JSON path ends at a space outside brackets and quotes: `$[?(@.a > 2)]` is one. With
        brackets or quotes left open it ends at its first space (so the error quotes the path)."""
        spaces = TopLevelSpaces(self.text, i, end)
        for space, _ in spaces:
            return space
        return end if spaces.balanced else self.word_end(i, end)

    def variable(self, i: int, end: int) -> Assertion:
        """`{{x}} OP V`, and after `if` also `test.type OP V`. After `assert`, `{{x}}` without an
        operator starts a custom assertion (as BerryCrush)."""
        text = self.text
        if text.startswith("{{", i):
            close = text.find("}}", i + 2, end)
            name = text[i + 2 : close].strip() if close != -1 else ""
            stop = close + 2 if close != -1 else end
            simple = close != -1 and REF_NAME.fullmatch(name) and (stop >= end or text[stop] in _SPACE)
        else:
            name = REF_NAME.match(text, i).group()
            stop = i + len(name)
            simple = True
        j = self.skip(stop, end)
        if not simple or j >= end:
            if not self.in_if:
                return self.custom(i, end)
            if not simple:
                stop = self.word_end(i, end)
                raise LineError(
                    f"a variable condition reads like: {{{{name}}}} equals \"x\", got '{clip(text[i:stop])}'",
                    i,
                    stop - i,
                )
            raise LineError(
                f"'{clip(text[i:stop])}' needs an operator: {clip(text[i:stop])} equals \"x\" "
                f"(operators: {OPERATOR_LIST})",
                stop,
                1,
            )
        if not self.in_if and self.find_operator(j, end) is None and not self.text.startswith(("==", "!="), j):
            return self.custom(i, end)  # `{{count}} pets were created`
        # After if, a name and then no operator is often prose meant as a custom assertion.
        hint = "; custom assertions stand only after assert" if text[i] != "{" else ""
        op, after = self.operator(j, end, clip(text[i:stop]), hint)
        ref = VariableRef(name, False, self.locate(i, stop - i))
        return VariableAssertion(ref, op, self.operand(op, after, end), self.location)

    def custom(self, i: int, end: int) -> Assertion:
        text = self.text[i:end]
        try:
            return CustomAssertion(
                text_template(text, lambda o, n: self.locate(i + o, n), self.location), self.location
            )
        except TemplateError as error:
            raise LineError(str(error), i + error.offset) from None

    # ------------------------------------------------------------ operators and values

    def find_operator(self, i: int, end: int) -> tuple[str, int] | None:
        """(operator, where its value starts) at i, `not` included; None when there is none."""
        negated = self.is_word(i, end, "not")
        if negated:
            i = self.skip(i + 3, end)
        symbol = next((s for s in _SYMBOLS if self.text.startswith(s, i)), None)
        if symbol in ("==", "!="):
            return None
        if symbol:
            meaning, after = _WORDS[symbol], i + len(symbol)
        else:
            after = self.word_end(i, end)
            meaning = _WORDS.get(self.text[i:after].lower())
            if meaning is None:
                return None
        return ("not " + meaning if negated else meaning), after

    def operator(self, i: int, end: int, subject: str, hint: str = "") -> tuple[str, int]:
        found = self.find_operator(i, end)
        if found:
            return found
        if self.is_word(i, end, "not"):
            i = self.skip(i + 3, end)
            if i >= end:
                raise LineError(f"'not' needs an operator after it: {subject} not equals \"x\"", i - 1, 1)
        if self.text.startswith("==", i):
            raise LineError("'==' is not a condition operator: write equals (or =)", i, 2)
        if self.text.startswith("!=", i):
            raise LineError("'!=' is not a condition operator: write not equals", i, 2)
        word = self.text[i : self.word_end(i, end)]
        close = difflib.get_close_matches(word.lower(), list(_WORDS), n=1, cutoff=0.7)
        did = next((f"; did you mean {w}?" for w in _SPELLED if close and w.lower() == close[0]), "")
        raise LineError(
            f"unknown operator '{clip(word)}' after {subject}{did} (operators: {OPERATOR_LIST}){hint}", i, len(word)
        )

    def operand(self, op: str, i: int, end: int) -> JsonTemplate | None:
        base = op[4:] if op.startswith("not ") else op
        if base in _NO_VALUE:
            self.nothing_after(i, end, f"'{op}' takes no value")
            return None
        return self.value(i, end, op)

    def nothing_after(self, i: int, end: int, what: str, hint: str = "") -> None:
        i = self.skip(i, end)
        if i >= end:
            return
        extra = self.text[i:end]
        if not self.in_if and (self.is_word(i, end, "and") or self.is_word(i, end, "or")):
            raise LineError("and/or join conditions only after if; write one assert per condition", i, end - i)
        shown = extra if len(extra) <= 40 else extra[:39] + "…"
        raise LineError(f"{what}, found '{shown}' after it{hint}", i, end - i)

    def value(self, i: int, end: int, op: str) -> JsonTemplate:
        """One token: "text" or 'text' (escapes \\n \\t \\r; any other \\c is c), a number, true, false,
        null, a bare word (text), {{NAME}} (keeps its value's type), or [..] / {..} JSON."""
        text = self.text
        i = self.skip(i, end)
        if i >= end:
            raise LineError(
                f"'{op}' needs a value: \"text\", a number, true, false, null, [..] or {{{{NAME}}}}", end, 1
            )
        if text[i] in "\"'":
            decoded, offsets, stop = self.string(i, end)
            self.nothing_after(stop, end, f"'{op}' takes one value")
            template = self.text_value(decoded, offsets, i, stop)
        elif text.startswith("{{", i) and text.find("}}", i) + 2 == end:
            template = self.json_value(i, end, op)  # exactly one reference: it keeps its type
        elif text[i] in "[{" and not text.startswith("{{", i):
            template = self.json_value(i, end, op)
        else:
            stop = self.word_end(i, end)
            if stop < end:
                quoted = json.dumps(text[i:end], ensure_ascii=False)
                self.nothing_after(
                    stop,
                    end,
                    f"'{op}' takes one value",
                    f"; quote text with spaces: {quoted if len(quoted) <= 60 else quoted[:59] + '…'}",
                )
            word = text[i:stop]
            if word in ("true", "false", "null") or _NUMBER.fullmatch(word):
                template = self.json_value(i, stop, op)
            else:  # a bare word is text, as BerryCrush's `available`
                template = self.text_value(word, range(i, stop), i, stop)
        check_operand(op, template, i, end - i)
        return template

    def string(self, i: int, end: int) -> tuple[str, list[int], int]:
        """A quoted string at i: (its text, where each character came from, the offset past it)."""
        text, quote = self.text, self.text[i]
        chars: list[str] = []
        offsets: list[int] = []
        k = i + 1
        while k < end:
            ch = text[k]
            if ch == quote:
                return "".join(chars), offsets, k + 1
            if ch == "\\" and k + 1 < end:
                chars.append(_ESCAPES.get(text[k + 1], text[k + 1]))
                offsets.append(k)
                k += 2
                continue
            chars.append(ch)
            offsets.append(k)
            k += 1
        raise LineError(f"this string is not closed: end it with {quote}", i, end - i)

    def text_value(self, value: str, offsets, start: int, stop: int) -> JsonTemplate:
        """Text (with {{NAME}} references rendered as text) as a JSON string template."""
        count = len(offsets)

        def locate(o: int, n: int) -> SourceLocation:
            first = offsets[o] if o < count else stop
            last = offsets[o + n - 1] + 1 if 0 < n and o + n - 1 < count else stop
            return self.locate(first, max(last - first, 1))

        try:
            template = text_template(value, locate, self.location)
        except TemplateError as error:
            raise LineError(str(error), offsets[error.offset] if error.offset < count else start) from None
        written = self.text[start:stop]
        if not template.refs:
            literal = "".join(template.segments)
            return JsonTemplate(written, (json.dumps(literal, ensure_ascii=False),), literal, self.location)
        segments: list = ['"']
        for segment in template.segments:
            if isinstance(segment, str):
                escaped = json.dumps(segment, ensure_ascii=False)[1:-1]
                if isinstance(segments[-1], str):
                    segments[-1] += escaped
                else:
                    segments.append(escaped)
            else:
                segments.append(segment)
        if isinstance(segments[-1], str):
            segments[-1] += '"'
        else:
            segments.append('"')
        return JsonTemplate(written, tuple(segments), None, self.location)

    def json_value(self, i: int, stop: int, op: str) -> JsonTemplate:
        operand = self.text[i:stop]
        try:
            return json_template(operand, lambda o, n: self.locate(i + o, n), self.location)
        except TemplateError as error:
            raise LineError(str(error), i + error.offset) from None
        except JsonTextError as problem:
            if "digits is too long" in str(problem):
                raise LineError(str(problem), i + problem.offset, len(operand)) from None
            # BerryCrush reads [a, b] as two strings; JSON (which we keep, semantics.md §5) does not.
            hint = ' (strings need double quotes: ["a", "b"])' if "Expecting value" in str(problem) else ""
            raise LineError(f"{problem} in the value after '{op}'{hint}", i + problem.offset) from None
