"""What the demo's tools send, without the ``mcp`` SDK: the server (``server``) and its tools
(``_tools``) both import it, and neither imports the other at the top (the server loads the
tools only when it builds itself)."""

from __future__ import annotations

__all__ = ["DEMO_TEXT_UNIT"]

DEMO_TEXT_UNIT = "mcpstream streams \u2713 caf\u00e9 \u65e5\u672c \U0001f680 \u2028 fast. "
"""The text the ``big_text`` tool repeats: multi-byte characters and a U+2028 included."""
