"""The bundled demo API: a target for tutorials, examples and the project's own tests.
May import: nothing from scenario_core (it stands apart: a plain HTTP server over the standard library)."""

from scenario_core.demo.server import DemoServer, serve_forever

__all__ = ["DemoServer", "serve_forever"]
