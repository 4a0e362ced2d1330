"""Every error at once (docs/spec/steps.md#every-error-at-once): after a syntax or indentation error the parser goes on at the
next line of the same or a lower indentation, so a file's errors are all reported, in file order,
each once, with no follow-on errors made up by the recovery; at most 100, then how many more."""

from __future__ import annotations

import sys

import pytest

from scenario_core.language.errors import InvalidFileError
from scenario_core.language.parser import MAX_ERRORS, parse_text


def errors(text: str, **options) -> list[str]:
    with pytest.raises(InvalidFileError) as caught:
        parse_text(text, "t.scenario", **options)
    return [str(d) for d in caught.value.diagnostics]


IN_A_SCENARIO = "expected when:, then:, extract:, include: or given/and/but"


# ---------------------------------------------------------------- the cases


def test_a_syntax_error_no_longer_hides_the_errors_after_it():
    text = (
        "scenario: s\n"
        "  when: GET http://127.0.0.1:9/x\n"
        "  foo bar\n"
        "  then: status 200\n"
        "  include: missing\n"
        "  when: POST http://127.0.0.1:9/x\n"
        '    body: {"a": 1,}\n'
    )
    assert errors(text) == [
        f"t.scenario:3:3: error: 'foo bar' is not allowed here; {IN_A_SCENARIO}",
        "t.scenario:5:3: error: include of unknown fragment 'missing'; this file defines no fragments",
        "t.scenario:7:19: error: body: invalid JSON: Expecting property name enclosed in double quotes",
    ]


def test_a_tab_no_longer_hides_the_errors_after_it():
    # `status 20x` is a valid pattern here (200-209, docs/spec/steps.md#assertions), so the line after the tab
    # has a real mistake: a four-character code.
    text = "scenario: s\n  when: GET http://127.0.0.1:9/x\n\tthen: status 200\n  then: status 20xx\n"
    assert errors(text) == [
        "t.scenario:3:1: error: a tab in indentation; indent with spaces",
        "t.scenario:4:16: error: status takes a 3-digit code (200) or a class (2xx), got '20xx'",
    ]


# ---------------------------------------------------------------- where recovery goes on


def test_a_stray_dedent_skips_its_line_and_the_lines_below_it_then_goes_on_in_the_open_blocks():
    text = (
        "feature: f\n"
        "  scenario: a\n"
        "    when: GET /x\n"
        "   then: status 200\n"  # 3 spaces: no block is open there
        "      foo\n"  # below the stray line: skipped with it
        "    then: status 20xx\n"  # back at the scenario's steps
        "  scenario: b\n"
        "    then: status 2000\n"
    )
    assert errors(text) == [
        "t.scenario:4:4: error: this line's indentation (3 spaces) matches no enclosing block "
        "(expected 0 or 2 or 4 spaces)",
        "t.scenario:6:18: error: status takes a 3-digit code (200) or a class (2xx), got '20xx'",
        "t.scenario:8:18: error: status takes a 3-digit code (200) or a class (2xx), got '2000'",
    ]


def test_an_error_in_a_feature_leaves_the_next_feature_whole():
    valid_b = "feature: b\n  scenario: t\n    when: GET /y\n    then: status 200\n"
    broken_a = "feature: a\n  scenario: s\n    when: GET /x\n    nonsense here\n    then: status 200\n"
    expected = f"t.scenario:4:5: error: 'nonsense here' is not allowed here; {IN_A_SCENARIO}"
    assert errors(broken_a + valid_b) == [expected]  # nothing made up in b
    assert errors(broken_a + valid_b.replace("status 200", "status 2000")) == [
        expected,
        "t.scenario:9:18: error: status takes a 3-digit code (200) or a class (2xx), got '2000'",
    ]


def test_an_error_on_the_last_line_with_or_without_a_line_break():
    for end in ("", "\n"):
        text = "scenario: s\n  when: GET /x\n  then: status 2000\n  last line wrong" + end
        assert errors(text) == [
            "t.scenario:3:16: error: status takes a 3-digit code (200) or a class (2xx), got '2000'",
            f"t.scenario:4:3: error: 'last line wrong' is not allowed here; {IN_A_SCENARIO}",
        ]


