"""The canary: one secret value planted in every channel a secret can enter, and every
output grepped for it. The channels: a `--var` with a secret name and one whose name `secrets`
lists, a secret `header.` parameter (in the file and on the command line), a URL password in
`baseUrl`, a `Set-Cookie` from the server, a JSON field named `password` in a request body
(echoed back), a token the server returns and the file extracts into a name `secrets` lists. Each channel's canary is its own
(`C4N4RY-<channel>` and awkward characters: `"` and `\\`), so a leak names its channel, and one
channel's value is never masked only because another taught it.

The outputs: `run` (stdout, stderr, also --very-verbose; the JSON, JUnit and HTML reports),
`params` (text and --json), `check`, the language server (hover, a real client over stdio), the
TUI (Pilot: tree labels, parameters, inspector, variables, scope log, the screen) and its curl
copy (`y`). Real loopback HTTP: a small server of this module's own that echoes what it gets."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.helpers import cli

CANARY = "C4N4RY"
VAR = f'{CANARY}-var"\\x'  # --var apiToken=...
PARAM = f'{CANARY}-param"\\x'  # header.X-Api-Key: ... in the file
CLI_PARAM = f'{CANARY}-cliparam"\\x'  # --param header.X-Auth=...
URL_PASSWORD = f"{CANARY}-url%22%5Cx"  # percent-encoded, as a URL holds it
BODY_PASSWORD = f'{CANARY}-body"\\x'  # {"password": ...} in a request body
COOKIE = f"{CANARY}-cookie%22q"  # Set-Cookie: sid="..."
EXTRACTED = f'{CANARY}-ref"\\x'  # the server's sessionRef, extracted into a `secrets` name
LISTED = f"{CANARY}-listed\\x"  # --var tenant=...: a name `secrets` lists


SCENARIO = """\
parameters:
  baseUrl: http://ann:{url_password}@127.0.0.1:{port}
  header.X-Api-Key: {param}
  secrets: sessionRef, tenant
  errorContext.includeRequestBody: true

scenario: canary
  when: POST /login
    headers:
      X-Auth-Token: {{{{apiToken}}}}
    body: {{"user": "ann", "password": {body_password}}}
  then: status 200
  extract: sessionRef from $.sessionRef
  when: POST /echo?ref={{{{sessionRef}}}}
    body: {{"note": "{{{{sessionRef}}}}", "t": "{{{{apiToken}}}}", "tenant": "{{{{tenant}}}}"}}
  then: $.nothing == 1
