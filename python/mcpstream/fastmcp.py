"""FastMCP's Streamable HTTP client transport over mcpstream: hand it to ``fastmcp.Client`` (and
to whatever takes a FastMCP client or transport, as Pydantic AI does) in place of FastMCP's own.

    import fastmcp
    from mcpstream.fastmcp import StreamableHttpTransport

    async with fastmcp.Client(StreamableHttpTransport("http://127.0.0.1:8000/mcp")) as client:
        await client.call_tool("echo", {"text": "hi"})

Needs FastMCP 4 (``pip install 'mcpstream[fastmcp]'``); ``import mcpstream`` does not import it.
"""

# mypy: disallow-subclassing-any=False
# (FastMCP is an optional extra: where it is not installed, its classes are Any to mypy.)

from __future__ import annotations

import contextlib
import types
from typing import Any

try:
    import fastmcp.client.transports.http as fastmcp_http  # type: ignore[import-not-found, unused-ignore]
except ImportError as exc:  # pragma: no cover - the framework environment has the extra
    raise ImportError(
        "mcpstream.fastmcp needs FastMCP 4: pip install 'mcpstream[fastmcp]'"
    ) from exc

from .sdk.client import streamable_http_client

__all__ = ["StreamableHttpTransport"]


def _over_mcpstream(method: Any) -> Any:
    """FastMCP's own ``connect_session`` generator, the very same code, with the one global it
    opens the SDK's transport through (``streamable_http_client``) bound to mcpstream's.

    Reusing FastMCP's code, rather than a copy of it, keeps everything else it does exactly as
    the installed FastMCP release does it: the host client from ``httpx_client_factory``,
    ``verify`` or the SDK's defaults, with its headers, auth, timeouts and the hook that records
    the session id, and the session class of the client's options.
    """
    generator = method.__wrapped__
    code = generator.__code__
    if "streamable_http_client" not in code.co_names or code.co_freevars:
        raise ImportError(
            "mcpstream.fastmcp does not support this FastMCP release: its Streamable HTTP "
            "transport does not open the SDK's streamable_http_client as FastMCP 4 does"
        )
    namespace = dict(generator.__globals__)
    namespace["streamable_http_client"] = streamable_http_client
    function = types.FunctionType(
        code, namespace, generator.__name__, generator.__defaults__, generator.__closure__
    )
    function.__kwdefaults__ = generator.__kwdefaults__
    function.__qualname__ = generator.__qualname__
    function.__doc__ = generator.__doc__
    return contextlib.asynccontextmanager(function)


class StreamableHttpTransport(fastmcp_http.StreamableHttpTransport):
    """``fastmcp.client.transports.StreamableHttpTransport`` with mcpstream's transport and
    codec underneath: the same arguments (``url``, ``headers``, ``auth`` including
    ``"oauth"`` and a bearer token, ``httpx_client_factory``, ``verify``,
    ``max_sse_event_size``), the same host HTTP client built from them, the same session id
    (``get_session_id()``) and the same errors at ``fastmcp.Client``.

    Only this transport's connections change; ``mcpstream.sdk.install()`` moves every use of the
    SDK's transport in the process instead, FastMCP's own included.
    """

    # FastMCP's own method, its code run with mcpstream's streamable_http_client (see
    # _over_mcpstream): same keywords (``transport_options`` and the session's), same session.
    connect_session = _over_mcpstream(fastmcp_http.StreamableHttpTransport.connect_session)

    def __repr__(self) -> str:
        return f"<mcpstream StreamableHttpTransport(url={self.url!r})>"
