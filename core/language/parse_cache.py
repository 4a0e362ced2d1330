"""Parsed `.scenario` files kept between runs, as Python keeps compiled modules in .pyc files: the
built tree of an input that parsed without errors, pickled in the user's private cache directory,
so the next parse of the same input neither imports lark (~57 ms) nor builds its parser (~25 ms)
nor parses (~0.1 ms a request). Measured on the 1,000-step chain: see docs/performance.md.

The key is everything the tree is made of, byte for byte: the text, the file's name (every
location holds it), the external fragments (pickled: each holds its own file's name and steps),
and the code that builds trees (name, size and mtime of every file under `scenario_core.language`
and `scenario_core.support`, lark's files, the Python version). An entry holds its key whole
before the tree, and is used only when that equals the key asked for: no digest stands for it, so
no two inputs can share an entry (hashlib's import alone cost ~2.5 ms and 3.6 MiB of start-up;
docs/performance.md, "Round six"). The entry's file name is two checksums and the length of the
key: a clash only costs a miss. `max_errors` plays no part in a tree without errors.

Unpickling runs code, so an entry is read only from a directory that is ours and closed to others,
and only when the file itself is ours and writable by no one else (checked on the open file); one
that is corrupt, truncated, of another key or not a tree is ignored and written again. Writes are
atomic (a private temporary file renamed over the entry). Bounded: inputs over MAX_TEXT_CHARS are
not cached (pickling one costs about a third of its parse, and a tree is ~3x its text), an entry
over MAX_ENTRY_BYTES is never read, and past MAX_ENTRIES or MAX_TOTAL_BYTES the least recently
used entries are removed (a process scans the directory again only when what it wrote since its
last scan could pass a cap). SCENARIO_TUI_NO_CACHE=1 turns it off; an unusable home runs without it."""

from __future__ import annotations

import os
import pickle
import stat
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scenario_core.language.nodes.blocks import ExternalBlocks, ScenarioFileNode

import zlib

DISABLE_VARIABLE = "SCENARIO_TUI_NO_CACHE"
# 256 entries: a few projects' files in an edit-run loop. 64 MiB: the 1,000-step chain's entry is
# ~0.2 MiB, so the cap on bytes only bites on large files; a cache directory stays small beside
# pip's or a browser's.
MAX_ENTRIES = 256
MAX_TOTAL_BYTES = 64 * 1024 * 1024
# 1 MiB of text: ~40,000 lines of the 1,000-step chain's kind, a 3 MiB entry, stored in 0.2-0.4 s.
# Larger files are rare (generated ones, bench/check_large_file.py's 1.16 MB): they are parsed
# each time rather than filling the cache. An entry larger than 8x its text is not kept either.
MAX_TEXT_CHARS = 1024 * 1024
MAX_ENTRY_BYTES = 8 * MAX_TEXT_CHARS

_MAGIC = b"scenario-tui parsed tree 2\n"
_SUFFIX = ".tree"
_LANGUAGE = os.path.dirname(os.path.abspath(__file__))
_SUPPORT = os.path.join(os.path.dirname(_LANGUAGE), "support")

_code: bytes | None = None  # the code fingerprint, once per process
# Per cache directory, the (entries, bytes) this process knows of: its last scan plus what it
# wrote since. The directory is scanned again only when that could pass a cap, not on each write
# (a scan of 256 entries cost ~3 ms of each file a cold run parses).
_known: dict[str, tuple[int, int]] = {}


def private_cache_directory(*parts: str) -> str | None:
    """`$XDG_CACHE_HOME/scenario-tui` (else `~/.cache/scenario-tui`), and `parts` below it, each
    created 0700; None unless every one is a real directory of ours closed to others."""
    if not hasattr(os, "getuid"):
        return None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    if not os.path.isabs(base):
        return None
    directory = os.path.join(base, "scenario-tui")
    uid = os.getuid()
    try:
        for part in ("", *parts):
            directory = os.path.join(directory, part) if part else directory
            os.makedirs(directory, mode=0o700, exist_ok=True)
            info = os.lstat(directory)
            if not stat.S_ISDIR(info.st_mode) or info.st_uid != uid or info.st_mode & 0o077:
                return None
    except OSError:  # a read-only or missing home: run without a cache
        return None
    return directory


def key(text: str, filename: str, fragments: ExternalBlocks) -> bytes | None:
    """Everything the tree of this input depends on, as one byte string; None: do not cache it."""
    if len(text) > MAX_TEXT_CHARS or os.environ.get(DISABLE_VARIABLE, "") not in ("", "0"):
        return None
    try:
        external = pickle.dumps(fragments, protocol=pickle.HIGHEST_PROTOCOL) if fragments else b""
    except Exception:  # a fragment that does not pickle: no cache rather than a wrong tree
        return None
    parts = [_code_fingerprint(), filename.encode("utf-8", "surrogatepass"), external]
    framed = [len(part).to_bytes(8, "little") + part for part in parts]
    return b"".join(framed) + text.encode("utf-8", "surrogatepass")


