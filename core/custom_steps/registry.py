"""Custom steps and assertions written in Python (berrycrush.md §3.8, semantics.md §5).

A plugin module decorates functions with a pattern:

    from scenario_core.custom_steps.registry import assertion, step

    @step("the pet {string} is {word}")
    def pet_is(ctx, name, status): ...

    @assertion("the pet should have status {string}")
    def has_status(ctx, status): return ctx.response.json["status"] == status

A BerryCrush step with no directives (`given the pet "Rex" is sold`) runs the step whose pattern
matches its whole interpolated description; `assert <free text>` runs the matching assertion.
Placeholders: `{string}` ("…" or '…', passed unquoted), `{int}`, `{float}`, `{word}` (letters,
digits, _), `{any}` (anything, also nothing); all other text matches literally.

Plugins come from the entry-point group `scenario_tui.steps` and from `--plugins MODULE|FILE.py`;
`load_registry` imports them (importing registers their functions) and keeps what they defined.
"""

from __future__ import annotations

import importlib
import os
import re
import sys
from collections import ChainMap
from pathlib import Path
from types import MappingProxyType
from typing import Any, Callable, Iterator, Mapping, Sequence

from scenario_core.language.errors import Diagnostic, UsageError
from scenario_core.language.nodes.assertions import CustomAssertion
from scenario_core.language.nodes.base import TextTemplate, VariableRef
from scenario_core.language.nodes.blocks import ScenarioFileNode
from scenario_core.language.nodes.steps import AssertStep, ConditionalStep, DescribedStep
from scenario_core.language.nodes.walk import included_fragments, leaf_conditions

ENTRY_POINT_GROUP = "scenario_tui.steps"
HINT = "custom steps are Python functions loaded with --plugins MODULE, see docs/custom-steps.md"
_MAX_QUOTE = 120  # how much of a description a message quotes


class StepFailed(Exception):
    """Raised by a custom step or assertion to fail with this message (like AssertionError)."""


class PluginError(UsageError):
    """A plugin that cannot be found or imported: a one-line usage error naming it."""


# ---------------------------------------------------------------- patterns

# Each placeholder: its regular expression (one group) and how the matched text becomes a value.
_PLACEHOLDERS: dict[str, tuple[str, Callable[[str], Any]]] = {
    "string": (r"(\"[^\"]*\"|'[^']*')", lambda s: s[1:-1]),
    "int": (r"(-?\d+)", int),
    "float": (r"(-?(?:\d+(?:\.\d+)?|\.\d+))", float),
    "word": (r"(\w+)", str),
    "any": (r"(.*)", str),
}
_PLACEHOLDER = re.compile(r"\{([A-Za-z_]\w*)\}")


# A pattern piece: (literal text, None) or (None, placeholder kind).
_Token = tuple[str | None, str | None]


def _tokens(pattern: str) -> tuple[_Token, ...]:
    tokens, position = [], 0
    for found in _PLACEHOLDER.finditer(pattern):
        kind = found.group(1)
        if kind not in _PLACEHOLDERS:
            raise ValueError(
                f"unknown placeholder {{{kind}}} in pattern {pattern!r}; "
                "use {string}, {int}, {float}, {word} or {any}"
            )
        if found.start() > position:
            tokens.append((pattern[position : found.start()], None))
        tokens.append((None, kind))
        position = found.end()
    if position < len(pattern):
        tokens.append((pattern[position:], None))
    return tuple(tokens)


