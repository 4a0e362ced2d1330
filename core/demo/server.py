"""A small pet-store-like API for demos, tutorials and tests: the server. Standard library only,
and of scenario_core only its sibling `api`.

It is also the loopback target of the benchmarks and of the HTTP client's own tests, so it
speaks HTTP/1.1 keep-alive with a Content-Length on every response, avoids per-request overhead
(no reverse DNS, no Nagle delay), and has a few deliberately awkward endpoints: /slow, /trickle,
/text, /status/{code}, /echo.

This module routes paths to the endpoints (`api`), reads requests and writes responses, and runs
the server: `DemoServer` on a background thread, `serve_forever` in the foreground.
"""

from __future__ import annotations

import errno
import json
import re
import socket
import sys
import threading
from socketserver import TCPServer
from typing import Callable, Iterable
from urllib.parse import parse_qsl, urlsplit

from scenario_core.demo.api import Answer, ApiServer, HTTPError
from scenario_core.demo.forms_api import FormEndpoints

__all__ = ["DemoServer", "ListenError", "serve_forever"]

MAX_BODY = 10 * 1024 * 1024
_NO_BODY_STATUSES = (204, 304)
# What socketserver hands a server per request: a TCP server's is the connected socket.
_Request = socket.socket | tuple[bytes, socket.socket]


def _bound(server: TCPServer) -> tuple[str, int]:
    """The host and port a server listens on (text for IP sockets, whatever typeshed allows)."""
    host, port = server.server_address[:2]
    return (host.decode() if isinstance(host, (bytes, bytearray)) else host), port


class _HTTPServer(ApiServer):
    daemon_threads = True
    request_queue_size = 128

    def __init__(self, address: tuple[str, int], verbose: bool = False):
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        self.connections_accepted = 0
        self._live: set[_Request] = set()
        self._live_lock = threading.Lock()
        super().__init__(address, _Handler, verbose)

    def server_bind(self) -> None:
        # HTTPServer.server_bind calls socket.getfqdn(), a reverse DNS lookup that can take seconds.
        TCPServer.server_bind(self)
        self.server_name, self.server_port = _bound(self)

    def process_request(self, request: _Request, client_address: object) -> None:
        with self._live_lock:
            self.connections_accepted += 1
            self._live.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: _Request) -> None:
        with self._live_lock:
            self._live.discard(request)
        super().shutdown_request(request)

    def close_connections(self) -> None:
        """Hang up idle keep-alive connections so their handler threads end now, not at exit."""
        self.stopping.set()
        with self._live_lock:
            live = list(self._live)
        for request in live:
            sock = request if isinstance(request, socket.socket) else request[1]
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def handle_error(self, request: _Request, client_address: object) -> None:
        # The default prints a traceback; a demo server must never do that.
        if self.verbose:
            print(f"demo server: {sys.exc_info()[1]!r}", file=sys.stderr)


# path regex -> {method: handler method name}; None accepts any method.
_ROUTES: list[tuple[re.Pattern[str], dict[str, str] | None]] = [
    (re.compile(r"/"), {"GET": "index"}),
    (re.compile(r"/health"), {"GET": "health"}),
    (re.compile(r"/login"), {"POST": "login"}),
    (re.compile(r"/pets"), {"GET": "list_pets", "POST": "create_pet"}),
    (
        re.compile(r"/pets/(\d+)"),
        {"GET": "get_pet", "PUT": "replace_pet", "PATCH": "patch_pet", "DELETE": "delete_pet"},
    ),
    (re.compile(r"/slow"), {"GET": "slow"}),
    (re.compile(r"/trickle"), {"GET": "trickle"}),
    (re.compile(r"/text"), {"GET": "text"}),
    (re.compile(r"/status/(\d{3})"), {"GET": "status"}),
    (re.compile(r"/echo"), None),
    (re.compile(r"/counter"), {"GET": "counter"}),
    (re.compile(r"/upload"), {"POST": "upload"}),  # forms_api.py, documented in petstore.yaml
]
# Bodies beyond JSON (forms_api.py): forms, OAuth 2 tokens, uploads, XML, an HTML page with a CSRF token.
_FORM_ROUTES: list[tuple[re.Pattern[str], dict[str, str] | None]] = [
    (re.compile(r"/form/login"), {"POST": "form_login"}),
    (re.compile(r"/oauth/token"), {"POST": "oauth_token"}),
    (re.compile(r"/pets\.xml"), {"GET": "pets_xml"}),
    (re.compile(r"/csrf"), {"GET": "csrf_page", "POST": "csrf_post"}),
]
# The auth API (core/demo/auth.yaml), a second description over the same server.
_AUTH_ROUTES: list[tuple[re.Pattern[str], dict[str, str] | None]] = [
    (re.compile(r"/auth/login"), {"POST": "login"}),
    (re.compile(r"/auth/me"), {"GET": "who_am_i"}),
]


