"""BerryCrush files as BerryCrush users write them: our own fixture set in
tests/fixtures/berrycrush_corpus/, one file per construct that BerryCrush's repository uses and
that `check` or `run` mishandles today (what each file exercises: that folder's README.md).

For every fixture, `check` accepts it (or, for the two errors local to one scenario, reports only
that error) and `run` ends each scenario with the status BerryCrush gives it. The tests marked
xfail fail on the code of the layout refactor (d7c52be); the implementer removes each mark with
its fix. Runs go through `scenario-tui run` in process (its loader is where a file is refused)
against the demo API on loopback, or against a port where nothing listens."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from scenario_tui.cli.main import main

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "berrycrush_corpus"

xfail = pytest.mark.xfail(strict=True, reason="not implemented yet (see the test's docstring)")


def check(capsys, name: str) -> tuple[int, list[str]]:
    """`scenario-tui check FIXTURE`: its exit status and its error messages (file:line:col cut)."""
    status = main(["check", str(FIXTURES / name)])
    captured = capsys.readouterr()
    errors = [
        line.split(": error: ", 1)[1] for line in (captured.err + captured.out).splitlines() if ": error: " in line
    ]
    return status, errors


def run(capsys, tmp_path: Path, name: str, base_url: str) -> dict[str, dict]:
    """`scenario-tui run FIXTURE --base-url URL`: every scenario of its JSON report, by name."""
    report = tmp_path / f"{name}.json"
    main(["run", str(FIXTURES / name), "--base-url", base_url, "--report-json", str(report)])
    output = capsys.readouterr()
    assert report.exists(), f"run wrote no report; it printed:\n{output.err}{output.out}"
    (file,) = json.loads(report.read_text(encoding="utf-8"))["files"]
    return {scenario["name"]: scenario for scenario in file["scenarios"]}


def statuses(scenarios: dict[str, dict]) -> dict[str, str]:
    return {name: scenario["status"] for name, scenario in scenarios.items()}


def sent_nothing(scenario: dict) -> bool:
    return not any("request" in step for step in scenario["steps"])


@pytest.fixture
def nowhere() -> str:
    """A loopback URL where nothing listens (the port was free a moment ago)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"


# ---------------------------------------------------------------- parameters


def test_unknown_key_far_from_known_keys_is_a_user_parameter(capsys, tmp_path, demo):
    """docs/spec/parameters.md#user-parameters: `tenant:` + `port: 8443`, `apiFlavour`, `retries`, `spec`
    are far from every known key, so they are user parameters even when nothing reads them (today:
    "unknown parameter 'tenant.port'; known parameters: …", "'retries'; did you mean 'retry.jitter'?",
    "'spec'; did you mean 'secrets'?" — core/language/builder.py Builder._check_user_keys and
    parameter_keys.unknown_key_message, while parameter_keys.near_miss already says no)."""
    assert check(capsys, "user_parameters.scenario") == (0, [])
    assert statuses(run(capsys, tmp_path, "user_parameters.scenario", demo.url)) == {
        "the health endpoint answers for every tenant": "passed"
    }


@pytest.mark.parametrize(
    "key, known",
    [
        ("Timeout", "timeout"),
        ("timout", "timeout"),
        ("baseUrll", "baseUrl"),
        ("shareVariables", "shareVariablesAcrossScenarios"),
        ("retry.maxAttempt", "retry.maxAttempts"),
    ],
)
def test_a_near_miss_of_a_known_key_stays_an_error(write_scenario, capsys, key, known):
    """The other half of the v3 rule, which the fix must keep: a near miss names the key it resembles."""
    status = main(["check", str(write_scenario(f"parameters:\n  {key}: 5\n"))])
    assert status == 2
    assert f"unknown parameter '{key}'; did you mean '{known}'?" in capsys.readouterr().err


def test_an_outline_parameters_block_may_read_its_example_columns(capsys, tmp_path, demo):
    """docs/spec/parameters.md#references-in-values: a parameter value may read, "in an outline's own block its example
    columns". Today: "binding.api.location cannot use {{spec}}: parameters are static, …"
    (core/parameters/resolution.py _Levels via parameter_keys.parse_template). Behind it: check
    resolves operations with file and feature parameters only, so a description named in a
    scenario's or outline's own block is not seen ("no OpenAPI description is loaded …",
    core/parameters/operation_check.py _groups/_resolved); each row needs its own."""
    assert check(capsys, "outline_parameters_from_examples.scenario") == (0, [])
    found = run(capsys, tmp_path, "outline_parameters_from_examples.scenario", demo.url)
    assert list(statuses(found).values()) == ["passed", "passed"]


def test_a_classpath_binding_location_is_found_from_the_scenario_folder(capsys, tmp_path, demo):
    """docs/parameters.md `binding.NAME.location` with the standalone class path (the scenario
    file's folder, then each folder above it; docs/spec/berrycrush.md#configuration-outside-the-file: --resource-root). Today the value is
    joined to the folder as written: "OpenAPI description 'classpath:/echo-api.yaml' cannot be
    read" (core/parameters/descriptions.py description_paths)."""
    assert check(capsys, "classpath_binding.scenario") == (0, [])
    assert statuses(run(capsys, tmp_path, "classpath_binding.scenario", demo.url)) == {
        "the echo API is found on the class path": "passed"
    }