class _Nfa:
    """The pattern as a small automaton, to ask at check time whether a description whose
    `{{references}}` are still unknown (any text) could match it: regular expressions cannot
    be intersected, an automaton walked over the description's characters and holes can."""

    def __init__(self, tokens: tuple[_Token, ...]):
        self.edges: list[list[tuple[re.Pattern[str] | None, int]]] = [[]]  # None: an empty move
        end = 0
        for literal, kind in tokens:
            if literal is not None:
                for char in literal:
                    end = self._edge(end, re.compile(re.escape(char)))
            else:
                end = getattr(self, "_" + kind)(end)
        self.accept = end

    def _state(self) -> int:
        self.edges.append([])
        return len(self.edges) - 1

    def _edge(self, source: int, test: re.Pattern[str] | None, target: int | None = None) -> int:
        target = self._state() if target is None else target
        self.edges[source].append((test, target))
        return target

    def _repeat(self, source: int, test: re.Pattern[str]) -> int:  # test+
        end = self._edge(source, test)
        self._edge(end, test, end)
        return end

    def _signed(self, source: int) -> int:  # -?
        after = self._edge(source, re.compile("-"))
        self._edge(source, None, after)
        return after

    def _int(self, source: int) -> int:
        return self._repeat(self._signed(source), re.compile(r"\d"))

    def _float(self, source: int) -> int:  # -?(\d+(\.\d+)?|\.\d+)
        digit, dot = re.compile(r"\d"), re.compile(r"\.")
        start = self._signed(source)
        whole = self._repeat(start, digit)
        fraction = self._repeat(self._edge(whole, dot), digit)
        bare_fraction = self._repeat(self._edge(start, dot), digit)
        end = self._state()
        for state in (whole, fraction, bare_fraction):
            self._edge(state, None, end)
        return end

    def _word(self, source: int) -> int:
        return self._repeat(source, re.compile(r"\w"))

    def _any(self, source: int) -> int:
        self._edge(source, re.compile(".", re.DOTALL), source)
        return source

    def _string(self, source: int) -> int:
        end = self._state()
        for quote in "\"'":
            inside = self._edge(source, re.compile(re.escape(quote)))
            self._edge(inside, re.compile(f"[^{quote}]"), inside)
            self._edge(inside, re.compile(re.escape(quote)), end)
        return end

    def _closure(self, states: set[int]) -> set[int]:
        pending = list(states)
        while pending:
            for test, target in self.edges[pending.pop()]:
                if test is None and target not in states:
                    states.add(target)
                    pending.append(target)
        return states

    def could_match(self, pieces: Sequence[str | None]) -> bool:
        """pieces: characters of the description, None for a reference (any text, also none)."""
        states = self._closure({0})
        for piece in pieces:
            if piece is None:  # every character test accepts some character: follow them all
                pending = list(states)
                while pending:
                    for _, target in self.edges[pending.pop()]:
                        if target not in states:
                            states.add(target)
                            pending.append(target)
            else:
                states = self._closure(
                    {t for s in states for test, t in self.edges[s] if test is not None and test.fullmatch(piece)}
                )
            if not states:
                return False
        return self.accept in states


class Definition:
    """One decorated function and its pattern."""

    __slots__ = ("kind", "pattern", "function", "module", "tokens", "regex", "_nfa")

    def __init__(
        self,
        kind: str,
        pattern: str,
        function: Callable[..., Any],
        module: str,
        tokens: tuple[_Token, ...],
        regex: re.Pattern[str],
    ):
        self.kind = kind  # "step" or "assertion"
        self.pattern = pattern
        self.function = function
        self.module = module  # the module that defined the function
        self.tokens = tokens
        self.regex = regex
        self._nfa: _Nfa | None = None

    def __repr__(self) -> str:
        return f"Definition({self.kind}, {self.label})"

    @classmethod
    def make(cls, kind: str, pattern: str, function: Callable[..., Any]) -> "Definition":
        if not isinstance(pattern, str) or not pattern.strip():
            raise ValueError(f"a custom {kind} needs a pattern (a non-empty string), got {pattern!r}")
        if not callable(function):
            raise TypeError(f"@{kind}({pattern!r}) decorates a callable, got {type(function).__name__}")
        tokens = _tokens(pattern.strip())
        regex = re.compile(
            "".join(re.escape(literal) if literal is not None else _PLACEHOLDERS[kind][0] for literal, kind in tokens),
            re.DOTALL,
        )
        return cls(kind, pattern.strip(), function, getattr(function, "__module__", "") or "", tokens, regex)

    @property
    def origin(self) -> str:
        """Where the function is defined, `file.py:LINE`, for messages."""
        import inspect

        code = getattr(inspect.unwrap(self.function), "__code__", None)
        if code is None:
            return self.module or "?"
        return f"{Path(code.co_filename).name}:{code.co_firstlineno}"

    @property
    def label(self) -> str:
        return f'"{self.pattern}" ({self.origin})'

    def could_match(self, pieces: Sequence[str | None]) -> bool:
        if self._nfa is None:
            self._nfa = _Nfa(self.tokens)
        return self._nfa.could_match(pieces)


