"""Helpers for the transport tests.

- LoopbackServer: an asyncio server on an event loop of its own, in a background thread, so the
  client (blocking sockets) can wait in the test's thread.
- `opened`: a client, always closed.
- `run_events`: a whole file run (run_to_completion).
- `through`, `both_routes`: reach a server by our HTTP/1.1 transport, or through it as a proxy
  (then httpx sends: run.http.via_httpx).
- `self_signed_certificate`, `tls_server_context`: a LoopbackServer serving https."""

from __future__ import annotations

import asyncio
import shutil
import ssl
import subprocess
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import pytest

from scenario_core.run.http.client import HttpClient


def run_events(path: str) -> list[Any]:
    """Every event of running the file at `path`."""
    from scenario_core.run.executor import run_to_completion

    return run_to_completion([path])


def through(
    monkeypatch: pytest.MonkeyPatch, proxied: bool, server: LoopbackServer, host: str = "api.example.test"
) -> str:
    """The base URL to ask for `server` at: itself, or through it as the proxy (https and proxied
    requests go through httpx: run.http.via_httpx)."""
    if not proxied:
        return server.url
    monkeypatch.setenv("HTTP_PROXY", server.url)
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    return f"http://{host}"


both_routes = pytest.mark.parametrize("proxied", [False, True], ids=["plain", "httpx"])


@contextmanager
def opened() -> Iterator[HttpClient]:
    client = HttpClient()
    try:
        yield client
    finally:
        client.close()


class LoopbackServer:
    """A server on 127.0.0.1, run by `handle(reader, writer)` (one call per connection) on its own
    event loop in a background thread; `with` starts and stops it (handlers still running, an
    endless body say, are cancelled)."""

    tls: ssl.SSLContext | None = None  # set (before `with`) to serve https

    def __init__(self) -> None:
        self.connections = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        raise NotImplementedError

    async def _counted(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            await self.handle(reader, writer)
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.CancelledError):
            pass  # the client went away, or the server is shutting down
        finally:
            writer.close()

    def __enter__(self):
        # The loop is made and run in the thread: the test's own loop may be running in this one.
        started = threading.Event()
        self._thread = threading.Thread(target=self._serve, args=(started,), name="loopback-server", daemon=True)
        self._thread.start()
        if not started.wait(10) or self._loop is None:
            raise RuntimeError("the loopback server did not start")
        self.url = f"{'https' if self.tls else 'http'}://127.0.0.1:{self.port}"
        return self

    def _serve(self, started: threading.Event) -> None:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        try:
            self._server = loop.run_until_complete(asyncio.start_server(self._counted, "127.0.0.1", 0, ssl=self.tls))
            self.port = self._server.sockets[0].getsockname()[1]
            self._loop = loop
        finally:
            started.set()
        loop.run_forever()
        loop.close()

    def __exit__(self, *exc: object) -> None:
        loop, thread = self._loop, self._thread
        assert loop is not None and thread is not None
        asyncio.run_coroutine_threadsafe(self._shut(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)

    async def _shut(self) -> None:
        self._server.close()
        current = asyncio.current_task()
        handlers = [task for task in asyncio.all_tasks() if task is not current]
        for task in handlers:
            task.cancel()
        await asyncio.gather(*handlers, return_exceptions=True)


def self_signed_certificate(folder: Path) -> tuple[Path, Path]:
    """(certificate, key) for 127.0.0.1 and localhost, made by the openssl command (the test is
    skipped without it)."""
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("no openssl command to make a test certificate with")
    certificate, key = folder / "cert.pem", folder / "key.pem"
    made = subprocess.run(
        [openssl, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        + ["-keyout", str(key), "-out", str(certificate), "-days", "2", "-subj", "/CN=localhost"]
        + ["-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
        capture_output=True,
        timeout=60,
    )
    if made.returncode != 0:
        pytest.skip(f"openssl could not make a test certificate: {made.stderr.decode(errors='replace')[-200:]}")
    return certificate, key


def tls_server_context(certificate: Path, key: Path) -> ssl.SSLContext:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(certificate, key)
    return context
