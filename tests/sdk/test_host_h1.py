"""A host's client over mcpstream's HTTP/1.1 transport (``HostClient``, by default; opted out
with ``MCPSTREAM_H1_TRANSPORT=0``), under ``mcp.Client`` against the SDK's server, seen on the
wire by a tap in front of it (``Tap``: it records what the client sends and counts its open
connections): a stock host client sends through its own ``send`` (hooks, headers, auth,
cookies) over mcpstream's transport, which the client's sessions share (its connections'
lifetime: ``test_host_sharing``), and so does an object forwarding
to one whose ``send`` is the client's (Pydantic AI's borrowed client, with or without its
``auth``); a host with a transport of its
own, a mount for the URL, HTTP/2 or retries keeps its own transport; a host's TLS context is the
one used."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import re
import ssl
from collections.abc import Generator
from pathlib import Path
from typing import Any

import httpcore2
import httpx
import httpx2
import mcp_types as types
import pytest
from mcp import Client
from mcpstream._http import capability
from mcpstream._http.h1.aio import Connection
from mcpstream._http.httpx_clients import H1_ENV
from mcpstream._httpbase.stack import stack_named
from mcpstream.sdk import streamable_http_client
from mcpstream.sdk.host import HostClient

from tests.plain_http import forward_proxy
from tests.plain_http.tls import self_signed_certificate

from .conftest import run
from .relays import Relays
from .transports import shape

REQUEST_LINE = re.compile(rb"(?:GET|POST|DELETE) /\S* HTTP/1\.1\r\n")


class Tap:
    """A TCP relay in front of the server at ``target`` (TLS-terminating with ``tls``): what
    clients send (``sent``), the connections open now (``open``) and ever (``opened``)."""

    def __init__(self, target: str, tls: ssl.SSLContext | None = None) -> None:
        host_port = target.split("://", 1)[1].split("/", 1)[0]
        self._host, _, port = host_port.rpartition(":")
        self._port = int(port)
        self._path = "/" + target.split("://", 1)[1].split("/", 1)[1]
        self._tls = tls
        self._tasks: set[asyncio.Task[None]] = set()
        self.sent = b""
        self.open = 0
        self.opened = 0
        self.url = ""

    async def __aenter__(self) -> Tap:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0, ssl=self._tls)
        port = self._server.sockets[0].getsockname()[1]
        self.url = f"{'https' if self._tls else 'http'}://127.0.0.1:{port}{self._path}"
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        self._server.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.ensure_future(self._relay(reader, writer))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.open += 1
        self.opened += 1
        try:
            up_reader, up_writer = await asyncio.open_connection(self._host, self._port)
            await asyncio.gather(
                self._pump(reader, up_writer, record=True), self._pump(up_reader, writer)
            )
        finally:
            self.open -= 1

    async def _pump(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, record: bool = False
    ) -> None:
        try:
            while data := await reader.read(65536):
                if record:
                    self.sent += data
                writer.write(data)
                await writer.drain()
        except (ConnectionError, ssl.SSLError):
            pass
        finally:
            with contextlib.suppress(ConnectionError, ssl.SSLError, RuntimeError):
                writer.close()

    async def until_closed(self, bound_s: float = 5.0) -> None:
        """Wait (``bound_s`` at most) until the clients closed every connection."""
        async with asyncio.timeout(bound_s):
            while self.open:
                await asyncio.sleep(0.02)

    def requests(self) -> int:
        """The HTTP/1.1 requests sent through the tap."""
        return len(REQUEST_LINE.findall(self.sent))


class HeaderAuth(httpx2.Auth):
    """An auth flow of the host's (httpx2's, or httpx's API: the same) that counts its runs."""

    def __init__(self) -> None:
        self.flows = 0

    def auth_flow(self, request: Any) -> Generator[Any, Any, None]:
        self.flows += 1
        request.headers["Authorization"] = "Bearer host-token"
        yield request


