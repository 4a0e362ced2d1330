"""Running BerryCrush's dialect against the demo API (docs/spec/berrycrush.md, docs/spec/berrycrush.md): a
described step's directives in order, if chains and the branch they take, `fail`, include
arguments, outline rows, auto tests, webhooks, custom steps, and what `run` and its JSON report
show of them. Real HTTP on loopback (the demo server fixture), never a mocked client.

Conditions and parameter keys appear only as far as the runs need them (`status 201`,
`$.name equals "Rex"`, `$.id exists`; `openapi`, `baseUrl`, `binding.*`, sharing): BerryCrush's
operators and keys are tested with their own code.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from scenario_core.language.nodes.steps import ConditionalStep, DescribedStep, RequestStep, step_label
from scenario_core.language.parser import load_file
from scenario_core.parameters.resolution import RunOverrides
from scenario_core.run.events import (
    BACKGROUND_FILE,
    AutoTestRan,
    BranchTaken,
    RequestSent,
    ScenarioFinished,
    ScenarioStarted,
    StepFinished,
    VariableExtracted,
)
from scenario_core.run.executor import run_to_completion

DEMO = Path(__file__).resolve().parents[2] / "core" / "demo"
PETSTORE, AUTH = DEMO / "petstore.yaml", DEMO / "auth.yaml"

HEAD = f"""\
parameters:
  openapi: {PETSTORE}
  binding.auth.location: {AUTH}
  baseUrl: BASE
"""
HEAD_LINES = HEAD.count("\n")

SIGN_IN = """\
  given I am signed in
    call using auth ^login
      body: {"username": "demo", "password": "demo"}
    assert status 200
    extract $.token => token
"""


def source(text: str) -> str:
    return HEAD + textwrap.dedent(text).lstrip("\n")


def run(demo, write_scenario, text: str, *, head: str | None = None, variables=None, tags=None, name="test.scenario"):
    body = (head if head is not None else HEAD) + textwrap.dedent(text).lstrip("\n")
    path = write_scenario(body.replace("BASE", demo.url), name)
    return run_to_completion([load_file(path)], RunOverrides({}), variables, tags)


def of(events, cls):
    return [e for e in events if isinstance(e, cls)]


def finished(events) -> list[tuple[str, str, str | None]]:
    """(label, status, message) of every step, in order."""
    return [(step_label(e.step), e.status, e.message) for e in of(events, StepFinished)]


def scenario_statuses(events) -> dict[str, str]:
    return {e.scenario.name: e.status for e in of(events, ScenarioFinished)}


def sent(events, demo) -> list[tuple[str, str]]:
    return [(e.method, e.url.replace(demo.url, "")) for e in of(events, RequestSent)]


# ---------------------------------------------------------------- described steps and their directives


def test_described_step_directives_run_in_order_against_the_demo_api(demo, write_scenario):
    events = run(
        demo,
        write_scenario,
        "scenario: create and read\n"
        + SIGN_IN
        + """\
  when I create a pet
    call ^createPet
      header_Authorization: "Bearer {{token}}"
      body: {"name": "Rex", "tag": "dog"}
    assert status 201
    assert $.name equals "Rex"
    extract $.id => petId
  then I can read it back
    call ^getPetById
      id: {{petId}}
    assert status 200
    assert $.tag equals "dog"
""",
    )
    assert scenario_statuses(events) == {"create and read": "passed"}
    assert sent(events, demo) == [("POST", "/auth/login"), ("POST", "/pets"), ("GET", "/pets/1")]
    assert [(label, status) for label, status, _ in finished(events)] == [
        ("call using auth ^login", "passed"),
        ("assert status 200", "passed"),
        ("extract $.token => token", "passed"),
        ("call ^createPet", "passed"),
        ("assert status 201", "passed"),
        ('assert $.name equals "Rex"', "passed"),
        ("extract $.id => petId", "passed"),
        ("call ^getPetById", "passed"),
        ("assert status 200", "passed"),
        ('assert $.tag equals "dog"', "passed"),
    ]
    assert [(e.name, e.layers) for e in of(events, VariableExtracted)][1] == ("petId", ("scenario",))


def test_dialects_mixed_in_one_scenario_share_the_last_response_and_the_variables(demo, write_scenario):
    events = run(
        demo,
        write_scenario,
        """\
