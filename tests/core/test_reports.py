"""Reports built from the event stream of real runs against the demo API: the JSON shape of docs/spec/cli.md#json-report,
JUnit XML read back with ElementTree, atomic writes, interrupted runs, masking."""

from __future__ import annotations

import json
import os
import threading
import xml.etree.ElementTree as ET

import pytest

from scenario_core.language.parser import load_file
from scenario_core.parameters.resolution import RunOverrides
from scenario_core.report.json_report import json_report, write_json_report
from scenario_core.report.junit import junit_classname, junit_report, write_junit_report
from scenario_core.report.masking import MASK, Masker
from scenario_core.report.recorder import RunRecorder
from scenario_core.report.records import RESPONSE_BODY_LIMIT
from scenario_core.report.writing import atomic_write
from scenario_core.run.events import RequestSent
from scenario_core.run.executor import Execution, run_to_completion
from scenario_core.run.options import RunOptions

MIXED = """
parameters:
  shareVariablesAcrossScenarios: true

background:
  when: GET /health
  then: status 200

fragment: login
  when: POST /login
    body: {"username": "ann", "password": "pw"}
  then: status 200
  extract: token from $.token

feature: Pets
  @smoke
  scenario: create
    include: login
    when: POST /pets
      headers:
        Authorization: Bearer {{token}}
      body: {"name": "Rex", "tag": "dog"}
    then: status 201
    extract: petId from $.id

  @smoke
  scenario: wrong name
    when: GET /pets/{{petId}}
    then: $.name == "Max"
    then: status 200

  @slow
  scenario: tagged out
    when: GET /slow?ms=10

@smoke
scenario: standalone
  when: GET /pets/{{petId}}
  then: $.name == "Rex"
"""

RUN_VARS = {"env": "staging", "apiKey": "run-secret-value"}


def record(events) -> RunRecorder:
    recorder = RunRecorder()
    for event in events:
        recorder.feed(event)
    return recorder


@pytest.fixture
def mixed(demo, write_scenario):
    """The recorded run of MIXED with --tags smoke, and the masker that saw it."""
    path = write_scenario(MIXED)
    events = run_to_completion([str(path)], RunOverrides.from_cli([], demo.url, None), RUN_VARS, {"smoke"})
    masker = Masker()
    for event in events:
        masker.feed(event)
    return path, record(events), masker


def step(line, keyword, status="passed", message=None):
    return {"line": line, "keyword": keyword, "status": status, "message": message}


def core(steps):
    """The fields of each step in docs/spec/cli.md#json-report (the report adds each step's label after them)."""
    return [{key: s[key] for key in ("line", "keyword", "status", "message")} for s in steps]


def test_json_report_has_exactly_the_cli_md_shape(mixed):
    path, recorder, masker = mixed
    report = json_report(recorder, masker)
    assert list(report) == ["summary", "files", "interrupted"]
    assert report["interrupted"] is False
    summary = report["summary"]
    assert list(summary) == ["scenarios", "passed", "failed", "skipped", "duration_s"]
    assert (summary["scenarios"], summary["passed"], summary["failed"], summary["skipped"]) == (4, 2, 1, 1)
    assert isinstance(summary["duration_s"], float) and 0 < summary["duration_s"] < 30
    (file,) = report["files"]
    assert list(file) == ["path", "scenarios"] and file["path"] == str(path)
    scenarios = file["scenarios"]
    assert [s["name"] for s in scenarios] == ["create", "wrong name", "tagged out", "standalone"]  # source order
    for scenario in scenarios:
        # The fields of docs/spec/cli.md#json-report first, in its order; what the report adds comes after them.
        assert list(scenario) == ["name", "feature", "line", "status", "steps", "variables", "scope_events"]
        for s in scenario["steps"]:
            # docs/spec/cli.md#json-report's, then the label
            assert list(s)[:5] == ["line", "keyword", "status", "message", "label"]
            assert list(s)[5:] == (
                ["request", "response"] if s["keyword"] == "when" and s["status"] != "skipped" else []
            )

    create, wrong, tagged, standalone = scenarios
    background = [step(5, "when"), step(6, "then")]
    assert (create["feature"], create["line"], create["status"]) == ("Pets", 16, "passed")
    # Background steps, then the fragment's steps with their own lines, then the scenario's own.
    assert core(create["steps"]) == background + [
        step(9, "when"),
        step(11, "then"),
        step(12, "extract"),
        step(18, "when"),
        step(22, "then"),
        step(23, "extract"),
    ]
    # Every visible variable at the end: the file store (token, petId) and run variables; masked.
    assert create["variables"] == {"env": "staging", "apiKey": MASK, "token": MASK, "petId": 1}

    assert (wrong["line"], wrong["status"]) == (26, "failed")
    assert core(wrong["steps"][:3]) == background + [step(27, "when")]
    failed, skipped = wrong["steps"][3:]
    assert (failed["line"], failed["keyword"], failed["status"]) == (28, "then", "failed")
    assert "Max" in failed["message"] and "Rex" in failed["message"]
    assert (skipped["line"], skipped["status"]) == (29, "skipped") and skipped["message"]
    assert wrong["variables"] == {"env": "staging", "apiKey": MASK, "token": MASK, "petId": 1}

    assert (tagged["status"], tagged["steps"], tagged["line"]) == ("skipped", [], 32)
    assert tagged["variables"] == {"env": "staging", "apiKey": MASK}

    assert (standalone["feature"], standalone["line"], standalone["status"]) == (None, 36, "passed")
    assert core(standalone["steps"]) == background + [step(37, "when"), step(38, "then")]
    assert standalone["variables"]["petId"] == 1


