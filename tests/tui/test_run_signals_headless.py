"""A headless `run` drives the engine, a plain generator, without an event loop. Checked as
whole processes against the demo API: it never imports asyncio (nor with webhooks or --jobs) and
still works; SIGTERM and Ctrl+C end a request in flight or a retry wait at once, a second Ctrl+C
ends the wind-down, and the reports are always written; an async custom step runs on a loop of
its own."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tests.tui.test_run_command import ENV, SCRIPT

POSIX_SIGNALS = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def in_process(*args: str) -> tuple[int, bool]:
    """`scenario-tui ARGS` run by main() in a fresh interpreter: (its status, whether asyncio
    was imported by the end)."""
    code = (
        "import sys\n"
        "from scenario_tui.cli.main import main\n"
        f"status = main({list(args)!r})\n"
        "print('STATUS', status, 'ASYNCIO', 'asyncio' in sys.modules)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=ENV, timeout=60)
    last = result.stdout.splitlines()[-1] if result.stdout else ""
    assert last.startswith("STATUS "), result.stdout + result.stderr
    _, status, _, loaded = last.split()
    return int(status), loaded == "True"


def started(*args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [str(SCRIPT), "run", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV
    )


def wait_for_line(process: subprocess.Popen, prefix: str) -> list[str]:
    """Lines of output up to the first that starts with `prefix` (stripped of indentation)."""
    seen: list[str] = []
    while True:
        line = process.stdout.readline()
        if not line:
            raise AssertionError(f"no line starting {prefix!r} in {seen!r}: {process.stderr.read()}")
        seen.append(line)
        if line.strip().startswith(prefix):
            return seen


QUICK_THEN_SLOW = """
scenario: quick
  when: GET /health
scenario: slow
  when: GET /slow?ms=60000
  then: status 200
scenario: never reached
  when: GET /health
"""


def test_a_sequential_run_never_imports_asyncio(demo, tmp_path):
    path = write(tmp_path, "a.scenario", QUICK_THEN_SLOW.replace("/slow?ms=60000", "/slow?ms=10"))
    status, asyncio_loaded = in_process("run", str(path), "--base-url", demo.url, "--report-json", str(tmp_path / "r"))
    assert (status, asyncio_loaded) == (0, False)
    data = json.loads((tmp_path / "r").read_text())
    assert [s["status"] for s in data["files"][0]["scenarios"]] == ["passed", "passed", "passed"]


def _interrupted_report(report: Path) -> list[dict]:
    data = json.loads(report.read_text())
    assert data["interrupted"] is True
    return data["files"][0]["scenarios"]


@POSIX_SIGNALS
def test_sigterm_during_a_slow_request_exits_143_with_reports(demo, tmp_path):
    path = write(tmp_path, "a.scenario", QUICK_THEN_SLOW)
    report, junit = tmp_path / "r.json", tmp_path / "j.xml"
    process = started(str(path), "--base-url", demo.url, "--report-json", str(report), "--report-junit", str(junit))
    wait_for_line(process, "✓ quick")
    time.sleep(2)  # time for a busy machine to send GET /slow?ms=60000, and well inside it
    process.send_signal(signal.SIGTERM)
    # The request in flight ended, not waited for: waiting would take the server's 60 s.
    out, err = process.communicate(timeout=30)
    assert (process.returncode, err) == (143, "")
    assert out.splitlines()[-1].startswith("Interrupted after ")
    scenarios = _interrupted_report(report)
    assert [s["name"] for s in scenarios] == ["quick", "slow"]
    assert scenarios[1]["steps"][0]["message"] == "interrupted"
    assert junit.exists()


NAPPING = """
from scenario_core.custom_steps import step
import time


@step("I nap {int} seconds")
def nap(ctx, seconds):
    print("napping", flush=True)
    time.sleep(seconds)
