"""Issue 21, the critical one: a secret holding `\\`, `"` or a control character made the masker
learn its JSON-escaped form, then that form's escaped form, forever, and the run died of
MemoryError (or ate the machine). Real runs against real loopback servers, each in a process
capped at 1 GiB of address space and a timeout, so a regression fails here instead of eating
the machine: `scenario-tui run` (also with --show-secrets) and the pytest plugin."""

from __future__ import annotations

import http.server
import json
import os
import resource
import subprocess
import sys
import threading
from pathlib import Path

import pytest

SCRIPT = Path(sys.executable).with_name("scenario-tui")
ENV = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TTY_COMPATIBLE", "NO_COLOR", "PYTEST_ADDOPTS")}
MEMORY_CAP = 1 << 30  # bytes of address space: a run needs well under 200 MiB


def _capped() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def run_capped(args: list[str], cwd: Path | None = None) -> subprocess.CompletedProcess:
    result = subprocess.run(args, capture_output=True, text=True, timeout=120, env=ENV, cwd=cwd, preexec_fn=_capped)
    assert "MemoryError" not in result.stdout + result.stderr, result.stdout + result.stderr
    return result


def run_scenario(path: Path, base_url: str, *options: str) -> subprocess.CompletedProcess:
    report = path.with_suffix(".json")
    result = run_capped([str(SCRIPT), "run", str(path), "--base-url", base_url, "--report-json", str(report), *options])
    assert result.returncode == 1, result.stdout + result.stderr  # the scenarios fail on purpose: output shows values
    return result


def shown(result: subprocess.CompletedProcess, path: Path) -> str:
    """Everything a run showed: stdout, stderr and its JSON report."""
    return result.stdout + result.stderr + path.with_suffix(".json").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def cookie_server():
    """A loopback server answering every GET with a quoted cookie (RFC 6265 allows the quotes)
    and a body that shows the cookie's value again."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            body = json.dumps({"sid": "abc123", "quoted": '"abc123"', "n": 1}).encode()
            self.send_response(200)
            self.send_header("Set-Cookie", 'sid="abc123"; Path=/; HttpOnly')
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_a_quoted_set_cookie_is_learnt_once_not_escaped_forever(cookie_server, tmp_path):
    path = tmp_path / "cookie.scenario"
    path.write_text("scenario: s\n  when: GET /session\n  then: $.n == 2\n", encoding="utf-8")
    result = run_scenario(path, cookie_server)
    text = shown(result, path)
    assert "expected $.n == 2, got 1" in result.stdout
    assert "abc123" not in text, text  # the cookie's value, quoted or not, escaped or not
    assert "sid=••••••; Path=/; HttpOnly" in text  # the cookie's name and attributes stay


def test_a_var_with_a_backslash_is_learnt_once_not_escaped_forever(demo, tmp_path):
    path = tmp_path / "var.scenario"
    path.write_text("scenario: s\n  when: GET /echo?pw={{password}}\n  then: $.method == 1\n", encoding="utf-8")
    result = run_scenario(path, demo.url, "--var", "password=a\\b")
    text = shown(result, path)
    assert "expected $.method == 1" in result.stdout
    for leak in ("a\\b", "a%5Cb", "a\\\\b"):  # raw, in the URL, in the echoed JSON
        assert leak not in text, (leak, text)


def test_an_extracted_token_with_a_backslash_is_learnt_once_not_escaped_forever(demo, tmp_path):
    path = tmp_path / "extract.scenario"
    path.write_text(
        "scenario: s\n"
        "  when: POST /echo\n"
        '    body: {"token": "ab\\\\cd", "note": "ab\\\\cd", "n": 1}\n'
        "  extract: token from $.json.token\n"
        "  then: $.json.n == 2\n",
        encoding="utf-8",
    )
    result = run_scenario(path, demo.url)
    text = shown(result, path)
    assert "expected $.json.n == 2, got 1" in result.stdout
    assert "ab\\\\cd" not in text and "ab\\cd" not in text, text


def test_an_extracted_token_with_a_control_character_is_learnt_once_not_escaped_forever(demo, tmp_path):
    path = tmp_path / "control.scenario"
    path.write_text(
        "scenario: s\n"
        "  when: POST /echo\n"
        '    body: {"token": "ab\\u0007cd-and-more", "n": 1}\n'
        "  extract: token from $.json.token\n"
        "  then: $.json.n == 2\n",
        encoding="utf-8",
    )
    result = run_scenario(path, demo.url)
    assert "expected $.json.n == 2, got 1" in result.stdout
    assert "cd-and-more" not in shown(result, path)


def test_show_secrets_with_a_backslash_secret_runs_in_bounded_memory(demo, tmp_path):
    """Masking off still learns (the TUI can turn it back on), so it must be bounded too."""
    path = tmp_path / "show.scenario"
    path.write_text("scenario: s\n  when: GET /echo?pw={{password}}\n  then: $.method == 1\n", encoding="utf-8")
    result = run_scenario(path, demo.url, "--var", "password=a\\b-shown", "--show-secrets")
    assert "a\\b-shown" in shown(result, path)  # shown, as asked


def test_the_pytest_plugin_with_a_backslash_secret_runs_in_bounded_memory(demo, tmp_path):
    (tmp_path / "plugin.scenario").write_text(
        "scenario: s\n"
        "  when: POST /echo\n"
        '    body: {"token": "ab\\\\cd", "n": 1}\n'
        "  extract: token from $.json.token\n"
        "  then: $.json.n == 2\n",
        encoding="utf-8",
    )
    result = run_capped(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:textual-snapshot",
            "-p",
            "no:randomly",
            f"--scenario-base-url={demo.url}",
            "--scenario-var=password=a\\b",
            "plugin.scenario",
        ],
        cwd=tmp_path,
    )
    assert result.returncode == 1 and "1 failed" in result.stdout, result.stdout + result.stderr
    assert "expected $.json.n == 2, got 1" in result.stdout
    assert "ab\\\\cd" not in result.stdout and "ab\\cd" not in result.stdout, result.stdout
