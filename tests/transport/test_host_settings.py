"""What a host's client brings besides a URL (``mcpstream._http.host_settings`` and the h1
transport's ALPN), on every front end that takes one: ``mcp.Client`` over
``mcpstream.sdk.streamable_http_client``, ``mcpstream.AsyncClient`` and ``mcpstream.Client``
with ``http_client=``, on both stacks, over mcpstream's HTTP/1.1 transport and with it opted
out (``MCPSTREAM_H1_TRANSPORT=0``). The yardstick of each case is the SDK's own transport
(``mcp.client.streamable_http``) with an httpx2 client of the same settings, against the SDK's
server: a relative endpoint under the client's ``base_url``, the client's ``max_redirects``,
an SSL context that offers ``h2`` (one shared with an HTTP/2 client), an HTTP/2 client, and
the client's ``Timeout``."""

from __future__ import annotations

import asyncio
import ssl
import time
from collections.abc import Callable
from typing import Any

import httpx
import httpx2
import pytest
from mcp import Client as SdkClient
from mcp.client.streamable_http import streamable_http_client as sdk_transport
from mcpstream import AsyncClient, Client
from mcpstream._http.host_settings import host_max_redirects, host_timeout, host_url
from mcpstream._http.httpx_clients import H1_ENV
from mcpstream.sdk import streamable_http_client

from .host_servers import HostServer, plain_server, tls_server

__all__ = ["plain_server", "tls_server"]

STACKS = {"httpx": httpx, "httpx2": httpx2}
FRONT_ENDS = ("sdk", "async", "sync")


@pytest.fixture(params=["h1", "opt-out"])
def h1(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """mcpstream's HTTP/1.1 transport on (the default) or opted out."""
    if request.param == "opt-out":
        monkeypatch.setenv(H1_ENV, "0")
    else:
        monkeypatch.delenv(H1_ENV, raising=False)
    return str(request.param)


@pytest.fixture(params=sorted(STACKS))
def stack(request: pytest.FixtureRequest) -> Any:
    """The host's stack: httpx or httpx2."""
    return STACKS[request.param]


Settings = Callable[[], dict[str, Any]]
"""The keywords of the host's client (made fresh for each client: an SSL context may be in
them)."""


async def _sdk_session(transport: Any) -> str:
    async with SdkClient(transport) as session:
        result = await session.call_tool("echo", {"text": "hi"})
    text: str = result.content[0].text  # type: ignore[union-attr]
    return text


def _works(session: Callable[[], Any]) -> bool:
    """Whether ``session`` (an echo call) answers "hi" (False: it raised)."""
    try:
        return bool(session() == "hi")
    except Exception:
        return False


def yardstick(url: str, settings: Settings) -> bool:
    """Whether the SDK's own transport, on an httpx2 client of ``settings``, makes a call."""

    async def session() -> str:
        async with asyncio.timeout(30), httpx2.AsyncClient(**settings()) as http:
            return await _sdk_session(sdk_transport(url, http_client=http))

    return _works(lambda: asyncio.run(session()))


def front_end(name: str, stack: Any, url: str, settings: Settings, **options: Any) -> bool:
    """Whether the front end ``name`` makes a call over a client of ``stack`` with
    ``settings``."""
    if name == "sync":

        def sync_session() -> str:
            with stack.Client(**settings()) as http, Client(url, http_client=http, **options) as c:
                return c.call_tool("echo", {"text": "hi"}).text

        return _works(sync_session)

    async def session() -> str:
        async with asyncio.timeout(30), stack.AsyncClient(**settings()) as http:
            if name == "sdk":
                return await _sdk_session(streamable_http_client(url, http_client=http))
            async with AsyncClient(url, http_client=http, **options) as client:
                return (await client.call_tool("echo", {"text": "hi"})).text

    return _works(lambda: asyncio.run(session()))


_YARDSTICKS: dict[str, bool] = {}


def compare(case: str, stack: Any, url: str, settings: Settings) -> None:
    """Every front end makes the call exactly where the SDK's transport does."""
    if case not in _YARDSTICKS:
        _YARDSTICKS[case] = yardstick(url, settings)
    expected = _YARDSTICKS[case]
    seen = {name: front_end(name, stack, url, settings) for name in FRONT_ENDS}
    assert seen == dict.fromkeys(FRONT_ENDS, expected), case


# -- base_url ---------------------------------------------------------------------------------


@pytest.mark.parametrize("endpoint", ["/mcp", "mcp"])
def test_a_relative_endpoint_joins_the_clients_base_url(
    plain_server: HostServer, stack: Any, h1: str, endpoint: str
) -> None:
    settings: Settings = lambda: {"base_url": plain_server.origin + "/"}  # noqa: E731
    compare(f"base_url {endpoint}", stack, endpoint, settings)
    assert _YARDSTICKS[f"base_url {endpoint}"] is True


def test_a_relative_endpoint_without_a_base_url_is_still_refused() -> None:
    with httpx.Client() as http, pytest.raises(ValueError, match="no http:// or https://"):
        Client("/mcp", http_client=http)
    assert host_url("/mcp", None) == "/mcp"


def test_host_url_keeps_an_absolute_url_and_joins_as_httpx() -> None:
    with httpx.Client(base_url="http://127.0.0.1:9/api/") as http:
        assert host_url("mcp?x=1", http) == "http://127.0.0.1:9/api/mcp?x=1"
        assert host_url("http://127.0.0.2:8/mcp", http) == "http://127.0.0.2:8/mcp"


# -- redirects --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("max_redirects", "hops"),
    [(1, 2), (2, 2), (7, 6), (0, 1)],
    ids=["1-of-2", "2-of-2", "7-of-6", "0-of-1"],
)
def test_redirects_stop_at_the_clients_max_redirects(
    plain_server: HostServer, stack: Any, h1: str, max_redirects: int, hops: int
) -> None:
    settings: Settings = lambda: {"max_redirects": max_redirects}  # noqa: E731
    compare(f"redirects {max_redirects}/{hops}", stack, plain_server.url(hops), settings)
    assert _YARDSTICKS[f"redirects {max_redirects}/{hops}"] is (hops <= max_redirects)