"""


@POSIX_SIGNALS
def test_a_second_ctrl_c_during_the_wind_down_writes_reports_and_exits_130(demo, tmp_path):
    # The first Ctrl+C stops the run, but a custom step is not a request: the run waits for it
    # (the wind-down). The second stops waiting.
    plugin = write(tmp_path, "napping_steps.py", NAPPING)
    path = write(
        tmp_path,
        "a.scenario",
        """
        scenario: naps
          when: GET /health
          given I nap 60 seconds
          when: GET /health
        scenario: never reached
          when: GET /health
        """,
    )
    report = tmp_path / "r.json"
    process = started(str(path), "--base-url", demo.url, "--plugins", str(plugin), "--report-json", str(report))
    wait_for_line(process, "napping")
    time.sleep(0.3)
    process.send_signal(signal.SIGINT)
    time.sleep(0.5)
    assert process.poll() is None  # still waiting for the step
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)  # the step naps 60 s: the second Ctrl+C stopped waiting
    assert (process.returncode, err) == (130, "")
    assert out.splitlines()[-1].startswith("Interrupted after ")
    # The stream ended without the scenario's end: it is absent, the file still listed (recorder.py).
    assert _interrupted_report(report) == []
    assert json.loads(report.read_text())["files"][0]["path"] == str(path)


@POSIX_SIGNALS
def test_ctrl_c_during_a_retry_wait_ends_at_once_interrupted(demo, tmp_path):
    path = write(
        tmp_path,
        "a.scenario",
        """
        parameters:
          retry.maxAttempts: 3
          retry.delay: 60000
          retry.backoff: fixed
          retry.jitter: false
        scenario: unavailable
          when: GET /status/503
          then: status 200
        """,
    )
    report = tmp_path / "r.json"
    process = started(str(path), "--base-url", demo.url, "--report-json", str(report))
    wait_for_line(process, str(path))
    time.sleep(3)  # the first attempt answered 503 at once (even on a busy machine): waiting 60 s for the next
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)  # ended at once: the wait was not finished
    assert (process.returncode, err) == (130, "")
    (scenario,) = _interrupted_report(report)
    assert scenario["status"] == "failed" and scenario["steps"][0]["message"] == "interrupted"


WEBHOOK = """
scenario: a webhook receives what is posted to it
  given a callback server
    webhook: events
      hook: created
      port: 0
  when: POST {{events.created}}
    body: {"event": "created", "id": 7}
  then: status 200
  when: POST /echo
    body: {"calls": "{{events.created.length}}"}
  then: $.json.calls == "1"
"""


def test_a_file_with_a_webhook_runs_without_asyncio(demo, tmp_path):
    path = write(tmp_path, "hook.scenario", WEBHOOK)
    assert in_process("run", str(path), "--base-url", demo.url) == (0, False)


def test_a_parallel_run_runs_without_asyncio(demo, tmp_path):
    paths = [str(write(tmp_path, f"{i}.scenario", QUICK_THEN_SLOW.replace("ms=60000", "ms=10"))) for i in range(2)]
    assert in_process("run", *paths, "--base-url", demo.url, "--jobs", "2") == (0, False)


ASYNC_STEP = """
import asyncio

from scenario_core.custom_steps import step


@step("I remember {word} after a pause")
async def remember(ctx, word):
    await asyncio.sleep(0.01)
    ctx.set("remembered", word)
"""


def test_an_async_custom_step_works_in_a_headless_run(demo, tmp_path):
    plugin = write(tmp_path, "async_steps.py", ASYNC_STEP)
    path = write(
        tmp_path,
        "a.scenario",
        """
        scenario: async step
          given I remember kiwi after a pause
          when: POST /echo
            body: {"word": "{{remembered}}"}
          then: $.json.word == "kiwi"
        scenario: and again, in the same run
          given I remember fig after a pause
          when: POST /echo
            body: {"word": "{{remembered}}"}
          then: $.json.word == "fig"
        """,
    )
    status, _ = in_process("run", str(path), "--base-url", demo.url, "--plugins", str(plugin))
    assert status == 0
