"""The bundled demo API: a target for tutorials, examples and the project's own tests."""

from .server import DemoServer, serve_forever

__all__ = ["DemoServer", "serve_forever"]
