"""mcpstream under the official MCP SDK: ``streamable_http_client`` is the SDK's Streamable
HTTP client transport (``mcp.client.streamable_http.streamable_http_client``) over mcpstream's
transport and codec, so a host keeps ``mcp.Client`` / ``ClientSession`` and changes one import:

    from mcpstream.sdk import streamable_http_client

    async with Client(streamable_http_client("http://127.0.0.1:8000/mcp")) as client:
        await client.call_tool("echo", {"text": "hi"})

Needs the ``sdk`` extra (``pip install 'mcpstream[sdk]'``, the pinned ``mcp``); ``import
mcpstream`` does not import it.

* ``client``: ``streamable_http_client``.
* ``streams``: ``SessionRelay``, the driver between the session's streams and the transport.
* ``messages``: the SDK's messages from mcpstream's decoded ones, and back.
* ``options``: mcpstream's own options of the transport.
* ``installer``: ``install()``, ``uninstall()``, ``installed()``: the SDK's own
  ``streamable_http_client`` over mcpstream everywhere in the process.
"""

from __future__ import annotations

try:
    import mcp  # noqa: F401  # the SDK is an optional extra: say so plainly
except ImportError as exc:  # pragma: no cover - the test environment has the extra
    raise ImportError(
        "mcpstream.sdk needs the official MCP SDK: pip install 'mcpstream[sdk]'"
    ) from exc

from .client import streamable_http_client, streamablehttp_client
from .installer import install, installed, uninstall
from .options import DEFAULT_CALL_TIMEOUT_S

__all__ = [
    "DEFAULT_CALL_TIMEOUT_S",
    "install",
    "installed",
    "streamable_http_client",
    "streamablehttp_client",
    "uninstall",
]
