"""A small pet-store-like API for demos, tutorials and tests. Standard library only.

It is also the loopback target of the benchmarks and of the HTTP client's own tests, so it
speaks HTTP/1.1 keep-alive with a Content-Length on every response, avoids per-request overhead
(no reverse DNS, no Nagle delay), and has a few deliberately awkward endpoints: /slow, /trickle,
/text, /status/{code}, /echo.
"""

from __future__ import annotations

import errno
import json
import re
import secrets
import socket
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from socketserver import TCPServer
from urllib.parse import parse_qsl, urlsplit

__all__ = ["DemoServer", "ListenError", "serve_forever"]

MAX_BODY = 10 * 1024 * 1024
MAX_SLEEP_MS = 60_000
_NO_BODY_STATUSES = (204, 304)


class _HTTPError(Exception):
    def __init__(self, status: int, message: str, headers=(), close: bool = False):
        super().__init__(message)
        self.status, self.message, self.headers, self.close = status, message, list(headers), close


class _State:
    """Everything the API remembers. One lock is plenty: every critical section is tiny."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.clear()

    def clear(self) -> None:
        self.pets: dict[int, dict] = {}  # insertion order == id order, so listing needs no sort
        self.next_id = 1
        self.tokens: dict[str, str] = {}  # token -> user
        self.counter = 0


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128

    def __init__(self, address: tuple[str, int], verbose: bool = False):
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        self.verbose = verbose
        self.state = _State()
        self.stopping = threading.Event()  # wakes /slow and /trickle early on stop
        self.connections_accepted = 0
        self._live: set[socket.socket] = set()
        self._live_lock = threading.Lock()
        super().__init__(address, _Handler)

    def server_bind(self) -> None:
        # HTTPServer.server_bind calls socket.getfqdn(), a reverse DNS lookup that can take seconds.
        TCPServer.server_bind(self)
        self.server_name, self.server_port = self.server_address[:2]

    def process_request(self, request, client_address) -> None:
        with self._live_lock:
            self.connections_accepted += 1
            self._live.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request) -> None:
        with self._live_lock:
            self._live.discard(request)
        super().shutdown_request(request)

    def close_connections(self) -> None:
        """Hang up idle keep-alive connections so their handler threads end now, not at exit."""
        self.stopping.set()
        with self._live_lock:
            live = list(self._live)
        for sock in live:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def handle_error(self, request, client_address) -> None:
        # The default prints a traceback; a demo server must never do that.
        if self.verbose:
            print(f"demo server: {sys.exc_info()[1]!r}", file=sys.stderr)


# path regex -> {method: handler method name}; None accepts any method.
_ROUTES: list[tuple[re.Pattern, dict[str, str] | None]] = [
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
]
# The auth API (core/demo/auth.yaml), a second description over the same server.
_AUTH_ROUTES: list[tuple[re.Pattern, dict[str, str] | None]] = [
    (re.compile(r"/auth/login"), {"POST": "login"}),
    (re.compile(r"/auth/me"), {"GET": "who_am_i"}),
]


# What GET / answers (and docs/cli.md lists): every endpoint, as a reader would call it.
ENDPOINTS: list[tuple[str, str, str]] = [
    ("GET", "/", "this list"),
    ("GET", "/health", '{"status": "ok"}'),
    ("POST", "/login", 'body {"username", "password"} (any non-empty) -> {"token", "user"}'),
    ("GET", "/pets", "every pet; ?tag= filters, ?limit= caps"),
    ("POST", "/pets", 'body {"name", "tag"?}; needs Authorization: Bearer TOKEN -> 201 and the pet with its id'),
    ("GET", "/pets/{id}", "one pet, or 404"),
    ("PUT", "/pets/{id}", "replace a pet"),
    ("PATCH", "/pets/{id}", "change some fields of a pet"),
    ("DELETE", "/pets/{id}", "remove a pet -> 204"),
    ("GET", "/slow", "answers after ?ms= milliseconds (default 2000): for timeouts and stopping"),
    ("GET", "/trickle", "?chunks= bytes, one every ?ms=: only a total timeout stops it"),
    ("GET", "/text", "a text/plain body, not JSON"),
    ("GET", "/status/{code}", "answers with that status code (200-599)"),
    ("ANY", "/echo", "any method: the method, path, query, headers and body it received"),
    ("GET", "/counter", "a number that goes up by one per call"),
    ("POST", "/auth/login", "as /login (the auth API, core/demo/auth.yaml)"),
    ("GET", "/auth/me", 'needs Authorization: Bearer TOKEN -> {"user"}'),
]


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    server: _HTTPServer

    # ---- plumbing -------------------------------------------------------------------------

    def __getattr__(self, name: str):
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

    def log_message(self, format: str, *args) -> None:
        if self.server.verbose:
            super().log_message(format, *args)

    def _dispatch(self) -> None:
        try:
            self.body = self._read_body()
            url = urlsplit(self.path)
            self.url_path = url.path
            self.query = dict(parse_qsl(url.query, keep_blank_values=True))
            result = self._route()
        except _HTTPError as e:
            if e.close:
                self.close_connection = True
            result = (e.status, {"error": e.message}, e.headers)
        except Exception as e:  # a bug here must not kill the connection with a traceback
            if self.server.verbose:
                self.log_error("internal error: %r", e)
            result = (500, {"error": f"internal error: {type(e).__name__}"})
        if result is not None:  # None: the endpoint already wrote its own response
            self._send(*result)

    def _route(self):
        for pattern, methods in _ROUTES + _AUTH_ROUTES:
            match = pattern.fullmatch(self.url_path)
            if match is None:
                continue
            if methods is None:
                return self.echo()
            name = methods.get("GET" if self.command == "HEAD" else self.command)
            if name is None:
                allowed = ", ".join(methods)
                raise _HTTPError(405, f"method {self.command} not allowed on {self.url_path}", [("Allow", allowed)])
            return getattr(self, name)(*match.groups())
        raise _HTTPError(404, f"no such path: {self.url_path}")

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
            raise _HTTPError(400, "invalid Content-Length", close=True)
        if size > MAX_BODY:
            raise _HTTPError(413, "request body too large", close=True)
        return self.rfile.read(size)

    def _read_chunked(self) -> bytes:
        parts, total = [], 0
        while True:
            line = self.rfile.readline(1024)
            try:
                size = int(line.split(b";", 1)[0], 16)
            except ValueError:
                raise _HTTPError(400, "invalid chunked body", close=True) from None
            if size == 0:
                break
            total += size
            if total > MAX_BODY:
                raise _HTTPError(413, "request body too large", close=True)
            parts.append(self.rfile.read(size))
            self.rfile.readline()
        while self.rfile.readline(1024) not in (b"\r\n", b"\n", b""):
            pass  # trailers
        return b"".join(parts)

    def _send(self, status: int, payload=None, headers=()) -> None:
        if payload is None or status in _NO_BODY_STATUSES:
            body, content_type = b"", None
        elif isinstance(payload, bytes):
            body, content_type = payload, "text/plain; charset=utf-8"
        else:
            body, content_type = json.dumps(payload).encode(), "application/json"
        self.send_response(status)
        if content_type:
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

    # ---- request helpers ------------------------------------------------------------------

    def _json_body(self):
        try:
            return json.loads(self.body)
        except ValueError:
            raise _HTTPError(400, "invalid JSON body") from None

    def _int_query(self, name: str, default, low: int = 0, cap: int | None = None):
        raw = self.query.get(name)
        if raw is None:
            return default
        try:
            value = int(raw)
        except ValueError:
            raise _HTTPError(400, f"query parameter {name!r} must be an integer") from None
        if value < low:
            raise _HTTPError(400, f"query parameter {name!r} must be >= {low}")
        return value if cap is None else min(value, cap)

    def _require_auth(self) -> str:
        """The user the request's bearer token belongs to; 401 without a known token."""
        scheme, _, token = self.headers.get("Authorization", "").partition(" ")
        state = self.server.state
        with state.lock:
            user = state.tokens.get(token.strip()) if scheme.lower() == "bearer" else None
        if user is None:
            raise _HTTPError(
                401,
                "missing or invalid bearer token (POST /login first)",
                [("WWW-Authenticate", 'Bearer realm="demo"')],
            )
        return user

    def _pet_or_404(self, pet_id: str) -> dict:
        pet = self.server.state.pets.get(int(pet_id))  # caller holds the lock
        if pet is None:
            raise _HTTPError(404, f"pet {int(pet_id)} not found")
        return pet

    # ---- endpoints ------------------------------------------------------------------------

    def index(self):
        return 200, {
            "name": "scenario-tui demo API",
            "endpoints": [{"method": method, "path": path, "what": what} for method, path, what in ENDPOINTS],
        }

    def health(self):
        return 200, {"status": "ok"}

    def login(self):
        data = self._json_body()
        if not isinstance(data, dict):
            raise _HTTPError(400, "body must be a JSON object with username and password")
        user, password = data.get("username"), data.get("password")
        if not isinstance(user, str) or not user:
            raise _HTTPError(400, "username is required")
        if not isinstance(password, str) or not password:
            raise _HTTPError(400, "password is required")
        state = self.server.state
        with state.lock:
            token = secrets.token_urlsafe(24)
            while token in state.tokens:
                token = secrets.token_urlsafe(24)
            state.tokens[token] = user
        return 200, {"token": token, "user": user}

    def who_am_i(self):
        return 200, {"user": self._require_auth()}

    def list_pets(self):
        limit = self._int_query("limit", None)
        tag = self.query.get("tag")
        state = self.server.state
        with state.lock:
            pets = [dict(p) for p in state.pets.values() if tag is None or p["tag"] == tag]
        return 200, pets if limit is None else pets[:limit]

    def create_pet(self):
        self._require_auth()
        fields = _validate_pet(self._json_body(), partial=False)
        state = self.server.state
        with state.lock:
            pet = {"id": state.next_id, **fields}
            state.pets[pet["id"]] = pet
            state.next_id += 1
            pet = dict(pet)
        return 201, pet, [("Location", f"/pets/{pet['id']}")]

    def get_pet(self, pet_id):
        with self.server.state.lock:
            return 200, dict(self._pet_or_404(pet_id))

    def replace_pet(self, pet_id):
        return self._update_pet(pet_id, partial=False)

    def patch_pet(self, pet_id):
        return self._update_pet(pet_id, partial=True)

    def _update_pet(self, pet_id, partial: bool):
        self._require_auth()
        with self.server.state.lock:  # 404 before body errors: the resource is the bigger problem
            self._pet_or_404(pet_id)
        fields = _validate_pet(self._json_body(), partial=partial)
        with self.server.state.lock:
            pet = self._pet_or_404(pet_id)  # may have been deleted meanwhile
            pet.update(fields)
            return 200, dict(pet)

    def delete_pet(self, pet_id):
        self._require_auth()
        with self.server.state.lock:
            self._pet_or_404(pet_id)
            del self.server.state.pets[int(pet_id)]
        return 204, None

    def slow(self):
        ms = self._int_query("ms", 2000, cap=MAX_SLEEP_MS)
        self.server.stopping.wait(ms / 1000)
        return 200, {"slept_ms": ms}

    def trickle(self):
        """Each read arrives well within a per-read timeout; only a total timeout can stop it."""
        ms = self._int_query("ms", 300, cap=MAX_SLEEP_MS)
        chunks = self._int_query("chunks", 20, cap=100_000)
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(chunks))
        self.end_headers()
        if self.command == "HEAD":
            return None
        for _ in range(chunks):
            if self.server.stopping.wait(ms / 1000):
                self.close_connection = True  # the body is short now, so the connection is unusable
                break
            self.wfile.write(b"x")
        return None

    def text(self):
        return 200, b"hello, not json"

    def status(self, code):
        code = int(code)
        if not 200 <= code <= 599:  # a 1xx is not a final response and would wedge the client
            raise _HTTPError(400, "status code must be between 200 and 599")
        return code, {"status": code}

    def echo(self):
        headers: dict[str, str] = {}
        for name, value in self.headers.items():
            name = name.lower()
            headers[name] = f"{headers[name]}, {value}" if name in headers else value
        try:
            parsed = json.loads(self.body) if self.body else None
        except ValueError:
            parsed = None
        return 200, {
            "method": self.command,
            "path": self.url_path,
            "query": self.query,
            "headers": headers,
            "json": parsed,
            "body": self.body.decode("utf-8", "replace"),
        }

    def counter(self):
        state = self.server.state
        with state.lock:
            state.counter += 1
            return 200, {"value": state.counter}


