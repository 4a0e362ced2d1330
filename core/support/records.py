"""Record classes: `@dataclass` for the syntax tree, the events and the records, made without
`exec` and without the standard library's `dataclasses` module.

Why not the standard decorator: it `exec`s six methods for each frozen class (about 0.5-0.9 ms a
class on Python 3.10-3.13) and imports `inspect`; a one-request `run` creates ~90 such classes,
`check` ~60, which put ~50 ms on their start-up (docs/performance.md, "Records without exec").
Here a class costs one pass over its annotations (and, for `slots=True`, the class made again with
its `__slots__`, as the standard decorator does); the methods are shared functions that read the
class's fields, so nothing is compiled.

What a class gets, as the standard decorator gives it: `__init__` (positional or keyword
arguments, defaults, `field(default_factory=...)`), `__repr__`, `__eq__` (same class, compared
fields), `__hash__` (frozen and compared: the compared fields; eq without frozen: unhashable),
`__match_args__`, `__slots__` with `slots=True`, keyword-only fields with `kw_only=True`, and frozen instances (`FrozenInstanceError`, an
`AttributeError`). `fields()` and `replace()` here work on these classes. mypy sees a dataclass
(PEP 681 `dataclass_transform`), so type checking is exactly a dataclass's.

Not supported (nothing here uses them; a class that needs one uses `dataclasses` itself):
`InitVar`, the `KW_ONLY` marker and per-field `kw_only`, `field(init=False)`, `order=True`, `__post_init__`.
"""

from __future__ import annotations

from operator import attrgetter, itemgetter
from typing import TYPE_CHECKING, Any, Callable, Sequence, TypeVar, overload

from scenario_core.support.record_inits import named_init

_T = TypeVar("_T")

if TYPE_CHECKING:
    from typing import ClassVar, Protocol

    from typing_extensions import dataclass_transform

    class _Record(Protocol):
        """An instance of a record class: what `_make` sets on its class, as the shared methods read it."""

        __record_fields__: ClassVar[tuple[Field, ...]]
        __record_values__: ClassVar[Callable[[object], tuple[object, ...]]]
        __record_compared__: ClassVar[Callable[[object], tuple[object, ...]]]
        __record_hashed__: ClassVar[Callable[[object], tuple[object, ...]]]

else:

    def dataclass_transform(**_options: object) -> Callable[[_T], _T]:
        return lambda decorated: decorated


__all__ = ["FrozenInstanceError", "Field", "dataclass", "field", "fields", "replace"]

_FIELDS = "__record_fields__"  # each record class's tuple of Field, its bases' first


class FrozenInstanceError(AttributeError):
    """Assigning to (or deleting) a field of a frozen record."""


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


class Field:
    """One field of a record class (what `field(...)` returns, named once the class is made)."""

    __slots__ = ("name", "type", "default", "default_factory", "repr", "hash", "compare", "init")

    def __init__(
        self,
        default: object = MISSING,
        default_factory: Callable[[], object] = MISSING,
        repr: bool = True,  # noqa: A002 - the standard library's parameter names
        hash: bool | None = None,  # noqa: A002
        compare: bool = True,
    ) -> None:
        self.name = ""
        self.type: object = None
        self.default, self.default_factory = default, default_factory
        self.repr, self.hash, self.compare = repr, hash, compare
        self.init = True

    def __repr__(self) -> str:
        return f"Field(name={self.name!r})"


def field(
    *,
    default: object = MISSING,
    default_factory: Callable[[], object] = MISSING,
    repr: bool = True,  # noqa: A002
    hash: bool | None = None,  # noqa: A002
    compare: bool = True,
) -> Any:
    """A field's options, as `dataclasses.field` takes them."""
    return Field(default, default_factory, repr, hash, compare)


def fields(record: object) -> tuple[Field, ...]:
    """The fields of a record class or instance, inherited ones first."""
    cls = record if isinstance(record, type) else type(record)
    found: tuple[Field, ...] | None = getattr(cls, _FIELDS, None)
    if found is None:
        raise TypeError(f"{cls.__name__} is not a record class")
    return found


def replace(record: _T, /, **changes: object) -> _T:
    """A copy of `record` with some fields changed (`dataclasses.replace`)."""
    for each in fields(record):
        if each.name not in changes:
            changes[each.name] = getattr(record, each.name)
    return type(record)(**changes)


@overload
def dataclass(cls: type[_T], /) -> type[_T]: ...


