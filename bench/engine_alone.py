"""Benchmark: the engine's own cost per request, without the kernel or a server.

    python bench/engine_alone.py [--rounds 15]

The chain of bench/peers_chain.py (POST, then N x (GET, status check, JSON extract used in the
next URL)), in this process, against a connection that answers each request at once from memory:
- the engine (`Execution.events()` over the parsed file, the plain-HTTP transport's framing and
  all; only the socket is replaced, at `SocketConnection.open`);
- the bare `http.client` + json + jsonpath-ng loop of peers_chain.py's script, its socket replaced
  the same way (`sendall` keeps the request, `makefile` reads the answer).
Per request = (N=1000 - N=300) / 700, both sides interleaved in each round; the median and the
best of ROUNDS. What is left is Python's work alone: the figure to profile and to cut, steadier
than a whole-process chain, where the kernel and the server's own time swing by more than the
difference being looked for. It counts for none of the speed targets (peers_chain.py's do).
"""

from __future__ import annotations

import argparse
import http.client
import io
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from jsonpath_ng.ext import parse

from scenario_core.language.parser import load_file
from scenario_core.parameters.resolution import RunOverrides
from scenario_core.run.executor import Execution
from scenario_core.run.http import connections
from scenario_core.run.options import RunOptions
from scenario_core.support.collector import apply_collector_policy

sys.path.insert(0, str(Path(__file__).parent))
from _peers import scenario_text  # noqa: E402 (bench/ is not a package)

BASE_URL = "http://127.0.0.1:9"  # never connected to


def answer(request: bytes) -> bytes:
    """What bench/_peers.py's server answers, made at once."""
    target = request.split(b" ", 2)[1]
    if target == b"/items":
        status, body = b"201 Created", b'{"id": %d}' % (1_000_000 + random.getrandbits(29))
    else:
        item = target.rsplit(b"/", 1)[1]
        body = b'{"id": %s, "name": "item %s", "next": %d}' % (item, item, 1_000_000 + random.getrandbits(29))
        status = b"200 OK"
    head = b"HTTP/1.1 %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % (status, len(body))
    return head + body


class InstantConnection(connections.SocketConnection):
    """A kept-alive connection whose server answers as soon as the request is written."""

    __slots__ = ("pending",)

    def __init__(self) -> None:
        self.sock = None  # type: ignore[assignment]  # (what a stop would shut down: none here)
        self.pending = b""
        self.used = False

    def usable(self) -> bool:
        return True

    def write(self, payload: bytes, deadline: float | None) -> None:
        self.pending = answer(payload)

    def read(self, deadline: float | None) -> bytes:
        data, self.pending = self.pending, b""
        return data

    def close(self) -> None:
        pass


class InstantSocket:
    """Enough of a socket for http.client: what it sends is answered at once."""

    def __init__(self) -> None:
        self.answers: list[bytes] = []

    def sendall(self, data: bytes) -> None:
        if b" HTTP/1.1\r\n" in data.split(b"\n", 1)[0] + b"\n":  # a request's head (a body comes apart)
            self.answers.append(answer(data))

    def makefile(self, mode: str) -> io.BytesIO:
        return io.BytesIO(self.answers.pop(0))

    def close(self) -> None:
        pass


def http_client_chain(n: int) -> None:
    """peers_chain.py's script, on an InstantSocket."""
    connection = http.client.HTTPConnection("127.0.0.1", 9, timeout=30)
    connection.sock = InstantSocket()  # type: ignore[assignment]
    id_path, next_path = parse("$.id"), parse("$.next")
    connection.request("POST", "/items", body=b'{"name": "bench"}', headers={"Content-Type": "application/json"})
    response = connection.getresponse()
    assert response.status == 201
    item = id_path.find(json.loads(response.read()))[0].value
    for _ in range(n):
        connection.request("GET", f"/items/{item}")
        response = connection.getresponse()
        assert response.status == 200
        item = next_path.find(json.loads(response.read()))[0].value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    apply_collector_policy()  # as the console script runs
    connections.SocketConnection.open = classmethod(lambda cls, *_: InstantConnection())  # type: ignore[method-assign,assignment]
    options = RunOptions(overrides=RunOverrides.from_cli(base_url=BASE_URL))
    with tempfile.TemporaryDirectory() as tmp:
        files = {}
        for n in (300, 1000):
            path = Path(tmp) / f"chain_{n}.scenario"
            path.write_text(scenario_text(n), encoding="utf-8")
            files[n] = load_file(str(path))

        def engine(n: int) -> None:
            for event in Execution([files[n]], options).events():
                if type(event).__name__ == "ScenarioFinished":
                    assert event.status == "passed", event.message

        runners = {"engine (Execution.events)": engine, "http.client + json + jsonpath-ng": http_client_chain}
        slopes: dict[str, list[float]] = {name: [] for name in runners}
        for round_ in range(args.rounds + 1):
            for name, run in runners.items() if round_ % 2 else reversed(runners.items()):
                took = {}
                for n in (300, 1000):
                    started = time.perf_counter()
                    run(n)
                    took[n] = time.perf_counter() - started
                if round_:  # the first round warms both
                    slopes[name].append((took[1000] - took[300]) / 700 * 1e6)
    print(f"per request, in one process, no kernel or server ({args.rounds} rounds, interleaved)")
    for name, values in slopes.items():
        print(f"  {name:34} median {statistics.median(values):6.1f} us   best {min(values):6.1f} us")
    engine_, script = (statistics.median(v) for v in slopes.values())
    print(f"engine / http.client loop: {engine_ / script:.2f} x (medians)")


if __name__ == "__main__":
    main()
