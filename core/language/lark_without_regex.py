"""lark imports the third-party `regex` package whenever it is installed (in `lark.utils` and
`lark.lark`; ~10 ms of start-up, most of it `regex._regex_core`) but uses it only for
`Lark(regex=True)`, which this project never asks for. `hide_regex_from_lark()` (called by this
package's `__init__`, before any module imports lark) makes those two imports fail, as if `regex`
were not installed; every other import of `regex` (a `matches` assertion's) is left alone, and so
is a process that had already imported it. The finder steps aside once lark has been imported."""

from __future__ import annotations

import sys

_LARK_MODULES = ("lark.utils", "lark.lark")  # each sets `_has_regex` after trying `import regex`


class _HideRegexFromLark:
    @staticmethod
    def find_spec(name: str, path: object = None, target: object = None) -> None:
        if name != "regex":
            return None
        loading = [sys.modules.get(module) for module in _LARK_MODULES]
        if all(module is not None and hasattr(module, "_has_regex") for module in loading):
            _remove()  # lark is imported: never in the way again
            return None
        if any(module is not None and not hasattr(module, "_has_regex") for module in loading):
            raise ModuleNotFoundError("hidden from lark (scenario_core.language.lark_without_regex)")
        return None


def _remove() -> None:
    if _HideRegexFromLark in sys.meta_path:
        sys.meta_path.remove(_HideRegexFromLark)


def hide_regex_from_lark() -> None:
    if "lark" not in sys.modules and "regex" not in sys.modules and _HideRegexFromLark not in sys.meta_path:
        sys.meta_path.insert(0, _HideRegexFromLark)