def test_json_report_unmasked_when_secrets_are_shown(mixed, demo):
    _, recorder, _ = mixed
    report = json_report(recorder, Masker(enabled=False))
    variables = report["files"][0]["scenarios"][0]["variables"]
    assert variables["apiKey"] == "run-secret-value"
    assert variables["token"] in demo._server.state.tokens


def test_reports_never_contain_secrets_when_masked(mixed, demo, tmp_path):
    _, recorder, masker = mixed
    write_json_report(tmp_path / "r.json", recorder, masker)
    write_junit_report(tmp_path / "r.xml", recorder, masker)
    (token,) = demo._server.state.tokens
    for name in ("r.json", "r.xml"):
        text = (tmp_path / name).read_text(encoding="utf-8")
        assert token not in text and "run-secret-value" not in text


def test_junit_xml_reads_back(mixed):
    path, recorder, masker = mixed
    write_dir = path.parent
    write_junit_report(write_dir / "junit.xml", recorder, masker)
    root = ET.parse(write_dir / "junit.xml").getroot()
    assert root.tag == "testsuites"
    assert (root.get("tests"), root.get("failures"), root.get("skipped"), root.get("errors")) == ("4", "1", "1", "0")
    assert root.get("interrupted") is None
    suites = root.findall("testsuite")
    # One suite per feature, one per file for its standalone scenarios.
    assert [s.get("name") for s in suites] == [f"{path} :: Pets", str(path)]
    pets, standalone = suites
    assert (pets.get("tests"), pets.get("failures"), pets.get("skipped")) == ("3", "1", "1")
    assert float(pets.get("time")) >= 0
    cases = pets.findall("testcase")
    assert [c.get("name") for c in cases] == ["create", "wrong name", "tagged out"]
    classname = junit_classname(str(path), None)
    assert {c.get("classname") for c in cases} == {f"{classname}.Pets"} and "." not in classname
    assert {c.get("file") for c in cases} == {str(path)}  # the path as given stays in file=
    assert all(float(c.get("time")) >= 0 for c in cases)
    assert cases[0].find("failure") is None and cases[0].find("skipped") is None
    failure = cases[1].find("failure")
    assert failure.get("message").startswith('line 28: expected $.name == "Max"')
    details = failure.text.splitlines()
    assert details[0] == 'line 28  then: $.name == "Max"'
    assert details[2].startswith("GET http://") and "/pets/1 → 200 OK" in details[2]
    assert '"name": "Rex"' in details[3]
    assert cases[2].find("skipped").get("message").startswith("not selected by tags")
    (case,) = standalone.findall("testcase")
    assert (case.get("classname"), case.get("name"), case.get("line")) == (classname, "standalone", "36")


