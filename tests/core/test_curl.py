"""`curl_command`: a sent request as a shell command that sends the same request again."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from scenario_core.report.curl import curl_command
from scenario_core.report.masking import Masker
from scenario_core.run.events import RequestSent


def _sent(method="GET", url="http://h/pets", headers=(), body=None) -> RequestSent:
    return RequestSent(step=None, method=method, url=url, headers=tuple(headers), body=body)


def _words(command: str) -> list[str]:
    """What a POSIX shell passes to curl: the words after quoting and line continuations."""
    script = 'curl() { for a in "$@"; do printf "%s\\0" "$a"; done; }\n' + command
    out = subprocess.run(["sh", "-c", script], capture_output=True, check=True).stdout
    return out.decode("utf-8").split("\0")[:-1]


def test_a_get_is_the_url_alone():
    assert curl_command(_sent()) == "curl http://h/pets"


def test_method_headers_and_body_one_option_per_line():
    command = curl_command(
        _sent("POST", "http://h/pets?x=1&y=2", [("Content-Type", "application/json")], '{"name": "Rex"}')
    )
    assert command.splitlines() == [
        "curl -X POST 'http://h/pets?x=1&y=2' \\",
        "  -H 'Content-Type: application/json' \\",
        """  --data-raw '{"name": "Rex"}'""",
    ]


def test_quoting_survives_the_shell():
    body = 'it\'s $HOME `x` "q"\nsecond line\t\\'
    command = curl_command(_sent("PUT", "http://h/a b?q=$x", [("X-Note", 'a\'b "c" $d')], body))
    assert _words(command) == ["-X", "PUT", "http://h/a b?q=$x", "-H", 'X-Note: a\'b "c" $d', "--data-raw", body]


def test_headers_curl_computes_are_left_out():
    command = curl_command(
        _sent("POST", headers=[("Content-Length", "2"), ("Host", "h"), ("Accept", "*/*")], body="{}")
    )
    assert "Content-Length" not in command and "Host:" not in command and "Accept: */*" in command


def test_secrets_are_masked_by_a_masker_and_shown_without_one():
    sent = _sent("POST", headers=[("Authorization", "Bearer tok-123456789")], body='{"password": "hunter2"}')
    masker = Masker()
    masker.learn_event(sent)
    masked = curl_command(sent, masker)
    assert "tok-123456789" not in masked and "hunter2" not in masked and "Authorization: Bearer" in masked
    shown = curl_command(sent, Masker(enabled=False))
    assert "tok-123456789" in shown and "hunter2" in shown


@pytest.mark.skipif(shutil.which("curl") is None, reason="no curl on this machine")
def test_the_command_sends_the_same_request(demo):
    body = '{"name": "O\'Brien $x", "tag": "a\\nb"}'
    sent = _sent("PATCH", f"{demo.url}/echo?q=a%20b", [("Content-Type", "application/json"), ("X-Why", "it's")], body)
    command = curl_command(sent).replace("curl ", "curl -s ", 1)
    out = subprocess.run(["sh", "-c", command], capture_output=True, check=True, timeout=20).stdout
    echoed = json.loads(out)
    assert echoed["method"] == "PATCH" and echoed["path"] == "/echo" and echoed["body"] == body
    assert echoed["headers"]["x-why"] == "it's"
