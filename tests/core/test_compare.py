"""`--compare`'s core: a step of this run matched with the same step of an earlier JSON report,
and what changed in its response (docs/formats.md#changes-since-an-earlier-report). Two runs
against a loopback server whose answers change between them."""

from __future__ import annotations

import json
import re

import pytest

from scenario_core.parameters.resolution import RunOverrides
from scenario_core.report.compare import (
    ADDED,
    CHANGED,
    LINES,
    MAX_CHANGES,
    MORE,
    REMOVED,
    STATUS,
    UNMATCHED,
    Change,
    CompareError,
    Comparer,
    diff_exchanges,
    diff_json,
    diff_lines,
    diff_responses,
    format_changes,
)
from scenario_core.report.json_report import json_report, response_body
from scenario_core.report.masking import MASK, Masker
from scenario_core.report.recorder import RunRecorder
from scenario_core.report.records import Exchange
from scenario_core.run.executor import run_to_completion
from scenario_tui.cli.main import main
from tests.core.echo_server import EchoServer

SHOP = """\
feature: Shop
  scenario: pets
    when: GET BASE/pets/1
    then: status 200
    when: GET BASE/notes
  scenario: login
    when: POST BASE/login
      body: {"user": "ann"}
"""

JSON = ("Content-Type", "application/json")


@pytest.fixture
def server():
    with EchoServer() as echo:
        yield echo


def second_run(path, masker: Masker | None = None) -> tuple[RunRecorder, Masker]:
    masker = masker or Masker()
    recorder = RunRecorder()
    for event in run_to_completion([str(path)], RunOverrides.from_cli([], None, None)):
        masker.feed(event)
        recorder.feed(event)
    return recorder, masker


def first_report(server, tmp_path, text: str = SHOP):
    path = tmp_path / "shop.scenario"
    path.write_text(text.replace("BASE", server.url))
    first = tmp_path / "first.json"
    assert main(["run", str(path), "--report-json", str(first)]) == 0
    return path, first


def changes_by_step(recorder: RunRecorder, comparer: Comparer, masker: Masker) -> dict[str, list[str]]:
    return {
        f"{scenario.name}/{re.sub('http://[^/]+', '', step.label)}": format_changes(
            comparer.changes(scenario, step, masker)
        )
        for scenario in recorder.scenarios
        for step in scenario.steps
        if step.exchange is not None
    }


def test_a_changed_answer_shows_its_status_and_each_path_added_removed_or_changed(server, tmp_path, capsys):
    server.answer("/pets/1", '{"id": 1, "name": "Rex", "age": 3, "tags": ["a"]}', JSON)
    server.answer("/notes", "first line\nsecond line\nthird line\n", ("Content-Type", "text/plain"))
    server.answer("/login", '{"token": "abc123", "user": "ann"}', JSON)
    path, first = first_report(server, tmp_path)
    capsys.readouterr()

    server.answer("/pets/1", '{"id": 1, "name": "Max", "tags": ["a", "b"], "owner": {"id": 9}}', JSON)
    server.answer("/notes", "first line\nsecond LINE\nthird line\n", ("Content-Type", "text/plain"))
    server.answer("/login", '{"token": "zzz999", "user": "ann"}', JSON, status=201)
    recorder, masker = second_run(path)
    comparer = Comparer.load(first)

    shown = changes_by_step(recorder, comparer, masker)
    assert shown == {
        "pets/when: GET /pets/1": [
            '~ $.name: "Rex" → "Max"',
            "- $.age: 3",
            '+ $.tags[1]: "b"',
            '+ $.owner: {"id": 9}',
        ],
        "pets/when: GET /notes": ["body from line 2:", "  -second line", "  +second LINE"],
        # a secret is masked on both sides, so a new token is no change; the status is
        "login/when: POST /login": ["status 200 → 201"],
    }
    report = json_report(recorder, masker, comparer)
    pets, login = report["files"][0]["scenarios"]
    assert [s.get("changes") for s in pets["steps"]] == [
        [
            {"kind": "changed", "path": "$.name", "old": "Rex", "new": "Max"},
            {"kind": "removed", "path": "$.age", "old": 3},
            {"kind": "added", "path": "$.tags[1]", "new": "b"},
            {"kind": "added", "path": "$.owner", "new": {"id": 9}},
        ],
        None,  # then: sent nothing
        [{"kind": "lines", "path": "line 2", "lines": ["-second line", "+second LINE"]}],
    ]
    assert login["steps"][0]["changes"] == [{"kind": "status", "old": 200, "new": 201}]
    assert "zzz999" not in json.dumps(report) and "abc123" not in first.read_text()


