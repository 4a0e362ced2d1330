"""The base of every syntax-tree node: where it is in its source (`SourceLocation`, `Node`), and
the templates values are kept as (`TextTemplate`, `JsonTemplate`: text and `{{NAME}}` references)."""

from __future__ import annotations

from dataclasses import dataclass, fields
from operator import attrgetter
from typing import Any, Callable, Union


@dataclass(frozen=True, slots=True)
class SourceLocation:
    file: str
    line: int
    column: int
    end_line: int
    end_column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"

    def __reduce__(self) -> tuple[Any, ...]:  # see Node.__reduce__
        return SourceLocation, (self.file, self.line, self.column, self.end_line, self.end_column)


class Node:
    """Base of every syntax-tree node. Subclasses declare `location` as their last field."""

    __slots__ = ()
    location: SourceLocation

    @property
    def line(self) -> int:
        return self.location.line

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as the class and its fields' values, unpickled by calling the class with them
        (pickle's own protocol): the parse cache pickles whole trees, and the standard frozen,
        slotted dataclass's `__getstate__` / `__setstate__` pair is ~3.7x slower both ways
        (docs/performance.md, "Start-up without tricks"). Nodes have no `__post_init__` and no
        field left out of `__init__`, so the call makes the same node."""
        cls = self.__class__
        values = _FIELD_VALUES.get(cls) or _field_values(cls)
        return cls, values(self)


_FIELD_VALUES: dict[type, Callable[[Any], tuple[Any, ...]]] = {}


def _field_values(cls: type) -> Callable[[Any], tuple[Any, ...]]:
    """A node -> the tuple of its fields' values, in `__init__`'s order (made once a class)."""
    names = [f.name for f in fields(cls)]
    if len(names) == 1:
        one = attrgetter(names[0])
        _FIELD_VALUES[cls] = values = lambda node: (one(node),)
    else:
        _FIELD_VALUES[cls] = values = attrgetter(*names)
    return values


@dataclass(frozen=True, slots=True)
class VariableRef(Node):
    """A `{{NAME}}` reference. `in_string` tells, in JSON text, whether it stands inside a string
    (substituted by its text form) or bare (substituted by its JSON form, keeping its type)."""

    name: str
    in_string: bool
    location: SourceLocation


Segment = Union[str, VariableRef]


@dataclass(frozen=True, slots=True)
class TextTemplate(Node):
    """Text with `{{NAME}}` references: a path, a header or query value."""

    text: str
    segments: tuple[Segment, ...]
    location: SourceLocation

    @property
    def refs(self) -> tuple[VariableRef, ...]:
        return tuple(s for s in self.segments if isinstance(s, VariableRef))


@dataclass(frozen=True, slots=True)
class JsonTemplate(Node):
    """JSON text with `{{NAME}}` references: a request body or an assertion's expected value.
    `constant` holds the parsed value when there are no references."""

    text: str
    segments: tuple[Segment, ...]
    constant: Any
    location: SourceLocation

    @property
    def refs(self) -> tuple[VariableRef, ...]:
        return tuple(s for s in self.segments if isinstance(s, VariableRef))