def _validate_pet(data, partial: bool) -> dict:
    if not isinstance(data, dict):
        raise _HTTPError(422, "body must be a JSON object")
    fields = {}
    if not partial or "name" in data:
        name = data.get("name")
        if not isinstance(name, str) or not name.strip():
            raise _HTTPError(422, "name is required and must be a non-empty string")
        fields["name"] = name
    if not partial or "tag" in data:
        tag = data.get("tag")
        if tag is not None and not isinstance(tag, str):
            raise _HTTPError(422, "tag must be a string")
        fields["tag"] = tag
    if not partial or "age" in data:
        age = data.get("age")
        if age is not None and (not isinstance(age, int) or isinstance(age, bool)):
            raise _HTTPError(422, "age must be an integer")
        fields["age"] = age
    return fields


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
        return self._server.server_address[0]

    @property
    def port(self) -> int:
        return self._server.server_address[1]

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

    def __exit__(self, *exc_info) -> None:
        self.stop()


def serve_forever(host: str = "127.0.0.1", port: int = 8000, verbose: bool = False) -> None:
    """Run the demo API in the foreground until Ctrl-C (the `demo-server` command).

    Binding errors (port in use, unknown host...) raise ListenError for the caller to report.
    """
    server = _listen(host, port, verbose)
    try:
        print(f"demo API listening on {_url(*server.server_address[:2])}", flush=True)
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.close_connections()
        server.server_close()