def test_a_misplaced_triple_quoted_block_is_one_error_and_its_lines_are_not_read():
    text = 'scenario: s\n  when: GET /x\n  """\n  scenario: inner\n  foo bar\n  """\n  then: status 2000\n'
    assert errors(text) == [
        f't.scenario:3:3: error: \'"""\' is not allowed here; {IN_A_SCENARIO}',
        "t.scenario:7:16: error: status takes a 3-digit code (200) or a class (2xx), got '2000'",
    ]


def test_an_error_inside_a_triple_quoted_body_and_after_it():
    text = (
        'scenario: s\n  when I send it\n    call ^createPet\n      body: """\n        {"a": "{{x"}\n'
        '        """\n    assert status 2000\n'
    )
    assert errors(text) == [
        "t.scenario:4:7: error: body: '{{' is not closed by '}}'",
        "t.scenario:7:19: error: status takes a code (200), a class (2xx), a range (201-204) or a pattern "
        "(20x), got '2000'",
    ]


def test_unexpected_indentation_skips_the_indented_lines_and_goes_on():
    text = "scenario: s\n  include: x\n    then: status 200\n  then: status 999\nfragment: x\n  then: status 200\n"
    assert errors(text) == [
        f"t.scenario:3:5: error: unexpected indentation; {IN_A_SCENARIO} at the previous level",
        "t.scenario:4:16: error: status takes a 3-digit code (200) or a class (2xx), got '999'",
    ]


def test_berrycrush_directives_out_of_place_each_reported_and_the_rest_read():
    directive = (
        "is not allowed here; a directive stands indented under a step (when I create a pet), at the "
        "indentation of the step's call: not at the step's own level, not under the call"
    )
    text = (
        "Feature: pets\n"
        "  Scenario: s\n"
        "    when I list pets\n"
        "    call ^listPets\n"
        "    assert status 200\n"
        "    then it is there\n"
        "      extract $.id =>\n"
        "      call ^getPet\n"
        "        foo bar baz\n"
    )
    assert errors(text) == [
        f"t.scenario:4:5: error: 'call' {directive}",
        f"t.scenario:5:5: error: 'assert' {directive}",
        "t.scenario:7:15: error: extract reads like: extract $.id => petId (or, ours, extract: petId from $.id)",
        "t.scenario:9:9: error: 'foo bar baz:' needs a value",
    ]


def test_dangling_tags_are_reported_on_the_tag_and_the_blocks_around_them_read():
    text = (
        "feature: f\n  scenario: s\n    when: GET /x\n  @wip\nscenario: t\n  when: GET /y\n  then: status 2000\n@end\n"
    )
    follows = "is not followed by a feature:, scenario: or outline: line; tags go on the line before one"
    assert errors(text) == [
        f"t.scenario:4:3: error: '@wip' {follows}",
        "t.scenario:7:16: error: status takes a 3-digit code (200) or a class (2xx), got '2000'",
        f"t.scenario:8:1: error: '@end' {follows}",
    ]


# ---------------------------------------------------------------- the builder's own errors, once each


def test_builder_errors_before_and_after_a_syntax_error_are_each_reported_once():
    text = (
        "parameters:\n  timeout: abc\nscenario: s\n  when: GET /x\n  ohno\n  then: status 200\n  extract: 1x from $.a\n"
    )
    assert errors(text) == [
        't.scenario:2:12: error: timeout must be a positive integer number of seconds, got "abc"',
        f"t.scenario:5:3: error: 'ohno' is not allowed here; {IN_A_SCENARIO}",
        "t.scenario:7:12: error: '1x' is not a variable name: letters, digits and _, not starting with a digit",
    ]


def test_a_fragment_with_an_error_inside_is_still_defined_for_its_includes():
    text = (
        "fragment: login\n  when: POST /login\n  ??? what\n  then: status 200\n"
        "scenario: s\n  include: login\n  include: logn\n"
    )
    assert errors(text) == [
        f"t.scenario:3:3: error: '??? what' is not allowed here; {IN_A_SCENARIO}",
        "t.scenario:7:3: error: include of unknown fragment 'logn'; did you mean 'login'?",
    ]


