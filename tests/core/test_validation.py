"""Invalid input: each case with its exact message and location (docs/spec/parameters.md and the language)."""

from __future__ import annotations

import textwrap

import pytest

from scenario_core.language.errors import InvalidFileError, ScenarioError
from scenario_core.language.parser import parse_text

PARAMETERS_GO = (
    "parameters: may go at the top of the file (before the first feature:, scenario:, fragment: "
    "or background:) or directly after a feature: line (and its description:)"
)


def errors(text: str, dedent: bool = True) -> list[str]:
    with pytest.raises(InvalidFileError) as caught:
        parse_text(textwrap.dedent(text).lstrip("\n") if dedent else text, "t.scenario")
    return [str(d) for d in caught.value.diagnostics]


def error(text: str, dedent: bool = True) -> str:
    found = errors(text, dedent)
    assert len(found) == 1, found
    return found[0]


# ---------------------------------------------------------------- parameters (docs/spec/parameters.md)


def test_unknown_key_error_names_closest_known_key():
    assert error("parameters:\n  shareVariables: true\n") == (
        "t.scenario:2:3: error: unknown parameter 'shareVariables'; did you mean 'shareVariablesAcrossScenarios'?"
    )


def test_keys_are_case_sensitive_and_hint_names_the_right_case():
    assert error("parameters:\n  Timeout: 10\n") == (
        "t.scenario:2:3: error: unknown parameter 'Timeout'; did you mean 'timeout'?"
    )


def test_unknown_key_far_from_every_known_key_is_a_user_parameter():
    """docs/spec/parameters.md#user-parameters (was: an error listing the known keys): `colour` is near no known key,
    so it is a user parameter, its value kept with its type (a number) and noted as read by nothing."""
    file = parse_text("parameters:\n  colour: 3\n", "t.scenario")
    assert [(e.key, e.value) for e in file.parameters.entries] == [("colour", 3)]
    assert [(key, location.line) for key, location in file.unread_user_keys] == [("colour", 2)]


def test_a_user_parameter_read_as_param_key_is_not_noted_as_unread():
    file = parse_text("parameters:\n  colour: 3\nscenario: s\n  when: GET /x/{{param.colour}}\n", "t.scenario")
    assert file.unread_user_keys == ()


@pytest.mark.parametrize(
    "raw, message",
    [
        ("abc", 'timeout must be a positive integer number of seconds, got "abc"'),
        ('"30"', 'timeout must be a positive integer number of seconds, got "30" (remove the quotes)'),
        ("0", 'timeout must be a positive integer number of seconds, got "0"'),
        ("-5", 'timeout must be a positive integer number of seconds, got "-5"'),
        ("1.5", 'timeout must be a positive integer number of seconds, got "1.5"'),
    ],
)
def test_wrong_type_timeout_names_key_expected_type_and_found_value(raw, message):
    assert error(f"parameters:\n  timeout: {raw}\n") == f"t.scenario:2:12: error: {message}"


def test_timeout_accepts_positive_integers():
    for raw in ("1", "30", "600"):
        assert parse_text(f"parameters:\n  timeout: {raw}\n", "t").parameters.get("timeout").value == int(raw)


@pytest.mark.parametrize(
    "raw, message",
    [
        ("yes", 'shareVariablesAcrossScenarios must be true or false, got "yes"'),
        ('"true"', 'shareVariablesAcrossScenarios must be true or false, got "true" (remove the quotes)'),
        ("True", 'shareVariablesAcrossScenarios must be true or false, got "True" (write it in lower case: true)'),
    ],
)
def test_wrong_type_boolean_must_be_bare_true_or_false(raw, message):
    assert error(f"parameters:\n  shareVariablesAcrossScenarios: {raw}\n") == f"t.scenario:2:34: error: {message}"


@pytest.mark.parametrize("raw", ["127.0.0.1:8000", "ftp://h", '"/api"', "http://"])
def test_wrong_type_base_url_must_be_absolute_http_url(raw):
    assert error(f"parameters:\n  baseUrl: {raw}\n").endswith(
        f'baseUrl must be an absolute http:// or https:// URL, got "{raw.strip(chr(34))}"'
    )


