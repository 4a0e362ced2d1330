"""BerryCrush's `classpath:` names outside the JVM (docs/spec/berrycrush.md#configuration-outside-the-file): looked
up in the scenario file's folder, then each folder above it, each with its `src/test/resources`
and `src/main/resources`, up to the project root (`.git`, `settings.gradle(.kts)`)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from scenario_core.support.class_path import class_path_folders, find_on_class_path
from scenario_tui.cli.main import main

PETSTORE = Path(__file__).resolve().parents[2] / "core" / "demo" / "petstore.yaml"

SCENARIO = """parameters:
  binding.store.location: "classpath:specs/petstore.yaml"

scenario: the description is on the class path
  when I check the health endpoint
    call using store ^getHealth
    assert status 200
"""


def project(tmp_path: Path, spec_at: str) -> Path:
    """A Gradle-like project: settings.gradle.kts at its root, the scenario in
    module/src/test/resources/scenarios/, the description at `spec_at` (relative to the root)."""
    root = tmp_path / "project"
    (root / "module/src/test/resources/scenarios").mkdir(parents=True)
    (root / "settings.gradle.kts").write_text("", encoding="utf-8")
    (root / spec_at).parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(PETSTORE, root / spec_at)
    scenario = root / "module/src/test/resources/scenarios/health.scenario"
    scenario.write_text(SCENARIO, encoding="utf-8")
    return scenario


def test_a_classpath_location_is_found_in_the_resources_of_a_folder_above(tmp_path, capsys, demo):
    scenario = project(tmp_path, "module/src/main/resources/specs/petstore.yaml")
    assert main(["check", str(scenario)]) == 0
    report = tmp_path / "report.json"
    main(["run", str(scenario), "--base-url", demo.url, "--report-json", str(report)])
    capsys.readouterr()
    (file,) = json.loads(report.read_text(encoding="utf-8"))["files"]
    assert [s["status"] for s in file["scenarios"]] == ["passed"]


def test_the_class_path_is_searched_nearest_folder_first(tmp_path):
    scenario = project(tmp_path, "module/src/test/resources/specs/petstore.yaml")
    (scenario.parent / "specs").mkdir()
    (scenario.parent / "specs/petstore.yaml").write_text("nearest", encoding="utf-8")
    assert (
        find_on_class_path("classpath:/specs/petstore.yaml", str(scenario)) == scenario.parent / "specs/petstore.yaml"
    )


def test_the_class_path_walk_ends_at_the_project_root(tmp_path, capsys):
    scenario = project(tmp_path, "module/src/main/resources/specs/petstore.yaml")
    folders = class_path_folders(str(scenario))
    assert folders[-3:] == [
        tmp_path / "project",
        tmp_path / "project/src/test/resources",
        tmp_path / "project/src/main/resources",
    ]
    shutil.move(tmp_path / "project/module/src/main/resources/specs", tmp_path / "specs")  # above the root
    assert main(["check", str(scenario)]) == 2
    assert (
        "health.scenario:2:3: error: OpenAPI description 'classpath:specs/petstore.yaml' cannot be read"
        in capsys.readouterr().err
    )


def test_a_classpath_body_file_is_found_in_the_resources_of_a_folder_above(tmp_path, capsys, demo):
    scenario = project(tmp_path, "module/specs/petstore.yaml")
    (tmp_path / "project/module/src/main/resources/templates").mkdir(parents=True)
    (tmp_path / "project/module/src/main/resources/templates/echo.json").write_text('{"a": 1}', encoding="utf-8")
    scenario.write_text(
        SCENARIO + "\nscenario: a body file on the class path\n  when I echo it\n    call using store ^echoPost\n"
        '      bodyFile: "classpath:templates/echo.json"\n    assert $.json.a equals 1\n',
        encoding="utf-8",
    )
    report = tmp_path / "report.json"
    main(["run", str(scenario), "--base-url", demo.url, "--report-json", str(report)])
    capsys.readouterr()
    (file,) = json.loads(report.read_text(encoding="utf-8"))["files"]
    assert [s["status"] for s in file["scenarios"]] == ["passed", "passed"]
