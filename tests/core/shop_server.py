"""A loopback shop API for replaying the imported HAR fixtures (tests/fixtures/har/shop-*.har).

It hands out values unlike the recording's (tokens, session and CSRF cookies, pet, order and
upload ids), and refuses a request that does not carry the live ones: a replay passes only when
the import extracted each value from the response that produced it and sent it where the
recording reused it. `seen` lists (method, path, status) in the order they came."""

from __future__ import annotations

import json
import secrets
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlsplit


class ShopServer:
    def __init__(self, password: str = "pw-live", consent: str = "yes") -> None:
        self.password, self.consent = password, consent
        self.seen: list[tuple[str, str, int]] = []
        self.tokens: set[str] = set()
        self.sessions: set[str] = set()
        self.csrf: set[str] = set()
        self.pets: dict[int, dict] = {}
        self.orders: dict[str, dict] = {}
        self.uploads: set[str] = set()
        self._next_pet = 9000 + secrets.randbelow(900)
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def _any(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                status, headers, data = server.answer(self.command, self.path, self.headers, body)
                server.seen.append((self.command, self.path, status))
                self.send_response(status)
                for name, value in headers:
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PUT = do_DELETE = _any

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> ShopServer:
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    # -- the API -------------------------------------------------------------------------------
    def answer(self, method: str, target: str, headers, body: bytes) -> tuple[int, list, bytes]:
        path = urlsplit(target).path
        cookies = dict(pair.strip().split("=", 1) for pair in (headers.get("Cookie") or "").split(";") if "=" in pair)
        bearer = (headers.get("Authorization") or "").removeprefix("Bearer ")
        if (method, path) == ("POST", "/login"):
            sent = json.loads(body or b"{}")
            if sent.get("password") != self.password:
                return 401, [], b'{"error": "wrong password"}'
            token, session = "tok-LIVE-" + secrets.token_hex(8), "sess-LIVE-" + secrets.token_hex(6)
            self.tokens.add(token)
            self.sessions.add(session)
            return _json(
                200, {"token": token, "user": sent.get("username")}, ("Set-Cookie", f"session={session}; Path=/")
            )
        if cookies.get("session") not in self.sessions:
            return 401, [], b'{"error": "no session"}'
        if (method, path) == ("GET", "/csrf"):
            csrf = "csrf-LIVE-" + secrets.token_hex(6)
            self.csrf.add(csrf)
            return _json(200, {"ok": True}, ("Set-Cookie", f"csrftoken={csrf}; Path=/"))
        if bearer not in self.tokens:
            return 401, [], b'{"error": "bad token"}'
        if method in ("POST", "DELETE") and path != "/uploads" and path != "/pets":
            if headers.get("X-CSRF-Token") not in self.csrf:
                return 403, [], b'{"error": "csrf"}'
        parts = path.strip("/").split("/")
        if (method, path) == ("POST", "/pets"):
            if cookies.get("consent") != self.consent:
                return 451, [], b'{"error": "no consent"}'
            pet = {"id": self._next_pet, **json.loads(body)}
            self.pets[self._next_pet] = pet
            self._next_pet += 1
            return _json(201, pet, ("Location", f"/pets/{pet['id']}"))
        if parts[0] == "pets" and len(parts) == 2:
            pet_id = int(parts[1]) if parts[1].isdigit() else -1
            if pet_id not in self.pets:
                return 404, [], b'{"error": "no such pet"}'
            if method == "DELETE":
                del self.pets[pet_id]
                return 204, [], b""
            return _json(200, self.pets[pet_id])
        if (method, path) == ("POST", "/orders"):
            sent = json.loads(body)
            if not isinstance(sent.get("petId"), int) or sent["petId"] not in self.pets:
                return 422, [], b'{"error": "petId must be the id (a number) of a pet"}'
            order = {"id": "ord-LIVE-" + secrets.token_hex(4), "petId": sent["petId"], "status": "placed"}
            self.orders[order["id"]] = order
            return _json(201, {"order": order}, ("Location", f"{self.url}/orders/{order['id']}"))
        if parts[0] == "orders" and len(parts) == 2 and method == "GET":
            return _json(200, {"order": self.orders[parts[1]]}) if parts[1] in self.orders else (404, [], b"{}")
        if (method, path) == ("POST", "/uploads"):
            form = dict(parse_qsl(body.decode()))
            if not form.get("pet", "").isdigit() or int(form["pet"]) not in self.pets:
                return 422, [], b'{"error": "pet"}'
            upload = "up-LIVE-" + secrets.token_hex(4)
            self.uploads.add(upload)
            return 202, [("Location", f"/uploads/{upload}")], b""
        if parts[0] == "uploads" and len(parts) == 3 and parts[1] in self.uploads:
            return _json(200, {"state": "done"})
        return 404, [], b'{"error": "not found"}'


def _json(status: int, value: object, *headers: tuple[str, str]) -> tuple[int, list, bytes]:
    return status, [("Content-Type", "application/json"), *headers], json.dumps(value).encode()