scenario: mixed
  when: POST /login
    body: {"username": "demo", "password": "demo"}
  extract: token from $.token
  when I create a pet
    call ^createPet
      header_Authorization: "Bearer {{token}}"
      body: {"name": "Rex"}
  then: status 201
  extract: petId from $.id
  then it is there
    call ^getPetById
      id: {{petId}}
  then: $.name == "Rex"
""",
    )
    assert [status for _, status, _ in finished(events)] == ["passed"] * 7
    assert sent(events, demo) == [("POST", "/login"), ("POST", "/pets"), ("GET", "/pets/1")]


def test_call_children_go_to_the_path_the_query_and_the_headers(demo, write_scenario):
    events = run(
        demo,
        write_scenario,
        "scenario: children\n"
        + SIGN_IN
        + """\
  when I create and read a pet
    call ^createPet
      header_Authorization: "Bearer {{token}}"
      body: {"name": "Rex"}
    extract $.id => petId
    call ^getPetById
      id = {{petId}}
      header_X-Req: "req-{{petId}}"
    call ^listPets
      query_limit: 2
      tag: "dog"
""",
    )
    assert scenario_statuses(events) == {"children": "passed"}
    requests = of(events, RequestSent)
    assert sent(events, demo)[2:] == [("GET", "/pets/1"), ("GET", "/pets?limit=2&tag=dog")]
    assert ("X-Req", "req-1") in requests[2].headers
    assert requests[2].placements == (("id", "path", "1"), ("header_X-Req", "header", "X-Req: req-1"))


def test_call_bodies_inline_structured_triple_quoted_and_from_a_file(demo, write_scenario, tmp_path):
    (tmp_path / "templates").mkdir()
    (tmp_path / "templates" / "pet.json").write_text('{"name": "Filed", "tag": "template"}', encoding="utf-8")
    events = run(
        demo,
        write_scenario,
        """\
scenario: bodies
"""
        + SIGN_IN
        + '''\
  when I create pets four ways
    call ^createPet
      header_Authorization: "Bearer {{token}}"
      body: {"name": "Inline", "age": 3}
    assert $.age equals 3
    call ^createPet
      header_Authorization: "Bearer {{token}}"
      body:
        name: "Structured"
        tag: dog
    assert $.age equals 0
    call ^createPet
      header_Authorization: "Bearer {{token}}"
      body: """
        {"name": "{{token}}",
         "tag": "raw"}
        """
    assert $.tag equals "raw"
    call ^createPet
      header_Authorization: "Bearer {{token}}"
      bodyFile: "classpath:templates/pet.json"
    assert $.tag equals "template"
    assert $.name equals "Filed"
''',
    )
    assert scenario_statuses(events) == {"bodies": "passed"}, finished(events)
    bodies = [e.body for e in of(events, RequestSent)][1:]
    assert json.loads(bodies[0]) == {"name": "Inline", "age": 3}
    assert json.loads(bodies[1]) == {"name": "Structured", "tag": "dog", "age": 0}  # over the schema's defaults
    assert bodies[2].startswith('{"name": "') and bodies[2].endswith('",\n "tag": "raw"}')
    assert json.loads(bodies[3]) == {"name": "Filed", "tag": "template"}


def test_call_body_file_references_are_rendered(demo, write_scenario, tmp_path):
    (tmp_path / "pet.json").write_text('{"name": "{{petName}}"}', encoding="utf-8")
    events = run(
        demo,
        write_scenario,
        "scenario: file\n"
        + SIGN_IN
        + """\
  when I create a pet from a file
    call ^createPet
      header_Authorization: "Bearer {{token}}"
      bodyFile: "pet.json"
    assert $.name equals "Rex"
""",
        variables={"petName": "Rex"},
    )
    assert json.loads(of(events, RequestSent)[1].body) == {"name": "Rex"}


def test_a_failing_directive_fails_the_scenario_and_skips_the_rest(demo, write_scenario):
    text = (
        "scenario: fails\n"
        + SIGN_IN
        + """\
  when I create a pet
    call ^createPet
      header_Authorization: "Bearer {{token}}"
      body: {"name": "Rex"}
    assert status 200
    extract $.id => petId
  then it is there
    call ^getPetById
      id: {{petId}}
