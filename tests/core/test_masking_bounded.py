"""The critical one: a secret holding `\\`, `"` or a control character made the masker
learn its JSON-escaped form, then that form's escaped form, forever, and the run died of
MemoryError (or ate the machine). Real runs against real loopback servers, each in a process
capped at 1 GiB of address space and a timeout, so a regression fails here instead of eating
the machine: `scenario-tui run` (also with --show-secrets) and the pytest plugin."""

from __future__ import annotations

import contextlib
import http.server
import json
import os
import re
import resource
import subprocess
import sys
import threading
from pathlib import Path
from unittest import mock
from urllib.parse import quote, quote_plus

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from scenario_core.report import long_secrets, masking
from scenario_core.report.masking import MASK, Masker
from scenario_core.support import secrets as secrets_module
from scenario_core.support.secrets import FORM_GROWTH, LONG_SECRET_LENGTH, SECRET_FORMS, secret_forms

SCRIPT = Path(sys.executable).with_name("scenario-tui")
ENV = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TTY_COMPATIBLE", "NO_COLOR", "PYTEST_ADDOPTS")}
MEMORY_CAP = 1 << 30  # bytes of address space: a run needs well under 200 MiB


def _capped() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def run_capped(args: list[str], cwd: Path | None = None) -> subprocess.CompletedProcess:
    result = subprocess.run(args, capture_output=True, text=True, timeout=120, env=ENV, cwd=cwd, preexec_fn=_capped)
    assert "MemoryError" not in result.stdout + result.stderr, result.stdout + result.stderr
    return result


def run_scenario(path: Path, base_url: str, *options: str) -> subprocess.CompletedProcess:
    report = path.with_suffix(".json")
    result = run_capped([str(SCRIPT), "run", str(path), "--base-url", base_url, "--report-json", str(report), *options])
    assert result.returncode == 1, result.stdout + result.stderr  # the scenarios fail on purpose: output shows values
    return result


def shown(result: subprocess.CompletedProcess, path: Path) -> str:
    """Everything a run showed: stdout, stderr and its JSON report."""
    return result.stdout + result.stderr + path.with_suffix(".json").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def cookie_server():
    """A loopback server answering every GET with a quoted cookie (RFC 6265 allows the quotes)
    and a body that shows the cookie's value again."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            body = json.dumps({"sid": "abc123", "quoted": '"abc123"', "n": 1}).encode()
            self.send_response(200)
            self.send_header("Set-Cookie", 'sid="abc123"; Path=/; HttpOnly')
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_a_quoted_set_cookie_is_learnt_once_not_escaped_forever(cookie_server, tmp_path):
    path = tmp_path / "cookie.scenario"
    path.write_text("scenario: s\n  when: GET /session\n  then: $.n == 2\n", encoding="utf-8")
    result = run_scenario(path, cookie_server)
    text = shown(result, path)
    assert "expected $.n == 2, got 1" in result.stdout
    assert "abc123" not in text, text  # the cookie's value, quoted or not, escaped or not
    assert "sid=••••••; Path=/; HttpOnly" in text  # the cookie's name and attributes stay


def test_a_var_with_a_backslash_is_learnt_once_not_escaped_forever(demo, tmp_path):
    path = tmp_path / "var.scenario"
    path.write_text("scenario: s\n  when: GET /echo?pw={{password}}\n  then: $.method == 1\n", encoding="utf-8")
    result = run_scenario(path, demo.url, "--var", "password=a\\b")
    text = shown(result, path)
    assert "expected $.method == 1" in result.stdout
    for leak in ("a\\b", "a%5Cb", "a\\\\b"):  # raw, in the URL, in the echoed JSON
        assert leak not in text, (leak, text)


def test_an_extracted_token_with_a_backslash_is_learnt_once_not_escaped_forever(demo, tmp_path):
    path = tmp_path / "extract.scenario"
    path.write_text(
        "scenario: s\n"
        "  when: POST /echo\n"
        '    body: {"token": "ab\\\\cd", "note": "ab\\\\cd", "n": 1}\n'
        "  extract: token from $.json.token\n"
        "  then: $.json.n == 2\n",
        encoding="utf-8",
    )
    result = run_scenario(path, demo.url)
    text = shown(result, path)
    assert "expected $.json.n == 2, got 1" in result.stdout
    assert "ab\\\\cd" not in text and "ab\\cd" not in text, text


def test_an_extracted_token_with_a_control_character_is_learnt_once_not_escaped_forever(demo, tmp_path):
    path = tmp_path / "control.scenario"
    path.write_text(
        "scenario: s\n"
        "  when: POST /echo\n"
        '    body: {"token": "ab\\u0007cd-and-more", "n": 1}\n'
        "  extract: token from $.json.token\n"
        "  then: $.json.n == 2\n",
        encoding="utf-8",
    )
    result = run_scenario(path, demo.url)
    assert "expected $.json.n == 2, got 1" in result.stdout
    assert "cd-and-more" not in shown(result, path)


def test_show_secrets_with_a_backslash_secret_runs_in_bounded_memory(demo, tmp_path):
    """Masking off still learns (the TUI can turn it back on), so it must be bounded too."""
    path = tmp_path / "show.scenario"
    path.write_text("scenario: s\n  when: GET /echo?pw={{password}}\n  then: $.method == 1\n", encoding="utf-8")
    result = run_scenario(path, demo.url, "--var", "password=a\\b-shown", "--show-secrets")
    out = shown(result, path)
    # shown, as asked: in the URL it is sent as (a backslash percent-encoded) and in the echoed body
    assert "a%5Cb-shown" in out and "a\\\\b-shown" in out


def test_the_pytest_plugin_with_a_backslash_secret_runs_in_bounded_memory(demo, tmp_path):
    (tmp_path / "plugin.scenario").write_text(
        "scenario: s\n"
        "  when: POST /echo\n"
        '    body: {"token": "ab\\\\cd", "n": 1}\n'
        "  extract: token from $.json.token\n"
        "  then: $.json.n == 2\n",
        encoding="utf-8",
    )
    result = run_capped(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:textual-snapshot",
            "-p",
            "no:randomly",
            f"--scenario-base-url={demo.url}",
            "--scenario-var=password=a\\b",
            "plugin.scenario",
        ],
        cwd=tmp_path,
    )
    assert result.returncode == 1 and "1 failed" in result.stdout, result.stdout + result.stderr
    assert "expected $.json.n == 2, got 1" in result.stdout
    assert "ab\\\\cd" not in result.stdout and "ab\\cd" not in result.stdout, result.stdout


# ---- in process: what one secret costs, for any secret


@pytest.fixture
def bounded_memory():
    """A soft cap on this process's address space while a test learns: a masker learning
    without end fails the test with MemoryError instead of eating the machine."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    try:
        used = int(Path("/proc/self/statm").read_text().split()[0]) * resource.getpagesize()
    except OSError:  # no /proc: no cap
        yield
        return
    cap = used + (768 << 20)
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    if soft != resource.RLIM_INFINITY and soft <= cap:
        yield
        return
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


