"""The TUI survives every kind of step the language has, in both dialects: a file holding one of
each (requests by path and by operation, `call ^op`, `call raw`, `call using NAME raw`, then/assert,
extract in both forms, include in both forms, if / else if / else, fail, webhook, a custom step, a
`finally:` block, an outline, a step that cannot be read) is walked with the cursor before it
runs, stepped through with `n` to the end, walked again after, opened in the history and in the
JSON playground. Nothing may raise: Pilot re-raises any exception the app meets."""

from __future__ import annotations

from pathlib import Path

from scenario_core.run.stepper import FINISHED
from scenario_tui.widgets.json_playground import JsonPlayground

SIZE = (120, 40)
DEMO = Path(__file__).resolve().parents[2] / "core" / "demo"

EVERY_KIND = f"""\
parameters:
  openapi: {DEMO / "petstore.yaml"}
  binding.auth.location: {DEMO / "auth.yaml"}

fragment: login
  when: POST /login
    body: {{"username": "demo", "password": "demo"}}
  then: status 200
  extract: token from $.token

fragment: health
  when I check health
    call raw GET /health
    assert status 200

scenario: our dialect
  include: login
  when: GET /health
    headers:
      X-Trace: t
    query:
      verbose: false
  then: status 200
  then: $.status == "ok"
  extract: state from $.status
  extract: kind from header Content-Type
  when: ^listPets
  then: status 2xx

scenario: berrycrush dialect
  given a callback server
    webhook: events
      hook: created
      port: 0
  when I call raw
    call raw GET /health
    call using local raw GET /health
    assert status 200
    extract $.status => state
  when I call an operation
    call ^listPets
    assert status 200
  then it branches
    if status 200
      assert status 200
    else if status 404
      fail "not found"
    else
      fail "unexpected"
  and it includes
    include health
  finally: clean up
    call raw GET /health

scenario: a custom step
  when a custom step nobody registered runs

outline: a row per tag
  when I list {{{{tag}}}} pets
    call using local raw GET /health
  examples:
    | tag |
    | dog |

scenario: cannot be read
  when: GET /health
  then: $.[[[ == 1
"""


async def walk_the_tree(pilot, ui, app) -> list[str]:
    """Expand everything and put the cursor on every node; the inspector's first line of each."""
    tree = app.file_tree
    count = -1
    while count != len(tree._tree_lines):  # children are made as their node opens: until none is new
        count = len(tree._tree_lines)
        for line in list(tree._tree_lines):
            if line.node.allow_expand and not line.node.is_expanded:
                line.node.expand()
        await ui.settle(pilot)
    seen = []
    for index in range(len(tree._tree_lines)):
        tree.move_cursor(tree._tree_lines[index].node)
        await pilot.pause()  # the inspector follows the cursor by message: no worker to wait for
        seen.append(" | ".join(app.inspector.text.splitlines()[:2]))
    return seen


async def test_the_tui_survives_every_step_kind_of_both_dialects(scenario_file, make_app, ui, demo):
    path = scenario_file(EVERY_KIND)
    app = make_app(path, params=[f"binding.local.baseUrl={demo.url}"])
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        before = await walk_the_tree(pilot, ui, app)
        assert any("call line" in line and "raw GET /health" in line for line in before), "\n".join(before)
        for _ in range(200):  # n, step by step, to the end
            if app.stepper.state == FINISHED:
                break
            await ui.press(pilot, "n")
        assert app.stepper.state == FINISHED
        after = await walk_the_tree(pilot, ui, app)
        assert len(after) == len(before)
        raw = next(i for i, line in enumerate(after) if "call line 36" in line)
        app.file_tree.move_cursor(app.file_tree._tree_lines[raw].node)
        await ui.settle(pilot)
        assert "GET http://" in app.inspector.text and "── response" in app.inspector.text, app.inspector.text
        await ui.press(pilot, "h")  # the history: every step run, each shown as it was
        history = app.query_one("#history")
        for _ in range(len(history.lines)):
            await ui.press(pilot, "up")
        await ui.press(pilot, "l")
        app.file_tree.move_cursor(app.file_tree._tree_lines[raw].node)
        await ui.press(pilot, "j")  # the playground on the raw call's response
        assert isinstance(app.screen, JsonPlayground)
        await ui.press(pilot, "escape")
        assert not isinstance(app.screen, JsonPlayground)