# ---------------------------------------------------------------- what a step sees


class Response:
    """The last response, as a step sees it: `status`, `headers` (case-insensitive, repeated
    headers joined with ', '), `body` (text) and `json` (the parsed body; None when not JSON)."""

    __slots__ = ("status", "headers", "body", "json")

    def __init__(self, status: int, headers: Mapping[str, str], body: str, json: Any):
        self.status = status
        self.headers = headers
        self.body = body
        self.json = json

    @classmethod
    def of(cls, response: Any) -> "Response":
        """From the executor's ResponseReceived (headers as (name, value) pairs) or anything alike."""
        raw = getattr(response, "headers", ()) or ()
        pairs = raw.items() if isinstance(raw, Mapping) else raw
        headers: dict[str, tuple[str, str]] = {}
        for name, value in pairs:
            key = name.lower()
            headers[key] = (headers[key][0], f"{headers[key][1]}, {value}") if key in headers else (name, value)
        data = getattr(response, "json", None)
        if getattr(response, "json_error", None) is not None:
            data = None
        return cls(getattr(response, "status", 0), _Headers(headers), getattr(response, "body", ""), data)

    def header(self, name: str) -> str | None:
        return self.headers.get(name)

    def __repr__(self) -> str:
        return f"Response(status={self.status})"


class _Headers(Mapping[str, str]):
    """Read-only, case-insensitive; iterates over the names as received."""

    __slots__ = ("_items",)

    def __init__(self, items: dict[str, tuple[str, str]]):
        self._items = items

    def __getitem__(self, name: str) -> str:
        return self._items[name.lower()][1]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self._items

    def __iter__(self) -> Iterator[str]:
        return (name for name, _ in self._items.values())

    def __len__(self) -> int:
        return len(self._items)

    def __repr__(self) -> str:
        return repr(dict(self.items()))


_NAME = re.compile(r"[^\W\d]\w*")


class StepContext:
    """What a custom step or assertion receives as `ctx`.

    `variables`: read-only view of what the scenario sees (including what `set` wrote);
    `set(name, value)`: writes a variable as an extract would (`set_variable`, given by the
    executor, does the writing); `response`: the last response or None; `parameters`: effective
    parameter values by key; `text`: the step's interpolated description (or assertion text)."""

    __slots__ = ("_written", "_visible", "_set_variable", "_response", "_raw_response", "_parameters", "text")

    def __init__(
        self,
        variables: Mapping[str, Any] | None = None,
        set_variable: Callable[[str, Any], None] | None = None,
        response: Any = None,
        parameters: Mapping[str, Any] | None = None,
        text: str = "",
    ):
        self._written: dict[str, Any] = {}
        self._visible = MappingProxyType(ChainMap(self._written, variables if variables is not None else {}))
        self._set_variable = set_variable
        self._raw_response = response
        self._response: Response | None = None
        self._parameters = parameters
        self.text = text

    @property
    def variables(self) -> Mapping[str, Any]:
        return self._visible

    def set(self, name: str, value: Any) -> None:
        if not isinstance(name, str) or not _NAME.fullmatch(name):
            raise StepFailed(
                f"ctx.set: {name!r} is not a variable name (letters, digits and _, not starting with a digit)"
            )
        if self._set_variable is not None:
            self._set_variable(name, value)
        self._written[name] = value

    @property
    def response(self) -> Response | None:
        if self._response is None and self._raw_response is not None:
            self._response = (
                self._raw_response if isinstance(self._raw_response, Response) else Response.of(self._raw_response)
            )
        return self._response

    @property
    def parameters(self) -> Mapping[str, Any]:
        source = self._parameters or {}
        # The executor's EffectiveParameters holds EffectiveValue(value, source, line).
        return MappingProxyType({k: getattr(v, "value", v) for k, v in source.items()})

    def fail(self, message: str) -> None:
        """Fail the step with this message (same as raising StepFailed)."""
        raise StepFailed(message)


