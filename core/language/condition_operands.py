"""Reading the pieces of a BerryCrush condition (conditions.py builds the condition from them):
spaces and words, the operator words (`equals`, `greaterThan`, `not …`, in any case) and the one
value after an operator ("text", a number, true/false/null, a bare word, {{NAME}}, inline JSON),
each located in the condition's line."""

from __future__ import annotations

import json
import re
from typing import Sequence

from scenario_core.language.errors import clip
from scenario_core.language.nodes.base import JsonTemplate, Segment, SourceLocation
from scenario_core.language.step_syntax import LineError, check_operand
from scenario_core.language.templates import JsonTextError, Locate, TemplateError, json_template, text_template

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
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r"}  # any other \c is c
SPACES = " \t"


class OperandReader:
    """A condition's text, where it is, and whether it follows `if` (`and`/`or` allowed) or
    `assert`; reads spaces, words, operators and values at an offset, raising a located
    LineError for what it cannot read."""

    def __init__(self, text: str, locate: Locate, location: SourceLocation, in_if: bool):
        self.text = text
        self.locate = locate
        self.location = location
        self.in_if = in_if
        self.keyword = "if" if in_if else "assert"

    # ------------------------------------------------------------ scanning

    def skip(self, i: int, end: int) -> int:
        while i < end and self.text[i] in SPACES:
            i += 1
        return i

    def word_end(self, i: int, end: int) -> int:
        while i < end and self.text[i] not in SPACES:
            i += 1
        return i

    def rstrip(self, start: int, end: int) -> int:
        while end > start and self.text[end - 1] in SPACES:
            end -= 1
        return end

    def is_word(self, i: int, end: int, word: str) -> bool:
        """`word` (any case) stands at i, followed by a space or the end."""
        stop = i + len(word)
        return self.text[i:stop].lower() == word and (stop >= end or self.text[stop] in SPACES)

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
            word = _WORDS.get(self.text[i:after].lower())
            if word is None:
                return None
            meaning = word
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
        import difflib  # only for a hint: not imported by every start-up

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

    def text_value(self, value: str, offsets: Sequence[int], start: int, stop: int) -> JsonTemplate:
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
            literal = "".join(s for s in template.segments if isinstance(s, str))  # all text: no refs
            return JsonTemplate(written, (json.dumps(literal, ensure_ascii=False),), literal, self.location)
        segments: list[Segment] = ['"']
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
            # BerryCrush reads [a, b] as two strings; JSON (which we keep, docs/spec/berrycrush.md#in-and-json-types) does not.
            hint = ' (strings need double quotes: ["a", "b"])' if "Expecting value" in str(problem) else ""
            raise LineError(f"{problem} in the value after '{op}'{hint}", i + problem.offset) from None
