"""`scenario-tui run` at scale, as a whole process against the demo API: folders and globs,
--tags expressions, --fail-fast, --verbose, --jobs, --variables-file, shell completion."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import time
from pathlib import Path

import pytest

from scenario_core.report.masking import MASK
from tests.core.http_doubles import LoopbackServer
from tests.tui.test_run_command import ENV, SCRIPT, run

OK = "scenario: {name}\n  when: GET /health\n  then: status 200\n"
SLOW = "scenario: {name}\n  when: GET /slow?ms={ms}\n  then: status 200\n"
TAGGED = """\
feature: Health
  @smoke
  scenario: quick
    when: GET /health
  @smoke @slow
  scenario: smoke but slow
    when: GET /slow?ms=10
  @pets
  scenario: pets
    when: GET /pets
"""


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def file_lines(stdout: str) -> list[str]:
    """The file header lines of a run's output (they start in column 0, and are not the summary)."""
    return [line for line in stdout.splitlines() if line and not line.startswith((" ", "["))][:-1]


# ---------------------------------------------------------------- folders and globs


def test_folders_recursively_sorted_and_globs_alongside_files(demo, tmp_path):
    write(tmp_path, "suite/b.scenario", OK.format(name="b"))
    write(tmp_path, "suite/a.scenario", OK.format(name="a"))
    write(tmp_path, "suite/deeper/c.scenario", OK.format(name="c"))
    write(tmp_path, "suite/notes.txt", "not a scenario")
    write(tmp_path, "other/x.scenario", OK.format(name="x"))
    single = write(tmp_path, "single.scenario", OK.format(name="single"))
    result = run(
        str(single),
        str(tmp_path / "suite"),
        str(tmp_path / "oth*" / "*.scenario"),
        str(tmp_path / "suite" / "a.scenario"),  # named twice: runs once
        "--base-url",
        demo.url,
    )
    assert result.returncode == 0, result.stderr
    assert file_lines(result.stdout) == [
        str(single),
        str(tmp_path / "suite/a.scenario"),
        str(tmp_path / "suite/b.scenario"),
        str(tmp_path / "suite/deeper/c.scenario"),
        str(tmp_path / "other/x.scenario"),
    ]
    assert result.stdout.splitlines()[-1].startswith("5 scenarios: 5 passed")


def test_a_folder_or_pattern_matching_nothing_is_a_usage_error(tmp_path):
    (tmp_path / "empty").mkdir()
    result = run(str(tmp_path / "empty"))
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == f"scenario-tui: error: {tmp_path / 'empty'}: no .scenario file in this folder\n"
    result = run(str(tmp_path / "nothing-*.scenario"))
    assert result.returncode == 2
    assert result.stderr == f"scenario-tui: error: {tmp_path / 'nothing-*.scenario'}: no file matches this pattern\n"


# ---------------------------------------------------------------- --tags


def test_tag_expression_selects_and_says_why_others_were_skipped(demo, tmp_path):
    path = write(tmp_path, "t.scenario", TAGGED)
    result = run(
        str(path), "--base-url", demo.url, "--tags", "smoke and not slow", "--report-json", str(tmp_path / "r.json")
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "✓ quick" in out
    assert "– smoke but slow  skipped: not selected by tags (wanted smoke and not slow)" in out
    assert "– pets  skipped" in out
    report = json.loads((tmp_path / "r.json").read_text())
    assert [s["status"] for s in report["files"][0]["scenarios"]] == ["passed", "skipped", "skipped"]


def test_comma_form_keeps_meaning_any_of(demo, tmp_path):
    path = write(tmp_path, "t.scenario", TAGGED)
    result = run(str(path), "--base-url", demo.url, "--tags", "slow,pets")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1].startswith("3 scenarios: 2 passed, 0 failed, 1 skipped")


def test_bad_expression_and_empty_selection_are_one_line_usage_errors(tmp_path):
    path = write(tmp_path, "t.scenario", TAGGED)
    result = run(str(path), "--tags", "smoke and (slow or")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == (
        "scenario-tui: error: --tags 'smoke and (slow or': expected a tag, 'not' or '(' "
        "but the expression ended at column 19\n"
    )
    result = run(str(path), "--tags", "wip")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == "scenario-tui: error: --tags 'wip': no scenario of these files is selected\n"


def test_the_tui_reads_the_same_expression(tmp_path):
    # A bad expression stops before the screen opens (no terminal needed to see it).
    path = write(tmp_path, "t.scenario", TAGGED)
    result = subprocess.run(
        [str(SCRIPT), str(path), "--tags", "not"], capture_output=True, text=True, timeout=30, env=ENV
    )
    assert result.returncode == 2
    assert result.stderr == (
        "scenario-tui: error: --tags 'not': expected a tag, 'not' or '(' but the expression ended at column 4\n"
    )


# ---------------------------------------------------------------- --fail-fast


