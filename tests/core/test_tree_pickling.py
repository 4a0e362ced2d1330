"""The syntax tree's classes are frozen, slotted records (core/support/records.py), and the parse
cache pickles trees: every example's tree comes back equal through every pickle protocol, and
stays frozen (a record pickles as its class and its fields' values)."""

from __future__ import annotations

import copy
import pickle
from pathlib import Path

import pytest

from scenario_core.language.nodes.base import SourceLocation
from scenario_core.language.nodes.blocks import ScenarioFileNode
from scenario_core.language.nodes.walk import step_blocks, walk_steps
from scenario_core.language.parser import load_file
from scenario_core.support.records import FrozenInstanceError, fields, replace

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


def test_a_node_is_a_frozen_slotted_record_after_a_round_trip():
    location = SourceLocation("a.scenario", 1, 2, 1, 5)
    for again in (pickle.loads(pickle.dumps(location)), copy.copy(location), copy.deepcopy(location)):
        assert again == location and hash(again) == hash(location)
        assert [f.name for f in fields(again)] == ["file", "line", "column", "end_line", "end_column"]
        assert not hasattr(again, "__dict__")
        with pytest.raises(FrozenInstanceError):
            again.line = 3  # type: ignore[misc]
    assert replace(location, line=7).line == 7
