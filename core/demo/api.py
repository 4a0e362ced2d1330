"""What the demo API answers: its endpoints, what it remembers between requests, and the
request helpers they share (JSON bodies, integer query parameters, bearer tokens). Standard
library only, and nothing from the rest of scenario_core.

`server` binds the paths to these endpoints, reads and writes HTTP, and runs the server.
"""

from __future__ import annotations

import json
import secrets
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Iterable, TypeVar

_D = TypeVar("_D")

# A pet as the API stores and answers it: {"id": int, "name": str, "tag": str | None, "age": int | None}.
Pet = dict[str, Any]
# An endpoint's answer: (status, payload) or (status, payload, extra headers). The payload is any
# JSON value (json.dumps sends it), bytes (sent as text/plain unless a header says otherwise), or
# None for no body.
Headers = list[tuple[str, str]]
Answer = tuple[int, object] | tuple[int, object, Headers]

MAX_SLEEP_MS = 60_000


class HTTPError(Exception):
    """An error answer: its status, a message (sent as {"error": message}), extra headers, and
    whether the connection must close (its request body was not read)."""

    def __init__(self, status: int, message: str, headers: Iterable[tuple[str, str]] = (), close: bool = False):
        super().__init__(message)
        self.status, self.message, self.headers, self.close = status, message, list(headers), close


class State:
    """Everything the API remembers. One lock is plenty: every critical section is tiny."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.clear()

    def clear(self) -> None:
        self.pets: dict[int, Pet] = {}  # insertion order == id order, so listing needs no sort
        self.next_id = 1
        self.tokens: dict[str, str] = {}  # token -> user
        self.counter = 0
        self.csrf: dict[str, str] = {}  # session cookie -> the CSRF token its page gave (forms_api)


class ApiServer(ThreadingHTTPServer):
    """An HTTP server of the demo API: what every request's handler shares."""

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler], verbose: bool = False):
        self.verbose = verbose
        self.state = State()
        self.stopping = threading.Event()  # wakes /slow and /trickle early on stop
        super().__init__(address, handler)


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