scenario: runs on
  when I check the health
    call ^getHealth
    assert status 200
"""
    )
    events = run(demo, write_scenario, text)
    assert scenario_statuses(events) == {"fails": "failed", "runs on": "passed"}
    steps = finished(events)
    failing = next(s for s in steps if s[1] == "failed")
    assert failing[:2] == ("assert status 200", "failed")
    assert failing[2].startswith("expected status 200, got 201")
    failed_line = HEAD_LINES + 11
    assert steps[4:7] == [
        ("assert status 200", "failed", failing[2]),
        ("extract $.id => petId", "skipped", f"skipped after the failure at line {failed_line}"),
        ("call ^getPetById", "skipped", f"skipped after the failure at line {failed_line}"),
    ]
    assert sent(events, demo) == [("POST", "/auth/login"), ("POST", "/pets"), ("GET", "/health")]
    summary = of(events, ScenarioFinished)[0].message
    assert summary.startswith(f"line {failed_line}: expected status 200, got 201")


def test_directives_carry_their_described_step_as_parent_in_the_plan(demo, write_scenario):
    events = run(
        demo,
        write_scenario,
        """\
fragment: health
  then it is healthy
    call ^getHealth
    assert status 200
background:
  given the API is up
    include health
scenario: parents
  when: GET /health
  when I check it
    call ^getHealth
    if status 200
      assert $.status equals "ok"
  then: status 200
""",
    )
    (started,) = of(events, ScenarioStarted)
    plan = [
        (
            step_label(p.step),
            step_label(p.parent) if p.parent is not None else None,
            [v.fragment for v in p.via],
            p.phase,
        )
        for p in started.steps
    ]
    assert plan == [
        ("call ^getHealth", "then it is healthy", ["health"], BACKGROUND_FILE),
        ("assert status 200", "then it is healthy", ["health"], BACKGROUND_FILE),
        ("when: GET /health", None, [], "scenario"),
        ("call ^getHealth", "when I check it", [], "scenario"),
        ("if status 200", "when I check it", [], "scenario"),
        ("then: status 200", None, [], "scenario"),
    ]
    assert all(isinstance(p.parent, DescribedStep) for p in started.steps if p.parent is not None)
    assert [p.index for p in started.steps] == list(range(6))
    assert scenario_statuses(events) == {"parents": "passed"}


# ---------------------------------------------------------------- if / else if / else and fail


CHAIN = """\
scenario: chain
  when I look for pet {{wanted}}
    call ^getPetById
      id: {{wanted}}
    if status 404
      fail "pet {{wanted}} is gone"
    else if status 200
      extract $.name => name
      if $.tag exists
        extract $.tag => tag
    else
      fail "unexpected"
  then: status 200
"""


def test_branch_taken_names_the_first_true_branch(demo, write_scenario):
    file = load_file(write_scenario(HEAD.replace("BASE", demo.url) + CHAIN))
    demo_pet = run(
        demo,
        write_scenario,
        "scenario: make\n"
        + SIGN_IN
        + """\
  when I create a pet
    call ^createPet
      header_Authorization: "Bearer {{token}}"
      body: {"name": "Rex", "tag": "dog"}
""",
        name="make.scenario",
    )
    assert scenario_statuses(demo_pet) == {"make": "passed"}
    events = run_to_completion([file], RunOverrides({}), {"wanted": 1})
    outer, inner = of(events, BranchTaken)
    assert isinstance(outer.step, ConditionalStep)
    assert outer.branch == 1
    assert [(text, held) for text, held, _ in outer.tried] == [("status 404", False), ("status 200", True)]
    assert outer.tried[0][2].startswith("expected status 404, got 200")
    assert (inner.branch, inner.tried) == (0, (("$.tag exists", True, None),))
    assert scenario_statuses(events) == {"chain": "passed"}
    assert of(events, ScenarioFinished)[0].snapshot.scenario["name"] == "Rex"
    assert of(events, ScenarioFinished)[0].snapshot.scenario["tag"] == "dog"


def test_fail_fails_with_its_message_interpolated(demo, write_scenario):
    path = write_scenario(HEAD.replace("BASE", demo.url) + CHAIN)
    events = run_to_completion([load_file(path)], RunOverrides({}), {"wanted": 999})
    (taken,) = of(events, BranchTaken)
    assert taken.branch == 0 and taken.tried == (("status 404", True, None),)
    assert finished(events)[1:] == [
        ("if status 404 · else if status 200 · else", "failed", "pet 999 is gone"),
        ("then: status 200", "skipped", f"skipped after the failure at line {HEAD_LINES + 6}"),
    ]
    # told at the `fail` line, not the `if` line
    assert of(events, StepFinished)[1].failed_inside.line == HEAD_LINES + 6
    assert of(events, ScenarioFinished)[0].message == f"line {HEAD_LINES + 6}: pet 999 is gone"


def test_fail_outside_an_if_fails_unconditionally(demo, write_scenario):
    path = write_scenario(
        HEAD.replace("BASE", demo.url)
        + """\
