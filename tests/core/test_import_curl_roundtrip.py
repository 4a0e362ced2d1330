"""`import curl` reads what `y` copies (report/curl.py) back into the same request, and splits any
words quoted as a shell quotes them exactly as the shell does."""

from __future__ import annotations

import shlex
import shutil
import subprocess

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from scenario_core.importing.curl import read_curl
from scenario_core.importing.model import FormBody, JsonBody, TextBody
from scenario_core.importing.shell_words import shell_words
from scenario_core.report.curl import curl_command
from scenario_core.run.events import RequestSent

WORD = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), min_size=1, max_size=20)


@settings(max_examples=150, deadline=None)
@given(st.lists(WORD, max_size=6))
@example(["^\n"]).via("a cmd continuation inside POSIX quotes")
@example(['^"', "x^"]).via("cmd's quote inside POSIX quotes")
def test_words_quoted_as_a_shell_quotes_them_split_back_the_same(words):
    assert shell_words("curl " + " ".join(shlex.quote(word) for word in words)) == ["curl", *words]


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash (its $'…' quotes)")
@pytest.mark.parametrize(
    "command",
    [
        r"""curl 'a b' "c \"d\" \$e \\ f" $'g\th\x41\u00e9\'' i\ j \
  k"l"'m'""",
        "curl -H 'X: y' --data-raw \"{\\\"a\\\": [1, 2]}\" 'http://h/p?q=1&r=2'",
    ],
)
def test_quoting_is_split_as_bash_splits_it(command):
    script = 'curl() { printf "%s\\0" curl "$@"; }\n' + command
    out = subprocess.run(["bash", "-c", script], capture_output=True, check=True).stdout
    assert shell_words(command) == out.decode("utf-8").split("\0")[:-1]


@pytest.mark.parametrize(
    "method, url, headers, body, expected",
    [
        ("GET", "http://h.test/pets?tag=dog", [("Accept", "application/json")], None, None),
        (
            "POST",
            "http://h.test/pets",
            [("Content-Type", "application/json")],
            '{"name": "Rex \'the\' dog"}',
            JsonBody({"name": "Rex 'the' dog"}),
        ),
        (
            "PUT",
            "http://h.test/notes/1",
            [("Content-Type", "text/plain")],
            "line one\nline $two",
            TextBody("line one\nline $two"),
        ),
        (
            "POST",
            "http://h.test/form",
            [("Content-Type", "application/x-www-form-urlencoded")],
            "a=1&b=x+y",
            FormBody((("a", "1"), ("b", "x y"))),
        ),
    ],
)
def test_a_copied_request_imports_back_as_the_same_request(method, url, headers, body, expected):
    command = curl_command(RequestSent(step=None, method=method, url=url, headers=tuple(headers), body=body))
    imported = read_curl(command)
    (request,) = imported.items[0].requests
    assert imported.base_url + request.path == url
    assert request.method == method
    assert request.body == expected
    kept = {name.lower() for name, _ in request.headers}
    assert kept == {name.lower() for name, _ in headers} - (
        {"content-type"} if isinstance(expected, (JsonBody, FormBody)) else set()
    )
