"""`run --jobs N --dist scope` as a whole process (docs/spec/scopes.md#scope-parallel-runs): the
units the scope rules keep apart run at once -- shown by what a server saw in flight together,
never by a clock -- and the output, the reports and the exit status are those of `--jobs 1`."""

from __future__ import annotations

import asyncio
import json
import re
import signal
import subprocess
import time

from tests.core.http_doubles import LoopbackServer
from tests.tui.test_run_command import ENV, SCRIPT, run
from tests.tui.test_run_scale import write

ISOLATED = "scenario: iso {n}\n  when: GET /iso/{n}\n  then: status 200\n\n"
SHARING = """\
feature: Sharing
  parameters:
    shareVariablesAcrossScenarios: true
  scenario: first
    when: GET /feature/1
    then: status 200
    extract: token from $.next
  scenario: second
    when: GET /feature/{{token}}
    then: status 200
    extract: token from $.next
  scenario: third
    when: GET /feature/{{token}}
    then: status 200

"""


class Watching(LoopbackServer):
    """Answers GET /iso/N only once `isolated` such requests are in flight together (or after a
    generous wait, so a run one at a time fails the test instead of hanging it), and GET
    /feature/N at once with `{"next": N+1}`. It notes every arrival and departure in order."""

    def __init__(self, isolated: int) -> None:
        super().__init__()
        self.isolated = isolated
        self.in_flight: list[str] = []
        self.most_isolated = 0
        self.log: list[tuple[str, str, tuple[str, ...]]] = []  # (arrived|left, path, in flight then)
        self.all_here: asyncio.Event | None = None

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.all_here is None:
            self.all_here = asyncio.Event()
        while True:
            try:
                head = await reader.readuntil(b"\r\n\r\n")
            except (asyncio.IncompleteReadError, ConnectionError):
                return
            path = head.split(b" ", 2)[1].decode()
            self.log.append(("arrived", path, tuple(self.in_flight)))
            self.in_flight.append(path)
            body = b"{}"
            if path.startswith("/iso/"):
                self.most_isolated = max(self.most_isolated, sum(p.startswith("/iso/") for p in self.in_flight))
                if self.most_isolated >= self.isolated:
                    self.all_here.set()
                try:
                    await asyncio.wait_for(self.all_here.wait(), 20)
                except asyncio.TimeoutError:
                    pass
            else:
                body = json.dumps({"next": int(path.rsplit("/", 1)[1]) + 1}).encode()
            self.in_flight.remove(path)
            self.log.append(("left", path, tuple(self.in_flight)))
            writer.write(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)
            )
            await writer.drain()


def steady(stdout: str) -> list[str]:
    """The lines of a run's output without what a clock decides (durations, rates)."""
    text = re.sub(r"\d+(\.\d+)? ?(ms|s)\b", "T", stdout)
    return re.sub(r"[\d.]+ req/s", "R req/s", text).splitlines()


def test_scope_parallel_runs_isolated_scenarios_at_once_and_a_sharing_feature_in_order(tmp_path):
    path = write(tmp_path, "mixed.scenario", "".join(ISOLATED.format(n=n) for n in range(3)) + SHARING)
    report = tmp_path / "r.json"
    with Watching(isolated=3) as server:
        result = run(
            str(path), "--base-url", server.url, "--jobs", "4", "--dist", "scope", "--report-json", str(report),
            timeout=90,
        )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert server.most_isolated == 3  # the three isolated scenarios were in flight together
    feature = [(what, p, others) for what, p, others in server.log if p.startswith("/feature/")]
    # the sharing feature: one unit, its scenarios in order, never two of its requests at once
    assert [p for what, p, _ in feature if what == "arrived"] == ["/feature/1", "/feature/2", "/feature/3"]
    assert all(not any(o.startswith("/feature/") for o in others) for _, _, others in feature)
    lines = steady(result.stdout)
    assert [line.strip() for line in lines if "✓" in line] == [
        "✓ iso 0  T", "✓ iso 1  T", "✓ iso 2  T", "✓ first  T", "✓ second  T", "✓ third  T"
    ]  # fmt: skip
    data = json.loads(report.read_text())
    assert [s["name"] for f in data["files"] for s in f["scenarios"]] == [
        "iso 0", "iso 1", "iso 2", "first", "second", "third"
    ]  # fmt: skip


