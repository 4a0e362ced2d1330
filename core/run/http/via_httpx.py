"""https:// and proxied requests, sent through httpx (TLS, certificate checks, proxies from the
environment are where it earns its place); plain http:// goes through run.http.pool without it.
Imported only when such a request is first sent: with click installed, `import httpx` loads rich.

The response is given the shape of pool.PlainResponse (status, reason, text headers, `chunks`,
`aclose`), so the client reads both alike."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, AsyncIterator

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
    """One httpx.AsyncClient, made on first use; cookies are the client's business (its own jar
    is never sent from: requests arrive with their Cookie header)."""

    def __init__(self) -> None:
        import httpx

        _no_sniffio()
        self.client = httpx.AsyncClient(timeout=None, follow_redirects=False)

    async def send(self, request: OutgoingRequest) -> HttpxResponse:
        import httpx

        built = httpx.Request(request.method, request.url, headers=request.headers, content=request.content or None)
        return HttpxResponse(await self.client.send(built, stream=True))

    async def aclose(self) -> None:
        await self.client.aclose()


class HttpxResponse:
    __slots__ = ("response", "status", "reason", "headers")

    def __init__(self, response: httpx.Response):
        self.response = response
        self.status = response.status_code
        self.reason = response.reason_phrase
        encoding = response.headers.encoding
        self.headers = tuple((k.decode(encoding), v.decode(encoding)) for k, v in response.headers.raw)

    def chunks(self) -> AsyncIterator[bytes]:
        return self.response.aiter_raw()

    async def aclose(self) -> None:
        await self.response.aclose()
