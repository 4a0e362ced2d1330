"""The demo API's endpoints beyond JSON (docs/spec/requests.md#body-forms): a form login, an
OAuth 2 client-credentials token endpoint, a multipart upload, an XML list of pets, and an HTML
page with a CSRF token whose form post checks it and the session cookie the page set. Standard
library only, and nothing from the rest of scenario_core."""

from __future__ import annotations

import email.parser
import email.policy
import secrets
from html import escape
from urllib.parse import parse_qsl
from xml.sax.saxutils import escape as xml_escape

from scenario_core.demo.api import ENDPOINTS, Answer, Endpoints, HTTPError

FORM_TYPE = "application/x-www-form-urlencoded"
# What GET / lists for these endpoints, after api.ENDPOINTS.
FORM_ENDPOINTS: list[tuple[str, str, str]] = [
    ("POST", "/form/login", "form username=&password= (any non-empty) -> {token, user} and a session cookie"),
    (
        "POST",
        "/oauth/token",
        "OAuth 2 client credentials: form grant_type=client_credentials, client_id, client_secret",
    ),
    ("POST", "/upload", "multipart/form-data -> each part's name, filename, type and size"),
    ("GET", "/pets.xml", "every pet as XML"),
    ("GET", "/csrf", "an HTML page: a form with a CSRF token, and a session cookie"),
    ("POST", "/csrf", "form csrf=&name=: needs the page's token and its session cookie"),
]


class FormEndpoints(Endpoints):
    def index(self) -> Answer:
        endpoints = ENDPOINTS + FORM_ENDPOINTS
        return 200, {
            "name": "scenario-tui demo API",
            "endpoints": [{"method": method, "path": path, "what": what} for method, path, what in endpoints],
        }

    def _form(self) -> dict[str, list[str]]:
        media = self.headers.get("Content-Type", "").split(";")[0].strip().lower()
        if media != FORM_TYPE:
            raise HTTPError(415, f"send the body as {FORM_TYPE} (got {media or 'no Content-Type'})")
        fields: dict[str, list[str]] = {}
        try:
            pairs = parse_qsl(self.body.decode("utf-8"), keep_blank_values=True, strict_parsing=bool(self.body))
        except (UnicodeDecodeError, ValueError):
            raise HTTPError(400, "invalid urlencoded body") from None
        for name, value in pairs:
            fields.setdefault(name, []).append(value)
        return fields

    def _token_for(self, user: str) -> str:
        state = self.server.state
        with state.lock:
            token = secrets.token_urlsafe(24)
            state.tokens[token] = user
        return token

    def form_login(self) -> Answer:
        fields = self._form()
        user, password = fields.get("username", [""])[0], fields.get("password", [""])[0]
        if not user or not password:
            raise HTTPError(400, "username and password are required")
        token = self._token_for(user)
        return 200, {"token": token, "user": user}, [("Set-Cookie", f"session={token}; Path=/; HttpOnly")]

    def oauth_token(self) -> Answer:
        fields = self._form()
        grant = fields.get("grant_type", [""])[0]
        if grant != "client_credentials":
            return 400, {"error": "unsupported_grant_type"}
        client, secret = fields.get("client_id", [""])[0], fields.get("client_secret", [""])[0]
        if not client or not secret:
            return 401, {"error": "invalid_client"}, [("WWW-Authenticate", 'Basic realm="demo"')]
        token = self._token_for(client)
        return 200, {"access_token": token, "token_type": "Bearer", "expires_in": 3600}, [("Cache-Control", "no-store")]

    def upload(self) -> Answer:
        content_type = self.headers.get("Content-Type", "")
        if not content_type.lower().startswith("multipart/form-data"):
            raise HTTPError(415, "send the body as multipart/form-data")
        message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
            f"Content-Type: {content_type}\r\n\r\n".encode("latin-1") + self.body
        )
        if not message.is_multipart():
            raise HTTPError(400, "invalid multipart body")
        parts = []
        for part in message.iter_parts():
            data = part.get_payload(decode=True) or b""
            parts.append(
                {
                    "name": part.get_param("name", header="content-disposition"),
                    "filename": part.get_filename(),
                    "type": part.get_content_type() if part.get("Content-Type") else None,
                    "size": len(data),
                }
            )
        return 200, {"parts": parts}

    def pets_xml(self) -> Answer:
        with self.server.state.lock:
            pets = [dict(p) for p in self.server.state.pets.values()]
        rows = "".join(
            f'<pet id="{p["id"]}"><name>{xml_escape(p["name"])}</name>'
            + (f"<tag>{xml_escape(p['tag'])}</tag>" if p.get("tag") else "")
            + "</pet>"
            for p in pets
        )
        body = f'<?xml version="1.0" encoding="UTF-8"?>\n<pets count="{len(pets)}">{rows}</pets>\n'
        return 200, body.encode("utf-8"), [("Content-Type", "application/xml; charset=utf-8")]

    def csrf_page(self) -> Answer:
        token, session = secrets.token_urlsafe(16), secrets.token_urlsafe(16)
        state = self.server.state
        with state.lock:
            state.csrf[session] = token
        page = (
            "<!DOCTYPE html><html><head><title>New pet</title></head><body>"
            '<form method="post" action="/csrf">'
            f'<input type="hidden" name="csrf" value="{escape(token)}">'
            '<input name="name"><button>Add</button></form></body></html>'
        )
        cookie = f"demo_session={session}; Path=/; HttpOnly; SameSite=Strict"
        return 200, page.encode("utf-8"), [("Content-Type", "text/html; charset=utf-8"), ("Set-Cookie", cookie)]

    def csrf_post(self) -> Answer:
        fields = self._form()
        cookies = dict(c.strip().partition("=")[::2] for c in self.headers.get("Cookie", "").split(";") if "=" in c)
        state = self.server.state
        with state.lock:
            expected = state.csrf.get(cookies.get("demo_session", ""))
        if expected is None:
            return 403, {"error": "no session: GET /csrf first (it sets the demo_session cookie)"}
        if fields.get("csrf", [""])[0] != expected:
            return 403, {"error": "invalid CSRF token"}
        return 200, {"accepted": fields.get("name", [""])[0]}