class Endpoints(BaseHTTPRequestHandler):
    """The endpoints, as methods of the request's handler (`server._Handler` adds the HTTP
    plumbing and routes to them); `body`, `url_path` and `query` are the request's, set before.
    An endpoint returns (status, payload[, headers]) — payload JSON, bytes (text) or None — or
    None when it wrote its own response."""

    server: ApiServer
    body: bytes
    url_path: str
    query: dict[str, str]

    # ---- request helpers ------------------------------------------------------------------

    def _json_body(self) -> object:
        """The request body as JSON: any JSON value, for the endpoint to check."""
        try:
            return json.loads(self.body)
        except ValueError:
            raise HTTPError(400, "invalid JSON body") from None

    def _int_query(self, name: str, default: _D, low: int = 0, cap: int | None = None) -> int | _D:
        raw = self.query.get(name)
        if raw is None:
            return default
        try:
            value = int(raw)
        except ValueError:
            raise HTTPError(400, f"query parameter {name!r} must be an integer") from None
        if value < low:
            raise HTTPError(400, f"query parameter {name!r} must be >= {low}")
        return value if cap is None else min(value, cap)

    def _require_auth(self) -> str:
        """The user the request's bearer token belongs to; 401 without a known token."""
        scheme, _, token = self.headers.get("Authorization", "").partition(" ")
        state = self.server.state
        with state.lock:
            user = state.tokens.get(token.strip()) if scheme.lower() == "bearer" else None
        if user is None:
            raise HTTPError(
                401,
                "missing or invalid bearer token (POST /login first)",
                [("WWW-Authenticate", 'Bearer realm="demo"')],
            )
        return user

    def _pet_or_404(self, pet_id: str) -> Pet:
        pet = self.server.state.pets.get(int(pet_id))  # caller holds the lock
        if pet is None:
            raise HTTPError(404, f"pet {int(pet_id)} not found")
        return pet

    # ---- endpoints ------------------------------------------------------------------------

    def index(self) -> Answer:
        return 200, {
            "name": "scenario-tui demo API",
            "endpoints": [{"method": method, "path": path, "what": what} for method, path, what in ENDPOINTS],
        }

    def health(self) -> Answer:
        return 200, {"status": "ok"}

    def login(self) -> Answer:
        data = self._json_body()
        if not isinstance(data, dict):
            raise HTTPError(400, "body must be a JSON object with username and password")
        user, password = data.get("username"), data.get("password")
        if not isinstance(user, str) or not user:
            raise HTTPError(400, "username is required")
        if not isinstance(password, str) or not password:
            raise HTTPError(400, "password is required")
        state = self.server.state
        with state.lock:
            token = secrets.token_urlsafe(24)
            while token in state.tokens:
                token = secrets.token_urlsafe(24)
            state.tokens[token] = user
        return 200, {"token": token, "user": user}

    def who_am_i(self) -> Answer:
        return 200, {"user": self._require_auth()}

    def list_pets(self) -> Answer:
        limit = self._int_query("limit", None)
        tag = self.query.get("tag")
        state = self.server.state
        with state.lock:
            pets = [dict(p) for p in state.pets.values() if tag is None or p["tag"] == tag]
        return 200, pets if limit is None else pets[:limit]

    def create_pet(self) -> Answer:
        self._require_auth()
        fields = _validate_pet(self._json_body(), partial=False)
        state = self.server.state
        with state.lock:
            pet = {"id": state.next_id, **fields}
            state.pets[pet["id"]] = pet
            state.next_id += 1
            pet = dict(pet)
        return 201, pet, [("Location", f"/pets/{pet['id']}")]

    def get_pet(self, pet_id: str) -> Answer:
        with self.server.state.lock:
            return 200, dict(self._pet_or_404(pet_id))

    def replace_pet(self, pet_id: str) -> Answer:
        return self._update_pet(pet_id, partial=False)

    def patch_pet(self, pet_id: str) -> Answer:
        return self._update_pet(pet_id, partial=True)

    def _update_pet(self, pet_id: str, partial: bool) -> Answer:
        self._require_auth()
        with self.server.state.lock:  # 404 before body errors: the resource is the bigger problem
            self._pet_or_404(pet_id)
        fields = _validate_pet(self._json_body(), partial=partial)
        with self.server.state.lock:
            pet = self._pet_or_404(pet_id)  # may have been deleted meanwhile
            pet.update(fields)
            return 200, dict(pet)

    def delete_pet(self, pet_id: str) -> Answer:
        self._require_auth()
        with self.server.state.lock:
            self._pet_or_404(pet_id)
            del self.server.state.pets[int(pet_id)]
        return 204, None

    def slow(self) -> Answer:
        ms = self._int_query("ms", 2000, cap=MAX_SLEEP_MS)
        self.server.stopping.wait(ms / 1000)
        return 200, {"slept_ms": ms}

    def trickle(self) -> None:
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

    def text(self) -> Answer:
        return 200, b"hello, not json"

    def status(self, code: str) -> Answer:
        status = int(code)
        if not 200 <= status <= 599:  # a 1xx is not a final response and would wedge the client
            raise HTTPError(400, "status code must be between 200 and 599")
        return status, {"status": status}

    def echo(self) -> Answer:
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

    def counter(self) -> Answer:
        state = self.server.state
        with state.lock:
            state.counter += 1
            return 200, {"value": state.counter}


def _validate_pet(data: object, partial: bool) -> dict[str, Any]:
    """The pet fields of a JSON body (any JSON value: checked here), or 422."""
    if not isinstance(data, dict):
        raise HTTPError(422, "body must be a JSON object")
    fields: dict[str, Any] = {}
    if not partial or "name" in data:
        name = data.get("name")
        if not isinstance(name, str) or not name.strip():
            raise HTTPError(422, "name is required and must be a non-empty string")
        fields["name"] = name
    if not partial or "tag" in data:
        tag = data.get("tag")
        if tag is not None and not isinstance(tag, str):
            raise HTTPError(422, "tag must be a string")
        fields["tag"] = tag
    if not partial or "age" in data:
        age = data.get("age")
        if age is not None and (not isinstance(age, int) or isinstance(age, bool)):
            raise HTTPError(422, "age must be an integer")
        fields["age"] = age
    return fields
