"""BerryCrush's newest forms, of newer BerryCrush versions: `call using {{spec}} {{op}}`
(names chosen at run time), `call using NAME raw METHOD /path` (a request with no operationId)
and `include {{param.NAME}}` (the fragment chosen by a parameter). Runs go against the demo API
on loopback; never a mocked client."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from scenario_core.language.parser import load_file
from scenario_core.parameters.resolution import RunOverrides
from scenario_core.run.events import RequestSent, ResponseReceived, ScenarioFinished, StepFinished
from scenario_core.run.executor import run_to_completion
from scenario_tui.cli.main import main

PETSTORE = Path(__file__).resolve().parents[2] / "core" / "demo" / "petstore.yaml"


def head(base_url: str) -> str:
    return f"parameters:\n  openapi: {PETSTORE}\n  baseUrl: {base_url}\n"


def run(write_scenario, text: str, parameters: str):
    path = write_scenario(parameters + textwrap.dedent(text).lstrip("\n"))
    return run_to_completion([load_file(path)], RunOverrides({}))


def statuses(events) -> dict[str, str]:
    return {e.scenario.name: e.status for e in events if isinstance(e, ScenarioFinished)}


def messages(events) -> list[str]:
    return [e.message for e in events if isinstance(e, StepFinished) and e.message]


def sent(events) -> list[tuple[str, str]]:
    return [(e.method, e.url) for e in events if isinstance(e, RequestSent)]


# ---------------------------------------------------------------- call using {{spec}} {{op}}


def test_call_using_a_variable_description_and_operation_runs_that_operation(write_scenario, demo):
    events = run(
        write_scenario,
        """
        outline: dynamic spec and operation
          when I call with dynamic spec and operation
            call using {{specName}} {{operationId}}
          then it answers
            assert status 200
          examples:
            | specName | operationId |
            | default  | listPets    |
            | default  | getHealth   |
        """,
        head(demo.url).replace("  openapi:", "  binding.default.location:"),
    )
    assert list(statuses(events).values()) == ["passed", "passed"], messages(events)
    assert [url.rsplit("/", 1)[1] for _, url in sent(events)] == ["pets", "health"]


def test_call_using_a_variable_description_with_a_caret_operation(write_scenario, demo):
    events = run(
        write_scenario,
        """
        outline: dynamic spec
          when I call
            call using {{spec}} ^getPetById
              id: 1
          then it answers that pet 1 is not there (the demo starts empty)
            assert status 404
          examples:
            | spec |
            | pets |
        """,
        f"parameters:\n  binding.pets.location: {PETSTORE}\n  baseUrl: {demo.url}\n",
    )
    assert statuses(events) == {"dynamic spec #1 (spec=pets)": "passed"}, messages(events)
    assert sent(events)[0][1].endswith("/pets/1")


def test_a_dynamic_call_naming_no_operation_ends_its_scenario_at_its_line(write_scenario, demo):
    events = run(
        write_scenario,
        """
        outline: dynamic
          when I call
            call using default {{op}}
          then it answers
            assert status 200
          examples:
            | op          |
            | listPetz    |
            | getHealth   |
        """,
        head(demo.url).replace("  openapi:", "  binding.default.location:"),
    )
    assert list(statuses(events).values()) == ["failed", "passed"]
    assert "operation 'listPetz' not found in OpenAPI description 'default'" in messages(events)[0]
    assert "(using default {{op}})" in messages(events)[0]


def test_a_dynamic_call_whose_name_renders_empty_fails_naming_the_reference(write_scenario, demo):
    events = run(
        write_scenario,
        """
        outline: empty
          when I call
            call using {{spec}} ^listPets
          examples:
            | spec |
            |      |
        """,
        head(demo.url),
    )
    assert list(statuses(events).values()) == ["failed"]
    assert "{{spec}} gives description name '', which is not a name" in messages(events)[0]


def test_check_accepts_dynamic_names_and_checks_a_literal_operation(write_scenario, capsys):
    good = write_scenario(
        f"parameters:\n  openapi: {PETSTORE}\n"
        "scenario: s\n  when I call\n    call using {{spec}} ^listPets\n    call using {{spec}} {{op}}\n",
        "good.scenario",
    )
    assert main(["check", str(good)]) == 0  # `--var spec=…` may set them: a warning, at their place
    err = capsys.readouterr().err
    assert "good.scenario:5:18: warning: 'spec' is never visible here" in err
    assert "good.scenario:6:27: warning: 'op' is never visible here" in err
    assert "no OpenAPI description named" not in err
    bad = write_scenario(
        f"parameters:\n  openapi: {PETSTORE}\n"
        "outline: s\n  when I call\n    call using {{spec}} ^listPetz\n  examples:\n    | spec |\n    | a |\n",
        "bad.scenario",
    )
    assert main(["check", str(bad)]) == 2
    assert (
        "bad.scenario:5:25: error: using {{spec}} ^listPetz: operation 'listPetz' not found" in capsys.readouterr().err
    )


# ---------------------------------------------------------------- call using NAME raw METHOD /path


def test_raw_call_sends_method_and_path_to_the_bindings_base_url(write_scenario, demo):
    events = run(
        write_scenario,
        """
        scenario: raw health
          when I request the health check
            call using local raw GET /health
          then it answers
            assert status 200
            assert $.status equals "ok"
        outline: variable raw method and path
          when I request
            call using local raw {{method}} {{path}}
              header_X-Trace: abc
              kind: dog
          then it answers
            assert status 200
          examples:
            | method | path  |
            | POST   | /echo |
        """,
        f"parameters:\n  binding.local.baseUrl: {demo.url}\n",
    )
    assert list(statuses(events).values()) == ["passed", "passed"], messages(events)
    assert sent(events) == [("GET", f"{demo.url}/health"), ("POST", f"{demo.url}/echo?kind=dog")]
    echoed = [e for e in events if isinstance(e, ResponseReceived)][1]
    assert json.loads(echoed.body)["headers"].get("x-trace") == "abc"


def test_raw_call_matching_an_operation_is_that_operations_call(write_scenario, demo):
    events = run(
        write_scenario,
        """
        scenario: raw to a described path
          when I get pet 1
            call using pets raw GET /pets/{id}
              id: 1
          then it answers as described
            assert status 404
            assert schema
        """,
        f"parameters:\n  binding.pets.location: {PETSTORE}\n  binding.pets.baseUrl: {demo.url}\n",
    )
    assert statuses(events) == {"raw to a described path": "passed"}, messages(events)
    request = next(e for e in events if isinstance(e, RequestSent))
    assert request.url == f"{demo.url}/pets/1"
    assert request.operation is not None and "getPetById" in request.operation


def test_raw_call_without_a_server_for_its_name_fails_at_its_line(write_scenario, demo):
    events = run(write_scenario, "scenario: s\n  when I go\n    call using nowhere raw GET /\n", "")
    assert statuses(events) == {"s": "failed"}
    assert "no server for 'nowhere': set binding.nowhere.baseUrl" in messages(events)[0]


def test_raw_call_with_a_bad_method_or_path_is_a_located_error(write_scenario, capsys):
    path = write_scenario("scenario: s\n  when I go\n    call using x raw FETCH /\n    call using x raw GET health\n")
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert "test.scenario:3:22: error: 'FETCH' is not an HTTP method" in err
    assert "test.scenario:4:26: error: a raw call's path starts with /" in err


def test_raw_call_rendering_a_bad_method_fails_its_scenario(write_scenario, demo):
    events = run(
        write_scenario,
        """
        outline: o
          when I go
            call using local raw {{m}} /health
          examples:
            | m     |
            | FETCH |
        """,
        f"parameters:\n  binding.local.baseUrl: {demo.url}\n",
    )
    assert list(statuses(events).values()) == ["failed"]
    assert "'FETCH' is not an HTTP method" in messages(events)[0]


# ---------------------------------------------------------------- include {{param.NAME}}

FRAGMENTS = """
fragment: health
  when I check health
    call raw GET /health
    assert status 200
