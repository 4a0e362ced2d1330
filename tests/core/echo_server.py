"""A loopback HTTP server for the body-form and response-source tests: it records each request
(method, path, headers, body) and answers each path with the response a test gave it."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import NamedTuple


class Seen(NamedTuple):
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


class EchoServer:
    def __init__(self) -> None:
        self.seen: list[Seen] = []
        # path -> (status, headers, body)
        self.answers: dict[str, tuple[int, list[tuple[str, str]], bytes]] = {}
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def _any(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                server.seen.append(Seen(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                status, headers, data = server.answers.get(self.path.split("?")[0], (200, [], b""))
                self.send_response(status)
                for name, value in headers:
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PUT = _any

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"

    def answer(self, path: str, body: bytes | str, *headers: tuple[str, str], status: int = 200) -> None:
        self.answers[path] = (status, list(headers), body.encode() if isinstance(body, str) else body)

    def __enter__(self) -> EchoServer:
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