def test_missing_value_is_a_wrong_type():
    assert error("parameters:\n  timeout:\n") == (
        't.scenario:2:11: error: timeout must be a positive integer number of seconds, got ""'
    )


def test_duplicate_key_errors_at_second_occurrence_naming_first_line():
    assert error("parameters:\n  timeout: 5\n  timeout: 6\n") == (
        "t.scenario:3:3: error: duplicate parameter 'timeout'; it is already set on line 2"
    )


def test_variable_reference_in_parameter_value_is_an_error_parameters_are_static():
    assert error('parameters:\n  baseUrl: "{{host}}"\n') == (
        "t.scenario:2:12: error: baseUrl cannot use {{host}}: parameters are static, "
        "variables exist only at run time (a parameter value may read {{env.NAME}} or {{param.KEY}})"
    )


def test_placement_file_parameters_before_first_block():
    assert error("scenario: s\n  when: GET /a\nparameters:\n  timeout: 5\n") == (
        f"t.scenario:3:1: error: file-level parameters: must come before the first scenario: (line 1); {PARAMETERS_GO}"
    )


def test_placement_comments_and_blank_lines_may_precede_file_parameters():
    assert parse_text("# c\n\n# d\nparameters:\n  timeout: 5\n", "t").parameters is not None


def test_placement_second_file_parameters_block():
    assert error("parameters:\n  timeout: 5\nparameters:\n  baseUrl: http://h\n") == (
        "t.scenario:3:1: error: a file has at most one parameters: block; the first is on line 1"
    )


def test_placement_parameters_inside_scenario_after_its_first_step():
    assert error("scenario: s\n  when: GET /a\n  parameters:\n    timeout: 5\n") == (
        f"t.scenario:3:3: error: parameters: cannot go inside a scenario after its first step; "
        f"{PARAMETERS_GO}, or as the first lines of a scenario"
    )


def test_placement_scenario_parameters_come_first_in_its_body():
    file = parse_text("scenario: s\n  parameters:\n    timeout: 5\n  when: GET /a\n", "t.scenario")
    assert file.scenarios[0].parameters.get("timeout").value == 5


def test_placement_share_variables_is_refused_at_scenario_level():
    assert error("scenario: s\n  parameters:\n    shareVariablesAcrossScenarios: true\n  when: GET /a\n") == (
        "t.scenario:3:5: error: shareVariablesAcrossScenarios cannot be set for one scenario: sharing is decided "
        "by its feature or the file, because stores outlive scenarios"
    )


def test_placement_parameters_inside_background_fragment_and_step():
    found = errors("""
        background:
          parameters:
            timeout: 5
        fragment: f
          parameters:
            timeout: 5
        scenario: s
          when: GET /a
            parameters:
              timeout: 5
    """)
    assert found == [
        f"t.scenario:2:3: error: parameters: cannot go inside a background; {PARAMETERS_GO}",
        f"t.scenario:5:3: error: parameters: cannot go inside a fragment; {PARAMETERS_GO}",
        f"t.scenario:9:5: error: parameters: cannot go inside a step; {PARAMETERS_GO}",
    ]


def test_placement_feature_parameters_after_first_scenario():
    assert error("""
        feature: F
          scenario: s
            when: GET /a
          parameters:
            timeout: 5
    """) == (
        "t.scenario:4:3: error: a feature's parameters: must come directly after its feature: line "
        "(and description:), before its scenarios"
    )


def test_placement_feature_parameters_after_background():
    assert error("""
        feature: F
          background:
            when: GET /a
          parameters:
            timeout: 5
    """).endswith("before its background")


def test_placement_second_feature_parameters_block():
    assert error("feature: F\n  parameters:\n    timeout: 5\n  parameters:\n    timeout: 6\n") == (
        "t.scenario:4:3: error: a feature has at most one parameters: block; the first is on line 2"
    )


def test_feature_parameters_may_follow_description():
    file = parse_text("feature: F\n  description: d\n  parameters:\n    timeout: 5\n", "t")
    assert file.features[0].parameters.get("timeout").value == 5