@pytest.mark.parametrize(
    "secret", ["a\\b", 'sid"x', '"abc123"', "ab\x01cd", "tab\there", "\\" * 40, 'x"\\\x00' * 50, "\ud800 lone"]
)
def test_a_secret_with_a_backslash_is_learnt_once_not_escaped_forever(secret, bounded_memory):
    masker = Masker()
    masker.learn(secret)
    masker.learn_variable("token", secret)  # again: nothing more
    assert masker.secrets == {secret.strip()}
    assert masker.forms == secret_forms(secret.strip())
    assert len(masker.forms) <= SECRET_FORMS


def test_a_quoted_cookie_is_learnt_without_its_quotes(bounded_memory):
    masker = Masker()
    masker.learn_headers([("Set-Cookie", 'sid="abc123"; Path=/'), ("Cookie", 'a="quoted-value"; b=plain')])
    assert masker.secrets == {"abc123", "quoted-value", "plain"}
    shown = masker.text('{"sid": "abc123", "q": "\\"abc123\\""}')
    assert shown == f'{{"sid": "{MASK}", "q": "\\"{MASK}\\""}}'


def test_a_secret_is_masked_in_its_json_and_url_forms(bounded_memory):
    secret = 'long secret/with é+&"\\😀'
    masker = Masker([secret])
    for form in (json.dumps(secret)[1:-1], json.dumps(secret, ensure_ascii=False)[1:-1]):
        assert masker.text(f'{{"echo": "{form}!"}}') == f'{{"echo": "{MASK}!"}}'
    url = "GET http://h/echo/long%20secret/with%20%C3%A9+&%22%5C%F0%9F%98%80?q=long+secret%2Fwith+%C3%A9%2B%26%22%5C%F0%9F%98%80"
    assert masker.text(url) == f"GET http://h/echo/{MASK}?q={MASK}"


# Characters that escape (`\`, `"`, controls), encode (`/`, `%`, `+`, space, non-ASCII) or strip,
# then anything (surrogates too). Not the mask's bullet: a secret made of bullets and text could
# be rebuilt by the mask next to that text, a match that shows nothing of the secret.
_CHARS = st.one_of(
    st.sampled_from(list('\\"\x00\x01\x07\n\t\x1f /%+&=?#é😀\u2028')),
    st.characters(exclude_characters="•", exclude_categories=()),
)
_SECRETS = st.one_of(
    st.text(_CHARS, min_size=1, max_size=40),
    st.builds(lambda part, n: part * n, st.text(_CHARS, min_size=1, max_size=6), st.integers(1, 300)),
)
_FORMS = (
    lambda s: s,
    lambda s: json.dumps(s)[1:-1],
    lambda s: json.dumps(s, ensure_ascii=False)[1:-1],
    lambda s: json.dumps({"echo": s}),
    lambda s: json.dumps(json.dumps({"body": s})),  # echoed JSON in a JSON string
    # A lone surrogate (a command-line byte that is not UTF-8) is percent-encoded as the masker
    # learns it: surrogatepass (core/support/secrets.py).
    lambda s: quote(s, safe="", errors="surrogatepass"),
    lambda s: quote_plus(s, safe="", errors="surrogatepass"),
    lambda s: quote(s, safe="!$&'()*+,;=:@/", errors="surrogatepass"),
)


