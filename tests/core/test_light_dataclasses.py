"""support.light_dataclasses: classes cheap to create (issue 22) that behave as the standard
library's dataclasses do, to callers and to `dataclasses` itself."""

from __future__ import annotations

import dataclasses
import pickle

import pytest

from scenario_core.support.light_dataclasses import dataclass, field, replace


class Base:
    __slots__ = ()


@dataclass(frozen=True, slots=True)
class Point(Base):
    x: int
    y: int
    label: str = "p"
    tags: list = field(default_factory=list, compare=False, repr=False)


@dataclass
class Mutable:
    name: str
    items: list = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Labelled(Point):
    note: str = ""


@dataclass(slots=True)
class Unfrozen:
    name: str
    count: int = 0


@dataclass(frozen=True, slots=True)
class OwnState:
    value: int
    restored_by_its_own_setstate: bool = False

    def __setstate__(self, state) -> None:
        object.__setattr__(self, "value", state[0])
        object.__setattr__(self, "restored_by_its_own_setstate", True)


@dataclass(frozen=True, slots=True)
class OwnGetstate:
    value: int

    def __getstate__(self):
        return (self.value + 1,)


def test_light_dataclass_constructs_with_defaults_and_factories():
    first, second = Point(1, 2), Point(1, 2)
    assert (first.x, first.y, first.label, first.tags) == (1, 2, "p", [])
    assert first.tags is not second.tags  # a fresh list each time, as default_factory gives
    assert Point(1, y=2, label="q").label == "q"
    with pytest.raises(TypeError):
        Point(1)  # type: ignore[call-arg]


def test_light_dataclass_is_frozen_and_slotted():
    point = Point(1, 2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        point.x = 3  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        del point.x  # type: ignore[misc]
    assert not hasattr(point, "__dict__")
    assert Point.__slots__ == ("x", "y", "label", "tags")


def test_light_dataclass_compares_and_hashes_the_compared_fields():
    assert Point(1, 2, tags=[1]) == Point(1, 2, tags=[2])  # tags: compare=False
    assert Point(1, 2) != Point(1, 3)
    assert hash(Point(1, 2, tags=[1])) == hash(Point(1, 2))
    assert Mutable("a") == Mutable("a")
    assert Mutable.__hash__ is None  # mutable and compared: unhashable, as the standard one
    assert Point(1, 2).__eq__(object()) is NotImplemented


def test_light_dataclass_repr_leaves_out_repr_false_fields():
    assert repr(Point(1, 2)) == "Point(x=1, y=2, label='p')"
    assert repr(Mutable("a")) == "Mutable(name='a', items=[])"


def test_light_dataclass_is_a_dataclass_to_the_standard_library():
    assert dataclasses.is_dataclass(Point) and dataclasses.is_dataclass(Point(1, 2))
    assert [f.name for f in dataclasses.fields(Point)] == ["x", "y", "label", "tags"]
    assert dataclasses.replace(Point(1, 2), y=5) == Point(1, 5)
    assert dataclasses.asdict(Mutable("a", [1])) == {"name": "a", "items": [1]}
    assert replace(Point(1, 2, "q"), x=7) == Point(7, 2, "q")
    assert Point.__match_args__ == ("x", "y", "label", "tags")


def test_light_dataclass_pickles():
    point = Point(1, 2, "q", [3])
    copy = pickle.loads(pickle.dumps(point))
    assert copy == point and copy.tags == [3]


def test_light_dataclass_unpickles_through_a_setstate_made_for_its_class():
    first = pickle.dumps([Point(1, 2, "q", [3]), Point(4, 5)])
    assert pickle.loads(first) == [Point(1, 2, "q"), Point(4, 5)]
    setstate = vars(Point)["__setstate__"]
    assert setstate.__qualname__ == "Point.__setstate__" and setstate.__code__.co_filename == "<string>"
    copy = pickle.loads(first)[0]  # the per-class one, made on first use
    assert vars(Point)["__setstate__"] is setstate and copy.tags == [3] and copy.label == "q"
    with pytest.raises(dataclasses.FrozenInstanceError):
        copy.x = 9  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        Point(1, 2).__setattr__("x", 9)


def test_light_dataclass_unpickles_a_subclass_and_a_plain_slotted_subclass():
    labelled = Labelled(1, 2, note="n")
    assert pickle.loads(pickle.dumps(labelled)) == labelled
    assert pickle.loads(pickle.dumps(labelled)).note == "n"
    assert pickle.loads(pickle.dumps(Unfrozen("a", 2))) == Unfrozen("a", 2)


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_light_dataclass_pickles_with_every_protocol_and_copies(protocol):
    import copy

    point = Point(1, 2, "q", [3])
    for restored in (pickle.loads(pickle.dumps(point, protocol)), copy.copy(point), copy.deepcopy(point)):
        assert restored == point and restored.tags == [3] and type(restored) is Point
    assert copy.copy(point).tags is point.tags and copy.deepcopy(point).tags is not point.tags


def test_light_dataclass_pickles_through_the_class_own_getstate():
    assert pickle.loads(pickle.dumps(OwnGetstate(1))).value == 2


def test_light_dataclass_unpickling_keeps_the_class_own_setstate():
    restored = pickle.loads(pickle.dumps(OwnState(1)))
    assert restored.value == 1 and restored.restored_by_its_own_setstate


def test_light_dataclass_keeps_the_class_own_methods_and_post_init():
    @dataclass(frozen=True, slots=True, repr=False)
    class Named:
        name: str

        def __repr__(self) -> str:
            return f"<{self.name}>"

    @dataclass
    class Checked:
        value: int

        def __post_init__(self) -> None:
            self.value *= 2

    assert repr(Named("n")) == "<n>"
    assert Checked(2).value == 4


def test_light_dataclass_inherits_fields_of_a_light_base():
    @dataclass(frozen=True, slots=True)
    class Labelled(Point):
        note: str = ""

    labelled = Labelled(1, 2, note="n")
    assert (labelled.x, labelled.label, labelled.note) == (1, "p", "n")
    assert [f.name for f in dataclasses.fields(labelled)] == ["x", "y", "label", "tags", "note"]


def test_light_dataclass_falls_back_to_the_standard_one_for_what_it_does_not_do():
    @dataclass(order=True)
    class Ordered:
        rank: int
        hidden: int = field(default=0, init=False)

    assert Ordered(1) < Ordered(2)
    assert Ordered(1).hidden == 0


def test_light_dataclass_refuses_a_field_without_default_after_one_with():
    with pytest.raises(TypeError, match="non-default argument 'y' follows default argument"):

        @dataclass(frozen=True, slots=True)
        class Wrong:
            x: int = 0
            y: int  # type: ignore[misc]


def test_a_standard_dataclass_may_subclass_a_light_one():
    import dataclasses

    from scenario_core.support.light_dataclasses import dataclass as light

    @light(frozen=True, slots=True)
    class Base:
        a: int

    @dataclasses.dataclass(frozen=True)
    class Child(Base):
        b: int = 2

    child = Child(1)
    assert (child.a, child.b) == (1, 2) and [f.name for f in dataclasses.fields(child)] == ["a", "b"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        child.b = 3  # type: ignore[misc]
