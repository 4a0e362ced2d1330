"""How many scenarios of BerryCrush's petstore sample end as BerryCrush ends them.

Run by hand, never by the test suite, and it fetches nothing: give it the sample's
`src/test/resources` folder from a local copy of BerryCrush's repository, with the descriptions
its JUnit class names (`petstore.yaml`, `auth.yaml`) in it:

    .venv/bin/python bench/berrycrush_petstore_run.py COPY/samples/petstore/scenario/src/test/resources

It starts a loopback stand-in for the sample's Spring application (written from its controllers'
documented behaviour: pets under /api/v1 with pet 1 "Max" seeded, upsert on PUT, the OpenAPI 3.1
controller under /api/v2, login under /auth/api/v1 accepting test/test and admin/admin) and runs
every `scenarios/**/*.scenario` with `scenario-tui run`, the way the JUnit class and its bindings
class configure BerryCrush: the three descriptions with their base URLs,
`@BerryCrushTags(exclude = "ignore")` as `--tags 'not ignore'`.

BerryCrush's own outcome is taken to be what its CI shows for the sample: every selected scenario
passes (its Kotlin custom steps included) and `@ignore` ones are not run, but for the few that
a reading of BerryCrush's code says fail there too (BERRYCRUSH_FAILS). A scenario whose status
differs is listed with our message: a deliberate difference (docs/berrycrush.md), a custom step
that needs Kotlin, or a gap. The stand-in is an approximation of the application, so a mismatch
may also be the stand-in's.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import re
import sys
import tempfile
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from scenario_tui.cli.main import main as scenario_tui

STATUSES = ("available", "pending", "sold")
# Where BerryCrush's outcome is not "passed" (a reading of BerryCrush's code): scenario -> status.
BERRYCRUSH_FAILS = {
    # `assert $.name equals {{expectedName}}` with nothing setting it: BerryCrush compares with
    # the literal text (docs/spec/berrycrush.md#keywords-and-comments, an unresolved reference stays), so it fails too.
    "test file for copilot": "failed",
}


class Petstore:
    """The application's state: pets by id, a counter for new ids."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.pets: dict[int, dict] = {1: {"id": 1, "name": "Max", "status": "available"}}
        self.next_id = 2


def _error(code: int, message: str, *details: str) -> tuple[int, dict]:
    return code, {"code": code, "message": message, "details": list(details)}


def _new_pet(body: object) -> tuple[dict | None, tuple[int, dict] | None]:
    """A NewPet as the application validates it (name required, 1-100; status one of three)."""
    if not isinstance(body, dict):
        return None, _error(400, "Validation failed", "body must be an object")
    name, status = body.get("name"), body.get("status")
    if not isinstance(name, str) or not name.strip() or len(name) > 100:
        return None, _error(400, "Validation failed", "name must be 1 to 100 characters")
    if status is not None and (not isinstance(status, str) or (status.strip() and status.lower() not in STATUSES)):
        return None, _error(400, "Validation failed", "status must be one of: available, pending, sold")
    for key, kind in (("category", str), ("tags", list), ("price", (int, float))):
        if body.get(key) is not None and not isinstance(body[key], kind):
            return None, _error(400, "Validation failed", f"{key} has the wrong type")
    if isinstance(body.get("price"), (int, float)) and body["price"] < 0:
        return None, _error(400, "Validation failed", "price must be >= 0")
    pet = {"name": name, "status": status or "available"}
    pet.update({k: body[k] for k in ("category", "tags", "price") if body.get(k) is not None})
    return pet, None


_V2_TYPES = {
    "nickname": str,
    "species": str,
    "status": str,
    "age": int,
    "vaccinated": bool,
    "vaccinationDate": str,
    "coordinates": list,
}


def _new_pet_v2(body: object) -> tuple[dict | None, tuple[int, dict] | None]:
    """A NewPetV2 as the application reads it: a value of the wrong JSON type (or a date that is
    not ISO) fails deserialisation, which the sample's scenarios expect as 500; then NewPet's rules."""
    if isinstance(body, dict):
        for key, kind in _V2_TYPES.items():
            value = body.get(key)
            wrong = value is not None and (not isinstance(value, kind) or (kind is int and isinstance(value, bool)))
            if key == "vaccinationDate" and isinstance(value, str) and not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
                wrong = True
            if key == "coordinates" and isinstance(value, list):
                wrong = any(not isinstance(c, (int, float)) or isinstance(c, bool) for c in value)
            if wrong:
                return None, _error(500, "Internal Server Error", f"cannot read {key}")
    pet, problem = _new_pet(body)
    if pet is None:
        return None, problem
    assert isinstance(body, dict)
    pet.update({key: body.get(key) for key in _V2_TYPES if key != "status"})
    return pet, None