fragment: pets
  when I list pets
    call raw GET /pets
    assert $ size 0
"""


def test_include_param_name_includes_the_fragment_each_scenario_names(write_scenario, demo):
    events = run(
        write_scenario,
        textwrap.dedent(
            """
        scenario: by the scenario's parameter
          parameters:
            fragment-name: health
          when I call the endpoint
            include {{param.fragment-name}}
        feature: f
          parameters:
            fragment-name: pets
          scenario: by the feature's parameter
            when I call it
              include {{param.fragment-name}}
          scenario: by the file's parameter
            parameters:
              other: x
            when I call it
              include {{param.which}}
        """
        )
        + FRAGMENTS,
        f"parameters:\n  baseUrl: {demo.url}\n  which: health\n",
    )
    assert statuses(events) == {
        "by the scenario's parameter": "passed",
        "by the feature's parameter": "passed",
        "by the file's parameter": "passed",
    }, messages(events)
    assert [url.rsplit("/", 1)[1] for _, url in sent(events)] == ["health", "pets", "health"]


def test_include_param_name_set_nowhere_is_a_located_error(write_scenario, capsys):
    path = write_scenario("scenario: s\n  when I go\n    include {{param.which}}\n" + FRAGMENTS)
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert (
        "test.scenario:3:5: error: include {{param.which}}: no parameter 'which' is set for scenario 's' "
        "(in its parameters:, its feature's or the file's)"
    ) in err


def test_include_param_name_naming_no_fragment_is_the_unknown_fragment_error(write_scenario, capsys):
    path = write_scenario(
        "scenario: s\n  parameters:\n    which: helth\n  when I go\n    include {{param.which}}\n" + FRAGMENTS
    )
    assert main(["check", str(path)]) == 2
    assert "test.scenario:5:5: error: include of unknown fragment 'helth'; did you mean 'health'?" in (
        capsys.readouterr().err
    )


def test_include_of_a_variable_other_than_a_parameter_is_a_located_error(write_scenario, capsys):
    path = write_scenario("scenario: s\n  when I go\n    include {{name}}\n" + FRAGMENTS)
    assert main(["check", str(path)]) == 2
    assert "test.scenario:3:13: error: a fragment is named by a word or by a parameter" in capsys.readouterr().err


def test_call_using_a_parameter_as_the_description_name(write_scenario, demo):
    events = run(
        write_scenario,
        "scenario: s\n  parameters:\n    spec: pets\n  when I call\n    call using {{param.spec}} ^getHealth\n"
        "    assert status 200\n",
        f"parameters:\n  binding.pets.location: {PETSTORE}\n  baseUrl: {demo.url}\n",
    )
    assert statuses(events) == {"s": "passed"}, messages(events)


def test_dynamic_and_raw_calls_count_in_the_runs_coverage(write_scenario, demo):
    from scenario_core.report.coverage_collector import CoverageCollector

    events = run(
        write_scenario,
        """
        outline: o
          when I call
            call using {{spec}} {{op}}
            call raw GET /pets
          examples:
            | spec    | op        |
            | default | getHealth |
        """,
        head(demo.url).replace("  openapi:", "  binding.default.location:"),
    )
    collector = CoverageCollector()
    for event in events:
        collector.feed(event)
    called = {op.id: op.called for _, op in collector.coverage.operations()}
    assert called["getHealth"] == 1 and called["listPets"] == 1


# ---------------------------------------------------------------- {{NAME}}: value children


def test_a_call_childs_name_chosen_by_a_variable_is_placed_at_run_time(write_scenario, demo):
    events = run(
        write_scenario,
        """
        outline: call parameter key ref
          when I call the endpoint
            call ^getStatus
              {{pathVariable}}: {{value}}
          then it answers
            assert status 201
          examples:
            | pathVariable | value |
            | code         | 201   |
        """,
        head(demo.url),
    )
    assert list(statuses(events).values()) == ["passed"], messages(events)
    assert sent(events)[0][1] == f"{demo.url}/status/201"


def test_an_include_arguments_name_chosen_by_a_parameter_binds_that_variable(write_scenario, demo):
    events = run(
        write_scenario,
        textwrap.dedent(
            """
        scenario: include parameter key ref
          parameters:
            path: code
          when I call the endpoint
            include status
              {{param.path}}: 202
        fragment: status
          when I call it
            call ^getStatus
              code: {{code}}
            assert status 202
        """
        ),
        head(demo.url),
    )
    assert statuses(events) == {"include parameter key ref": "passed"}, messages(events)


def test_check_leaves_a_call_with_a_variable_child_name_to_the_run(write_scenario, capsys):
    path = write_scenario(
        f"parameters:\n  openapi: {PETSTORE}\noutline: o\n  when I call\n    call ^getStatus\n"
        "      {{pv}}: 200\n  examples:\n    | pv |\n    | code |\n"
    )
    assert main(["check", str(path)]) == 0, capsys.readouterr().err


def test_check_reports_a_raw_call_whose_name_has_no_server(write_scenario, capsys):
    path = write_scenario(
        "parameters:\n  binding.local.baseUrl: http://127.0.0.1:1\n"
        "scenario: s\n  when I go\n    call using local raw GET /\n    call using nowhere raw GET /\n"
    )
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert "test.scenario:6:16: error: no server for 'nowhere': set binding.nowhere.baseUrl" in err
    assert ":5:" not in err
