"""mcpstream: a fast, correct Model Context Protocol Streamable HTTP client transport.

The hot path (UTF-8, SSE and JSON-RPC framing) runs in Rust when the native extension is
installed, and in a pure-Python twin otherwise; see ``mcpstream.codec``.
"""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