def test_fail_fast_skips_everything_after_the_first_failure(demo, tmp_path):
    first = write(
        tmp_path,
        "1.scenario",
        "scenario: broken\n  when: GET /pets/42\n  then: status 200\n" + OK.format(name="same file"),
    )
    second = write(tmp_path, "2.scenario", OK.format(name="next file"))
    report = tmp_path / "r.json"
    result = run(str(first), str(second), "--base-url", demo.url, "--fail-fast", "--report-json", str(report))
    assert result.returncode == 1, result.stderr
    assert "– same file  skipped: not run: --fail-fast stopped the run after a failure" in result.stdout
    assert "– next file  skipped: not run: --fail-fast" in result.stdout
    assert result.stdout.splitlines()[-1].startswith("3 scenarios: 0 passed, 1 failed, 2 skipped")
    data = json.loads(report.read_text())
    assert data["interrupted"] is False
    assert [s["status"] for f in data["files"] for s in f["scenarios"]] == ["failed", "skipped", "skipped"]
    # Without it, the same run goes on.
    assert run(str(first), str(second), "--base-url", demo.url).stdout.count("✓") == 2


# ---------------------------------------------------------------- --verbose


SECRET = """\
scenario: talks
  when: POST /echo
    headers:
      Authorization: Bearer {{token}}
    body: {"note": "{{token}}", "text": "hello"}
  then: status 200
"""


def test_verbose_prints_every_exchange_masked(demo, tmp_path):
    path = write(tmp_path, "v.scenario", SECRET)
    result = run(str(path), "--base-url", demo.url, "--var", "token=sk-live-abcdef123456", "--verbose")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert f"→ POST {demo.url}/echo" in out
    assert f"  Authorization: Bearer {MASK}" in out
    assert '"text": "hello"' in out  # the request body
    assert "← 200 OK  (" in out and " ms)" in out
    assert "  Content-Type: application/json" in out
    assert "sk-live-abcdef123456" not in out  # masked everywhere, bodies included
    assert "connection:" not in out
    very = run(str(path), "--base-url", demo.url, "--var", "token=sk-live-abcdef123456", "--very-verbose").stdout
    host = demo.url.split("//")[1]
    assert f"  connection: {host} (http)" in very
    assert "sk-live-abcdef123456" not in very


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_verbose_lines_name_their_file_when_several_run(demo, tmp_path, jobs):
    a = write(tmp_path, "a.scenario", OK.format(name="a"))
    b = write(tmp_path, "b.scenario", OK.format(name="b"))
    result = run(str(a), str(b), "--base-url", demo.url, "--verbose", "--jobs", jobs)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert f"[{a}] → GET {demo.url}/health" in lines and f"[{b}] → GET {demo.url}/health" in lines
    assert any(line.startswith(f"[{b}] ← 200 OK") for line in lines)


# ---------------------------------------------------------------- --jobs


class Rendezvous(LoopbackServer):
    """Answers GET /file/N only once `expected` requests are in flight at the same time (or after
    a generous wait, so a run one file after another fails the test instead of hanging it): the
    quick file (`first`) is answered at once, the others only after it. `most` is the largest
    number of requests it saw in flight together."""

    def __init__(self, expected: int, first: str) -> None:
        super().__init__()
        self.expected, self.first = expected, first
        self.in_flight = self.most = 0
        self.answered_first: asyncio.Event | None = None
        self.all_here: asyncio.Event | None = None

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.all_here is None:
            self.all_here, self.answered_first = asyncio.Event(), asyncio.Event()
        head = await reader.readuntil(b"\r\n\r\n")
        path = head.split(b" ", 2)[1].decode()
        self.in_flight += 1
        self.most = max(self.most, self.in_flight)
        if self.in_flight >= self.expected:
            self.all_here.set()
        try:
            await asyncio.wait_for(self.all_here.wait(), 20)
        except asyncio.TimeoutError:
            pass  # not all at once: answered anyway, and `most` says so
        if path != self.first:
            try:
                await asyncio.wait_for(self.answered_first.wait(), 20)
            except asyncio.TimeoutError:
                pass
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
        await writer.drain()
        self.in_flight -= 1
        if path == self.first:
            self.answered_first.set()


def test_jobs_run_files_at_once_and_keep_their_order(tmp_path):
    # The last file is answered first, yet is printed and reported last.
    names = [f"/file/{i}" for i in range(4)]
    paths = [
        write(tmp_path, f"{i}.scenario", f"scenario: s{i}\n  when: GET {name}\n  then: status 200\n")
        for i, name in enumerate(names)
    ]
    report = tmp_path / "r.json"
    with Rendezvous(expected=4, first=names[-1]) as server:
        result = run(
            *map(str, paths), "--base-url", server.url, "--jobs", "4", "--report-json", str(report), timeout=60
        )
    assert result.returncode == 0, result.stderr
    assert server.most == 4  # at once: the server had the four requests in flight together
    assert file_lines(result.stdout) == [str(p) for p in paths]
    assert [f["path"] for f in json.loads(report.read_text())["files"]] == [str(p) for p in paths]
    assert result.stdout.splitlines()[-1].startswith("4 scenarios: 4 passed")


