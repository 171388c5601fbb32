"""A demo MCP server (the official ``mcp`` SDK's server under uvicorn) that runs inside the
process, for ``mcpstream demo`` and for tests. Needs the ``demo`` extra:
``pip install 'mcpstream[demo]'``."""

from __future__ import annotations

from ._payload import DEMO_TEXT_UNIT
from .server import DemoServer, DemoServerUnavailableError, build_demo_server

__all__ = ["DEMO_TEXT_UNIT", "DemoServer", "DemoServerUnavailableError", "build_demo_server"]
