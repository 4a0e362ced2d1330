"""`run --compare REPORT.json` as a whole command (docs/spec/cli.md#compare): after a scenario's
line, each step whose response changed since the same step of an earlier run, masked; the JSON
report gains `changes`; a comparison never fails a run. Against a loopback server whose answers
change between the two runs."""

from __future__ import annotations

import json

import pytest

from scenario_tui.cli.main import main
from tests.core.echo_server import EchoServer

JSON = ("Content-Type", "application/json")
SUITE = """\
scenario: pets
  when: GET BASE/pets/1
  then: status 200
  when: GET BASE/health
  then: status 200

scenario: notes
  when: GET BASE/notes
"""


@pytest.fixture
def server():
    with EchoServer() as echo:
        yield echo


def runs(server, tmp_path, capsys, *extra: str) -> tuple[int, list[str], dict]:
    """A first run writing a report, the server's answers changed, then a second with --compare."""
    path = tmp_path / "suite.scenario"
    path.write_text(SUITE.replace("BASE", server.url))
    first, second = tmp_path / "first.json", tmp_path / "second.json"
    server.answer("/pets/1", '{"id": 1, "name": "Rex", "token": "s3cret-value-1"}', JSON)
    server.answer("/health", '{"status": "ok"}', JSON)
    server.answer("/notes", "one\ntwo\nthree\n", ("Content-Type", "text/plain"))
    assert main(["run", str(path), "--report-json", str(first)]) == 0
    capsys.readouterr()
    server.answer("/pets/1", '{"id": 1, "name": "Max", "tags": ["dog"], "token": "s3cret-value-2"}', JSON)
    server.answer("/notes", "one\nTWO\nthree\n", ("Content-Type", "text/plain"))
    status = main(["run", str(path), "--compare", str(first), "--report-json", str(second), *extra])
    out = capsys.readouterr().out
    return status, out.splitlines(), json.loads(second.read_text())


def test_compare_prints_what_changed_under_each_scenario_and_never_fails_the_run(server, tmp_path, capsys):
    status, lines, _ = runs(server, tmp_path, capsys)
    assert status == 0
    start = next(i for i, line in enumerate(lines) if "✓ pets" in line)
    shown = [line.strip() for line in lines[start : start + 8]]
    assert shown[1].startswith("≠ line 2  when: GET http://")
    assert '~ $.name: "Rex" → "Max"' in shown
    assert '+ $.tags: ["dog"]' in shown
    assert not any("/health" in line and "≠" in line for line in lines)  # unchanged: nothing said
    notes = next(i for i, line in enumerate(lines) if "✓ notes" in line)
    assert [line.strip() for line in lines[notes + 1 : notes + 5]][1:] == ["body from line 2:", "-two", "+TWO"]


def test_compare_masks_values_on_both_sides(server, tmp_path, capsys):
    _, lines, data = runs(server, tmp_path, capsys)
    assert not any("s3cret-value" in line for line in lines)
    assert "s3cret-value" not in json.dumps(data)


def test_compare_adds_changes_to_each_step_of_the_json_report(server, tmp_path, capsys):
    _, _, data = runs(server, tmp_path, capsys)
    steps = data["files"][0]["scenarios"][0]["steps"]
    requests = [s for s in steps if "request" in s]
    assert {"kind": "changed", "path": "$.name", "old": "Rex", "new": "Max"} in requests[0]["changes"]
    assert requests[1]["changes"] == []


def test_compare_prints_in_source_order_under_dist_scope(server, tmp_path, capsys):
    status, lines, _ = runs(server, tmp_path, capsys, "--jobs", "2", "--dist", "scope")
    assert status == 0
    marks = [line.strip()[:1] for line in lines if line.strip()[:1] in ("✓", "≠")]
    assert marks == ["✓", "≠", "✓", "≠"]


def test_compare_with_an_unreadable_report_is_a_usage_error(tmp_path, capsys):
    path = tmp_path / "suite.scenario"
    path.write_text("scenario: s\n  when: GET http://127.0.0.1:9/x\n")
    (tmp_path / "bad.json").write_text("{not json")
    assert main(["run", str(path), "--compare", str(tmp_path / "bad.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--compare" in err and "bad.json: not valid JSON" in err
