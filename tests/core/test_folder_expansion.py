"""A folder argument is its `*.scenario` files, except in sub-folders named `_*` or `.*`; those
are named so a run can say what it left out. A folder named itself, or a file in it, still runs."""

from __future__ import annotations

from scenario_core.parameters.run_inputs import expand_scenario_paths, folders_left_out


def _tree(tmp_path):
    for name in ("a.scenario", "sub/b.scenario", "_aside/c.scenario", "_aside/deep/d.scenario", ".hidden/e.scenario"):
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("scenario: s\n", encoding="utf-8")


def test_a_folder_leaves_out_sub_folders_named_underscore_or_dot(tmp_path):
    _tree(tmp_path)
    assert expand_scenario_paths([str(tmp_path)]) == [str(tmp_path / "a.scenario"), str(tmp_path / "sub/b.scenario")]


def test_folders_left_out_names_each_outermost_one_once(tmp_path):
    _tree(tmp_path)
    assert folders_left_out([str(tmp_path)]) == [str(tmp_path / ".hidden"), str(tmp_path / "_aside")]
    assert folders_left_out([str(tmp_path / "a.scenario")]) == []


def test_a_left_out_folder_named_itself_or_its_file_runs(tmp_path):
    _tree(tmp_path)
    aside = tmp_path / "_aside"
    assert expand_scenario_paths([str(aside)]) == [str(aside / "c.scenario"), str(aside / "deep/d.scenario")]
    assert expand_scenario_paths([str(aside / "c.scenario")]) == [str(aside / "c.scenario")]
