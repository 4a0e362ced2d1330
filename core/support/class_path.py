"""A standalone class path for BerryCrush's `classpath:` names (docs/spec/berrycrush.md#configuration-outside-the-file): JUnit
finds `classpath:x.yaml` in the module's resources; scenario-tui, run outside the JVM, looks in
the scenario file's folder, then each folder above it, and at each of them in the Gradle/Maven
resource folders `src/test/resources` and `src/main/resources` too. The walk ends at the project
root: the first folder holding `.git`, `settings.gradle` or `settings.gradle.kts` (else the file
system's root). The first match wins."""

from __future__ import annotations

from pathlib import Path

CLASSPATH = "classpath:"
# Within each folder of the walk, where a build tool puts a module's class-path resources.
RESOURCE_FOLDERS = ("", "src/test/resources", "src/main/resources")
PROJECT_ROOT_MARKERS = (".git", "settings.gradle", "settings.gradle.kts")


def class_path_folders(scenario_file: str) -> list[Path]:
    """The folders a `classpath:` name is looked up in, in order (module docstring)."""
    folders: list[Path] = []
    start = Path(scenario_file).resolve().parent
    for folder in (start, *start.parents):
        folders += [folder / resources if resources else folder for resources in RESOURCE_FOLDERS]
        if any((folder / marker).exists() for marker in PROJECT_ROOT_MARKERS):
            break
    return folders


def find_on_class_path(name: str, scenario_file: str) -> Path | None:
    """The file a class-path name (`classpath:` prefix optional, leading `/` ignored) names, or None."""
    relative = name[len(CLASSPATH) :] if name.startswith(CLASSPATH) else name
    relative = relative.lstrip("/")
    if not relative:
        return None
    for folder in class_path_folders(scenario_file):
        candidate = folder / relative
        if candidate.is_file():
            return candidate
    return None


def written_location(raw: str, scenario_file: str) -> str:
    """Where a description location written in a scenario file (`openapi:`,
    `binding.NAME.location:`) points: a `classpath:` name on the class path (left as written when
    nothing matches, so the error names it), any other relative path beside the file."""
    if raw.startswith(CLASSPATH):
        found = find_on_class_path(raw, scenario_file)
        return str(found) if found is not None else raw
    return str(Path(scenario_file).parent / raw)
