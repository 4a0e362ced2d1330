"""BerryCrush's parameter keys (docs/parameters.md, docs/spec/parameters.md): each known, validated with a
located one-line error, resolved with provenance, and doing what it says against a real server on
loopback (the demo API, or the small fixture server below for retries and redirects)."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import pytest

from scenario_core.language import parameter_keys as params
from scenario_core.language.errors import InvalidFileError, UsageError
from scenario_core.language.nodes.base import SourceLocation
from scenario_core.language.nodes.blocks import FeatureNode, ParameterEntry, ParametersNode, ScenarioNode
from scenario_core.language.parser import load_file, parse_text
from scenario_core.parameters.diagnostics import parameter_diagnostics
from scenario_core.parameters.params_report import parameter_nodes
from scenario_core.parameters.resolution import ParameterError, RunOverrides, resolve_parameters
from scenario_core.run import events as ev
from scenario_core.run.executor import run_to_completion
from scenario_core.run.retry import RetryPolicy
from scenario_core.support.records import replace


def error(text: str) -> str:
    with pytest.raises(InvalidFileError) as caught:
        parse_text(text, "t.scenario")
    return str(caught.value)


def value(key: str, raw: str):
    return parse_text(f"parameters:\n  {key}: {raw}\n", "t.scenario").parameters.get(key).value


# ---------------------------------------------------------------- the fixture server


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args) -> None:
        pass

    def _reply(self, status: int, payload=None, headers=()) -> None:
        body = json.dumps(payload).encode() if payload is not None else b""
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for name, value_ in headers:
            self.send_header(name, value_)
        self.end_headers()
        self.wfile.write(body)

    def _handle(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode() if length else ""
        url = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        state = self.server.state
        parts = url.path.strip("/").split("/")
        with state["lock"]:
            state["seen"].append((self.command, url.path, time.monotonic()))
            count = state["counts"][url.path] = state["counts"].get(url.path, 0) + 1
        if parts[0] == "flaky":  # /flaky/KEY?fail=N&status=503: N failures, then 200
            if count <= int(query.get("fail", 1)):
                return self._reply(int(query.get("status", 503)), {"attempt": count})
            return self._reply(200, {"attempt": count})
        if parts[0] == "hang":  # /hang/KEY?ms=1500: the first request hangs, the next ones answer
            if count == 1:
                time.sleep(int(query.get("ms", 1500)) / 1000)
            return self._reply(200, {"attempt": count})
        if parts[0] == "redirect":  # /redirect?status=303&to=/final
            return self._reply(int(query.get("status", 302)), None, [("Location", query.get("to", "/final"))])
        if parts[0] == "loop":
            return self._reply(302, None, [("Location", "/loop")])
        return self._reply(
            200,
            {
                "method": self.command,
                "path": url.path,
                "body": body,
                "headers": {k.lower(): v for k, v in self.headers.items()},
            },
        )

    do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = _handle


@pytest.fixture
def fixture_server():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    server.state = {"lock": threading.Lock(), "seen": [], "counts": {}}
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    server.url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def run_text(write_scenario, text: str, overrides=None):
    return run_to_completion([load_file(str(write_scenario(text)))], overrides)


def of(events, kind):
    return [e for e in events if isinstance(e, kind)]


def step_results(events):
    return [(e.step.line, e.status, e.message) for e in of(events, ev.StepFinished)]


# ---------------------------------------------------------------- blocks built directly


def _loc(line: int) -> SourceLocation:
    return SourceLocation("t.scenario", line, 5, line, 30)


def _block(entries: dict[str, str], line: int) -> ParametersNode:
    built = []
    for i, (key, raw) in enumerate(entries.items()):
        parsed = params.parse_value(key, raw) if params.is_known(key) else params.parse_user_value(key, raw)
        built.append(ParameterEntry(key, parsed, raw, _loc(line + 1 + i)))
    return ParametersNode(tuple(built), _loc(line))


def with_scenario_block(file, name: str, entries: dict[str, str], line: int = 90):
    """The file with scenario `name` given its own parameters: block, built directly so that a
    test states its lines (files written so are tested at the end of this module)."""
    block = _block(entries, line)

    def fix(scenario: ScenarioNode) -> ScenarioNode:
        return replace(scenario, parameters=block) if scenario.name == name else scenario

    items = tuple(
        replace(i, scenarios=tuple(fix(s) for s in i.scenarios)) if isinstance(i, FeatureNode) else fix(i)
        for i in file.items
    )
    return replace(
        file,
        items=items,
        features=tuple(i for i in items if isinstance(i, FeatureNode)),
        scenarios=tuple(i for i in items if isinstance(i, ScenarioNode)),
    )


def with_file_entries(file, entries: dict[str, str], line: int = 80):
    """The file with more entries in its own block (user keys: the builder keeps those the file reads)."""
    extra = _block(entries, line).entries
    block = file.parameters
    merged = ParametersNode((block.entries if block else ()) + extra, block.location if block else _loc(line))
    return replace(file, parameters=merged)


# ---------------------------------------------------------------- validation: one test per key


def test_environment_is_text_quoted_or_bare():
    assert value("environment", "staging") == "staging"
    assert value("environment", '"eu west"') == "eu west"
    assert error('parameters:\n  environment: ""\n') == 't.scenario:2:16: error: environment must be some text, got ""'


@pytest.mark.parametrize(
    "key",
    [
        "logRequests",
        "logResponses",
        "followRedirects",
        "retry.jitter",
        "errorContext.includeRequestBody",
        "errorContext.includeResponseBody",
    ],
)
def test_boolean_keys_stay_bare_true_or_false(key):
    assert value(key, "true") is True and value(key, "false") is False
    column = len(f"  {key}: ") + 1
    assert error(f'parameters:\n  {key}: "true"\n') == (
        f't.scenario:2:{column}: error: {key} must be true or false, got "true" (remove the quotes)'
    )
    assert (
        error(f"parameters:\n  {key}: yes\n") == f't.scenario:2:{column}: error: {key} must be true or false, got "yes"'
    )


def test_retry_max_attempts_is_a_whole_number_from_0_to_100():
    assert value("retry.maxAttempts", "0") == 0 and value("retry.maxAttempts", "3") == 3
    for raw in ("-1", "1.5", "many", "101"):
        assert error(f"parameters:\n  retry.maxAttempts: {raw}\n") == (
            f't.scenario:2:22: error: retry.maxAttempts must be a whole number of retries from 0 to 100, got "{raw}"'
        )
    assert error('parameters:\n  retry.maxAttempts: "3"\n').endswith('got "3" (remove the quotes)')


@pytest.mark.parametrize(
    "raw, ms", [("500ms", 500), ("2s", 2000), ("1m", 60_000), ("250", 250), ('"500ms"', 500), ("'2s'", 2000), ("0", 0)]
)
def test_durations_are_ms_s_m_or_a_bare_number_of_milliseconds_quoted_or_not(raw, ms):
    for key in ("retry.delay", "retry.maxDelay"):
        parsed = value(key, raw)
        assert parsed == ms and isinstance(parsed, params.Duration)
    assert (
        str(params.Duration(500)) == "500ms"
        and str(params.Duration(2000)) == "2s"
        and str(params.Duration(60_000)) == "1m"
    )


@pytest.mark.parametrize("raw", ["1.5s", "2h", "fast", "-1s", '""'])
def test_a_duration_that_is_not_one_is_a_located_error(raw):
    assert error(f"parameters:\n  retry.delay: {raw}\n") == (
        f"t.scenario:2:16: error: retry.delay must be a duration: 500ms, 2s, 1m or a number of milliseconds, "
        f"got {raw if raw.startswith(chr(34)) else chr(34) + raw + chr(34)}"
    )
    assert error("parameters:\n  retry.maxDelay: 2000m\n") == (
        't.scenario:2:19: error: retry.maxDelay is at most a day (86400s), got "2000m"'
    )


def test_retry_backoff_is_fixed_linear_or_exponential():
    assert [value("retry.backoff", b) for b in ("fixed", "linear", "exponential", '"linear"')] == [
        "fixed",
        "linear",
        "exponential",
        "linear",
    ]
    assert error("parameters:\n  retry.backoff: Linear\n") == (
        't.scenario:2:18: error: retry.backoff must be fixed, linear or exponential, got "Linear" '
        "(write it in lower case: linear)"
    )
    assert error("parameters:\n  retry.backoff: random\n").endswith('got "random"')


def test_error_context_max_body_size_is_a_whole_number_of_bytes():
    assert value("errorContext.maxBodySize", "0") == 0 and value("errorContext.maxBodySize", "100") == 100
    assert error("parameters:\n  errorContext.maxBodySize: 4k\n") == (
        "t.scenario:2:29: error: errorContext.maxBodySize must be a whole number of bytes from 0 to 1099511627776, "
        'got "4k"'
    )


def test_multi_test_counts_and_the_multi_test_family_are_positive_integers():
    assert value("multiTestSequentialCount", "4") == 4 and value("multiTestConcurrentCount", "10") == 10
    assert value("multiTest.rounds", "2") == 2
    assert error("parameters:\n  multiTestConcurrentCount: 0\n") == (
        't.scenario:2:29: error: multiTestConcurrentCount must be a whole number of requests from 1 to 10000, got "0"'
    )
    assert error("parameters:\n  multiTest.a-b: 1\n") == (
        "t.scenario:2:3: error: unknown parameter 'multiTest.a-b'; write multiTest.NAME with NAME letters, digits and _"
    )


def test_header_name_family_takes_any_header_name_and_text():
    assert value("header.X-Api-Key", '"abc 123"') == "abc 123"
    assert value("header.Accept", "application/json") == "application/json"
    assert params.header_name("header.X-Api-Key") == "X-Api-Key" and params.is_known("header.X-Api-Key")
    assert error("parameters:\n  headers.X-Id: 1\n") == (
        "t.scenario:2:3: error: unknown parameter 'headers.X-Id'; did you mean 'header.X-Id'?"
    )
    assert error("parameters:\n  header.X(Id): 1\n") == (
        "t.scenario:2:3: error: unknown parameter 'header.X(Id)'; write header.NAME with NAME a header name "
        "(letters, digits, -), e.g. header.X-Api-Key"
    )


def test_unknown_retry_key_is_caught_with_the_closest_known_one():
    assert error("parameters:\n  retry.maxAttempt: 3\n") == (
        "t.scenario:2:3: error: unknown parameter 'retry.maxAttempt'; did you mean 'retry.maxAttempts'?"
    )


def test_is_known_covers_fixed_keys_and_families_only():
    for key in ("timeout", "retry.delay", "header.X-Id", "multiTest.x", "binding.auth.location", "binding.alias.me"):
        assert params.is_known(key), key
    for key in ("tenant", "retry.foo", "header.", "Timeout"):
        assert not params.is_known(key), key


def test_every_key_appears_with_provenance_in_params_json(write_scenario):
    path = write_scenario("""
        parameters:
          environment: staging
          retry.maxAttempts: 2
          retry.delay: 500ms
          header.X-Tenant: acme
        feature: F
          parameters:
            logRequests: true
            retry.backoff: linear
          scenario: s
            when: GET /a
        """)
    nodes = [n.to_json() for n in parameter_nodes(load_file(str(path)))]
    file, feature, scenario = nodes
    for node in nodes:
        assert set(params.SPECS) <= set(node["parameters"])
        assert node["parameters"]["header.X-Tenant"] == {"value": "acme", "source": "file", "line": 5}
    assert file["parameters"]["retry.delay"] == {"value": 500, "source": "file", "line": 4}
    assert file["parameters"]["environment"] == {"value": "staging", "source": "file", "line": 2}
    assert feature["parameters"]["logRequests"] == {"value": True, "source": "feature", "line": 8}
    assert scenario["parameters"]["retry.backoff"] == {"value": "linear", "source": "feature", "line": 9}
    assert file["parameters"]["followRedirects"] == {"value": False, "source": "default", "line": None}


# ---------------------------------------------------------------- scenario-level parameters (docs/spec/parameters.md#placement)


SCOPED = """
parameters:
  timeout: 30
  environment: file-env
