"""Helpers of bench/peers_chain.py: the loopback server, the workload as each runner writes it,
whole-process timing with peak memory, and the profile summary by module group.

    python bench/_peers.py serve     the server alone: prints its port, then answers `stats` lines on stdin

The server is bare blocking sockets, a thread per connection, in its own process (the benchmark's own process stays idle
while a runner is timed, and an in-process measurement never shares a GIL with it). It counts what
it receives, and hands out unpredictable ids, so a runner that did not use the extracted value in
the next URL shows up as unchained requests:

    POST /items          201 {"id": A}                         A random
    GET  /items/{k}      200 {"id": k, "name": "item k", "next": B}   B random; the next GET asks for B
"""

from __future__ import annotations

import json
import os
import random
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

# ---------------------------------------------------------------- the server

_REASONS = {200: b"OK", 201: b"Created", 400: b"Bad Request", 404: b"Not Found"}


class _Counts:
    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.posts = self.gets = self.chained = self.other = self.connections = 0
        self.issued: set[int] = set()  # ids handed out and not yet asked for
        self.cpu = time.process_time()

    def snapshot(self) -> dict:
        return {
            "posts": self.posts,
            "gets": self.gets,
            "chained": self.chained,
            "other": self.other,
            "connections": self.connections,
            "server_cpu": time.process_time() - self.cpu,
        }


def _answer(counts: _Counts, method: str, target: str) -> bytes:
    if method == "POST" and target == "/items":
        counts.posts += 1
        new = _random_id()
        counts.issued.add(new)
        status, body = 201, f'{{"id": {new}}}'
    elif method == "GET" and target.startswith("/items/") and target[7:].isdigit():
        counts.gets += 1
        item = int(target[7:])
        if item in counts.issued:
            counts.issued.discard(item)
            counts.chained += 1
        new = _random_id()
        counts.issued.add(new)
        status, body = 200, f'{{"id": {item}, "name": "item {item}", "next": {new}}}'
    else:
        counts.other += 1
        status, body = 404, '{"error": "not found"}'
    data = body.encode()
    return (
        b"HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"
        % (status, _REASONS[status], len(data))
    ) + data


def _random_id() -> int:
    return 1_000_000 + random.getrandbits(29)


def _connection(sock: socket.socket, counts: _Counts) -> None:
    """One keep-alive connection: blocking reads, requests answered in order."""
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    buffer = b""
    with sock:
        while True:
            end = buffer.find(b"\r\n\r\n")
            if end < 0:
                data = sock.recv(65536)
                if not data:
                    return
                buffer += data
                continue
            lines = buffer[:end].decode("latin-1").split("\r\n")
            length, close = 0, False
            for line in lines[1:]:
                name, _, value = line.partition(":")
                name = name.strip().lower()
                if name == "content-length":
                    length = int(value)
                elif name == "connection" and value.strip().lower() == "close":
                    close = True
            while len(buffer) < end + 4 + length:
                data = sock.recv(65536)
                if not data:
                    return
                buffer += data
            buffer = buffer[end + 4 + length :]
            method, target = lines[0].split(" ", 2)[:2]
            sock.sendall(_answer(counts, method, target))
            if close:
                return