"""


class _Echo(BaseHTTPRequestHandler):
    """Echoes a request (path, headers, body as text and as JSON); /login also sets a quoted
    cookie and returns a session reference."""

    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode("utf-8", "replace")
        try:
            parsed = json.loads(raw)
        except ValueError:
            parsed = None
        answer = {"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}}
        answer.update(body=raw, json=parsed)
        if self.path == "/login":
            answer["sessionRef"] = EXTRACTED
        data = json.dumps(answer).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        if self.path == "/login":
            self.send_header("Set-Cookie", f'sid="{COOKIE}"; Path=/')
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST

    def log_message(self, *args) -> None:
        pass


@pytest.fixture(scope="module")
def echo_port():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Echo)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def planted(tmp_path, echo_port) -> Path:
    path = tmp_path / "canary.scenario"
    text = SCENARIO.format(
        url_password=URL_PASSWORD, port=echo_port, param=PARAM, body_password=json.dumps(BODY_PASSWORD)
    )
    path.write_text(text, encoding="utf-8")
    return path


SHARED = ("--var", f"apiToken={VAR}", "--var", f"tenant={LISTED}", "--param", f"header.X-Auth={CLI_PARAM}")


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return cli(*args, timeout=60)  # a run with every report: more than the usual 30 s on a loaded machine


def leaks(outputs: dict[str, str]) -> list[tuple[str, str]]:
    """(output, the canary's line) for every output that shows a canary."""
    return [
        (where, line.strip()[:200]) for where, text in outputs.items() for line in text.splitlines() if CANARY in line
    ]


def test_canary_never_leaks_from_run_and_its_reports(planted, tmp_path):
    reports = {"json": tmp_path / "r.json", "junit": tmp_path / "r.xml", "html": tmp_path / "r.html"}
    result = run_cli(
        "run",
        str(planted),
        *SHARED,
        "--report-json",
        str(reports["json"]),
        "--report-junit",
        str(reports["junit"]),
        "--report-html",
        str(reports["html"]),
    )
    assert result.returncode == 1, result.stdout + result.stderr  # the last step fails: bodies are shown
    verbose = run_cli("run", str(planted), *SHARED, "--very-verbose")
    assert verbose.returncode == 1, verbose.stdout + verbose.stderr
    outputs = {"stdout": result.stdout, "stderr": result.stderr}
    outputs.update({f"-vv {k}": v for k, v in (("stdout", verbose.stdout), ("stderr", verbose.stderr))})
    outputs.update({name: path.read_text(encoding="utf-8") for name, path in reports.items()})
    assert leaks(outputs) == []
    # the run did carry the secrets: masked, not missing
    assert "response body:" in result.stdout and "••••••" in result.stdout
    assert result.stdout.count("••••••") >= 4 and verbose.stdout.count("••••••") >= 8


def test_canary_never_leaks_from_params_and_check(planted):
    text = run_cli("params", str(planted), "--param", f"header.X-Auth={CLI_PARAM}")
    as_json = run_cli("params", str(planted), "--json", "--param", f"header.X-Auth={CLI_PARAM}")
    checked = run_cli("check", str(planted))
    assert text.returncode == as_json.returncode == checked.returncode == 0, text.stderr + checked.stderr
    outputs = {"params": text.stdout + text.stderr, "params --json": as_json.stdout + as_json.stderr}
    outputs["check"] = checked.stdout + checked.stderr
    assert leaks(outputs) == []
    nodes = json.loads(as_json.stdout)["nodes"]
    assert nodes[0]["parameters"]["header.X-Api-Key"]["value"] == "••••••"
    assert nodes[0]["parameters"]["header.X-Auth"]["value"] == "••••••"


async def test_canary_never_leaks_from_the_language_servers_hover(planted):
    from lsprotocol import types

    from tests.tui.test_lsp import COMMAND, LanguageClient

    editor = LanguageClient()
    await editor.start_io(*COMMAND)
    try:
        await editor.initialize_async(
            types.InitializeParams(capabilities=types.ClientCapabilities(), process_id=os.getpid())
        )
        editor.initialized(types.InitializedParams())
        text = planted.read_text(encoding="utf-8")
        uri = planted.as_uri()
        editor.text_document_did_open(
            types.DidOpenTextDocumentParams(
                types.TextDocumentItem(uri=uri, language_id="scenario", version=1, text=text)
            )
        )
        shown: dict[str, str] = {}
        # every line, at the start of its text and a few characters in (keys, values, names)
        for number, line in enumerate(text.splitlines()):
            for column in {len(line) - len(line.lstrip()), len(line) // 2, max(len(line) - 3, 0)}:
                position = {
                    "text_document": types.TextDocumentIdentifier(uri),
                    "position": types.Position(number, column),
                }
                hover = await asyncio.wait_for(editor.text_document_hover_async(types.HoverParams(**position)), 20)
                if hover is not None:
                    shown[f"hover {number + 1}:{column + 1}"] = hover.contents.value
        await asyncio.sleep(0.2)  # the diagnostics published on open
        for diagnostic in editor.diagnostics.get(uri, []):
            shown[f"diagnostic {diagnostic.range.start.line + 1}"] = diagnostic.message
    finally:
        await editor.shutdown_async(None)
        editor.exit(None)
        await asyncio.wait_for(editor.stop(), 20)
    scenario_hover = next(v for k, v in shown.items() if k.startswith("hover 7:"))
    assert "header.X-Api-Key" in scenario_hover and "baseUrl" in scenario_hover  # the parameters were shown
    # and each secret parameter's own hover, its value masked
    assert "http://ann:••••••@127.0.0.1:" in next(v for k, v in shown.items() if k.startswith("hover 2:"))
    assert "Effective for the file: `••••••`" in next(v for k, v in shown.items() if k.startswith("hover 3:"))
    assert leaks(shown) == []


async def test_canary_never_leaks_from_the_tui_or_its_curl_copy(planted):
    from textual.geometry import Region

    from scenario_core.parameters.resolution import RunOverrides
    from scenario_tui.app.shell import ScenarioApp

    overrides = RunOverrides.from_cli([f"header.X-Auth={CLI_PARAM}"], None)
    app = ScenarioApp(str(planted), overrides, {"apiToken": VAR, "tenant": LISTED})
    shown: dict[str, str] = {}

    async def settle(pilot) -> None:
        for _ in range(2):
            await pilot.pause()
            await pilot.app.workers.wait_for_complete()
        await pilot.pause(0.05)

    def widget_text(widget) -> str:
        strips = widget.render_lines(Region(0, 0, widget.size.width, max(widget.virtual_size.height, 1)))
        return "\n".join(strip.text for strip in strips)

    async with app.run_test(size=(160, 60)) as pilot:
        await settle(pilot)
        await pilot.press("c")  # run to the end
        await settle(pilot)
        tree = app.file_tree
        for line in tree._tree_lines:  # expand everything: step labels
            line.node.expand_all()
        await settle(pilot)
        labels = [tree.label_for(line.node).plain for line in tree._tree_lines]
        shown["tree"] = "\n".join(labels)
        assert any("POST /echo" in label for label in labels), labels
        for index, label in enumerate(labels):
            tree.move_cursor(tree._tree_lines[index].node)
            await settle(pilot)
            shown[f"parameters at {label}"] = app.query_one("#parameters").text
            shown[f"inspector at {label}"] = widget_text(app.inspector.query_one("#inspector-body"))
            shown[f"variables at {label}"] = app.variables_panel.text
            if "POST" in label:
                curl = app.inspector.curl()
                assert curl is not None and curl.startswith("curl "), label
                shown[f"curl at {label}"] = curl
                await pilot.press("y")
                await settle(pilot)
                shown[f"clipboard at {label}"] = app.clipboard
            shown[f"screen at {label}"] = app.export_screenshot()
        shown["scope log"] = "\n".join(strip.text for strip in app.scope_log.lines)
    # what was looked at held the secrets, masked: the request's headers and body, the variables
    echo = next(v for k, v in shown.items() if k.startswith("inspector at ✓ when POST /echo"))
    assert "Cookie: sid=••••••" in echo and '"note": "••••••"' in echo
    assert 'apiToken  "••••••"' in next(v for k, v in shown.items() if k.startswith("variables at"))
    assert any(k.startswith("clipboard") and v.startswith("curl ") for k, v in shown.items())
    assert leaks(shown) == []


# The history list (`h`): one line per step run, a request's path and query as sent. Every secret
# a path can carry: a `--var` with a secret name, a `--var` whose name `secrets` lists, a value
# the file extracts into a `secrets` name, and a value set while paused (edit and continue, `=`).
EDITED = f"{CANARY}-edited-x9"
HISTORY_SCENARIO = """\
parameters:
  baseUrl: http://127.0.0.1:{port}
  secrets: sessionRef, tenant

scenario: history canary
  when: POST /login
  extract: sessionRef from $.sessionRef
  when: GET /echo/{{{{apiToken}}}}/{{{{sessionRef}}}}?t={{{{tenant}}}}&ref={{{{sessionRef}}}}&k={{{{apiToken}}}}
  when: GET /edited/{{{{tenant}}}}?x={{{{tenant}}}}
  then: status 200
"""
HISTORY_EDIT_LINE = 9


async def test_canary_never_leaks_from_the_tui_history(tmp_path, echo_port):
    from textual.geometry import Region

    from scenario_core.parameters.resolution import RunOverrides
    from scenario_core.run.stepper import PAUSED
    from scenario_tui.app.shell import ScenarioApp
    from scenario_tui.widgets.variable_editor import VariableEditor

    path = tmp_path / "history.scenario"
    path.write_text(HISTORY_SCENARIO.format(port=echo_port), encoding="utf-8")
    app = ScenarioApp(str(path), RunOverrides.from_cli([], None), {"apiToken": VAR, "tenant": LISTED})
    shown: dict[str, str] = {}

    async def settle(pilot) -> None:
        for _ in range(2):
            await pilot.pause()
            await pilot.app.workers.wait_for_complete()
        await pilot.pause(0.05)

    async def press(pilot, *keys: str) -> None:
        for key in keys:
            await pilot.press(key)
            await settle(pilot)

    def widget_text(widget) -> str:
        strips = widget.render_lines(Region(0, 0, widget.size.width, max(widget.virtual_size.height, 1)))
        return "\n".join(strip.text for strip in strips)

    async with app.run_test(size=(160, 60)) as pilot:
        await settle(pilot)
        tree = app.file_tree
        for line in tree._tree_lines:
            line.node.expand_all()
        await settle(pilot)
        target = next(line.node for line in tree._tree_lines if "GET /edited/" in tree.label_for(line.node).plain)
        tree.move_cursor(target)
        await press(pilot, "b", "c")  # a breakpoint on the last request, and run to it
        assert app.stepper.state == PAUSED and app.stepper.current.step.location.line == HISTORY_EDIT_LINE
        await press(pilot, "equals_sign")  # edit and continue: tenant (a `secrets` name) set to a canary
        assert isinstance(app.screen, VariableEditor)
        # it opens on the variable the paused request reads, the focus on its value (a secret's:
        # not prefilled), the layer this scenario's (tenant is a read-only run variable)
        assert app.screen.variable_name == "tenant" and app.screen.variable_value == ""
        for char in EDITED:
            await pilot.press(char)
        await press(pilot, "enter")
        assert not isinstance(app.screen, VariableEditor)
        await press(pilot, "c")  # to the end: the edited value is sent in the last request's path
        await press(pilot, "h")
        history = app.query_one("#history")
        assert history.has_class("-open") and len(history.lines) >= 4, history.lines
        shown["history"] = "\n".join(history.lines)
        shown["history rendered"] = widget_text(history)
        for index in range(len(history.lines)):
            await press(pilot, "up")
            shown[f"inspector at history {index}"] = widget_text(app.inspector.query_one("#inspector-body"))
            shown[f"variables at history {index}"] = app.variables_panel.text
            shown[f"screen at history {index}"] = app.export_screenshot()
    # the secrets were sent in the paths and queries, and shown masked
    requests = [line for line in shown["history"].splitlines() if "GET /" in line]
    assert len(requests) == 2 and all("••••••" in line for line in requests), requests
    assert "/echo/••••••/••••••?t=••••••" in shown["history"], shown["history"]
    assert "/edited/••••••?x=••••••" in shown["history"], shown["history"]
    assert leaks(shown) == []