@pytest.mark.parametrize(
    "path, feature, classname",
    [
        ("../mine/shop.scenario", "Cats", "mine/shop.Cats"),
        ("./shop.scenario", None, "shop"),
        ("/abs/v1.2/api.v2.scenario", "Pets v1.0", "abs/v1_2/api_v2.Pets v1_0"),
        ("C:\\suite\\x.scenario", None, "C:/suite/x"),
        (".scenario", None, "_scenario"),
    ],
)
def test_junit_classnames_keep_no_path_dots(path, feature, classname):
    assert junit_classname(path, feature) == classname


def test_junit_escapes_markup_in_names_and_messages(demo, write_scenario, tmp_path):
    path = write_scenario("""
        scenario: <a & "b">
          when: GET /health
          then: $.status == "<&>"
    """)
    recorder = record(run_to_completion([str(path)], RunOverrides.from_cli([], demo.url, None)))
    write_junit_report(tmp_path / "j.xml", recorder)
    case = ET.parse(tmp_path / "j.xml").getroot().find("testsuite/testcase")
    assert case.get("name") == '<a & "b">'
    assert '"<&>"' in case.find("failure").get("message")


def test_atomic_write_replaces_whole_and_leaves_no_temporary_file(tmp_path):
    target = tmp_path / "report.json"
    atomic_write(target, b"old")
    atomic_write(target, b"new")
    assert target.read_bytes() == b"new"
    assert os.listdir(target.parent) == ["report.json"]
    umask = os.umask(0o022)
    os.umask(umask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~umask  # as open() would make it, not mkstemp's 0600


def test_atomic_write_failure_keeps_the_old_file_and_cleans_up(tmp_path, monkeypatch):
    target = tmp_path / "report.json"
    target.write_text("old")

    def boom(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError):
        atomic_write(target, b"new")
    assert target.read_text() == "old"
    assert os.listdir(tmp_path) == ["report.json"]


def test_atomic_write_interrupted_while_writing_cleans_up(tmp_path, monkeypatch):
    target = tmp_path / "report.json"

    def interrupted(fd):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        atomic_write(target, b"data")
    assert os.listdir(tmp_path) == []


def test_interrupted_run_report(demo, write_scenario):
    path = write_scenario("""
        scenario: quick
          when: GET /health
        scenario: slow
          when: GET /slow?ms=5000
          then: status 200
        scenario: never reached
          when: GET /health
    """)
    execution = Execution([load_file(str(path))], RunOptions(overrides=RunOverrides.from_cli([], demo.url, None)))
    recorder = RunRecorder()

    stopper = threading.Timer(0.2, execution.stop)  # from another thread, while the request waits
    for event in execution.events():
        recorder.feed(event)
        if isinstance(event, RequestSent) and "/slow" in event.url:
            stopper.start()
    stopper.join()
    report = json_report(recorder)
    assert report["interrupted"] is True
    assert report["summary"]["duration_s"] < 4
    quick, slow = report["files"][0]["scenarios"]  # "never reached" is absent
    assert quick["status"] == "passed"
    assert slow["status"] == "failed"
    assert core(slow["steps"]) == [step(4, "when", "failed", "interrupted"), step(5, "then", "skipped", "interrupted")]
    assert (report["summary"]["scenarios"], report["summary"]["failed"]) == (2, 1)
    root = junit_report(recorder).getroot()
    assert root.get("interrupted") == "true"
    assert root.find("testsuite/testcase[@name='slow']/failure").get("message") == "line 4: interrupted"


def test_recorder_finish_without_run_finished_marks_interrupted():
    recorder = RunRecorder()
    recorder.finish(interrupted=True)
    report = json_report(recorder)
    assert report["interrupted"] is True and report["files"] == []
    assert report["summary"] == {
        "scenarios": 0,
        "passed": 0,
        "failed": 0,
        "skipped": 0,
        "duration_s": report["summary"]["duration_s"],
    }
    json.dumps(report)


# ---------------------------------------------------------------- hardening


def _recorder_with(variables=None, message="failed", body=None):
    from scenario_core.report.records import Exchange, FileRecord, ScenarioRecord, StepRecord

    recorder = RunRecorder()
    step = StepRecord(3, "then", "status 200", "failed", message, "scenario", 0.0)
    scenario = ScenarioRecord(
        "x.scenario",
        "s",
        None,
        1,
        status="failed",
        message=message,
        steps=[step],
        variables=variables or {},
        failed_step=step,
        finished=True,
    )
    scenario.exchange = Exchange(0, "GET", "http://h/x", (), None, 500, "Error", (), body, 0.01)
    recorder.files.append(FileRecord("x.scenario", [scenario]))
    recorder.finish(False, 0.1)
    return recorder


def test_deeply_nested_variables_are_reported_cut_at_a_marked_depth(tmp_path):
    deep = 1
    for _ in range(100_000):
        deep = [deep]
    recorder = _recorder_with({"deep": deep, "shallow": {"a": [1]}, "token": {"t": deep}})
    write_json_report(tmp_path / "r.json", recorder, Masker())
    write_junit_report(tmp_path / "j.xml", recorder, Masker())
    variables = json.loads((tmp_path / "r.json").read_text())["files"][0]["scenarios"][0]["variables"]
    assert variables["shallow"] == {"a": [1]} and variables["token"] == MASK
    value, depth = variables["deep"], 0
    while isinstance(value, list):
        value, depth = value[0], depth + 1
    assert depth == 200 and value == "… (nested deeper than 200 levels; cut here)"
    ET.parse(tmp_path / "j.xml")


def test_junit_stays_valid_xml_with_control_characters_in_messages_and_bodies(tmp_path):
    recorder = _recorder_with(message="got \x1b[2J\x00 and \ufffe", body="body \x1b]0;title\x07 \x00 \ufffe end")
    write_junit_report(tmp_path / "j.xml", recorder)
    failure = ET.parse(tmp_path / "j.xml").getroot().find("testsuite/testcase/failure")
    assert failure.get("message") == "line 3: got \\x1b[2J\\x00 and \\ufffe"
    assert "body \\x1b]0;title\\x07 \\x00 \\ufffe end" in failure.text
    assert "\x1b" not in (tmp_path / "j.xml").read_text(encoding="utf-8")


def test_atomic_write_interrupted_right_after_creating_the_temporary_file_cleans_up(tmp_path, monkeypatch):
    real_open = os.open

    def open_then_interrupted(path, *args, **kwargs):  # Ctrl+C lands as the file is created
        real_open(path, *args, **kwargs)
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "open", open_then_interrupted)
    with pytest.raises(KeyboardInterrupt):
        atomic_write(tmp_path / "report.json", b"data")
    assert os.listdir(tmp_path) == []


