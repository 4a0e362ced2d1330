"""Fast `__init__`s for slotted records (core/support/records.py), without `exec`.

A record's generic `__init__` takes `*args, **keywords` and sets each field through its slot in a
loop: 0.51 µs for a `SourceLocation` (five fields) against 0.24 µs for the `exec`'d one this
project had and the standard `@dataclass` builds. A parse of 50,000 lines makes ~180,000 records
and a chained request ~20, so that half of a microsecond is 5-15 % of `check`, of the TUI's first
paint and of a run (docs/performance.md, "Round seven").

Here each field count has one template below: a function taking that many arguments, setting
each through its slot's setter (a closure cell). `named_init` takes the template of a class's
field count and gives it the class's field names: `CodeType.replace` (public since Python 3.8)
renames its parameters (and makes them keyword-only for a `kw_only` class), and
`types.FunctionType` adds the defaults. Python itself then binds the arguments, positional or by
name, and raises its own errors for a missing or unexpected one. 0.28 µs for that
`SourceLocation`. Nothing is compiled: the templates are ordinary code, compiled with this
module.

A class with more fields than the largest template, a `default_factory`, or a field named like a
template's own names keeps the generic `__init__`."""

from __future__ import annotations

from types import FunctionType
from typing import Callable, Mapping

Setter = Callable[[object, object], None]
Init = Callable[..., None]


def named_init(
    qualname: str,
    names: tuple[str, ...],
    setters: tuple[Setter, ...],
    defaults: Mapping[str, object],
    kw_only: bool,
) -> Init | None:
    """`__init__` for a slotted record of these fields (in order; `defaults`: the fields that
    have one), or None when no template fits."""
    count = len(names)
    if count >= len(_TEMPLATES):
        return None
    template = _TEMPLATES[count](*setters)
    code = template.__code__
    if "self" in names or set(names) & set(code.co_freevars) or len(set(names)) != count:
        return None
    code = code.replace(
        co_varnames=("self", *names),
        co_argcount=1 if kw_only else count + 1,
        co_kwonlyargcount=count if kw_only else 0,
    )
    # Positional: the defaults of the last fields (records.py has checked that none without one
    # follows one with one). Keyword-only: any field's.
    trailing = () if kw_only else tuple(defaults[name] for name in names if name in defaults)
    init = FunctionType(code, template.__globals__, "__init__", trailing or None, template.__closure__)
    if kw_only:
        init.__kwdefaults__ = {name: defaults[name] for name in names if name in defaults}
    init.__qualname__ = f"{qualname}.__init__"
    return init


# ---------------------------------------------------------------- the templates, one a field count


# fmt: off
# (The formatter would give each parameter a line of its own: 19 templates, ~700 lines.)
def _fields0() -> Init:
    def __init__(self: object) -> None:  # noqa: N807
        pass

    return __init__


def _fields1(s0: Setter) -> Init:
    def __init__(self: object, a0: object) -> None:  # noqa: N807
        s0(self, a0)

    return __init__


def _fields2(s0: Setter, s1: Setter) -> Init:
    def __init__(self: object, a0: object, a1: object) -> None:  # noqa: N807
        s0(self, a0)
        s1(self, a1)

    return __init__


def _fields3(s0: Setter, s1: Setter, s2: Setter) -> Init:
    def __init__(self: object, a0: object, a1: object, a2: object) -> None:  # noqa: N807
        s0(self, a0)
        s1(self, a1)
        s2(self, a2)

    return __init__


def _fields4(s0: Setter, s1: Setter, s2: Setter, s3: Setter) -> Init:
    def __init__(self: object, a0: object, a1: object, a2: object, a3: object) -> None:  # noqa: N807
        s0(self, a0)
        s1(self, a1)
        s2(self, a2)
        s3(self, a3)

    return __init__


def _fields5(s0: Setter, s1: Setter, s2: Setter, s3: Setter, s4: Setter) -> Init:
    def __init__(self: object, a0: object, a1: object, a2: object, a3: object, a4: object) -> None:  # noqa: N807
        s0(self, a0)
        s1(self, a1)
        s2(self, a2)
        s3(self, a3)
        s4(self, a4)

    return __init__


def _fields6(s0: Setter, s1: Setter, s2: Setter, s3: Setter, s4: Setter, s5: Setter) -> Init:
    def __init__(self: object, a0: object, a1: object, a2: object, a3: object, a4: object, a5: object) -> None:  # noqa: N807
        s0(self, a0)
        s1(self, a1)
        s2(self, a2)
        s3(self, a3)
        s4(self, a4)
        s5(self, a5)

    return __init__


def _fields7(s0: Setter, s1: Setter, s2: Setter, s3: Setter, s4: Setter, s5: Setter, s6: Setter) -> Init:
    def __init__(self: object, a0: object, a1: object, a2: object, a3: object, a4: object, a5: object, a6: object) -> None:  # noqa: N807
        s0(self, a0)
        s1(self, a1)
        s2(self, a2)
        s3(self, a3)
        s4(self, a4)
        s5(self, a5)
        s6(self, a6)

    return __init__


