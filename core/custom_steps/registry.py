"""The custom steps and assertions of one run (Registry): matching a step's text against their
patterns, running the match (its failure always one line, never a traceback), and the one-line
messages for no match and for several.

A BerryCrush step with no directives (`given the pet "Rex" is sold`) runs the step whose pattern
matches its whole interpolated description; `assert <free text>` runs the matching assertion.
"""

from __future__ import annotations

import time
from typing import Any, Awaitable, Callable, Sequence, TypeVar

from scenario_core.custom_steps.context import StepContext, StepFailed
from scenario_core.custom_steps.patterns import MATCH_SECONDS, Definition, PatternTooSlow, StepFunction
from scenario_core.language.nodes.base import TextTemplate, VariableRef

HINT = "custom steps are Python functions loaded with --plugins MODULE, see docs/custom-steps.md"
_MAX_QUOTE = 120  # how much of a description a message quotes

_T = TypeVar("_T")


def one_line(text: str, width: int = 300) -> str:
    """The text on one line (white space runs made one space), cut to `width`."""
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _quote(text: str) -> str:
    return f'"{one_line(text, _MAX_QUOTE)}"'


class Match:
    """A definition matched to a text, with the values its placeholders captured (still text:
    converted when run, so a conversion problem is the step's one-line failure)."""

    __slots__ = ("definition", "text", "raw_values", "others")

    def __init__(
        self, definition: Definition, text: str, raw_values: tuple[str, ...], others: tuple[Definition, ...] = ()
    ):
        self.definition = definition
        self.text = text
        self.raw_values = raw_values
        self.others = others  # further definitions matching the same text: running fails, ambiguous

    @property
    def ambiguous(self) -> bool:
        return bool(self.others)

    def values(self) -> list[object]:
        return self.definition.values(self.raw_values)

    def run(self, ctx: StepContext) -> str | None:
        """None when the step passed, else its failure as one line (never a traceback)."""
        if self.others:
            return ambiguous_message(self.definition.kind, self.text, (self.definition,) + self.others)
        if not ctx.text:
            ctx.text = self.text
        import inspect

        definition = self.definition
        try:
            result = definition.function(ctx, *self.values())
            if inspect.isawaitable(result):
                result = _awaited_alone(result)
        except (AssertionError, StepFailed) as error:
            message = one_line(str(error))
            if message:
                return message
            return f"{definition.kind} {_quote(self.text)} failed ({definition.origin})"
        except Exception as error:
            text = one_line(str(error))
            return f"{type(error).__name__}: {text}" if text else type(error).__name__
        if definition.kind == "assertion":
            if result is False:
                return f"assertion {_quote(self.text)} is false ({definition.origin})"
            if result is not True and result is not None:
                return (
                    f"assertion {_quote(self.text)} returned {one_line(repr(result), 60)} "
                    f"({definition.origin}); an assertion returns True, False or None"
                )
        return None


def ambiguous_message(kind: str, text: str, definitions: Sequence[Definition]) -> str:
    word = "step" if kind == "step" else "assertion"
    named = " and ".join(d.label for d in definitions[:3])
    return (
        f"ambiguous custom {word} {_quote(text)}: {named} all match"
        if len(definitions) > 2
        else f"ambiguous custom {word} {_quote(text)}: {named} both match"
    )


def no_match_message(kind: str, text: str, registry: "Registry | None" = None) -> str:
    word = "step" if kind == "step" else "assertion"
    message = f"no {word} matches {_quote(text)}; {HINT}"
    if registry is not None:
        import difflib

        patterns = {d.pattern: d for d in registry.definitions(kind)}
        close = difflib.get_close_matches(text, list(patterns), n=1, cutoff=0.5)
        if close:
            message += f"; closest: {patterns[close[0]].label}"
    return message


