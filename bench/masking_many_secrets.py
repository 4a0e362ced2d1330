"""Benchmark: `scenario-tui run` of N failing scenarios that each extract a different secret
(`extract: token from $.token` after a login), against the same run extracting a non-secret name
(`extract: tok from $.token`): the masker's cost shows as the ratio. Whole processes, demo API on
loopback, alternating, medians.

    python bench/masking_many_secrets.py [--scenarios 2000] [--rounds 3]

Before the masker learnt in O(1) this took ~47 s for 2,000 scenarios (the pattern was rebuilt per
secret); the target is a ratio of about 1.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from scenario_core.demo.server import DemoServer

SCRIPT = Path(sys.executable).with_name("scenario-tui")


def scenario_file(n: int, name: str) -> str:
    lines = []
    for i in range(n):
        lines += [
            f"scenario: s{i}",
            "  when: POST /login",
            '    body: {"username": "demo", "password": "demo"}',
            f"  extract: {name} from $.token",
            f'  then: $.token == "not-{i}"',
        ]  # fails: the message shows the token
    return "\n".join(lines) + "\n"


def timed(path: str, url: str) -> float:
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TTY_COMPATIBLE")}
    started = time.perf_counter()
    result = subprocess.run([str(SCRIPT), "run", path, "--base-url", url], capture_output=True, env=env)
    elapsed = time.perf_counter() - started
    assert result.returncode == 1, result.stderr
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scenarios", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, DemoServer() as server:
        secret, plain = Path(tmp, "secret.scenario"), Path(tmp, "plain.scenario")
        secret.write_text(scenario_file(args.scenarios, "token"))
        plain.write_text(scenario_file(args.scenarios, "tok"))
        with_secrets, without = [], []
        for _ in range(args.rounds):
            with_secrets.append(timed(str(secret), server.url))
            without.append(timed(str(plain), server.url))
    a, b = statistics.median(with_secrets), statistics.median(without)
    print(f"{args.scenarios} failing scenarios, {args.rounds} rounds (medians)")
    print(f"  each learning a secret: {a:.3f} s")
    print(f"  no secrets:             {b:.3f} s")
    print(f"  ratio:                  {a / b:.2f}")


if __name__ == "__main__":
    main()
