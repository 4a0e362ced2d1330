"""The syntax tree's classes are the standard library's frozen, slotted dataclasses, and the parse
cache pickles trees: every example's tree comes back equal through every pickle protocol, and
stays frozen (on Python 3.10 too, where a frozen slotted dataclass pickles through the
`__getstate__` / `__setstate__` the decorator adds)."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from pathlib import Path

import pytest

from scenario_core.language.nodes.base import SourceLocation
from scenario_core.language.nodes.blocks import ScenarioFileNode
from scenario_core.language.nodes.walk import step_blocks, walk_steps
from scenario_core.language.parser import load_file
from scenario_core.support import light_dataclasses

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
FILES = sorted(p for p in EXAMPLES.rglob("*.scenario") if "_fails-on-purpose" not in p.parts)


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(EXAMPLES)))
@pytest.mark.parametrize("protocol", [2, pickle.HIGHEST_PROTOCOL])
def test_every_example_tree_pickles_back_equal(path, protocol):
    tree = load_file(path)
    again = pickle.loads(pickle.dumps(tree, protocol=protocol))
    assert isinstance(again, ScenarioFileNode)
    assert again == tree
    assert [s.location for b in step_blocks(again) for s in walk_steps(b)] == [
        s.location for b in step_blocks(tree) for s in walk_steps(b)
    ]


def test_a_node_is_a_standard_frozen_slotted_dataclass_after_a_round_trip():
    location = SourceLocation("a.scenario", 1, 2, 1, 5)
    for again in (pickle.loads(pickle.dumps(location)), copy.copy(location), copy.deepcopy(location)):
        assert again == location and hash(again) == hash(location)
        assert dataclasses.is_dataclass(again) and not hasattr(again, "__dict__")
        with pytest.raises(dataclasses.FrozenInstanceError):
            again.line = 3  # type: ignore[misc]
    assert dataclasses.replace(location, line=7).line == 7


def test_the_transitional_alias_is_the_standard_library():
    assert light_dataclasses.dataclass is dataclasses.dataclass
    assert light_dataclasses.field is dataclasses.field
    assert light_dataclasses.replace is dataclasses.replace
    assert light_dataclasses.fields is dataclasses.fields