feature: F
  parameters:
    timeout: 10
    environment: feature-env
  scenario: own
    when: GET /a
  scenario: other
    when: GET /b
scenario: standalone
  when: GET /c
"""


def test_scenario_parameters_override_feature_parameters():
    file = with_scenario_block(parse_text(SCOPED, "t.scenario"), "own", {"timeout": "5", "environment": "mine"})
    own = resolve_parameters(file, file.features[0], None, file.features[0].scenarios[0])
    assert (own.timeout, own["timeout"].source, own["timeout"].line, own["timeout"].winner.scenario) == (
        5,
        "scenario",
        91,
        "own",
    )
    assert [(s.source, s.value) for s in own["timeout"].overridden] == [("feature", 10), ("file", 30), ("default", 30)]
    assert own["timeout"].winner.describe(", ") == "scenario 'own', line 91"
    assert own.environment == "mine" and own.scenario == "own"


def test_scenario_parameters_apply_to_that_scenario_only():
    file = with_scenario_block(parse_text(SCOPED, "t.scenario"), "own", {"timeout": "5"})
    nodes = {n.name: n for n in parameter_nodes(file)}
    assert nodes["own"].parameters.timeout == 5 and nodes["own"].parameters["timeout"].source == "scenario"
    assert nodes["other"].parameters.timeout == 10 and nodes["F"].parameters.timeout == 10
    assert nodes["standalone"].parameters.timeout == 30
    assert nodes["own"].to_json()["parameters"]["timeout"] == {"value": 5, "source": "scenario", "line": 91}


def test_command_line_overrides_scenario_parameters():
    file = with_scenario_block(parse_text(SCOPED, "t.scenario"), "own", {"timeout": "5"})
    own = resolve_parameters(
        file, file.features[0], RunOverrides.from_cli(["timeout=7"]), file.features[0].scenarios[0]
    )
    assert (own.timeout, own["timeout"].source) == (7, "command-line")
    assert [s.source for s in own["timeout"].overridden] == ["scenario", "feature", "file", "default"]


def test_a_scenario_block_never_decides_sharing():
    file = with_scenario_block(
        parse_text(SCOPED, "t.scenario"), "standalone", {"shareVariablesAcrossScenarios": "true"}
    )
    values = resolve_parameters(file, None, None, file.items[-1])
    assert (values.share, values["shareVariablesAcrossScenarios"].source) == (False, "default")


def test_executor_runs_a_scenario_with_its_own_parameters(demo, write_scenario):
    path = write_scenario(f"""
        parameters:
          baseUrl: {demo.url}
          header.X-Level: file
        scenario: own
          when: GET /echo
          then: $.headers.x-level == "scenario"
        scenario: inherits
          when: GET /echo
          then: $.headers.x-level == "file"
        """)
    file = with_scenario_block(load_file(str(path)), "own", {"header.X-Level": "scenario"})
    events = run_to_completion([file])
    assert [e.status for e in of(events, ev.ScenarioFinished)] == ["passed", "passed"]
    started = of(events, ev.ScenarioStarted)
    assert started[0].parameters["header.X-Level"].source == "scenario"
    assert started[1].parameters["header.X-Level"].source == "file"


# ---------------------------------------------------------------- user keys (docs/spec/parameters.md#user-parameters)


def test_user_keys_resolve_with_provenance_like_any_other():
    file = with_file_entries(parse_text(SCOPED, "t.scenario"), {"tenant": '"acme"', "region": "eu-1"})
    values = resolve_parameters(file)
    assert (values["tenant"].value, values["tenant"].source, values["tenant"].line) == ("acme", "file", 81)
    assert values["region"].value == "eu-1"
    assert list(values)[-2:] == ["region", "tenant"]  # after the known keys
    own = with_scenario_block(file, "own", {"tenant": "beta"})
    scoped = resolve_parameters(own, own.features[0], None, own.features[0].scenarios[0])
    assert (scoped["tenant"].value, scoped["tenant"].source) == ("beta", "scenario")


def test_command_line_user_key_is_taken_when_it_is_no_near_miss_of_a_known_key():
    overrides = RunOverrides.from_cli(["tenant=acme", "region='eu 1'"])
    assert overrides.values == {"tenant": "acme", "region": "eu 1"}
    values = resolve_parameters(parse_text(SCOPED, "t.scenario"), None, overrides)
    assert (values["tenant"].value, values["tenant"].source) == ("acme", "command-line")
    for item, hint in (
        ("timout=5", "did you mean 'timeout'"),
        ("shareVariables=true", "shareVariablesAcrossScenarios"),
        ("header.X Y=1", "write header.NAME"),
        ("1abc=2", "unknown parameter '1abc'"),
        ("logrequests=true", "did you mean 'logRequests'"),
    ):
        with pytest.raises(UsageError, match=hint):
            RunOverrides.from_cli([item])


# ---------------------------------------------------------------- {{env.NAME}} / {{param.KEY}} in values (docs/spec/parameters.md#references-in-values)


ENV_FILE = """parameters:
  baseUrl: "{{env.SCENARIO_TEST_URL}}/v1"
  environment: "{{env.SCENARIO_TEST_ENV}}"
  header.X-Env: "env-{{param.environment}}"
