"""Jayway's JSON path functions (docs/spec/berrycrush.md#conditions), evaluated on what the path before the
function matched (language/json_paths.py compiles them). As in Jayway, a definite path gives the
function its one value, an indefinite one (wildcard, filter, deep scan) the list of its matches.
A function that does not apply (min() of text, first() of an empty list) matches nothing."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from scenario_core.language.json_paths import JsonPathFunction, PathArgument
from scenario_core.run.comparison import MISSING, is_number

if TYPE_CHECKING:
    from types import ModuleType

# A function of a JSON path: its value on the subject (what the path matched) and its arguments,
# all JSON values.
_Function = Callable[[object, list[object]], object]


def evaluate(function: JsonPathFunction, data: object) -> object:
    """The function's value on `data`, or MISSING."""
    matches = [m.value for m in function.base.find(data)]
    if function.definite:
        if not matches:
            return MISSING
        subject = matches[0]
    else:
        subject = matches
    arguments = [_argument(a, data) for a in function.arguments]
    try:
        return _APPLY[function.name](subject, arguments)
    except (TypeError, ValueError, IndexError):  # statistics.StatisticsError is a ValueError
        return MISSING


def _argument(argument: object, data: object) -> object:
    if isinstance(argument, PathArgument):  # its value (the list of its matches when several)
        values = [m.value for m in argument.compiled.find(data)]
        return values[0] if len(values) == 1 else values
    return argument


def _numbers(subject: object) -> list[float]:
    if not isinstance(subject, list) or not subject or not all(is_number(v) for v in subject):
        raise ValueError("numbers expected")
    return subject


def _length(subject: object, _: list[object]) -> int:
    if isinstance(subject, (list, dict, str)):
        return len(subject)
    raise TypeError("no length")


def _keys(subject: object, _: list[object]) -> list[str]:
    if isinstance(subject, dict):
        return list(subject)
    raise TypeError("no keys")


def _end(index: int) -> _Function:
    def pick(subject: object, _: list[object]) -> object:
        if isinstance(subject, list):
            return subject[index]
        raise TypeError("not a list")

    return pick


def _concat(subject: object, arguments: list[object]) -> str:
    parts = subject if isinstance(subject, list) else [subject]
    return "".join(v if isinstance(v, str) else _text(v) for v in [*parts, *arguments])


def _text(value: object) -> str:
    import json

    return json.dumps(value)


def _append(subject: object, arguments: list[object]) -> list[object]:
    if isinstance(subject, list):
        return [*subject, *arguments]
    raise TypeError("not a list")


def _statistics() -> ModuleType:
    import statistics  # ~10 ms of imports (decimal, fractions): paid only by a file that averages

    return statistics


_APPLY: dict[str, _Function] = {
    "length": _length,
    "size": _length,
    "min": lambda s, _: min(_numbers(s)),
    "max": lambda s, _: max(_numbers(s)),
    "avg": lambda s, _: _statistics().fmean(_numbers(s)),
    "sum": lambda s, _: sum(_numbers(s)),
    "stddev": lambda s, _: _statistics().pstdev(_numbers(s)),
    "keys": _keys,
    "first": _end(0),
    "last": _end(-1),
    "concat": _concat,
    "append": _append,
}
