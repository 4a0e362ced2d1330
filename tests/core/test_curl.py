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
    masker.feed(sent)
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


RUN_DEFAULTS = [("Accept", "*/*"), ("Connection", "keep-alive"), ("User-Agent", "scenario-tui")]


def test_default_accept_encoding_becomes_compressed():
    command = curl_command(_sent(headers=[*RUN_DEFAULTS, ("Accept-Encoding", "gzip, deflate")]))
    assert command.splitlines()[:2] == ["curl http://h/pets \\", "  --compressed \\"]
    assert "Accept-Encoding" not in command


def test_connection_keep_alive_is_never_emitted():
    command = curl_command(_sent(headers=[*RUN_DEFAULTS, ("Accept-Encoding", "gzip, deflate")]))
    assert "Connection" not in command and "keep-alive" not in command
    assert _words(command) == ["http://h/pets", "--compressed", "-H", "Accept: */*", "-H", "User-Agent: scenario-tui"]


def test_a_chosen_accept_encoding_is_kept():
    identity = curl_command(_sent(headers=[("Accept-Encoding", "identity")]))
    assert "--compressed" not in identity and "Accept-Encoding: identity" in identity
    with_br = curl_command(_sent(headers=[("Accept-Encoding", "gzip, br")]))  # curl sends it as chosen, decoded
    assert "--compressed" in _words(with_br) and "Accept-Encoding: gzip, br" in with_br


@pytest.mark.skipif(shutil.which("curl") is None, reason="no curl on this machine")
def test_the_compressed_command_sends_the_same_request(demo):
    from scenario_core.run.http.request import DEFAULT_HEADERS

    sent = _sent("POST", f"{demo.url}/echo", [*DEFAULT_HEADERS, ("Content-Type", "application/json")], '{"a": 1}')
    command = curl_command(sent).replace("curl ", "curl -s ", 1)
    out = subprocess.run(["sh", "-c", command], capture_output=True, check=True, timeout=20).stdout
    echoed = json.loads(out)
    assert echoed["body"] == '{"a": 1}' and echoed["headers"]["user-agent"] == "scenario-tui"
    assert {"gzip", "deflate"} <= {c.strip() for c in echoed["headers"]["accept-encoding"].split(",")}
    assert "keep-alive" not in echoed["headers"].get("connection", "")


@pytest.mark.skipif(shutil.which("curl") is None, reason="no curl on this machine")
def test_the_compressed_command_prints_a_gzipped_body_decoded():
    import gzip
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Gzipping(BaseHTTPRequestHandler):
        def do_GET(self):
            body = b'{"name": "Rex"}'
            if "gzip" in self.headers.get("Accept-Encoding", ""):
                body = gzip.compress(body)
                self.send_response(200)
                self.send_header("Content-Encoding", "gzip")
            else:
                self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Gzipping)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/pets"
        command = curl_command(_sent(url=url, headers=[("Accept-Encoding", "gzip, deflate")]))
        out = subprocess.run(["sh", "-c", command], capture_output=True, check=True, timeout=20).stdout
    finally:
        server.shutdown()
        server.server_close()
    assert out == b'{"name": "Rex"}'
