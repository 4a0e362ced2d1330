"""Terminal escapes from a server or a file are shown, never obeyed: `run` output (a CI log) and
the TUI's inspector show `\\x1b`, never a raw ESC, CR or OSC sequence. Also: values nested deeper
than Python's recursion limit reach the TUI's widgets without a RecursionError."""

from __future__ import annotations

import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from scenario_core.parameters.resolution import RunOverrides
from scenario_core.run import events as ev
from scenario_tui.app.shell import ScenarioApp
from scenario_tui.widgets.display import Display, json_form
from tests.helpers import ENV, SCRIPT

EVIL = "\x1b[2J\x1b]0;pwned\x07\r✓ fake\u2028after"
RAW = ("\x1b", "\x07", "\r", "\u2028")


class _Evil(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        if self.path == "/json":
            body = (
                '{"msg": "'
                + EVIL.replace("\x1b", "\\u001b").replace("\x07", "\\u0007").replace("\r", "\\r")
                + '", "c1": "\u009b31m"}'
            ).encode()
            kind = "application/json"
        else:
            body, kind = EVIL.encode(), "text/plain; charset=utf-8"
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("X-Evil", "\x1b[2J\x1b]0;pwned\x07")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture(scope="module")
def evil_server():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Evil)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


SCENARIO = """\
scenario: evil \x1b]0;title\x07 name
  when: GET /text
  then: status 201
scenario: evil json
  when: GET /json
  then: $.msg == "x"
"""


def test_terminal_escapes_never_reach_the_run_output(evil_server, tmp_path):
    path = tmp_path / "evil.scenario"
    path.write_text(SCENARIO, encoding="utf-8")
    result = subprocess.run(
        [str(SCRIPT), "run", str(path), "--base-url", evil_server], capture_output=True, text=True, timeout=60, env=ENV
    )
    assert result.returncode == 1, result.stderr
    out = result.stdout
    for raw in RAW:
        assert raw not in out and raw not in result.stderr, (raw, out)
    assert "\x9b" not in out
    assert "evil \\x1b]0;title\\x07 name" in out  # the scenario name, shown
    assert "\\x1b[2J\\x1b]0;pwned\\x07\\x0d✓ fake\\u2028after" in out  # the text body, on one line
    assert not any(line.lstrip().startswith("✓ fake") for line in out.splitlines())
    assert "Traceback" not in result.stderr


async def test_terminal_escapes_in_the_inspector(evil_server, tmp_path, ui):
    path = tmp_path / "evil.scenario"
    path.write_text(SCENARIO, encoding="utf-8")
    app = ScenarioApp(str(path), RunOverrides.from_cli([], evil_server), {})
    async with app.run_test(size=(120, 40)) as pilot:
        await ui.press(pilot, "n", "n")  # GET /text has run
        text = app.query_one("#inspector").text
        assert "\\x1b[2J\\x1b]0;pwned\\x07" in text  # the body and the X-Evil header
        assert "X-Evil: \\x1b[2J\\x1b]0;pwned\\x07" in text
        await ui.press(pilot, "c")
        await ui.move_to(pilot, "evil json")
        app.file_tree.cursor_node.expand()
        await ui.settle(pilot)
        await ui.move_to(pilot, "GET /json")
        await ui.settle(pilot)
        text = app.query_one("#inspector").text
        assert "\\u001b[2J" in text and "\\u2028" in text and "\\u009b31m" in text  # JSON escapes, still JSON
        assert "\\x1b]0;title\\x07" in "\n".join(ui.tree_lines(app))  # the tree's scenario label
        everything = "\n".join(
            [
                text,
                app.query_one("#scope").text if hasattr(app.query_one("#scope"), "text") else "",
                *ui.tree_lines(app),
                app.query_one("#variables").text,
            ]
        )
        for raw in RAW + ("\x9b",):
            assert raw not in everything, raw


def _deep(levels: int):
    value: object = "bottom"
    for i in range(levels):
        value = {"a": value} if i % 2 else [value]
    return value


def test_deeply_nested_values_reach_the_widgets():
    deep = _deep(1000)
    display = Display()
    display.learn(ev.VariableExtracted(step=None, name="token", value=deep, layers=("scenario",)))
    assert display.variable("token", deep) == '"••••••"'
    shown = display.variable("other", deep)
    assert (
        shown.startswith('{"a": [{"a": ') and '["… (nested deeper than 200 levels; cut here)"]' in shown
    )  # cut at MAX_DEPTH
    assert json_form(deep).startswith("{")
    assert display.value(deep) is not None
