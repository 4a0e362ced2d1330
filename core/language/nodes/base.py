"""The base of every syntax-tree node: where it is in its source (`SourceLocation`, `Node`), and
the templates values are kept as (`TextTemplate`, `JsonTemplate`: text and `{{NAME}}` references)."""

from __future__ import annotations

from typing import Any, Union

from scenario_core.support.records import dataclass


@dataclass(frozen=True, slots=True)
class SourceLocation:
    file: str
    line: int
    column: int
    end_line: int
    end_column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


class Node:
    """Base of every syntax-tree node. Subclasses declare `location` as their last field."""

    __slots__ = ()
    location: SourceLocation

    @property
    def line(self) -> int:
        return self.location.line


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
        return tuple([s for s in self.segments if isinstance(s, VariableRef)])


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
        return tuple([s for s in self.segments if isinstance(s, VariableRef)])