class HttpxHeaderAuth(httpx.Auth):
    """``HeaderAuth`` for an httpx client."""

    def __init__(self) -> None:
        self.flows = 0

    def auth_flow(self, request: Any) -> Generator[Any, Any, None]:
        self.flows += 1
        request.headers["Authorization"] = "Bearer host-token"
        yield request


def _own(relays: Relays, index: int) -> Any:
    """mcpstream's transport under the host's client of the ``index``-th session (None: the
    host's own)."""
    host_client = relays.each[index].host_client
    assert host_client is not None
    return host_client.own_transport


def _pool_of(client: Any) -> Any:
    """The connection pool of the stock transport of ``client``."""
    return client._transport._pool


async def _echo(client: Client) -> str:
    result = await client.call_tool("echo", {"text": "over the host's client"})
    text = result.content[0]
    assert isinstance(text, types.TextContent)
    return text.text


@pytest.mark.parametrize("stack", ["httpx2", "httpx"])
def test_a_stock_host_client_sends_its_requests_over_mcpstreams_transport(
    mcp_server_urls: dict[str, str],
    mode: str,
    stack: str,
    relays: Relays,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(H1_ENV, "1")
    module: Any = httpx2 if stack == "httpx2" else httpx
    requests: list[str] = []
    over_mcpstream: list[bool] = []

    async def on_request(request: Any) -> None:
        requests.append(request.method)

    async def on_response(response: Any) -> None:
        over_mcpstream.append(isinstance(response.extensions.get("network_stream"), Connection))

    auth = HeaderAuth() if stack == "httpx2" else HttpxHeaderAuth()

    async def main() -> tuple[str, bytes, int]:
        async with (
            Tap(mcp_server_urls["sse"]) as tap,
            module.AsyncClient(
                headers={"X-Host": "framework"},
                cookies={"host_cookie": "1"},
                auth=auth,
                event_hooks={"request": [on_request], "response": [on_response]},
                limits=module.Limits(keepalive_expiry=0.5),
            ) as host,
        ):
            stock = host._transport
            async with Client(streamable_http_client(tap.url, http_client=host), mode=mode) as c:
                text = await _echo(c)
                own = _own(relays, 0)
                # The stack has what mcpstream reads of a host's pool (capability).
                assert capability.hooks_fit(stack_named(stack))
                assert own is not None
                assert own._pool.open >= 1  # the session's connections are its own
                assert own._ssl_context is stock._pool._ssl_context
                assert not stock._pool.connections  # the host's pool opened none
            # The session is over, the host's client still open: mcpstream's transport stays
            # for the client's next session, and closes its idle connections as they expire
            # (the client's keep-alive expiry), as the client's own pool would.
            assert _own(relays, 0) is None
            assert own is not None and not own._pool.closed
            await tap.until_closed(bound_s=3.0)  # (the host's own pool opened none)
            assert own._pool.open == 0
            assert host._transport is stock and not host.is_closed  # the host's, untouched
            return text, tap.sent, tap.requests()

    text, sent, sent_requests = run(main())
    assert text == "over the host's client"
    assert relays.made == 1
    assert sent_requests >= 3  # the handshake's, the call
    # Every request went through the host's send (its hooks and its auth flow) and over
    # mcpstream's transport, with the host's headers, auth and cookies on the wire.
    assert len(requests) == len(over_mcpstream) == auth.flows == sent_requests
    assert all(over_mcpstream)
    wire = sent.lower()
    assert wire.count(b"\r\nx-host: framework\r\n") == sent_requests
    assert wire.count(b"\r\nauthorization: bearer host-token\r\n") == sent_requests
    assert wire.count(b"\r\ncookie: host_cookie=1\r\n") == sent_requests


class CountingTransport(httpx2.AsyncHTTPTransport):
    """A transport of the host's own (a subclass of the stock one) counting its requests."""

    handled = 0

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        self.handled += 1
        return await super().handle_async_request(request)


def test_mcpstreams_transport_has_the_host_pools_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(H1_ENV, "1")
    limits = httpx2.Limits(max_connections=3, max_keepalive_connections=1, keepalive_expiry=None)
    host = httpx2.AsyncClient(limits=limits)
    own = HostClient(host).own_transport
    assert own is not None
    assert (own._limits.max_connections, own._limits.max_keepalive_connections) == (3, 1)
    assert own._limits.keepalive_expiry == float("inf")  # no expiry, as the host's pool
    unbounded = HostClient(httpx2.AsyncClient(limits=httpx2.Limits(max_connections=None)))
    assert unbounded.own_transport._limits.max_connections is None
    monkeypatch.setenv(H1_ENV, "0")
    assert HostClient(host).own_transport is None  # opted out: the host's transport
    monkeypatch.delenv(H1_ENV)
    assert HostClient(host).own_transport is not None  # the default: mcpstream's transport


@pytest.mark.parametrize("stack", ["httpx2", "httpx"])
def test_a_proxy_from_the_environment_keeps_a_host_clients_requests(
    stack: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The host's client reads the proxy from the environment (trust_env) and mounts a proxy
    # transport for it: mcpstream's transport stands in for the client's default transport
    # only, so the proxied request still goes through the proxy, by the host's own transport.
    monkeypatch.delenv(H1_ENV, raising=False)
    for name in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    module: Any = httpx2 if stack == "httpx2" else httpx
    url = "http://mcp.example.invalid/mcp"

    async def main() -> tuple[str, bool]:
        async with module.AsyncClient() as host:
            client = HostClient(host)
            try:
                response = await client.send(client.build_request("POST", url, content=b"{}"))
                return (await response.aread()).decode(), client.own_transport is not None
            finally:
                await client.release()

    with forward_proxy() as (proxy_url, request_lines):
        for name in ("HTTP_PROXY", "http_proxy"):
            monkeypatch.setenv(name, proxy_url)
        text, ours = run(main())
    assert text == "ok"
    assert request_lines == ["POST http://mcp.example.invalid/mcp HTTP/1.1"]
    # mcpstream's transport was made for the client's default transport, and carried nothing
    # here.
    assert ours


def _http2_transport() -> httpx2.AsyncHTTPTransport:
    """A stock transport whose pool offers HTTP/2 (``http2=True`` without the ``h2`` package:
    a plain ``http`` URL still speaks HTTP/1.1 over it)."""
    transport = httpx2.AsyncHTTPTransport()
    transport._pool = httpcore2.AsyncConnectionPool(
        ssl_context=transport._pool._ssl_context, http1=True, http2=True
    )
    return transport


class SendingSubclass(httpx2.AsyncClient):
    """A subclass of httpx2's client with a ``send`` of its own, keeping state on itself."""

    sent = 0

    async def send(self, request: Any, **kwargs: Any) -> Any:
        self.sent += 1
        return await super().send(request, **kwargs)


class Borrowed:
    """An object forwarding to a host's ``client``, shaped as Pydantic AI's borrowed client:
    every attribute is the client's, but for ``send``, a ``functools.partial`` of the client's
    with ``auth`` when it is given, and ``build_request``, which adds a header of its own."""

    def __init__(self, client: Any, auth: Any = None) -> None:
        self._client = client
        self._auth = auth
        self.built = 0

    def build_request(self, *args: Any, **kwargs: Any) -> Any:
        self.built += 1
        request = self._client.build_request(*args, **kwargs)
        request.headers["X-Wrapper"] = "borrowed"
        return request

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._client, name)
        if self._auth is not None and name == "send":
            return functools.partial(attr, auth=self._auth)
        return attr


class SendingWrapper(Borrowed):
    """A forwarding object with a ``send`` of its own, keeping state on itself."""

    sent = 0

    async def send(self, request: Any, **kwargs: Any) -> Any:
        self.sent += 1
        return await self._client.send(request, **kwargs)


@pytest.mark.parametrize("kind", ["forwarding", "partial send with auth", "own send"])
@pytest.mark.parametrize("stack", ["httpx2", "httpx"])
def test_an_object_forwarding_to_a_stock_client_sends_over_mcpstreams_transport(
    mcp_server_urls: dict[str, str],
    stack: str,
    kind: str,
    relays: Relays,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(H1_ENV, "1")
    module: Any = httpx2 if stack == "httpx2" else httpx
    over_mcpstream: list[bool] = []

    async def on_response(response: Any) -> None:
        over_mcpstream.append(isinstance(response.extensions.get("network_stream"), Connection))

    auth = HeaderAuth() if stack == "httpx2" else HttpxHeaderAuth()
    # The auth is the client's, but for the partial send's (as Pydantic AI's MCPToolset's).
    on_client = kind != "partial send with auth"

    async def main() -> tuple[str, bytes, int, Any, Any]:
        async with (
            Tap(mcp_server_urls["sse"]) as tap,
            module.AsyncClient(
                auth=auth if on_client else None, event_hooks={"response": [on_response]}
            ) as host,
        ):
            wrapper_type = SendingWrapper if kind == "own send" else Borrowed
            wrapper = wrapper_type(host, auth=None if on_client else auth)
            async with Client(streamable_http_client(tap.url, http_client=wrapper)) as c:
                text = await _echo(c)
                own = _own(relays, 0)
                if own is not None:
                    assert own._pool.open >= 1
                    assert not _pool_of(host).connections  # the host's pool opened none
            assert _own(relays, 0) is None  # closed with the session
            assert not host.is_closed
            return text, tap.sent, tap.requests(), own, wrapper

    text, sent, sent_requests, own, wrapper = run(main())
    assert text == "over the host's client"
    assert sent_requests >= 3
    h1 = kind != "own send"
    assert (own is not None) is h1
    assert len(over_mcpstream) == sent_requests
    assert all(over_mcpstream) if h1 else not any(over_mcpstream)
    # The auth flow ran for each request, and the wrapper built each (its header on the wire).
    assert auth.flows == sent_requests
    assert wrapper.built == sent_requests
    wire = sent.lower()
    assert wire.count(b"\r\nauthorization: bearer host-token\r\n") == sent_requests
    assert wire.count(b"\r\nx-wrapper: borrowed\r\n") == sent_requests
    if kind == "own send":
        assert wrapper.sent == sent_requests  # its send kept its own count


@pytest.mark.parametrize(
    "kind",
    [
        "own transport",
        "mount",
        "http2",
        "retries",
        "local address",
        "own send",
        "send set on the client",
    ],
)
def test_a_host_client_with_a_transport_of_its_own_keeps_it(
    mcp_server_urls: dict[str, str], kind: str, relays: Relays, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(H1_ENV, "1")
    over_mcpstream: list[bool] = []

    async def on_response(response: Any) -> None:
        over_mcpstream.append(isinstance(response.extensions.get("network_stream"), Connection))

    counting = CountingTransport()
    options: dict[str, Any] = {"event_hooks": {"response": [on_response]}}
    if kind == "own transport":
        options["transport"] = counting
    elif kind == "mount":
        options["mounts"] = {"http://127.0.0.1": counting}
    elif kind == "http2":
        options["transport"] = _http2_transport()
    elif kind == "retries":
        options["transport"] = httpx2.AsyncHTTPTransport(retries=1)
    elif kind == "local address":
        options["transport"] = httpx2.AsyncHTTPTransport(local_address="127.0.0.1")
    client_type = SendingSubclass if kind == "own send" else httpx2.AsyncClient
    sending: list[int] = []

    async def main() -> tuple[str, int, Any]:
        async with (
            Tap(mcp_server_urls["sse"]) as tap,
            client_type(**options) as host,
        ):
            if kind == "send set on the client":
                stock_send = host.send

                async def counting_send(request: Any, **kwargs: Any) -> Any:
                    host.sent = getattr(host, "sent", 0) + 1
                    return await stock_send(request, **kwargs)

                host.send = counting_send  # type: ignore[method-assign]
            async with Client(streamable_http_client(tap.url, http_client=host)) as c:
                text = await _echo(c)
                own = _own(relays, 0)
                opened_own = 0 if own is None else own._pool.open
            assert opened_own == 0
            sending.append(getattr(host, "sent", 0))
            return text, tap.requests(), own

    text, sent_requests, own = run(main())
    assert text == "over the host's client"
    assert sent_requests >= 3
    assert len(over_mcpstream) == sent_requests and not any(over_mcpstream)
    if kind in ("own transport", "mount"):
        assert counting.handled == sent_requests  # really through the host's transport
    if kind in ("own send", "send set on the client"):
        assert sending == [sent_requests]  # its send kept its own count
    # A mount for the URL leaves the host's default transport stock: mcpstream's stands in for
    # it, and carries nothing to this URL (the mount does).
    assert (own is None) is (kind != "mount")


@pytest.mark.parametrize("verify", ["the host's CA", "the default"])
def test_the_host_clients_tls_context_is_used(
    mcp_server_urls: dict[str, str],
    tmp_path: Path,
    verify: str,
    relays: Relays,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    cert, key = self_signed_certificate(tmp_path)
    server_context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_context.load_cert_chain(cert, key)

    async def outcome() -> str:
        async with Tap(mcp_server_urls["sse"], server_context) as tap:
            trusted: Any = ssl.create_default_context(cafile=str(cert))
            host = httpx2.AsyncClient(verify=trusted if verify == "the host's CA" else True)
            async with host:
                try:
                    async with Client(streamable_http_client(tap.url, http_client=host)) as c:
                        own = _own(relays, -1)
                        if own is not None:
                            assert own._ssl_context is _pool_of(host)._ssl_context
                        return ("ours " if own is not None else "host's ") + await _echo(c)
                except Exception as exc:
                    return "failed " + shape(exc)

    monkeypatch.setenv(H1_ENV, "1")
    over_ours = run(outcome())
    monkeypatch.setenv(H1_ENV, "0")
    over_the_hosts = run(outcome())
    if verify == "the host's CA":
        assert over_ours == "ours over the host's client"
        assert over_the_hosts == "host's over the host's client"
    else:
        # Refused as over the host's own transport: the same failure, the same wrapping.
        assert over_ours == over_the_hosts
        assert over_ours.startswith("failed ") and "httpx2.ConnectError" in over_ours


@pytest.mark.parametrize("stack", ["httpx2", "httpx"])
def test_sessions_over_one_host_client_share_its_connections(
    mcp_server_urls: dict[str, str], mode: str, stack: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A session per operation over one long-lived host client, as the SDK recommends: the
    # sessions reuse each other's idle connections, as over the SDK's transport (the client's
    # own pool), instead of a connection (a TLS handshake) for every session.
    monkeypatch.setenv(H1_ENV, "1")
    module: Any = httpx2 if stack == "httpx2" else httpx
    sessions = 6

    async def opened(transport: Any) -> list[int]:
        counts = []
        async with Tap(mcp_server_urls["sse"]) as tap, module.AsyncClient() as host:
            for _ in range(sessions):
                async with Client(transport(tap.url, http_client=host), mode=mode) as client:
                    assert await _echo(client) == "over the host's client"
                counts.append(tap.opened)
        return counts

    from mcp.client.streamable_http import streamable_http_client as sdk_transport

    ours = run(opened(streamable_http_client))
    sdks = run(opened(sdk_transport))
    # New connections per session after the first: no more than over the SDK's transport
    # (in the 2026-07-28 era, none; a handshake-era session's GET stream ends with it, and
    # with it its connection, on both).
    assert ours[-1] - ours[0] <= sdks[-1] - sdks[0]
    if mode == "auto":
        assert ours[-1] == ours[0]
