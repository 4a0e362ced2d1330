"""Paused before a request, the inspector shows it as it will be sent: the variables resolved as
they are now (an edit shows at once), the final URL, the headers and body, secrets masked; a
request that cannot be built yet says why, not the template alone."""

from __future__ import annotations

import re

from scenario_core.run.stepper import PAUSED

SIZE = (120, 40)

PREVIEW = """\
scenario: read with a token
  when: POST /login
    body: {"username": "demo", "password": "demo"}
  extract: token from $.token
  when: GET /pets/{{petId}}
    headers:
      Authorization: Bearer {{token}}
  then: status 404
"""


async def test_paused_before_a_request_the_inspector_shows_it_as_it_will_be_sent(scenario_file, make_app, ui):
    app = make_app(scenario_file(PREVIEW))
    async with app.run_test(size=SIZE) as pilot:
        await ui.settle(pilot)
        await ui.press(pilot, "n")  # paused before the login
        text = app.inspector.text
        assert "request, as it will be sent" in text
        assert re.search(r"^POST http://\S+/login$", text, re.MULTILINE)
        assert '"password": "demo"' not in text  # a secret's key: masked as once sent
        await ui.press(pilot, "n", "n")  # the login and its extract ran: paused before the GET
        assert app.stepper.state == PAUSED and app.stepper.current.step.location.line == 5
        text = app.inspector.text
        assert "cannot be built now: 'petId' is not defined here yet" in text
        assert "GET /pets/{{petId}}" in text  # the template, with why it cannot be sent yet
        await ui.press(pilot, "equals_sign")
        await ui.press(pilot, "7", "enter")  # the editor opens on petId, the value field focused
        assert "✎ petId set by you in scenario: 7" in app.scope_log.entries  # it had no value: set, no →
        text = app.inspector.text
        assert re.search(r"^GET http://\S+/pets/7$", text, re.MULTILINE)
        token = app.stepper.paused_snapshot().lookup("token")[1]
        assert token and token not in text and "Authorization: Bearer" in text
        await ui.press(pilot, "n")  # and what is sent is what was shown
        assert app.stepper.paused_after is None
        sent = app.run_controller.history.runs[-1].request
        assert sent.url.endswith("/pets/7")
