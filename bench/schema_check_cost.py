"""Benchmark: the cost of one response-schema check (library30.yaml's createBook, a compiled
validator reused), against a GET /health round trip to the demo API on loopback; prints both
and their ratio. Medians of a few rounds.

    python bench/schema_check_cost.py [--checks 2000] [--rounds 5]

Measured 0.04 ms per check against 0.46 ms per round trip (ratio 0.09): checking a response is a
small part of a request's cost.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import httpx

from scenario_core.demo.server import DemoServer
from scenario_core.openapi.loader import DescriptionCache
from scenario_core.openapi.schema_check import check_response

FIXTURE = Path(__file__).resolve().parent.parent / "tests" / "core" / "openapi_fixtures" / "library30.yaml"
BOOK = {"id": 1, "title": "Dune", "author": {"name": "Frank"}}


def per_check(checks: int) -> float:
    op = next(o for o in DescriptionCache().load(FIXTURE).operations if o.id == "createBook")
    body = json.dumps(BOOK).encode()
    assert check_response(op, 201, "application/json", body).ok  # compiles the validator
    started = time.perf_counter()
    for _ in range(checks):
        check_response(op, 201, "application/json", body)
    return (time.perf_counter() - started) / checks


def per_round_trip(requests: int) -> float:
    with DemoServer() as server, httpx.Client() as client:
        client.get(server.url + "/health")
        started = time.perf_counter()
        for _ in range(requests):
            client.get(server.url + "/health")
        return (time.perf_counter() - started) / requests


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checks", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    check = statistics.median(per_check(args.checks) for _ in range(args.rounds))
    trip = statistics.median(per_round_trip(args.checks // 10) for _ in range(args.rounds))
    print(f"schema check: {check * 1000:.3f} ms; GET /health round trip: {trip * 1000:.3f} ms")
    print(f"ratio check / round trip: {check / trip:.2f}")


if __name__ == "__main__":
    main()
