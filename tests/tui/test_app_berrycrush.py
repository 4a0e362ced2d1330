"""BerryCrush's dialect in the TUI, as a person steps through it: described steps with their
directives as children, an if chain showing the branch it took and why, an outline's rows as
scenarios, fragments from a .fragment file named with their path. Against the demo API."""

from __future__ import annotations

from pathlib import Path

from scenario_core.run.stepper import FINISHED

SIZE = (140, 42)
DEMO = Path(__file__).resolve().parents[2] / "core" / "demo"

FILE = f"""\
parameters:
  openapi: {DEMO / "petstore.yaml"}
  binding.auth.location: {DEMO / "auth.yaml"}

scenario: read a pet
  given I am signed in
    include sign_in
      user: "demo"
  when I create a pet
    call ^createPet
      header_Authorization: "Bearer {{{{token}}}}"
      body:
        name: "Biscuit"
    extract $.id => petId
  then it can be read back
    call ^getPetById
      id: {{{{petId}}}}
    if status 404
      fail "gone"
    else if status 200
      assert $.name equals "Biscuit"
    else
      fail "unexpected"

outline: list by tag
  when I list {{{{tag}}}} pets
    call ^listPets
      query_tag: "{{{{tag}}}}"
    assert status 200
  examples:
    | tag |
    | dog |
    | cat |
"""

FRAGMENT = """\
fragment: sign_in
  given I sign in as {{user}}
    call using auth ^login
      body: {"username": "{{user}}", "password": "demo"}
    extract $.token => token
"""


def _write(tmp_path: Path) -> Path:
    (tmp_path / "fragments").mkdir()
    (tmp_path / "fragments" / "auth.fragment").write_text(FRAGMENT, encoding="utf-8")
    path = tmp_path / "pets.scenario"
    path.write_text(FILE, encoding="utf-8")
    return path


async def test_described_steps_show_their_directives_and_the_branch_taken(make_app, ui, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    app = make_app(_write(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        lines = ui.tree_lines(app)
        assert any("fragment sign_in (fragments/auth.fragment)" in line for line in lines)
        assert any("scenario list by tag #1 (tag=dog)" in line for line in lines)
        assert any("scenario list by tag #2 (tag=cat)" in line for line in lines)
        await ui.press(pilot, "c")
        assert app.stepper.state == FINISHED
        assert "3 passed" in app.status_bar.text
        await ui.move_to(pilot, "scenario read a pet")
        await ui.press(pilot, "space")
        await ui.move_to(pilot, "then it can be read back")
        await ui.press(pilot, "space")
        lines = ui.tree_lines(app)
        assert "call ^getPetById" in ui.line_with(lines, "^getPetById")
        await ui.move_to(pilot, "if status 404")
        await pilot.pause()
        text = app.query_one("#inspector").text
        assert "in step 'then it can be read back'" in text
        assert "if status 404  did not hold" in text
        assert "▶ else if status 200  held" in text


async def test_an_outline_row_starts_with_its_cells_as_variables(make_app, ui, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    app = make_app(_write(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        await ui.move_to(pilot, "scenario list by tag #2")
        await ui.press(pilot, "b")  # a breakpoint on the row: the run pauses before its first step
        await ui.press(pilot, "c")
        await ui.wait_for(pilot, lambda: "list by tag #2" in app.status_bar.text, "the pause at row 2")
        variables = app.query_one("#variables").text
        assert 'tag  "cat"  string  line 33' in variables  # the row's line
