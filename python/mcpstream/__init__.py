"""mcpstream: a fast, correct Model Context Protocol Streamable HTTP client transport.

The hot path (UTF-8, SSE and JSON-RPC framing) runs in Rust when the native extension is
installed, and in a pure-Python twin otherwise; see ``mcpstream.codec``.

``Client`` and ``AsyncClient`` are the high-level clients (``mcpstream.client``); the transports
for hosts are in ``mcpstream.transport_http``; the errors in ``mcpstream.errors``.
"""

from __future__ import annotations

from . import client
from ._version import __version__
from .client import *  # noqa: F403 (the names of client.__all__, added to ours below)
from .errors import McpError, McpStreamError

__all__ = ["McpError", "McpStreamError", "__version__"]
__all__ += client.__all__
