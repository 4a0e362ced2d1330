"""The bundled demo API: a target for tutorials, examples and the project's own tests.
`api` (the endpoints and what they remember), `server` (routing, HTTP plumbing, running it).
May import: nothing from scenario_core (it stands apart: a plain HTTP server over the standard library);
its modules import each other only as `scenario_core.demo.<module>`, never this package."""

from scenario_core.demo.server import DemoServer, serve_forever

__all__ = ["DemoServer", "serve_forever"]
