"""core/support/records.py: `@dataclass` for core's classes without `exec` or the `dataclasses`
module, behaving as the standard decorator does for every option the project uses."""

from __future__ import annotations

import copy
import dataclasses
import pickle
import subprocess
import sys

import pytest

from scenario_core.support import records
from scenario_core.support.records import FrozenInstanceError, dataclass, field, fields, replace


@dataclass(frozen=True, slots=True)
class Base:
    a: int
    b: str = "x"


@dataclass(frozen=True, slots=True)
class Sub(Base):
    c: list[int] = field(default_factory=list, compare=False)
    d: str = field(default="d", repr=False)


@dataclass(eq=False)
class Mutable:
    x: int
    y: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class FrozenWithDict:
    x: int
    y: tuple[int, ...] = ()


@dataclass(slots=True)
class Slotted:
    x: int


# The same classes made by the standard library, to compare behaviour with.
@dataclasses.dataclass(frozen=True, slots=True)
class StdBase:
    a: int
    b: str = "x"


@dataclasses.dataclass(frozen=True, slots=True)
class StdSub(StdBase):
    c: list[int] = dataclasses.field(default_factory=list, compare=False)
    d: str = dataclasses.field(default="d", repr=False)


def test_records_construct_as_the_standard_dataclass_does():
    for args, kwargs in [((1,), {}), ((1, "y"), {}), ((), {"a": 2, "c": [3]}), ((1,), {"d": "e", "b": "z"})]:
        ours, theirs = Sub(*args, **kwargs), StdSub(*args, **kwargs)
        assert [getattr(ours, f.name) for f in fields(ours)] == [
            getattr(theirs, f.name) for f in dataclasses.fields(theirs)
        ]
        assert repr(ours).replace("Sub", "StdSub", 1) == repr(theirs)
    assert Sub.__match_args__ == StdSub.__match_args__ == ("a", "b", "c", "d")


@pytest.mark.parametrize(
    "make",
    [lambda cls: cls(), lambda cls: cls(1, z=2), lambda cls: cls(1, a=2), lambda cls: cls(1, "b", [], "d", 5)],
    ids=["missing", "unexpected", "twice", "too many"],
)
def test_a_wrong_call_is_a_type_error_as_for_the_standard_dataclass(make):
    with pytest.raises(TypeError):
        make(StdSub)
    with pytest.raises(TypeError):
        make(Sub)


def test_equality_and_hashing_follow_the_compared_fields():
    assert Sub(1, c=[1]) == Sub(1, c=[2])  # c is not compared
    assert hash(Sub(1, c=[1])) == hash(Sub(1, c=[2]))
    assert Sub(1) != Sub(2) and Sub(1) != Base(1)
    one = Base(float("nan"))  # type: ignore[arg-type]
    # one NaN object in both: compared as tuples are (identity first), as the standard dataclass does
    assert one == Base(one.a) and StdBase(one.a) == StdBase(one.a)
    assert Mutable(1) != Mutable(1)  # eq=False: identity
    with pytest.raises(TypeError):
        hash(Slotted(1))  # eq without frozen: unhashable, as the standard decorator makes it


def test_frozen_records_refuse_assignment_and_deletion():
    for record in (Sub(1), FrozenWithDict(1)):
        with pytest.raises(FrozenInstanceError):
            record.x = 2  # type: ignore[misc, attr-defined]
        with pytest.raises(AttributeError):
            del record.b  # type: ignore[attr-defined]
    mutable = Mutable(1)
    mutable.x = 5
    assert mutable.x == 5 and mutable.y == {}


def test_slotted_records_have_no_instance_dict():
    assert not hasattr(Sub(1), "__dict__") and Sub.__slots__ == ("c", "d") and Base.__slots__ == ("a", "b")
    assert hasattr(FrozenWithDict(1), "__dict__")


def test_records_pickle_copy_and_replace():
    record = Sub(1, "y", [3], "e")
    for protocol in range(2, pickle.HIGHEST_PROTOCOL + 1):
        again = pickle.loads(pickle.dumps(record, protocol=protocol))
        assert again == record and again.c == [3] and again.d == "e"
    assert copy.copy(record) == record and copy.deepcopy(record).c == [3]
    assert replace(record, a=7) == Sub(7, "y", [3], "e")
    assert pickle.loads(pickle.dumps(FrozenWithDict(1, (2,)))) == FrozenWithDict(1, (2,))


def test_a_default_factory_makes_a_new_value_for_each_record():
    first, second = Mutable(1), Mutable(2)
    first.y["k"] = 1
    assert second.y == {}


def test_what_records_cannot_do_is_refused_when_the_class_is_made():
    with pytest.raises(TypeError):

        @dataclass
        class Post:
            x: int

            def __post_init__(self) -> None: ...

    with pytest.raises(TypeError):

        @dataclass
        class Order:
            x: int = 0
            y: int  # type: ignore[misc]


def test_records_never_import_dataclasses_nor_inspect():
    code = (
        "import sys; import scenario_core.support.records as r; import scenario_core.run.events;"
        "import scenario_core.language.nodes.steps;"
        "print(sorted(m for m in ('dataclasses', 'inspect') if m in sys.modules))"
    )
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert shown.strip() == "[]"
    assert "exec(" not in open(records.__file__, encoding="utf-8").read()


@dataclass(frozen=True, slots=True, kw_only=True)
class Named:
    a: int
    b: str = "x"
    c: int


