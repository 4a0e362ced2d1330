"""Plugins: the `@step` / `@assertion` decorators a plugin module uses, and loading plugins.

A plugin module decorates functions with a pattern (see `patterns`):

    from scenario_core.custom_steps import assertion, step

    @step("the pet {string} is {word}")
    def pet_is(ctx, name, status): ...

    @assertion("the pet should have status {string}")
    def has_status(ctx, status): return ctx.response.json["status"] == status

Plugins come from the entry-point group `scenario_tui.steps` and from `--plugins MODULE|FILE.py`;
`load_registry` imports them (importing registers their functions) and keeps what they defined.
"""

from __future__ import annotations

import functools
import importlib
import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Sequence

from scenario_core.custom_steps.patterns import Definition, StepFunction
from scenario_core.custom_steps.registry import Registry, one_line
from scenario_core.language.errors import UsageError

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

ENTRY_POINT_GROUP = "scenario_tui.steps"


class PluginError(UsageError):
    """A plugin that cannot be found or imported: a one-line usage error naming it."""


# Every decorated function of the process, in import order; load_registry keeps those of the
# modules it loaded (importing a module twice does not run its decorators twice).
_registered: list[Definition] = []


def step(pattern: str) -> Callable[[StepFunction], StepFunction]:
    """`@step("the pet {string} is {word}")` registers `fn(ctx, name, status)` as a custom step."""
    return _register("step", pattern)


def assertion(pattern: str) -> Callable[[StepFunction], StepFunction]:
    """`@assertion("the pet should have status {string}")` registers a custom assertion: it
    fails when it returns False or raises."""
    return _register("assertion", pattern)


def _register(kind: str, pattern: str) -> Callable[[StepFunction], StepFunction]:
    Definition.make(kind, pattern, _register)  # a bad pattern fails at the decorator's line

    def decorate(function: StepFunction) -> StepFunction:
        _registered.append(Definition.make(kind, pattern, function))
        return function

    return decorate


def _entry_points() -> list[EntryPoint]:
    from importlib.metadata import entry_points  # only when a file has custom steps or --plugins

    return list(entry_points(group=ENTRY_POINT_GROUP))


def _failure(error: BaseException) -> str:
    """`TypeName: message (file.py:LINE)`: where the plugin broke, in one line."""
    import traceback

    text = one_line(str(error), 200)
    line = f"{type(error).__name__}: {text}" if text else type(error).__name__
    if isinstance(error, SyntaxError) and error.filename:
        return f"{type(error).__name__}: {one_line(error.msg or '', 200)} ({Path(error.filename).name}:{error.lineno})"
    # Not the plugin's frames: this whole package's (the decorators, the pattern that refused
    # them, the loading) and the import machinery's.
    package = str(Path(__file__).resolve().parent) + os.sep
    machinery = (package, str(Path(importlib.__file__).resolve().parent) + os.sep)
    frames = [
        f
        for f in traceback.extract_tb(error.__traceback__)  # the plugin's own frames
        if not f.filename.startswith("<") and not str(Path(f.filename).resolve()).startswith(machinery)
    ]
    if frames:
        line += f" ({Path(frames[-1].filename).name}:{frames[-1].lineno})"
    return line


def _append_path(directory: str) -> None:
    # Appended, not prepended: a plugin folder never shadows the standard library or installed packages.
    if directory not in sys.path:
        sys.path.append(directory)


def _import_item(item: str) -> str:
    """Import one --plugins item; the module's name."""
    if item.endswith(".py") or "/" in item or os.sep in item:
        import hashlib
        from importlib.util import module_from_spec, spec_from_file_location

        path = Path(item).expanduser()
        if not path.is_file():
            raise PluginError(f"--plugins {item}: no such file")
        resolved = path.resolve()
        stem = re.sub(r"\W", "_", resolved.stem)
        name = f"scenario_plugin_{stem}_{hashlib.sha1(str(resolved).encode()).hexdigest()[:8]}"
        if name in sys.modules:
            return name
        spec = spec_from_file_location(name, resolved)
        if spec is None or spec.loader is None:
            raise PluginError(f"--plugins {item}: not a Python module")
        module = module_from_spec(spec)
        _append_path(str(resolved.parent))  # so it can import its neighbours
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[name]
            raise
        return name
    if not all(part.isidentifier() for part in item.split(".")):
        raise PluginError(f"--plugins {item}: expected a module name (pets.steps) or a path to a .py file")
    _append_path(os.getcwd())  # `--plugins pet_steps` finds ./pet_steps.py, as `python -m` would
    importlib.import_module(item)
    return item


def _guarded(what: str, load: Callable[[], str]) -> str:
    before = len(_registered)
    try:
        return load()
    except PluginError:
        raise
    except (Exception, SystemExit) as error:
        del _registered[before:]  # a half-imported plugin registers nothing
        raise PluginError(f"{what}: cannot import: {_failure(error)}") from None


def load_registry(plugins: Sequence[str] = (), *, entry_points: bool = True) -> Registry:
    """Import the entry points of group `scenario_tui.steps`, then each --plugins item (a module
    name or a .py file), and return what they registered, in that order. Raises PluginError
    (a UsageError: one line, exit status 2) naming a plugin that cannot be imported."""
    before = len(_registered)
    modules: list[str] = []
    if entry_points:
        try:
            found = _entry_points()
        except Exception as error:  # broken installed metadata
            raise PluginError(f"entry points {ENTRY_POINT_GROUP}: {_failure(error)}") from None
        for point in found:

            def load(point: EntryPoint = point) -> str:
                point.load()
                return point.module

            modules.append(_guarded(f"entry point {point.name} ({point.value})", load))
    for item in plugins:
        modules.append(_guarded(f"--plugins {item}", functools.partial(_import_item, item)))
    chosen: list[Definition] = []
    seen: set[int] = set()
    for module in modules:  # in plugin order: the first registered wins
        for definition in _registered:
            if (definition.module == module or definition.module.startswith(module + ".")) and id(
                definition
            ) not in seen:
                chosen.append(definition)
                seen.add(id(definition))
    for definition in _registered[before:]:  # helper modules the plugins imported
        if id(definition) not in seen:
            chosen.append(definition)
            seen.add(id(definition))
    return Registry(chosen)


# plugin_registry's: one Registry per --plugins list, for the life of the process.
_registries: dict[tuple[str, ...], Registry] = {}


def plugin_registry(plugins: Sequence[str] = ()) -> Registry:
    """The custom steps of --plugins and installed entry points, imported once per process.
    Raises PluginError (a UsageError) naming a plugin that does not import."""
    key = tuple(plugins)
    if key not in _registries:
        _registries[key] = load_registry(key)
    return _registries[key]
