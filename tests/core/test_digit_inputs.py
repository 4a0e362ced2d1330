"""Counts, ports and indices a user or a server writes: `²` passes `str.isdigit` and `int`
refuses it, as it refuses more than 4,300 digits; each is a one-line error or a plain miss,
never a traceback (core/support/digits.py)."""

from __future__ import annotations

import httpx
import pytest

from scenario_core.importing.openapi_import import read_openapi
from scenario_core.language.errors import InvalidFileError
from scenario_core.language.parser import parse_text
from scenario_core.openapi.schema_patterns import PatternError, compile_pattern
from scenario_core.support.digits import ascii_int
from tests.core.test_webhooks import hooks, webhook  # noqa: F401 (the fixture)

LONG = "9" * 5000


def test_ascii_int_reads_only_ascii_digits_within_the_bound():
    assert ascii_int("0") == 0 and ascii_int("65535", 5) == 65535
    assert [ascii_int(text, 5) for text in ("", "²", "٣", "-1", "123456", " 1", LONG)] == [None] * 7


@pytest.mark.parametrize("port", ["²", LONG, "-1", "65536"], ids=["superscript", "5000-digits", "negative", "too-high"])
def test_a_webhook_port_that_is_no_port_number_is_a_located_error(port):
    text = f"scenario: s\n  given a hook\n    webhook: w\n      hook: a\n      port: {port}\n  when: GET /x\n"
    with pytest.raises(InvalidFileError) as raised:
        parse_text(text, "t.scenario")
    (problem,) = raised.value.diagnostics
    assert (problem.location.line, problem.location.column) == (5, 13)
    assert problem.message.startswith("port must be 0 (any free port) or a port number up to 65535")


def test_schema_pattern_counts_in_other_digits_or_too_many_never_raise_value_error():
    with pytest.raises(PatternError, match="repeats too much"):
        compile_pattern("a{" + LONG + "}")
    with pytest.raises(PatternError, match="repeats too much"):
        compile_pattern("a{2," + LONG + "}")
    compile_pattern("a{²}")  # not a count: the regex engine reads it literally
    compile_pattern("a{1,٣}")


def test_webhook_indices_of_many_digits_or_other_digits_are_misses(hooks):  # noqa: F811
    url = hooks.start(webhook(hooks=("h",)), "s")[0]
    with httpx.Client() as client:
        client.post(url, json={"tags": ["a"]})
    assert hooks.lookup(f"srv.h[{LONG}]") == (False, None)
    assert hooks.lookup("srv.h[0].body.tags.²") == (False, None)
    assert hooks.lookup("srv.h[0].body.tags.0") == (True, "a")
    assert "does not exist yet" in (hooks.why_missing(f"srv.h[{LONG}]") or "")


def test_an_openapi_response_code_in_other_digits_is_not_a_status(tmp_path):
    spec = tmp_path / "api.yaml"
    spec.write_text(
        "openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths:\n  /items:\n    get:\n"
        "      operationId: list\n      responses:\n        '2²': {description: odd}\n"
        "        '201': {description: made}\n",
        encoding="utf-8",
    )
    (scenario,) = read_openapi(str(spec)).items
    assert scenario.requests[0].status == 201
