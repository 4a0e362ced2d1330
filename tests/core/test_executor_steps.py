"""Steps against the real demo API (docs/spec/steps.md): requests, assertions, extraction, timeouts
and transport failures, each failing its step with one line and never escaping the executor."""

from __future__ import annotations

import socket
import time

import pytest

from scenario_core.language.parser import load_file
from scenario_core.parameters.resolution import RunOverrides
from scenario_core.run.events import (
    AssertionChecked,
    RequestSent,
    ResponseReceived,
    RunFinished,
    ScenarioFinished,
    StepFinished,
    StepStarted,
    VariableExtracted,
)
from scenario_core.run.executor import run_to_completion


def run(demo, write_scenario, text, *, overrides=None, run_variables=None):
    path = write_scenario(text.replace("BASE", demo.url))
    return run_to_completion([load_file(path)], RunOverrides(overrides or {}), run_variables)


def of(events, cls):
    return [e for e in events if isinstance(e, cls)]


def results(events) -> dict[str, tuple[str, str | None]]:
    return {e.scenario.name: (e.status, e.message) for e in of(events, ScenarioFinished)}


def failures(events) -> list[str]:
    return [e.message for e in of(events, StepFinished) if e.status == "failed"]


def echoed(events, index: int = -1):
    return [r.json for r in of(events, ResponseReceived)][index]


def unused_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---------------------------------------------------------------- requests


def test_relative_paths_join_the_base_url_with_exactly_one_slash(demo, write_scenario):
    events = run(
        demo,
        write_scenario,
        """\
parameters:
  baseUrl: "BASE/"
scenario: joins
  when: GET /health
  when: GET health
""",
    )
    assert [e.url for e in of(events, RequestSent)] == [demo.url + "/health"] * 2
    assert results(events) == {"joins": ("passed", None)}


def test_absolute_urls_are_used_as_they_are(demo, write_scenario):
    events = run(
        demo,
        write_scenario,
        f"""\
parameters:
  baseUrl: "http://127.0.0.1:{unused_port()}"
scenario: absolute
  when: GET BASE/health
  then: status 200
""",
    )
    assert results(events) == {"absolute": ("passed", None)}


def test_a_relative_path_without_a_base_url_fails_before_sending(demo, write_scenario):
    events = run(demo, write_scenario, "scenario: nowhere\n  when: GET /health\n  then: status 200\n")
    assert failures(events) == ["no baseUrl: set baseUrl in parameters:, --base-url, or an OpenAPI description"]
    assert not of(events, RequestSent)
    assert [e.status for e in of(events, StepFinished)] == ["failed", "skipped"]


def test_paths_headers_and_query_values_are_interpolated_as_text(demo, write_scenario):
    events = run(
        demo,
        write_scenario,
        """\
parameters:
  baseUrl: "BASE"
scenario: interpolates
  when: GET /echo?n={{n}}
    headers:
      X-Pet: pet {{n}} {{flag}}
    query:
      tag: {{flag}}-{{n}}
""",
        run_variables={"n": 7, "flag": True},
    )
    sent = of(events, RequestSent)[0]
    assert sent.url == demo.url + "/echo?n=7&tag=true-7"
    assert ("X-Pet", "pet 7 true") in sent.headers
    body = echoed(events)
    assert body["query"] == {"n": "7", "tag": "true-7"}
    assert body["headers"]["x-pet"] == "pet 7 true"


def test_bare_references_in_a_json_body_keep_their_type(demo, write_scenario):
    events = run(
        demo,
        write_scenario,
        """\
parameters:
  baseUrl: "BASE"
scenario: typed body
  when: POST /echo
    body: {"age": {{age}}, "text": "{{age}}", "tags": {{tags}}, "name": "{{name}}"}
  then: $.json.age == 3
  then: $.json.text == "3"
""",
        run_variables={"age": 3, "tags": ["a", "b"], "name": 'say "hi"'},
    )
    assert results(events) == {"typed body": ("passed", None)}
    assert echoed(events)["json"] == {"age": 3, "text": "3", "tags": ["a", "b"], "name": 'say "hi"'}
    assert echoed(events)["headers"]["content-type"] == "application/json"
    assert of(events, RequestSent)[0].body == '{"age": 3, "text": "3", "tags": ["a", "b"], "name": "say \\"hi\\""}'


def test_a_content_type_set_by_the_user_is_kept(demo, write_scenario):
    events = run(
        demo,
        write_scenario,
        """\
parameters:
  baseUrl: "BASE"
scenario: own content type
  when: PUT /echo
    headers:
      content-type: application/vnd.pets+json
    body: {"a": 1}
""",
    )
    assert echoed(events)["headers"]["content-type"] == "application/vnd.pets+json"
    assert echoed(events)["method"] == "PUT"