def test_the_match_survives_edits_elsewhere_and_reformatting(server, tmp_path):
    server.answer("/pets/1", '{"id": 1}', JSON)
    server.answer("/notes", "a", ("Content-Type", "text/plain"))
    server.answer("/login", '{"user": "ann"}', JSON)
    path, first = first_report(server, tmp_path)
    # Lines move: a comment and blank lines above, a new step before the match in another
    # scenario, and a new scenario at the top; the n-th request of each scenario stays.
    edited = "# moved around\n\n\nfeature: Shop\n  scenario: new one\n    when: GET BASE/pets/1\n\n" + SHOP.split(
        "\n", 1
    )[1].replace("    when: GET BASE/notes", "    then: status 200\n\n    when: GET BASE/notes")
    path.write_text(edited.replace("BASE", server.url))
    server.answer("/pets/1", '{"id": 2}', JSON)
    recorder, masker = second_run(path)
    shown = changes_by_step(recorder, Comparer.load(first), masker)
    assert shown == {
        "new one/when: GET /pets/1": ["not in the earlier report: nothing to compare with"],
        "pets/when: GET /pets/1": ["~ $.id: 1 → 2"],
        "pets/when: GET /notes": [],
        "login/when: POST /login": [],
    }


def test_outline_rows_match_by_row_though_their_names_carry_the_cells(server, tmp_path):
    outline = """\
outline: pet
  when: GET BASE/pets/{{id}}
  examples:
    | id |
    | 1  |
    | 2  |
"""
    server.answer("/pets/1", '{"n": 1}', JSON)
    server.answer("/pets/2", '{"n": 2}', JSON)
    path, first = first_report(server, tmp_path, outline)
    rows = json.loads(first.read_text())["files"][0]["scenarios"]
    assert [(s["outline"], s["row"]) for s in rows] == [("pet", 1), ("pet", 2)]
    path.write_text(outline.replace("BASE", server.url).replace("| 2  |", "| 3  |"))
    server.answer("/pets/3", '{"n": 3}', JSON)
    recorder, masker = second_run(path)
    assert list(changes_by_step(recorder, Comparer.load(first), masker).values()) == [[], ["~ $.n: 2 → 3"]]


def test_a_request_that_now_gets_no_response(server, tmp_path):
    server.answer("/pets/1", '{"id": 1}', JSON)
    path, first = first_report(server, tmp_path, "scenario: s\n  when: GET BASE/pets/1\n")
    path.write_text("scenario: s\n  when: GET http://127.0.0.1:9/pets/1\n")
    recorder, masker = second_run(path)
    assert list(changes_by_step(recorder, Comparer.load(first), masker).values()) == [["status 200 → no response"]]


def test_the_report_carries_each_response_body_as_json_masked_and_text_cut_at_64_kib(server, tmp_path):
    server.answer("/pets/1", '{"id": 1, "password": "hunter2", "list": [true, null]}', JSON)
    server.answer("/notes", "x" * 70_000, ("Content-Type", "text/plain"))
    server.answer("/login", "<a>\n</a>", ("Content-Type", "application/xml"))
    _, first = first_report(server, tmp_path)
    steps = [s for sc in json.loads(first.read_text())["files"][0]["scenarios"] for s in sc["steps"]]
    pets, notes, login = (s["response"] for s in steps if "response" in s)
    assert pets["body"] == {"id": 1, "password": MASK, "list": [True, None]} and "body_cut" not in pets
    assert notes["body_cut"] is True and notes["body"].endswith(" … (70000 bytes in all)")
    assert len(notes["body"].split(" … ")[0]) == 64 * 1024
    assert login["body"] == "<a>\n</a>"
    assert response_body('{"x": NaN}', None, Masker())[0] == '{"x": NaN}'  # kept as text: the report stays JSON
    assert pets["headers"][0][0] and ["Content-Type", "application/json"] in pets["headers"]