def test_jobs_auto_and_bad_values(demo, tmp_path):
    path = write(tmp_path, "a.scenario", OK.format(name="a"))
    assert run(str(path), "--base-url", demo.url, "--jobs", "auto").returncode == 0
    result = run(str(path), "--jobs", "0")
    assert result.returncode == 2 and result.stderr.count("\n") == 1
    assert "expected a number of files to run at once (1 or more) or auto, got 0" in result.stderr


def test_ctrl_c_stops_every_file_of_a_parallel_run(demo, tmp_path):
    paths = [write(tmp_path, f"{i}.scenario", SLOW.format(name=f"s{i}", ms=60000)) for i in range(3)]
    report = tmp_path / "r.json"
    process = subprocess.Popen(
        [str(SCRIPT), "run", *map(str, paths), "--base-url", demo.url, "--jobs", "3", "--report-json", str(report)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=ENV,
    )
    # Ctrl+C once the server has the three files' requests (not after a guessed delay: on a busy
    # machine the run could still be starting, and a Ctrl+C then ends it before any file ran).
    deadline = time.monotonic() + 30  # only so that a run that never sends fails instead of hanging
    while demo.connections_accepted < 3:
        assert time.monotonic() < deadline and process.poll() is None, "the three requests were not sent"
        time.sleep(0.02)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)  # every file stopped: waiting takes the server's 60 s
    assert process.returncode == 130, err
    assert err == "" and out.splitlines()[-1].startswith("Interrupted after ")
    data = json.loads(report.read_text())
    assert data["interrupted"] is True
    assert [f["path"] for f in data["files"]] == [str(p) for p in paths]


def test_closed_pipe_during_a_parallel_run_ends_quietly(demo, tmp_path):
    paths = [write(tmp_path, f"{i}.scenario", OK.format(name=f"s{i}") * 1) for i in range(4)]
    process = subprocess.Popen(
        [str(SCRIPT), "run", *map(str, paths), "--base-url", demo.url, "--jobs", "4"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=ENV,
    )
    process.stdout.readline()
    process.stdout.close()
    err = process.stderr.read().decode()
    assert process.wait(timeout=10) in (0, 141)
    assert "Traceback" not in err


# ---------------------------------------------------------------- --variables-file


USES = """\
scenario: uses
  when: POST /echo
    body: {"a": "{{a}}", "b": {{b}}, "c": "{{c}}"}
  then: $.json.a == "{{expectA}}"
  then: $.json.b == 2
  then: $.json.c == "from var"
"""


@pytest.mark.parametrize(
    "name, text",
    [
        ("vars.json", '{"a": "json", "b": 2, "c": "file", "expectA": "json"}'),
        ("vars.env", "# a comment\n\nexport a=dotenv\nb=2\nc='file'\nexpectA = \"dotenv\"\n"),
    ],
)
def test_variables_file_json_or_dotenv_and_var_wins(demo, tmp_path, name, text):
    path = write(tmp_path, "u.scenario", USES)
    variables = write(tmp_path, name, text)
    result = run(str(path), "--base-url", demo.url, "--variables-file", str(variables), "--var", "c=from var")
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_bad_variables_file_is_one_located_line(tmp_path):
    path = write(tmp_path, "u.scenario", USES)
    variables = write(tmp_path, "vars.env", "a=1\n  not a pair\n")
    result = run(str(path), "--variables-file", str(variables))
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == f"{variables}:2:3: error: expected NAME=VALUE with NAME made of letters, digits and _\n"
    broken = write(tmp_path, "vars.json", '{"a": 1,}')
    result = run(str(path), "--variables-file", str(broken))
    assert result.returncode == 2 and result.stderr.startswith(f"{broken}:1:9: error: not a JSON object")
    result = run(str(path), "--variables-file", str(tmp_path / "missing.env"))
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "missing.env" in result.stderr


# ---------------------------------------------------------------- completion


@pytest.mark.parametrize("shell, needle", [("bash", "--jobs"), ("zsh", "--jobs"), ("fish", "jobs")])
def test_shell_completion_scripts(shell, needle):
    result = subprocess.run(
        [str(SCRIPT), "--print-completion", shell], capture_output=True, text=True, timeout=30, env=ENV
    )
    assert result.returncode == 0, result.stderr
    assert "scenario-tui" in result.stdout and needle in result.stdout and "fail-fast" in result.stdout


# ---------------------------------------------------------------- the TUI's --tags


async def test_the_tui_runs_only_what_the_expression_selects(tmp_path, make_app, ui):
    from scenario_core.language.tag_expressions import parse_tag_expression
    from scenario_core.run.stepper import FINISHED

    path = write(tmp_path, "t.scenario", TAGGED)
    app = make_app(path, tags=parse_tag_expression("smoke and not slow"))
    async with app.run_test(size=(120, 40)) as pilot:
        await ui.settle(pilot)
        await ui.press(pilot, "c")
        assert app.stepper.state == FINISHED
        assert "1 passed · 0 failed · 2 skipped" in app.status_bar.text
