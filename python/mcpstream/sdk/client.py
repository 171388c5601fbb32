"""``streamable_http_client``: the SDK's Streamable HTTP client transport, over mcpstream."""

from __future__ import annotations

import threading
from collections.abc import AsyncGenerator, Callable
from contextlib import asynccontextmanager
from datetime import timedelta
from typing import TYPE_CHECKING, Any, TypeVar

import anyio
import httpx
import httpx2
from mcp.shared.message import SessionMessage
from typing_extensions import deprecated

from .._http.core import ReconnectPolicy
from .._http.host_settings import host_url
from .._timeouts import DEFAULT_CONNECT_TIMEOUT_S, check_connect_timeout
from ..codec import DEFAULT_MAX_EVENT_BYTES
from ..models import McpOAuthConfig
from ..oauth import AsyncMcpOAuthRedirectHandler, McpOAuthRedirectHandler
from ..oauth_store import McpOAuthTokenStore
from .host import close_shared
from .line import MAJOR
from .options import FROM_HOST, SERVER_ID, FromHost, RelayOptions, resolve_call_timeout
from .streams import SessionRelay

if TYPE_CHECKING:
    # 2.x's alias of (read stream, write stream); 1.x yields (read, write, get_session_id).
    from mcp.client._transport import TransportStreams

__all__ = ["streamable_http_client", "streamablehttp_client"]

T = TypeVar("T")


@asynccontextmanager
async def streamable_http_client(
    url: str,
    *,
    http_client: httpx2.AsyncClient | httpx.AsyncClient | None = None,
    terminate_on_close: bool = True,
    max_sse_event_size: int | None = DEFAULT_MAX_EVENT_BYTES,
    call_timeout_s: float | FromHost | None = FROM_HOST,
    connect_timeout_s: float | None = DEFAULT_CONNECT_TIMEOUT_S,
    reconnect_policy: ReconnectPolicy | None = None,
    listen: bool = True,
    headers: dict[str, str] | None = None,
    server_id: str | None = SERVER_ID,
    oauth: McpOAuthConfig | None = None,
    oauth_store: McpOAuthTokenStore | None = None,
    oauth_redirect_handler: AsyncMcpOAuthRedirectHandler | McpOAuthRedirectHandler | None = None,
) -> AsyncGenerator[TransportStreams, None]:
    """The transport streams of ``mcp.client.streamable_http.streamable_http_client`` (same
    keywords, same items: ``SessionMessage | Exception`` read, ``SessionMessage`` written), over
    mcpstream's transport and codec: ``mcp.Client(transport)`` and ``ClientSession(read,
    write)`` work unchanged, in every ``mode``.

    The SDK's keywords: ``http_client`` (the host's client: an ``httpx2.AsyncClient`` as the
    SDK takes, an ``httpx.AsyncClient``, a subclass of either or an object forwarding to one;
    every request goes through it with its own timeouts, mcpstream's only where it has none;
    None: one of mcpstream's own on httpx2, closed on exit; a client given is left open),
    ``terminate_on_close`` (DELETE the session on exit), ``max_sse_event_size`` (bytes of one
    SSE event once decompressed; 64 MiB by default, where the SDK's is 1 MiB; None: no limit;
    as in the SDK, JSON bodies are not capped by it: they keep mcpstream's limit, 64 MiB or
    the event cap if larger; keywords a release of the SDK lacks are accepted all the same).

    mcpstream's: ``call_timeout_s`` (one request's deadline, end to end; by default none when
    the host's client has a read timeout, else 600 s; None: no limit), ``connect_timeout_s``
    (10 s, where the host's client sets no connect timeout; None: the request's whole
    deadline), ``reconnect_policy`` (resuming a broken stream, reopening the GET stream),
    ``listen`` (open the GET stream after the handshake), ``headers`` (sent with every
    request), ``server_id`` (names the server in errors and logs; by default its
    ``host:port``, or with ``oauth`` its canonical URL, the token store's key), and
    mcpstream's OAuth 2.1 (``oauth``, ``oauth_store``, ``oauth_redirect_handler``).

    Failures reach the session as over the SDK's transport: what the HTTP client raises
    before a request has its answer (connection refused, DNS, TLS, the client's timeouts, a
    connection closed) ends the transport's task group with that exception; anything else is
    a JSON-RPC error for the request, coded as the SDK's transport codes it (see
    ``messages.http_failure`` and ``messages.failure_message``); a message the SDK's models
    refuse is handed to the session as the ``ValidationError`` the SDK's transport hands it.
    """
    url = host_url(url, http_client)  # a relative endpoint under the client's base_url
    options = RelayOptions(
        max_sse_event_size=max_sse_event_size,
        call_timeout_s=resolve_call_timeout(call_timeout_s, http_client),
        connect_timeout_s=check_connect_timeout(connect_timeout_s),
        reconnect_policy=reconnect_policy,
        listen=listen,
        headers=dict(headers or {}),
        server_id=server_id,
        oauth=oauth,
        oauth_store=oauth_store,
        oauth_redirect_handler=oauth_redirect_handler,
    )
    read_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](0)
    try:

        def make() -> SessionRelay:
            return SessionRelay(url, options, http_client, read_writer)

        # Off the event loop: making the transport reads the file system (the TLS trust store
        # of a client of its own, the workspace path), which an event loop's blocking-call
        # checks (the SDK's own tests run one) refuse.
        relay = await _off_the_loop(make)
    except BaseException:
        for stream in (read_writer, read_stream, write_stream, write_reader):
            stream.close()
        raise
    try:
        async with (
            read_writer,
            read_stream,
            write_stream,
            write_reader,
            anyio.create_task_group() as tg,
        ):
            tg.start_soon(relay.run, write_reader, write_stream, tg)
            streams: Any = (read_stream, write_stream)
            if MAJOR == 1:
                streams += (relay.session_id,)
            try:
                yield streams
            finally:
                tg.cancel_scope.cancel()
    finally:
        with anyio.CancelScope(shield=True):
            await relay.close(terminate=terminate_on_close)