def _fields8(s0: Setter, s1: Setter, s2: Setter, s3: Setter, s4: Setter, s5: Setter, s6: Setter, s7: Setter) -> Init:
    def __init__(self: object, a0: object, a1: object, a2: object, a3: object, a4: object, a5: object, a6: object, a7: object) -> None:  # noqa: N807
        s0(self, a0)
        s1(self, a1)
        s2(self, a2)
        s3(self, a3)
        s4(self, a4)
        s5(self, a5)
        s6(self, a6)
        s7(self, a7)

    return __init__


def _fields9(s0: Setter, s1: Setter, s2: Setter, s3: Setter, s4: Setter, s5: Setter, s6: Setter, s7: Setter, s8: Setter) -> Init:
    def __init__(self: object, a0: object, a1: object, a2: object, a3: object, a4: object, a5: object, a6: object, a7: object, a8: object) -> None:  # noqa: N807
        s0(self, a0)
        s1(self, a1)
        s2(self, a2)
        s3(self, a3)
        s4(self, a4)
        s5(self, a5)
        s6(self, a6)
        s7(self, a7)
        s8(self, a8)

    return __init__


def _fields10(s0: Setter, s1: Setter, s2: Setter, s3: Setter, s4: Setter, s5: Setter, s6: Setter, s7: Setter, s8: Setter, s9: Setter) -> Init:
    def __init__(self: object, a0: object, a1: object, a2: object, a3: object, a4: object, a5: object, a6: object, a7: object, a8: object, a9: object) -> None:  # noqa: N807
        s0(self, a0)
        s1(self, a1)
        s2(self, a2)
        s3(self, a3)
        s4(self, a4)
        s5(self, a5)
        s6(self, a6)
        s7(self, a7)
        s8(self, a8)
        s9(self, a9)

    return __init__


def _fields11(s0: Setter, s1: Setter, s2: Setter, s3: Setter, s4: Setter, s5: Setter, s6: Setter, s7: Setter, s8: Setter, s9: Setter, s10: Setter) -> Init:
    def __init__(self: object, a0: object, a1: object, a2: object, a3: object, a4: object, a5: object, a6: object, a7: object, a8: object, a9: object, a10: object) -> None:  # noqa: N807
        s0(self, a0)
        s1(self, a1)
        s2(self, a2)
        s3(self, a3)
        s4(self, a4)
        s5(self, a5)
        s6(self, a6)
        s7(self, a7)
        s8(self, a8)
        s9(self, a9)
        s10(self, a10)

    return __init__


def _fields12(s0: Setter, s1: Setter, s2: Setter, s3: Setter, s4: Setter, s5: Setter, s6: Setter, s7: Setter, s8: Setter, s9: Setter, s10: Setter, s11: Setter) -> Init:
    def __init__(self: object, a0: object, a1: object, a2: object, a3: object, a4: object, a5: object, a6: object, a7: object, a8: object, a9: object, a10: object, a11: object) -> None:  # noqa: N807
        s0(self, a0)
        s1(self, a1)
        s2(self, a2)
        s3(self, a3)
        s4(self, a4)
        s5(self, a5)
        s6(self, a6)
        s7(self, a7)
        s8(self, a8)
        s9(self, a9)
        s10(self, a10)
        s11(self, a11)

    return __init__


def _fields13(s0: Setter, s1: Setter, s2: Setter, s3: Setter, s4: Setter, s5: Setter, s6: Setter, s7: Setter, s8: Setter, s9: Setter, s10: Setter, s11: Setter, s12: Setter) -> Init:
    def __init__(self: object, a0: object, a1: object, a2: object, a3: object, a4: object, a5: object, a6: object, a7: object, a8: object, a9: object, a10: object, a11: object, a12: object) -> None:  # noqa: N807
        s0(self, a0)
        s1(self, a1)
        s2(self, a2)
        s3(self, a3)
        s4(self, a4)
        s5(self, a5)
        s6(self, a6)
        s7(self, a7)
        s8(self, a8)
        s9(self, a9)
        s10(self, a10)
        s11(self, a11)
        s12(self, a12)

    return __init__


def _fields14(s0: Setter, s1: Setter, s2: Setter, s3: Setter, s4: Setter, s5: Setter, s6: Setter, s7: Setter, s8: Setter, s9: Setter, s10: Setter, s11: Setter, s12: Setter, s13: Setter) -> Init:
    def __init__(self: object, a0: object, a1: object, a2: object, a3: object, a4: object, a5: object, a6: object, a7: object, a8: object, a9: object, a10: object, a11: object, a12: object, a13: object) -> None:  # noqa: N807
        s0(self, a0)
        s1(self, a1)
        s2(self, a2)
        s3(self, a3)
        s4(self, a4)
        s5(self, a5)
        s6(self, a6)
        s7(self, a7)
        s8(self, a8)
        s9(self, a9)
        s10(self, a10)
        s11(self, a11)
        s12(self, a12)
        s13(self, a13)

    return __init__


