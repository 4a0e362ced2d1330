"""The scope log turns the lines that fit into strips itself at flush (perf): they must be the
strips RichLog.write makes, wrapped lines and the scroll position included."""

from __future__ import annotations

from rich.text import Text

from scenario_tui.widgets.scope_log import ScopeLog


def _through_write(self: ScopeLog) -> None:
    """The whole batch through RichLog.write, as before."""
    pending, self._pending = self._pending, []
    if pending:
        self.write(Text("\n").join(pending), expand=True)


def _shown(log: ScopeLog):
    strips = [(list(strip), strip.cell_length) for strip in log.lines]
    return strips, log.virtual_size, log._widest_line_width, log.scroll_target_y


async def test_the_log_draws_what_richlog_write_draws(pets_file, make_app, ui, monkeypatch):
    app = make_app(pets_file)
    async with app.run_test(size=(100, 30)) as pilot:  # some lines fit, some wrap
        await ui.settle(pilot)
        await ui.press(pilot, "c")
        await ui.settle(pilot)
        log = app.scope_log
        assert any(len(entry) > log.scrollable_content_region.width for entry in log.entries)
        log.rerender()
        ours = _shown(log)
        monkeypatch.setattr(ScopeLog, "flush", _through_write)
        log.rerender()
        assert len(ours[0]) > len(log.entries)  # (wrapped lines are in it)
        assert ours == _shown(log)