def test_an_include_of_a_fragment_whose_line_was_skipped_is_not_reported_again():
    # The misplaced fragment: line is the mistake; `include: inner` is not a second one.
    text = "scenario: s\n  when: GET /x\n  fragment: inner\n    then: status 200\n  include: inner\n  include: other\n"
    assert errors(text) == [
        f"t.scenario:3:3: error: 'fragment:' is not allowed here; {IN_A_SCENARIO}",
        "t.scenario:6:3: error: include of unknown fragment 'other'; this file defines no fragments",
    ]


def test_recovered_errors_carry_codes_for_tools():
    with pytest.raises(InvalidFileError) as caught:
        parse_text("scenario: s\n  foo\n\tbar\n  include: x\n    y\n", "t.scenario")
    assert [(d.location.line, d.code) for d in caught.value.diagnostics] == [
        (2, "syntax"),
        (3, "indentation"),
        (4, ""),
        (5, "indentation"),
    ]


# ---------------------------------------------------------------- at most 100, then how many more


def test_150_errors_are_100_and_a_line_saying_50_more():
    text = "scenario: s\n  when: GET /x\n" + "".join(f"  wrong {i}\n" for i in range(150))
    found = errors(text)
    assert len(found) == MAX_ERRORS + 1 == 101
    assert found[0] == f"t.scenario:3:3: error: 'wrong 0' is not allowed here; {IN_A_SCENARIO}"
    assert found[99] == f"t.scenario:102:3: error: 'wrong 99' is not allowed here; {IN_A_SCENARIO}"
    assert found[100] == "t.scenario:103:3: error: ... and 50 more errors"
    assert len(errors(text, max_errors=None)) == 150  # a tool (the language server) may take all


def test_recovery_is_linear_on_a_file_full_of_errors():
    # Work counted, not timed: every Python function and builtin called while parsing. Four times
    # the lines makes four times the calls when recovery is linear (exactly, less a constant),
    # sixteen times when it is quadratic (say, re-reading the file from the start after each
    # error). A count does not depend on how busy the machine is.
    def calls(repeats: int) -> tuple[int, int]:
        text = "scenario: s\n" + "  foo bar\n    deeper\n   stray\n\ttab\n" * repeats
        made = 0

        def count(frame, event, arg):
            nonlocal made
            if event in ("call", "c_call"):
                made += 1

        sys.setprofile(count)
        try:
            found = errors(text, max_errors=None)
        finally:
            sys.setprofile(None)
        return made, len(found)

    calls(100)  # warm the parser's caches
    small, small_count = calls(1_000)
    large, large_count = calls(4_000)  # 16,000 lines
    assert (small_count, large_count) == (3_000, 12_000)  # each foo bar (its deeper line skipped with it), stray, tab
    assert large < 4.5 * small, (small, large)


# ---------------------------------------------------------------- what each block takes, exactly