def test_client_and_server_errors_are_just_responses(demo, write_scenario):
    events = run(
        demo,
        write_scenario,
        """\
parameters:
  baseUrl: "BASE"
scenario: errors are responses
  when: GET /status/404
  then: status 404
  then: status 4xx
  then: $.status == 404
  when: GET /status/503
  then: status 5xx
scenario: wrong class
  when: GET /status/500
  then: status 2xx
""",
    )
    assert results(events)["errors are responses"] == ("passed", None)
    assert results(events)["wrong class"] == ("failed", 'line 12: expected status 2xx, got 500 (body: {"status": 500})')


def test_requests_share_one_kept_alive_connection(demo, write_scenario):
    text = 'parameters:\n  baseUrl: "BASE"\nscenario: many\n' + "  when: GET /health\n" * 20
    events = run(demo, write_scenario, text)
    assert results(events) == {"many": ("passed", None)}
    assert demo.connections_accepted == 1


# ---------------------------------------------------------------- timeouts: the request as a whole


def test_a_request_over_the_timeout_fails_naming_where_the_timeout_was_set(demo, write_scenario):
    events = run(
        demo,
        write_scenario,
        """\
parameters:
  baseUrl: "BASE"
feature: Slow
  parameters:
    timeout: 1
  scenario: too slow
    when: GET /slow?ms=60000
    then: status 200
""",
    )
    assert results(events) == {"too slow": ("failed", "line 7: timed out after 1 s (timeout: feature 'Slow', line 5)")}
    finished = of(events, StepFinished)[0]
    assert 0.9 < finished.elapsed < 15  # the timeout, not the minute /slow takes


def test_the_timeout_bounds_the_whole_request_not_each_read(demo, write_scenario):
    # One byte every 300 ms: each read is quick, the whole body takes 60 s.
    started = time.perf_counter()
    events = run(
        demo,
        write_scenario,
        """\
parameters:
  baseUrl: "BASE"
  timeout: 1
scenario: trickle
  when: GET /trickle?ms=300&chunks=200
""",
    )
    took = time.perf_counter() - started
    assert results(events) == {"trickle": ("failed", "line 5: timed out after 1 s (timeout: file, line 3)")}
    assert took < 15  # the timeout, not the minute of trickling


def test_the_default_timeout_is_named_as_default(demo, write_scenario):
    events = run(demo, write_scenario, "scenario: s\n  when: GET BASE/slow?ms=1500\n", overrides={"timeout": 1})
    assert failures(events) == ["timed out after 1 s (timeout: command line)"]


# ---------------------------------------------------------------- transport problems: one line each


def test_a_refused_connection_fails_the_step_with_one_line(demo, write_scenario):
    port = unused_port()
    events = run(
        demo,
        write_scenario,
        f"""\
scenario: refused
  when: GET http://127.0.0.1:{port}/pets
scenario: next one still runs
  when: GET BASE/health
""",
    )
    assert results(events)["refused"] == ("failed", f"line 2: cannot connect to 127.0.0.1:{port}: connection refused")
    assert results(events)["next one still runs"] == ("passed", None)


@pytest.mark.parametrize(
    "url, expected",
    [
        ("ftp://example.com/x", "invalid URL 'ftp://example.com/x': use an absolute http:// or https:// URL"),
        ("http://[::1/x", "invalid URL 'http://[::1/x'"),
        ("http://127.0.0.1:99999/x", "invalid URL 'http://127.0.0.1:99999/x'"),
        ("http:///x", "invalid URL"),
        ("{{garbage}}", "invalid URL 'http://exa mple.com:x/'"),
    ],
)
def test_garbage_urls_fail_the_step_and_never_raise(demo, write_scenario, url, expected):
    events = run(
        demo,
        write_scenario,
        f"scenario: garbage\n  when: GET {url}\n  then: status 200\n",
        run_variables={"garbage": "http://exa mple.com:x/"},
    )
    [message] = failures(events)
    assert message.startswith(expected) or expected in message
    assert "\n" not in message
    assert isinstance(events[-1], RunFinished) and events[-1].failed == 1


def test_a_header_value_with_a_line_break_fails_the_step(demo, write_scenario):
    events = run(
        demo,
        write_scenario,
        """\
scenario: injected
  when: GET BASE/echo
    headers:
      X-A: {{v}}
""",
        run_variables={"v": "a\r\nX-Evil: 1"},
    )
    [message] = failures(events)
    assert message.startswith("header X-A has a line break in its value")
    assert not of(events, RequestSent)


