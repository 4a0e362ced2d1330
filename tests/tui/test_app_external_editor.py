"""`e` opens $EDITOR at the highlighted node's line, with the app suspended, then reloads."""

from __future__ import annotations

import os
import stat
import sys

from scenario_tui.app.external_editor import editor_command

SIZE = (120, 40)


def recording_editor(tmp_path, name: str = "vim"):
    """A script named like an editor: records its arguments, and appends a scenario to the file."""
    log = tmp_path / "args.txt"
    script = tmp_path / "bin" / name
    script.parent.mkdir(exist_ok=True)
    script.write_text(
        f"#!{sys.executable}\n"
        "import sys\n"
        f"open({str(log)!r}, 'w').write('\\n'.join(sys.argv[1:]))\n"
        "path = [a for a in sys.argv[1:] if not a.startswith('+')][-1]\n"
        "open(path, 'a').write('\\nscenario: added by the editor\\n  when: GET /health\\n  then: status 200\\n')\n",
        encoding="utf-8",
    )
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return script, log


async def test_e_opens_the_editor_at_the_line_then_reloads(pets_file, make_app, ui, tmp_path, monkeypatch):
    script, log = recording_editor(tmp_path)
    monkeypatch.setenv("EDITOR", str(script))
    app = make_app(pets_file, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        await ui.move_to(pilot, "scenario read pet")
        await ui.press(pilot, "e")
        assert log.read_text().splitlines() == ["+23", str(pets_file)]
        await ui.settle(pilot)
        ui.line_with(ui.tree_lines(app), "scenario added by the editor")  # reloaded
        assert "reloaded" in app.status_bar.text


async def test_a_missing_editor_is_one_line(pets_file, make_app, ui, monkeypatch):
    monkeypatch.setenv("EDITOR", "/nonexistent/editor-xyz")
    app = make_app(pets_file, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        await ui.press(pilot, "e")
        assert "cannot start the editor '/nonexistent/editor-xyz'" in app.status_bar.text


def test_editor_commands():
    env = {"EDITOR": "nvim"}
    assert editor_command("a.scenario", 7, env) == ["nvim", "+7", "a.scenario"]
    assert editor_command("a.scenario", 7, {"VISUAL": "emacs -nw"}) == ["emacs", "-nw", "+7", "a.scenario"]
    assert editor_command("a.scenario", 7, {}) == ["vi", "+7", "a.scenario"]
    assert editor_command("a.scenario", 7, {"EDITOR": "/usr/bin/hx"}) == ["/usr/bin/hx", "a.scenario:7"]
    assert editor_command("a.scenario", 7, {"EDITOR": "code --wait"}) == ["code", "--wait", "--goto", "a.scenario:7"]
    assert editor_command("a.scenario", 7, {"EDITOR": "nano", "VISUAL": "vim"})[0] == "nano"  # EDITOR first
    assert editor_command("a.scenario", 7, {"EDITOR": "myeditor"}) == ["myeditor", "a.scenario"]  # no guessing
    assert os.path.basename(editor_command("a.scenario", 0, env)[1]) == "+1"
