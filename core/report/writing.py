"""Writing a report file: which paths may be written (report_target) and replacing the file
atomically (atomic_write), so a reader never sees half a report. secrets and stat are imported
where they are used: most runs write no report."""

from __future__ import annotations

import os
from pathlib import Path


class ReportPathError(OSError):
    """A report path that must not be written: not a regular file, or its directory is missing."""


# Temporary files are `.NAME.scenario-tui-PID-RANDOM.tmp` next to the report: the PID lets a
# later run remove the ones a killed run (kill -9) left behind, and only those.
_TEMP_PREFIX = ".scenario-tui-"


def report_target(path: str | os.PathLike[str]) -> Path:
    """The file a report at PATH replaces: PATH as given, never its real path. A symlink there is
    replaced by the report, never written through: in a sticky folder such as /tmp anyone may
    plant one pointing at another user's file, and resolving it first (realpath) would step
    around the kernel's protection of such folders. Raises ReportPathError for anything but a
    regular file (or a symlink to one) or a path to be created in an existing directory:
    renaming over a device, a FIFO or a socket would replace the node itself (as root,
    /dev/null), and a symlink to a directory is no report file."""
    target = Path(path)
    try:
        mode = target.stat().st_mode
    except FileNotFoundError:
        mode = None
    except OSError as error:
        raise ReportPathError(f"{os.fspath(path)}: {error.strerror or error}") from None
    if mode is not None:
        import stat

        if stat.S_ISDIR(mode):
            raise ReportPathError(f"{os.fspath(path)} is a directory")
        if not stat.S_ISREG(mode):
            raise ReportPathError(f"{os.fspath(path)} is not a regular file (a device, FIFO or socket)")
    parent = target.parent
    if not parent.is_dir():
        raise ReportPathError(f"{os.fspath(path)}: directory {parent} does not exist")
    return target


def atomic_write(path: str | os.PathLike[str], data: bytes) -> None:
    """Write to a temporary file in the same directory (so the rename never crosses file
    systems), fsync it, then os.replace it over PATH (a symlink there is replaced, never written
    through; the temporary file is opened without following one either): a reader sees the old file or the whole new one, never a partial one. The temporary file is
    removed whatever interrupts the write, Ctrl+C included; only kill -9 can leave one, and the
    next write to the same report removes it."""
    import secrets

    target = report_target(path)  # again: the path may have changed since the run started
    directory = target.parent
    _remove_stale_temporaries(target)
    temp = directory / f".{target.name}{_TEMP_PREFIX}{os.getpid()}-{secrets.token_hex(4)}.tmp"
    # The name is chosen before the file exists, so the cleanup below knows it whatever line
    # an interrupt lands on (mkstemp would only return it after creating the file).
    fd = None
    try:
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
        fd = os.open(temp, flags, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, _mode_for(target))  # created 0600; a report is for sharing
        os.replace(temp, target)
    except BaseException as error:
        if not (fd is None and isinstance(error, FileExistsError)):  # that one is someone else's
            _unlink(temp)
        raise
    _fsync_directory(directory)


def _unlink(path: Path) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _remove_stale_temporaries(target: Path) -> None:
    """Remove temporary files of this report left by scenario-tui processes that no longer run."""
    if os.name != "posix":  # os.kill(pid, 0) would terminate the process on Windows
        return
    import re

    pattern = re.compile(re.escape(f".{target.name}{_TEMP_PREFIX}") + r"(\d+)-[0-9a-f]{8}\.tmp")
    try:
        names = os.listdir(target.parent)
    except OSError:
        return
    for name in names:
        match = pattern.fullmatch(name)
        if match is None or int(match.group(1)) == os.getpid():
            continue
        try:
            os.kill(int(match.group(1)), 0)
            continue  # alive (or not ours to signal): it may be writing right now
        except ProcessLookupError:
            _unlink(target.parent / name)
        except (PermissionError, OverflowError, ValueError):
            continue


def _mode_for(target: Path) -> int:
    """The replaced file's permissions (a symlink's are no file's: then the umask's)."""
    try:
        if not target.is_symlink():
            return target.stat().st_mode & 0o777
    except OSError:
        pass
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def _fsync_directory(directory: Path) -> None:
    """Make the rename itself durable (POSIX); best effort elsewhere."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