@overload
def dataclass(
    *, repr: bool = True, eq: bool = True, frozen: bool = False, slots: bool = False, kw_only: bool = False
) -> Callable[[type[_T]], type[_T]]: ...


@dataclass_transform(field_specifiers=(field, Field))
def dataclass(
    cls: type[_T] | None = None,
    /,
    *,
    repr: bool = True,  # noqa: A002
    eq: bool = True,
    frozen: bool = False,
    slots: bool = False,
    kw_only: bool = False,
) -> type[_T] | Callable[[type[_T]], type[_T]]:
    """Make `cls` a record class (the standard `@dataclass`'s options that this project uses).
    `kw_only`: every field is given by keyword (the events: a call names what it sets)."""

    def wrap(cls: type[_T]) -> type[_T]:
        return _make(cls, repr, eq, frozen, slots, kw_only)

    return wrap if cls is None else wrap(cls)


def _collect(cls: type) -> tuple[Field, ...]:
    """The fields: the bases' (record classes) first, then this class's annotations in order."""
    collected: dict[str, Field] = {}
    for base in reversed(cls.__mro__[1:]):
        for each in vars(base).get(_FIELDS, ()):
            collected[each.name] = each
    for name, annotation in vars(cls).get("__annotations__", {}).items():
        text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", "")
        if text.startswith(("ClassVar", "typing.ClassVar")):
            continue
        if text.startswith(("InitVar", "dataclasses.InitVar", "KW_ONLY")):
            raise TypeError(f"{cls.__name__}.{name}: InitVar and KW_ONLY need the standard dataclasses")
        value = vars(cls).get(name, MISSING)
        spec = value if isinstance(value, Field) else Field(value)
        spec.name, spec.type = name, annotation
        collected[name] = spec
    return tuple(collected.values())


def _make(cls: type[_T], with_repr: bool, eq: bool, frozen: bool, slots: bool, kw_only: bool = False) -> type[_T]:
    specs = _collect(cls)
    if "__post_init__" in vars(cls):
        raise TypeError(f"{cls.__name__}: __post_init__ needs the standard dataclasses")
    seen_default = False
    for spec in specs:  # the standard decorator's rule, so that the signature stays valid
        has_default = spec.default is not MISSING or spec.default_factory is not MISSING
        if seen_default and not has_default and not kw_only:
            raise TypeError(f"non-default argument {spec.name!r} follows default argument")
        seen_default = seen_default or has_default
    if slots:
        cls = _with_slots(cls, specs)
    else:
        for spec in specs:  # a default stays readable on the class, as the standard decorator leaves it
            if spec.name in vars(cls):
                if spec.default is MISSING:
                    delattr(cls, spec.name)
                else:
                    setattr(cls, spec.name, spec.default)
    type.__setattr__(cls, _FIELDS, specs)
    type.__setattr__(cls, "__init__", _on_first_use(cls, specs, slots, kw_only))
    type.__setattr__(cls, "__match_args__", () if kw_only else tuple(spec.name for spec in specs))
    if with_repr:
        type.__setattr__(cls, "__repr__", _repr)
    names = tuple(spec.name for spec in specs)
    type.__setattr__(cls, "__record_values__", _getter(names))
    if not any("__reduce__" in vars(base) for base in cls.__mro__[:-1]):
        type.__setattr__(cls, "__reduce__", _reduce_by_keyword if kw_only else _reduce)
    if eq:
        compared = tuple(spec.name for spec in specs if spec.compare)
        type.__setattr__(cls, "__record_compared__", _getter(compared))
        type.__setattr__(cls, "__eq__", _eq)
        if frozen:
            hashed = tuple(spec.name for spec in specs if (spec.compare if spec.hash is None else spec.hash))
            type.__setattr__(cls, "__record_hashed__", _getter(hashed))
            type.__setattr__(cls, "__hash__", _hash)
        elif "__hash__" not in vars(cls):
            type.__setattr__(cls, "__hash__", None)
    if frozen:
        type.__setattr__(cls, "__setattr__", _frozen_setattr)
        type.__setattr__(cls, "__delattr__", _frozen_delattr)
    return cls


