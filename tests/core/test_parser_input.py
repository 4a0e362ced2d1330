"""What a scenario file may be: a regular file of at most MAX_FILE_BYTES. Anything else is one
line at once, before a byte is read past the limit (hardening: FIFO, /dev/zero, 200 MB files)."""

from __future__ import annotations

import os
import threading

import pytest

from scenario_core.language.errors import UsageError
from scenario_core.language.parser import MAX_FILE_BYTES, load_file


def _refused(path) -> str:
    with pytest.raises(UsageError) as raised:
        load_file(path)  # refused by its kind, before it is opened (a FIFO would block here)
    message = str(raised.value)
    assert "\n" not in message
    return message


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX FIFOs")
def test_input_fifo_is_refused_at_once(tmp_path):
    fifo = tmp_path / "pipe.scenario"
    os.mkfifo(fifo)
    # Were it opened, it would block until a writer came: a watchdog writer ends a failing test.
    watchdog = threading.Timer(5, lambda: open(fifo, "w").close())
    watchdog.start()
    try:
        assert _refused(fifo) == f"{fifo} is a FIFO, not a regular file; give a .scenario file"
    finally:
        watchdog.cancel()


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_input_dev_zero_is_refused_at_once():
    assert _refused("/dev/zero") == "/dev/zero is a device, not a regular file; give a .scenario file"


def test_input_directory_is_refused(tmp_path):
    assert _refused(tmp_path) == f"{tmp_path} is a directory; give a .scenario file"


def test_input_file_over_the_size_limit_is_refused_unread(tmp_path):
    big = tmp_path / "big.scenario"
    with open(big, "wb") as handle:  # sparse: 200 MB on paper, nothing on disk
        handle.truncate(200 * 1024 * 1024)
    assert _refused(big) == f"{big} is larger than 50 MB, the limit of a .scenario file"
    assert MAX_FILE_BYTES == 50 * 1024 * 1024


def test_input_file_at_the_size_limit_is_read(tmp_path):
    path = tmp_path / "comments.scenario"
    line = "#" * 1023 + "\n"
    path.write_text(line * (1024 * 4))  # 4 MB of comments: valid, runs nothing
    assert load_file(path).items == ()
