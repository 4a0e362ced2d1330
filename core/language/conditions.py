"""BerryCrush's conditions, as `assert` and `if` write them (docs/spec/berrycrush.md#conditions),
parsed into the assertion nodes `then:` uses plus VariableAssertion, CustomAssertion, NotAssertion,
AllOf and AnyOf (nodes.py); assertions.check evaluates them.

Where BerryCrush's engine differs we keep our rule (docs/spec/berrycrush.md#in-and-json-types): `in`
is real membership, inline JSON keeps its types, and an unquoted `{{n}}` keeps its value's type.
"""

from __future__ import annotations

import re
from dataclasses import replace

from scenario_core.language.condition_operands import OPERATOR_LIST, SPACES, OperandReader
from scenario_core.language.errors import JSON_PATH, clip
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
from scenario_core.language.nodes.base import SourceLocation, VariableRef
from scenario_core.language.step_syntax import (
    JsonPathError,
    LineError,
    compile_json_path,
    status_assertion,
)
from scenario_core.language.templates import (
    REF_NAME,
    Locate,
    TemplateError,
    text_template,
)
from scenario_core.support.text_scan import TopLevelSpaces

_HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_TIME = re.compile(r"([0-9]+(?:\.[0-9]+)?)[ \t]*(ms|s)?", re.IGNORECASE)
# An `if` joins at most this many conditions: and/or nest, and evaluating them recurses.
MAX_JOINED = 64


def parse_condition(text: str, locate: Locate, location: SourceLocation, *, in_if: bool = False) -> Assertion:
    """The condition after `assert` (in_if False) or after `if` / `else if` (in_if True: `and`,
    `or` and bare variable names). Raises step_syntax.LineError, located in `text`."""
    return _Parser(text, locate, location, in_if).parse()


class _Parser(OperandReader):
    """A condition's grammar over the pieces OperandReader reads: `and` / `or` (after if), `not`,
    and each form (status, schema, header, contains, responseTime, a JSON path, a variable, custom)."""

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
            return replace(node, operator=op[4:] if op.startswith("not ") else "not " + op)
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
            raise LineError(str(error), i, stop - i, JSON_PATH) from None
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
            simple = close != -1 and REF_NAME.fullmatch(name) and (stop >= end or text[stop] in SPACES)
        else:  # a bare name after if: positive() found it here
            found = REF_NAME.match(text, i)
            assert found is not None
            name = found.group()
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