def _with_slots(cls: type[_T], specs: tuple[Field, ...]) -> type[_T]:
    """The class made again with `__slots__` for its own fields (the bases' have theirs)."""
    inherited = {name for base in cls.__mro__[1:] for name in vars(base).get("__slots__", ())}
    namespace = dict(vars(cls))
    own = tuple(spec.name for spec in specs if spec.name not in inherited)
    for name in own:
        namespace.pop(name, None)
    namespace["__slots__"] = own
    namespace.pop("__dict__", None)
    namespace.pop("__weakref__", None)
    metaclass: Any = type(cls)  # type[type[_T]]: mypy cannot call it
    made: type[_T] = metaclass(cls.__name__, cls.__bases__, namespace)
    made.__qualname__ = cls.__qualname__
    return made


def _on_first_use(cls: type, specs: tuple[Field, ...], slots: bool, kw_only: bool) -> Callable[..., None]:
    """An `__init__` that makes the class's own (`_init_for`) when first called, puts it in its
    place and calls it: a run or a check creates ~100 record classes and instantiates about half
    of them; making the others' costs ~20 µs each for nothing (docs/performance.md, "Round
    seven")."""

    def __init__(self: object, *args: object, **keywords: object) -> None:  # noqa: N807
        made = _init_for(cls, specs, slots, kw_only)
        if vars(cls).get("__init__") is __init__:
            type.__setattr__(cls, "__init__", made)
        made(self, *args, **keywords)

    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    return __init__


def _init_for(cls: type, specs: tuple[Field, ...], slots: bool, kw_only: bool) -> Callable[..., None]:
    """`__init__`: a slotted class's from its template (record_inits.py) when one fits;
    otherwise this generic one. The common calls are fast paths (a run builds ~20 records a request, a check
    of 50,000 lines ~180,000): the first fields by position and the rest left to plain defaults
    (every field, often); every field by keyword, or every field without a plain default (the
    keywords merged over the defaults), checked with one comparison of key sets and read with one
    `itemgetter`; the first fields by position and the rest by keyword or default, likewise. Any
    other call (a factory default, a missing or unknown name, a field given twice) is bound by
    `_binder`, as a signature binds it. The values are set through each
    slot's descriptor (a frozen class's own `__setattr__` refuses) or into the instance's dict
    with one `update`."""
    names = tuple(spec.name for spec in specs)
    count, known = len(names), frozenset(names)
    plain = {spec.name: spec.default for spec in specs if spec.default is not MISSING}
    if slots and all(spec.default_factory is MISSING for spec in specs):  # most classes: record_inits.py
        named = named_init(cls.__qualname__, names, tuple(_slot_setter(cls, n) for n in names), plain, kw_only)
        if named is not None:
            return named
    values_of = _getter_of_keys(names)
    bind = _binder(cls.__qualname__, specs, kw_only)
    leading = tuple(frozenset(names[:at]) for at in range(count + 1))  # the fields the first `at` arguments give
    # The defaults of the fields after the first `at`, when each has a plain one (else None):
    # the first fields by position and the rest left to their defaults is one tuple concatenation.
    tails = tuple(
        tuple(spec.default for spec in specs[at:]) if all(spec.name in plain for spec in specs[at:]) else None
        for at in range(count + 1)
    )

    if slots:
        setters = tuple(_slot_setter(cls, name) for name in names)

        def __init__(self: object, *args: object, **keywords: object) -> None:  # noqa: N807
            values: Sequence[object]
            if args:
                if not keywords and not kw_only and len(args) <= count and (tail := tails[len(args)]) is not None:
                    values = args + tail if tail else args
                elif not kw_only and len(args) < count and keywords.keys().isdisjoint(leading[len(args)]):
                    merged = {**plain, **keywords}
                    merged.update(zip(names, args))
                    values = values_of(merged) if merged.keys() == known else bind(args, keywords)
                else:
                    values = bind(args, keywords)
            elif keywords.keys() == known:
                values = values_of(keywords)
            else:
                merged = {**plain, **keywords}
                values = values_of(merged) if merged.keys() == known else bind(args, keywords)
            for set_value, value in zip(setters, values):
                set_value(self, value)

    else:

        def __init__(self: object, *args: object, **keywords: object) -> None:  # noqa: N807
            if args and not keywords and not kw_only and len(args) <= count and (tail := tails[len(args)]) is not None:
                self.__dict__.update(zip(names, args + tail if tail else args))
                return
            if args or keywords.keys() != known:
                merged = {**plain, **keywords}
                fits = not args or (
                    not kw_only and len(args) < count and keywords.keys().isdisjoint(leading[len(args)])
                )
                if fits:
                    merged.update(zip(names, args))
                keywords = merged if fits and merged.keys() == known else dict(zip(names, bind(args, keywords)))
            self.__dict__.update(keywords)

    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    return __init__