class _Handler(FormEndpoints):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    server: _HTTPServer

    # ---- plumbing -------------------------------------------------------------------------

    def __getattr__(self, name: str) -> Callable[[], None]:
        # Send every method, even invented ones, through one dispatcher: /echo reflects
        # whatever a client sends, and everything else gets a JSON 405 rather than an HTML 501.
        if name.startswith("do_"):
            return self._dispatch
        raise AttributeError(name)

    def handle(self) -> None:
        try:
            super().handle()
        except OSError:  # client went away (BrokenPipe, ConnectionReset...) or stop() hung up
            self.close_connection = True

    def finish(self) -> None:
        try:
            super().finish()
        except OSError:
            pass

    def address_string(self) -> str:
        return self.client_address[0]  # the default does a reverse DNS lookup per log line

    def log_message(self, format: str, *args: object) -> None:
        if self.server.verbose:
            super().log_message(format, *args)

    def _dispatch(self) -> None:
        try:
            self.body = self._read_body()
            url = urlsplit(self.path)
            self.url_path = url.path
            self.query = dict(parse_qsl(url.query, keep_blank_values=True))
            result: Answer | None = self._route()
        except HTTPError as e:
            if e.close:
                self.close_connection = True
            result = (e.status, {"error": e.message}, e.headers)
        except Exception as e:  # a bug here must not kill the connection with a traceback
            if self.server.verbose:
                self.log_error("internal error: %r", e)
            result = (500, {"error": f"internal error: {type(e).__name__}"})
        if result is not None:  # None: the endpoint already wrote its own response
            self._send(*result)

    def _route(self) -> Answer | None:
        for pattern, methods in _ROUTES + _AUTH_ROUTES + _FORM_ROUTES:
            match = pattern.fullmatch(self.url_path)
            if match is None:
                continue
            if methods is None:
                return self.echo()
            name = methods.get("GET" if self.command == "HEAD" else self.command)
            if name is None:
                allowed = ", ".join(methods)
                raise HTTPError(405, f"method {self.command} not allowed on {self.url_path}", [("Allow", allowed)])
            endpoint: Callable[..., Answer | None] = getattr(self, name)  # takes the path's groups
            return endpoint(*match.groups())
        raise HTTPError(404, f"no such path: {self.url_path}")

    def _read_body(self) -> bytes:
        # Always consume the body, even when unused, or the next request on the connection
        # would start in the middle of it.
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            return self._read_chunked()
        length = self.headers.get("Content-Length")
        if length is None:
            return b""
        try:
            size = int(length)
        except ValueError:
            size = -1
        if size < 0:
            raise HTTPError(400, "invalid Content-Length", close=True)
        if size > MAX_BODY:
            raise HTTPError(413, "request body too large", close=True)
        return self.rfile.read(size)

    def _read_chunked(self) -> bytes:
        parts: list[bytes] = []
        total = 0
        while True:
            line = self.rfile.readline(1024)
            try:
                size = int(line.split(b";", 1)[0], 16)
            except ValueError:
                raise HTTPError(400, "invalid chunked body", close=True) from None
            if size == 0:
                break
            total += size
            if total > MAX_BODY:
                raise HTTPError(413, "request body too large", close=True)
            parts.append(self.rfile.read(size))
            self.rfile.readline()
        while self.rfile.readline(1024) not in (b"\r\n", b"\n", b""):
            pass  # trailers
        return b"".join(parts)

    def _send(self, status: int, payload: object = None, headers: Iterable[tuple[str, str]] = ()) -> None:
        """Write a response; payload as in api.Answer."""
        if payload is None or status in _NO_BODY_STATUSES:
            body, content_type = b"", None
        elif isinstance(payload, bytes):
            body, content_type = payload, "text/plain; charset=utf-8"
        else:
            body, content_type = json.dumps(payload).encode(), "application/json"
        self.send_response(status)
        if content_type and not any(name.lower() == "content-type" for name, _ in headers):
            self.send_header("Content-Type", content_type)
        if status not in _NO_BODY_STATUSES:
            self.send_header("Content-Length", str(len(body)))
        for name, value in headers:
            self.send_header(name, value)
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        if body and self.command != "HEAD":
            self.wfile.write(body)