def test_atomic_write_removes_stale_temporaries_of_dead_runs_only(tmp_path):
    import subprocess
    import sys

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead_pid = int(dead.stdout)
    stale = tmp_path / f".report.json.scenario-tui-{dead_pid}-0123abcd.tmp"
    live = tmp_path / f".report.json.scenario-tui-{os.getppid()}-0123abcd.tmp"  # a running process
    other = tmp_path / ".other.json.scenario-tui-999999-0123abcd.tmp"
    for path in (stale, live, other):
        path.write_text("partial")
    atomic_write(tmp_path / "report.json", b"new")
    assert sorted(os.listdir(tmp_path)) == sorted(["report.json", live.name, other.name])


@pytest.mark.skipif(os.name != "posix", reason="FIFOs and symlinks")
def test_atomic_write_refuses_what_is_not_a_regular_file_and_replaces_a_symlink_never_through_it(tmp_path):
    # A symlink planted at a report's path (anyone may, in a sticky /tmp) must not make the
    # report land on the file it points to: the link itself is replaced.
    from scenario_core.report.writing import ReportPathError

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(ReportPathError, match="not a regular file"):
        atomic_write(fifo, b"x")
    assert fifo.is_fifo()
    with pytest.raises(ReportPathError, match="does not exist"):
        atomic_write(tmp_path / "missing" / "r.json", b"x")
    real = tmp_path / "real.json"
    real.write_text("old")
    (tmp_path / "link.json").symlink_to(real)
    atomic_write(tmp_path / "link.json", b"new")
    assert not (tmp_path / "link.json").is_symlink() and (tmp_path / "link.json").read_text() == "new"
    assert real.read_text() == "old"