def test_a_client_without_max_redirects_keeps_mcpstreams_bound() -> None:
    assert host_max_redirects(object()) == 5
    assert host_max_redirects(httpx2.Client(max_redirects=3)) == 3


# -- TLS: ALPN and HTTP/2 ---------------------------------------------------------------------


def _context_offering_h2(ca: Any) -> ssl.SSLContext:
    """The host's context as an HTTP/2 client sharing it leaves it: ``h2`` offered by ALPN."""
    context = ssl.create_default_context(cafile=str(ca))
    context.set_alpn_protocols(["h2", "http/1.1"])
    return context


def test_an_ssl_context_offering_h2_speaks_http11_as_httpcore_does(
    tls_server: HostServer, stack: Any, h1: str
) -> None:
    settings: Settings = lambda: {"verify": _context_offering_h2(tls_server.ca)}  # noqa: E731
    compare("alpn h2", stack, tls_server.url(), settings)
    assert _YARDSTICKS["alpn h2"] is True


def test_an_http2_client_over_a_private_ca(tls_server: HostServer, stack: Any, h1: str) -> None:
    settings: Settings = lambda: {  # noqa: E731
        "verify": ssl.create_default_context(cafile=str(tls_server.ca)),
        "http2": True,
    }
    compare("http2", stack, tls_server.url(), settings)
    assert _YARDSTICKS["http2"] is True


def test_a_certificate_of_no_trusted_ca_fails_everywhere(
    tls_server: HostServer, stack: Any
) -> None:
    settings: Settings = lambda: {}  # noqa: E731  (the system's CAs: not the private one)
    compare("untrusted", stack, tls_server.url(), settings)
    assert _YARDSTICKS["untrusted"] is False


