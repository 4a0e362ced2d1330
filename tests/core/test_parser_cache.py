"""The parser's table cache is a pickle: it is only ever read from the user's own private cache
directory, never from the shared $TMPDIR where anyone can plant one (hardening: code execution
through the parser cache)."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX ownership rules")

# What the parser was built with before the fix: lark's own cache=True, which names its file in
# $TMPDIR after the grammar and options, so anyone can compute the name and plant it first.
_LARK_DEFAULT_CACHE = textwrap.dedent("""
    from lark import Lark
    from scenario_core.language import lark_parser as parser
    Lark(parser._GRAMMAR.read_text(encoding="utf-8"), parser="lalr", lexer=parser.LineLexer,
         postlex=parser._Indenter(), transformer=parser._builder, maybe_placeholders=False, cache=True)
""")
_CHECK = "from scenario_core.language.parser import parse_text; parse_text('scenario: s\\n  when: GET /x\\n')"


class _Planted:
    """Unpickling this creates the marker file: proof that the pickle was loaded."""

    def __init__(self, marker: Path):
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


def _python(code: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)


@pytest.fixture
def private_env(tmp_path):
    tmp, cache = tmp_path / "tmp", tmp_path / "home-cache"
    tmp.mkdir()
    # Without the cache of parsed files, each run parses and so reads the tables' cache.
    env = {**os.environ, "TMPDIR": str(tmp), "XDG_CACHE_HOME": str(cache), "SCENARIO_TUI_NO_CACHE": "1"}
    return env, tmp, cache


def _table_caches(directory: Path) -> list[Path]:
    return [path for path in directory.iterdir() if path.name.startswith("grammar-")]


def _plant_in_tmpdir(env, tmp, marker: Path) -> list[Path]:
    """Let lark's default name appear in the private TMPDIR, then replace the file with a pickle
    that runs code; show that lark's default would indeed load it."""
    assert _python(_LARK_DEFAULT_CACHE, env).returncode == 0
    planted = list(tmp.glob(".lark_cache*"))
    assert planted, "lark's default cache file name was not found"
    for path in planted:
        path.write_bytes(b"0" * 64 + b"\n" + pickle.dumps(_Planted(marker)))
    _python(_LARK_DEFAULT_CACHE, env)
    assert marker.exists(), "the planted pickle would not have run: the test proves nothing"
    marker.unlink()
    return planted


def test_parser_cache_planted_in_tmpdir_is_never_loaded(private_env, tmp_path):
    env, tmp, _ = private_env
    marker = tmp_path / "pwned"
    _plant_in_tmpdir(env, tmp, marker)
    result = _python(_CHECK, env)
    assert result.returncode == 0, result.stderr
    assert not marker.exists()
    script = Path(sys.executable).with_name("scenario-tui")
    example = Path(__file__).parents[2] / "examples" / "pets.scenario"
    result = subprocess.run([str(script), "check", str(example)], env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert not marker.exists()


def test_parser_cache_lives_in_a_private_directory_of_the_user(private_env):
    env, tmp, cache = private_env
    assert _python(_CHECK, env).returncode == 0
    directory = cache / "scenario-tui"
    assert directory.is_dir() and directory.stat().st_mode & 0o777 == 0o700
    assert len(_table_caches(directory)) == 1  # the tables are cached ...
    assert not list(tmp.iterdir())  # ... and nothing is written to the shared TMPDIR


def test_parser_cache_in_a_directory_open_to_others_is_not_used(private_env, tmp_path):
    env, _, cache = private_env
    assert _python(_CHECK, env).returncode == 0
    directory = cache / "scenario-tui"
    marker = tmp_path / "pwned"
    for cached in _table_caches(directory):
        cached.write_bytes(b"0" * 64 + b"\n" + pickle.dumps(_Planted(marker)))
    directory.chmod(0o777)  # another user could have replaced the file
    result = _python(_CHECK, env)
    assert result.returncode == 0, result.stderr
    assert not marker.exists()


def test_parser_cache_file_writable_by_others_is_not_used(private_env, tmp_path):
    env, _, cache = private_env
    assert _python(_CHECK, env).returncode == 0
    marker = tmp_path / "pwned"
    for cached in _table_caches(cache / "scenario-tui"):
        cached.write_bytes(b"0" * 64 + b"\n" + pickle.dumps(_Planted(marker)))
        cached.chmod(0o666)
    result = _python(_CHECK, env)
    assert result.returncode == 0, result.stderr
    assert not marker.exists()


def test_parser_without_a_usable_cache_directory_still_parses(tmp_path):
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")
    env = {**os.environ, "TMPDIR": str(tmp_path), "XDG_CACHE_HOME": str(blocker)}
    result = _python(_CHECK, env)
    assert result.returncode == 0, result.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["not-a-directory"]
