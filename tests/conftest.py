"""Shared fixtures: the bundled demo API on a free loopback port, real HTTP, no mocked client."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from scenario_core.demo.server import DemoServer


@pytest.fixture(scope="session")
def demo_server():
    with DemoServer() as server:
        yield server


@pytest.fixture
def demo(demo_server):
    """The demo API with fresh state for this test."""
    demo_server.reset()
    return demo_server


@pytest.fixture
def write_scenario(tmp_path: Path):
    """Write dedented scenario text to a file and return its path."""

    def write(text: str, name: str = "test.scenario") -> Path:
        path = tmp_path / name
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
        return path

    return write
