"""The styles the panels give meaning with (an error, a pass, a warning, a value, an edit by the
user), named here and coloured by the Textual theme: a widget writes `Text("boom", ERROR)`, never a
colour. The names are entries of a Rich theme made from the Textual theme's `$text-error`,
`$text-success`... variables (the colours Textual picks to be read on the theme's background) and
pushed onto the app's console, which resolves a Rich renderable's style names as it is drawn. A
new Textual theme (`ctrl+p` "theme", `--theme`) pushes a new one: see `ThemeStyles`."""

from __future__ import annotations

from typing import Mapping, Protocol, runtime_checkable

from rich.style import Style
from rich.theme import Theme
from textual.app import App
from textual.theme import Theme as TextualTheme
from textual.widgets import Static

ERROR, ERROR_BOLD = "tui.error", "tui.error.bold"  # failed, refused, an old value replaced
SUCCESS, SUCCESS_BOLD = "tui.success", "tui.success.bold"  # passed, held, a new value
WARNING, WARNING_BOLD = "tui.warning", "tui.warning.bold"  # running, about to run, a caution
VALUE, VALUE_BOLD = "tui.value", "tui.value.bold"  # a variable's or parameter's value, an operation
EDIT, EDIT_BOLD = "tui.edit", "tui.edit.bold"  # what the user changed by hand (edit and continue)
MATCH = "tui.match"  # a JSONPath match in the playground's body

_ROLES = {  # style name -> the theme variable that colours it
    "tui.error": "text-error",
    "tui.success": "text-success",
    "tui.warning": "text-warning",
    "tui.value": "text-primary",
    "tui.edit": "text-secondary",
}


def rich_theme(variables: Mapping[str, str]) -> Theme:
    """The Rich theme for a Textual theme's CSS variables (`App.get_css_variables()`)."""
    styles: dict[str, Style] = {}
    for name, variable in _ROLES.items():
        colour = variables.get(variable) or variables.get(variable.removeprefix("text-"))
        styles[name] = Style(color=colour)
        styles[name + ".bold"] = Style(color=colour, bold=True)
    styles[MATCH] = Style(bold=True, color=variables.get("background"), bgcolor=variables.get("warning"))
    # Rich's JSON highlighting (the inspector's bodies) in the same colours, not Rich's defaults
    styles["json.key"] = styles["tui.value.bold"]
    styles["json.str"] = styles["tui.success"]
    styles["json.number"] = styles["tui.value"]
    styles["json.bool_true"] = styles["tui.success"] + Style(italic=True)
    styles["json.bool_false"] = styles["tui.error"] + Style(italic=True)
    styles["json.null"] = styles["tui.edit"] + Style(italic=True)
    return Theme(styles, inherit=True)


@runtime_checkable
class Restyles(Protocol):
    """A widget that keeps lines drawn with the old theme's colours (a log's strips) and draws
    them again when the theme changes."""

    def restyle(self) -> None: ...


class ThemeStyles:
    """Keeps the app console's Rich theme in step with the Textual theme, and has what is on
    screen drawn again when it changes (a Static's content was resolved when it was set)."""

    def __init__(self, app: App[int]) -> None:
        self.app = app
        self._pushed = False
        self._installed: str | None = None  # the Textual theme the pushed styles are made from

    def install(self) -> None:
        """Push the styles of the theme now in use (call on mount: `app.theme` is known then)."""
        console = self.app.console
        if self._pushed:
            console.pop_theme()
        console.push_theme(rich_theme(self.app.get_css_variables()))
        self._pushed = True
        self._installed = self.app.theme

    def follow(self) -> None:
        """From now on, every theme change restyles the app (and now: a theme set before the app
        ran is not announced)."""
        self.app.theme_changed_signal.subscribe(self.app, self._theme_changed)
        if self.app.theme != self._installed:
            self._theme_changed(self.app.current_theme)

    def _theme_changed(self, _theme: TextualTheme) -> None:
        self.install()
        for screen in self.app.screen_stack:
            for widget in screen.query("*"):
                if isinstance(widget, Restyles):
                    widget.restyle()
                elif isinstance(widget, Static):
                    widget.update(widget.content)
                else:
                    widget.refresh()