def test_json_changes_are_bounded_and_in_document_order():
    old = {"items": [{"n": i} for i in range(100)]}
    new = {"items": [{"n": i + 1} for i in range(100)]}
    changes = diff_json(old, new)
    assert len(changes) == MAX_CHANGES + 1
    assert changes[0] == Change(CHANGED, "$.items[0].n", 0, 1) and changes[-1] == Change(MORE, new=100 - MAX_CHANGES)
    assert format_changes(changes)[-1] == f"… and {100 - MAX_CHANGES} more"
    # `1` and `true` differ in JSON; `1` and `1.0` do not
    assert diff_json({"a": 1, "b": 2}, {"a": True, "b": 2.0}) == [Change(CHANGED, "$.a", 1, True)]
    assert diff_json({"a b": 1}, {}) == [Change(REMOVED, "$['a b']", old=1)]


def test_a_line_diff_sets_the_common_head_and_tail_aside_and_stays_bounded():
    old = "\n".join(f"line {i}" for i in range(100_000))
    new = old.replace("line 50000\n", "line 50000 changed\n")
    (change,) = diff_lines(old, new)
    assert change == Change(LINES, "line 50001", lines=("-line 50000", "+line 50000 changed"))
    many = diff_lines("\n".join("a" * 5 for _ in range(5000)), "\n".join("b" * 5 for _ in range(5000)))
    assert [c.kind for c in many] == [LINES, MORE, "note"]
    assert len(many[0].lines) == MAX_CHANGES


def test_a_body_that_changed_kind_and_a_response_that_came_back():
    assert diff_responses({"status": 200, "body": {"a": 1}}, {"status": 200, "body": "oops"}) == [
        Change("body", old="JSON", new="text")
    ]
    assert diff_responses(None, {"status": 200, "body": None}) == [Change(STATUS, old=None, new=200)]
    # a report written before bodies were JSON values held JSON as text: still compared by path
    assert diff_responses({"status": 200, "body": '{"a": 1}'}, {"status": 200, "body": {"a": 2}}) == [
        Change(CHANGED, "$.a", 1, 2)
    ]
    assert (
        format_changes([Change(UNMATCHED), Change(ADDED, "$.x", new="y" * 100)])[1] == "+ $.x: " + '"' + "y" * 58 + "…"
    )


def test_two_exchanges_of_a_session_compare_masked():
    def exchange(status, body):
        return Exchange(0, "GET", "http://h/x", (), None, status=status, body=body)

    masker = Masker()
    masker.learn("s3cret-value")
    old, new = exchange(200, '{"a": 1, "k": "s3cret-value"}'), exchange(200, '{"a": 2, "k": "other"}')
    assert diff_exchanges(old, new, masker) == [Change(CHANGED, "$.a", 1, 2), Change(CHANGED, "$.k", MASK, "other")]
    assert diff_exchanges(old, exchange(None, None)) == [Change(STATUS, old=200, new=None)]


@pytest.mark.parametrize(
    "content, says",
    [(None, "cannot be read"), ("{not json", "not valid JSON"), ('{"summary": {}}', "not a JSON report")],
)
def test_an_unusable_earlier_report_is_one_line_naming_it(tmp_path, content, says):
    path = tmp_path / "old.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(CompareError) as raised:
        Comparer.load(path)
    message = str(raised.value)
    assert message.startswith(f"{path}: ") and says in message and "\n" not in message