scenario: s
  when I give up
    call ^getHealth
    fail "gave up on {{reason}}"
  then: status 200
scenario: unquoted
  then it fails
    fail not written yet
"""
    )
    events = run_to_completion([load_file(path)], RunOverrides({}), {"reason": "Mondays"})
    assert [e.message for e in of(events, ScenarioFinished)] == [
        f"line {HEAD_LINES + 4}: gave up on Mondays",
        f"line {HEAD_LINES + 8}: not written yet",
    ]
    assert [s for _, s, _ in finished(events)] == ["passed", "failed", "skipped", "failed"]


def test_if_chain_without_a_true_branch_and_no_else_takes_none_and_passes(demo, write_scenario):
    events = run(
        demo,
        write_scenario,
        """\
scenario: none
  when I check
    call ^getHealth
    if status 201
      fail "not this"
    else if status 404
      fail "nor this"
  then: status 200
""",
    )
    (taken,) = of(events, BranchTaken)
    assert taken.branch is None and [held for _, held, _ in taken.tried] == [False, False]
    assert scenario_statuses(events) == {"none": "passed"}


def test_if_chain_branch_failure_fails_the_chain_step(demo, write_scenario):
    events = run(
        demo,
        write_scenario,
        """\
scenario: inner assert fails
  when I check
    call ^getHealth
    if status 200
      assert $.status equals "broken"
    else
      fail "not reached"
""",
    )
    (taken,) = of(events, BranchTaken)
    assert taken.branch == 0
    label, status, message = finished(events)[-1]
    assert (label, status) == ("if status 200 · else", "failed") and "broken" in message


# ---------------------------------------------------------------- include with arguments, nesting


def test_include_arguments_are_bound_while_the_fragment_runs_and_restored_afterwards(demo, write_scenario):
    events = run(
        demo,
        write_scenario,
        """\
fragment: make_pet
  when I create {{petName}}
    call ^createPet
      header_Authorization: "Bearer {{token}}"
      body: {"name": "{{petName}}", "age": {{age}}}
    assert status 201
    assert $.name equals "{{petName}}"
    extract $.id => petId
scenario: include with arguments
"""
        + SIGN_IN
        + """\
  and a name
    call ^getHealth
    extract $.status => petName
  when I make a pet
    include make_pet
      petName: "Rex"
      age: 3
  then the old name is back and the new names stay
    call ^getPetById
      id: {{petId}}
    assert $.name equals "Rex"
    assert $.age equals 3
    fail "{{petName}} {{age}} {{petId}}"
""",
    )
    body = json.loads(of(events, RequestSent)[2].body)
    assert body == {"name": "Rex", "age": 3}  # bound with their JSON types
    labels = finished(events)
    assert labels[5][:2] == ("include make_pet", "passed")
    assert labels[-1] == ("fail {{petName}} {{age}} {{petId}}", "failed", "ok 3 1")
    snapshot = of(events, ScenarioFinished)[0].snapshot
    assert (snapshot.scenario["petName"], snapshot.scenario["age"], snapshot.scenario["petId"]) == ("ok", 3, 1)


def test_include_arguments_are_restored_even_when_the_fragment_fails(demo, write_scenario):
    events = run(
        demo,
        write_scenario,
        """\
fragment: broken
  then it breaks
    fail "broken with {{who}}"
  and never gets here
    call ^getHealth
scenario: s
  given someone
    call ^getHealth
    extract $.status => who
  when I include it
    include broken
      who: "Rex"
