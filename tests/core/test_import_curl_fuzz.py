"""Fuzzing `import curl`: any text gives an imported request that the writer renders to a file
that parses, or one `import curl:` line (or the writer's one line) — never another exception."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scenario_core.editor.render import RenderError, render_file
from scenario_core.importing.curl import CurlError, read_curl
from scenario_core.language.parser import parse_text
from tests.core.test_import_curl import CHROME_CMD, CHROME_GET, CHROME_MULTIPART, CHROME_POST, FIREFOX, STRIPE_DOCS
from tests.core.test_parser_fuzz import SCALE

pytestmark = pytest.mark.fuzz

SEEDS = [CHROME_GET, CHROME_POST, CHROME_CMD, FIREFOX, STRIPE_DOCS, CHROME_MULTIPART]
PIECES = [
    "'",
    '"',
    "$'",
    "\\",
    "\\\n",
    "^",
    '^"',
    " -H ",
    " -d ",
    " -F ",
    " -X ",
    " -u ",
    " -G ",
    " -I ",
    " -b ",
    " --json ",
    " --data-urlencode ",
    " --url ",
    " -- ",
    "@",
    "=",
    "&",
    ";",
    ":",
    "#",
    "{",
    "}",
    "[",
    "{{",
    "\x00",
    "\r\n",
    "\n",
    " ",
    "é",
    "\u2028",
    "http://",
    "https://[::1]:99999/",
    "a=b",
    '{"password": "x"}',
    "x" * 3000,
    "%",
    "%zz",
    "?",
    "\\x41",
    "\\u00e9",
    "\\777",
    "multipart/form-data; boundary=b",
    "--b\r\n",
]


def _import(command: str) -> None:
    try:
        imported = read_curl(command)
    except CurlError as error:
        assert str(error).startswith("import curl: ") and "\n" not in str(error)
        return
    try:
        text = render_file(imported, "ours")
    except RenderError as error:
        assert "\n" not in str(error)
        return
    parse_text(text, "imported.scenario", keep=False)


@settings(max_examples=200 * SCALE, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(SEEDS),
    st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 6), st.sampled_from(PIECES)), max_size=6),
)
def test_mutated_commands_import_or_give_one_line(seed, edits):
    text = seed
    for position, delete, piece in edits:
        position %= len(text) + 1
        text = text[:position] + piece + text[position + delete :]
    _import(text)


@settings(max_examples=100 * SCALE, deadline=None)
@given(st.text(max_size=300))
def test_any_text_after_curl_imports_or_gives_one_line(tail):
    _import("curl " + tail)


def test_a_command_over_the_size_limit_is_refused_before_it_is_read():
    with pytest.raises(CurlError, match="the limit is"):
        read_curl("curl http://h.test/" + "a" * (1024 * 1024))