async def _off_the_loop(make: Callable[[], T]) -> T:
    """``make()``, run in a thread of its own that has ended when this returns: a thread of
    anyio's pool would stay alive (idle, pooled) after the last session, where the SDK's
    transport leaves none. As ``anyio.to_thread.run_sync`` does by default, a cancellation
    waits for ``make`` (it reads a few files, for milliseconds)."""
    outcome: list[T] = []
    failure: list[BaseException] = []

    def run() -> None:
        try:
            outcome.append(make())
        except BaseException as exc:  # raised on the loop's side
            failure.append(exc)

    thread = threading.Thread(target=run, name="mcpstream-sdk-open", daemon=True)
    thread.start()
    # Polled rather than signalled: no call into the event loop from the thread, which works
    # with any anyio release and backend the SDK lines run on.
    delay_s = 0.0005
    with anyio.CancelScope(shield=True):
        while thread.is_alive():
            await anyio.sleep(delay_s)
            delay_s = min(delay_s * 2, 0.01)
    thread.join()
    if failure:
        raise failure[0]
    return outcome[0]


@asynccontextmanager
# Warns at the call, as the SDK's own does (typing_extensions comes with pydantic, so with mcp).
@deprecated("Use `streamable_http_client` instead.")
async def streamablehttp_client(
    url: str,
    headers: dict[str, str] | None = None,
    timeout: float | timedelta = 30,
    sse_read_timeout: float | timedelta = 60 * 5,
    terminate_on_close: bool = True,
    httpx_client_factory: Callable[..., Any] | None = None,
    auth: httpx.Auth | httpx2.Auth | None = None,
) -> AsyncGenerator[Any, None]:
    """The SDK 1.x line's deprecated ``streamablehttp_client``, with its arguments, over
    mcpstream: the HTTP client is made as the SDK makes it (``httpx_client_factory``, by default
    the SDK's ``create_mcp_http_client``, called with ``headers``, an ``httpx.Timeout`` of
    ``timeout`` with ``sse_read_timeout`` for reads, and ``auth``), closed on exit, and
    ``streamable_http_client`` runs on it. Yields what that yields: ``(read, write,
    get_session_id)`` on the 1.x line, ``(read, write)`` on 2.x."""
    from mcp.shared._httpx_utils import create_mcp_http_client

    def seconds(value: float | timedelta) -> float:
        return value.total_seconds() if isinstance(value, timedelta) else value

    factory: Callable[..., Any] = httpx_client_factory or create_mcp_http_client
    timeout_class = httpx.Timeout if MAJOR == 1 else httpx2.Timeout
    client = factory(
        headers=headers,
        timeout=timeout_class(seconds(timeout), read=seconds(sse_read_timeout)),
        auth=auth,
    )
    async with client:
        try:
            async with streamable_http_client(
                url, http_client=client, terminate_on_close=terminate_on_close
            ) as streams:
                yield streams
        finally:
            # The client made here closes now: what its session shared with it too.
            await close_shared(client)