def serve() -> None:
    """Print the port, then answer each `stats` line on stdin with the counts (and reset them)."""
    counts = _Counts()
    listener = socket.create_server(("127.0.0.1", 0), backlog=128)
    print(listener.getsockname()[1], flush=True)

    def accept() -> None:
        while True:
            sock, _ = listener.accept()
            counts.connections += 1
            threading.Thread(target=_connection, args=(sock, counts), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    for line in sys.stdin:  # until the benchmark closes stdin
        if line.strip() == "stats":  # reset before answering: the next runner starts on the answer
            snapshot = counts.snapshot()
            counts.reset()
            print(json.dumps(snapshot), flush=True)


class Server:
    """The server process, seen from the benchmark."""

    def __init__(self, env: dict) -> None:
        self.process = subprocess.Popen(
            [sys.executable, __file__, "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env
        )
        self.url = f"http://127.0.0.1:{int(self.process.stdout.readline())}"

    def stats(self) -> dict:
        self.process.stdin.write("stats\n")
        self.process.stdin.flush()
        return json.loads(self.process.stdout.readline())

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait(timeout=10)


# ---------------------------------------------------------------- the workload, in each runner's words

HTTP_CLIENT = r'''
import http.client
import json
import sys
from urllib.parse import urlsplit

from jsonpath_ng.ext import parse


def chain(base_url, n):
    """POST, then n x (GET, status check, JSON extract used in the next URL); one keep-alive connection."""
    url = urlsplit(base_url)
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
    id_path, next_path = parse("$.id"), parse("$.next")
    connection.request("POST", "/items", body=b'{"name": "bench"}', headers={"Content-Type": "application/json"})
    response = connection.getresponse()
    if response.status != 201:
        sys.exit(f"POST /items: {response.status}")
    item = id_path.find(json.loads(response.read()))[0].value
    for _ in range(n):
        connection.request("GET", f"/items/{item}")
        response = connection.getresponse()
        if response.status != 200:
            sys.exit(f"GET /items/{item}: {response.status}")
        item = next_path.find(json.loads(response.read()))[0].value
    connection.close()


if __name__ == "__main__":
    chain(sys.argv[1], int(sys.argv[2]))
'''

HTTPX = r'''
import sys

import httpx
from jsonpath_ng.ext import parse


def chain(base_url, n):
    """POST, then n x (GET, status check, JSON extract used in the next URL); one keep-alive client."""
    id_path, next_path = parse("$.id"), parse("$.next")
    with httpx.Client(base_url=base_url, timeout=30) as client:
        response = client.post("/items", json={"name": "bench"})
        if response.status_code != 201:
            sys.exit(f"POST /items: {response.status_code}")
        item = id_path.find(response.json())[0].value
        for _ in range(n):
            response = client.get(f"/items/{item}")
            if response.status_code != 200:
                sys.exit(f"GET /items/{item}: {response.status_code}")
            item = next_path.find(response.json())[0].value


if __name__ == "__main__":
    chain(sys.argv[1], int(sys.argv[2]))
'''


def scenario_text(n: int) -> str:
    """n = 0: one request (the POST, its status check and extract)."""
    lines = [
        "# generated by bench/peers_chain.py",
        "parameters:",
        "  timeout: 30",
        "",
        "scenario: chained reads",
        "  when: POST /items",
        '    body: {"name": "bench"}',
        "  then: status 201",
        "  extract: item from $.id",
    ]
    for _ in range(n):
        lines += ["  when: GET /items/{{item}}", "  then: status 200", "  extract: item from $.next"]
    return "\n".join(lines) + "\n"


def hurl_text(n: int) -> str:
    post = 'POST {{base}}/items\nContent-Type: application/json\n{"name": "bench"}\nHTTP 201\n'
    parts = [post + '[Captures]\nitem: jsonpath "$.id"\n']
    parts += ['GET {{base}}/items/{{item}}\nHTTP 200\n[Captures]\nitem: jsonpath "$.next"\n'] * n
    return "\n".join(parts)


# ---------------------------------------------------------------- whole processes


@dataclass
class Measured:
    wall: float  # seconds
    cpu: float  # user + system seconds of the process (and any it waited for)
    rss: int  # peak resident set, KiB


# A child's ru_maxrss starts at the RSS of the process it was forked from (exec records the
# forked copy's high-water mark), so wait4 on a child of this ~25 MiB process reads >= 25 MiB
# whatever it runs. GNU time forks the command from its own ~2 MiB process and reports its %M.
GNU_TIME = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None


def measure(command: list[str], env: dict) -> Measured:
    """Run a process to its end: wall time, CPU time (wait4: the process, and GNU time's own few
    microseconds) and peak memory. Exits the benchmark, with its output, if the process failed."""
    with (
        open(os.devnull, "rb") as null_in,
        tempfile.TemporaryFile() as out,
        tempfile.NamedTemporaryFile("r", suffix=".rss") as rss_file,
    ):
        launcher = [GNU_TIME, "-f", "%M", "-o", rss_file.name] if GNU_TIME else []
        started = time.perf_counter()
        process = subprocess.Popen(launcher + command, stdin=null_in, stdout=out, stderr=subprocess.STDOUT, env=env)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode != 0:
            out.seek(0)
            output = out.read().decode(errors="replace")[-3000:]
            sys.exit(f"failed ({process.returncode}): {' '.join(command)}\n{output}")
        rss = int(rss_file.read().split()[-1]) if GNU_TIME else usage.ru_maxrss
    return Measured(wall, usage.ru_utime + usage.ru_stime, rss)


# ---------------------------------------------------------------- the profile, by module group

GROUPS = [  # (group, substrings of a function's "file:name"); the first that matches wins
    ("waiting for the server (epoll.poll: idle, not work)", ("select.epoll",)),
    ("transport: our Http11Transport + httptools", ("run/http/client.py", "httptools")),
    (
        "transport: asyncio streams, sockets, selectors",
        ("asyncio/streams", "asyncio/selector_events", "selectors.py", "socket.py", "_socket.socket"),
    ),
    ("asyncio: event loop, tasks, futures", ("asyncio/", "_asyncio.", "_contextvars")),
    ("httpx objects (client, request, URL, headers, response)", ("httpx/", "httpcore/", "h11/", "idna/", "sniffio")),
    ("executor generators", ("run/executor.py", "run/retry.py", "run/stepper.py", "contextlib.py")),
    ("events (dataclass __init__, replace)", ("run/events.py", "dataclasses.py", "<string>")),
    ("assertions", ("run/assertions.py",)),
    ("reports, masking, output", ("core/report/", "tui/output/", "run_command.py")),
    ("json / jsonpath", ("json/", "_json", "jsonpath_ng", "ply/")),
    (
        "templates, scopes, lookup, parameters",
        ("language/templates.py", "run/scopes.py", "run/lookup.py", "run/explain.py", "parameters/"),
    ),
    ("parsing the file (lark, builder)", ("lark/", "core/language/")),
    ("imports", ("<frozen importlib", "importlib/", "builtins.exec", "marshal", "_imp.", "site.py")),
]


def group_of(filename: str, name: str) -> str:
    where = f"{filename}:{name}".replace("\\", "/")
    return next((group for group, needles in GROUPS if any(n in where for n in needles)), "other")


def _own_times(stats) -> dict[tuple[str, str], list]:
    """{(group, function): [own seconds, calls]}. A function no group names (a builtin such as len or
    isinstance, urllib.parse, ipaddress, weakref, ...) is counted in its callers' groups, the time of
    the calls from each; a caller no group names either counts in its busiest caller's group (one that
    is not an import, if any)."""
    table: dict[tuple[str, str], list] = {}
    resolved: dict[tuple, str] = {}

    def group(key: tuple, depth: int = 0) -> str:
        if key not in resolved:
            resolved[key] = "other"  # while resolving: a cycle stays "other"
            found = group_of(key[0], key[2])
            callers = stats.stats[key][4] if key in stats.stats else {}
            if found == "other" and callers and depth < 20:  # the busiest caller's group, imports last
                groups = [group(c, depth + 1) for c in sorted(callers, key=lambda c: -callers[c][0])]
                found = next((g for g in groups if g not in ("imports", "other")), groups[0])
            resolved[key] = found
        return resolved[key]

    for key, (_cc, calls, tottime, _ct, callers) in stats.stats.items():
        label = f"{_short(key[0])}:{re.sub(' at 0x[0-9a-f]+', '', key[2])}"
        if group_of(key[0], key[2]) == "other" and callers:
            shares = [
                (group(caller), caller_tt, caller_calls)
                for caller, (caller_calls, _ccc, caller_tt, _cct) in callers.items()
            ]
        else:
            shares = [(group(key), tottime, calls)]
        for name, seconds, count in shares:
            entry = table.setdefault((name, label), [0.0, 0])
            entry[0] += seconds
            entry[1] += count
    return table


def print_profile(path: Path, baseline: Path, requests: int, top: int = 25) -> None:
    """The top functions by cumulative and by own time; then the cost of one more request by module
    group: the profile's own times minus the baseline's (the same run with one request), / requests."""
    import pstats

    stats = pstats.Stats(str(path))
    print(f"-- cProfile: top {top} by cumulative time --")
    stats.sort_stats("cumulative").print_stats(top)
    print(f"-- cProfile: top {top} by own time --")
    stats.sort_stats("tottime").print_stats(top)
    more, base = _own_times(stats), _own_times(pstats.Stats(str(baseline)))
    by_group: dict[str, list] = {}
    extra = requests - 1
    one_off = 0.0
    for key, (seconds, calls) in more.items():
        base_seconds, base_calls = base.get(key, (0.0, 0))
        if calls - base_calls < extra // 2:  # not called once a request at least (imports, class creation): noise
            one_off += seconds - base_seconds
            continue
        entry = by_group.setdefault(key[0], [0.0, 0, []])
        entry[0] += seconds - base_seconds
        entry[1] += calls - base_calls
        entry[2].append(((seconds - base_seconds) / extra, (calls - base_calls) / extra, key[1]))
    total = sum(entry[0] for entry in by_group.values())
    print(
        f"-- one more request, by module group: (own time at N={extra} - own time with 1 request) / {extra}; "
        f"{total / extra * 1e6:.0f} us a request under the profiler; builtins counted in their callers' groups; "
        f"functions not called at least every other request left out (net {one_off * 1e3:+.0f} ms: noise) --"
    )
    print("| group | per request | share | calls a request | biggest functions (us a request, calls) |")
    print("|---|---|---|---|---|")
    for group, (tottime, calls, functions) in sorted(by_group.items(), key=lambda kv: -kv[1][0]):
        biggest = "; ".join(f"{label} {t * 1e6:.0f} ({c:.0f})" for t, c, label in sorted(functions, reverse=True)[:4])
        print(f"| {group} | {tottime / extra * 1e6:.0f} us | {tottime / total:.0%} | {calls / extra:.0f} | {biggest} |")


def print_import_times(command: list[str], env: dict, runs: int = 3, top: int = 15) -> None:
    """`python -X importtime`: the modules the one-request run imports, slowest first (each module's
    best of `runs` runs: a busy machine inflates single runs)."""
    best: dict[str, tuple[int, int]] = {}
    order: list[str] = []
    for _ in range(runs):
        result = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
        for line in result.stderr.splitlines():
            if line.startswith("import time:") and "|" in line and "self [us]" not in line:
                own, cumulative, name = line[len("import time:") :].split("|", 2)
                name = name.rstrip()
                if name not in best:
                    order.append(name)
                    best[name] = (int(cumulative), int(own))
                best[name] = (min(best[name][0], int(cumulative)), min(best[name][1], int(own)))
    rows = [(*best[name], name) for name in order]
    print(
        f"-- start-up: python -X importtime, one-request run (best of {runs}): "
        f"{sum(r[1] for r in rows) / 1e3:.0f} ms of imports, {len(rows)} modules; top {top} by cumulative "
        "(indent: imported by a less indented module) --"
    )
    for cumulative, own, name in sorted(rows, reverse=True)[:top]:
        print(f"  {cumulative / 1e3:7.1f} ms  (own {own / 1e3:5.1f} ms) {name}")
    print(f"-- top {top} by own time --")
    for _cumulative, own, name in sorted(rows, key=lambda r: -r[1])[:top]:
        print(f"  {own / 1e3:7.1f} ms {name.strip()}")


def _short(filename: str) -> str:
    for marker in ("site-packages/", "/core/", "/tui/"):
        if marker in filename:
            return filename.split(marker, 1)[1]
    return filename.rsplit("/", 1)[-1]


if __name__ == "__main__":
    if sys.argv[1:] == ["serve"]:
        serve()
    else:
        sys.exit("usage: python bench/_peers.py serve")
