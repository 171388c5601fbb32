"""The common path without wasted work: no CA bundle loaded for ``http://``, no reader thread for
a small answer (the deadline still holds), requests handed to the own client's transport with
what ``client.send`` would have kept (default headers, cookies)."""

from __future__ import annotations

import asyncio
import ssl
import threading
import time
from pathlib import Path
from typing import Any

import certifi
import httpx
import httpx2
import pytest
from mcpstream._http import capability, httpx_clients, sync
from mcpstream._http.httpx_clients import H1_ENV, LazySSLContext, shared_ssl_context
from mcpstream._http.wire import holds_cookies
from mcpstream._httpbase.stack import stack_named, stack_of
from mcpstream.errors import McpHttpTransportTimeoutError
from mcpstream.models import ResolvedMcpServer
from mcpstream.transport_http import McpHttpTransport

from .fault_server import Conn, FaultServer, Request, notification, result, sse


@pytest.fixture
def fresh_contexts(monkeypatch: pytest.MonkeyPatch) -> dict[Any, LazySSLContext]:
    """The process's shared contexts, emptied for the test (so that its loads are its own)."""
    contexts: dict[Any, LazySSLContext] = {}
    monkeypatch.setattr(httpx_clients, "_SHARED_CONTEXTS", contexts)
    for name in ("SSL_CERT_FILE", "SSL_CERT_DIR"):
        monkeypatch.delenv(name, raising=False)
    return contexts