""",
    )
    assert of(events, ScenarioFinished)[0].message == f"line {HEAD_LINES + 3}: broken with Rex"
    assert finished(events)[-1] == ("call ^getHealth", "skipped", f"skipped after the failure at line {HEAD_LINES + 3}")
    assert of(events, ScenarioFinished)[0].snapshot.scenario["who"] == "ok"


def test_include_arguments_are_never_written_to_a_store(demo, write_scenario):
    head = HEAD + "  shareVariablesAcrossScenarios: true\n"
    events = run(
        demo,
        write_scenario,
        """\
fragment: echo
  then it echoes
    call ^getHealth
    extract $.status => seen
scenario: binds
  when I include it
    include echo
      who: "Rex"
scenario: reads
  then: status 200
""",
        head=head,
    )
    first, second = of(events, ScenarioFinished)
    assert first.snapshot.store_values == {"seen": "ok"}  # the fragment's extraction, as if written in place
    assert "who" in first.snapshot.scenario and "who" not in second.snapshot.store_values


def test_includes_nest_and_their_extractions_behave_as_if_written_in_place(demo, write_scenario, tmp_path):
    fragments = tmp_path / "fragments"
    fragments.mkdir()
    (fragments / "auth.fragment").write_text(
        textwrap.dedent("""\
        fragment: sign_in
          given I sign in as {{user}}
            call using auth ^login
              body: {"username": "{{user}}", "password": "demo"}
            assert status 200
            extract $.token => token
        """),
        encoding="utf-8",
    )
    (fragments / "pets.fragment").write_text(
        textwrap.dedent("""\
        fragment: make_pet
          given I am signed in
            include sign_in
              user: "demo"
          when I create {{petName}}
            call ^createPet
              header_Authorization: "Bearer {{token}}"
              body: {"name": "{{petName}}"}
            extract $.id => petId
        """),
        encoding="utf-8",
    )
    events = run(
        demo,
        write_scenario,
        """\
scenario: nested
  when I make a pet
    include make_pet
      petName: "Luna"
  then: status 201
  then it is there
    call ^getPetById
      id: {{petId}}
    assert $.name equals "Luna"
""",
    )
    assert scenario_statuses(events) == {"nested": "passed"}, finished(events)
    (started,) = of(events, ScenarioStarted)
    # An include with arguments is a step of its own (it binds them), then its fragment's steps.
    assert [(step_label(p.step), [v.fragment for v in p.via]) for p in started.steps] == [
        ("include make_pet", []),
        ("include sign_in", ["make_pet"]),
        ("call using auth ^login", ["make_pet", "sign_in"]),
        ("assert status 200", ["make_pet", "sign_in"]),
        ("extract $.token => token", ["make_pet", "sign_in"]),
        ("call ^createPet", ["make_pet"]),
        ("extract $.id => petId", ["make_pet"]),
        ("then: status 201", []),
        ("call ^getPetById", []),
        ('assert $.name equals "Luna"', []),
    ]
    assert [p.step.location.file.endswith("auth.fragment") for p in started.steps][2:5] == [True] * 3
    snapshot = of(events, ScenarioFinished)[0].snapshot
    assert snapshot.scenario["user"] == "demo" and snapshot.scenario["token"]  # new names stay


# ---------------------------------------------------------------- outlines


OUTLINE = """\
outline: create pets
  given I sign in
    call using auth ^login
      body: {"username": "demo", "password": "demo"}
    extract $.token => token
  when I create {{name}}
    call ^createPet
      header_Authorization: "Bearer {{token}}"
      body: {"name": "{{name}}", "tag": "{{tag}}"}
    assert status 201
    assert $.name equals "{{name}}"
    extract $.id => lastId
  examples:
    | name       | tag   |
    | Rex        | dog   |
    | "Big Luna" | cat   |
scenario: afterwards
  then it sees what rows extracted, not their cells
    call ^getPetById
      id: {{lastId}}
    assert $.name equals "Big Luna"
    fail "{{name}}"
