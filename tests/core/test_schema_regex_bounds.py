"""Every regular expression a response schema runs on a response (`pattern`,
`patternProperties`, `format: regex`) is bounded by the request's deadline and stops on Ctrl+C.
`^(a+)+$` against a long `aaaa…b` used to run for 669 s, deaf to SIGINT and SIGTERM. Real runs
against a loopback server; the signal test runs the real console script."""

from __future__ import annotations

import contextlib
import http.server
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from scenario_core.language.parser import load_file
from scenario_core.openapi.loader import DescriptionCache
from scenario_core.openapi.operations import Schema
from scenario_core.openapi.schema_check import validate_value
from scenario_core.openapi.schema_patterns import MAX_EXPANSION, PatternError, compile_pattern
from scenario_core.parameters.resolution import RunOverrides
from scenario_core.run.events import ScenarioFinished, StepFinished
from scenario_core.run.executor import run_to_completion

SCRIPT = Path(sys.executable).with_name("scenario-tui")
ENV = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TTY_COMPATIBLE", "NO_COLOR", "PYTEST_ADDOPTS")}
EVIL = "^(a+)+$"
LONG = "a" * 100_000 + "b"  # `regex` gives up on this one only after its timeout

DESCRIPTION = """\
openapi: 3.0.3
info: {title: words, version: "1"}
paths:
  /word:
    get:
      operationId: getWord
      responses:
        "200":
          description: a word
          content:
            application/json:
              schema: {type: object, properties: {word: {type: string, pattern: "PATTERN"}}}
  /keys:
    get:
      operationId: getKeys
      responses:
        "200":
          description: keys
          content:
            application/json:
              schema: {type: object, patternProperties: {"PATTERN": {type: integer}}}
  /regexes:
    get:
      operationId: getRegexes
      responses:
        "200":
          description: a regular expression
          content:
            application/json:
              schema: {type: object, properties: {re: {type: string, format: regex}}}
"""


@contextlib.contextmanager
def serving(bodies: dict[str, object]):
    """A loopback server answering GET PATH with bodies[PATH] as JSON; `served` is set once it
    has answered one."""
    served = threading.Event()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            body = json.dumps(bodies[self.path]).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            served.set()

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", served
    finally:
        server.shutdown()
        server.server_close()


def scenario(tmp_path: Path, operation: str, timeout: int, pattern: str = EVIL) -> Path:
    (tmp_path / "api.yaml").write_text(DESCRIPTION.replace("PATTERN", pattern), encoding="utf-8")
    path = tmp_path / "words.scenario"
    path.write_text(
        f"parameters:\n  openapi: api.yaml\n  timeout: {timeout}\nscenario: s\n  when: ^{operation}\n  then: schema\n",
        encoding="utf-8",
    )
    return path


def run(path: Path, base_url: str) -> tuple[str, str | None, float]:
    started = time.monotonic()
    events = run_to_completion([load_file(str(path))], RunOverrides({"baseUrl": base_url}))
    took = time.monotonic() - started
    finished = [e for e in events if isinstance(e, ScenarioFinished)][0]
    failed = [e.message for e in events if isinstance(e, StepFinished) and e.status == "failed"]
    return finished.status, (failed or [None])[0], took


def test_a_schema_pattern_is_bounded_by_the_request_deadline(tmp_path):
    with serving({"/word": {"word": LONG}}) as (url, _):
        status, message, took = run(scenario(tmp_path, "getWord", timeout=2), url)
    assert status == "failed"
    assert message is not None and "pattern /^(a+)+$/ took longer than" in message, message
    assert "100,001-character value" in message and "$.word" in message
    # The message is the evidence the deadline stopped the search. The search run to its end
    # would take longer than anyone waits; 15 s of slack keeps a busy machine from mattering.
    assert 2 * 0.9 <= took < 2 + 15  # (the regex engine's own clock may end a hair before ours)


def test_pattern_properties_are_bounded_by_the_request_deadline(tmp_path):
    with serving({"/keys": {LONG: 1}}) as (url, _):
        status, message, took = run(scenario(tmp_path, "getKeys", timeout=1), url)
    assert status == "failed" and "took longer than" in (message or ""), message
    assert 1 * 0.9 <= took < 1 + 15  # the search unstopped: for ever (a hair early: the engine's clock)