def test_backgrounds_second_file_background():
    assert error("background:\n  when: GET /a\nbackground:\n  when: GET /b\n") == (
        "t.scenario:3:1: error: a file has at most one background: block; the first is on line 1"
    )


def test_backgrounds_second_feature_background():
    assert error("feature: F\n  background:\n    when: GET /a\n  background:\n    when: GET /b\n") == (
        "t.scenario:4:3: error: a feature has at most one background: block; the first is on line 2"
    )


def test_backgrounds_feature_background_after_first_scenario():
    assert error("feature: F\n  scenario: s\n    when: GET /a\n  background:\n    when: GET /b\n") == (
        "t.scenario:4:3: error: a feature's background: comes before its first scenario:"
    )


def test_backgrounds_file_background_after_first_scenario():
    assert error("scenario: s\n  when: GET /a\nbackground:\n  when: GET /b\n") == (
        "t.scenario:3:1: error: the file's background: comes before its first scenario: (line 1)"
    )


def test_all_errors_of_a_file_are_reported_in_file_order():
    found = errors("""
        parameters:
          shareVariables: true
          timeout: abc
        feature: F
          parameters:
            Timeout: 3
          scenario: s
            when: PSOT /a
            include: nope
    """)
    assert [e.split(": error: ")[0] for e in found] == [
        "t.scenario:2:3",
        "t.scenario:3:12",
        "t.scenario:6:5",
        "t.scenario:8:11",
        "t.scenario:9:5",
    ]


# ---------------------------------------------------------------- steps and references


@pytest.mark.parametrize(
    "text, expected",
    [
        ("scenario: s\n  when: PSOT /a\n", "t.scenario:2:9: error: unknown HTTP method 'PSOT'; did you mean POST?"),
        (
            "scenario: s\n  when: get /a\n",
            "t.scenario:2:9: error: unknown HTTP method 'get'; methods are upper case: GET",
        ),
        ("scenario: s\n  when: GET\n", "t.scenario:2:9: error: 'GET' needs a path, e.g. when: GET /pets"),
        (
            "scenario: s\n  then: $.name == Rex\n",
            "t.scenario:2:19: error: expected a JSON value or {{NAME}} after '==', got 'Rex' (strings need double quotes: \"Rex\")",
        ),
        (
            "scenario: s\n  then: status 20\n",
            "t.scenario:2:16: error: status takes a 3-digit code (200) or a class (2xx), got '20'",
        ),
        (
            "scenario: s\n  then: $..[ exists\n",
            "t.scenario:2:9: error: invalid JSON path '$..[': Parse error near the end of string!",
        ),
        ("scenario: s\n  then: $.a exists 3\n", "t.scenario:2:20: error: 'exists' takes no value, found '3'"),
        (
            "scenario: s\n  then: status ok\n",
            "t.scenario:2:16: error: status takes a 3-digit code (200) or a class (2xx), got 'ok'",
        ),
        (
            "scenario: s\n  extract: id from id\n",
            "t.scenario:2:20: error: a JSON path starts with $ (e.g. $.id), got 'id'",
        ),
        (
            "scenario: s\n  extract: 1x from $.id\n",
            "t.scenario:2:12: error: '1x' is not a variable name: letters, digits and _, not starting with a digit",
        ),
        (
            "scenario: s\n  extract: id $.id\n",
            "t.scenario:2:12: error: extract reads like: extract: petId from $.id (or from header Location)",
        ),
        (
            "scenario: s\n  include: nope\n",
            "t.scenario:2:3: error: include of unknown fragment 'nope'; this file defines no fragments",
        ),
        (
            "fragment: login\n  when: GET /a\nscenario: s\n  include: logn\n",
            "t.scenario:4:3: error: include of unknown fragment 'logn'; did you mean 'login'?",
        ),
        (
            "scenario: s\n  when: GET /a/{{1x}}\n",
            "t.scenario:2:16: error: '{{1x}}' is not a variable reference: a name is letters, digits and _ (dotted: a.b, env.HOME, param.timeout) and does not start with a digit",
        ),
        ("scenario: s\n  when: GET /a/{{x\n", "t.scenario:2:16: error: '{{' is not closed by '}}'"),
        (
            'scenario: s\n  when: POST /a\n    body: {"a": }\n',
            "t.scenario:3:17: error: body: invalid JSON: Expecting value",
        ),
        (
            'scenario: s\n  when: POST /a\n    body:\n      {"a": 1,\n       "b" 2}\n',
            "t.scenario:5:12: error: body: invalid JSON: Expecting ':' delimiter",
        ),
        (
            "scenario: s\n  then: time < 5 minutes\n",
            "t.scenario:2:9: error: a time assertion reads like: time < 500ms (or 2s); operators < <= > >=",
        ),
    ],
)
def test_step_errors(text, expected):
    assert error(text) == expected