"""


def test_outline_rows_run_in_order_as_scenarios_with_their_cells_as_variables(demo, write_scenario):
    events = run(demo, write_scenario, OUTLINE)
    names = [e.scenario.name for e in of(events, ScenarioFinished)]
    assert names == ["create pets #1 (name=Rex, tag=dog)", "create pets #2 (name=Big Luna, tag=cat)", "afterwards"]
    bodies = [json.loads(e.body) for e in of(events, RequestSent) if e.url.endswith("/pets")]
    assert bodies == [{"name": "Rex", "tag": "dog"}, {"name": "Big Luna", "tag": "cat"}]
    first, second = of(events, ScenarioStarted)[:2]
    assert first.snapshot.scenario == {"name": "Rex", "tag": "dog"}  # the row's cells, before any step
    assert second.snapshot.scenario == {"name": "Big Luna", "tag": "cat"}
    assert [e.status for e in of(events, ScenarioFinished)][:2] == ["passed", "passed"]


def test_outline_row_variables_stay_in_the_scenario_layer_even_when_the_file_shares(demo, write_scenario):
    head = HEAD + "  shareVariablesAcrossScenarios: true\n"
    events = run(demo, write_scenario, OUTLINE, head=head)
    rows = of(events, ScenarioFinished)
    assert [r.status for r in rows] == ["passed", "passed", "failed"]
    assert rows[1].snapshot.store_values.keys() == {"token", "lastId"}  # extractions are shared, cells are not
    assert rows[1].snapshot.store_values["lastId"] == 2
    message = rows[2].message
    assert message.startswith(f"line {HEAD_LINES + 1 + 22}: undefined variable 'name'"), message


def test_outline_without_rows_runs_once(demo, write_scenario):
    events = run(
        demo,
        write_scenario,
        """\
outline: just once
  when I check
    call ^getHealth
    assert status 200
""",
    )
    assert scenario_statuses(events) == {"just once": "passed"}
    assert len(of(events, RequestSent)) == 1


def test_outline_rows_are_selected_by_the_outlines_tags(demo, write_scenario):
    path = write_scenario(
        HEAD.replace("BASE", demo.url)
        + """\
@smoke
outline: tagged
  when I check
    call ^getHealth
  examples:
    | n |
    | 1 |
    | 2 |
scenario: untagged
  when: GET /health
"""
    )
    events = run_to_completion([load_file(path)], RunOverrides({}), tags=["smoke"])
    assert scenario_statuses(events) == {
        "tagged #1 (n=1)": "passed",
        "tagged #2 (n=2)": "passed",
        "untagged": "skipped",
    }


# ---------------------------------------------------------------- auto tests, webhooks, references


def test_auto_tests_under_a_call_emit_auto_test_ran_events_and_pass(demo, write_scenario):
    events = run(
        demo,
        write_scenario,
        "scenario: auto\n"
        + SIGN_IN
        + """\
  when I send broken pets
    call ^createPet
      header_Authorization: "Bearer {{token}}"
      body: {"name": "Rex"}
      auto: [invalid]
    assert status 4xx
""",
    )
    assert scenario_statuses(events) == {"auto": "passed"}, finished(events)
    ran = of(events, AutoTestRan)
    assert len(ran) >= 3 and all(r.passed and r.kind == "invalid" and r.message is None for r in ran)
    assert [r.number for r in ran] == list(range(1, len(ran) + 1)) and {r.total for r in ran} == {len(ran)}
    assert "required" in {r.test_type for r in ran}
    assert all(isinstance(r.step, RequestStep) and r.step.auto == ("invalid",) for r in ran)
    # Only the generated requests go out: the call's own request is replaced, never announced.
    requests = of(events, RequestSent)[1:]
    assert len(requests) == len(ran) and all(json.loads(r.body) != {"name": "Rex"} for r in requests)


def test_auto_tests_fail_the_call_when_a_generated_request_is_accepted(demo, write_scenario):
    events = run(
        demo,
        write_scenario,
        "scenario: auto\n"
        + SIGN_IN
        + """\
  when I send broken pets
    call ^createPet
      header_Authorization: "Bearer {{token}}"
      body: {"name": "Rex"}
      auto: [invalid]
    assert status 2xx
""",
    )
    assert scenario_statuses(events) == {"auto": "failed"}
    ran = of(events, AutoTestRan)
    assert ran and not any(r.passed for r in ran)
    label, status, message = next(s for s in finished(events) if s[1] == "failed")
    assert (label, status) == ("call ^createPet", "failed")
    assert message.startswith(f"auto tests: {len(ran)} of {len(ran)} failed: ")


def test_webhook_starts_a_loopback_server_its_hooks_are_reachable(demo, write_scenario):
    events = run(
        demo,
        write_scenario,
        """\