# ---------------------------------------------------------------- matching and running


def _one_line(text: str, width: int = 300) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _quote(text: str) -> str:
    return f'"{_one_line(text, _MAX_QUOTE)}"'


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

    def values(self) -> list[Any]:
        kinds = [kind for _, kind in self.definition.tokens if kind is not None]
        return [_PLACEHOLDERS[kind][1](raw) for kind, raw in zip(kinds, self.raw_values)]

    async def run(self, ctx: StepContext) -> str | None:
        """None when the step passed, else its failure as one line (never a traceback)."""
        if self.others:
            return _ambiguous(self.definition.kind, self.text, (self.definition,) + self.others)
        if not ctx.text:
            ctx.text = self.text
        import inspect

        definition = self.definition
        try:
            result = definition.function(ctx, *self.values())
            if inspect.isawaitable(result):
                result = await result
        except (AssertionError, StepFailed) as error:
            message = _one_line(str(error))
            if message:
                return message
            return f"{definition.kind} {_quote(self.text)} failed ({definition.origin})"
        except Exception as error:
            text = _one_line(str(error))
            return f"{type(error).__name__}: {text}" if text else type(error).__name__
        if definition.kind == "assertion":
            if result is False:
                return f"assertion {_quote(self.text)} is false ({definition.origin})"
            if result is not True and result is not None:
                return (
                    f"assertion {_quote(self.text)} returned {_one_line(repr(result), 60)} "
                    f"({definition.origin}); an assertion returns True, False or None"
                )
        return None