# ---------------------------------------------------------------- extract


def test_extract_keeps_json_types_and_several_matches_give_a_list(demo, write_scenario):
    events = run(
        demo,
        write_scenario,
        """\
parameters:
  baseUrl: "BASE"
scenario: types
  when: POST /echo
    body: {"n": 1, "f": 1.5, "b": false, "z": null, "o": {"k": [1, 2]}, "items": [{"id": 1}, {"id": 2}]}
  extract: n from $.json.n
  extract: f from $.json.f
  extract: b from $.json.b
  extract: z from $.json.z
  extract: o from $.json.o
  extract: ids from $.json.items[*].id
""",
    )
    values = {e.name: e.value for e in of(events, VariableExtracted)}
    assert values == {"n": 1, "f": 1.5, "b": False, "z": None, "o": {"k": [1, 2]}, "ids": [1, 2]}
    assert type(values["n"]) is int and type(values["b"]) is bool


def test_extract_that_matches_nothing_fails(demo, write_scenario):
    events = run(demo, write_scenario, "scenario: s\n  when: GET BASE/health\n  extract: id from $.id\n")
    assert failures(events) == ["$.id matched nothing in the response body; its top-level keys: status"]


def test_extract_from_a_body_that_is_not_json_fails_with_one_line(demo, write_scenario):
    events = run(
        demo,
        write_scenario,
        """\
scenario: text
  when: GET BASE/text
  then: body contains "hello"
  then: header Content-Type contains "text/plain"
  extract: id from $.id
""",
    )
    assert failures(events) == [
        "cannot extract id from $.id: the response body is not JSON (Expecting value at line 1 column 1)"
    ]
    response = of(events, ResponseReceived)[0]
    assert response.json is None and not response.is_json and response.body == "hello, not json"


def test_a_json_path_assertion_on_a_body_that_is_not_json_fails(demo, write_scenario):
    events = run(demo, write_scenario, "scenario: text\n  when: GET BASE/text\n  then: $.a == 1\n")
    assert failures(events) == [
        "cannot evaluate $.a: the response body is not JSON (Expecting value at line 1 column 1)"
    ]


def test_extract_from_a_header_and_use_it_as_a_path(demo, write_scenario):
    events = run(
        demo,
        write_scenario,
        """\
parameters:
  baseUrl: "BASE"
scenario: location
  when: POST /login
    body: {"username": "demo", "password": "demo"}
  extract: token from $.token
  when: POST /pets
    headers:
      Authorization: Bearer {{token}}
    body: {"name": "Rex", "age": 3}
  then: status 201
  extract: where from header location
  when: GET {{where}}
  then: $.name == "Rex"
  then: $.age >= 3
  extract: missing from header X-Nope
""",
    )
    assert of(events, VariableExtracted)[1].value == "/pets/1"
    assert of(events, RequestSent)[2].url == demo.url + "/pets/1"
    assert failures(events) == ["the response has no X-Nope header to extract missing from"]


def test_extract_and_then_need_a_response_first(demo, write_scenario):
    events = run(
        demo,
        write_scenario,
        """\
scenario: extract first
  extract: id from $.id
scenario: then first
  then: status 200
""",
    )
    assert failures(events) == [
        "no response to extract from: extract needs a when: step before it",
        "no response to check: then needs a when: step before it",
    ]


# ---------------------------------------------------------------- assertions and failures


def test_assertion_events_carry_expected_actual_and_message(demo, write_scenario):
    events = run(
        demo,
        write_scenario,
        """\
parameters:
  baseUrl: "BASE"
scenario: checks
  when: POST /echo
    body: {"name": "Max", "tags": ["a", "b"], "age": 3}
  then: header content-type == "application/json"
  then: $.json.tags contains "a"
  then: $.json.name matches "^M"
  then: $.json.nope not exists
  then: time < 5s
  then: $.json.name == "Rex"
  then: $.json.age < 5
""",
    )
    checked = of(events, AssertionChecked)
    assert [c.passed for c in checked] == [True] * 5 + [False]
    assert (checked[-1].expected, checked[-1].actual, checked[-1].message) == (
        "Rex",
        "Max",
        'expected $.json.name == "Rex", got "Max"',
    )
    assert results(events)["checks"] == ("failed", 'line 11: expected $.json.name == "Rex", got "Max"')
    # The step after the failure is skipped, without StepStarted.
    assert [e.step.line for e in of(events, StepStarted)][-1] == 11
    last = of(events, StepFinished)[-1]
    assert (last.step.line, last.status, last.message) == (12, "skipped", "skipped after the failure at line 11")


