"""The cache of parsed files: a second parse of the same input returns an equal tree
without lark; any change to what the tree is made of misses; an entry that cannot be trusted or
read is ignored; the cache is bounded, can be turned off, and never holds a file with errors."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from scenario_core.language import lark_parser, parse_cache
from scenario_core.language.errors import InvalidFileError
from scenario_core.language.parser import load_file, parse_text

pytestmark = pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX ownership rules")

TEXT = "scenario: s\n  when: GET /items/1\n  then: status 200\n  extract: item from $.next\n"


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    """A private cache directory of this test's own; the parses lark really made, counted."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "home-cache"))
    monkeypatch.delenv(parse_cache.DISABLE_VARIABLE, raising=False)
    return tmp_path / "home-cache" / "scenario-tui" / "parsed"


@pytest.fixture
def parses(monkeypatch) -> list[str]:
    made: list[str] = []
    real = lark_parser.parse_source

    def counted(text, filename, fragments):
        made.append(filename)
        return real(text, filename, fragments)

    monkeypatch.setattr(lark_parser, "parse_source", counted)
    return made


def entries(cache: Path) -> list[Path]:
    return sorted(cache.glob("*.tree")) if cache.is_dir() else []


def test_second_parse_of_the_same_input_comes_from_the_cache(cache, parses):
    first = parse_text(TEXT, "a.scenario")
    second = parse_text(TEXT, "a.scenario")
    assert second == first and second is not first
    assert parses == ["a.scenario"]
    assert len(entries(cache)) == 1


def test_second_load_of_an_unchanged_file_never_imports_lark(tmp_path):
    path = tmp_path / "chain.scenario"
    path.write_text(TEXT, encoding="utf-8")
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "home-cache")}
    env.pop(parse_cache.DISABLE_VARIABLE, None)
    code = textwrap.dedent(f"""
        import pickle, sys
        from scenario_core.language.parser import load_file
        tree = load_file({str(path)!r})
        sys.stdout.buffer.write(pickle.dumps(("lark" in sys.modules, tree)))
    """)

    def load() -> tuple[bool, object]:
        result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, timeout=60)
        assert result.returncode == 0, result.stderr.decode()
        return pickle.loads(result.stdout)

    cold_lark, cold_tree = load()
    warm_lark, warm_tree = load()
    assert cold_lark and not warm_lark
    assert warm_tree == cold_tree == load_file(path)


def test_check_and_run_of_an_unchanged_file_never_import_lark(tmp_path, demo):
    path = tmp_path / "one.scenario"
    path.write_text("scenario: one\n  when: GET /health\n  then: status 200\n", encoding="utf-8")
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "home-cache")}
    env.pop(parse_cache.DISABLE_VARIABLE, None)

    def lark_imported(*arguments: str) -> bool:
        code = (
            "import sys\n"
            "from scenario_tui.cli.main import main\n"
            f"status = main({list(arguments)!r})\n"
            "print('STATUS', status, 'lark' in sys.modules)\n"
        )
        result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
        status, imported = result.stdout.split()[-2:]
        assert status == "0", result.stdout + result.stderr
        return imported == "True"

    assert lark_imported("check", str(path))  # cold: parsed, and kept
    assert not lark_imported("check", str(path))
    assert not lark_imported("run", str(path), "--base-url", demo.url)


def test_a_changed_text_misses(cache, parses):
    parse_text(TEXT, "a.scenario")
    changed = parse_text(TEXT.replace("status 200", "status 201"), "a.scenario")
    assert len(parses) == 2
    assert "201" in repr(changed)


def test_a_changed_file_name_misses(cache, parses):
    parse_text(TEXT, "a.scenario")
    renamed = parse_text(TEXT, "b.scenario")
    assert len(parses) == 2
    assert renamed.path == "b.scenario"


def test_a_changed_fragment_file_misses(cache, parses, tmp_path):
    (tmp_path / "fragments").mkdir()
    fragment = tmp_path / "fragments" / "login.fragment"
    fragment.write_text("fragment: login\n  when: POST /login\n", encoding="utf-8")
    scenario = tmp_path / "a.scenario"
    scenario.write_text("scenario: s\n  include login\n  when: GET /me\n", encoding="utf-8")
    first = load_file(scenario)
    assert load_file(scenario) == first
    assert parses.count(str(scenario)) == 1
    fragment.write_text("fragment: login\n  when: POST /sessions/new\n", encoding="utf-8")
    changed = load_file(scenario)
    assert parses.count(str(scenario)) == 2
    assert "/sessions/new" in repr(changed.fragments) and changed != first


def test_a_changed_code_fingerprint_misses(cache, parses, monkeypatch):
    parse_text(TEXT, "a.scenario")
    monkeypatch.setattr(parse_cache, "_code", b"the builder as it was before an edit")
    parse_text(TEXT, "a.scenario")
    assert len(parses) == 2


