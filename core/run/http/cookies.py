"""Cookies a server sets, sent back to it for the rest of the scenario (the client clears them
between scenarios). The rules are the standard library's http.cookiejar (domain, path, expiry),
fed through two small adapters; it is imported only once a response sets a cookie."""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from scenario_core.run.http.errors import InvalidHeader, RequestFailed
from scenario_core.run.http.request import OutgoingRequest, check_headers

if TYPE_CHECKING:
    from http.cookiejar import CookieJar


class _JarRequest:
    """The urllib.request.Request methods http.cookiejar calls."""

    def __init__(self, request: OutgoingRequest):
        self.request = request
        self.added: list[tuple[str, str]] = []
        self.unverifiable = False
        self.type = request.scheme

    def get_full_url(self) -> str:
        return self.request.url

    def get_host(self) -> str:
        return self.request.header("Host") or self.request.host

    def get_type(self) -> str:
        return self.request.scheme

    @property
    def origin_req_host(self) -> str:
        return self.request.host

    @property
    def host(self) -> str:
        return self.get_host()

    def is_unverifiable(self) -> bool:
        return False

    def has_header(self, name: str) -> bool:
        return self.request.header(name) is not None

    def get_header(self, name: str, default: str | None = None) -> str | None:
        value = self.request.header(name)
        return default if value is None else value

    def header_items(self) -> list[tuple[str, str]]:
        return list(self.request.headers)

    def add_unredirected_header(self, name: str, value: str) -> None:
        self.added.append((name, value))


class _JarHeaders:
    def __init__(self, headers: Sequence[tuple[str, str]]):
        self.headers = headers

    def get_all(self, name: str, default: list[str]) -> list[str]:
        lowered = name.lower()
        found = [v for k, v in self.headers if k.lower() == lowered]
        return found or default


class _JarResponse:
    def __init__(self, headers: Sequence[tuple[str, str]]):
        self._headers = _JarHeaders(headers)

    def info(self) -> _JarHeaders:
        return self._headers


class Cookies:
    """The run's cookies; empty and free until a response sets one."""

    def __init__(self) -> None:
        self._jar: CookieJar | None = None

    def __bool__(self) -> bool:
        return self._jar is not None and len(self._jar) > 0

    def clear(self) -> None:
        if self._jar is not None:
            self._jar.clear()

    def add_to(self, request: OutgoingRequest) -> None:
        """The Cookie header for what the jar holds for this URL (none when the request has one)."""
        if not self or request.header("Cookie") is not None:
            return
        assert self._jar is not None
        adapter = _JarRequest(request)
        self._jar.add_cookie_header(adapter)  # type: ignore[arg-type]  # duck-typed urllib Request
        try:  # a cookie a server set is sent back only if it can be sent as it is
            check_headers(adapter.added)
        except InvalidHeader as error:
            raise RequestFailed(str(error)) from None
        request.headers = request.headers + adapter.added

    def take_from(self, request: OutgoingRequest, headers: Sequence[tuple[str, str]]) -> None:
        """Keep what the response's Set-Cookie headers set."""
        if not any(k.lower() == "set-cookie" for k, _ in headers):
            return
        if self._jar is None:
            from http.cookiejar import CookieJar

            self._jar = CookieJar()
        self._jar.extract_cookies(_JarResponse(headers), _JarRequest(request))  # type: ignore[arg-type]
