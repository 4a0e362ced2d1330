"""The bundled demo API: a target for tutorials, examples and the project's own tests."""

from scenario_core.demo.server import DemoServer, serve_forever

__all__ = ["DemoServer", "serve_forever"]
