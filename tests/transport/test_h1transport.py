"""The HTTP/1.1 transports (``mcpstream._http.h1``), sync and async, under httpx's and httpx2's
clients (``case``: one test body for the four), against real servers on loopback: a scripted
socket server for the pool's rules (keep-alive, stale and half-closed connections, early
closes, 1xx, closes mid-body, pool limits and expiry, timeouts) and the official SDK's MCP
server for whole sessions (JSON, SSE, stateless)."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import select
import socket
import ssl
import threading
import time
import tracemalloc
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
from mcpstream._http.h1 import AsyncHttp1Transport, Http1Transport, transport_types, whole_reader
from mcpstream._http.h1.pool import prepare
from mcpstream._http.h1.sync import READ_BUFFER
from mcpstream._http.httpx_clients import io_deadline
from mcpstream._httpbase.stack import stack_named
from mcpstream.models import ResolvedMcpServer
from mcpstream.transport_http import AsyncMcpHttpTransport, McpHttpTransport

from .conftest import AsyncFacade, EventLoopThread
from .h1_scripted import AsyncView, Exchange, Reply, ScriptedServer, StreamView, ok
from .helpers import call_tool, free_port, initialize, tool_text
from .test_asyncio_backend import _tls_contexts

CASES = [
    ("sync", "httpx"),
    ("async", "httpx"),
    ("sync", "httpx2"),
    ("async", "httpx2"),
    ("uvloop", "httpx2"),
]
"""(driver, HTTP stack): the sync transport, or the async one on asyncio's event loop or on
uvloop's (which a host may choose)."""


@pytest.fixture(params=CASES, ids=["-".join(case) for case in CASES])
def case(request: pytest.FixtureRequest) -> tuple[str, str]:
    """(transport kind, HTTP stack) of the test."""
    return tuple(request.param)  # type: ignore[return-value]


@pytest.fixture
def hx(case: tuple[str, str]) -> Any:
    """The httpx module of the case (``httpx`` or ``httpx2``), for its exceptions."""
    return stack_named(case[1]).httpx


@pytest.fixture
def runner(case: tuple[str, str], request: pytest.FixtureRequest) -> EventLoopThread:
    """The event loop thread of the case's async transport: uvloop's for ``uvloop``, else
    asyncio's."""
    name = "uvloop_thread" if case[0] == "uvloop" else "event_loop_thread"
    thread: EventLoopThread = request.getfixturevalue(name)
    return thread


@pytest.fixture
def new_client(
    case: tuple[str, str], hx: Any, runner: EventLoopThread
) -> Iterator[Callable[..., Any]]:
    """``new_client(**transport_options)``: a client of the case's kind and stack over the
    HTTP/1.1 transport (an ``AsyncView`` for the async ones), closed after the test."""
    kind, stack = case
    sync_type, async_type = transport_types(stack)
    made: list[Any] = []

    def new(**options: Any) -> Any:
        options.setdefault("keepalive_expiry", 30.0)
        if kind == "sync":
            client = hx.Client(transport=sync_type(**options), timeout=10.0)
            made.append(client)
            return client

        async def build() -> Any:
            return hx.AsyncClient(transport=async_type(**options), timeout=10.0)

        view = AsyncView(runner, runner.run(build()))
        made.append(view)
        return view

    yield new
    for client in made:
        client.close()


@pytest.fixture
def client(new_client: Callable[..., Any]) -> Any:
    return new_client()


@pytest.fixture
def serve() -> Iterator[Callable[..., ScriptedServer]]:
    servers: list[ScriptedServer] = []

    def start(reply: Reply, tls: ssl.SSLContext | None = None) -> ScriptedServer:
        server = ScriptedServer(reply, tls)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.close()