# ---------------------------------------------------------------- status -1


def test_status_minus_one_expects_no_response(capsys, tmp_path, nowhere):
    """docs/spec/steps.md#expecting-no-response, in `assert` and in `if`. Today: "status takes a code
    (200), a class (2xx), a range (201-204) or a pattern (20x), got '-1'" (core/language/conditions.py)."""
    assert check(capsys, "status_minus_one.scenario") == (0, [])
    assert statuses(run(capsys, tmp_path, "status_minus_one.scenario", nowhere)) == {
        "nothing answers": "passed",
        "nothing answers, checked with a condition": "passed",
    }


def test_status_minus_one_fails_naming_the_status_when_a_response_comes(capsys, tmp_path, demo):
    found = run(capsys, tmp_path, "status_minus_one.scenario", demo.url)
    assert statuses(found) == {"nothing answers": "failed", "nothing answers, checked with a condition": "failed"}
    assert "200" in json.dumps(found["nothing answers"]["steps"])
    assert "a server answered" in json.dumps(found["nothing answers, checked with a condition"]["steps"])


# ---------------------------------------------------------------- JSON paths


def test_a_jayway_function_may_end_a_json_path(capsys, tmp_path, demo):
    """docs/spec/berrycrush.md#conditions: JSON paths are Jayway's, so `$.endpoints.length() >= 1` (and in `if`).
    Today: "invalid JSON path '$.endpoints.length()': Parse error at 1:18 near token (" — jsonpath-ng
    has no such function (core/language/step_syntax.py compile_json_path)."""
    assert check(capsys, "jayway_functions.scenario") == (0, [])
    assert statuses(run(capsys, tmp_path, "jayway_functions.scenario", demo.url)) == {
        "the index lists its endpoints": "passed",
        "a fresh store has no pets": "passed",
    }


# ---------------------------------------------------------------- errors local to one scenario


def local_error(capsys, tmp_path, demo, name: str, message: str, broken: str, sound: str) -> None:
    status, errors = check(capsys, name)
    assert status == 2 and len(errors) == 1 and message in errors[0]
    found = run(capsys, tmp_path, name, demo.url)
    assert statuses(found)[sound] == "passed"
    assert statuses(found)[broken] != "passed"
    # the message as the report's JSON writes it (its double quotes escaped)
    assert json.dumps(message)[1:-1] in json.dumps(found[broken]) and sent_nothing(found[broken])


def test_a_step_no_custom_step_matches_ends_only_its_scenario(capsys, tmp_path, demo):
    """docs/spec/steps.md#errors-local-to-one-scenario. check already reports the one error;
    run refuses the whole file (tui/cli/main.py load_valid: _custom_step_diagnostics)."""
    local_error(
        capsys,
        tmp_path,
        demo,
        "unmatched_custom_step.scenario",
        'no step matches "the warehouse has been stocked by the nightly job"',
        "the warehouse is stocked",
        "the health endpoint answers",
    )


def test_an_operation_no_description_has_ends_only_its_scenario(capsys, tmp_path, demo):
    """docs/spec/steps.md#errors-local-to-one-scenario. Today run refuses the whole file for
    "operation 'listInventory' not found …" (tui/cli/main.py load_valid: parameter_diagnostics ->
    core/parameters/operation_check.py operation_diagnostics)."""
    local_error(
        capsys,
        tmp_path,
        demo,
        "undeclared_operation.scenario",
        "operation 'listInventory' not found",
        "list the inventory",
        "the health endpoint answers",
    )


# ---------------------------------------------------------------- auto tests


def test_auto_invalid_and_multi_on_one_call_passes_check(capsys):
    assert check(capsys, "auto_multi_test_type.scenario") == (0, [])


def test_multi_requests_run_the_if_chain_that_reads_test_type(capsys, tmp_path, demo):
    """docs/spec/berrycrush.md#auto-tests with `auto: [invalid multi]` and `if test.type equals invalid and status
    4xx`: today each repeated request fails with "undefined variable 'test.type' in if test.type
    equals invalid and status 4xx; visible here: multiTest.count, …" — the multi runs set only
    multiTest.* (core/run/executor.py Executor._auto_tests). BerryCrush passes the scenario."""
    assert statuses(run(capsys, tmp_path, "auto_multi_test_type.scenario", demo.url)) == {
        "the status endpoint refuses bad codes and answers alike when repeated": "passed"
    }


# ---------------------------------------------------------------- lines BerryCrush passes over


def test_description_and_tags_lines_in_a_scenario_body_are_read(capsys, tmp_path, demo):
    """Samples 08-retry, 03-retry-resilience, parallel/01 and /03 (no rule yet when
    this test was written). Today: "'description:' is not allowed here; expected parameters:, when:, …"
    (core/language/parser.py)."""
    assert check(capsys, "description_and_tags_lines.scenario") == (0, [])
    assert statuses(run(capsys, tmp_path, "description_and_tags_lines.scenario", demo.url)) == {
        "health, described": "passed",
        "health, tagged in the body": "passed",
    }