scenario: hooks
  given a callback server
    webhook: events
      hook: created
      port: 0
  when: POST {{events.created}}
    body: {"event": "created"}
  then: status 200
""",
    )
    assert scenario_statuses(events) == {"hooks": "passed"}, finished(events)
    (request,) = of(events, RequestSent)
    assert request.url.startswith("http://127.0.0.1:") and not request.url.startswith(demo.url)


def test_references_escape_env_and_dotted_names_at_run_time(demo, write_scenario, monkeypatch):
    monkeypatch.setenv("SCENARIO_TUI_TEST_USER", "alice")
    events = run(
        demo,
        write_scenario,
        r"""
fragment: send
  when I send it
    call ^echoGet
      header_X-User: "{{env.SCENARIO_TUI_TEST_USER}}"
      header_X-Pet: "{{pet.name}}"
scenario: references
  when I include it
    include send
      pet.name: "Rex"
  when: POST /echo
    body: {"literal": "\{{pet.name}}", "user": "{{env.SCENARIO_TUI_TEST_USER}}"}
  then: $.json.user == "alice"
""",
    )
    assert scenario_statuses(events) == {"references": "passed"}, finished(events)
    get, post = of(events, RequestSent)
    assert ("X-User", "alice") in get.headers and ("X-Pet", "Rex") in get.headers
    assert json.loads(post.body) == {"literal": "{{pet.name}}", "user": "alice"}


# ---------------------------------------------------------------- scenario-level parameters


def test_scenario_parameters_apply_to_that_scenario_only(demo, write_scenario):
    events = run(
        demo,
        write_scenario,
        """\
scenario: elsewhere
  parameters:
    baseUrl: "http://127.0.0.1:9"
  when: GET /health
scenario: here
  when: GET /health
""",
    )
    assert scenario_statuses(events) == {"elsewhere": "failed", "here": "passed"}


# ---------------------------------------------------------------- the command line


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    command = [sys.executable, "-c", "import sys; from scenario_tui.cli.main import main; sys.exit(main())", *args]
    return subprocess.run(command, capture_output=True, text=True, cwd=cwd, timeout=120, env=dict(os.environ))


REPORTED = (
    """\
scenario: labels
"""
    + SIGN_IN
    + """\
  when I create a pet
    call ^createPet
      header_Authorization: "Bearer {{token}}"
      body: {"name": "Rex"}
    if status 200
      fail "not created"
    else if status 201
      assert $.id exists
    assert status 200
"""
)


def test_run_output_names_the_failing_directive_as_written(demo, tmp_path):
    (tmp_path / "f.scenario").write_text(source(REPORTED).replace("BASE", demo.url), encoding="utf-8")
    result = cli("run", "f.scenario", "--report-json", "r.json", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    failed_line = HEAD_LINES + 15
    assert f"line {failed_line}  assert status 200\n" in result.stdout
    assert "expected status 200, got 201" in result.stdout
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    steps = report["files"][0]["scenarios"][0]["steps"]
    assert [(s["line"], s["keyword"], s["status"]) for s in steps] == [
        (HEAD_LINES + 3, "call", "passed"),
        (HEAD_LINES + 5, "assert", "passed"),
        (HEAD_LINES + 6, "extract", "passed"),
        (HEAD_LINES + 8, "call", "passed"),
        (HEAD_LINES + 11, "if", "passed"),
        (failed_line, "assert", "failed"),
    ]
    assert steps[3]["operation"] == "createPet (POST /pets)"
    assert steps[4]["branch"] == "else if status 201"
    assert steps[5]["message"].startswith("expected status 200, got 201")


def test_json_report_shows_each_step_as_written(demo, tmp_path):
    (tmp_path / "f.scenario").write_text(source(REPORTED).replace("BASE", demo.url), encoding="utf-8")
    cli("run", "f.scenario", "--report-json", "r.json", cwd=tmp_path)
    steps = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["files"][0]["scenarios"][0]["steps"]
    assert [s.get("label") for s in steps][3:] == [
        "call ^createPet",
        "if status 200 · else if status 201",
        "assert status 200",
    ]


def test_custom_step_with_a_matching_plugin_runs(demo, tmp_path):
    (tmp_path / "steps.py").write_text(
        textwrap.dedent("""\
        from scenario_core.custom_steps import step

        @step("a pet called {string}")
        def called(ctx, name):
            ctx.set("petName", name)
        """),
        encoding="utf-8",
    )
    (tmp_path / "f.scenario").write_text(
        source(
            "scenario: custom\n"
            + SIGN_IN
            + """\
  given a pet called "Biscuit"
  when I create it
    call ^createPet
      header_Authorization: "Bearer {{token}}"
      body: {"name": "{{petName}}"}
    assert $.name equals "Biscuit"