def test_format_regex_refuses_a_value_that_would_not_compile_in_bounded_time(tmp_path):
    bomb = "(?:(?:(?:a{1000}){1000}){1000})"  # regex would expand it for ever when compiling
    with serving({"/regexes": {"re": bomb}}) as (url, _):
        status, message, took = run(scenario(tmp_path, "getRegexes", timeout=5), url)
    assert status == "failed" and "expected format regex" in (message or ""), message
    assert took < 15  # compiling the pattern unrefused: for ever
    with serving({"/regexes": {"re": "^[a-z]+$"}}) as (url, _):
        assert run(scenario(tmp_path, "getRegexes", timeout=5), url)[0] == "passed"


def test_an_honest_pattern_still_passes_and_fails_as_before(tmp_path):
    with serving({"/word": {"word": "a" * 100_000}}) as (url, _):
        assert run(scenario(tmp_path, "getWord", timeout=5), url)[0] == "passed"
    with serving({"/word": {"word": "abc"}}) as (url, _):
        status, message, _ = run(scenario(tmp_path, "getWord", timeout=5), url)
    assert status == "failed" and "$.word: expected text matching /^(a+)+$/" in (message or "")


def test_the_pattern_deadline_is_shared_by_every_value_of_one_check(tmp_path):
    # 200 values that each take the whole budget would otherwise take 200 budgets (100 s).
    (tmp_path / "api.yaml").write_text(DESCRIPTION.replace("PATTERN", EVIL), encoding="utf-8")
    description = DescriptionCache().load(tmp_path / "api.yaml")
    raw = {"type": "array", "items": {"type": "string", "pattern": EVIL}}
    schema = Schema(raw, description.path, None, "3.0", description)
    from scenario_core.openapi.schema_check import problems_of
    from scenario_core.openapi.schema_compile import compile_schema

    started = time.monotonic()
    problems = problems_of(compile_schema(schema), [LONG] * 200, seconds=0.5)
    assert 0.5 * 0.9 <= time.monotonic() - started < 0.5 + 15
    assert [p.path for p in problems][-1] == "$[0]" and "took longer than 0.5 s" in problems[-1].message
    assert validate_value(schema, ["aaa"]) == []


def test_patterns_that_would_compile_for_ever_are_refused():
    for pattern in ("(?:(?:(?:a{1000}){1000}){1000})", "a{,200000}", "x" * 20_000):
        with pytest.raises(PatternError):
            compile_pattern(pattern)
    assert MAX_EXPANSION >= 65_535
    for pattern in ("a{65535}", "(?:a|b){10000}", r"^\p{L}[\w.-]{1,64}@\S+$", "^[^]]*$"):
        compile_pattern(pattern)


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads a process's CPU time from /proc")
@pytest.mark.parametrize("signum, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_during_a_schema_pattern_ends_the_run(tmp_path, signum, code):
    path = scenario(tmp_path, "getWord", timeout=120)  # without the signal: 2 minutes
    with serving({"/word": {"word": LONG}}) as (url, served):
        process = subprocess.Popen(
            [str(SCRIPT), "run", str(path), "--base-url", url],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=ENV,
        )
        try:
            assert served.wait(60), "the run never sent its request"
            # The response is in. A signal that came before the check's first search would wait
            # for the check (docs/limits.md), so wait until the run has spent a CPU second since:
            # reading and parsing 100 kB take a few milliseconds, the rest is the search.
            spent = _cpu_seconds(process.pid)
            while _cpu_seconds(process.pid) < spent + 1 and process.poll() is None:
                time.sleep(0.05)
            process.send_signal(signum)
            # Ended within 30 s of the signal (else TimeoutExpired), not after the 120 s search.
            out, err = process.communicate(timeout=30)
        finally:
            process.kill()
    assert process.returncode == code, out + err
    assert "Traceback" not in err and "internal error" not in out + err, out + err
    assert "Interrupted after " in out, out
