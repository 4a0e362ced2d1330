"""History: `h` lists the step runs in order; ↑/↓ (or a step that ran, in the tree) shows one as it
was right after it ran: its request and response, the variable scopes from its snapshot with what
it changed marked. `l` or Escape returns to the live view."""

from __future__ import annotations

SIZE = (120, 40)


async def test_h_lists_the_step_runs_and_shows_each_as_it_was(pets_file, make_app, ui):
    app = make_app(pets_file)
    async with app.run_test(size=SIZE) as pilot:
        await ui.press(pilot, "c")  # the whole run: petId is cleared when feature Pets ends
        assert "petId" not in app.variables_panel.text
        await ui.press(pilot, "h")
        history = app.query_one("#history")
        assert history.display and not app.scope_log.display
        lines = history.lines
        assert "1 ✓ when line 6 POST /login" in lines[0]
        assert any("when line 17 POST /pets  create pet" in line for line in lines)
        # the latest step run is on view; ↑ goes back through the run
        index = next(i for i, line in enumerate(lines) if "extract line 22" in line)
        for _ in range(len(lines) - 1 - index):
            await pilot.press("up")
        await ui.settle(pilot)
        variables = app.variables_panel.text
        assert "right after line 22" in variables
        assert "* petId  1" in variables  # what that step changed, marked
        assert "Inspector · extract line 22" in app.inspector.text
        assert "history: right after extract line 22 — l: live" in app.status_bar.text
        await pilot.press("up")  # then status 201: its response
        await ui.settle(pilot)
        assert "201" in app.inspector.text and "petId" not in app.variables_panel.text
        # l: the live view again
        await ui.press(pilot, "l")
        assert not history.display and app.scope_log.display
        assert "history" not in app.status_bar.text
        assert "right after" not in app.variables_panel.text and "petId" not in app.variables_panel.text


async def test_a_step_that_ran_chosen_in_the_tree_shows_its_scopes(pets_file, make_app, ui):
    app = make_app(pets_file)
    async with app.run_test(size=SIZE) as pilot:
        await ui.press(pilot, "c", "h")
        app.file_tree.focus()
        await ui.move_to(pilot, "scenario create pet")
        await ui.press(pilot, "space")
        await ui.move_to(pilot, "extract petId")
        await ui.settle(pilot)
        assert "right after line 22" in app.variables_panel.text
        assert "* petId" in app.variables_panel.text
        app.query_one("#history").focus()
        await ui.press(pilot, "escape")
        assert "petId" not in app.variables_panel.text