def test_get_and_post_reuse_one_keep_alive_connection(
    serve: Callable[[Reply], ScriptedServer], client: Any
) -> None:
    def reply(exchange: Exchange) -> None:
        body = exchange.request.method + b" " + exchange.request.target + b" " + exchange.body
        exchange.send(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%b" % (len(body), body))

    server = serve(reply)
    assert client.get(server.url + "/a?x=1").content == b"GET /a?x=1 "
    response = client.post(server.url + "/b", content=b"payload")
    assert (response.status_code, response.content) == (200, b"POST /b payload")
    assert response.http_version == "HTTP/1.1"
    assert response.reason_phrase == "OK"
    # The JSON body as the client's stack encodes it (httpx 0.27 and early httpx2 put spaces
    # after separators, later releases do not).
    bodies = {
        stack.Request("POST", server.url + "/c", json={"k": "v"}).content
        for stack in (httpx, httpx2)
    }
    answer = client.post(server.url + "/c", json={"k": "v"}).content
    assert answer in {b"POST /c " + body for body in bodies}
    assert server.connections == 1
    assert len(server.requests) == 3


def test_a_chunked_request_body_and_a_chunked_response(
    serve: Callable[[Reply], ScriptedServer], client: Any
) -> None:
    def reply(exchange: Exchange) -> None:
        exchange.send(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
        for piece in (b"hel", b"lo ", exchange.body):
            exchange.send(b"%x;ext\r\n%b\r\n" % (len(piece), piece))
        exchange.send(b"0\r\nTrailer: ignored\r\n\r\n")

    server = serve(reply)

    def body() -> Iterator[bytes]:
        yield b"stream"
        yield b""
        yield b"ed"

    async def abody() -> AsyncIterator[bytes]:
        for piece in body():
            yield piece

    content: Any = abody() if isinstance(client, AsyncView) else body()
    assert client.post(server.url, content=content).content == b"hello streamed"
    request, received = server.requests[0]
    assert (b"transfer-encoding", b"chunked") in list(request.headers)
    assert received == b"streamed"
    assert client.get(server.url).content == b"hello "
    assert server.connections == 1


def test_connection_close_and_http10_are_not_reused(
    serve: Callable[[Reply], ScriptedServer], client: Any
) -> None:
    def reply(exchange: Exchange) -> None:
        if exchange.request.target == b"/close":
            exchange.send(b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok")
        else:
            exchange.send(b"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok")
        exchange.sock.close()

    server = serve(reply)
    for target in ("/close", "/ten", "/close"):
        assert client.get(server.url + target).content == b"ok"
    assert server.connections == 3


def test_the_read_buffers_of_sync_connections_are_not_python_or_c_heap_memory(
    serve: Callable[[Reply], ScriptedServer],
) -> None:
    """Each connection of the sync transport reads into a buffer of ``READ_BUFFER`` bytes:
    mapped on its own, it is never a block of the C heap (which, after a large answer raised
    glibc's mmap threshold, would leave a hole behind every connection a restarting server
    closes), and Python's allocator, which ``tracemalloc`` follows, makes none of that size
    however many connections come and go."""

    def reply(exchange: Exchange) -> None:
        exchange.send(b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok")
        exchange.sock.close()

    if tracemalloc.is_tracing():
        pytest.skip("tracemalloc is in use already")
    server = serve(reply)
    with httpx.Client(transport=Http1Transport(), timeout=10.0) as client:
        assert client.get(server.url + "/first").content == b"ok"  # (imports, first objects)
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            for _ in range(4):
                assert client.get(server.url + "/again").content == b"ok"
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert server.connections == 5
    assert peak - before < READ_BUFFER // 2


def test_a_body_until_the_close(serve: Callable[[Reply], ScriptedServer], client: Any) -> None:
    def reply(exchange: Exchange) -> None:
        exchange.send(b"HTTP/1.1 200 OK\r\n\r\nall ")
        exchange.send(b"of it")
        exchange.sock.close()

    server = serve(reply)
    assert client.get(server.url).content == b"all of it"
    assert client.get(server.url).content == b"all of it"
    assert server.connections == 2


def test_a_connection_the_server_closed_while_idle_is_not_used(
    serve: Callable[[Reply], ScriptedServer], client: Any
) -> None:
    def reply(exchange: Exchange) -> None:
        ok(b"fine")(exchange)
        exchange.sock.shutdown(socket.SHUT_RDWR)
        exchange.sock.close()

    server = serve(reply)
    assert client.get(server.url).content == b"fine"
    # each time the server's close reaches the client's socket before the next request (a
    # close racing a request is the keep-alive race: see the tests of it below)
    time.sleep(0.3)
    assert client.get(server.url).content == b"fine"
    time.sleep(0.3)
    assert client.post(server.url, content=b"once").content == b"fine"
    assert server.connections == 3
    assert len(server.requests) == 3  # each request sent once


def test_a_response_closed_before_its_end_closes_its_connection(
    serve: Callable[[Reply], ScriptedServer], client: Any
) -> None:
    go_on = threading.Event()

    def reply(exchange: Exchange) -> None:
        if exchange.request.target == b"/slow":
            exchange.send(b"HTTP/1.1 200 OK\r\nContent-Length: 200\r\n\r\n" + b"x" * 100)
            assert go_on.wait(10)  # the rest only once the client closed the response
            exchange.send(b"x" * 100)
        else:
            ok(b"y" * 200_000)(exchange)

    server = serve(reply)
    with client.stream("GET", server.url + "/slow") as response:
        assert next(response.iter_raw()) == b"x" * 100
    go_on.set()
    assert client.get(server.url).content == b"y" * 200_000
    assert server.connections == 2
    assert client.get(server.url).content == b"y" * 200_000
    assert server.connections == 2  # read to its end: kept


def test_a_stream_arrives_piece_by_piece(
    serve: Callable[[Reply], ScriptedServer], client: Any
) -> None:
    go_on = threading.Event()

    def reply(exchange: Exchange) -> None:
        exchange.send(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n"
        )
        exchange.send(b"d\r\ndata: first\n\n\r\n")
        assert go_on.wait(10)
        exchange.send(b"e\r\ndata: second\n\n\r\n0\r\n\r\n")

    server = serve(reply)
    with client.stream("GET", server.url) as response:
        lines = response.iter_lines()
        assert next(lines) == "data: first"  # before the server sent the rest
        go_on.set()
        assert list(lines) == ["", "data: second", ""]


def test_a_silent_server_times_out_within_the_read_timeout(
    case: tuple[str, str],
    hx: Any,
    serve: Callable[[Reply], ScriptedServer],
    client: Any,
    runner: EventLoopThread,
) -> None:
    server = serve(lambda exchange: time.sleep(2))
    timeout = hx.Timeout(10.0, read=0.5)
    started = time.monotonic()
    with pytest.raises(hx.ReadTimeout) as ours:
        client.get(server.url, timeout=timeout)
    assert 0.4 < time.monotonic() - started < 4.0

    async def get_async() -> None:
        async with hx.AsyncClient() as stock:
            await stock.get(server.url, timeout=timeout)

    # The same words as the stack's own transport ("timed out" sync, none async).
    with pytest.raises(hx.ReadTimeout) as theirs:
        if case[0] == "sync":
            with hx.Client() as stock:
                stock.get(server.url, timeout=timeout)
        else:
            runner.run(get_async())  # on the same event loop as ours
    assert str(ours.value) == str(theirs.value)


def test_a_trickled_head_obeys_the_deadline_of_the_operation(
    hx: Any, serve: Callable[..., ScriptedServer], client: Any
) -> None:
    def reply(exchange: Exchange) -> None:
        for byte in b"HTTP/1.1 200 OK\r\nX-Slow: " + b"x" * 100:
            exchange.send(bytes([byte]))
            time.sleep(0.05)

    server = serve(reply)
    started = time.monotonic()
    if isinstance(client, AsyncView):
        # the async drivers run each operation under asyncio.timeout: it cancels the wait

        async def get() -> Any:
            async with asyncio.timeout(0.5):
                return await client.client.get(server.url, timeout=10.0)

        with pytest.raises(TimeoutError):
            client.runner.run(get())
    else:
        with pytest.raises(hx.ReadTimeout), io_deadline(time.monotonic() + 0.5):
            client.get(server.url, timeout=10.0)  # each read is within its timeout
    assert 0.4 < time.monotonic() - started < 3.0


def test_a_connection_reset_before_the_answer_is_a_read_error_as_in_httpcore(
    hx: Any, serve: Callable[[Reply], ScriptedServer], client: Any
) -> None:
    # A server that refuses the request by resetting the connection (one that wants a client
    # certificate does, after the handshake): httpcore says ReadError, as mcpstream does; a
    # plain close before the answer stays h11's RemoteProtocolError (the test below).
    def reply(exchange: Exchange) -> None:
        exchange.sock.setsockopt(
            socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00"
        )
        exchange.sock.close()  # with linger 0: a reset

    server = serve(reply)
    with pytest.raises(hx.ReadError):
        client.post(server.url, content=b"refused")
    assert len(server.requests) == 1  # on a new connection: never resent


@pytest.mark.parametrize(
    ("answer", "error"),
    [
        (b"", "Server disconnected without sending a response."),
        (
            b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhalf",
            "closed before the end of the HTTP response body",
        ),
        (
            b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nx",
            "invalid HTTP Content-Length",
        ),
        (
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nfffffffffffffffff\r\n",
            "invalid HTTP chunk-size line",
        ),
        (b"HTTP/1.1 200 OK\r\nA: b\r\n folded\r\n\r\n", "bad header name"),
    ],
)
def test_a_broken_response_is_a_remote_protocol_error_and_never_resent(
    hx: Any, serve: Callable[[Reply], ScriptedServer], client: Any, answer: bytes, error: str
) -> None:
    def reply(exchange: Exchange) -> None:
        exchange.send(answer)
        exchange.sock.shutdown(socket.SHUT_RDWR)
        exchange.sock.close()

    server = serve(reply)
    with pytest.raises(hx.RemoteProtocolError, match=error):
        client.post(server.url, content=b"not twice")
    assert len(server.requests) == 1


def test_a_refused_connection_is_a_connect_error_as_over_httpxs_own_transport(
    case: tuple[str, str], hx: Any, client: Any, runner: EventLoopThread
) -> None:
    url = f"http://127.0.0.1:{free_port()}/"
    with pytest.raises(hx.ConnectError) as ours:
        client.get(url)

    async def get_async() -> None:
        async with hx.AsyncClient() as stock:
            await stock.get(url)

    # The same words as the stack's own transport (a framework may show them to its user).
    with pytest.raises(hx.ConnectError) as theirs:
        if case[0] == "sync":
            with hx.Client() as stock:
                stock.get(url)
        else:
            runner.run(get_async())  # on the same event loop as ours
    assert str(ours.value) == str(theirs.value)
    assert isinstance(ours.value.__cause__, OSError)  # the attempt's own error kept as cause


def test_a_header_that_would_inject_a_field_is_refused(
    hx: Any, serve: Callable[[Reply], ScriptedServer], client: Any
) -> None:
    server = serve(ok(b""))
    request = client.build_request("GET", server.url)
    request.headers["X-Bad"] = "a"
    request.headers._list[-1] = (b"X-Bad", b"x-bad", b"a\r\nInjected: 1")
    with pytest.raises(hx.LocalProtocolError, match="invalid HTTP header value"):
        client.send(request)
    assert server.requests == []


def test_a_head_is_written_again_when_a_field_of_the_session_changes(
    hx: Any, serve: Callable[[Reply], ScriptedServer], client: Any
) -> None:
    # Heads are kept by their fields (a session's are the same for every request): each
    # request must still carry its own fields and its own body length.
    server = serve(ok(b"k"))
    sent = [
        ({"mcp-session-id": "one", "authorization": "Bearer a"}, b"{}"),
        ({"mcp-session-id": "one", "authorization": "Bearer a"}, b"[1, 2, 3]"),
        ({"mcp-session-id": "two", "authorization": "Bearer a"}, b"[1, 2, 3]"),
        ({"mcp-session-id": "two", "authorization": "Bearer b"}, b"x" * 1000),
        ({"mcp-session-id": "one", "authorization": "Bearer a"}, b""),
    ]
    for headers, body in sent:
        assert client.post(server.url + "/mcp", headers=headers, content=body).content == b"k"
    # the head that cannot be written is refused each time, not only the first
    request = client.build_request("POST", server.url, content=b"12")
    request.headers["Content-Length"] = "2"
    request.headers._list[-1] = (b"Content-Length", b"content-length", b"2\r\nInjected: 1")
    for _ in range(2):
        with pytest.raises(hx.LocalProtocolError, match="invalid HTTP header value"):
            client.send(request)
    assert len(server.requests) == len(sent)
    for (headers, body), (request, received) in zip(sent, server.requests, strict=True):
        fields = {name.decode(): value.decode() for name, value in request.headers}
        assert (request.method, request.target, received) == (b"POST", b"/mcp", body)
        assert fields["mcp-session-id"] == headers["mcp-session-id"]
        assert fields["authorization"] == headers["authorization"]
        assert fields["content-length"] == str(len(body))
    assert server.connections == 1


def test_other_schemes_are_refused(hx: Any, client: Any) -> None:
    with pytest.raises(hx.UnsupportedProtocol):
        client.get("ftp://127.0.0.1/")


def test_threads_share_the_pool(serve: Callable[[Reply], ScriptedServer], client: Any) -> None:
    server = serve(ok(b"shared"))
    results: list[bytes] = []
    if isinstance(client, AsyncView):

        async def task() -> None:
            for _ in range(20):
                response = await client.client.get(server.url)
                results.append(response.content)

        async def tasks() -> None:
            await asyncio.gather(*(task() for _ in range(4)))

        client.runner.run(tasks())
        assert results == [b"shared"] * 80
        assert server.connections <= 4
        return

    def work() -> None:
        for _ in range(20):
            results.append(client.get(server.url).content)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert results == [b"shared"] * 80
    assert server.connections <= 4


@pytest.mark.parametrize("mode", ["json", "sse", "stateless"])
def test_an_mcp_session_runs_over_it(
    mcp_server_urls: dict[str, str],
    tmp_path: Path,
    mode: str,
    new_client: Callable[..., Any],
) -> None:
    host_client = new_client()
    server = ResolvedMcpServer(
        id="test", url=mcp_server_urls[mode], headers={}, call_timeout_s=10.0
    )
    mcp: Any
    if isinstance(host_client, AsyncView):

        async def build() -> AsyncMcpHttpTransport:
            return AsyncMcpHttpTransport(
                server=server, workspace_root=tmp_path, client=host_client.client
            )

        mcp = AsyncFacade(host_client.runner, host_client.runner.run(build()))
    else:
        mcp = McpHttpTransport(server=server, workspace_root=tmp_path, client=host_client)
    try:
        assert initialize(mcp)["protocolVersion"] == "2025-11-25"
        text = "h\u00e9llo \u2028 \U0001f600"
        assert tool_text(call_tool(mcp, "echo", {"text": text})) == text
        result = call_tool(mcp, "count", {"steps": 20}, progress_token="tok")
        assert tool_text(result) == "counted 20"
        big = tool_text(call_tool(mcp, "big_text", {"size": 300_000}, timeout_s=60))
        assert len(big) == 300_000
    finally:
        mcp.close()


def test_tls_with_the_hosts_ssl_context_and_keep_alive(
    serve: Callable[..., ScriptedServer], tmp_path: Path, new_client: Callable[..., Any]
) -> None:
    server_context, client_context = _tls_contexts(tmp_path, "localhost")
    server = serve(ok(b"secret"), server_context)
    url = f"https://localhost:{server.port}/"
    client = new_client(verify=client_context)
    assert client.get(url).content == b"secret"
    assert client.get(url).content == b"secret"
    assert server.connections == 1


@pytest.mark.parametrize(
    ("host", "trusted"), [("localhost", False), ("127.0.0.1", False), ("localhost", True)]
)
def test_a_certificate_that_is_not_trusted_or_for_another_name_is_a_connect_error(
    hx: Any,
    serve: Callable[..., ScriptedServer],
    tmp_path: Path,
    host: str,
    trusted: bool,
    new_client: Callable[..., Any],
) -> None:
    # the certificate names other.example (and 127.0.0.1): the default CAs do not trust it,
    # and a context that trusts it still refuses it for localhost
    server_context, client_context = _tls_contexts(tmp_path, "other.example")
    server = serve(ok(b"secret"), server_context)
    client = new_client(verify=client_context if trusted else True)
    with pytest.raises(hx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
        client.get(f"https://{host}:{server.port}/")
    assert server.requests == []


# -- the pool under stress: what no well-behaved server does ------------------------------


def test_interim_heads_are_skipped_and_the_connection_kept(
    serve: Callable[[Reply], ScriptedServer], client: Any
) -> None:
    def reply(exchange: Exchange) -> None:
        exchange.send(
            b"HTTP/1.1 100 Continue\r\n\r\n"
            b"HTTP/1.1 103 Early Hints\r\nLink: </a>; rel=preload\r\n\r\n"
            b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfinal"
        )

    server = serve(reply)
    for _ in range(2):
        response = client.get(server.url)
        assert (response.status_code, response.content) == (200, b"final")
        assert "link" not in response.headers
    assert server.connections == 1


@pytest.mark.parametrize(
    "answer",
    [
        b"HTTP/1.1 204 No Content\r\n\r\n",
        b"HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
    ],
)
def test_answers_without_a_body_keep_the_connection(
    serve: Callable[[Reply], ScriptedServer], client: Any, answer: bytes
) -> None:
    server = serve(lambda exchange: exchange.send(answer))
    for _ in range(3):
        assert client.get(server.url).content == b""
    assert server.connections == 1


def test_a_head_request_reads_no_body(
    serve: Callable[[Reply], ScriptedServer], client: Any
) -> None:
    def reply(exchange: Exchange) -> None:
        if exchange.request.method == b"HEAD":
            exchange.send(b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n")
        else:
            ok(b"after")(exchange)

    server = serve(reply)
    response = client.request("HEAD", server.url)
    assert (response.headers["content-length"], response.content) == ("1000", b"")
    assert client.get(server.url).content == b"after"
    assert server.connections == 1


def test_bytes_after_the_answer_make_the_connection_unusable(
    serve: Callable[[Reply], ScriptedServer], client: Any
) -> None:
    server = serve(
        lambda exchange: exchange.send(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokJUNK")
    )
    assert client.get(server.url).content == b"ok"
    time.sleep(0.2)
    assert client.get(server.url).content == b"ok"
    assert server.connections == 2
    assert len(server.requests) == 2


def test_a_half_closed_idle_connection_is_not_reused(
    serve: Callable[[Reply], ScriptedServer], client: Any
) -> None:
    def reply(exchange: Exchange) -> None:
        ok(b"fine")(exchange)
        # the server stops writing but keeps reading: the connection is half open
        exchange.sock.shutdown(socket.SHUT_WR)

    server = serve(reply)
    assert client.get(server.url).content == b"fine"
    time.sleep(0.3)  # the FIN reaches the client's socket
    assert client.post(server.url, content=b"once").content == b"fine"
    assert server.connections == 2
    assert len(server.requests) == 2  # nothing sent on the half-closed connection


def test_connection_close_in_the_request_is_honoured(
    serve: Callable[[Reply], ScriptedServer], client: Any
) -> None:
    server = serve(ok(b"bye"))
    assert client.get(server.url, headers={"Connection": "close"}).content == b"bye"
    assert client.get(server.url).content == b"bye"
    assert client.get(server.url).content == b"bye"
    assert server.connections == 2


@pytest.mark.parametrize("framing", ["chunked", "length", "close"])
def test_a_server_that_closes_mid_body_is_an_error_not_a_hang(
    hx: Any, serve: Callable[[Reply], ScriptedServer], client: Any, framing: str
) -> None:
    def reply(exchange: Exchange) -> None:
        if framing == "chunked":
            exchange.send(
                b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n3\r\nab"
            )
        elif framing == "length":
            exchange.send(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nhello")
        else:  # a body until the close ends well at the close: reset it instead
            exchange.send(b"HTTP/1.1 200 OK\r\n\r\nhello")
            exchange.sock.setsockopt(
                socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00"
            )
        time.sleep(0.2)
        exchange.sock.close()

    server = serve(reply)
    started = time.monotonic()
    with client.stream("GET", server.url) as response:
        received = b""
        with pytest.raises((hx.RemoteProtocolError, hx.ReadError)):
            for piece in response.iter_raw():
                received += piece
    assert received.startswith(b"hello")
    assert time.monotonic() - started < 5.0  # the read timeout is 10 s: no wait for it
    assert server.connections == 1


def held(go_on: threading.Event) -> Reply:
    """An answer of two bytes, the second sent once ``go_on`` is set (or after 10 s)."""

    def reply(exchange: Exchange) -> None:
        exchange.send(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nz")
        go_on.wait(10)
        exchange.send(b"z")

    return reply


def test_max_connections_bounds_the_pool_within_the_pool_timeout(
    hx: Any, serve: Callable[[Reply], ScriptedServer], new_client: Callable[..., Any]
) -> None:
    go_on = threading.Event()
    server = serve(held(go_on))
    client = new_client(max_connections=1)
    with client.stream("GET", server.url) as response:
        # the only connection carries an open response: another request waits for it
        started = time.monotonic()
        with pytest.raises(hx.PoolTimeout):
            client.get(server.url, timeout=hx.Timeout(10.0, pool=0.3))
        assert 0.2 < time.monotonic() - started < 4.0
        go_on.set()
        assert response.read() == b"zz"
    assert client.get(server.url).content == b"zz"
    assert server.connections == 1
    assert len(server.requests) == 2  # the request that timed out was never sent


def test_a_full_pool_closes_an_idle_connection_to_another_origin(
    serve: Callable[[Reply], ScriptedServer], new_client: Callable[..., Any]
) -> None:
    first, second = serve(ok(b"1")), serve(ok(b"2"))
    client = new_client(max_connections=1)
    assert client.get(first.url).content == b"1"
    assert client.get(second.url).content == b"2"  # the idle one to `first` made room
    assert client.get(first.url).content == b"1"
    assert (first.connections, second.connections) == (2, 1)


def test_an_idle_connection_expires(
    serve: Callable[[Reply], ScriptedServer], new_client: Callable[..., Any]
) -> None:
    server = serve(ok(b"e"))
    client = new_client(keepalive_expiry=0.2)
    assert client.get(server.url).content == b"e"
    assert client.get(server.url).content == b"e"
    assert server.connections == 1
    time.sleep(0.5)
    assert client.get(server.url).content == b"e"
    assert server.connections == 2


def test_only_max_keepalive_connections_stay_idle(
    serve: Callable[[Reply], ScriptedServer], new_client: Callable[..., Any]
) -> None:
    go_on = threading.Event()
    server = serve(held(go_on))
    client = new_client(max_keepalive_connections=1)
    with client.stream("GET", server.url) as one, client.stream("GET", server.url) as two:
        go_on.set()
        assert (one.read(), two.read()) == (b"zz", b"zz")
    assert server.connections == 2
    for _ in range(3):
        assert client.get(server.url).content == b"zz"
    assert server.connections == 2  # one of the two was kept, and reused


def test_a_closed_transport_keeps_no_connection_and_takes_no_request(
    case: tuple[str, str],
    hx: Any,
    serve: Callable[[Reply], ScriptedServer],
    runner: EventLoopThread,
) -> None:
    go_on, seen = threading.Event(), threading.Event()
    closed: list[bool] = []
    hold = held(go_on)

    def reply(exchange: Exchange) -> None:
        hold(exchange)
        # the transport was closed while this answer streamed: read to its end, its
        # connection is closed rather than kept (the server sees the end of the stream)
        exchange.sock.settimeout(10.0)
        try:
            closed.append(exchange.sock.recv(1) == b"")
        except ConnectionResetError:
            closed.append(True)
        except TimeoutError:
            closed.append(False)
        seen.set()

    server = serve(reply)
    timeouts = {"connect": 10.0, "read": 10.0, "write": 10.0, "pool": 10.0}

    def request() -> Any:
        return hx.Request("GET", server.url, extensions={"timeout": dict(timeouts)})

    sync_type, async_type = transport_types(case[1])
    if case[0] == "sync":
        transport = sync_type()
        response = transport.handle_request(request())
        pieces = iter(response.stream)
        assert next(pieces) == b"z"
        transport.close()
        go_on.set()
        assert b"".join(pieces) == b"z"
        with pytest.raises(RuntimeError, match="closed"):
            transport.handle_request(request())
    else:

        async def run() -> None:
            transport = async_type()
            response = await transport.handle_async_request(request())
            pieces = aiter(response.stream)
            assert await anext(pieces) == b"z"
            await transport.aclose()
            go_on.set()
            assert [piece async for piece in pieces] == [b"z"]
            with pytest.raises(RuntimeError, match="closed"):
                await transport.handle_async_request(request())

        runner.run(run())
    assert seen.wait(15.0)
    assert closed == [True]
    assert server.connections == 1


def test_an_async_response_uses_one_timer_for_all_its_reads(
    serve: Callable[[Reply], ScriptedServer], event_loop_thread: EventLoopThread
) -> None:
    def reply(exchange: Exchange) -> None:
        exchange.send(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
        for _ in range(30):
            exchange.send(b"1\r\nx\r\n")
            time.sleep(0.01)
        exchange.send(b"0\r\n\r\n")

    server = serve(reply)
    loop = event_loop_thread.loop
    timers: list[float] = []
    call_at = loop.call_at

    def counting(when: float, *args: Any, **kwargs: Any) -> asyncio.TimerHandle:
        timers.append(when)
        return call_at(when, *args, **kwargs)

    async def fetch() -> bytes:
        async with httpx.AsyncClient(transport=transport_types("httpx")[1]()) as client:
            await client.get(server.url, timeout=10.0)  # connected (connecting has a timer)
            loop.call_at = counting  # type: ignore[method-assign]
            try:
                response = await client.get(server.url, timeout=10.0)
            finally:
                del loop.call_at
            return response.content

    assert event_loop_thread.run(fetch()) == b"x" * 30
    # the head and 30 pieces of body, each a wait of its own, under one timer (a second one
    # only if the first fired while data kept arriving: not within 10 s)
    assert len(timers) == 1


def test_mcpstreams_own_clients_take_the_h1_transport_unless_opted_out(
    monkeypatch: pytest.MonkeyPatch,
    mcp_server_urls: dict[str, str],
    tmp_path: Path,
    event_loop_thread: EventLoopThread,
) -> None:
    from mcpstream._http.httpx_clients import direct_transport, make_async_client, make_client

    for key in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("MCPSTREAM_H1_TRANSPORT", "0")
    with make_client() as opted_out:
        assert not isinstance(direct_transport(opted_out), Http1Transport)
    for setting in ("1", ""):
        monkeypatch.setenv("MCPSTREAM_H1_TRANSPORT", setting)
        with make_client() as client:
            assert isinstance(direct_transport(client), Http1Transport)
    monkeypatch.delenv("MCPSTREAM_H1_TRANSPORT")
    sync_client = make_client()
    assert isinstance(direct_transport(sync_client), Http1Transport)
    sync_client.close()

    async def make() -> Any:
        return make_async_client()

    async def transport_of(client: Any) -> Any:
        return direct_transport(client)  # the running loop's pool (the process's, shared)

    async_client = event_loop_thread.run(make())
    assert isinstance(event_loop_thread.run(transport_of(async_client)), AsyncHttp1Transport)
    event_loop_thread.run(async_client.aclose())
    server = ResolvedMcpServer(
        id="test", url=mcp_server_urls["sse"], headers={}, call_timeout_s=10.0
    )
    mcp = McpHttpTransport(server=server, workspace_root=tmp_path)
    try:
        assert isinstance(direct_transport(mcp._client), Http1Transport)
        assert initialize(mcp)["protocolVersion"] == "2025-11-25"
        assert tool_text(call_tool(mcp, "echo", {"text": "own"})) == "own"
    finally:
        mcp.close()


def test_an_async_transport_outlives_its_event_loop(
    serve: Callable[[Reply], ScriptedServer],
) -> None:
    server = serve(ok(b"again"))
    transport = AsyncHttp1Transport()

    async def get() -> bytes:
        # the client is left open: closing it would close the shared transport
        client = httpx.AsyncClient(transport=transport)
        return (await client.get(server.url)).content

    assert asyncio.run(get()) == b"again"
    # the idle connection belongs to a loop that closed: it is dropped, not reused
    assert asyncio.run(get()) == b"again"
    assert server.connections == 2


# -- a body read whole into one buffer (``read_whole``: how the drivers read a JSON body) --------

BIG = bytes(range(256)) * 4096 * 3
"""3 MiB: read mostly straight into the body's buffer (``base.FILL_BYTES`` and more at a time)."""


def read_whole(response: Any, limit: int | None = None) -> bytes:
    """The body of a streamed ``response`` (sync, or an async one behind a ``StreamView``) read
    by the transport's ``read_whole``, as the drivers read a JSON body."""
    if isinstance(response, StreamView):
        reader = whole_reader(response.response.stream)
        assert reader is not None
        data: bytes = response.runner.run(reader(limit))
        return data
    reader = whole_reader(response.stream)
    assert reader is not None
    data = reader(limit)
    return data


def big_reply(framing: str, pause: float = 0.0) -> Reply:
    """Answers with ``BIG`` (reversed for a target of ``/reversed``) in pieces (``pause``
    seconds apart): a ``Content-Length`` body (``length``), one chunk (``chunk``) or chunks of
    many sizes (``chunks``)."""

    def reply(exchange: Exchange) -> None:
        body = BIG[::-1] if exchange.request.target == b"/reversed" else BIG
        head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
        if framing == "length":
            exchange.send(head + b"Content-Length: %d\r\n\r\n" % len(body) + body[:1000])
            pieces = [body[at : at + 700_000] for at in range(1000, len(body), 700_000)]
        else:
            exchange.send(head + b"Transfer-Encoding: chunked\r\n\r\n")
            cuts = (
                [0, len(body)] if framing == "chunk" else [0, 1, 70_000, 70_100, 1 << 20, len(body)]
            )
            pieces = [
                b"%x\r\n%b\r\n" % (end - start, body[start:end])
                for start, end in itertools.pairwise(cuts)
            ] + [b"0\r\n\r\n"]
        for piece in pieces:
            time.sleep(pause)
            exchange.send(piece)

    return reply


@pytest.mark.parametrize("framing", ["length", "chunk", "chunks"])
def test_a_large_body_is_read_whole_and_its_connection_kept(
    serve: Callable[[Reply], ScriptedServer], client: Any, framing: str
) -> None:
    server = serve(big_reply(framing))
    with client.stream("GET", server.url) as response:
        held = read_whole(response)
    assert held == BIG
    # the connection's buffer is filled again only once nobody holds the body it gave: the
    # body still held is not written over by the next ones
    for target in ("/reversed", "/", "/reversed"):
        with client.stream("GET", server.url + target) as response:
            body = read_whole(response)
        assert body == (BIG[::-1] if target == "/reversed" else BIG)
        del body  # given back: the next body may fill its storage again
    assert held == BIG
    assert server.connections == 1


def test_a_whole_read_stops_at_its_limit_and_drops_the_connection(
    serve: Callable[[Reply], ScriptedServer], client: Any
) -> None:
    go_on = threading.Event()
    sent = (3 << 20) // 2

    def reply(exchange: Exchange) -> None:
        if exchange.request.target == b"/held":
            # half the body, then the rest only once the client has stopped reading
            exchange.send(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(BIG))
            exchange.send(BIG[:sent])
            go_on.wait(10)
            with contextlib.suppress(OSError):
                exchange.send(BIG[sent:])
        else:
            exchange.send(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%b" % (len(BIG), BIG))

    server = serve(reply)
    limit = 1 << 20
    try:
        with client.stream("GET", server.url + "/held") as response:
            data = read_whole(response, limit)
    finally:
        go_on.set()
    assert limit <= len(data) <= sent  # what arrived, not waiting for the rest
    assert data == BIG[: len(data)]
    assert client.get(server.url).content == BIG  # on a new connection
    assert server.connections == 2


@pytest.mark.parametrize("framing", ["length", "chunks"])
def test_a_server_that_closes_within_a_whole_read_is_an_error_not_a_hang(
    hx: Any, serve: Callable[[Reply], ScriptedServer], client: Any, framing: str
) -> None:
    def reply(exchange: Exchange) -> None:
        if framing == "length":
            exchange.send(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(BIG))
        else:
            exchange.send(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n" % len(BIG))
        exchange.send(BIG[: 1 << 20])
        time.sleep(0.2)
        exchange.sock.close()

    server = serve(reply)
    started = time.monotonic()
    with (
        client.stream("GET", server.url) as response,
        pytest.raises(hx.RemoteProtocolError, match="closed before the end"),
    ):
        read_whole(response)
    assert time.monotonic() - started < 5.0  # the read timeout is 10 s: no wait for it


@pytest.mark.parametrize("framing", ["length", "chunk"])
def test_a_huge_announced_length_is_not_taken_at_its_word(
    hx: Any, serve: Callable[[Reply], ScriptedServer], client: Any, framing: str
) -> None:
    # no bound on the read (None): the buffer grows as data arrives, whatever the server says
    def reply(exchange: Exchange) -> None:
        if framing == "length":
            exchange.send(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % (1 << 62))
        else:
            exchange.send(
                b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n" % (1 << 60)
            )
        exchange.send(BIG)
        time.sleep(0.2)
        exchange.sock.close()

    server = serve(reply)
    with (
        client.stream("GET", server.url) as response,
        pytest.raises(hx.RemoteProtocolError, match="closed before the end"),
    ):
        read_whole(response)


def test_a_whole_read_waits_the_read_timeout_between_reads_not_in_all(
    hx: Any, serve: Callable[[Reply], ScriptedServer], client: Any
) -> None:
    # a body that takes well over the read timeout to arrive, a piece every 0.15 s
    server = serve(big_reply("length", pause=0.15))
    timeout = hx.Timeout(10.0, read=0.6)
    with client.stream("GET", server.url, timeout=timeout) as response:
        assert read_whole(response) == BIG
    go_on = threading.Event()

    def stalls(exchange: Exchange) -> None:
        exchange.send(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(BIG))
        exchange.send(BIG[: 1 << 20])
        go_on.wait(10)

    stalled = serve(stalls)
    started = time.monotonic()
    try:
        with (
            client.stream("GET", stalled.url, timeout=timeout) as response,
            pytest.raises(hx.ReadTimeout),
        ):
            read_whole(response)
    finally:
        go_on.set()
    assert 0.5 < time.monotonic() - started < 5.0


def test_a_large_body_is_read_whole_over_tls(
    serve: Callable[..., ScriptedServer], tmp_path: Path, new_client: Callable[..., Any]
) -> None:
    server_context, client_context = _tls_contexts(tmp_path, "localhost")
    server = serve(big_reply("chunks"), server_context)
    client = new_client(verify=client_context)
    for _ in range(2):
        with client.stream("GET", f"https://localhost:{server.port}/") as response:
            assert read_whole(response) == BIG
    assert server.connections == 1


def test_only_the_transports_bodies_are_read_whole(client: Any) -> None:
    assert whole_reader(iter([b"x"])) is None
    assert whole_reader(httpx.ByteStream(b"x")) is None


def test_a_connections_buffer_is_refilled_only_with_no_view_of_it_left() -> None:
    from mcpstream._http.h1.base import renewed

    buffer = renewed(None, 4)
    buffer.open(4)
    view = buffer.view()
    again = renewed(buffer, 4)  # a view still exported: a buffer of its own
    assert again is not buffer
    view.release()
    assert renewed(buffer, 4) is buffer


def test_a_request_sent_and_its_answer_received_apart_or_given_up(
    serve: Callable[[Reply], ScriptedServer],
) -> None:
    # The sync transport's two halves (``send``, then ``receive`` or ``Sent.abandon``), which
    # the one-shot path works between while the server does.
    server = serve(ok(b"half"))
    transport = Http1Transport(max_connections=1, keepalive_expiry=30.0)
    timeouts = {"read": 5.0, "pool": 2.0}  # (a place never freed: PoolTimeout, not a hang)
    request = httpx.Request("GET", server.url, extensions={"timeout": timeouts})
    try:
        sent = transport.send(request)
        framing, body, _ = transport.receive(sent)
        assert (framing.status, b"".join(body)) == (200, b"half")
        transport.send(request).abandon()  # the connection is closed, its place freed
        sent = transport.send(request)  # (within max_connections=1: a new connection)
        assert b"".join(transport.receive(sent)[1]) == b"half"
    finally:
        transport.close()
    # (whether the abandoned request reached the server before its connection closed is a
    # race: not asserted)
    assert server.connections == 2


# -- the common case taken straight (``send`` given a prepared request; ``receive_whole``) ------


def _post(transport: Http1Transport, url: str, body: bytes, read: float = 5.0) -> Any:
    """The one-shot lane's way in: a POST made ready to write first (its ``Prepared``), so that
    ``send`` may take the common case straight."""
    request = httpx.Request(
        "POST", url, content=body, extensions={"timeout": {"read": read, "write": 5.0}}
    )
    return transport.send(request, prepare(transport._stack, request, transport._heads))


def test_a_small_post_on_an_idle_connection_is_written_and_taken_whole_straight(
    serve: Callable[[Reply], ScriptedServer],
) -> None:
    def echo(exchange: Exchange) -> None:
        body = exchange.body
        exchange.send(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%b" % (len(body), body))

    server = serve(echo)
    transport = Http1Transport()
    try:
        for n in range(3):  # the first opens the connection, the others find it idle
            framing, body, _, whole = transport.receive_whole(
                _post(transport, server.url, b"%d" % n)
            )
            assert (framing.status, body, whole) == (200, None, b"%d" % n)
            assert len(transport._pool) == 1  # back in the pool, read to its end
    finally:
        transport.close()
    assert server.connections == 1
    assert [body for _, body in server.requests] == [b"0", b"1", b"2"]


def test_over_tls_a_small_answer_is_taken_whole_and_a_split_one_read_on(
    serve: Callable[..., ScriptedServer], tmp_path: Path
) -> None:
    first_read = threading.Event()

    def answer(exchange: Exchange) -> None:
        if exchange.body == b"whole":
            exchange.send(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nwhole")
            return
        exchange.send(b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nfirst")
        first_read.wait(5)  # (a record of its own, once the client read the first)
        first_read.clear()
        exchange.send(b"-last")

    server_context, client_context = _tls_contexts(tmp_path, "localhost")
    server = serve(answer, server_context)
    url = f"https://localhost:{server.port}/"
    transport = Http1Transport(verify=client_context)
    try:
        for body in (b"whole", b"split", b"whole"):
            framing, stream, _, whole = transport.receive_whole(_post(transport, url, body))
            if body == b"split":
                first_read.set()
            if body == b"whole":
                assert (framing.status, stream, whole) == (200, None, b"whole")
            else:
                assert (framing.status, whole) == (200, None)
                assert b"".join(stream) == b"first-last"
            assert len(transport._pool) == 1  # back in the pool, read to its end
    finally:
        transport.close()
    assert server.connections == 1


def test_an_answer_split_after_its_head_is_read_on_as_a_body(
    serve: Callable[[Reply], ScriptedServer],
) -> None:
    first_read = threading.Event()

    def split(exchange: Exchange) -> None:
        exchange.send(b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nfirst")
        first_read.wait(5)  # (the rest only once the client read the first part)
        first_read.clear()
        exchange.send(b"-last")

    server = serve(split)
    transport = Http1Transport()
    try:
        for _ in range(2):
            framing, body, _, whole = transport.receive_whole(_post(transport, server.url, b"x"))
            first_read.set()
            assert (framing.status, whole) == (200, None)
            assert b"".join(body) == b"first-last"
            assert len(transport._pool) == 1
    finally:
        transport.close()
    assert server.connections == 1


def test_an_idle_connection_the_server_closed_is_not_written_to(
    serve: Callable[[Reply], ScriptedServer],
) -> None:
    def once(exchange: Exchange) -> None:  # answers as if the connection stayed, then closes
        exchange.send(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        exchange.sock.shutdown(socket.SHUT_RDWR)

    server = serve(once)
    transport = Http1Transport()
    try:
        transport.receive_whole(_post(transport, server.url, b"1"))
        idle = transport._pool._idle[-1][0]
        deadline = time.monotonic() + 5
        while not idle.is_stale() and time.monotonic() < deadline:
            time.sleep(0.01)
        _, _, _, whole = transport.receive_whole(_post(transport, server.url, b"2"))
        assert whole == b"ok"
        assert idle.sock.fileno() == -1  # closed, not reused
    finally:
        transport.close()
    assert server.connections == 2
    assert [body for _, body in server.requests] == [b"1", b"2"]


def test_a_small_post_the_socket_takes_in_part_is_written_whole(
    serve: Callable[[Reply], ScriptedServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The first send takes only part of the request: the rest waits for room, on the same
    # connection (a request is never begun twice).
    def echo_length(exchange: Exchange) -> None:
        size = b"%d" % len(exchange.body)
        exchange.send(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%b" % (len(size), size))

    server = serve(echo_length)
    transport = Http1Transport()
    rests: list[int] = []
    send_rest = Http1Transport._send

    def spied(
        self: Any, connection: Any, request: Any, prepared: Any, reused: bool, written: int = 0
    ) -> Any:
        rests.append(written)
        return send_rest(self, connection, request, prepared, reused, written)

    monkeypatch.setattr(Http1Transport, "_send", spied)
    body = b"b" * 60_000
    try:
        transport.receive_whole(_post(transport, server.url, b"open"))
        idle = transport._pool._idle[-1][0]
        real = idle.sock

        class Partial:  # the kernel's answer to a full buffer: part of it taken
            def send(self, data: bytes, flags: int = 0) -> int:
                idle.sock = real
                return real.send(memoryview(data)[:1000], flags)

        idle.sock = Partial()  # type: ignore[assignment]
        _, _, _, whole = transport.receive_whole(_post(transport, server.url, body))
        assert whole == b"60000"
    finally:
        transport.close()
    assert rests[-1] == 1000
    assert server.requests[-1][1] == body
    assert server.connections == 1


@pytest.mark.parametrize(
    ("answer", "error", "words"),
    [
        (b"", httpx.RemoteProtocolError, "Server disconnected without sending a response."),
        (b"SSH-2.0-OpenSSH\r\n\r\n", httpx.RemoteProtocolError, "SSH-2.0"),
        (None, httpx.ReadTimeout, "timed out"),
    ],
)
def test_a_failed_first_read_closes_its_connection_with_the_stack_error(
    serve: Callable[[Reply], ScriptedServer],
    answer: bytes | None,
    error: type[Exception],
    words: str,
) -> None:
    def reply(exchange: Exchange) -> None:
        if exchange.body == b"open":
            exchange.send(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        elif answer is None:
            time.sleep(1.0)  # (past the read timeout)
        else:
            exchange.send(answer)
            exchange.sock.shutdown(socket.SHUT_RDWR)

    server = serve(reply)
    transport = Http1Transport()
    try:
        transport.receive_whole(_post(transport, server.url, b"open"))
        sent = _post(transport, server.url, b"fail", read=0.2)
        with pytest.raises(error, match=words):
            transport.receive_whole(sent)
        assert sent.connection.sock.fileno() == -1
        assert transport._pool.open == 0  # its place freed
    finally:
        transport.close()
    # (a server that read a request on a reused connection and closed it without a byte looks
    # like one that closed it idle as the request came: the request goes once more, on a new
    # connection, and fails there)
    resent = [b"fail"] if answer == b"" else []
    assert [body for _, body in server.requests] == [b"open", b"fail", *resent]


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_a_connection_timed_out_by_the_network_is_a_read_timeout(kind: str) -> None:
    # ETIMEDOUT (the peer stopped acknowledging) is a ``TimeoutError``: httpcore's ReadTimeout.
    transport: Any = Http1Transport() if kind == "sync" else AsyncHttp1Transport()
    request = httpx.Request("GET", "http://127.0.0.1:1/")
    lost = TimeoutError(110, "Connection timed out")
    error = transport._read_error(lost, True, None, b"", request)
    assert isinstance(error, httpx.ReadTimeout) and "Connection timed out" in str(error)
    assert isinstance(transport._read_error(None, True, None, b"", request), httpx.ReadError)


# -- a reused connection closed as a request went out (the keep-alive race) ------------------


def _close_unread(exchange: Exchange) -> None:
    """Close the connection once the next request has arrived, without reading it: what a
    server that closed the idle connection as the request was on its way looks like (the
    unread request makes the close a reset)."""
    select.select([exchange.sock], [], [], 5.0)
    exchange.sock.close()


def _by_connection(replies: dict[int, Callable[[Exchange, int], None]]) -> Reply:
    """A reply by the request's connection (1, 2, ...; 0: any other) and its number on it."""
    counts: dict[int, int] = {}

    def reply(exchange: Exchange) -> None:
        index = exchange.connection_index
        counts[index] = counts.get(index, 0) + 1
        replies.get(index, replies[0])(exchange, counts[index])

    return reply


def _fine(exchange: Exchange, _: int) -> None:
    ok(b"fine")(exchange)


def test_a_request_on_a_reused_connection_closed_unread_is_resent_once_on_a_new_one(
    serve: Callable[[Reply], ScriptedServer], client: Any
) -> None:
    def first(exchange: Exchange, number: int) -> None:
        ok(b"fine")(exchange)
        _close_unread(exchange)

    server = serve(_by_connection({1: first, 0: _fine}))
    assert client.post(server.url, content=b"one").content == b"fine"
    assert client.post(server.url, content=b"two").content == b"fine"
    assert server.connections == 2
    assert [body for _, body in server.requests] == [b"one", b"two"]  # read once each


def test_the_one_shot_lane_resends_as_well(serve: Callable[[Reply], ScriptedServer]) -> None:
    # The sync transport's two halves (``send``, ``receive_whole``), as mcpstream's clients
    # send their POSTs.
    def first(exchange: Exchange, number: int) -> None:
        ok(b"fine")(exchange)
        _close_unread(exchange)

    server = serve(_by_connection({1: first, 0: _fine}))
    transport = Http1Transport(keepalive_expiry=30.0)
    try:
        for body in (b"one", b"two"):
            _, _, _, whole = transport.receive_whole(_post(transport, server.url, body))
            assert whole == b"fine"
    finally:
        transport.close()
    assert server.connections == 2
    assert [body for _, body in server.requests] == [b"one", b"two"]


def test_a_request_read_on_a_new_connection_then_closed_on_is_not_resent(
    hx: Any, serve: Callable[[Reply], ScriptedServer], client: Any
) -> None:
    def hang_up(exchange: Exchange, _: int) -> None:
        exchange.sock.shutdown(socket.SHUT_RDWR)

    server = serve(_by_connection({0: hang_up}))
    with pytest.raises(hx.RemoteProtocolError, match="Server disconnected"):
        client.post(server.url, content=b"read")
    assert server.connections == 1
    assert [body for _, body in server.requests] == [b"read"]


def test_a_resent_request_is_never_resent_again(
    hx: Any, serve: Callable[[Reply], ScriptedServer], client: Any
) -> None:
    def first(exchange: Exchange, number: int) -> None:
        ok(b"fine")(exchange)
        _close_unread(exchange)

    def hang_up(exchange: Exchange, _: int) -> None:  # reads the request, closes unanswered
        exchange.sock.shutdown(socket.SHUT_RDWR)

    server = serve(_by_connection({1: first, 0: hang_up}))
    assert client.post(server.url, content=b"one").content == b"fine"
    with pytest.raises(hx.RemoteProtocolError, match="Server disconnected"):
        client.post(server.url, content=b"two")
    assert server.connections == 2  # the resend's new connection, and no third
    assert [body for _, body in server.requests] == [b"one", b"two"]


@pytest.mark.parametrize(
    ("answer", "error"),
    [
        (b"HTTP/1.1 200 OK\r\n", "RemoteProtocolError"),  # a byte of the answer came
        (None, "ReadTimeout"),  # silence is no close
    ],
)
def test_a_reused_connection_that_answered_a_byte_or_stayed_silent_is_not_resent_on(
    hx: Any,
    serve: Callable[[Reply], ScriptedServer],
    client: Any,
    answer: bytes | None,
    error: str,
) -> None:
    def second(exchange: Exchange, number: int) -> None:
        if number == 1:
            ok(b"fine")(exchange)
        elif answer is None:
            time.sleep(0.6)  # (past the read timeout)
        else:
            exchange.send(answer)
            exchange.sock.shutdown(socket.SHUT_RDWR)

    server = serve(_by_connection({0: second}))
    assert client.post(server.url, content=b"one").content == b"fine"
    with pytest.raises(getattr(hx, error)):
        client.post(server.url, content=b"two", timeout=hx.Timeout(5.0, read=0.3))
    assert server.connections == 1
    assert [body for _, body in server.requests] == [b"one", b"two"]


def test_a_streamed_body_is_not_resent(
    case: tuple[str, str], hx: Any, serve: Callable[[Reply], ScriptedServer], client: Any
) -> None:
    # A body the host streams is read once: it cannot be written again.
    def first(exchange: Exchange, number: int) -> None:
        ok(b"fine")(exchange)
        _close_unread(exchange)

    async def pieces() -> AsyncIterator[bytes]:
        yield b"tw"
        yield b"o"

    server = serve(_by_connection({1: first, 0: _fine}))
    assert client.post(server.url, content=b"one").content == b"fine"
    streamed = iter([b"tw", b"o"]) if case[0] == "sync" else pieces()
    with pytest.raises((hx.RemoteProtocolError, hx.ReadError, hx.WriteError)):
        client.post(server.url, content=streamed)
    assert server.connections == 1


def test_a_keep_alive_timeout_of_the_server_expires_its_idle_connection_first(
    serve: Callable[[Reply], ScriptedServer], client: Any
) -> None:
    def short(exchange: Exchange) -> None:
        exchange.send(b"HTTP/1.1 200 OK\r\nKeep-Alive: timeout=1\r\nContent-Length: 2\r\n\r\nok")

    server = serve(short)
    assert client.get(server.url).content == b"ok"
    assert client.get(server.url).content == b"ok"  # within half a second: reused
    time.sleep(0.6)  # past timeout=1 less its margin (half of it)
    assert client.get(server.url).content == b"ok"
    assert server.connections == 2