def test_ordering_values_of_different_types_fails_clearly(demo, write_scenario):
    events = run(demo, write_scenario, "scenario: s\n  when: GET BASE/health\n  then: $.status > 5\n")
    assert failures(events) == [
        'expected $.status > 5, got "ok": cannot order string against number: < <= > >= compare two numbers '
        "or two strings"
    ]


def test_a_failing_background_skips_the_scenarios_own_steps(demo, write_scenario):
    events = run(
        demo,
        write_scenario,
        """\
parameters:
  baseUrl: "BASE"
background:
  when: GET /status/500
  then: status 200
  when: GET /health
scenario: never gets going
  when: GET /health
  then: status 200
""",
    )
    steps = [(e.step.line, e.phase, e.status) for e in of(events, StepFinished)]
    assert steps == [
        (4, "background:file", "passed"),
        (5, "background:file", "failed"),
        (6, "background:file", "skipped"),
        (8, "scenario", "skipped"),
        (9, "scenario", "skipped"),
    ]
    assert results(events)["never gets going"][0] == "failed"
    assert len(of(events, RequestSent)) == 1


def test_a_bug_of_ours_inside_a_step_is_said_so_and_fails_only_that_step(demo, write_scenario, monkeypatch):
    import scenario_core.run.step_checks as executor

    def broken(*args, **kwargs):
        raise ZeroDivisionError("boom\nsecond line")

    monkeypatch.setattr(executor, "check", broken)
    events = run(
        demo,
        write_scenario,
        """\
parameters:
  baseUrl: "BASE"
scenario: faulty
  when: GET /health
  then: status 200
scenario: fine
  when: GET /health
""",
    )
    assert results(events) == {
        "faulty": ("failed", "line 5: internal error: ZeroDivisionError: boom second line (a bug in scenario-tui)"),
        "fine": ("passed", None),
    }


def test_snapshots_show_what_is_visible_before_and_after_each_step(demo, write_scenario):
    events = run(
        demo,
        write_scenario,
        """\
parameters:
  baseUrl: "BASE"
scenario: s
  when: GET /counter
  extract: n from $.value
""",
        run_variables={"r": "x"},
    )
    before = [e.snapshot.visible() for e in of(events, StepStarted)]
    after = [e.snapshot.visible() for e in of(events, StepFinished)]
    assert before == [{"r": "x"}, {"r": "x"}]
    assert after == [{"r": "x"}, {"r": "x", "n": 1}]
    origin = of(events, StepFinished)[-1].snapshot.origin("n")
    assert (origin.scenario, origin.location.line, origin.phase) == ("s", 5, "scenario")


def test_a_tls_handshake_failure_fails_the_step_with_one_line(demo, write_scenario):
    events = run(demo, write_scenario, f"scenario: tls\n  when: GET https://127.0.0.1:{demo.port}/health\n")
    [message] = failures(events)
    assert message.startswith(f"TLS error talking to 127.0.0.1:{demo.port}: ") and "\n" not in message


def test_cookies_live_for_one_scenario(write_scenario):
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    seen: list[str | None] = []

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self):
            seen.append(self.headers.get("Cookie"))
            self.send_response(200)
            self.send_header("Set-Cookie", "session=abc; Path=/")
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"{}")

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}"
        path = write_scenario(f"""\
parameters:
  baseUrl: "{base}"
scenario: one
  when: GET /a
  when: GET /b
scenario: two
  when: GET /c
""")
        events = run_to_completion([load_file(path)])
    finally:
        server.shutdown()
        server.server_close()
    assert results(events) == {"one": ("passed", None), "two": ("passed", None)}
    assert seen == [None, "session=abc", None]


def test_any_json_value_keeps_its_type_bare_and_reads_as_text_in_a_string(demo, write_scenario):
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from scenario_core.language.templates import text_form
    from scenario_core.run.comparison import json_equal

    file = load_file(
        write_scenario(f"""\
scenario: typed
  when: POST {demo.url}/echo
    body: {{"bare": {{{{v}}}}, "quoted": "{{{{v}}}}"}}
""")
    )
    json_values = st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
        max_leaves=6,
    )

    @settings(max_examples=40, deadline=None)
    @given(json_values)
    def check(value):
        events = run_to_completion([file], None, {"v": value})
        echoed_json = of(events, ResponseReceived)[0].json["json"]
        assert json_equal(echoed_json, {"bare": value, "quoted": text_form(value)})  # booleans stay booleans

    check()
