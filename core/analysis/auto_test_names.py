"""`check`'s warning for an auto test unit (docs/spec/berrycrush.md#auto-tests) whose `if` or `assert` reads a
`test.*` or `multiTest.*` name that its call's `auto:` kinds never set: `multiTest.count` under
`auto: [invalid]` (unless a multi test ran earlier in the block: its `multiTest.*` stay set),
`test.type` under a call with no `auto:`, a misspelt `test.feild`. At run time such a read is an
undefined variable."""

from __future__ import annotations

from typing import Iterable

from scenario_core.analysis.model import UNSET_AUTO_TEST_NAME
from scenario_core.language.errors import WARNING, Diagnostic
from scenario_core.language.nodes.assertions import Assertion, VariableAssertion
from scenario_core.language.nodes.base import VariableRef
from scenario_core.language.nodes.blocks import ScenarioFileNode
from scenario_core.language.nodes.steps import AssertStep, ConditionalStep, DescribedStep, RequestStep, Step
from scenario_core.language.nodes.walk import leaf_conditions, step_blocks, walk_steps

# What each kind sets for every generated request (run/auto_tests.py): every kind sets test.*,
# multi also multiTest.*.
_TEST = {f"test.{k}" for k in ("type", "testType", "field", "description", "value", "location")}
_MULTI = {f"multiTest.{k}" for k in ("mode", "count", "result", "duration")}


def _set_by(kinds: Iterable[str]) -> set[str]:
    kinds = set(kinds)
    return (_TEST if kinds else set()) | (_MULTI if "multi" in kinds else set())


def _read(condition: Assertion) -> list[VariableRef]:
    return [
        node.ref
        for node in leaf_conditions(condition)
        if isinstance(node, VariableAssertion) and node.ref.name.startswith(("test.", "multiTest."))
    ]


def _checks(steps: Iterable[Step]) -> Iterable[Assertion]:
    """The conditions of a unit's assert and if directives, nested ifs included."""
    for step in steps:
        if isinstance(step, AssertStep):
            yield step.assertion
        elif isinstance(step, ConditionalStep):
            for branch in step.branches:
                if branch.condition is not None:
                    yield branch.condition
                yield from _checks(branch.steps)


def unset_auto_test_names(file: ScenarioFileNode) -> list[Diagnostic]:
    found: list[Diagnostic] = []
    for steps in step_blocks(file):
        # multiTest.* stay set after a multi test, for the steps after it (run/auto_tests.py)
        multi_before = False
        for unit in walk_steps(steps):
            if not isinstance(unit, DescribedStep):
                continue
            kinds: tuple[str, ...] | None = None  # None: no call yet in this unit
            multi_here = multi_before
            for step in unit.steps:
                if isinstance(step, RequestStep):
                    kinds = step.auto
                    multi_before = multi_before or "multi" in kinds
                    continue
                if kinds is None:
                    continue
                allowed = _set_by(kinds) | (_MULTI if multi_here else set())
                for condition in _checks((step,)):
                    for ref in _read(condition):
                        if ref.name not in allowed:
                            given = f"auto: [{' '.join(kinds)}]" if kinds else "no auto:"
                            found.append(
                                Diagnostic(
                                    ref.location,
                                    f"'{ref.name}' is never set here: the call has {given}, which sets "
                                    + (", ".join(sorted(allowed)) if allowed else "no test.* names"),
                                    WARNING,
                                    UNSET_AUTO_TEST_NAME,
                                )
                            )
    return found