def test_the_code_fingerprint_changes_when_a_source_file_changes(tmp_path, monkeypatch):
    language = tmp_path / "language"
    (language / "builder").mkdir(parents=True)
    source = language / "builder" / "blocks.py"
    source.write_text("x = 1\n")
    monkeypatch.setattr(parse_cache, "_LANGUAGE", str(language))

    def fingerprint() -> bytes:
        monkeypatch.setattr(parse_cache, "_code", None)
        return parse_cache._code_fingerprint()

    before = fingerprint()
    assert fingerprint() == before
    os.utime(source, ns=(source.stat().st_atime_ns, source.stat().st_mtime_ns + 1_000_000))
    assert fingerprint() != before
    (language / "grammar.lark").write_text("start: x\n")
    assert fingerprint() != before


@pytest.mark.parametrize("damage", ["garbage", "truncated", "empty", "another key"])
def test_a_corrupt_cache_entry_is_ignored_and_replaced(cache, parses, damage):
    tree = parse_text(TEXT, "a.scenario")
    [entry] = entries(cache)
    data = entry.read_bytes()
    damaged = {
        "garbage": b"\x80\x05not a pickle at all",
        "truncated": data[: len(data) // 2],
        "empty": b"",
        # the same name and length, another key: used only when the whole key is the same
        "another key": data.replace(TEXT.encode()[-8:], b"#changed", 1),
    }[damage]
    entry.write_bytes(damaged)
    assert parse_text(TEXT, "a.scenario") == tree
    assert len(parses) == 2
    # Written again, whole: the next parse is a hit. (Not byte for byte the first entry: pickle
    # shares what the tree shares, and what other tests left in the process's caches can change
    # that, not the tree.)
    assert entry.read_bytes() != damaged
    assert parse_text(TEXT, "a.scenario") == tree and len(parses) == 2


class _Planted:
    """Unpickling this creates the marker file: proof that the entry was loaded."""

    def __init__(self, marker: Path):
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


def _plant(cache: Path, marker: Path) -> Path:
    """Replace the one entry by a pickle that runs code, under the right header."""
    [entry] = entries(cache)
    header = entry.read_bytes()[: len(parse_cache.header(parse_cache.key(TEXT, "a.scenario", ()) or b""))]
    entry.write_bytes(header + pickle.dumps(_Planted(marker)))
    return entry


def test_a_group_or_world_writable_cache_entry_is_refused(cache, parses, tmp_path):
    tree = parse_text(TEXT, "a.scenario")
    marker = tmp_path / "pwned"
    entry = _plant(cache, marker)
    parse_text(TEXT, "a.scenario")
    assert marker.exists(), "a planted entry of our own would run: the test proves something"
    marker.unlink()
    for mode in (0o620, 0o602):
        entry = _plant(cache, marker)
        entry.chmod(mode)
        assert parse_text(TEXT, "a.scenario") == tree
        assert not marker.exists()


@pytest.mark.skipif(not hasattr(os, "getuid") or os.getuid() != 0, reason="giving a file away needs root")
def test_a_cache_entry_owned_by_another_user_is_refused(cache, parses, tmp_path):
    tree = parse_text(TEXT, "a.scenario")
    marker = tmp_path / "pwned"
    entry = _plant(cache, marker)
    os.chown(entry, 12345, 12345)
    assert parse_text(TEXT, "a.scenario") == tree
    assert not marker.exists()


def test_a_cache_entry_that_is_a_symbolic_link_is_refused(cache, parses, tmp_path):
    tree = parse_text(TEXT, "a.scenario")
    marker = tmp_path / "pwned"
    entry = _plant(cache, marker)
    elsewhere = tmp_path / "elsewhere.tree"
    entry.rename(elsewhere)
    entry.symlink_to(elsewhere)
    assert parse_text(TEXT, "a.scenario") == tree
    assert not marker.exists()


def test_a_cache_directory_open_to_others_is_not_used(cache, parses, tmp_path):
    parse_text(TEXT, "a.scenario")
    marker = tmp_path / "pwned"
    _plant(cache, marker)
    cache.chmod(0o777)
    parse_text(TEXT, "a.scenario")
    assert not marker.exists()
    assert len(parses) == 2


def test_the_parsed_trees_directory_is_private(cache):
    parse_text(TEXT, "a.scenario")
    assert cache.stat().st_mode & 0o777 == 0o700
    assert cache.parent.stat().st_mode & 0o777 == 0o700
    assert all(entry.stat().st_mode & 0o777 == 0o600 for entry in entries(cache))
    assert not list(cache.glob(".*.tmp"))  # the temporary file was renamed


def test_the_cache_is_pruned_past_its_cap_on_entries(cache, monkeypatch):
    monkeypatch.setattr(parse_cache, "MAX_ENTRIES", 3)
    for number in range(6):
        parse_text(TEXT, f"{number}.scenario")
        if entries(cache):  # distinct modification times, whatever the file system's resolution
            newest = max(entries(cache), key=lambda entry: entry.stat().st_mtime_ns)
            os.utime(newest, ns=(number * 10**9, number * 10**9))
    assert len(entries(cache)) == 3
    kept = {parse_cache.entry_name(parse_cache.key(TEXT, f"{number}.scenario", ()) or b"") for number in (3, 4, 5)}
    assert {entry.stem for entry in entries(cache)} == kept


def test_the_cache_is_pruned_past_its_cap_on_bytes(cache, monkeypatch):
    parse_text(TEXT, "0.scenario")
    [entry] = entries(cache)
    monkeypatch.setattr(parse_cache, "MAX_TOTAL_BYTES", 2 * entry.stat().st_size + 10)
    for number in range(1, 5):
        parse_text(TEXT, f"{number}.scenario")
    assert len(entries(cache)) == 2


def test_writes_scan_the_cache_directory_only_when_they_could_pass_a_cap(cache, monkeypatch):
    monkeypatch.setattr(parse_cache, "MAX_ENTRIES", 5)
    scans = []
    scandir = os.scandir

    def counted(path):
        if os.path.samefile(path, cache):
            scans.append(path)
        return scandir(path)

    monkeypatch.setattr(parse_cache.os, "scandir", counted)
    for number in range(5):
        parse_text(TEXT, f"{number}.scenario")
    assert len(scans) == 1  # the first write: nothing was known of the directory
    parse_text(TEXT, "5.scenario")  # the sixth could pass the cap of five
    assert len(scans) == 2
    assert len(entries(cache)) == 5


def test_a_cache_hit_counts_as_a_recent_use(cache, monkeypatch):
    monkeypatch.setattr(parse_cache, "MAX_ENTRIES", 2)
    parse_text(TEXT, "old.scenario")
    parse_text(TEXT, "newer.scenario")
    for entry, seconds in zip(entries(cache), (1, 1)):
        os.utime(entry, ns=(seconds * 10**9, seconds * 10**9))
    old = parse_cache.entry_name(parse_cache.key(TEXT, "old.scenario", ()) or b"")
    parse_text(TEXT, "old.scenario")  # a hit: touched
    parse_text(TEXT, "third.scenario")
    assert old in {entry.stem for entry in entries(cache)}


def test_SCENARIO_TUI_NO_CACHE_turns_the_cache_off(cache, parses, monkeypatch):
    monkeypatch.setenv("SCENARIO_TUI_NO_CACHE", "1")
    parse_text(TEXT, "a.scenario")
    parse_text(TEXT, "a.scenario")
    assert len(parses) == 2
    assert entries(cache) == []


def test_a_file_with_errors_is_never_cached_and_still_reports_every_error(cache, parses):
    text = "scenario: s\n  when: GET /a\n  then: status two\n  bogus line\n  then: status 9999\n"
    reported = []
    for _ in range(2):
        with pytest.raises(InvalidFileError) as raised:
            parse_text(text, "bad.scenario")
        reported.append([str(d) for d in raised.value.diagnostics])
    assert len(reported[0]) >= 2 and reported[1] == reported[0]
    assert len(parses) == 2
    assert entries(cache) == []


def test_a_file_over_the_size_limit_is_parsed_each_time(cache, parses, monkeypatch):
    monkeypatch.setattr(parse_cache, "MAX_TEXT_CHARS", len(TEXT) - 1)
    parse_text(TEXT, "a.scenario")
    parse_text(TEXT, "a.scenario")
    assert len(parses) == 2
    assert entries(cache) == []


def test_an_unusable_cache_directory_still_parses(tmp_path, monkeypatch, parses):
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    monkeypatch.delenv(parse_cache.DISABLE_VARIABLE, raising=False)
    assert parse_text(TEXT, "a.scenario") == parse_text(TEXT, "a.scenario")
    assert len(parses) == 2


def test_an_editor_buffer_reads_the_cache_but_does_not_fill_it(cache, parses):
    parse_text(TEXT, "a.scenario", keep=False)
    assert entries(cache) == []
    parse_text(TEXT, "a.scenario")
    parse_text(TEXT, "a.scenario", keep=False)
    assert len(parses) == 2 and len(entries(cache)) == 1


def test_two_inputs_whose_entry_names_clash_never_get_each_others_tree(cache, parses, monkeypatch):
    """An entry's name is only checksums: what decides is the whole key the entry holds."""
    monkeypatch.setattr(parse_cache, "entry_name", lambda key: "same")
    first = parse_text(TEXT, "a.scenario")
    other = TEXT.replace("/items/1", "/items/2")
    second = parse_text(other, "a.scenario")
    assert second != first and len(parses) == 2  # a miss, parsed, and stored over the first
    assert parse_text(other, "a.scenario") == second and len(parses) == 2  # now a hit
    assert parse_text(TEXT, "a.scenario") == first and len(parses) == 3