# -- timeouts ---------------------------------------------------------------------------------


def _slow_call(http: Any, url: str, **options: Any) -> tuple[bool, float]:
    """Whether a call that the server answers after 3 s of silence succeeded, and how long
    it took, through the host's sync ``http``."""
    started = time.monotonic()
    try:
        with Client(url, http_client=http, **options) as client:
            client.list_tools()
            started = time.monotonic()
            client.call_tool("hold", {"key": "t", "seconds": 3.0})
    except Exception:
        return False, time.monotonic() - started
    return True, time.monotonic() - started


def test_the_sync_front_end_obeys_the_host_clients_read_timeout(
    plain_server: HostServer, stack: Any
) -> None:
    async def sdk() -> str:
        timeout = httpx2.Timeout(5.0, read=0.5)
        async with asyncio.timeout(30), httpx2.AsyncClient(timeout=timeout) as http:
            transport = sdk_transport(plain_server.url(), http_client=http)
            async with SdkClient(transport) as session:
                await session.list_tools()
                await session.call_tool("hold", {"key": "t", "seconds": 3.0})
                return "hi"

    assert _works(lambda: asyncio.run(sdk())) is False  # the SDK's: a read past 0.5 s fails
    with stack.Client(timeout=stack.Timeout(5.0, read=0.5)) as http:
        works, took = _slow_call(http, plain_server.url(), tool_timeout_s=30)
    assert not works
    assert took < 2.5  # the host's 0.5 s, not mcpstream's 30 s (nor the server's 3 s)


def test_mcpstreams_bounds_apply_where_the_host_set_none(
    plain_server: HostServer, stack: Any
) -> None:
    with stack.Client(timeout=None) as http:
        works, took = _slow_call(http, plain_server.url(), tool_timeout_s=1.0)
    assert not works
    assert took < 2.5
    with stack.Client(timeout=None) as http:
        works, _ = _slow_call(http, plain_server.url(), tool_timeout_s=10.0)
    assert works


def test_host_timeout_takes_the_hosts_and_fills_in_mcpstreams() -> None:
    merged = host_timeout(httpx2.Timeout(None, read=2.0), httpx2.Timeout(9.0, connect=1.0))
    assert isinstance(merged, httpx2.Timeout)
    assert (merged.connect, merged.read, merged.write, merged.pool) == (1.0, 2.0, 9.0, 9.0)
    host = httpx.Timeout(3.0)
    assert host_timeout(host, None) is host
    # The sync driver's: the host's within the call's (what is left of its deadline).
    cut = host_timeout(httpx.Timeout(3.0, read=None), httpx.Timeout(1.0), within_own=True)
    assert (cut.connect, cut.read, cut.write, cut.pool) == (1.0, 1.0, 1.0, 1.0)
    cut = host_timeout(httpx.Timeout(0.5), httpx.Timeout(1.0), within_own=True)
    assert (cut.connect, cut.read, cut.write, cut.pool) == (0.5, 0.5, 0.5, 0.5)


def test_the_drop_in_transports_take_the_base_url_and_max_redirects(
    plain_server: HostServer, stack: Any, tmp_path: Any
) -> None:
    from mcpstream.models import ResolvedMcpServer
    from mcpstream.transport_http import McpHttpTransport, Negotiation

    def negotiate(url: str, **settings: Any) -> str:
        with (
            stack.Client(**settings) as http,
            McpHttpTransport(
                server=ResolvedMcpServer(id="t", url=url), workspace_root=tmp_path, client=http
            ) as transport,
        ):
            hello = Negotiation(capabilities={}, client_info={"name": "t", "version": "1"})
            return str(transport.negotiate(hello).era)

    assert negotiate("/hop/1/mcp", base_url=plain_server.origin, max_redirects=1)
    with pytest.raises(Exception, match="307"):
        negotiate(plain_server.url(2), max_redirects=1)