@pytest.fixture
def pumps(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """The reader threads the sync driver starts (recorded, then started as usual)."""
    started: list[object] = []
    real = sync.ChunkPump

    def recording(*args: Any, **kwargs: Any) -> object:
        pump = real(*args, **kwargs)
        started.append(pump)
        return pump

    monkeypatch.setattr(sync, "ChunkPump", recording)
    return started


def _sse_answers(*, before: int = 0, pause_s: float = 0.0) -> Any:
    async def handler(request: Request, conn: Conn) -> None:
        if request.method != "POST" or "id" not in request.json:
            await conn.respond(405 if request.method == "GET" else 202, content_type=None)
            return
        await conn.start(200)
        for n in range(before):
            await conn.send(sse(notification("notifications/message", {"n": n})), pause_s=pause_s)
        await conn.send(sse(result(request.jsonrpc_id, "ok")))
        conn.drop()

    return handler


@pytest.mark.own_client
def test_an_http_session_never_loads_a_ca_bundle(
    make_transport: Any, fault_server: FaultServer, fresh_contexts: dict[Any, LazySSLContext]
) -> None:
    url = fault_server.route(_sse_answers())
    for _ in range(2):
        transport = make_transport(url)
        transport.request(method="initialize", params={}, timeout_s=5)
        transport.send_notification(method="notifications/initialized", params=None)
        assert transport.request(method="ping", params=None, timeout_s=5).result == "ok"
    (context,) = fresh_contexts.values()  # one for every client, the GET streams' too
    assert context.loads == 0
    assert context.cert_store_stats()["x509_ca"] == 0


def test_the_shared_context_checks_what_httpxs_default_context_checks(
    fresh_contexts: dict[Any, LazySSLContext],
) -> None:
    # Every check of httpx's default context (and so of ssl.create_default_context, which
    # grows stricter with Python releases: 3.13 added strict X.509 chain checks) holds in the
    # context mcpstream's own clients share.
    ours, httpxs = shared_ssl_context(), httpx.create_ssl_context()
    for setting in ("verify_mode", "check_hostname", "verify_flags", "options", "minimum_version"):
        assert getattr(ours, setting) == getattr(httpxs, setting), setting


def test_the_shared_context_loads_its_ca_bundle_when_it_first_wraps_a_socket(
    fresh_contexts: dict[Any, LazySSLContext],
) -> None:
    context = shared_ssl_context()
    assert shared_ssl_context() is context
    assert context.verify_mode is ssl.CERT_REQUIRED and context.check_hostname
    assert context.loads == 0
    for _ in range(2):
        context.wrap_bio(ssl.MemoryBIO(), ssl.MemoryBIO(), server_hostname="example.org")
    assert context.loads == 1
    assert context.cert_store_stats()["x509_ca"] > 0


def test_the_ca_setting_of_the_environment_is_honoured(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fresh_contexts: dict[Any, LazySSLContext]
) -> None:
    default = shared_ssl_context()
    monkeypatch.setenv("SSL_CERT_DIR", str(tmp_path))
    by_dir = shared_ssl_context()
    assert (by_dir.cafile, by_dir.capath) == (None, str(tmp_path))
    monkeypatch.setenv("SSL_CERT_FILE", certifi.where())
    by_file = shared_ssl_context()
    assert (by_file.cafile, by_file.capath) == (certifi.where(), None)
    assert len({id(default), id(by_dir), id(by_file)}) == 3
    by_file.wrap_bio(ssl.MemoryBIO(), ssl.MemoryBIO(), server_hostname="example.org")
    assert by_file.cert_store_stats()["x509_ca"] > 0


@pytest.mark.parametrize("host", [False, True], ids=["own", "host-httpx2"])
def test_a_small_sse_answer_is_read_without_a_thread(
    fault_server: FaultServer, tmp_path: Path, pumps: list[object], host: bool
) -> None:
    """Also over a host's client: its connection's ``DeadlineStream`` bounds the reads."""
    server = ResolvedMcpServer(id="small", url=fault_server.route(_sse_answers(before=1)))
    http = httpx2.Client() if host else None
    with McpHttpTransport(
        server=server, workspace_root=tmp_path, listen=False, client=http
    ) as transport:
        transport.request(method="initialize", params={}, timeout_s=5)
        threads = threading.active_count()
        for _ in range(3):
            assert transport.request(method="ping", params=None, timeout_s=5).result == "ok"
        assert threading.active_count() == threads
        assert len(transport.drain_notifications()) == 4
    # Inline: the stack's connections carry mcpstream's deadline streams (its hooks fit every
    # release the suites run at: capability), so no reader thread is needed.
    assert capability.hooks_fit(stack_named("httpx2" if host else "httpx"))
    assert pumps == []
    if http is not None:
        http.close()


def test_a_longer_answer_is_read_on_by_a_reader_thread(
    fault_server: FaultServer, tmp_path: Path, pumps: list[object]
) -> None:
    url = fault_server.route(_sse_answers(before=2 * sync.INLINE_READS, pause_s=0.01))
    server = ResolvedMcpServer(id="longer", url=url)
    with McpHttpTransport(server=server, workspace_root=tmp_path, listen=False) as transport:
        assert transport.request(method="ping", params=None, timeout_s=5).result == "ok"
        numbers = [n.params["n"] for n in transport.drain_notifications()]
    assert numbers == list(range(2 * sync.INLINE_READS))
    assert len(pumps) == 1


def test_a_stalled_small_answer_still_ends_at_the_deadline(
    make_transport: Any,
    fault_server: FaultServer,
    pumps: list[object],
    client_stack: str,
    transport_kind: str,
) -> None:
    async def handler(request: Request, conn: Conn) -> None:
        await conn.start(200)
        await conn.send(b'data: {"jsonrpc":', pause_s=5)
        conn.drop()

    transport = make_transport(fault_server.route(handler), listen=False)
    started = time.monotonic()
    with pytest.raises(McpHttpTransportTimeoutError):
        transport.request(method="ping", params=None, timeout_s=0.5)
    assert 0.45 <= time.monotonic() - started < 1.5
    # Inline (the hooks fit, as above); the async driver has no pump either.
    assert capability.hooks_fit(stack_named("httpx2" if client_stack == "httpx2" else "httpx"))
    assert pumps == []


def test_cookies_and_default_headers_are_sent_as_by_client_send(
    make_transport: Any, fault_server: FaultServer
) -> None:
    seen: list[dict[str, str]] = []

    async def handler(request: Request, conn: Conn) -> None:
        seen.append(request.headers)
        cookie = {"set-cookie": "route=a1; Path=/"} if len(seen) == 1 else None
        await conn.respond(200, result(request.jsonrpc_id, "ok").encode(), headers=cookie)

    transport = make_transport(fault_server.route(handler), listen=False)
    for _ in range(2):
        assert transport.request(method="ping", params=None, timeout_s=5).result == "ok"
    assert "cookie" not in seen[0] and seen[1]["cookie"] == "route=a1"
    for headers in seen:
        assert headers["user-agent"].startswith("mcpstream/")
        assert "gzip" in headers["accept-encoding"]


@pytest.mark.parametrize("client_type", [httpx.Client, httpx2.Client, httpx.AsyncClient])
def test_holds_cookies_answers_as_the_jar_walked_does(client_type: Any) -> None:
    client = client_type()
    assert holds_cookies(client) is False
    client.cookies.set("route", "a1", domain="example.test")
    assert holds_cookies(client) is True
    client.cookies.jar.clear("example.test", "/", "route")
    assert client.cookies.jar._cookies  # the domain's entry stays: the jar is walked
    assert holds_cookies(client) is False


def test_holds_cookies_walks_a_jar_of_its_own_kind() -> None:
    from http.cookiejar import CookieJar

    class OneCookieJar(CookieJar):
        def __iter__(self) -> Any:
            yield from ["a cookie of its own making"]

    client = httpx.Client(cookies=OneCookieJar())
    assert not client.cookies.jar._cookies
    assert holds_cookies(client) is True


def test_the_async_transport_also_skips_the_ca_bundle(
    fault_server: FaultServer, tmp_path: Path, fresh_contexts: dict[Any, LazySSLContext]
) -> None:
    from mcpstream.transport_http import AsyncMcpHttpTransport

    server = ResolvedMcpServer(id="async", url=fault_server.route(_sse_answers()))

    async def session() -> Any:
        async with AsyncMcpHttpTransport(server=server, workspace_root=tmp_path) as transport:
            await transport.request(method="initialize", params={}, timeout_s=5)
            await transport.send_notification(method="notifications/initialized", params=None)
            return (await transport.request(method="ping", params=None, timeout_s=5)).result

    assert asyncio.run(session()) == "ok"
    (context,) = fresh_contexts.values()
    assert context.loads == 0


def test_the_request_headers_replace_the_client_defaults_of_the_same_name() -> None:
    from mcpstream._http import wire
    from mcpstream._http.core.steps import HttpRequest
    from mcpstream._http.httpx_clients import make_client

    headers = {"Accept": "text/event-stream", "User-Agent": "mcpstream/test"}
    with make_client() as client:
        request = HttpRequest("GET", "http://127.0.0.1:9/mcp", headers, timeout_s=5.0)
        direct = wire._direct_request(client, stack_of(client), request, None)
        built = wire.build_request(client, request)
    assert direct is not None
    names = [name.lower() for name, _ in direct.headers.raw]
    assert len(names) == len(set(names))
    assert sorted(direct.headers.multi_items()) == sorted(built.headers.multi_items())


def test_a_session_id_is_put_in_the_cached_header_block_of_another_session(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # mcpstream's HTTP/1.1 transport, whose requests these are, even in the opt-out run
    monkeypatch.delenv(H1_ENV, raising=False)
    from mcpstream._http import wire
    from mcpstream._http.core.steps import HttpRequest
    from mcpstream._http.httpx_clients import make_client

    url = "http://127.0.0.1:9/mcp-session-block"
    with make_client() as client:
        for session in ("first-id", "second-id", "first-id"):
            headers = {"Content-Type": "application/json", "MCP-Session-Id": session}
            request = HttpRequest("POST", url, headers, timeout_s=5.0, body=b"{}")
            direct = wire._direct_request(client, stack_of(client), request, None)
            built = wire._stack_request(client, stack_of(client), request, {})
            assert direct is not None
            assert list(direct.headers.raw) == list(built.headers.raw)
        known = wire._FIELDS[httpx_clients.fields_owner(client)]
        assert len([key for key in known if key[1] == url]) == 1  # one block for all sessions


def test_a_session_id_outside_visible_ascii_gets_a_block_of_its_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # mcpstream's HTTP/1.1 transport, whose requests these are, even in the opt-out run
    monkeypatch.delenv(H1_ENV, raising=False)
    from mcpstream._http import wire
    from mcpstream._http.core.steps import HttpRequest
    from mcpstream._http.httpx_clients import make_client

    url = "http://127.0.0.1:9/mcp-odd-session"
    with make_client() as client:
        for session in ("an id", "plain-id"):
            headers = {"MCP-Session-Id": session}
            request = HttpRequest("POST", url, headers, timeout_s=5.0, body=b"{}")
            direct = wire._direct_request(client, stack_of(client), request, None)
            assert direct is not None
            built = wire._stack_request(client, stack_of(client), request, {})
            assert list(direct.headers.raw) == list(built.headers.raw)


def test_the_closing_delete_is_sent_with_the_headers_client_send_sends(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # mcpstream's HTTP/1.1 transport, whose requests these are, even in the opt-out run
    monkeypatch.delenv(H1_ENV, raising=False)
    from mcpstream._http import wire
    from mcpstream._http.core.steps import HttpRequest
    from mcpstream._http.h1.pool import Http1Request
    from mcpstream._http.httpx_clients import make_client

    headers = {"MCP-Session-Id": "some-session", "MCP-Protocol-Version": "2025-11-25"}
    with make_client() as client:
        request = HttpRequest("DELETE", "http://127.0.0.1:9/mcp", headers, timeout_s=5.0)
        direct = wire._direct_request(client, stack_of(client), request, None)
        built = wire._stack_request(client, stack_of(client), request, {})
    assert isinstance(direct, Http1Request)
    assert list(direct.headers.raw) == list(built.headers.raw)
    assert direct.body == b"" == b"".join(built.stream)  # type: ignore[arg-type]
    assert list(direct.materialize().headers.raw) == list(built.headers.raw)