# ---------------------------------------------------------------- requests, responses, scope events


def test_request_steps_carry_their_request_and_response_masked(mixed, demo):
    _, recorder, masker = mixed
    report = json_report(recorder, masker)
    create = report["files"][0]["scenarios"][0]
    login = next(s for s in create["steps"] if s["label"] == "when: POST /login")
    request, response = login["request"], login["response"]
    assert list(request) == ["method", "url", "headers", "body"]
    assert request["method"] == "POST" and request["url"] == f"{demo.url}/login"
    assert ["Content-Type", "application/json"] in request["headers"]
    assert request["body"] == f'{{"username": "ann", "password": "{MASK}"}}'
    assert list(response) == ["status", "reason", "headers", "body", "elapsed_s"]
    assert (response["status"], response["reason"]) == (200, "OK")
    assert response["body"] == {"token": MASK, "user": "ann"}  # a JSON body as its value
    assert isinstance(response["elapsed_s"], float) and 0 <= response["elapsed_s"] < 10
    post = next(s for s in create["steps"] if s["label"] == "when: POST /pets")
    assert ["Authorization", f"Bearer {MASK}"] in post["request"]["headers"]
    assert post["response"]["status"] == 201
    then = next(s for s in create["steps"] if s["keyword"] == "then")
    assert "request" not in then and "response" not in then  # only the step that sent it
    (token,) = demo._server.state.tokens
    assert token not in json.dumps(report)
    shown = json_report(recorder, Masker(enabled=False))["files"][0]["scenarios"][0]["steps"]
    assert next(s for s in shown if s["label"] == "when: POST /login")["response"]["body"]["token"] == token


def test_request_bodies_are_cut_at_the_scenarios_max_body_size_responses_at_64_kib(demo, write_scenario):
    path = write_scenario("""
        scenario: long
          parameters:
            errorContext.maxBodySize: 16
          when: POST /echo
            body: {"text": "0123456789012345678901234567890123456789"}
    """)
    report = json_report(record(run_to_completion([str(path)], RunOverrides.from_cli([], demo.url, None))))
    (step,) = report["files"][0]["scenarios"][0]["steps"]
    body = step["request"]["body"]
    assert len(body.split(" … ")[0].encode()) == 16 and body.endswith("bytes in all)")
    assert step["response"]["body"]["json"] == {"text": "0123456789012345678901234567890123456789"}


def test_a_request_that_got_no_response_has_response_null(write_scenario):
    path = write_scenario("""
        scenario: refused
          when: GET http://127.0.0.1:9/nothing
    """)
    report = json_report(record(run_to_completion([str(path)], RunOverrides.from_cli([], None, None))))
    (step,) = report["files"][0]["scenarios"][0]["steps"]
    assert step["status"] == "failed"
    assert step["request"]["url"] == "http://127.0.0.1:9/nothing" and step["response"] is None


def test_scope_events_of_the_file_store(mixed):
    _, recorder, masker = mixed
    create, wrong, tagged, standalone = json_report(recorder, masker)["files"][0]["scenarios"]
    assert create["scope_events"] == [
        {"event": "created", "store": "file store"},
        {"event": "started", "store": "file store", "carried": []},
        {
            "event": "extracted",
            "name": "token",
            "value": MASK,
            "layers": ["scenario", "file store"],
            "line": 12,
            "phase": "scenario",
        },
        {
            "event": "extracted",
            "name": "petId",
            "value": 1,
            "layers": ["scenario", "file store"],
            "line": 23,
            "phase": "scenario",
        },
    ]
    assert wrong["scope_events"] == [{"event": "started", "store": "file store", "carried": ["petId", "token"]}]
    assert tagged["scope_events"] == []  # not selected: never started
    assert standalone["scope_events"] == [
        {"event": "started", "store": "file store", "carried": ["petId", "token"]},
        {"event": "cleared", "store": "file store", "names": ["petId", "token"], "at": "file end"},
    ]


