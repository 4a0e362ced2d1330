"""Shared fixtures: the bundled demo API on a free loopback port, real HTTP, no mocked client."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
import textwrap
from pathlib import Path

import pytest

from scenario_core.demo.server import DemoServer

# The grammar tables and parsed files are cached as for a user, but in a directory of this test
# run's own (inherited by the commands the tests start), never in the user's ~/.cache.
_CACHE_HOME = tempfile.mkdtemp(prefix="scenario-tui-test-cache-")
os.environ["XDG_CACHE_HOME"] = _CACHE_HOME
atexit.register(shutil.rmtree, _CACHE_HOME, True)


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
