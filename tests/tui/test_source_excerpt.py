"""On a terminal, `check` and `run` follow each error line with its source line and a caret
under its span (docs/cli.md#errors-on-a-terminal); piped, in CI, with `--format`, the one-line
form alone. Driven by a fake terminal flag, never a real terminal."""

from __future__ import annotations

import io

import pytest

from scenario_core.language.errors import Diagnostic
from scenario_core.language.nodes.base import SourceLocation
from scenario_tui.cli.main import main
from scenario_tui.output.source_excerpt import diagnostic_lines, excerpt, wants_excerpts


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


BAD = "scenario: a\n  when: GTE /pets\n"


@pytest.fixture
def terminal(monkeypatch):
    """Standard error as a terminal, outside CI: call it in the test (pytest's own capture
    sets sys.stderr again as the test starts)."""

    def become() -> FakeTerminal:
        monkeypatch.delenv("CI", raising=False)
        monkeypatch.setenv("TERM", "xterm-256color")
        stream = FakeTerminal()
        monkeypatch.setattr("sys.stderr", stream)
        return stream

    return become


def test_the_caret_sits_under_the_span():
    assert excerpt("  when: GTE /pets", 2, 9, 12) == [" 2 |   when: GTE /pets", "   |         ^^^"]
    assert excerpt("abc", 10, 2, None) == [" 10 | abc", "    |  ^"]  # no span: one caret


def test_tabs_wide_characters_and_controls_keep_the_caret_in_place():
    # a tab is four columns, 中 two, ESC is shown as its four-character escape
    line, caret = excerpt("\t中\x1bx {{y}}", 1, 6, 11)
    assert line == " 1 |     中\\x1bx {{y}}"
    assert caret == "   | " + " " * (4 + 2 + 4 + 1 + 1) + "^^^^^"


def test_a_long_line_is_shown_around_the_span():
    line, caret = excerpt("x" * 300 + "BAD" + "y" * 200, 7, 301, 304)
    assert line.startswith(" 7 | …") and line.endswith("…") and len(line) < 120
    assert line[caret.index("^") : caret.index("^") + 3] == "BAD" and caret.count("^") == 3


def test_only_a_terminal_outside_ci_gets_excerpts():
    assert wants_excerpts(FakeTerminal(), {"TERM": "xterm"}) is True
    assert wants_excerpts(io.StringIO(), {"TERM": "xterm"}) is False  # a pipe
    assert wants_excerpts(FakeTerminal(), {"CI": "true"}) is False
    assert wants_excerpts(FakeTerminal(), {"TERM": "dumb"}) is False  # an editor's shell


def test_an_unreadable_or_short_file_gives_the_line_alone(tmp_path):
    gone = Diagnostic(SourceLocation(str(tmp_path / "gone.scenario"), 1, 1, 1, 2), "boom")
    short = tmp_path / "short.scenario"
    short.write_text("one line\n")
    past = Diagnostic(SourceLocation(str(short), 9, 1, 9, 2), "past the end")
    assert diagnostic_lines([gone, past], excerpts=True) == [str(gone), str(past)]


def test_a_span_over_several_lines_is_marked_to_the_end_of_its_first(tmp_path):
    path = tmp_path / "t.scenario"
    path.write_text("body: {\n  x\n}\n")
    d = Diagnostic(SourceLocation(str(path), 1, 7, 3, 2), "bad body")
    assert diagnostic_lines([d], excerpts=True)[1:] == [" 1 | body: {", "   |       ^"]


def test_check_on_a_terminal_shows_the_source_line_and_caret(tmp_path, terminal):
    path = tmp_path / "bad.scenario"
    path.write_text(BAD)
    terminal = terminal()
    assert main(["check", str(path)]) == 2
    assert terminal.getvalue().splitlines() == [
        f"{path}:2:9: error: unknown HTTP method 'GTE'; did you mean GET?",
        " 2 |   when: GTE /pets",
        "   |         ^^^",
    ]


def test_run_on_a_terminal_shows_them_too(tmp_path, terminal):
    path = tmp_path / "bad.scenario"
    path.write_text(BAD)
    terminal = terminal()
    assert main(["run", str(path)]) == 2
    assert terminal.getvalue().splitlines()[1:] == [" 2 |   when: GTE /pets", "   |         ^^^"]


def test_warnings_get_them_too_and_ci_gets_none(tmp_path, terminal, monkeypatch):
    path = tmp_path / "w.scenario"
    path.write_text("scenario: a\n  when: GET http://127.0.0.1:9/{{catid}}\n")
    terminal = terminal()
    assert main(["check", str(path)]) == 0
    shown = terminal.getvalue().splitlines()
    line, caret = shown[1:3]
    assert line == " 2 |   when: GET http://127.0.0.1:9/{{catid}}"
    assert caret.index("^") == line.index("catid") and caret.count("^") == len("catid")
    terminal.seek(0)
    terminal.truncate()
    monkeypatch.setenv("CI", "true")
    assert main(["check", str(path)]) == 0
    assert [line for line in terminal.getvalue().splitlines() if "|" in line] == []


def test_piped_and_formatted_output_stays_one_line(tmp_path, capsys):
    path = tmp_path / "bad.scenario"
    path.write_text(BAD)
    assert main(["check", str(path)]) == 2
    assert capsys.readouterr().err.splitlines() == [f"{path}:2:9: error: unknown HTTP method 'GTE'; did you mean GET?"]
    assert main(["check", str(path), "--format", "github"]) == 2
    out = capsys.readouterr().out
    assert out.startswith("::error ") and "^" not in out