scenario: s
  when: GET /a
"""


def test_env_and_param_references_in_values_are_resolved_with_provenance(monkeypatch):
    monkeypatch.setenv("SCENARIO_TEST_URL", "http://api.example")
    monkeypatch.setenv("SCENARIO_TEST_ENV", "staging")
    file = parse_text(ENV_FILE, "t.scenario")
    assert isinstance(file.parameters.get("baseUrl").value, params.ValueTemplate)
    values = resolve_parameters(file)
    assert (values.base_url, values["baseUrl"].line, values["baseUrl"].winner.via) == (
        "http://api.example/v1",
        2,
        "$SCENARIO_TEST_URL",
    )
    assert values["baseUrl"].winner.describe() == "file line 2, from $SCENARIO_TEST_URL"
    assert values["header.X-Env"].value == "env-staging"
    assert values["header.X-Env"].winner.describe() == "file line 4, from param.environment"
    assert values.to_json()["baseUrl"] == {
        "value": "http://api.example/v1",
        "source": "file",
        "line": 2,
        "from": "$SCENARIO_TEST_URL",
    }
    assert parameter_diagnostics(file) == []


def test_param_reference_reads_the_value_in_force_for_that_node(monkeypatch):
    monkeypatch.setenv("SCENARIO_TEST_URL", "http://api.example")
    monkeypatch.setenv("SCENARIO_TEST_ENV", "staging")
    file = with_scenario_block(parse_text(ENV_FILE, "t.scenario"), "s", {"environment": "prod"})
    scenario = resolve_parameters(file, None, None, file.items[0])
    assert scenario["header.X-Env"].value == "env-prod"  # the scenario's environment, read by the file's header


def test_unset_environment_variable_is_a_located_error_at_check_time(monkeypatch):
    monkeypatch.delenv("SCENARIO_TEST_URL", raising=False)
    monkeypatch.setenv("SCENARIO_TEST_ENV", "staging")
    file = parse_text(ENV_FILE, "t.scenario")
    assert [str(d) for d in parameter_diagnostics(file)] == [
        "t.scenario:2:3: error: baseUrl reads {{env.SCENARIO_TEST_URL}}, but environment variable "
        "SCENARIO_TEST_URL is not set"
    ]
    with pytest.raises(ParameterError) as caught:
        resolve_parameters(file)
    assert caught.value.partial.base_url is None  # the next level: the default


def test_unset_environment_variable_at_run_time_fails_the_scenario_with_one_line(monkeypatch, write_scenario):
    monkeypatch.setenv("SCENARIO_TEST_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("SCENARIO_TEST_ENV", "staging")
    file = load_file(str(write_scenario(ENV_FILE)))
    monkeypatch.delenv("SCENARIO_TEST_ENV")  # gone between check and run
    events = run_to_completion([file])
    (finished,) = of(events, ev.ScenarioFinished)
    assert finished.status == "failed"
    assert finished.message == (
        "line 5: environment reads {{env.SCENARIO_TEST_ENV}}, but environment variable "
        "SCENARIO_TEST_ENV is not set (parameters, line 3)"
    )
    assert not of(events, ev.RequestSent)


def test_substituted_value_is_validated_by_its_key_type(monkeypatch):
    monkeypatch.setenv("SCENARIO_TEST_T", "soon")
    file = parse_text('parameters:\n  timeout: "{{env.SCENARIO_TEST_T}}"\n', "t.scenario")
    assert [str(d) for d in parameter_diagnostics(file)] == [
        't.scenario:2:3: error: timeout must be a positive integer number of seconds, got "soon" '
        "(read from $SCENARIO_TEST_T)"
    ]
    monkeypatch.setenv("SCENARIO_TEST_T", "12")
    assert resolve_parameters(file).timeout == 12  # read as if written bare


def test_param_references_in_a_cycle_are_an_error():
    file = parse_text(
        'parameters:\n  environment: "{{param.header.A}}"\n  header.A: "{{param.environment}}"\n', "t.scenario"
    )
    assert [str(d) for d in parameter_diagnostics(file)] == [
        "t.scenario:3:3: error: parameters read each other in a cycle: environment → header.A → environment"
    ]
    assert error('parameters:\n  environment: "{{param.environment}}"\n') == (
        "t.scenario:2:16: error: environment cannot read itself ({{param.environment}})"
    )


def test_param_reference_to_a_parameter_nobody_sets_is_an_error():
    file = parse_text('parameters:\n  environment: "{{param.tenant}}"\n', "t.scenario")
    assert [str(d) for d in parameter_diagnostics(file)] == [
        "t.scenario:2:3: error: environment reads {{param.tenant}}, but no parameter 'tenant' is set"
    ]
    file = with_file_entries(file, {"tenant": "acme"})
    assert resolve_parameters(file).environment == "acme"


def test_any_other_reference_in_a_value_stays_an_error_parameters_are_static():
    assert error('parameters:\n  header.X-Id: "{{id}}"\n') == (
        "t.scenario:2:16: error: header.X-Id cannot use {{id}}: parameters are static, variables exist only at "
        "run time (a parameter value may read {{env.NAME}} or {{param.KEY}})"
    )
    assert error('parameters:\n  environment: "{{env.A-B}}"\n').startswith(
        "t.scenario:2:16: error: environment cannot use {{env.A-B}}: parameters are static"
    )


def test_command_line_values_take_no_references():
    with pytest.raises(UsageError, match="let the shell expand environment variables"):
        RunOverrides.from_cli(["environment={{env.HOME}}"])


# ---------------------------------------------------------------- header.NAME: sent on every request


def test_header_parameters_are_sent_on_every_request_and_a_step_header_wins(demo, write_scenario):
    events = run_text(
        write_scenario,
        f"""
        parameters:
          baseUrl: {demo.url}
          header.X-Tenant: acme
          header.X-Trace: file
        feature: F
          parameters:
            header.X-Trace: feature
          scenario: s
            when: POST /echo
              headers:
                x-tenant: own
              body: {{"a": 1}}
            then: $.headers.x-tenant == "own"
            then: $.headers.x-trace == "feature"
        scenario: t
          when: GET /echo
          then: $.headers.x-tenant == "acme"
          then: $.headers.x-trace == "file"
        """,
    )
    assert [e.status for e in of(events, ev.ScenarioFinished)] == ["passed", "passed"], step_results(events)
    sent = of(events, ev.RequestSent)
    assert [v for k, v in sent[0].headers if k.lower() == "x-tenant"] == ["own"]  # sent once, the step's


def test_header_parameters_go_with_operation_calls_and_a_header_child_wins(demo, write_scenario):
    from pathlib import Path

    spec = Path(__file__).resolve().parents[2] / "core" / "demo" / "petstore.yaml"
    events = run_text(
        write_scenario,
        f"""
        parameters:
          openapi: {spec}
          baseUrl: {demo.url}
          header.X-Tenant: acme
          header.X-Trace: file
        scenario: calls
          when: ^listPets
            header_X-Trace: child
          then: status 200
        """,
    )
    assert [e.status for e in of(events, ev.ScenarioFinished)] == ["passed"], step_results(events)
    (sent,) = of(events, ev.RequestSent)
    headers = {k.lower(): v for k, v in sent.headers}
    assert headers["x-tenant"] == "acme" and headers["x-trace"] == "child"


# ---------------------------------------------------------------- retry.*


def test_retry_policy_backoff_shapes_cap_and_jitter():
    def policy(backoff, jitter=False, max_delay=30.0):
        return RetryPolicy(5, 1.0, max_delay, backoff, jitter)

    assert [policy("fixed").wait(n) for n in range(4)] == [1, 1, 1, 1]
    assert [policy("linear").wait(n) for n in range(4)] == [1, 2, 3, 4]
    assert [policy("exponential").wait(n) for n in range(4)] == [1, 2, 4, 8]
    assert policy("exponential", max_delay=5).wait(10) == 5 and policy("exponential").wait(10_000) == 30
    jittered = policy("fixed", jitter=True)
    assert jittered.wait(0, rand=lambda: 0.0) == pytest.approx(0.8)
    assert jittered.wait(0, rand=lambda: 1.0) == pytest.approx(1.2)
    assert all(0.8 <= jittered.wait(0) <= 1.2 for _ in range(200))


def test_retry_policy_comes_from_the_parameters_and_is_off_by_default():
    assert RetryPolicy.from_parameters(resolve_parameters(parse_text("", "t.scenario"))) is None
    file = parse_text("parameters:\n  retry.maxAttempts: 3\n  retry.delay: 200ms\n  retry.backoff: fixed\n", "t")
    policy = RetryPolicy.from_parameters(resolve_parameters(file))
    assert (policy.retries, policy.delay, policy.max_delay, policy.backoff, policy.jitter) == (
        3,
        0.2,
        30.0,
        "fixed",
        True,
    )


def test_retry_tries_again_on_503_until_it_succeeds_and_honours_the_delays(fixture_server, write_scenario):
    events = run_text(
        write_scenario,
        f"""
        parameters:
          baseUrl: {fixture_server.url}
          retry.maxAttempts: 3
          retry.delay: 100ms
          retry.backoff: linear
          retry.jitter: false
        scenario: flaky
          when: GET /flaky/a?fail=2&status=503
          then: status 200
          then: $.attempt == 3
        """,
    )
    assert [e.status for e in of(events, ev.ScenarioFinished)] == ["passed"], step_results(events)
    retried = of(events, ev.RequestRetried)
    assert [(e.attempt, e.reason, e.delay_s) for e in retried] == [
        (1, "503 Service Unavailable", 0.1),
        (2, "503 Service Unavailable", 0.2),
    ]
    assert retried[0].step is of(events, ev.RequestSent)[0].step
    times = [t for _, path, t in fixture_server.state["seen"] if path == "/flaky/a"]
    assert len(times) == 3
    assert 0.09 <= times[1] - times[0] < 2 and 0.19 <= times[2] - times[1] < 2  # waited, roughly as asked
    order = [
        type(e).__name__ for e in events if isinstance(e, (ev.RequestSent, ev.RequestRetried, ev.ResponseReceived))
    ]
    assert order == ["RequestSent", "RequestRetried", "RequestRetried", "ResponseReceived"]


@pytest.mark.parametrize("status", [429, 502, 504])
def test_retry_covers_429_502_and_504(fixture_server, write_scenario, status):
    events = run_text(
        write_scenario,
        f"""
        parameters:
          baseUrl: {fixture_server.url}
          retry.maxAttempts: 1
          retry.delay: 10ms
        scenario: s
          when: GET /flaky/s{status}?fail=1&status={status}
          then: status 200
        """,
    )
    assert [e.status for e in of(events, ev.ScenarioFinished)] == ["passed"], step_results(events)
    assert len(of(events, ev.RequestRetried)) == 1


def test_when_attempts_run_out_the_step_fails_naming_them(fixture_server, write_scenario):
    events = run_text(
        write_scenario,
        f"""
        parameters:
          baseUrl: {fixture_server.url}
          retry.maxAttempts: 2
          retry.delay: 10ms
        scenario: down
          when: GET /flaky/b?fail=99
          then: status 200
        """,
    )
    when, then = step_results(events)
    assert when == (6, "failed", "503 Service Unavailable after 3 attempts (retry.maxAttempts: 2, file line 3)")
    assert then[1] == "skipped" and len(of(events, ev.RequestRetried)) == 2
    assert fixture_server.state["counts"]["/flaky/b"] == 3


def test_no_retry_without_max_attempts_and_other_statuses_are_answers(fixture_server, write_scenario):
    events = run_text(
        write_scenario,
        f"""
        parameters:
          baseUrl: {fixture_server.url}
        scenario: off
          when: GET /flaky/c?fail=1
          then: status 503
        scenario: not retried
          when: GET /flaky/d?fail=1&status=500
          then: status 500
        """.replace("scenario: not retried", "scenario: not retried")
        + "",
    )
    assert [e.status for e in of(events, ev.ScenarioFinished)] == ["passed", "passed"]
    assert not of(events, ev.RequestRetried)


def test_retry_on_a_refused_connection_then_gives_up(write_scenario):
    import socket

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    events = run_text(
        write_scenario,
        f"""
        parameters:
          baseUrl: http://127.0.0.1:{port}
          retry.maxAttempts: 2
          retry.delay: 10ms
          retry.backoff: fixed
        scenario: s
          when: GET /a
        """,
    )
    (when,) = step_results(events)
    assert when[2] == (
        f"cannot connect to 127.0.0.1:{port}: connection refused; gave up after 3 attempts "
        "(retry.maxAttempts: 2, file line 3)"
    )
    assert [e.attempt for e in of(events, ev.RequestRetried)] == [1, 2]
    assert "connection refused" in of(events, ev.RequestRetried)[0].reason


def test_retry_on_a_timeout_each_attempt_under_the_timeout(fixture_server, write_scenario):
    started = time.monotonic()
    events = run_text(
        write_scenario,
        f"""
        parameters:
          baseUrl: {fixture_server.url}
          timeout: 1
          retry.maxAttempts: 1
          retry.delay: 10ms
        scenario: s
          when: GET /hang/x?ms=1600
          then: $.attempt == 2
        """,
    )
    assert [e.status for e in of(events, ev.ScenarioFinished)] == ["passed"], step_results(events)
    (retried,) = of(events, ev.RequestRetried)
    assert retried.reason == "timed out after 1 s (timeout: file, line 3)"
    assert time.monotonic() - started < 30  # only so that a hang fails; the reason is the evidence


# ---------------------------------------------------------------- followRedirects


def test_follow_redirects_false_by_default_a_3xx_is_the_response(fixture_server, write_scenario):
    events = run_text(
        write_scenario,
        f"""
        parameters:
          baseUrl: {fixture_server.url}
        scenario: s
          when: GET /redirect?status=302&to=/final
          then: status 302
          then: header Location == "/final"
        """,
    )
    assert [e.status for e in of(events, ev.ScenarioFinished)] == ["passed"], step_results(events)
    assert fixture_server.state["counts"].get("/final") is None


@pytest.mark.parametrize(
    "status, method, body",
    [
        (303, "GET", ""),  # see other: GET without the body
        (301, "GET", ""),  # 301/302 after a POST: GET, as browsers do
        (302, "GET", ""),
        (307, "POST", '{"n": 1}'),  # 307/308 keep method and body
        (308, "POST", '{"n": 1}'),
    ],
)
def test_follow_redirects_true_follows_as_browsers_do(fixture_server, write_scenario, status, method, body):
    events = run_text(
        write_scenario,
        f"""
        parameters:
          baseUrl: {fixture_server.url}
          followRedirects: true
        scenario: s
          when: POST /redirect?status={status}&to=/final
            body: {{"n": 1}}
          then: status 200
          then: $.path == "/final"
          then: $.method == "{method}"
        """,
    )
    assert [e.status for e in of(events, ev.ScenarioFinished)] == ["passed"], step_results(events)
    (response,) = of(events, ev.ResponseReceived)
    assert response.json["body"] == body
    assert ("content-type" in response.json["headers"]) == bool(body)


def test_follow_redirects_stops_after_ten(fixture_server, write_scenario):
    events = run_text(
        write_scenario,
        f"""
        parameters:
          baseUrl: {fixture_server.url}
          followRedirects: true
        scenario: s
          when: GET /loop
        """,
    )
    (when,) = step_results(events)
    assert when[2] == "stopped after 10 redirects (followRedirects: true); the last went to /loop"
    assert fixture_server.state["counts"]["/loop"] == 11


def test_follow_redirects_is_resolved_per_scenario(fixture_server, write_scenario):
    path = write_scenario(f"""
        parameters:
          baseUrl: {fixture_server.url}
        scenario: follows
          when: GET /redirect?status=302&to=/final
          then: status 200
        scenario: does not
          when: GET /redirect?status=302&to=/final
          then: status 302
        """)
    file = with_scenario_block(load_file(str(path)), "follows", {"followRedirects": "true"})
    events = run_to_completion([file])
    assert [e.status for e in of(events, ev.ScenarioFinished)] == ["passed", "passed"], step_results(events)


def test_stop_during_a_retry_wait_interrupts_at_once(fixture_server, write_scenario):
    import threading

    from scenario_core.run.events import INTERRUPTED
    from scenario_core.run.executor import Execution

    file = load_file(
        str(
            write_scenario(f"""
        parameters:
          baseUrl: {fixture_server.url}
          retry.maxAttempts: 5
          retry.delay: 10s
        scenario: s
          when: GET /flaky/e?fail=99
        """)
        )
    )

    execution = Execution([file])
    stopper = threading.Timer(0.5, execution.stop)  # stop() from another thread, during the wait
    started = time.monotonic()
    stopper.start()
    events = list(execution.events())
    stopper.join()
    assert time.monotonic() - started < 15  # stopped in the wait, not after 4 waits of 10 s
    (when,) = step_results(events)
    assert when[1:] == ("failed", INTERRUPTED)
    assert of(events, ev.RunFinished)[0].interrupted


def test_parameter_text_is_how_a_value_reads():
    from scenario_core.parameters.resolution import parameter_text

    assert [parameter_text(v) for v in (True, 30, params.Duration(500), ("a", "b"), "x")] == [
        "true",
        "30",
        "500ms",
        "a, b",
        "x",
    ]


def test_a_retried_post_sends_its_body_again(fixture_server, write_scenario):
    events = run_text(
        write_scenario,
        f"""
        parameters:
          baseUrl: {fixture_server.url}
          retry.maxAttempts: 1
          retry.delay: 10ms
        scenario: s
          when: POST /flaky/post?fail=1
            body: {{"n": 1}}
          then: status 200
          then: $.attempt == 2
        """,
    )
    assert [e.status for e in of(events, ev.ScenarioFinished)] == ["passed"], step_results(events)
    assert [m for m, p, _ in fixture_server.state["seen"] if p == "/flaky/post"] == ["POST", "POST"]


# ---------------------------------------------------------------- as written in a BerryCrush file


BERRYCRUSH = """\
parameters:
  retry:
    maxAttempts: 2
    delay: "10ms"
  tenant: "acme"
  header.X-Tenant: "{{param.tenant}}"
