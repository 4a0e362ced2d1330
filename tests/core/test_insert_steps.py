"""writeback.insert_steps: the steps of a pasted request added after a step found by its place in
the syntax tree, at its indentation (after a directive: after its described step), every other
byte kept, the result parsed back."""

from __future__ import annotations

import pytest

from scenario_core.editor.render import request_lines
from scenario_core.editor.writeback import WriteBackError, insert_steps, locate_step
from scenario_core.importing.model import JsonBody, Request
from scenario_core.language.parser import parse_text

BERRY = """\
feature: F
  scenario: s
    when I create a pet
      call ^createPet
      assert status 201
    then: status 201
"""
PASTE = request_lines(Request("POST", "/pets", (("X-Trace", "1"),), JsonBody({"name": "Rex"}), comment="pasted"))


def _locator(text: str, line: int):
    tree = parse_text(text, "p.scenario")
    steps = tree.items[0].scenarios[0].steps
    found = [s for s in steps if s.location.line == line] + [
        d for s in steps for d in getattr(s, "steps", ()) if d.location.line == line
    ]
    return locate_step([tree], found[0])


def test_after_a_directive_the_steps_go_after_its_described_step_with_crlf_kept():
    text = BERRY.replace("\n", "\r\n")
    edit = insert_steps(text, _locator(text, 4), PASTE)
    assert edit.text == BERRY.replace(
        "      assert status 201\n",
        '      assert status 201\n    # pasted\n    when: POST /pets\n      headers:\n        X-Trace: 1\n      body: {"name": "Rex"}\n',
    ).replace("\n", "\r\n")
    assert (edit.line, edit.written) == (7, "    when: POST /pets")


def test_a_step_gone_from_the_file_is_refused_and_nothing_is_returned():
    locator = _locator(BERRY, 6)
    with pytest.raises(WriteBackError, match="not found"):
        insert_steps(BERRY.replace("    then: status 201\n", ""), locator, PASTE)
