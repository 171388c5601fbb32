"""Put on ``PYTHONPATH`` (this folder) to run a program written for the official SDK, such as
the SDK's own conformance client, with ``mcpstream.sdk.streamable_http_client`` in place of
``mcp.client.streamable_http.streamable_http_client`` (``scripts/sdk-conformance.sh``). Python
imports ``sitecustomize`` at startup; this one swaps the name in every module of ``mcp`` that
imported it, before the program runs. Not imported by mcpstream or its own tests."""

from __future__ import annotations

import sys


def _swap() -> None:
    import mcp.client.client
    import mcp.client.session_group
    import mcp.client.streamable_http
    from mcpstream.sdk import streamable_http_client

    original = mcp.client.streamable_http.streamable_http_client
    for name, module in list(sys.modules.items()):
        if (name == "mcp" or name.startswith("mcp.")) and getattr(
            module, "streamable_http_client", None
        ) is original:
            module.streamable_http_client = streamable_http_client  # type: ignore[attr-defined]
    print("mcpstream.sdk: streamable_http_client swapped in", file=sys.stderr)


_swap()