def entry_name(key: bytes) -> str:
    """The file name of `key`'s entry (without the suffix): its CRC-32, Adler-32 and length."""
    return f"{zlib.crc32(key):08x}{zlib.adler32(key):08x}{len(key):x}"


def header(key: bytes) -> bytes:
    """What an entry of `key` starts with: the magic line, the key's length and the key itself."""
    return _MAGIC + len(key).to_bytes(8, "little") + key


def load(key: bytes) -> ScenarioFileNode | None:
    """The tree stored under this key, or None (none, or one that cannot be trusted or read)."""
    directory = private_cache_directory("parsed")
    if directory is None:
        return None
    path = os.path.join(directory, entry_name(key) + _SUFFIX)
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        with os.fdopen(descriptor, "rb") as file:
            info = os.fstat(file.fileno())
            if not trusted_entry(info) or info.st_size > MAX_ENTRY_BYTES:
                return None
            data = file.read(MAX_ENTRY_BYTES + 1)
    except OSError:
        return None
    expected = header(key)
    if not data.startswith(expected):  # another input's entry under the same name, or damaged
        return None
    from scenario_core.language.nodes.blocks import ScenarioFileNode

    try:
        tree = pickle.loads(memoryview(data)[len(expected) :])
    except Exception:  # corrupt or truncated: parse again, and the entry is rewritten
        return None
    if not isinstance(tree, ScenarioFileNode):
        return None
    try:
        os.utime(path)  # recently used: pruned last
    except OSError:
        pass
    return tree


def store(key: bytes, tree: ScenarioFileNode) -> None:
    """Keep this tree under this key; quietly nothing when the cache cannot be written."""
    directory = private_cache_directory("parsed")
    if directory is None:
        return
    try:
        data = header(key) + pickle.dumps(tree, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # a node holding something that does not pickle: not cached
        return
    if len(data) > MAX_ENTRY_BYTES:
        return
    name = entry_name(key)
    path = os.path.join(directory, name + _SUFFIX)
    temporary = os.path.join(directory, f".{name[:16]}.{os.getpid()}.tmp")
    try:
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    except OSError:
        return
    try:
        with os.fdopen(descriptor, "wb") as file:
            file.write(data)
        os.replace(temporary, path)
    except OSError:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        return
    count, total = _known.get(directory, (MAX_ENTRIES, MAX_TOTAL_BYTES))  # unknown: scan
    count, total = count + 1, total + len(data)
    if count > MAX_ENTRIES or total > MAX_TOTAL_BYTES:
        count, total = _prune(directory)
    _known[directory] = (count, total)


def trusted_entry(info: os.stat_result) -> bool:
    """A cache file we may unpickle: a regular file of ours that no one else can write."""
    return stat.S_ISREG(info.st_mode) and info.st_uid == os.getuid() and not info.st_mode & 0o022


def _prune(directory: str) -> tuple[int, int]:
    """Remove the least recently used entries (and temporary files left by a killed process)
    past MAX_ENTRIES or MAX_TOTAL_BYTES; the entries and bytes left."""
    entries = []
    try:
        with os.scandir(directory) as found:
            for entry in found:
                try:
                    info = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                entries.append((info.st_mtime_ns, info.st_size, entry.path))
    except OSError:
        return MAX_ENTRIES, MAX_TOTAL_BYTES  # unreadable: scan again at the next write
    count, total = len(entries), sum(size for _, size, _ in entries)
    for _, size, path in sorted(entries):
        if count <= MAX_ENTRIES and total <= MAX_TOTAL_BYTES:
            break
        try:
            os.unlink(path)
        except OSError:
            continue
        count, total = count - 1, total - size
    return count, total


def _code_fingerprint() -> bytes:
    """What the code that builds trees is: the Python version and the name, size and mtime of
    every file of `scenario_core.language`, `scenario_core.support` and lark (not imported: the
    finder only locates it). Editing any of them, or upgrading lark or Python, misses."""
    global _code
    if _code is None:
        parts = [sys.version, sys.implementation.cache_tag or ""]
        roots = [_LANGUAGE, _SUPPORT]
        lark = _lark_directory()
        roots.append(lark or "no lark")
        for root in roots:
            parts += _files_of(root)
        _code = "\n".join(parts).encode("utf-8", "surrogatepass")
    return _code


def _lark_directory() -> str | None:
    from importlib.machinery import PathFinder

    spec = PathFinder.find_spec("lark")
    if spec is None or not spec.submodule_search_locations:
        return None
    return list(spec.submodule_search_locations)[0]


def _files_of(root: str) -> list[str]:
    found = []
    try:
        with os.scandir(root) as entries:
            listed = sorted(entries, key=lambda entry: entry.name)
    except OSError:
        return [f"{root}: unreadable"]
    for entry in listed:
        if entry.name == "__pycache__":
            continue
        try:
            if entry.is_dir(follow_symlinks=False):
                found += _files_of(entry.path)
            elif entry.name.endswith((".py", ".lark")):
                info = entry.stat()
                found.append(f"{entry.path}:{info.st_size}:{info.st_mtime_ns}")
        except OSError:
            found.append(f"{entry.path}: unreadable")
    return found
