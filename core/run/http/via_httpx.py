"""https:// and proxied requests, sent through httpx (TLS, certificate checks, proxies from the
environment are where it earns its place); plain http:// goes through run.http.pool without it.
Imported only when such a request is first sent: with click installed, `import httpx` loads rich.

The response is given the shape of pool.PlainResponse (status, reason, text headers, `chunks`,
`aclose`), so the client reads both alike. A blocking client (run.blocking) sends through
httpx.Client instead: its coroutines never suspend; each wait is bounded by what is left of the
request's deadline, and the deadline is checked between the body's pieces."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any, AsyncIterator, Iterator

from scenario_core.run.http.connections import time_left
from scenario_core.run.http.request import OutgoingRequest

if TYPE_CHECKING:
    import httpx

_PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy")


def proxies_configured() -> bool:
    """Whether the environment names a proxy: then httpx sends (it also reads NO_PROXY)."""
    return any(os.environ.get(name) or os.environ.get(name.upper()) for name in _PROXY_VARIABLES)


def _no_sniffio() -> None:
    """httpcore tries `import sniffio` on every lock use; absent, each failed import searches
    sys.path again (~100 µs a request). Record the absence once, as the import system would."""
    import importlib.util

    if "sniffio" not in sys.modules and importlib.util.find_spec("sniffio") is None:
        # None is the import system's "cannot be imported" mark; typeshed types the values as modules only.
        sys.modules["sniffio"] = None  # type: ignore[assignment]


class HttpxSender:
    """One httpx client (AsyncClient, or Client when `blocking`), made on first use; cookies are
    the client's business (its own jar is never sent from: requests arrive with their Cookie header)."""

    def __init__(self, blocking: bool = False) -> None:
        import httpx

        _no_sniffio()
        self.blocking = blocking
        self.client: Any = (httpx.Client if blocking else httpx.AsyncClient)(timeout=None, follow_redirects=False)

    async def send(self, request: OutgoingRequest, deadline: float | None = None) -> HttpxResponse:
        import httpx

        built = httpx.Request(request.method, request.url, headers=request.headers, content=request.content or None)
        if not self.blocking:
            return HttpxResponse(await self.client.send(built, stream=True), None)
        built.extensions["timeout"] = httpx.Timeout(time_left(deadline)).as_dict()
        return HttpxResponse(self.client.send(built, stream=True), deadline)

    async def aclose(self) -> None:
        if self.blocking:
            self.client.close()
        else:
            await self.client.aclose()


class HttpxResponse:
    __slots__ = ("response", "status", "reason", "headers", "deadline")

    def __init__(self, response: httpx.Response, deadline: float | None):
        self.response = response
        self.status = response.status_code
        self.reason = response.reason_phrase
        encoding = response.headers.encoding
        self.headers = tuple((k.decode(encoding), v.decode(encoding)) for k, v in response.headers.raw)
        self.deadline = deadline  # set for a blocking client's response only

    def chunks(self) -> AsyncIterator[bytes]:
        if self.deadline is None:
            return self.response.aiter_raw()
        return _each_in_time(self.response.iter_raw(), self.deadline)

    async def aclose(self) -> None:
        if self.deadline is None:
            await self.response.aclose()
        else:
            self.response.close()


async def _each_in_time(pieces: Iterator[bytes], deadline: float) -> AsyncIterator[bytes]:
    """The body's pieces, TimeoutError once the deadline has passed between two of them."""
    for piece in pieces:
        time_left(deadline)
        yield piece