def _binder(
    qualname: str, specs: tuple[Field, ...], kw_only: bool
) -> Callable[[tuple[object, ...], dict[str, object]], list[object]]:
    """The slow path of `__init__`: positional and keyword arguments bound to the fields in
    order, defaults and factories filled in, with the standard decorator's errors."""
    names = tuple(spec.name for spec in specs)
    count = len(names)
    position = {name: i for i, name in enumerate(names)}
    defaults = tuple(spec.default for spec in specs)
    factories = tuple(spec.default_factory for spec in specs)

    def bind(args: tuple[object, ...], keywords: dict[str, object]) -> list[object]:
        if args and kw_only:
            raise TypeError(f"{qualname}.__init__() takes keyword arguments only ({len(args)} given by position)")
        if len(args) > count:
            raise TypeError(
                f"{qualname}.__init__() takes {count + 1} positional arguments but {len(args) + 1} were given"
            )
        values = list(args)
        values.extend([MISSING] * (count - len(args)))
        for name, value in keywords.items():
            found = position.get(name)
            if found is None:
                raise TypeError(f"{qualname}.__init__() got an unexpected keyword argument {name!r}")
            if values[found] is not MISSING:
                raise TypeError(f"{qualname}.__init__() got multiple values for argument {name!r}")
            values[found] = value
        for at, value in enumerate(values):
            if value is MISSING:
                if defaults[at] is not MISSING:
                    values[at] = defaults[at]
                elif factories[at] is not MISSING:
                    values[at] = factories[at]()
                else:
                    raise TypeError(f"{qualname}.__init__() missing required argument: {names[at]!r}")
        return values

    return bind


def _getter_of_keys(names: tuple[str, ...]) -> Callable[[dict[str, object]], tuple[object, ...]]:
    """A dict -> the tuple of its values for these keys, in this order."""
    if len(names) >= 2:
        many: Callable[[dict[str, object]], tuple[object, ...]] = itemgetter(*names)
        return many
    if len(names) == 1:
        one = itemgetter(names[0])
        return lambda keywords: (one(keywords),)
    return lambda keywords: ()


def _slot_setter(cls: type, name: str) -> Callable[[object, object], None]:
    for klass in cls.__mro__:
        descriptor = vars(klass).get(name)
        if descriptor is not None and hasattr(descriptor, "__set__") and name in vars(klass).get("__slots__", ()):
            setter: Callable[[object, object], None] = descriptor.__set__
            return setter
    raise TypeError(f"{cls.__qualname__}.{name}: a slotted record's field must have a slot")


def _getter(names: tuple[str, ...]) -> Callable[[object], tuple[object, ...]]:
    """An instance -> the tuple of these fields' values (what equality, hashing and pickling read)."""
    if len(names) >= 2:
        many: Callable[[object], tuple[object, ...]] = attrgetter(*names)
        return many
    if len(names) == 1:
        one = attrgetter(names[0])
        return lambda record: (one(record),)
    return lambda record: ()


def _reduce(self: _Record) -> tuple[object, ...]:
    """Pickled as the class and its fields' values, unpickled by calling the class with them
    (pickle's own protocol; a frozen record refuses the attribute-by-attribute default)."""
    return type(self), type(self).__record_values__(self)


def _reduce_by_keyword(self: _Record) -> tuple[object, ...]:
    """A keyword-only record: unpickled by `_from_values`, which names each field."""
    return _from_values, (type(self), type(self).__record_values__(self))


def _from_values(cls: type[_T], values: tuple[object, ...]) -> _T:
    return cls(**dict(zip((spec.name for spec in fields(cls)), values)))


def _repr(self: object) -> str:
    shown = ", ".join(f"{spec.name}={getattr(self, spec.name)!r}" for spec in getattr(self, _FIELDS) if spec.repr)
    return f"{type(self).__qualname__}({shown})"


def _eq(self: _Record, other: object) -> bool:
    if other.__class__ is not self.__class__:
        not_implemented: bool = NotImplemented  # == then asks the other operand, as __eq__ may
        return not_implemented
    cls = type(self)
    values: Callable[[object], tuple[object, ...]] = cls.__record_compared__
    result: bool = values(self) == values(other)
    return result


def _hash(self: _Record) -> int:
    return hash(type(self).__record_hashed__(self))


def _frozen_setattr(self: object, name: str, value: object) -> None:
    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _frozen_delattr(self: object, name: str) -> None:
    raise FrozenInstanceError(f"cannot delete field {name!r}")