@st.composite
def secrets_and_body(draw):
    secrets = draw(st.lists(_SECRETS, min_size=1, max_size=6))
    pieces = draw(
        st.lists(
            st.one_of(st.text(max_size=30), st.tuples(st.sampled_from(secrets), st.sampled_from(_FORMS))), max_size=12
        )
    )
    body = "".join(piece if isinstance(piece, str) else piece[1](piece[0]) for piece in pieces)
    return secrets, body


class _Counted:
    """A compiled pattern that counts its passes over text and the characters they scan."""

    passes = 0
    scanned = 0

    def __init__(self, pattern: re.Pattern):
        self._pattern = pattern

    def __getattr__(self, name: str):  # search on a field's name: not a pass over the text
        return getattr(self._pattern, name)

    def _count(self, text: str) -> None:
        _Counted.passes += 1
        _Counted.scanned += len(text)

    def sub(self, repl, text, *args):
        self._count(text)
        return self._pattern.sub(repl, text, *args)

    def finditer(self, text, *args):
        self._count(text)
        return self._pattern.finditer(text, *args)


def _count_regex_passes(stack: contextlib.ExitStack) -> None:
    for module in (masking, secrets_module):
        for name, value in vars(module).items():
            if isinstance(value, re.Pattern):
                stack.enter_context(mock.patch.object(module, name, _Counted(value)))
    trie_pattern = long_secrets._trie_pattern
    stack.enter_context(mock.patch.object(long_secrets, "_trie_pattern", lambda s: _Counted(trie_pattern(s))))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(secrets_and_body())
@example(drawn=(["\ud800 a lone surrogate"], "x " + quote("\ud800 a lone surrogate", safe="", errors="surrogatepass")))
def test_any_secret_is_learnt_in_bounded_memory_and_masked_in_linear_work(bounded_memory, drawn):
    secrets, body = drawn
    masker = Masker()
    for secret in secrets:
        masker.learn_variable("token", secret)
    learnt = {s.strip() for s in secrets} - {""}
    assert masker.secrets == learnt
    # (a) bounded: at most SECRET_FORMS strings per value, each at most FORM_GROWTH times as long
    assert len(masker.forms) <= SECRET_FORMS * len(learnt)
    assert sum(map(len, masker.forms)) <= SECRET_FORMS * FORM_GROWTH * sum(map(len, learnt))
    # (c) linear work: a fixed number of regex passes (the rules' patterns, plus at most
    # log2(n) + 1 batches of learnt secrets), each over a text at most len(MASK) times the body
    # The body as it is (a short text, scanned by windows), long (by patterns), clipped by a `…`.
    clipped = body + body[: len(body) // 2] + "…"
    for text in (body, body * (1 + 5000 // (len(body) + 1)), clipped * (1 + 5000 // len(clipped))):
        with contextlib.ExitStack() as stack:
            _count_regex_passes(stack)
            _Counted.passes = _Counted.scanned = 0
            masked = masker.text(text)
            passes, scanned = _Counted.passes, _Counted.scanned
        assert passes <= 10 + len(masker.forms).bit_length() + 1
        assert scanned <= passes * (len(MASK) * len(text) + len(MASK))
        assert len(masked) <= len(MASK) * len(text) + len(MASK)
        # (b) what the rules promise: a value of LONG_SECRET_LENGTH or more is masked anywhere,
        # in every form it was learnt in
        for value in learnt:
            if len(value) >= LONG_SECRET_LENGTH:
                for form in secret_forms(value):
                    assert form not in masked, (value, form)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(st.text(_CHARS, min_size=1, max_size=LONG_SECRET_LENGTH - 1).filter(lambda s: s == s.strip()), min_size=1),
    st.lists(st.text(max_size=12), max_size=6),
    st.booleans(),
)
def test_a_short_secret_standing_as_a_json_string_is_masked(bounded_memory, secrets, others, ascii_only):
    masker = Masker()
    for secret in secrets:
        masker.learn_variable("token", secret)
    # an array, not an object: a secret that happens to equal a key ("values") is masked there too
    body = json.dumps([secrets + others, json.dumps(secrets)], ensure_ascii=ascii_only)
    values, echo = json.loads(masker.text(body))  # masking whole strings keeps the JSON valid
    for leaf in values + json.loads(echo):
        assert leaf not in secrets
