"""Benchmark: the memory of `scenario-tui lsp` over a long editing session. A real server over
stdio (Content-Length framed JSON-RPC, as an editor speaks it) gets one document and then
`--edits` didChange notifications (incremental: a character typed, then deleted, so the text
stays the same size); its resident set (VmRSS from /proc/PID/status) is printed after opening,
after `--warmup` edits, every 10,000 edits and at the end, each taken once the server has
answered a request sent after the last edit (it reads in order: every edit before it is applied).

    python bench/lsp_memory.py [--edits 40000] [--warmup 2000] [--command "scenario-tui lsp"]

Prints the ratio end / after warm-up (target: flat, <= 1.1). Linux only (/proc).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

TEXT = (
    "parameters:\n  baseUrl: http://127.0.0.1:8000\n\n"
    'feature: Pets\n  scenario: create\n    when: POST /pets\n      body: {"name": "Rex"}\n'
    "    then: status 201\n    extract: petId from $.id\n"
    "  scenario: read\n    when: GET /pets/{{petId}}\n    then: status 200\n"
)


class Server:
    """The server as a subprocess, and just enough of a client: framed writes, answers by id."""

    def __init__(self, command: list[str]) -> None:
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        self.answers: dict[int, dict] = {}
        self.arrived = threading.Condition()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
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
            if "id" in message and "method" not in message:
                with self.arrived:
                    self.answers[message["id"]] = message
                    self.arrived.notify_all()

    def send(self, message: dict) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))

    def request(self, method: str, params: dict | None, timeout: float = 300) -> dict:
        self.next_id += 1
        ident = self.next_id
        self.send({"id": ident, "method": method, "params": params})
        assert self.process.stdin is not None
        self.process.stdin.flush()
        with self.arrived:
            if not self.arrived.wait_for(lambda: ident in self.answers, timeout):
                raise TimeoutError(f"no answer to {method} in {timeout} s")
            return self.answers.pop(ident)

    def rss_mib(self) -> float:
        with open(f"/proc/{self.process.pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        raise RuntimeError("no VmRSS")

    def stop(self) -> None:
        try:
            self.request("shutdown", None, timeout=30)
            self.send({"method": "exit"})
            assert self.process.stdin is not None
            self.process.stdin.close()
            self.process.wait(30)
        finally:
            if self.process.poll() is None:
                self.process.kill()


def edit(server: Server, uri: str, version: int) -> None:
    """Types `#` at the start of line 9 (odd versions) or deletes it again (even)."""
    typing = version % 2 == 1
    end = 0 if typing else 1
    change = {
        "range": {"start": {"line": 8, "character": 0}, "end": {"line": 8, "character": end}},
        "text": "#" if typing else "",
    }
    server.send(
        {
            "method": "textDocument/didChange",
            "params": {"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]},
        }
    )


def settled_rss(server: Server, uri: str) -> float:
    """The RSS once every edit sent so far is applied (a request after them is answered)."""
    server.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
    return server.rss_mib()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--edits", type=int, default=40_000)
    parser.add_argument("--warmup", type=int, default=2_000)
    parser.add_argument("--every", type=int, default=10_000)
    script = Path(sys.executable).with_name("scenario-tui")
    default = f"{script if script.exists() else shutil.which('scenario-tui') or 'scenario-tui'} lsp"
    parser.add_argument("--command", default=default)
    args = parser.parse_args()

    folder = Path(os.environ.get("TMPDIR", "/tmp")) / f"lsp-memory-{os.getpid()}"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "pets.scenario"
    path.write_text(TEXT)
    uri = path.as_uri()

    server = Server(shlex.split(args.command))
    started = time.perf_counter()
    try:
        server.request("initialize", {"processId": os.getpid(), "capabilities": {}})
        server.send({"method": "initialized", "params": {}})
        server.send(
            {
                "method": "textDocument/didOpen",
                "params": {"textDocument": {"uri": uri, "languageId": "scenario", "version": 1, "text": TEXT}},
            }
        )
        print(f"opened:                {settled_rss(server, uri):8.1f} MiB")
        warm = None
        for done in range(1, args.edits + 1):
            edit(server, uri, done + 1)
            if done == args.warmup:
                warm = settled_rss(server, uri)
                print(f"after {done:>6,} edits:   {warm:8.1f} MiB  (warm-up)")
            elif done % args.every == 0 or done == args.edits:
                print(f"after {done:>6,} edits:   {settled_rss(server, uri):8.1f} MiB", flush=True)
        end = settled_rss(server, uri)
        elapsed = time.perf_counter() - started
        base = warm if warm is not None else end
        print(f"end / after warm-up:   {end / base:8.3f}  (target <= 1.1)   {args.edits:,} edits in {elapsed:.0f} s")
    finally:
        server.stop()
        path.unlink(missing_ok=True)
        folder.rmdir()
    return 0


if __name__ == "__main__":
    sys.exit(main())