@pytest.mark.parametrize(
    "text, expected",
    [
        # A scenario's own parameters: go first (docs/spec/parameters.md#placement): listed only before its first step.
        # (A scenario takes description:, tags: and finally: lines, BerryCrush samples' forms, unlisted.)
        (
            "scenario: s\n  headers: d\n",
            "t.scenario:2:3: error: 'headers:' is not allowed here; expected parameters:, when:, then:, extract:, "
            "include: or given/and/but",
        ),
        (
            "scenario: s\n  when: GET /x\n  headers: d\n",
            f"t.scenario:3:3: error: 'headers:' is not allowed here; {IN_A_SCENARIO}",
        ),
        (
            "outline: o\n  when: GET /x\n  headers: d\n",
            "t.scenario:3:3: error: 'headers:' is not allowed here; expected when:, then:, extract:, include:, "
            "given/and/but or examples:",
        ),
        # No parameters: in a background or a fragment.
        (
            "background:\n  description: d\n",
            f"t.scenario:2:3: error: 'description:' is not allowed here; {IN_A_SCENARIO}",
        ),
        (
            "fragment: f\n  description: d\n",
            f"t.scenario:2:3: error: 'description:' is not allowed here; {IN_A_SCENARIO}",
        ),
        (
            "feature: f\n  when: GET /x\n",
            "t.scenario:2:3: error: 'when:' is not allowed here; expected description:, parameters:, background:, "
            "scenario:, outline: or @tag",
        ),
        (
            "feature: f\n  scenario: s\n    when: GET /x\n  when: GET /y\n",
            "t.scenario:4:3: error: 'when:' is not allowed here; expected scenario:, outline: or @tag",
        ),
        (
            "scenario: s\n  when: GET /x\n    description: d\n",
            "t.scenario:3:5: error: 'description:' is not allowed here; expected headers:, query: or body:",
        ),
        (
            "scenario: s\n  when: ^getPet\n    description: d\n",
            "t.scenario:3:5: error: 'description:' is not allowed here; expected headers:, query:, body: or "
            "a 'name: value' line",
        ),
        (
            "scenario: s\n  when I look\n    description: d\n",
            "t.scenario:3:5: error: 'description:' is not allowed here; expected call, assert, extract, include, if, "
            "else, fail or webhook:",
        ),
        (
            "scenario: s\n  when: GET /x\n    headers:\n      just words\n",
            "t.scenario:4:7: error: 'just words' is not allowed here; expected a 'name: value' line",
        ),
        # After tags only what takes them; the tags go with the line skipped.
        (
            "@wip\nwhen: GET /x\nscenario: s\n  when: GET /y\n",
            "t.scenario:2:1: error: 'when:' is not allowed here; expected feature:, scenario: or outline:",
        ),
        (
            "feature: f\n  @wip @slow  include: x\n  scenario: s\n    when: GET /y\n",
            "t.scenario:2:15: error: 'include:' is not allowed here; expected scenario: or outline:",
        ),
        (
            "scenario: s\n  when: GET /x\nscenario: t\n  when: GET /y\n    @x\n",
            "t.scenario:5:5: error: '@x' is not allowed here; expected headers:, query: or body:",
        ),
    ],
)
def test_a_syntax_error_names_exactly_what_its_block_takes(text, expected):
    assert errors(text) == [expected]


# ---------------------------------------------------------------- misleading messages


def test_a_tag_before_fragment_is_reported_on_the_tag():
    assert errors("@smoke\nfragment: f\n  then: status 200\nscenario: s\n  include: f\n") == [
        "t.scenario:1:1: error: fragment: takes no tags; tags go on a feature:, scenario: or outline:"
    ]


@pytest.mark.parametrize(
    "line, expected",
    [
        (
            "then: status == 200",
            "3:16: error: status takes a code such as 200 or 2xx, with no operator before it: then: status 200",
        ),
        (
            "then: status = 2xx",
            "3:16: error: status takes a code such as 200 or 2xx, with no operator before it: then: status 2xx",
        ),
        # docs/spec/steps.md#keywords-and-comments: `#` starts a comment after whitespace; glued to the code it does not.
        (
            "then: status 200# ok",
            "3:19: error: status takes a code such as 200 or 2xx, got '200# ok'; a # starts a "
            "comment only after a space: then: status 200  # ok",
        ),
        (
            "then: status 200 201",
            "3:16: error: status takes one code such as 200 or 2xx (or a range: 200-299), got '200 201'",
        ),
        (
            "then: $.status == 'ok'",
            "3:21: error: expected a JSON value or {{NAME}} after '==', got ''ok'' "
            '(strings need double quotes: "ok")',
        ),
    ],
)
def test_misleading_assertion_messages_say_what_is_wrong(line, expected):
    assert errors(f"scenario: s\n  when: GET /x\n  {line}\n") == [f"t.scenario:{expected}"]


def test_a_comment_after_whitespace_is_a_comment_after_a_status():
    file = parse_text("scenario: s\n  when: GET /x\n  then: status 200  # ok\n", "t.scenario")
    assert file.scenarios[0].steps[1].assertion.code == 200