MIXED_DEMO = """\
background:
  when: POST /login
    body: {"username": "demo", "password": "demo"}
  extract: token from $.token

scenario: health
  when: GET /health
  then: status 200

feature: Pets
  parameters:
    shareVariablesAcrossScenarios: true
  scenario: create
    when: POST /pets
      headers:
        Authorization: Bearer {{token}}
      body: {"name": "Rex", "tag": "dog"}
    then: status 201
    extract: petId from $.id
  scenario: read
    when: GET /pets/{{petId}}
    then: status 200

feature: Checks
  scenario: fails on purpose
    when: GET /health
    then: status 418
  scenario: still runs
    when: GET /health
    then: status 200
"""


def test_scope_parallel_runs_give_the_output_reports_and_status_of_one_at_a_time(demo, tmp_path):
    a = write(tmp_path, "a.scenario", MIXED_DEMO)
    b = write(tmp_path, "b.scenario", MIXED_DEMO.replace("Rex", "Tom"))
    results = {}
    for name, extra in (("one", ["--jobs", "1"]), ("scope", ["--jobs", "4", "--dist", "scope"])):
        demo.reset()  # pet ids start at 1 for both runs
        (tmp_path / name).mkdir()
        report, junit = tmp_path / name / "r.json", tmp_path / name / "r.xml"
        result = run(
            str(a), str(b), "--base-url", demo.url, *extra, "--report-json", str(report), "--report-junit", str(junit)
        )
        data = json.loads(report.read_text())
        scenarios = [
            (s["name"], s["status"], [st.get("message") for st in s.get("steps", [])])
            for f in data["files"]
            for s in f["scenarios"]
        ]
        results[name] = (
            result.returncode,
            steady(result.stdout.replace(str(tmp_path / name), "REPORTS")),
            scenarios,
            {k: v for k, v in data["summary"].items() if k != "duration_s"},
        )
        results[name + " junit"] = re.sub(r'time="[^"]*"|timestamp="[^"]*"|\(\d+ ms\)', "", junit.read_text())
    assert results["one"][0] == results["scope"][0] == 1  # the failing unit fails the run
    assert results["scope"][1] == results["one"][1]
    assert results["scope"][2] == results["one"][2]
    assert results["scope"][3] == results["one"][3]
    assert results["scope junit"] == results["one junit"]


def test_ctrl_c_stops_every_unit_of_a_scope_parallel_run(demo, tmp_path):
    path = write(
        tmp_path, "slow.scenario", "".join(f"scenario: s{n}\n  when: GET /slow?ms=60000\n\n" for n in range(3))
    )
    report = tmp_path / "r.json"
    process = subprocess.Popen(
        [str(SCRIPT), "run", str(path), "--base-url", demo.url, "--jobs", "3", "--dist", "scope",
         "--report-json", str(report)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=ENV,
    )  # fmt: skip
    deadline = time.monotonic() + 30  # only so that a run that never sends fails instead of hanging
    while demo.connections_accepted < 3:  # the three units' requests are at the server
        assert time.monotonic() < deadline and process.poll() is None, "the three requests were not sent"
        time.sleep(0.02)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)  # every unit stopped: waiting would take the server's 60 s
    assert process.returncode == 130, err
    assert err == "" and out.splitlines()[-1].startswith("Interrupted after ")
    data = json.loads(report.read_text())
    assert data["interrupted"] is True and [f["path"] for f in data["files"]] == [str(path)]


def test_dist_takes_file_or_scope_only(tmp_path):
    path = write(tmp_path, "a.scenario", ISOLATED.format(n=0))
    result = run(str(path), "--dist", "row")
    assert result.returncode == 2 and result.stderr.count("\n") == 1