def _fields15(s0: Setter, s1: Setter, s2: Setter, s3: Setter, s4: Setter, s5: Setter, s6: Setter, s7: Setter, s8: Setter, s9: Setter, s10: Setter, s11: Setter, s12: Setter, s13: Setter, s14: Setter) -> Init:
    def __init__(self: object, a0: object, a1: object, a2: object, a3: object, a4: object, a5: object, a6: object, a7: object, a8: object, a9: object, a10: object, a11: object, a12: object, a13: object, a14: object) -> None:  # noqa: N807
        s0(self, a0)
        s1(self, a1)
        s2(self, a2)
        s3(self, a3)
        s4(self, a4)
        s5(self, a5)
        s6(self, a6)
        s7(self, a7)
        s8(self, a8)
        s9(self, a9)
        s10(self, a10)
        s11(self, a11)
        s12(self, a12)
        s13(self, a13)
        s14(self, a14)

    return __init__


def _fields16(s0: Setter, s1: Setter, s2: Setter, s3: Setter, s4: Setter, s5: Setter, s6: Setter, s7: Setter, s8: Setter, s9: Setter, s10: Setter, s11: Setter, s12: Setter, s13: Setter, s14: Setter, s15: Setter) -> Init:
    def __init__(self: object, a0: object, a1: object, a2: object, a3: object, a4: object, a5: object, a6: object, a7: object, a8: object, a9: object, a10: object, a11: object, a12: object, a13: object, a14: object, a15: object) -> None:  # noqa: N807
        s0(self, a0)
        s1(self, a1)
        s2(self, a2)
        s3(self, a3)
        s4(self, a4)
        s5(self, a5)
        s6(self, a6)
        s7(self, a7)
        s8(self, a8)
        s9(self, a9)
        s10(self, a10)
        s11(self, a11)
        s12(self, a12)
        s13(self, a13)
        s14(self, a14)
        s15(self, a15)

    return __init__


def _fields17(s0: Setter, s1: Setter, s2: Setter, s3: Setter, s4: Setter, s5: Setter, s6: Setter, s7: Setter, s8: Setter, s9: Setter, s10: Setter, s11: Setter, s12: Setter, s13: Setter, s14: Setter, s15: Setter, s16: Setter) -> Init:
    def __init__(self: object, a0: object, a1: object, a2: object, a3: object, a4: object, a5: object, a6: object, a7: object, a8: object, a9: object, a10: object, a11: object, a12: object, a13: object, a14: object, a15: object, a16: object) -> None:  # noqa: N807
        s0(self, a0)
        s1(self, a1)
        s2(self, a2)
        s3(self, a3)
        s4(self, a4)
        s5(self, a5)
        s6(self, a6)
        s7(self, a7)
        s8(self, a8)
        s9(self, a9)
        s10(self, a10)
        s11(self, a11)
        s12(self, a12)
        s13(self, a13)
        s14(self, a14)
        s15(self, a15)
        s16(self, a16)

    return __init__


def _fields18(s0: Setter, s1: Setter, s2: Setter, s3: Setter, s4: Setter, s5: Setter, s6: Setter, s7: Setter, s8: Setter, s9: Setter, s10: Setter, s11: Setter, s12: Setter, s13: Setter, s14: Setter, s15: Setter, s16: Setter, s17: Setter) -> Init:
    def __init__(self: object, a0: object, a1: object, a2: object, a3: object, a4: object, a5: object, a6: object, a7: object, a8: object, a9: object, a10: object, a11: object, a12: object, a13: object, a14: object, a15: object, a16: object, a17: object) -> None:  # noqa: N807
        s0(self, a0)
        s1(self, a1)
        s2(self, a2)
        s3(self, a3)
        s4(self, a4)
        s5(self, a5)
        s6(self, a6)
        s7(self, a7)
        s8(self, a8)
        s9(self, a9)
        s10(self, a10)
        s11(self, a11)
        s12(self, a12)
        s13(self, a13)
        s14(self, a14)
        s15(self, a15)
        s16(self, a16)
        s17(self, a17)

    return __init__
# fmt: on


_TEMPLATES: tuple[Callable[..., Init], ...] = (
    _fields0,
    _fields1,
    _fields2,
    _fields3,
    _fields4,
    _fields5,
    _fields6,
    _fields7,
    _fields8,
    _fields9,
    _fields10,
    _fields11,
    _fields12,
    _fields13,
    _fields14,
    _fields15,
    _fields16,
    _fields17,
    _fields18,
)
