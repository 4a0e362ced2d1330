"""`dataclass`, `field`, `fields` and `replace` as the standard library's, but cheap to create a
class with: issue 22 measured ~1.3 ms for each `@dataclass(frozen=True, slots=True)` class (one
`exec` per generated method, `inspect` for the docstring, the class built twice) and start-up
creates ~90 of them (syntax-tree nodes, events, records) before the first request. Here a class
costs one small `exec` (its `__init__`, the only method that must be fast per instance) and the
other methods are shared closures; importing this module does not import `dataclasses` (nor
`inspect`, which it imports).

What stays the same, so callers need no change: constructor signatures and defaults, frozen
instances (assigning raises `dataclasses.FrozenInstanceError`), `__slots__`, equality and hashing
over the compared fields, reprs, `__match_args__`, pickling, `__post_init__`; and the classes ARE
dataclasses to the standard library: `dataclasses.fields`, `replace`, `asdict` and `is_dataclass`
work, through a `__dataclass_fields__` built on first use. Anything else the standard decorator
takes (order, unsafe_hash, kw_only, InitVar, a field with init=False, a base that is a standard
dataclass) falls back to it. mypy sees the standard library's names (see the TYPE_CHECKING
import), so type checking is exactly a dataclass's."""

from __future__ import annotations