SCOPES = """
feature: Own
  parameters:
    shareVariablesAcrossScenarios: true
  background:
    when: GET /health
    extract: health from $.status
  scenario: first
    when: POST /echo
      body: {"id": 1}
    extract: petId from $.json.id
  scenario: second
    when: POST /echo
      body: {"id": 2}
    extract: petId from $.json.id

scenario: alone
  when: GET /health
  extract: state from $.status
"""


def test_scope_events_of_a_features_own_store_overwritten_and_cleared(demo, write_scenario):
    path = write_scenario(SCOPES)
    report = json_report(record(run_to_completion([str(path)], RunOverrides.from_cli([], demo.url, None))))
    first, second, alone = report["files"][0]["scenarios"]
    own = "feature 'Own'"
    assert first["scope_events"] == [
        {"event": "created", "store": own},
        {"event": "started", "store": own, "carried": []},
        # a background's extract stays in the scenario layer
        {
            "event": "extracted",
            "name": "health",
            "value": "ok",
            "layers": ["scenario"],
            "line": 6,
            "phase": "background:feature",
        },
        {
            "event": "extracted",
            "name": "petId",
            "value": 1,
            "layers": ["scenario", own],
            "line": 10,
            "phase": "scenario",
        },
    ]
    events = second["scope_events"]
    assert events[0] == {"event": "started", "store": own, "carried": ["petId"]}
    assert {
        "event": "overwritten",
        "name": "petId",
        "layer": own,
        "old": 1,
        "new": 2,
        "line": 14,
        "phase": "scenario",
    } in events
    assert events[-1] == {"event": "cleared", "store": own, "names": ["petId"], "at": "feature end"}
    assert alone["scope_events"] == [
        {"event": "started", "store": None, "carried": []},
        {"event": "extracted", "name": "state", "value": "ok", "layers": ["scenario"], "line": 18, "phase": "scenario"},
    ]


def test_a_step_keeps_only_the_head_of_a_large_body_and_reports_its_whole_size(demo, write_scenario):
    path = write_scenario(
        """
        scenario: large
          parameters:
            errorContext.maxBodySize: 32
          when: POST /echo
            body: {"text": "%s"}
    """
        % ("x" * 300_000)
    )
    recorder = record(run_to_completion([str(path)], RunOverrides.from_cli([], demo.url, None)))
    (kept,) = recorder.scenarios[0].steps
    assert len(kept.exchange.request_body) < 1000  # not 300 KB; the response's head the report shows
    assert len(kept.exchange.body) <= 4 * RESPONSE_BODY_LIMIT + 64
    (step,) = json_report(recorder)["files"][0]["scenarios"][0]["steps"]
    assert step["request"]["body"].endswith(f" … ({kept.exchange.request_body_size} bytes in all)")
    assert kept.exchange.request_body_size == len('{"text": ""}') + 300_000
    assert step["response"]["body"].endswith(f" … ({kept.exchange.body_size} bytes in all)")
    assert step["response"]["body_cut"] is True
    assert kept.exchange.body_size > 600_000  # the echo holds the body twice


def test_a_run_without_reports_records_only_each_scenarios_failing_step(demo, write_scenario):
    """`run` without --report-*: the printed results need each scenario's status and its failing
    step with the exchange it failed on; a record of every passing step would cost time and grow
    with the run (RunRecorder(every_step=False))."""
    path = write_scenario("""
        scenario: passes
          when: GET /health
          then: status 200
          extract: state from $.status
        scenario: fails
          when: GET /health
          then: status 200
          then: status 404
          when: GET /health
    """)
    full, light = RunRecorder(), RunRecorder(every_step=False)
    for event in run_to_completion([path], RunOverrides.from_cli([], demo.url, None)):
        full.feed(event)
        light.feed(event)
    assert full.counts() == light.counts() == {"passed": 1, "failed": 1, "skipped": 0}
    passes, fails = light.scenarios
    assert passes.steps == [] and passes.scope_events[1:] == []
    assert [(s.line, s.status) for s in fails.steps] == [(8, "failed")]
    assert fails.failed_step is fails.steps[0] and fails.exchange is not None and fails.exchange.status == 200
    assert full.scenarios[1].failed_step.message == fails.failed_step.message
    assert len(full.scenarios[0].steps) == 3