class ListenError(OSError):
    """The demo API cannot listen where it was asked to; the message says what to do instead."""


def _listen(host: str, port: int, verbose: bool) -> _HTTPServer:
    """Bind, turning the socket module's errors (OverflowError for a port over 65535, gaierror for
    an unknown host, EADDRINUSE...) into one ListenError with a remedy."""
    if not isinstance(port, int) or not 0 <= port <= 65535:
        raise ListenError(f"port {str(port)[:20]} is out of range: give 0-65535 (0 picks a free port)")
    where = f"{host}:{port}"
    try:
        return _HTTPServer((host, port), verbose)
    except socket.gaierror as error:
        raise ListenError(
            f"cannot listen on {where}: unknown host {host!r} ({error.strerror}); "
            "give an address of this machine, e.g. 127.0.0.1"
        ) from None
    except (OverflowError, ValueError, UnicodeError) as error:
        raise ListenError(f"cannot listen on {where}: {error}") from None
    except OSError as error:
        if error.errno == errno.EADDRINUSE:
            remedy = "stop what listens there, or choose another port (0 picks a free one)"
        elif error.errno == errno.EACCES:
            remedy = "ports below 1024 need privileges: choose a port above 1023"
        elif error.errno == errno.EADDRNOTAVAIL:
            remedy = f"{host} is not an address of this machine: use 127.0.0.1 or one of its addresses"
        else:
            remedy = "choose another host or port"
        raise ListenError(f"cannot listen on {where}: {error.strerror or error}; {remedy}") from None


def _url(host: str, port: int) -> str:
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


class DemoServer:
    """The demo API on a background thread, for tests and embedding.

    Binds on construction (port 0 picks a free port), so `.port` and `.url` are known before
    `start()`. Not restartable: make a new instance instead.
    """

    def __init__(self, host: str = "127.0.0.1", port: int = 0, *, verbose: bool = False):
        self._server = _listen(host, port, verbose)
        self._thread: threading.Thread | None = None
        self._closed = False

    @property
    def host(self) -> str:
        return _bound(self._server)[0]

    @property
    def port(self) -> int:
        return _bound(self._server)[1]

    @property
    def url(self) -> str:
        return _url(self.host, self.port)

    @property
    def connections_accepted(self) -> int:
        """TCP connections accepted since start/reset: lets tests prove keep-alive reuse."""
        return self._server.connections_accepted

    def start(self) -> DemoServer:
        if self._thread is not None or self._closed:
            raise RuntimeError("DemoServer can only be started once")
        # A short poll interval keeps stop() fast: shutdown() waits for the loop to notice.
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.01,), name=f"demo-server:{self.port}", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._thread is not None:
            self._server.shutdown()
            self._thread.join()
        self._server.close_connections()
        self._server.server_close()

    def reset(self) -> None:
        """Forget pets, tokens, the counter and connection statistics."""
        state = self._server.state
        with state.lock:
            state.clear()
        with self._server._live_lock:
            self._server.connections_accepted = 0

    def __enter__(self) -> DemoServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


def serve_forever(host: str = "127.0.0.1", port: int = 8000, verbose: bool = False) -> None:
    """Run the demo API in the foreground until Ctrl-C (the `demo-server` command).

    Binding errors (port in use, unknown host...) raise ListenError for the caller to report.
    """
    server = _listen(host, port, verbose)
    try:
        print(f"demo API listening on {_url(*_bound(server))}", flush=True)
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.close_connections()
        server.server_close()