"""
        ).replace("BASE", demo.url),
        encoding="utf-8",
    )
    result = cli("run", "--plugins", "steps.py", "f.scenario", "--report-json", "r.json", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    scenario = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["files"][0]["scenarios"][0]
    assert scenario["variables"]["petName"] == "Biscuit"
    assert [s["keyword"] for s in scenario["steps"]] == ["call", "assert", "extract", "given", "call", "assert"]
    # Without the plugin the step matches nothing: an error local to its scenario
    # (docs/spec/steps.md#errors-local-to-one-scenario), which ends failed at that line; the file is not refused.
    without = cli("run", "f.scenario", cwd=tmp_path)
    assert without.returncode == 1
    assert f'line {HEAD_LINES + 7}: no step matches "a pet called "Biscuit""' in without.stdout


def test_unmatched_custom_steps_and_assertions_fail_pointing_at_the_docs(demo, write_scenario):
    from scenario_core.custom_steps.registry import Registry
    from scenario_core.run.executor import Execution
    from scenario_core.run.options import RunOptions

    text = source(
        """\
        scenario: a step nobody wrote
          given a pet called "Biscuit"
        scenario: an assertion nobody wrote
          when I list the pets
            call ^listPets
            assert the pets look healthy
        """
    )
    path = write_scenario(text.replace("BASE", demo.url), "test.scenario")

    def collect(registry):
        return list(Execution([load_file(path)], RunOptions(registry=registry)).events())

    def failures(events):
        return [message for _, status, message in finished(events) if status == "failed"]

    unmatched = failures(collect(Registry()))
    assert unmatched == [
        'no step matches "a pet called "Biscuit""; custom steps are Python functions, see docs/custom-steps.md',
        'no assertion matches "the pets look healthy"; custom assertions are Python functions, '
        "see docs/custom-steps.md",
    ]
    assert failures(collect(None))[0] == unmatched[0]  # no plugins loaded at all: the same hint


def test_run_and_check_with_the_fragments_option(demo, tmp_path):
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "auth.fragment").write_text("fragment: sign_in\n" + SIGN_IN, encoding="utf-8")
    (tmp_path / "f.scenario").write_text(
        source("""\
        scenario: with a shared fragment
          given I am signed in
            include sign_in
          when I create a pet
            call ^createPet
              header_Authorization: "Bearer {{token}}"
              body: {"name": "Rex"}
            assert status 201
        """).replace("BASE", demo.url),
        encoding="utf-8",
    )
    result = cli("run", "--fragments", "shared/*.fragment", "f.scenario", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    result = cli("check", "--fragments", "shared", "f.scenario", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (0, "f.scenario: ok (0 features, 1 scenario, 1 fragment)\n")
    result = cli("run", "f.scenario", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        f"f.scenario:{HEAD_LINES + 3}:5: error: include of unknown fragment 'sign_in'; this file defines no fragments\n"
    )


def test_undefined_variable_names_an_extract_made_inside_an_if_branch(demo, write_scenario):
    events = run(
        demo,
        write_scenario,
        """\
        scenario: extracts in a branch
          when I check health
            call ^getHealth
            if status 200
              extract $.status => health
        scenario: isolated reader
          then it cannot see it
            assert {{health}} equals "ok"
        """,
    )
    message = [e.message for e in of(events, StepFinished) if e.status == "failed"][0]
    assert message.startswith("undefined variable 'health'")
    assert "'health' is extracted by scenario 'extracts in a branch'" in message
