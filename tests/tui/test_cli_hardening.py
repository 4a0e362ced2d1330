"""The console script under abuse, as a whole process: report paths that must not be replaced,
escapes in what it echoes, patterns that backtrack for ever, deep JSON, busy ports, closed pipes,
an early Ctrl+C. Every case ends in at most one line on standard error, never a traceback."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import threading
import time
import xml.etree.ElementTree as ET
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.helpers import ENV, SCRIPT, cli

PETSTORE = Path(__file__).resolve().parents[2] / "core" / "demo" / "petstore.yaml"
POSIX = pytest.mark.skipif(os.name != "posix", reason="POSIX files and signals")

SIMPLE = "scenario: s\n  when: GET /health\n  then: status 200\n"


def one_line_error(result: subprocess.CompletedProcess, status: int = 2) -> str:
    assert result.returncode == status, (result.returncode, result.stderr)
    assert "Traceback" not in result.stderr
    assert result.stderr.count("\n") == 1 and result.stderr.endswith("\n"), result.stderr
    return result.stderr


class Loopback:
    """A server answering every request with one canned response, counting requests."""

    def __init__(self, status: int, body: bytes, content_type: str = "application/json"):
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                owner.requests += 1
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.requests = 0
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def loopback():
    servers = []

    def start(status: int, body: bytes, content_type: str = "application/json") -> Loopback:
        servers.append(Loopback(status, body, content_type))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


# ---------------------------------------------------------------- 2. report paths


def refused(demo, scenario: Path, *args: str) -> str:
    """Run with these report options; assert a one-line usage error and that nothing was sent."""
    demo.reset()
    result = cli("run", str(scenario), "--base-url", demo.url, *args)
    line = one_line_error(result)
    assert demo.connections_accepted == 0, "a request was sent before the report path was refused"
    assert result.stdout == ""
    return line


@pytest.mark.parametrize("option", ["--report-json", "--report-junit"])
def test_report_path_refuses_the_scenario_itself(demo, write_scenario, option):
    path = write_scenario(SIMPLE, "own.scenario")
    line = refused(demo, path, option, str(path))
    assert "is an input of this run" in line and option in line
    assert path.read_text() == SIMPLE


@POSIX
def test_report_path_refuses_a_symlink_to_a_scenario(demo, write_scenario, tmp_path):
    path = write_scenario(SIMPLE, "own.scenario")
    (tmp_path / "link.json").symlink_to(path)
    assert "is an input of this run" in refused(demo, path, "--report-junit", str(tmp_path / "link.json"))
    assert path.read_text() == SIMPLE and (tmp_path / "link.json").is_symlink()


def test_report_path_refuses_the_openapi_file(demo, write_scenario, tmp_path):
    spec = tmp_path / "api.yaml"
    shutil.copy(PETSTORE, spec)
    before = spec.read_bytes()
    path = write_scenario(SIMPLE)
    line = refused(demo, path, "--openapi", str(spec), "--report-json", str(spec))
    assert "is an input of this run" in line and spec.read_bytes() == before


def test_report_path_refuses_both_reports_to_one_file(demo, write_scenario, tmp_path):
    path = write_scenario(SIMPLE)
    line = refused(demo, path, "--report-json", str(tmp_path / "r"), "--report-junit", str(tmp_path / "." / "r"))
    assert "also the --report-json path" in line
    assert not (tmp_path / "r").exists()


def test_report_path_refuses_a_missing_directory(demo, write_scenario, tmp_path):
    line = refused(demo, write_scenario(SIMPLE), "--report-json", str(tmp_path / "no" / "such" / "r.json"))
    assert "does not exist" in line and not (tmp_path / "no").exists()


@POSIX
def test_report_path_refuses_a_fifo_a_socket_and_a_symlink_to_a_directory(demo, write_scenario, tmp_path):
    path = write_scenario(SIMPLE)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert "not a regular file" in refused(demo, path, "--report-json", str(fifo))
    assert fifo.is_fifo()
    sock_path = tmp_path / "s.sock"
    listener = socket.socket(socket.AF_UNIX)
    try:
        listener.bind(str(sock_path))
        assert "not a regular file" in refused(demo, path, "--report-junit", str(sock_path))
        assert sock_path.is_socket()
    finally:
        listener.close()
    (tmp_path / "dir").mkdir()
    (tmp_path / "dirlink").symlink_to(tmp_path / "dir")
    assert "is a directory" in refused(demo, path, "--report-json", str(tmp_path / "dirlink"))
    assert (tmp_path / "dirlink").is_symlink()


# ---------------------------------------------------------------- 4. escapes in echoes and JUnit


def test_error_echoes_show_escapes_instead_of_sending_them(tmp_path):
    result = cli("run", str(tmp_path / "evil\x1b[2J.scenario"))
    line = one_line_error(result)
    assert "\x1b" not in line and "\\x1b[2J" in line
    result = cli("--base-url", "http://x\x1b]0;owned\x07", str(tmp_path / "a.scenario"))
    assert "\x1b" not in one_line_error(result) and "\x07" not in result.stderr
    bad = tmp_path / "bad.scenario"
    bad.write_text("scenario: s\n  when: FETCH\x1b[31m /a\n", encoding="utf-8")
    result = cli("check", str(bad))
    assert result.returncode == 2 and "\x1b" not in result.stderr and "Traceback" not in result.stderr


def test_junit_is_valid_xml_with_control_characters_from_the_server(write_scenario, tmp_path, loopback):
    server = loopback(500, "boom \x1b[2J \x00 \ufffe end".encode("utf-8"), "text/plain")
    path = write_scenario(SIMPLE)
    result = cli("run", str(path), "--base-url", server.url, "--report-junit", str(tmp_path / "j.xml"))
    assert result.returncode == 1 and "Traceback" not in result.stderr
    failure = ET.parse(tmp_path / "j.xml").getroot().find("testsuite/testcase/failure")
    assert "boom \\x1b[2J \\x00 \\ufffe end" in failure.text


# ---------------------------------------------------------------- 9. bounded regular expressions


def test_regex_backtracking_fails_the_step_within_timeout_plus_a_second(demo, write_scenario, tmp_path):
    path = write_scenario(f"""
        parameters:
          timeout: 1
        scenario: pattern
          when: POST /echo
            body: {{"v": "{"a" * 40}!"}}
          then: $.json.v matches "^(a|a)*$"
          then: $.path matches "^/echo/(a+)+$"
    """)
    # Run to its end, either pattern would take hours (2^40 paths): that the run ends at all, with
    # the step failed by the time limit, shows it was stopped. No tighter clock bound: a busy
    # machine stretches the 0.5 s limit's wall time, never the decision.
    result = cli("run", str(path), "--base-url", demo.url, "--report-json", str(tmp_path / "r.json"), timeout=60)
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    report = json.loads((tmp_path / "r.json").read_text())
    step = report["files"][0]["scenarios"][0]["steps"][1]
    assert step["status"] == "failed" and "took over 0.5 s" in step["message"] and "\n" not in step["message"]


# ---------------------------------------------------------------- 10. no traceback, anywhere


@pytest.mark.parametrize("option", ["--version", "-V"])
def test_version_prints_the_version(option):
    result = cli(option)
    assert result.returncode == 0 and result.stderr == ""
    assert result.stdout.startswith("scenario-tui ") and result.stdout.count("\n") == 1


@pytest.mark.parametrize("args", [["--bogus"], ["run", "--bogus"], ["check", "--bogus"], ["params", "--bogus"]])
def test_unknown_option_is_named(args):
    assert "unrecognized arguments: --bogus" in one_line_error(cli(*args))


def test_missing_file_is_still_reported():
    for args in (["run"], ["check"], ["params"]):
        assert "required: FILE" in one_line_error(cli(*args))


def test_a_directory_without_scenarios_given_to_the_tui(tmp_path):
    line = one_line_error(cli(str(tmp_path)))  # a folder opens its files as a suite: here there are none
    assert line == f"scenario-tui: error: {tmp_path}: no .scenario file in this folder\n"


@POSIX
def test_a_fifo_given_as_a_scenario_does_not_hang(tmp_path):
    os.mkfifo(tmp_path / "f.scenario")
    assert "not a regular file" in one_line_error(cli("check", str(tmp_path / "f.scenario"), timeout=10))


def test_demo_server_with_a_busy_port():
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = str(busy.getsockname()[1])
        for command in ("demo-server", "demo"):
            line = one_line_error(cli(command, "--port", port, timeout=15))
            assert f"cannot listen on 127.0.0.1:{port}" in line and "choose another port" in line


@pytest.mark.parametrize("port", ["65536", "70000", "9" * 5000, "-1", "http"])
def test_demo_server_with_a_bad_port(port):
    line = one_line_error(cli("demo-server", "--port", port))
    assert "expected a port number from 0 to 65535" in line and len(line) < 200


def test_demo_server_with_a_bad_host():
    line = one_line_error(cli("demo-server", "--host", "no-such-host.invalid", "--port", "0", timeout=30))
    assert "cannot listen on no-such-host.invalid:0" in line


def test_integers_over_4300_digits_in_var_and_param(write_scenario):
    path = write_scenario(SIMPLE)
    line = one_line_error(cli("run", str(path), "--var", "n=" + "9" * 5000))
    assert "more than 4300 digits" in line and len(line) < 300
    line = one_line_error(cli("run", str(path), "--param", "timeout=" + "9" * 5000))
    assert "timeout is at most 86400 seconds (a day)" in line and len(line) < 300


def test_integers_over_4300_digits_in_a_files_timeout(write_scenario):
    path = write_scenario("parameters:\n  timeout: " + "9" * 5000 + "\n" + SIMPLE)
    line = one_line_error(cli("check", str(path)))
    assert line.startswith(f'{path}:2:12: error: timeout is at most 86400 seconds (a day), got "9999')
    assert len(line) < 300


EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "pets.scenario"


@POSIX
@pytest.mark.parametrize("command", ["params", "run"])
def test_a_closed_pipe_ends_quietly(command, tmp_path):
    """`params --json | head -1`, `run ... | head -1`: no traceback, exit 141 like cat (128 + SIGPIPE)."""
    report = tmp_path / "r.json"
    args = (
        ["params", str(EXAMPLE), "--json"]
        if command == "params"
        else ["run", str(EXAMPLE), "--base-url", "http://127.0.0.1:9", "--report-json", str(report)]
    )
    process = subprocess.Popen([str(SCRIPT), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV)
    process.stdout.close()  # the reader has gone before the first line
    _, err = process.communicate(timeout=30)
    assert err.decode() == ""
    assert process.returncode == 141
    if command == "run":  # stopped like an interrupted run: the report still says so
        assert json.loads(report.read_text())["interrupted"] is True


SITE_HOOK = """
import os, signal, sys

