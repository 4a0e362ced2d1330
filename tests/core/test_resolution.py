"""Resolving a parameter, most specific first (docs/spec/parameters.md#resolution), and which store applies (docs/spec/scopes.md#which-store-applies)."""

from __future__ import annotations

import textwrap

import pytest

from scenario_core.language.errors import UsageError
from scenario_core.language.parser import load_file, parse_text
from scenario_core.parameters.diagnostics import parameter_diagnostics
from scenario_core.parameters.params_report import parameter_nodes
from scenario_core.parameters.resolution import RunOverrides, resolve_parameters
from scenario_core.parameters.sharing import StoreRef, store_for

FILE = textwrap.dedent("""
    parameters:
      timeout: 30
      shareVariablesAcrossScenarios: false
      baseUrl: http://file.example
    feature: Fast
      parameters:
        timeout: 10
      scenario: a
        when: GET /a
    feature: Plain
      scenario: b
        when: GET /b
    scenario: standalone
      when: GET /c
""").lstrip()


def resolved(text=FILE, feature_index=None, overrides=None):
    file = parse_text(text, "/tmp/x/t.scenario")
    feature = file.features[feature_index] if feature_index is not None else None
    return resolve_parameters(file, feature, overrides)


def test_builtin_default_is_the_lowest_level():
    values = resolved("scenario: s\n  when: GET /a\n")
    assert (values.timeout, values["timeout"].source, values["timeout"].line) == (30, "default", None)
    assert (values.share, values["shareVariablesAcrossScenarios"].source) == (False, "default")
    assert (values.base_url, values["baseUrl"].source) == (None, "default")


def test_file_level_overrides_defaults():
    values = resolved()
    assert (values.timeout, values["timeout"].source, values["timeout"].line) == (30, "file", 2)
    assert [(s.source, s.value) for s in values["timeout"].overridden] == [("default", 30)]


def test_feature_level_overrides_file_level_for_its_scenarios_only():
    fast = resolved(feature_index=0)
    assert (fast.timeout, fast["timeout"].source, fast["timeout"].line, fast["timeout"].winner.feature) == (
        10,
        "feature",
        7,
        "Fast",
    )
    assert [(s.source, s.value, s.line) for s in fast["timeout"].overridden] == [("file", 30, 2), ("default", 30, None)]


def test_feature_that_sets_only_timeout_keeps_file_values_of_every_other_parameter():
    fast = resolved(feature_index=0)
    assert (fast.share, fast["shareVariablesAcrossScenarios"].source) == (False, "file")
    assert (fast.base_url, fast["baseUrl"].source) == ("http://file.example", "file")


def test_feature_parameters_never_affect_another_feature_or_standalone_scenario():
    file = parse_text(FILE, "t.scenario")
    nodes = {n.name: n for n in parameter_nodes(file)}
    assert nodes["Fast"].parameters.timeout == 10 and nodes["a"].parameters.timeout == 10
    assert nodes["Plain"].parameters.timeout == 30 and nodes["b"].parameters.timeout == 30
    assert nodes["standalone"].parameters.timeout == 30
    assert nodes["standalone"].parameters["timeout"].source == "file"


def test_command_line_overrides_every_level_for_the_whole_run():
    overrides = RunOverrides.from_cli(["timeout=5"], base_url="http://cli.example")
    for index in (None, 0, 1):
        values = resolved(feature_index=index, overrides=overrides)
        assert (values.timeout, values["timeout"].source, values["timeout"].line) == (5, "command-line", None)
        assert (values.base_url, values["baseUrl"].source) == ("http://cli.example", "command-line")
    fast = resolved(feature_index=0, overrides=overrides)
    assert [s.source for s in fast["timeout"].overridden] == ["feature", "file", "default"]


def test_command_line_param_is_validated_like_the_file():
    with pytest.raises(
        UsageError, match='--param timeout=abc: timeout must be a positive integer number of seconds, got "abc"'
    ):
        RunOverrides.from_cli(["timeout=abc"])
    with pytest.raises(UsageError, match="did you mean 'shareVariablesAcrossScenarios'"):
        RunOverrides.from_cli(["shareVariables=true"])
    with pytest.raises(UsageError, match="expected KEY=VALUE"):
        RunOverrides.from_cli(["timeout"])
    with pytest.raises(UsageError, match="--base-url ftp://x: baseUrl must be an absolute"):
        RunOverrides.from_cli([], base_url="ftp://x")
    with pytest.raises(UsageError, match="an integer of 5000 digits is too long"):
        RunOverrides.from_cli(["count=" + "9" * 5000])