from operator import attrgetter
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from dataclasses import dataclass, field, fields, replace
else:
    __all__ = ["dataclass", "field", "fields", "replace"]

    class _Missing:
        __slots__ = ()

        def __repr__(self) -> str:
            return "MISSING"

    MISSING = _Missing()

    class _FieldSpec:
        """What `field(...)` returns, and each field of a class once collected."""

        __slots__ = ("name", "type", "default", "default_factory", "repr", "hash", "compare")

        def __init__(self, default, default_factory, repr, hash, compare):
            self.name = self.type = None
            self.default, self.default_factory = default, default_factory
            self.repr, self.hash, self.compare = repr, hash, compare

    def field(*, default=MISSING, default_factory=MISSING, repr=True, hash=None, compare=True, **other):
        if other:  # init=False, metadata, kw_only: the standard library's (the class falls back too)
            import dataclasses

            if default is not MISSING:
                other["default"] = default
            if default_factory is not MISSING:
                other["default_factory"] = default_factory
            return dataclasses.field(repr=repr, hash=hash, compare=compare, **other)
        return _FieldSpec(default, default_factory, repr, hash, compare)

    _SPECS = "__light_dataclass_fields__"  # each class's tuple of _FieldSpec, its bases' first

    def dataclass(cls=None, /, *, init=True, repr=True, eq=True, frozen=False, slots=False, **other):
        def wrap(cls):
            if other or not init:
                return _standard(cls, init=init, repr=repr, eq=eq, frozen=frozen, slots=slots, **other)
            specs = _collect(cls)
            if specs is None:
                return _standard(cls, repr=repr, eq=eq, frozen=frozen, slots=slots)
            return _build(cls, specs, repr, eq, frozen, slots)

        return wrap if cls is None else wrap(cls)

    def fields(class_or_instance):
        import dataclasses

        return dataclasses.fields(class_or_instance)

    def replace(obj, /, **changes):
        """`dataclasses.replace`, without looking up Field objects for a light dataclass."""
        specs = getattr(type(obj), _SPECS, None)
        if specs is None:
            import dataclasses

            return dataclasses.replace(obj, **changes)
        for spec in specs:
            if spec.name not in changes:
                changes[spec.name] = getattr(obj, spec.name)
        return obj.__class__(**changes)

    def _standard(cls, **options):
        import dataclasses

        # A class written for this module may hold our field specs: the standard decorator's own.
        for name, value in list(vars(cls).items()):
            if isinstance(value, _FieldSpec):
                setattr(cls, name, _as_field(dataclasses, value))
        return dataclasses.dataclass(cls, **options)

    def _collect(cls):
        """The fields, inherited ones first; None where only the standard decorator will do."""
        inherited: dict[str, _FieldSpec] = {}
        for base in reversed(cls.__mro__[1:]):
            if "__dataclass_fields__" in vars(base) and _SPECS not in vars(base):
                return None  # a standard dataclass base
            for spec in vars(base).get(_SPECS, ()):
                inherited[spec.name] = spec
        own = {}
        for name, annotation in vars(cls).get("__annotations__", {}).items():
            text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", "")
            if text.startswith(("ClassVar", "typing.ClassVar", "InitVar", "dataclasses.InitVar", "KW_ONLY")):
                return None
            value = vars(cls).get(name, MISSING)
            if isinstance(value, _FieldSpec):
                spec = value
            elif type(value).__name__ == "Field":  # dataclasses.field(init=False, ...)
                return None
            else:
                spec = _FieldSpec(value, MISSING, True, None, True)
            spec.name, spec.type = name, annotation
            own[name] = spec
        inherited.update(own)
        return tuple(inherited.values())

    def _build(cls, specs, with_repr, eq, frozen, slots):
        names = tuple(spec.name for spec in specs)
        own = {spec.name for spec in specs if spec.name in vars(cls).get("__annotations__", {})}
        if slots and "__slots__" not in vars(cls):
            namespace = dict(vars(cls))
            inherited_slots = {s for base in cls.__mro__[1:] for s in vars(base).get("__slots__", ())}
            namespace["__slots__"] = tuple(name for name in names if name not in inherited_slots)
            for name in own:
                namespace.pop(name, None)  # a default lives in __init__, not where the slot is
            namespace.pop("__dict__", None)
            namespace.pop("__weakref__", None)
            qualname = cls.__qualname__
            cls = type(cls)(cls.__name__, cls.__bases__, namespace)
            cls.__qualname__ = qualname
        else:
            for name in own:  # a field() spec in the class body is no class attribute
                if isinstance(vars(cls).get(name), _FieldSpec):
                    spec = next(s for s in specs if s.name == name)
                    if spec.default is MISSING:
                        delattr(cls, name)
                    else:
                        setattr(cls, name, spec.default)
        setattr(cls, _SPECS, specs)
        cls.__dataclass_fields__ = _StandardFields(specs)
        # What the standard decorator reads from a dataclass base (a standard subclass of ours works).
        cls.__dataclass_params__ = _Params(
            init=True, repr=with_repr, eq=eq, order=False, unsafe_hash=False, frozen=frozen
        )
        _define(cls, "__init__", _init(cls, specs, frozen))
        if with_repr:
            _define(cls, "__repr__", _repr(tuple(s.name for s in specs if s.repr)))
        compared = tuple(s.name for s in specs if s.compare)
        explicit_hash = "__hash__" in vars(cls) and not (vars(cls)["__hash__"] is None and "__eq__" in vars(cls))
        if eq:
            _define(cls, "__eq__", _eq(_getter(compared)))
            if not explicit_hash:
                if frozen:
                    hashed = tuple(s.name for s in specs if (s.compare if s.hash is None else s.hash))
                    cls.__hash__ = _hash(_getter(hashed))
                else:
                    cls.__hash__ = None
        if frozen:
            _define(cls, "__setattr__", _frozen_setattr(cls, frozenset(names)))
            _define(cls, "__delattr__", _frozen_delattr(cls, frozenset(names)))
        if slots:
            own_pickling = any(name in vars(cls) for name in ("__getstate__", "__reduce__", "__reduce_ex__"))
            _define(cls, "__getstate__", _getstate(_getter(names)))
            _define(cls, "__setstate__", _setstate(cls, names))
            if not own_pickling:
                _define(cls, "__reduce_ex__", _reduce_ex(cls, names))
        if "__match_args__" not in vars(cls):
            cls.__match_args__ = names
        if cls.__doc__ is None:
            cls.__doc__ = f"{cls.__name__}({', '.join(names)})"
        return cls

    def _define(cls, name, function) -> None:
        if name not in vars(cls):  # the class's own method wins, as with the standard decorator
            function.__qualname__ = f"{cls.__qualname__}.{name}"
            setattr(cls, name, function)

    def _init(cls, specs, frozen):
        """One exec a class: an __init__ as fast per instance as the standard one."""
        namespace: dict[str, Any] = {"_FACTORY": _FACTORY}
        parameters, body = [], []
        for index, spec in enumerate(specs):
            name = spec.name
            if spec.default_factory is not MISSING:
                namespace[f"_factory{index}"] = spec.default_factory
                parameters.append(f"{name}=_FACTORY")
                value = f"_factory{index}() if {name} is _FACTORY else {name}"
            else:
                if spec.default is not MISSING:
                    namespace[f"_default{index}"] = spec.default
                    parameters.append(f"{name}=_default{index}")
                elif parameters and "=" in parameters[-1]:  # as the standard decorator says it
                    raise TypeError(f"non-default argument {name!r} follows default argument")
                else:
                    parameters.append(name)
                value = name
            body.append(f"_set{index}(self, {value})" if frozen else f"self.{name} = {value}")
        if hasattr(cls, "__post_init__"):
            body.append("self.__post_init__()")
        source = f"def __init__(self, {', '.join(parameters)}):\n    " + ("\n    ".join(body) or "pass") + "\n"
        # A frozen class's fields are set through their slots' own setters (`_set0`...): a third
        # cheaper than object.__setattr__, and events are made on every step.
        setters = [spec.name for spec in specs] if frozen else []
        return _made_on_first_use(cls, "__init__", lambda: _compiled_init(cls, source, namespace, setters))

    def _compiled_init(cls, source, namespace, setters):
        for index, name in enumerate(setters):
            namespace[f"_set{index}"] = _field_setter(cls, name)
        exec(source, namespace)
        return namespace["__init__"]

    def _made_on_first_use(cls, name, make):
        """A method that makes the real one (`make()`: an exec) the first time it is called, puts
        it in its place on `cls` and calls it. The exec is most of a class's cost, and start-up
        creates many classes a run never instantiates (events of steps it has none of), pickles
        or unpickles. The real __init__ checks the arguments of this first call too."""

        def placeholder(self, *args, **kwargs):
            real = make()
            real.__qualname__ = placeholder.__qualname__
            if vars(cls).get(name) is placeholder:
                type.__setattr__(cls, name, real)
            return real(self, *args, **kwargs)

        return placeholder

    def _field_setter(cls, name):
        """(instance, value) -> None for a field: its slot's C setter, or object.__setattr__ for a
        field without one."""
        slot = getattr(cls, name, None)
        if type(slot).__name__ == "member_descriptor":
            return slot.__set__
        return lambda instance, value: object.__setattr__(instance, name, value)

    class _Factory:
        __slots__ = ()

        def __repr__(self) -> str:
            return "<factory>"

    _FACTORY = _Factory()

    def _getter(names) -> Callable[[Any], tuple]:
        if len(names) >= 2:
            return attrgetter(*names)
        if len(names) == 1:
            one = attrgetter(names[0])
            return lambda obj: (one(obj),)
        return lambda obj: ()

    def _repr(names):
        def __repr__(self) -> str:
            parts = ", ".join(f"{name}={getattr(self, name)!r}" for name in names)
            return f"{type(self).__qualname__}({parts})"

        return __repr__

    def _eq(values):
        def __eq__(self, other):
            if other.__class__ is self.__class__:
                return values(self) == values(other)
            return NotImplemented

        return __eq__

    def _hash(values):
        def __hash__(self) -> int:
            return hash(values(self))

        return __hash__

    def _frozen_setattr(cls, names):
        def __setattr__(self, name, value):
            if type(self) is cls or name in names:
                from dataclasses import FrozenInstanceError

                raise FrozenInstanceError(f"cannot assign to field {name!r}")
            super(cls, self).__setattr__(name, value)

        return __setattr__

    def _frozen_delattr(cls, names):
        def __delattr__(self, name):
            if type(self) is cls or name in names:
                from dataclasses import FrozenInstanceError

                raise FrozenInstanceError(f"cannot delete field {name!r}")
            super(cls, self).__delattr__(name)

        return __delattr__

    def _getstate(values):
        def __getstate__(self):
            return values(self)

        return __getstate__

    def _setstate(cls, names):
        """Unpickling calls this once an instance (a cached syntax tree: ~10,000 of them): made on
        first use, each field stored through its slot's own setter, unrolled: ~2x faster than a
        loop of object.__setattr__."""
        return _made_on_first_use(cls, "__setstate__", lambda: _fast_setstate(cls, names))

    def _reduce_ex(cls, names):
        """What pickling (and `copy`) calls once an instance, made on first use: it hands pickle
        the fields directly; the same pickle as `object.__reduce_ex__` with `__getstate__`
        (NEWOBJ, then the fields' tuple for `__setstate__`), ~1.7x faster. A subclass, and
        protocols 0 and 1, take object's."""
        return _made_on_first_use(cls, "__reduce_ex__", lambda: _fast_reduce_ex(cls, names))

    def _fast_reduce_ex(cls, names):
        from copyreg import __newobj__

        namespace: dict[str, Any] = {"_newobj": __newobj__, "_cls": cls, "_object_reduce_ex": object.__reduce_ex__}
        fields = "".join(f"self.{name}, " for name in names)
        source = (
            "def __reduce_ex__(self, protocol):\n"
            "    if protocol < 2 or self.__class__ is not _cls:\n"
            "        return _object_reduce_ex(self, protocol)\n"
            f"    return (_newobj, (_cls,), ({fields}))\n"
        )
        exec(source, namespace)
        return namespace["__reduce_ex__"]

    def _fast_setstate(cls, names):
        namespace = {f"_set{index}": _field_setter(cls, name) for index, name in enumerate(names)}
        body = [f"_set{index}(self, state[{index}])" for index in range(len(names))]
        source = "def __setstate__(self, state):\n    " + ("\n    ".join(body) or "pass") + "\n"
        exec(source, namespace)
        return namespace["__setstate__"]

    def _as_field(dataclasses, spec):
        default = dataclasses.MISSING if spec.default is MISSING else spec.default
        factory = dataclasses.MISSING if spec.default_factory is MISSING else spec.default_factory
        return dataclasses.field(
            default=default, default_factory=factory, repr=spec.repr, hash=spec.hash, compare=spec.compare
        )

    class _Params:
        """The parameters a dataclass was made with, as `__dataclass_params__` holds them."""

        def __init__(self, **options) -> None:
            self.__dict__.update(options)

    class _StandardFields:
        """`__dataclass_fields__`, built on first use: `dataclasses.fields()` and its kin read it
        (from the class or an instance); most runs never ask, and never import dataclasses."""

        def __init__(self, specs) -> None:
            self.specs = specs
            self.built = None

        def __get__(self, instance, owner):
            if self.built is None:
                import dataclasses

                built = {}
                for spec in self.specs:
                    made = _as_field(dataclasses, spec)
                    made.name, made.type = spec.name, spec.type
                    made._field_type = dataclasses._FIELD  # what fields() and replace() look for
                    made.kw_only = False  # as the standard decorator resolves it (field() leaves MISSING)
                    built[spec.name] = made
                self.built = built
            return self.built