feature: F
  parameters:
    retry.maxAttempts: 0
  scenario: retried by its own block
    parameters:
      retry:
        maxAttempts: 1
      timeout: 1
    when: GET /flaky/own?fail=1
    then: status 200
    then: $.attempt == 2
  scenario: not retried in the feature
    when: GET /flaky/feature?fail=1
    then: status 503
scenario: retried by the file
  when: GET /echo
  then: $.headers.x-tenant == "acme"
  when: GET /flaky/file?fail=2
  then: status 200
"""


def test_every_level_applies_per_scenario_timeout_and_retry_too(fixture_server, write_scenario):
    file = load_file(str(write_scenario(BERRYCRUSH)))
    nodes = {n.name: n.parameters for n in parameter_nodes(file)}
    own = nodes["retried by its own block"]
    assert (own["retry.maxAttempts"].value, own["retry.maxAttempts"].source, own["retry.maxAttempts"].line) == (
        1,
        "scenario",
        13,
    )
    assert (own.timeout, own["retry.delay"].value, own["retry.delay"].line) == (1, 10, 4)
    assert nodes["not retried in the feature"]["retry.maxAttempts"].value == 0
    assert nodes["retried by the file"]["header.X-Tenant"].winner.describe() == "file line 6, from param.tenant"
    assert nodes["retried by the file"]["tenant"].source == "file"  # a user key: read by {{param.tenant}}
    events = run_to_completion([file], RunOverrides.from_cli(base_url=fixture_server.url))
    assert [e.status for e in of(events, ev.ScenarioFinished)] == ["passed"] * 3, step_results(events)
    assert [(e.step.line, e.attempt) for e in of(events, ev.RequestRetried)] == [(15, 1), (24, 1), (24, 2)]