OPENAPI = """
openapi: 3.0.0
info: {title: t, version: "1"}
servers:
  - url: http://{host}:{port}/v1
    variables:
      host: {default: api.example}
      port: {default: "8080"}
paths: {}
"""


def test_openapi_servers_url_with_variable_defaults_gives_base_url(tmp_path):
    (tmp_path / "api.yaml").write_text(OPENAPI)
    path = tmp_path / "t.scenario"
    path.write_text("parameters:\n  openapi: api.yaml\nscenario: s\n  when: GET /a\n")
    values = resolve_parameters(load_file(path))
    assert (values.base_url, values["baseUrl"].source, values["baseUrl"].line) == (
        "http://api.example:8080/v1",
        "openapi",
        None,
    )


def test_file_base_url_overrides_openapi(tmp_path):
    (tmp_path / "api.yaml").write_text(OPENAPI)
    path = tmp_path / "t.scenario"
    path.write_text("parameters:\n  openapi: api.yaml\n  baseUrl: http://file\n")
    values = resolve_parameters(load_file(path))
    assert values["baseUrl"].source == "file"
    assert [(s.source, s.value) for s in values["baseUrl"].overridden] == [
        ("openapi", "http://api.example:8080/v1"),
        ("default", None),
    ]


def test_openapi_from_the_command_line(tmp_path):
    (tmp_path / "api.yaml").write_text(OPENAPI)
    path = tmp_path / "t.scenario"
    path.write_text("scenario: s\n  when: GET /a\n")
    values = resolve_parameters(load_file(path), None, RunOverrides.from_cli(openapi=str(tmp_path / "api.yaml")))
    assert (values.base_url, values["baseUrl"].source) == ("http://api.example:8080/v1", "openapi")


def test_unreadable_openapi_description_is_a_located_error(tmp_path):
    path = tmp_path / "t.scenario"
    path.write_text("parameters:\n  openapi: missing.yaml\n")
    (problem,) = parameter_diagnostics(load_file(path))
    assert str(problem).startswith(f"{path}:2:3: error: OpenAPI description ") and "cannot be read" in str(problem)


# ---------------------------------------------------------------- which store applies (docs/spec/scopes.md#which-store-applies)


def store(file_share, feature_share, standalone=False):
    lines = []
    if file_share is not None:
        lines += ["parameters:", f"  shareVariablesAcrossScenarios: {file_share}"]
    lines += ["feature: F"]
    if feature_share is not None:
        lines += ["  parameters:", f"    shareVariablesAcrossScenarios: {feature_share}"]
    lines += ["  scenario: s", "    when: GET /a"]
    file = parse_text("\n".join(lines) + "\n", "t")
    return store_for(resolve_parameters(file, None if standalone else file.features[0]))


def test_store_standalone_with_file_sharing_uses_the_file_store():
    assert store("true", None, standalone=True) == StoreRef(None)


def test_store_standalone_without_file_sharing_is_isolated():
    assert store("false", None, standalone=True) is None
    assert store(None, None, standalone=True) is None


def test_store_feature_sharing_true_uses_its_own_store():
    for file_share in ("true", "false", None):
        assert store(file_share, "true") == StoreRef("F")


def test_store_feature_sharing_false_is_isolated_even_if_the_file_shares():
    assert store("true", "false") is None


def test_store_feature_not_set_with_file_sharing_uses_the_file_store():
    assert store("true", None) == StoreRef(None)


def test_store_feature_not_set_without_file_sharing_is_isolated():
    assert store("false", None) is None and store(None, None) is None


def test_store_command_line_sharing_is_file_wide():
    file = parse_text("feature: F\n  parameters:\n    shareVariablesAcrossScenarios: false\n", "t")
    values = resolve_parameters(file, file.features[0], RunOverrides.from_cli(["shareVariablesAcrossScenarios=true"]))
    assert store_for(values) == StoreRef(None)


def test_params_nodes_list_file_then_features_and_scenarios_in_source_order():
    nodes = parameter_nodes(parse_text(FILE, "t.scenario"))
    assert [(n.kind, n.name, n.line, n.feature) for n in nodes] == [
        ("file", "t.scenario", 1, None),
        ("feature", "Fast", 5, "Fast"),
        ("scenario", "a", 8, "Fast"),
        ("feature", "Plain", 10, "Plain"),
        ("scenario", "b", 11, "Plain"),
        ("scenario", "standalone", 13, None),
    ]
    assert nodes[1].sharing == "isolated"