class Registry:
    """The custom steps and assertions of one run, in registration order (the first wins)."""

    def __init__(self, definitions: Sequence[Definition] = ()):
        self._steps = [d for d in definitions if d.kind == "step"]
        self._assertions = [d for d in definitions if d.kind == "assertion"]

    def definitions(self, kind: str | None = None) -> list[Definition]:
        if kind == "step":
            return list(self._steps)
        if kind == "assertion":
            return list(self._assertions)
        return self._steps + self._assertions

    def __len__(self) -> int:
        return len(self._steps) + len(self._assertions)

    def add(self, definition: Definition) -> None:
        (self._steps if definition.kind == "step" else self._assertions).append(definition)

    def step(self, pattern: str) -> Callable[[StepFunction], StepFunction]:
        """Register on this registry directly (tests, embedding), as the module-level decorator does."""
        return self._decorator("step", pattern)

    def assertion(self, pattern: str) -> Callable[[StepFunction], StepFunction]:
        return self._decorator("assertion", pattern)

    def _decorator(self, kind: str, pattern: str) -> Callable[[StepFunction], StepFunction]:
        def register(function: StepFunction) -> StepFunction:
            self.add(Definition.make(kind, pattern, function))
            return function

        return register

    def _match(self, definitions: list[Definition], text: str) -> Match | None:
        text = text.strip()
        found = _full_matches(definitions, text)
        if not found:
            return None
        (first, match), rest = found[0], found[1:]
        return Match(first, text, match.groups(), tuple(d for d, _ in rest))

    def match_step(self, description: str) -> Match | None:
        """The step whose pattern matches the whole (interpolated) description. When several
        do, the Match is `ambiguous` and running it fails naming them."""
        return self._match(self._steps, description)

    def match_assertion(self, text: str) -> Match | None:
        return self._match(self._assertions, text)

    def run_step(self, description: str, ctx: StepContext) -> str | None:
        """Match and run: None when passed, else the one-line failure (no match included)."""
        try:
            match = self.match_step(description)
        except PatternTooSlow as slow:
            return str(slow)
        if match is None:
            return no_match_message("step", description, self)
        return match.run(ctx)

    def run_assertion(self, text: str, ctx: StepContext) -> str | None:
        try:
            match = self.match_assertion(text)
        except PatternTooSlow as slow:
            return str(slow)
        if match is None:
            return no_match_message("assertion", text, self)
        return match.run(ctx)

    def candidates(self, kind: str, template: TextTemplate | str) -> list[Definition]:
        """At check time: the definitions that could match, the `{{references}}` standing for
        any text. Without references this is exact matching."""
        definitions = self._steps if kind == "step" else self._assertions
        if isinstance(template, str) or not template.refs:
            text = (template if isinstance(template, str) else _literal(template)).strip()
            try:
                return [d for d, _ in _full_matches(definitions, text)]
            except PatternTooSlow:
                return list(definitions)  # cannot tell in time: assume any could; the run will say
        pieces = _pieces(template)
        return [d for d in definitions if d.could_match(pieces)]


def _full_matches(definitions: list[Definition], text: str) -> list[tuple[Definition, Any]]:
    """(definition, match) for each pattern matching the whole text, all under one deadline:
    PatternTooSlow past it (the text may come from a response; patterns can backtrack)."""
    deadline = time.monotonic() + MATCH_SECONDS
    found = []
    for definition in definitions:
        try:
            match = definition.regex.fullmatch(text, timeout=max(deadline - time.monotonic(), 0.001))
        except TimeoutError:
            raise PatternTooSlow(
                f"matching {_quote(text)} against the custom patterns took longer than {MATCH_SECONDS:g} s "
                f"and was stopped (at {definition.label})"
            ) from None
        if match is not None:
            found.append((definition, match))
    return found


def _literal(template: TextTemplate) -> str:
    return "".join(s for s in template.segments if isinstance(s, str))


def _pieces(template: TextTemplate) -> list[str | None]:
    """The description's characters, None for each reference; outer white space dropped."""
    pieces: list[str | None] = []
    for segment in template.segments:
        if isinstance(segment, VariableRef):
            pieces.append(None)
        else:
            pieces.extend(segment)
    while pieces and pieces[0] is not None and pieces[0].isspace():
        pieces.pop(0)
    while pieces and pieces[-1] is not None and pieces[-1].isspace():
        pieces.pop()
    return pieces


def _awaited_alone(awaitable: Awaitable[_T]) -> _T:
    """An async step's result, on a private event loop of its own (asyncio.run). In a thread that
    already runs a loop (a caller of the engine on one), on a short-lived thread of its own."""
    import asyncio

    async def wait() -> _T:
        return await awaitable

    if asyncio.events._get_running_loop() is None:
        return asyncio.run(wait())
    import concurrent.futures

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, wait()).result()