def handler_for(store: Petstore) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:  # quiet
            pass

        def _send(self, status: int, body: object = None) -> None:
            data = b"" if body is None else json.dumps(body).encode()
            self.send_response(status)
            if body is not None:
                self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _body(self) -> object:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                return json.loads(raw) if raw else None
            except ValueError:
                return ...

        def _route(self, method: str) -> tuple[int, object]:
            url = urlsplit(self.path)
            query = {k: v[-1] for k, v in parse_qs(url.query).items()}
            body = self._body() if method in ("POST", "PUT") else None
            if body is ...:
                return _error(400, "Malformed JSON")
            if url.path == "/auth/api/v1/login" and method == "POST":
                creds = body if isinstance(body, dict) else {}
                user, password = creds.get("username"), creds.get("password")
                if not user or not password:
                    return _error(400, "Invalid request", "username and password are required")
                if (user, password) in (("admin", "admin"), ("test", "test")):
                    return 200, {"token": str(uuid.uuid4()), "expiresIn": 3600}
                return _error(401, "Invalid credentials")
            if url.path == "/auth/api/v1/logout" and method == "POST":
                return 200, {"message": "Logout successful"}
            with store.lock:
                if url.path == "/api/v2/pets":  # the OpenAPI 3.1 controller: apiVersion, more fields
                    if method == "GET":
                        found = list(store.pets.values())
                        return 200, {"pets": found[:20], "apiVersion": "v2", "total": len(found)}
                    if method == "POST":
                        pet, problem = _new_pet_v2(body)
                        if problem:
                            return problem
                        assert pet is not None
                        pet = {"id": store.next_id, **pet}
                        store.pets[store.next_id] = pet
                        store.next_id += 1
                        return 201, pet
                if url.path.startswith("/api/v2/pets/"):
                    url = url._replace(path="/api/v1" + url.path[len("/api/v2") :])  # as v1 answers them
                if url.path == "/api/v1/pets":
                    if method == "GET":
                        try:
                            limit = int(query.get("limit", "20"))
                        except ValueError:
                            return _error(400, "Invalid limit value")
                        status = query.get("status")
                        if not 1 <= limit <= 100:
                            return _error(400, "Invalid limit value", "limit must be between 1 and 100")
                        if status and status.lower() not in STATUSES:
                            return _error(400, "Invalid status value")
                        found = [p for p in store.pets.values() if not status or p["status"] == status.lower()]
                        return 200, {"pets": found[:limit], "total": len(found)}
                    if method == "POST":
                        pet, problem = _new_pet(body)
                        if problem:
                            return problem
                        assert pet is not None
                        pet = {"id": store.next_id, **pet}
                        store.pets[store.next_id] = pet
                        store.next_id += 1
                        return 201, pet
                match = re.fullmatch(r"/api/v1/pets/([^/]+)", url.path)
                if match:
                    try:
                        pet_id = int(match.group(1))
                    except ValueError:
                        return _error(400, "Invalid pet id")
                    missing = _error(404, "Pet not found", f"No pet exists with id: {pet_id}")
                    if method == "GET":
                        return (200, store.pets[pet_id]) if pet_id in store.pets else missing
                    if method == "DELETE":
                        return (204, None) if store.pets.pop(pet_id, None) is not None else missing
                    if method == "PUT":
                        pet, problem = _new_pet(body)
                        if problem:
                            return problem
                        assert pet is not None
                        created = pet_id not in store.pets
                        store.pets[pet_id] = {"id": pet_id, **pet}
                        return (201 if created else 200), store.pets[pet_id]
            return _error(404, "Not found")

        def _handle(self) -> None:
            status, body = self._route(self.command)
            self._send(status, body)

        do_GET = do_POST = do_PUT = do_DELETE = _handle

    return Handler


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("resources", type=Path, help="the sample's src/test/resources folder")
    args = parser.parse_args(argv)
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler_for(Petstore()))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    files = sorted(str(p) for p in (args.resources / "scenarios").rglob("*.scenario"))
    matched = total = 0
    with tempfile.TemporaryDirectory() as folder:
        for path in files:  # one run per file, as JUnit runs each file with a fresh context
            report = Path(folder) / f"{len(str(path))}-{Path(path).stem}.json"  # never a previous file's
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                scenario_tui(
                    [
                        "run",
                        path,
                        "--openapi",
                        str(args.resources / "petstore.yaml"),
                        "--openapi",
                        f"auth={args.resources / 'auth.yaml'}",
                        "--base-url",
                        f"{base}/api/v1",
                        "--param",
                        f"binding.auth.baseUrl={base}/auth/api/v1",
                        "--openapi",  # PetstoreBindings also names the 3.1 description, at /api/v2
                        f"openApi31={args.resources / 'petstore-31.yaml'}",
                        "--param",
                        f"binding.openApi31.baseUrl={base}/api/v2",
                        "--tags",
                        "not ignore",
                        "--report-json",
                        str(report),
                    ]
                )
            if not report.exists():
                print(f"refused  {path}")
                continue
            for file in json.loads(report.read_text(encoding="utf-8"))["files"]:
                for scenario in file["scenarios"]:
                    total += 1
                    # skipped: only `@ignore` ones are (--tags), which BerryCrush does not run either
                    expected = BERRYCRUSH_FAILS.get(scenario["name"], "passed")
                    if scenario["status"] in (expected, "skipped"):
                        matched += 1
                        continue
                    failed = next((s for s in scenario["steps"] if s["status"] == "failed"), None)
                    why = f"line {failed['line']}: {failed['message']}" if failed else ""
                    print(f"{scenario['status']:8} {Path(path).name}: {scenario['name']}  -- {why}"[:260])
    server.shutdown()
    print(f"\n{matched}/{total} scenarios end as BerryCrush ends them")
    return 0


if __name__ == "__main__":
    sys.exit(main())