def test_kw_only_records_take_keywords_only_as_the_standard_decorator_does():
    @dataclasses.dataclass(frozen=True, kw_only=True)
    class Standard:
        a: int
        b: str = "x"
        c: int

    for cls in (Named, Standard):
        assert cls(a=1, c=2) == cls(c=2, a=1, b="x")
        assert cls(a=1, b="y", c=2).b == "y"
        with pytest.raises(TypeError):
            cls(1, c=2)
        with pytest.raises(TypeError):
            cls(a=1)
        with pytest.raises(TypeError):
            cls(a=1, c=2, d=3)
        assert cls.__match_args__ == ()
    assert replace(Named(a=1, c=2), b="z") == Named(a=1, b="z", c=2)
    assert pickle.loads(pickle.dumps(Named(a=1, c=2))) == Named(a=1, c=2)


def test_every_field_by_keyword_equals_every_field_by_position():
    assert Sub(a=1, b="y", c=[2], d="e") == Sub(1, "y", [2], "e")
    with pytest.raises(TypeError, match="unexpected keyword argument 'z'"):
        Sub(a=1, b="y", c=[2], z="e")


@dataclass(frozen=True, kw_only=True)
class NamedWithDict:  # the events' kind: frozen, keyword-only, no slots
    a: int
    b: str = "x"
    c: list[int] = field(default_factory=list)


@dataclasses.dataclass(frozen=True)
class StdFrozenWithDict:
    x: int
    y: tuple[int, ...] = ()


@dataclasses.dataclass(frozen=True, kw_only=True)
class StdNamedWithDict:
    a: int
    b: str = "x"
    c: list[int] = dataclasses.field(default_factory=list)


CALLS = [
    ((), {}),
    ((1,), {}),
    ((1, "y"), {}),
    ((1,), {"b": "z"}),
    ((1,), {"a": 2}),
    ((1, "y"), {"b": "z"}),
    ((1, "y", [3], "d", 5), {}),
    ((), {"a": 1}),
    ((), {"a": 1, "c": [2]}),
    ((), {"a": 1, "b": "y", "c": [2], "d": "e"}),
    ((), {"b": "y"}),
    ((), {"a": 1, "z": 2}),
    ((1,), {"z": 2}),
    ((), {"x": 1}),
    ((1,), {"y": (2,)}),
    ((), {"x": 1, "y": (2,)}),
]


def binds_as_the_standard_decorator(ours: type, theirs: type, calls: list[tuple[tuple, dict]]) -> None:
    """Each call gives our record the values the standard dataclass gets, or a TypeError where it
    raises one."""
    for args, keywords in calls:
        try:
            made = theirs(*args, **keywords)
        except TypeError:
            with pytest.raises(TypeError):
                ours(*args, **keywords)
            continue
        expected = [getattr(made, f.name) for f in dataclasses.fields(made)]
        made_ours = ours(*args, **keywords)
        assert [getattr(made_ours, f.name) for f in fields(made_ours)] == expected, (args, keywords)


@pytest.mark.parametrize(
    "ours, theirs",
    [(Sub, StdSub), (FrozenWithDict, StdFrozenWithDict), (NamedWithDict, StdNamedWithDict)],
    ids=["slots", "dict", "kw-only-dict"],
)
def test_every_call_shape_binds_or_fails_as_the_standard_dataclass_does(ours, theirs):
    """The fast paths of `__init__` (every field by keyword, defaults merged, the first fields by
    position and the rest by keyword) give what the standard decorator gives, or a TypeError
    where it raises one."""
    binds_as_the_standard_decorator(ours, theirs, CALLS)
    first = ours(**{f.name: 1 for f in fields(ours) if f.name in ("a", "x")})
    second = ours(**{f.name: 1 for f in fields(ours) if f.name in ("a", "x")})
    for each in fields(ours):  # a factory's value is new for each record
        if isinstance(getattr(first, each.name), list):
            assert getattr(first, each.name) is not getattr(second, each.name)


def _wide(decorate, count: int, kw_only: bool) -> type:
    """A frozen slotted class of `count` int fields, the second half defaulted to their index."""
    names = [f"f{i}" for i in range(count)]
    namespace = {"__annotations__": dict.fromkeys(names, "int")}
    namespace.update({name: i for i, name in enumerate(names) if i >= count // 2})
    return decorate(frozen=True, slots=True, kw_only=kw_only)(type(f"Wide{count}", (), namespace))


@pytest.mark.parametrize("count", [0, 1, 5, 12, 13, 18, 19, 25])
@pytest.mark.parametrize("kw_only", [False, True], ids=["positional", "kw-only"])
def test_records_of_any_width_bind_as_the_standard_dataclass_does(count, kw_only):
    """Up to 18 fields a record's `__init__` is a template renamed to its fields (record_inits.py);
    wider ones keep the generic one. Both bind and refuse as the standard decorator does."""
    ours, theirs = _wide(dataclass, count, kw_only), _wide(dataclasses.dataclass, count, kw_only)
    half = count // 2
    calls = [
        ((), {f"f{i}": i * 10 for i in range(half)}),
        ((), {f"f{i}": i * 10 for i in range(count)}),
        (tuple(range(half)), {}),
        (tuple(range(count)), {}),
        (tuple(range(half)), {f"f{count - 1}": -1} if count else {}),
        ((), {"nope": 1}),
        (tuple(range(count + 1)), {}),
    ]
    binds_as_the_standard_decorator(ours, theirs, calls)
    parameters = ours.__init__.__code__.co_varnames[1:]
    if count <= 18:
        assert parameters[:count] == tuple(f"f{i}" for i in range(count))
    else:
        assert parameters[:2] == ("args", "keywords")
