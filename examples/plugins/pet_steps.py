"""Custom steps and assertions for the demo pet-store API: a worked example of a plugin.

    scenario-tui demo-server --port 8000 &
    scenario-tui run --plugins examples/plugins/pet_steps.py examples/plugins/custom_steps.scenario

A step is a function `fn(ctx, *values)` registered for a pattern; it passes by returning and
fails by raising AssertionError or StepFailed. An assertion passes when it returns True (or
None) and fails when it returns False or raises.
"""

from __future__ import annotations

import asyncio

import httpx

from scenario_core.custom_steps import StepFailed, assertion, step


@step("a pet named {string} tagged {word} exists")
async def pet_exists(ctx, name, tag):
    """Create the pet through the API (async: the run and the TUI stay responsive meanwhile)
    and remember its id as `petId`, as `extract $.id => petId` would."""
    base_url = ctx.parameters.get("baseUrl")
    token = ctx.variables.get("token")
    if not base_url or not token:
        raise StepFailed("needs the baseUrl parameter and a token variable (log in first)")
    async with httpx.AsyncClient(base_url=base_url, timeout=ctx.parameters.get("timeout", 30)) as client:
        response = await client.post(
            "/pets", json={"name": name, "tag": tag}, headers={"Authorization": f"Bearer {token}"}
        )
    assert response.status_code == 201, f"creating {name} answered {response.status_code}"
    ctx.set("petId", response.json()["id"])


@step("I remember the pet's {word} as {word}")
def remember(ctx, field, variable):
    """Copy a field of the last response's JSON body into a variable."""
    if ctx.response is None or not isinstance(ctx.response.json, dict):
        raise StepFailed("no JSON object to read: call an operation first")
    if field not in ctx.response.json:
        raise StepFailed(f"the response has no field {field!r}")
    ctx.set(variable, ctx.response.json[field])


@step("I wait {float} seconds")
async def wait(ctx, seconds):
    await asyncio.sleep(seconds)


@assertion("the pet should be called {string}")
def is_called(ctx, name):
    body = ctx.response.json if ctx.response is not None else None
    return isinstance(body, dict) and body.get("name") == name


@assertion("the response lists at least {int} pets")
def lists_pets(ctx, count):
    pets = ctx.response.json if ctx.response is not None else None
    assert isinstance(pets, list), "the response is not a list of pets"
    assert len(pets) >= count, f"the response lists {len(pets)} pets, expected at least {count}"
