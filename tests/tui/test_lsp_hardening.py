"""The language server: its memory stays flat over a long editing session, and no input
an editor (or anything else) writes to it can kill it, print a traceback or break its framing.
A real `scenario-tui lsp` subprocess, spoken to byte by byte over stdin/stdout (pygls's client
cannot send a malformed frame), its memory read from /proc/PID/status."""

from __future__ import annotations

import json
import os
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.tui.test_lsp import COMMAND

ANSWER_TIMEOUT = 120  # seconds: two cores shared by many test processes


def frame(message: dict | bytes) -> bytes:
    body = message if isinstance(message, bytes) else json.dumps({"jsonrpc": "2.0", **message}).encode()
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


class Wire:
    """`scenario-tui lsp` as a subprocess and a client that writes raw bytes: answers by id,
    diagnostics ignored, standard error kept line by line."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(COMMAND, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.answers: dict[object, list[dict]] = {}
        self.errors: list[str] = []
        self.changed = threading.Condition()
        self.next_id = 100
        threading.Thread(target=self._read_out, daemon=True).start()
        threading.Thread(target=self._read_err, daemon=True).start()

    def _read_out(self) -> None:
        out = self.process.stdout
        assert out is not None
        while True:
            length = None
            while (line := out.readline()) not in (b"\r\n", b""):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            if not line or length is None:
                return
            message = json.loads(out.read(length))
            if "method" not in message:
                with self.changed:
                    self.answers.setdefault(message.get("id"), []).append(message)
                    self.changed.notify_all()

    def _read_err(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            with self.changed:
                self.errors.append(line.decode("utf-8", "replace"))
                self.changed.notify_all()

    def write(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def send(self, message: dict) -> None:
        self.write(frame(message))

    def request_id(self) -> int:
        self.next_id += 1
        return self.next_id

    def answer(self, ident: object) -> dict:
        with self.changed:
            assert self.changed.wait_for(lambda: self.answers.get(ident), ANSWER_TIMEOUT), f"no answer to id {ident}"
            return self.answers[ident].pop(0)

    def request(self, method: str, params: dict | None) -> dict:
        ident = self.request_id()
        self.send({"id": ident, "method": method, "params": params})
        return self.answer(ident)

    def error_lines_until(self, marker: str) -> list[str]:
        """Standard error up to the line that names `marker` (excluded), taken off the list."""
        with self.changed:
            assert self.changed.wait_for(lambda: any(marker in line for line in self.errors), ANSWER_TIMEOUT), (
                self.errors
            )
            at = next(i for i, line in enumerate(self.errors) if marker in line)
            lines, self.errors[: at + 1] = self.errors[:at], []
            return lines

    def rss_kib(self) -> int:
        with open(f"/proc/{self.process.pid}/status") as status:
            return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))

    def stop(self) -> None:
        try:
            self.request("shutdown", None)
            self.send({"method": "exit"})
            assert self.process.stdin is not None
            self.process.stdin.close()
            self.process.wait(30)
        except (OSError, AssertionError, subprocess.TimeoutExpired):
            pass  # a server already gone (a failing test said why)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()


def started() -> Wire:
    wire = Wire()
    wire.request("initialize", {"processId": os.getpid(), "capabilities": {}})
    wire.send({"method": "initialized", "params": {}})
    return wire


@pytest.fixture(scope="module")
def wire() -> Iterator[Wire]:
    server = started()
    yield server
    server.stop()


# ---------------------------------------------------------------- memory

TEXT = "feature: Pets\n  scenario: read\n    when: GET http://127.0.0.1:8000/pets\n    then: status 200\n"


def test_lsp_memory_is_flat_over_thousands_of_edits(tmp_path: Path):
    """Before: every didChange left two finished futures in pygls's table (about 2.7 KB an edit:
    10 MB over these 4,000). Measured after a warm-up, when the server has applied every edit."""
    if not Path("/proc/self/status").exists():
        pytest.skip("reads /proc")
    server = started()
    try:
        uri = (tmp_path / "pets.scenario").as_uri()
        doc = {"uri": uri, "languageId": "scenario", "version": 1, "text": TEXT}
        server.send({"method": "textDocument/didOpen", "params": {"textDocument": doc}})

        def edits(first: int, count: int) -> int:
            """Types `#` at the start of line 4, then deletes it: the text stays the same size."""
            chunk = bytearray()
            for version in range(first, first + count):
                end = 0 if version % 2 else 1
                change = {"range": {"start": {"line": 3, "character": 0}, "end": {"line": 3, "character": end}}}
                change["text"] = "#" if version % 2 else ""
                params = {"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]}
                chunk += frame({"method": "textDocument/didChange", "params": params})
            server.write(bytes(chunk))
            server.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})  # all applied
            return first + count

        version = edits(2, 1_000)  # warm-up: modules, caches, allocator arenas
        before = server.rss_kib()
        edits(version, 4_000)
        growth = server.rss_kib() - before
        assert growth < 5 * 1024, f"RSS grew {growth} KiB over 4,000 edits"
    finally:
        server.stop()


# ---------------------------------------------------------------- malformed input

VALID = {"textDocument": {"uri": "file:///nowhere/notes.txt"}}  # not ours: answered [] at once

MALFORMED = {
    "invalid JSON": (b"Content-Length: 5\r\n\r\n{abc ", -32700, None),
    "JSON that is not JSON-RPC": (frame(b'{"hello": [1]}'), -32600, None),
    "a JSON array": (frame(b"[1, 2, 3]"), -32600, None),
    "a method that is not a string": (frame({"id": 7, "method": 42}), -32600, 7),
    "params that do not fit the method": (frame({"id": 8, "method": "textDocument/hover", "params": {}}), -32602, 8),
    "a huge Content-Length": (b"Content-Length: 99999999999999\r\n\r\n{}", None, None),
    "a Content-Length of 5,000 digits": (b"Content-Length: " + b"9" * 5000 + b"\r\n\r\n{}", None, None),
    "a missing Content-Length": (b'Content-Type: application/json\r\n\r\n{"jsonrpc": "2.0", "id": 9}', None, None),
    "a negative Content-Length": (b"Content-Length: -5\r\n\r\n{}", None, None),
    "a body without any header": (b'{"jsonrpc": "2.0", "method": "initialized", "params": {}}', None, None),
    "a header line that is not a header": (b"hello\r\nContent-Length: x\r\n\r\n", None, None),
}


@pytest.mark.parametrize("garbage, code, ident", MALFORMED.values(), ids=MALFORMED.keys())
def test_lsp_malformed_frames_get_an_error_or_one_log_line_and_the_server_keeps_serving(wire, garbage, code, ident):
    """Before: a huge length killed the server (MemoryError); a frame without a valid length
    made every later frame unreadable; each bad message printed a traceback."""
    first, second = wire.request_id(), wire.request_id()
    wire.write(
        garbage
        + frame({"id": first, "method": "textDocument/documentSymbol", "params": VALID})
        + frame({"id": second, "method": "textDocument/documentSymbol", "params": VALID})
    )
    assert wire.answer(first)["result"] == [] and wire.answer(second)["result"] == []
    if code is not None:
        (refusal,) = wire.answers.pop(ident)
        assert refusal["error"]["code"] == code and refusal["error"]["message"]
    marker = f"scenario-tui/after-{first}"
    wire.send({"method": marker, "params": {}})  # pygls logs one warning: everything before it is ours
    logged = wire.error_lines_until(marker)
    assert len(logged) == 1 and logged[0].startswith("scenario-tui lsp: "), logged
    assert wire.process.poll() is None


def test_lsp_malformed_frames_never_print_a_traceback(wire):
    """Everything above in one write, then a valid request: answered, and not one traceback."""
    garbage = b"".join(case[0] for case in MALFORMED.values())
    ident = wire.request_id()
    wire.write(garbage + frame({"id": ident, "method": "textDocument/documentSymbol", "params": VALID}))
    assert wire.answer(ident)["result"] == []
    wire.send({"method": "scenario-tui/after-all", "params": {}})
    logged = wire.error_lines_until("scenario-tui/after-all")
    assert logged and not any("Traceback" in line or line.startswith(" ") for line in logged), logged
