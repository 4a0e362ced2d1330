"""An imported HAR replays green against a live API that hands out other values than the
recording (tests/core/shop_server.py), and passes `check` (its run variables are warnings)."""

from __future__ import annotations

from pathlib import Path

import pytest

from scenario_core.editor.render import render_file
from scenario_core.importing.har import read_har
from scenario_tui.cli.main import main
from tests.core.shop_server import ShopServer

FIXTURES = Path(__file__).parent.parent / "fixtures" / "har"


@pytest.mark.parametrize("shape", ["chrome", "firefox", "mitmproxy"])
@pytest.mark.parametrize("dialect", ["ours", "berrycrush"])
def test_an_imported_recording_replays_against_new_values(tmp_path, capsys, shape, dialect):
    scenario = tmp_path / "shop.scenario"
    scenario.write_text(render_file(read_har(str(FIXTURES / f"shop-{shape}.har")), dialect))
    assert main(["check", str(scenario)]) == 0
    assert main(["fmt", "--check", str(scenario)]) == 0  # written in the canonical layout already
    with ShopServer(password="pw-live", consent="yes") as shop:
        code = main(["run", str(scenario), "--base-url", shop.url, "--var", "password=pw-live", "--var", "consent=yes"])
    assert code == 0, capsys.readouterr()
    assert [(method, status) for method, _, status in shop.seen] == [
        ("POST", 200),
        ("GET", 200),
        ("POST", 201),
        ("GET", 200),
        ("POST", 201),
        ("GET", 200),
        ("POST", 202),
        ("GET", 200),
        ("DELETE", 204),
    ]
    assert shop.seen[3][1] != "/pets/4711" and shop.seen[3][1].startswith("/pets/9")  # the live id


def test_a_replay_with_a_wrong_credential_fails_where_the_server_refuses(tmp_path, capsys):
    scenario = tmp_path / "shop.scenario"
    scenario.write_text(render_file(read_har(str(FIXTURES / "shop-chrome.har"))))
    with ShopServer(password="pw-live") as shop:
        code = main(["run", str(scenario), "--base-url", shop.url, "--var", "password=wrong", "--var", "consent=yes"])
    assert code == 1
    assert shop.seen == [("POST", "/login", 401)]


def test_import_har_on_the_command_line_writes_a_file_that_replays(tmp_path, capsys):
    scenario = tmp_path / "shop.scenario"
    har = str(FIXTURES / "shop-mitmproxy.har")
    assert main(["import", "har", har, "-o", str(scenario), "--host", "api.shop.test"]) == 0
    assert "the file needs the run variables password, consent" in capsys.readouterr().err
    with ShopServer() as shop:
        code = main(["run", str(scenario), "--base-url", shop.url, "--var", "password=pw-live", "--var", "consent=yes"])
    assert code == 0 and len(shop.seen) == 9
