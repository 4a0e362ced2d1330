"""`scenario-tui fmt FILE|DIR... [--check] [--diff]` as a user runs it (docs/fmt.md)."""

from __future__ import annotations

import os
import sys

import pytest

from tests.helpers import cli

MESSY = "scenario:  s\n    when:GET /a\n    then: status 200\nscenario: t\n    when: GET /b\n"
TIDY = "scenario: s\n  when: GET /a\n  then: status 200\n\nscenario: t\n  when: GET /b\n"


def test_fmt_rewrites_a_file_in_place_and_keeps_its_permissions(tmp_path):
    path = tmp_path / "a.scenario"
    path.write_text(MESSY, encoding="utf-8")
    os.chmod(path, 0o640)
    result = cli("fmt", str(path))
    assert result.returncode == 0, result.stderr
    assert path.read_text(encoding="utf-8") == TIDY
    assert os.stat(path).st_mode & 0o777 == 0o640
    assert "formatted 1 of 1 file" in result.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["a.scenario"]  # no temporary file left


def test_fmt_check_lists_the_files_that_would_change_and_writes_nothing(tmp_path):
    (tmp_path / "messy.scenario").write_text(MESSY, encoding="utf-8")
    (tmp_path / "tidy.scenario").write_text(TIDY, encoding="utf-8")
    result = cli("fmt", "--check", str(tmp_path))
    assert result.returncode == 1
    assert result.stdout.splitlines() == [str(tmp_path / "messy.scenario")]
    assert (tmp_path / "messy.scenario").read_text(encoding="utf-8") == MESSY


def test_fmt_check_on_tidy_files_exits_0_and_so_do_the_examples(tmp_path):
    (tmp_path / "tidy.scenario").write_text(TIDY, encoding="utf-8")
    assert cli("fmt", "--check", str(tmp_path)).returncode == 0
    examples = cli("fmt", "--check", "examples")
    assert examples.returncode == 0, examples.stdout + examples.stderr


def test_fmt_diff_prints_the_change_and_writes_nothing(tmp_path):
    path = tmp_path / "a.scenario"
    path.write_text(MESSY, encoding="utf-8")
    result = cli("fmt", "--diff", str(path))
    assert result.returncode == 0
    assert "\n-    when:GET /a\n" in result.stdout and "\n+  when: GET /a\n" in result.stdout
    assert path.read_text(encoding="utf-8") == MESSY


def test_an_invalid_file_is_one_located_line_exit_2_and_the_others_are_formatted(tmp_path):
    (tmp_path / "bad.scenario").write_text("scenario: s\n  when: FETCH /a\n", encoding="utf-8")
    good = tmp_path / "good.scenario"
    good.write_text(MESSY, encoding="utf-8")
    result = cli("fmt", str(tmp_path))
    assert result.returncode == 2
    (error, *_) = result.stderr.splitlines()
    assert error.startswith(f"{tmp_path / 'bad.scenario'}:2:9: error:")
    assert "Traceback" not in result.stderr
    assert good.read_text(encoding="utf-8") == TIDY


def test_a_folder_leaves_out_underscore_folders_and_formats_fragments(tmp_path):
    (tmp_path / "_aside").mkdir()
    (tmp_path / "_aside" / "bad.scenario").write_text("nonsense\n", encoding="utf-8")
    (tmp_path / "fragments").mkdir()
    fragment = tmp_path / "fragments" / "login.fragment"
    fragment.write_text("fragment: login\n    when: POST /login\n", encoding="utf-8")
    (tmp_path / "a.scenario").write_text("scenario: s\n  include: login\n", encoding="utf-8")
    result = cli("fmt", str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert fragment.read_text(encoding="utf-8") == "fragment: login\n  when: POST /login\n"


@pytest.mark.skipif(sys.platform == "win32", reason="symbolic links")
def test_a_symbolic_link_is_refused_and_its_target_left_alone(tmp_path):
    target = tmp_path / "real.scenario"
    target.write_text(MESSY, encoding="utf-8")
    link = tmp_path / "link.scenario"
    link.symlink_to(target)
    result = cli("fmt", str(link))
    assert result.returncode == 2
    assert "symbolic link" in result.stderr and len(result.stderr.splitlines()) == 1
    assert target.read_text(encoding="utf-8") == MESSY and link.is_symlink()


def test_bytes_that_are_not_utf8_are_one_located_line(tmp_path):
    path = tmp_path / "a.scenario"
    path.write_bytes(b"scenario: s\n  when: GET /\xff\n")
    result = cli("fmt", "--check", str(path))
    assert result.returncode == 2
    assert result.stderr.strip().endswith(f"{path}:2:14: the file is not UTF-8 text; nothing written")