def _ambiguous(kind: str, text: str, definitions: Sequence[Definition]) -> str:
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

    def step(self, pattern: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Register on this registry directly (tests, embedding), as the module-level decorator does."""
        return self._decorator("step", pattern)

    def assertion(self, pattern: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        return self._decorator("assertion", pattern)

    def _decorator(self, kind: str, pattern: str):
        def register(function):
            self.add(Definition.make(kind, pattern, function))
            return function

        return register

    def _match(self, definitions: list[Definition], text: str) -> Match | None:
        text = text.strip()
        found = [(d, m) for d in definitions if (m := d.regex.fullmatch(text)) is not None]
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

    async def run_step(self, description: str, ctx: StepContext) -> str | None:
        """Match and run: None when passed, else the one-line failure (no match included)."""
        match = self.match_step(description)
        if match is None:
            return no_match_message("step", description, self)
        return await match.run(ctx)

    async def run_assertion(self, text: str, ctx: StepContext) -> str | None:
        match = self.match_assertion(text)
        if match is None:
            return no_match_message("assertion", text, self)
        return await match.run(ctx)

    def candidates(self, kind: str, template: TextTemplate | str) -> list[Definition]:
        """At check time: the definitions that could match, the `{{references}}` standing for
        any text. Without references this is exact matching."""
        definitions = self._steps if kind == "step" else self._assertions
        if isinstance(template, str) or not template.refs:
            text = (template if isinstance(template, str) else _literal(template)).strip()
            return [d for d in definitions if d.regex.fullmatch(text)]
        pieces = _pieces(template)
        return [d for d in definitions if d.could_match(pieces)]


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


# ---------------------------------------------------------------- decorators and discovery

# Every decorated function of the process, in import order; load_registry keeps those of the
# modules it loaded (importing a module twice does not run its decorators twice).
_registered: list[Definition] = []


def step(pattern: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """`@step("the pet {string} is {word}")` registers `fn(ctx, name, status)` as a custom step."""
    return _register("step", pattern)


def assertion(pattern: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """`@assertion("the pet should have status {string}")` registers a custom assertion: it
    fails when it returns False or raises."""
    return _register("assertion", pattern)


def _register(kind: str, pattern: str):
    Definition.make(kind, pattern, _register)  # a bad pattern fails at the decorator's line

    def decorate(function):
        _registered.append(Definition.make(kind, pattern, function))
        return function

    return decorate


def _entry_points() -> list[Any]:
    from importlib.metadata import entry_points  # only when a file has custom steps or --plugins

    return list(entry_points(group=ENTRY_POINT_GROUP))


def _failure(error: BaseException) -> str:
    """`TypeName: message (file.py:LINE)`: where the plugin broke, in one line."""
    import traceback

    text = _one_line(str(error), 200)
    line = f"{type(error).__name__}: {text}" if text else type(error).__name__
    if isinstance(error, SyntaxError) and error.filename:
        return f"{type(error).__name__}: {_one_line(error.msg or '', 200)} ({Path(error.filename).name}:{error.lineno})"
    machinery = (str(Path(__file__).resolve()), str(Path(importlib.__file__).resolve().parent))
    frames = [
        f
        for f in traceback.extract_tb(error.__traceback__)  # the plugin's own frames
        if not f.filename.startswith("<") and not str(Path(f.filename).resolve()).startswith(machinery)
    ]
    if frames:
        line += f" ({Path(frames[-1].filename).name}:{frames[-1].lineno})"
    return line


def _append_path(directory: str) -> None:
    # Appended, not prepended: a plugin folder never shadows the standard library or installed packages.
    if directory not in sys.path:
        sys.path.append(directory)


def _import_item(item: str) -> str:
    """Import one --plugins item; the module's name."""
    if item.endswith(".py") or "/" in item or os.sep in item:
        import hashlib
        from importlib.util import module_from_spec, spec_from_file_location

        path = Path(item).expanduser()
        if not path.is_file():
            raise PluginError(f"--plugins {item}: no such file")
        resolved = path.resolve()
        stem = re.sub(r"\W", "_", resolved.stem)
        name = f"scenario_plugin_{stem}_{hashlib.sha1(str(resolved).encode()).hexdigest()[:8]}"
        if name in sys.modules:
            return name
        spec = spec_from_file_location(name, resolved)
        if spec is None or spec.loader is None:
            raise PluginError(f"--plugins {item}: not a Python module")
        module = module_from_spec(spec)
        _append_path(str(resolved.parent))  # so it can import its neighbours
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[name]
            raise
        return name
    if not all(part.isidentifier() for part in item.split(".")):
        raise PluginError(f"--plugins {item}: expected a module name (pets.steps) or a path to a .py file")
    _append_path(os.getcwd())  # `--plugins pet_steps` finds ./pet_steps.py, as `python -m` would
    importlib.import_module(item)
    return item


def _guarded(what: str, load: Callable[[], str]) -> str:
    before = len(_registered)
    try:
        return load()
    except PluginError:
        raise
    except (Exception, SystemExit) as error:
        del _registered[before:]  # a half-imported plugin registers nothing
        raise PluginError(f"{what}: cannot import: {_failure(error)}") from None


def load_registry(plugins: Sequence[str] = (), *, entry_points: bool = True) -> Registry:
    """Import the entry points of group `scenario_tui.steps`, then each --plugins item (a module
    name or a .py file), and return what they registered, in that order. Raises PluginError
    (a UsageError: one line, exit status 2) naming a plugin that cannot be imported."""
    before = len(_registered)
    modules: list[str] = []
    if entry_points:
        try:
            found = _entry_points()
        except Exception as error:  # broken installed metadata
            raise PluginError(f"entry points {ENTRY_POINT_GROUP}: {_failure(error)}") from None
        for point in found:

            def load(point=point) -> str:
                point.load()
                return point.module

            modules.append(_guarded(f"entry point {point.name} ({point.value})", load))
    for item in plugins:
        modules.append(_guarded(f"--plugins {item}", lambda item=item: _import_item(item)))
    chosen: list[Definition] = []
    seen: set[int] = set()
    for module in modules:  # in plugin order: the first registered wins
        for definition in _registered:
            if (definition.module == module or definition.module.startswith(module + ".")) and id(
                definition
            ) not in seen:
                chosen.append(definition)
                seen.add(id(definition))
    for definition in _registered[before:]:  # helper modules the plugins imported
        if id(definition) not in seen:
            chosen.append(definition)
            seen.add(id(definition))
    return Registry(chosen)


# ---------------------------------------------------------------- check time


def _blocks(file: ScenarioFileNode) -> Iterator[Sequence[Any]]:
    if file.background is not None:
        yield file.background.steps
    for feature in file.features:
        if feature.background is not None:
            yield feature.background.steps
        for scenario in feature.scenarios:
            yield scenario.steps
    for scenario in file.scenarios:
        yield scenario.steps
    used = included_fragments(file)
    for fragment in file.fragments:  # a shared folder's fragment only where this file includes it
        if fragment.location.file == file.path or fragment.name in used:
            yield fragment.steps


def _custom_nodes(file: ScenarioFileNode) -> Iterator[Any]:
    """Every custom step (DescribedStep without directives) and custom assertion, in any block,
    inside described steps, conditional branches and composite conditions (not/and/or)."""
    for block in _blocks(file):
        yield from _custom_in(block)


def _custom_in(steps: Sequence[Any]) -> Iterator[Any]:
    for step in steps:
        if isinstance(step, DescribedStep):
            if step.custom:
                yield step
            else:
                yield from _custom_in(step.steps)
        elif isinstance(step, AssertStep):
            yield from (c for c in leaf_conditions(step.assertion) if isinstance(c, CustomAssertion))
        elif isinstance(step, ConditionalStep):
            for branch in step.branches:
                if branch.condition is not None:
                    yield from (c for c in leaf_conditions(branch.condition) if isinstance(c, CustomAssertion))
                yield from _custom_in(branch.steps)


def uses_custom_steps(file: ScenarioFileNode) -> bool:
    """Whether the file has a custom step or assertion (so plugins must be loaded to check it):
    the builder notes it while parsing, so this costs nothing on a large file."""
    noted = getattr(file, "custom_steps", None)
    return noted if noted is not None else next(_custom_nodes(file), None) is not None


def _text_of(node: Any) -> TextTemplate | str:
    if isinstance(node, DescribedStep):
        return node.description
    text = node.text
    return text if isinstance(text, (TextTemplate, str)) else str(text)


def custom_diagnostics(file: ScenarioFileNode, registry: Registry) -> list[Diagnostic]:
    """A custom step or assertion no registered pattern matches, or that several match (when
    its text has no references: with them, only the run knows the text)."""
    problems: list[Diagnostic] = []
    for node in _custom_nodes(file):
        kind = "step" if isinstance(node, DescribedStep) else "assertion"
        template = _text_of(node)
        text = template.text if isinstance(template, TextTemplate) else template
        location = template.location if isinstance(template, TextTemplate) else node.location
        candidates = registry.candidates(kind, template)
        if not candidates:
            problems.append(Diagnostic(location, no_match_message(kind, text.strip(), registry)))
        elif len(candidates) > 1 and (isinstance(template, str) or not template.refs):
            problems.append(Diagnostic(location, _ambiguous(kind, text.strip(), candidates)))
    return problems


_registries: dict[tuple[str, ...], Any] = {}


def plugin_registry(plugins: Sequence[str] = ()):
    """The custom steps of --plugins and installed entry points, imported once per process.
    Raises PluginError (a UsageError) naming a plugin that does not import."""
    key = tuple(plugins)
    if key not in _registries:
        _registries[key] = load_registry(key)
    return _registries[key]