def test_a_finally_block_after_the_last_step_is_read(capsys, tmp_path, demo):
    """Sample 07-error-context (no rule yet). Today: "'finally:' is not allowed here; expected when:,
    then:, extract:, include: or given/and/but" (core/language/parser.py)."""
    assert check(capsys, "finally_block.scenario") == (0, [])
    assert statuses(run(capsys, tmp_path, "finally_block.scenario", demo.url)) == {
        "health, then a clean-up block": "passed"
    }


def test_an_include_straight_under_a_scenario_is_read(capsys, tmp_path, demo):
    """Sample 99-copilot-test (no rule yet). Today: "'include' is not allowed here; a directive
    stands indented under a step …" (core/language/parser.py)."""
    assert check(capsys, "include_under_scenario.scenario") == (0, [])
    assert statuses(run(capsys, tmp_path, "include_under_scenario.scenario", demo.url)) == {
        "reuse the health check": "passed"
    }


def test_every_fixture_is_described_in_the_readme():
    readme = (FIXTURES / "README.md").read_text(encoding="utf-8")
    assert [p.name for p in sorted(FIXTURES.glob("*.scenario")) if f"`{p.name}`" not in readme] == []


# ---------------------------------------------------------------- the newest forms


def test_the_newest_berrycrush_forms_read_and_run(capsys, tmp_path, demo):
    """Forms of newer BerryCrush versions, from BerryCrush's own JUnit resources: `call using
    {{spec}} {{op}}`, `call using NAME raw METHOD /path`, a `{{NAME}}: value` child and
    `include {{param.NAME}}` (tests/core/test_berrycrush_newest_forms.py has one test per rule)."""
    assert check(capsys, "newest_forms.scenario") == (0, [])
    found = statuses(run(capsys, tmp_path, "newest_forms.scenario", demo.url))
    assert set(found.values()) == {"passed"} and len(found) == 5, found


# ---------------------------------------------------------------- BerryCrush's files as written, round 3


def test_an_outline_column_named_with_a_dot_is_read_by_its_parameters(capsys, tmp_path, demo):
    """docs/spec/parameters.md#references-in-values: `{{tenant.label}}` names a column (BerryCrush's
    junit parameters.scenario writes `{{custom.value}}`); it was refused as a static-parameter error."""
    assert check(capsys, "dotted_outline_column.scenario") == (0, [])
    assert set(statuses(run(capsys, tmp_path, "dotted_outline_column.scenario", demo.url)).values()) == {"passed"}


def test_binding_default_base_url_is_the_runs_base_url(capsys, tmp_path, demo):
    """docs/spec/berrycrush.md#the-default-binding (BerryCrush's 10-openapi-31-features sample);
    check wants the base URL, which the command line gives here."""
    found = run(capsys, tmp_path, "default_binding.scenario", demo.url)
    assert statuses(found) == {"the echo binding shares the run's server": "passed"}


def test_a_named_parameters_block_of_a_fragment_file_is_taken_in(capsys, tmp_path, demo):
    """docs/spec/berrycrush.md#named-parameter-blocks (BerryCrush's junit fragment-variable.scenario
    and include.fragment); `<< demo-api` was refused as a line that is not `name: value`."""
    assert check(capsys, "named_parameters.scenario") == (0, [])
    found = run(capsys, tmp_path, "named_parameters.scenario", demo.url)
    assert statuses(found) == {"the named block's description and header are in force": "passed"}


def test_a_call_child_the_operation_does_not_declare_ends_only_its_scenario(capsys, tmp_path, demo):
    """docs/spec/steps.md#errors-local-to-one-scenario (BerryCrush's core scenario-parameters.scenario);
    run refused the whole file."""
    local_error(
        capsys,
        tmp_path,
        demo,
        "unknown_call_child.scenario",
        "'nickname' is not a parameter of createPet",
        "create a pet with a stray child",
        "the health endpoint answers",
    )


def test_multi_repeats_expect_no_response_and_keep_multi_test_names(capsys, tmp_path, nowhere):
    """docs/spec/berrycrush.md#auto-tests (BerryCrush's junit parameters.scenario): `assert status -1`
    checks each repeat, and `multiTest.mode` is read after them."""
    assert check(capsys, "multi_repeats.scenario") == (0, [])
    found = run(capsys, tmp_path, "multi_repeats.scenario", nowhere)
    assert statuses(found) == {"every repeat expects no response": "passed"}


def test_webhook_hooks_as_a_dash_list(capsys, tmp_path, demo):
    """docs/spec/berrycrush.md#webhooks: `hooks:` over `- name` lines, as BerryCrush documents it."""
    assert check(capsys, "hooks_dash_list.scenario") == (0, [])
    assert statuses(run(capsys, tmp_path, "hooks_dash_list.scenario", demo.url)) == {"both hooks listen": "passed"}
