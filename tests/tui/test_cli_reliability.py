"""The console script as a whole process, where its inputs or its ending are unusual: a `--var`
that is not UTF-8, file names with terminal escapes in `check --format github`, reports written
while signals arrive, report paths through symlinks, `--coverage-min` with nothing to cover.
Every case ends in at most one line on standard error, never a traceback."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

SCRIPT = Path(sys.executable).with_name("scenario-tui")
ENV = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TTY_COMPATIBLE", "NO_COLOR")}


def cli_bytes(*args: bytes, cwd: Path, timeout: float = 30) -> subprocess.CompletedProcess:
    return subprocess.run([bytes(SCRIPT), *args], capture_output=True, timeout=timeout, env=ENV, cwd=cwd)


def test_a_var_that_is_not_utf8_is_a_usage_error_naming_it(tmp_path):
    (tmp_path / "v.scenario").write_text(
        "parameters:\n  baseUrl: http://127.0.0.1:9\nscenario: v\n  when: GET /x\n    headers:\n      X-A: {{x}}\n"
    )
    result = cli_bytes(b"run", b"v.scenario", b"--var", b"x=a\xffb", b"--report-json", b"out.json", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (2, b"")
    assert result.stderr == (
        b"scenario-tui: error: --var x: the value is not valid UTF-8 text "
        b"(bytes the terminal or shell could not decode)\n"
    )


def test_a_file_name_that_is_not_utf8_still_gets_its_json_report(tmp_path):
    name = b"a\xff.scenario"
    (tmp_path / os.fsdecode(name)).write_text(
        "parameters:\n  baseUrl: http://127.0.0.1:9\nscenario: v\n  when: GET /x\n"
    )
    result = cli_bytes(b"run", name, b"--report-json", b"out.json", cwd=tmp_path)
    assert result.returncode == 1 and b"Traceback" not in result.stderr, result.stderr
    report = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    assert report["files"][0]["path"] == "a\udcff.scenario"


def test_check_format_github_escapes_a_file_names_terminal_escapes(tmp_path):
    name = "bad\x1b]0;owned\x07\x1b[2J.scenario"
    (tmp_path / name).write_text("scenario: s\n  when: GET\n")
    result = cli_bytes(b"check", os.fsencode(name), b"--format", b"github", cwd=tmp_path)
    assert result.returncode == 2
    assert not any(c < 0x20 and c != 0x0A for c in result.stdout + result.stderr), result.stdout
    assert result.stdout.startswith(b"::error file=bad\\x1b]0;owned\\x07\\x1b[2J.scenario,line=2,")


class Stalling:
    """A loopback server that accepts connections, reads, and never answers."""

    def __init__(self) -> None:
        self.server = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.server.getsockname()[1]}"
        self.accepted = threading.Event()
        self.held: list[socket.socket] = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                connection, _ = self.server.accept()
            except OSError:
                return
            self.held.append(connection)
            self.accepted.set()

    def close(self) -> None:
        self.server.close()
        for connection in self.held:
            connection.close()


@pytest.mark.skipif(os.name != "posix", reason="POSIX signals and symlinks")
@pytest.mark.parametrize("driven", [[], ["--jobs", "2"]], ids=["sequential", "jobs-2"])
def test_signals_while_the_reports_are_written_never_leave_the_previous_runs_reports(tmp_path, driven):
    server = Stalling()
    try:
        (tmp_path / "s.scenario").write_text(
            f"parameters:\n  baseUrl: {server.url}\n  timeout: 60\nscenario: s\n  when: GET /slow\n  then: status 200\n"
        )
        (tmp_path / "out.json").write_text('{"summary": {"passed": 1}, "interrupted": false}\n')
        (tmp_path / "junit.xml").write_text("<testsuites tests='1' failures='0'/>\n")
        victim = tmp_path / "elsewhere" / "victim.txt"
        victim.parent.mkdir()
        victim.write_text("keep me\n")
        (tmp_path / "page.html").symlink_to(victim)  # planted: the report replaces the link, not the victim
        process = subprocess.Popen(
            [str(SCRIPT), "run", "s.scenario", "--report-json", "out.json", "--report-junit", "junit.xml"]
            + ["--report-html", "page.html", *driven],
            cwd=tmp_path,
            env=ENV,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert server.accepted.wait(30)
        process.send_signal(signal.SIGINT)
        for _ in range(200):  # a second, third... signal: SIGTERM, as a cancelled CI job sends
            if process.poll() is not None:
                break
            process.send_signal(signal.SIGTERM)
            time.sleep(0.002)
        _, stderr = process.communicate(timeout=30)
    finally:
        server.close()
    assert process.returncode in (130, 143), (process.returncode, stderr)
    assert b"Traceback" not in stderr
    report = json.loads((tmp_path / "out.json").read_text())
    assert report["interrupted"] is True, report
    junit = (tmp_path / "junit.xml").read_text()
    assert 'interrupted="true"' in junit
    assert victim.read_text() == "keep me\n"
    assert not (tmp_path / "page.html").is_symlink() and "interrupted" in (tmp_path / "page.html").read_text()
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_coverage_min_without_an_openapi_description_is_a_usage_error(tmp_path):
    (tmp_path / "s.scenario").write_text("parameters:\n  baseUrl: http://127.0.0.1:9\nscenario: s\n  when: GET /x\n")
    result = cli_bytes(b"run", b"s.scenario", b"--coverage-min", b"80", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (2, b"")
    assert result.stderr == (
        b"scenario-tui: error: --coverage-min: no file of this run has an OpenAPI description in force "
        b"(set the openapi parameter, or --openapi): there are no operations to cover\n"
    )
    alone = cli_bytes(b"run", b"s.scenario", b"--coverage", cwd=tmp_path)
    assert b"Coverage:" not in alone.stdout and alone.stderr.count(b"\n") == 1
    assert alone.stderr.startswith(b"scenario-tui: --coverage: no file of this run has an OpenAPI description")


def test_a_main_run_in_process_leaves_sigint_as_it_found_it_after_a_signal():
    """Only the console script ignores SIGINT and SIGTERM for good after a signal (its process is
    ending); run in-process (a test, a plugin), the handlers it found come back, or every process
    started later would inherit an ignored Ctrl+C."""
    code = (
        "import os, signal\n"
        "signal.signal(signal.SIGINT, signal.default_int_handler)\n"  # as a terminal gives it
        "from scenario_tui.cli.held_signals import RunSignals, process_ends_after_main\n"
        "with RunSignals(process_ends=process_ends_after_main()) as held:\n"
        "    os.kill(os.getpid(), signal.SIGINT)\n"
        "print(held.first, signal.getsignal(signal.SIGINT) is signal.default_int_handler)\n"
    )
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60).stdout
    assert shown.split() == [str(int(signal.SIGINT)), "True"]