signal.signal(signal.SIGINT, signal.default_int_handler)  # Ctrl+C as a terminal gives it, whatever started us

class _InterruptOnImport:
    def find_spec(self, name, path=None, target=None):
        if name == {module!r}:
            sys.meta_path.remove(self)
            os.kill(os.getpid(), signal.SIGINT)  # Ctrl+C, delivered right here
        return None

sys.meta_path.insert(0, _InterruptOnImport())
"""


STARTED_HOOK = """
import signal, sys

signal.signal(signal.SIGINT, signal.default_int_handler)  # Ctrl+C as a terminal gives it, whatever started us

class _MarkStart:
    def find_spec(self, name, path=None, target=None):
        if name == "scenario_tui.cli.main":
            sys.meta_path.remove(self)
            open({marker!r}, "w").close()
        return None

sys.meta_path.insert(0, _MarkStart())
"""


@POSIX
@pytest.mark.parametrize("module", ["scenario_core.language.errors", "scenario_core.language.parser"])
def test_ctrl_c_in_the_first_milliseconds(module, tmp_path, write_scenario):
    """SIGINT while the command's own modules load (while cli imports, then while the command
    starts): exit 130, one line. Delivered by an import hook so it lands there every time."""
    (tmp_path / "hook").mkdir()
    (tmp_path / "hook" / "sitecustomize.py").write_text(SITE_HOOK.format(module=module))
    env = {**ENV, "PYTHONPATH": str(tmp_path / "hook")}
    result = subprocess.run(
        [str(SCRIPT), "check", str(write_scenario(SIMPLE))], capture_output=True, text=True, env=env, timeout=30
    )
    assert result.returncode == 130, result.stderr
    assert result.stderr == "scenario-tui: interrupted\n"


@POSIX
def test_ctrl_c_right_after_start_never_prints_a_traceback_from_our_code(write_scenario, tmp_path):
    """A real Ctrl+C from outside, once our code has started (the console script's guarded
    import of cli.main, marked by a file an import hook makes): wherever it lands from there,
    no traceback. Before that point the interpreter is still starting (site, the console
    script's own `import re`): a signal there is Python's to report, not ours."""
    path = write_scenario(SIMPLE)
    started = tmp_path / "started"
    (tmp_path / "hook").mkdir()
    (tmp_path / "hook" / "sitecustomize.py").write_text(STARTED_HOOK.format(marker=str(started)))
    env = {**ENV, "PYTHONPATH": str(tmp_path / "hook")}
    process = subprocess.Popen(
        [str(SCRIPT), "check", str(path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    while not started.exists() and process.poll() is None:  # the marker, not a guess at start-up's length
        time.sleep(0.001)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=30)
    assert process.returncode in (0, 130, -signal.SIGINT), err
    assert "Traceback" not in err and err.count("\n") <= 1


# ---------------------------------------------------------------- 11. deeply nested JSON


@pytest.mark.parametrize("depth", [500, 990, 1000, 100_000])
def test_deep_json_extracted_and_reported(depth, write_scenario, tmp_path, loopback):
    server = loopback(200, b'{"a": ' + b"[" * depth + b"1" + b"]" * depth + b"}")
    path = write_scenario("""
        scenario: deep
          when: GET /deep
          extract: deep from $.a
          then: $.a matches "^\\\\[\\\\["
          then: status 500
    """)
    result = cli(
        "run",
        str(path),
        "--base-url",
        server.url,
        "--report-json",
        str(tmp_path / "r.json"),
        "--report-junit",
        str(tmp_path / "j.xml"),
    )
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr and result.stderr == ""
    scenario = json.loads((tmp_path / "r.json").read_text())["files"][0]["scenarios"][0]
    ET.parse(tmp_path / "j.xml")
    if "deep" in scenario["variables"]:  # parsed: up to ~1000 levels (the stdlib parser recurses)
        value, levels = scenario["variables"]["deep"], 1
        while isinstance(value, list):
            value, levels = value[0], levels + 1
        assert value == 1 if depth < 200 else value.endswith("cut here)")
        assert scenario["steps"][2]["status"] == "passed"
    else:
        assert "the response JSON is nested too deeply to read" in scenario["steps"][1]["message"]