def test_fragment_cycle_is_an_error():
    assert error("fragment: a\n  include: b\nfragment: b\n  include: a\n").startswith(
        "t.scenario:1:1: error: fragment includes itself: a → b → a"
    )


def test_duplicate_fragment_name():
    assert error("fragment: a\n  when: GET /a\nfragment: a\n  when: GET /b\n") == (
        "t.scenario:3:1: error: a second fragment named 'a'; the first is on line 1"
    )


def test_fragment_inside_feature_is_an_error():
    assert error("feature: F\n  fragment: a\n    when: GET /a\n") == (
        "t.scenario:2:3: error: fragments are defined at file level, not inside a feature"
    )


# ---------------------------------------------------------------- structure


@pytest.mark.parametrize(
    "text, expected",
    [
        ("feature: a\n\tscenario: b\n", "t.scenario:2:1: error: a tab in indentation; indent with spaces"),
        (
            "feature: a\n    scenario: b\n      when: GET /\n  scenario: c\n",
            "t.scenario:4:3: error: this line's indentation (2 spaces) matches no enclosing block (expected 0 or 4 or 6 spaces)",
        ),
        ("scenario x\n", "t.scenario:1:1: error: 'scenario x' is not allowed here; did you mean 'scenario:'?"),
        ("scenario:\n", "t.scenario:1:1: error: 'scenario:' needs a name on the same line"),
        (
            "scenario: s\n  when: POST /a\n    body:\n",
            "t.scenario:3:5: error: body: needs a JSON value, on the same line or indented below it",
        ),
        (
            "feature: a\n  scenario: b\n    Wehn: GET /\n",
            "t.scenario:3:5: error: 'Wehn:' is not allowed here; did you mean 'when:'?",
        ),
        (
            "  feature: a\n",
            "t.scenario:1:3: error: unexpected indentation; expected feature:, scenario:, background:, "
            "fragment:, parameters:, outline: or @tag at the previous level",
        ),
        # The tag is the mistake: reported on its line, the background read as if it were not there.
        (
            "@tag\nbackground:\n  when: GET /\n",
            "t.scenario:1:1: error: background: takes no tags; tags go on a feature:, scenario: or outline:",
        ),
    ],
)
def test_structure_errors(text, expected):
    assert error(text, dedent=False) == expected


def test_a_stray_dedent_still_reports_the_errors_of_the_blocks_it_closes():
    # The blocks the bad line closes are finished: their own errors are found, then the indentation.
    assert errors("""\
        feature: F
          parameters:
            timeout: "30"
          scenario: s
            when: PSOT /pets
         then: status 200
        """) == [
        't.scenario:3:14: error: timeout must be a positive integer number of seconds, got "30" (remove the quotes)',
        "t.scenario:5:11: error: unknown HTTP method 'PSOT'; did you mean POST?",
        "t.scenario:6:2: error: this line's indentation (1 space) matches no enclosing block (expected 0 or 2 or 4 spaces)",
    ]


def test_errors_are_the_projects_own_type():
    assert issubclass(InvalidFileError, ScenarioError)


def test_invalid_regular_expression_is_a_located_check_error():
    assert errors("""\
        scenario: s
          when: GET /x
          then: $.a matches "(a+"
          then: body matches "[z-a]"
          then: $.b matches "^ok$"
          then: $.c matches "{{x}}("
    """) == [
        't.scenario:3:21: error: invalid regular expression "(a+": missing ) at position 3',
        't.scenario:4:22: error: invalid regular expression "[z-a]": bad character range at position 4',
    ]
