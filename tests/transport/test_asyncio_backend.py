"""The network backend on asyncio itself (``mcpstream._http.asyncio_backend``), over real
loopback connections: reads and writes, httpcore's errors and timeouts, the end of the stream,
cancellation, the bounded buffer, TLS, and its choice by the async clients under asyncio."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import ssl
import struct
import types
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import Any

import httpcore
import httpx
import pytest
from mcpstream._http import capability, httpx_clients
from mcpstream._http.asyncio_backend import BUFFER_BYTES, AsyncioBackend, AsyncioStream
from mcpstream._http.httpx_clients import (
    LARGE_READ_BYTES,
    READ_BYTES,
    _AsyncLargeReadBackend,
    _AsyncLargeReadStream,
    make_async_client,
)
from mcpstream._httpbase.stack import stack_named
from plain_http.tls import self_signed_certificate

Serve = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]

RESPONSE = b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok"


class Server:
    """A loopback asyncio server on the test's loop: ``serve`` handles each connection, which
    is closed when it returns (``closed`` is set then: the handlers here return at the client's
    end unless said otherwise)."""

    def __init__(
        self, serve: Serve, ssl_context: ssl.SSLContext | None = None, *, path: str | None = None
    ) -> None:
        self._serve = serve
        self._ssl = ssl_context
        self._path = path
        """Where to listen as a unix socket (None: TCP on a free port of 127.0.0.1)."""
        self._handlers: set[asyncio.Task[Any]] = set()
        self.closed = asyncio.Event()
        self.port = 0

    async def __aenter__(self) -> Server:
        if self._path is not None:
            self._server = await asyncio.start_unix_server(self._handle, self._path)
        else:
            self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0, ssl=self._ssl)
            self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        """Stop listening, end the handlers still running and close their connections."""
        self._server.close()
        for handler in self._handlers:
            handler.cancel()
        await asyncio.gather(*self._handlers, return_exceptions=True)
        await asyncio.sleep(0)  # the closed transports let go of their sockets

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._handlers.add(task)
        try:
            await self._serve(reader, writer)
        except asyncio.CancelledError:
            pass  # ended by ``__aexit__`` (Python 3.11's streams log a handler task cancelled)
        finally:
            self.closed.set()
            writer.close()


async def _respond(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Answer each request head (no body) with ``RESPONSE``, until the client's end."""
    with contextlib.suppress(asyncio.IncompleteReadError):
        while await reader.readuntil(b"\r\n\r\n"):
            writer.write(RESPONSE)


async def _silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Answer nothing; read what comes up to the client's end."""
    await reader.read()


async def _connect(server: Server) -> AsyncioStream:
    stream = await AsyncioBackend().connect_tcp("127.0.0.1", server.port, timeout=5.0)
    assert isinstance(stream, AsyncioStream)
    return stream


async def _until_readable(stream: AsyncioStream) -> None:
    """Wait (5 s at most) for ``stream`` to say it is readable."""
    for _ in range(500):
        if stream.get_extra_info("is_readable"):
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the stream never became readable")


def test_a_request_and_its_answer_go_through() -> None:
    async def run() -> bytes:
        async with Server(_respond) as server:
            stream = await _connect(server)
            await stream.write(b"GET / HTTP/1.1\r\n")
            await stream.write(b"host: x\r\n\r\n")
            data = await stream.read(65536, timeout=5.0)
            await stream.aclose()
            await asyncio.wait_for(server.closed.wait(), 5.0)
            return data

    assert asyncio.run(run()) == RESPONSE


def test_the_small_writes_of_a_request_leave_in_one_send() -> None:
    sent: list[bytes] = []

    async def run() -> None:
        async with Server(_respond) as server:
            stream = await _connect(server)
            transport = stream._transport

            def write(data: bytes) -> None:
                sent.append(data)
                transport.write(data)

            stream._transport = types.SimpleNamespace(  # type: ignore[assignment]
                write=write, is_closing=transport.is_closing, abort=transport.abort
            )
            await stream.write(b"GET / HTTP/1.1\r\n")
            await stream.write(b"host: x\r\n\r\n")
            assert sent == []
            assert await stream.read(1, timeout=5.0) == RESPONSE
            await stream.aclose()

    asyncio.run(run())
    assert sent == [b"GET / HTTP/1.1\r\nhost: x\r\n\r\n"]


@pytest.mark.httpcore_client
@pytest.mark.parametrize("http_stack", ["httpx", "httpx2"])
def test_an_httpx_client_gets_its_answer_over_the_backend(http_stack: str) -> None:
    async def run() -> tuple[str, type[Any]]:
        client = make_async_client(stack_named(http_stack))
        async with Server(_respond) as server, client:
            response = await client.get(f"http://127.0.0.1:{server.port}/")
            return response.text, type(response.extensions["network_stream"])

    text, stream_type = asyncio.run(run())
    assert text == "ok"
    # The backend is put in where the core's pool has what the hook reads (capability): at
    # every release the suites run at.
    assert capability.hooks_fit(stack_named(http_stack))
    assert stream_type is AsyncioStream


def test_the_async_clients_use_anyio_away_from_asyncio(monkeypatch: pytest.MonkeyPatch) -> None:
    """Under trio (sniffio says so), the streams are httpcore's anyio ones, reading in large
    pieces."""
    trio = types.SimpleNamespace(current_async_library=lambda: "trio")
    monkeypatch.setattr(httpx_clients, "sniffio", trio)

    async def run() -> object:
        async with Server(_respond) as server:
            stream = await _AsyncLargeReadBackend().connect_tcp("127.0.0.1", server.port)
            await stream.aclose()
            return stream

    assert isinstance(asyncio.run(run()), _AsyncLargeReadStream)


@pytest.mark.parametrize("http_stack", ["httpx", "httpx2"])
def test_a_read_with_nothing_arriving_times_out_as_httpcore_does(http_stack: str) -> None:
    stack = stack_named(http_stack)

    async def run() -> None:
        async with Server(_silent) as server:
            stream = await _connect(server)
            with pytest.raises(httpcore.ReadTimeout):
                await stream.read(1, timeout=0.05)
            await stream.aclose()
            async with make_async_client(stack) as client:
                # The stack's own exception: httpcore2's pool maps only httpcore2's.
                # Only the read is short: a loopback connect on a busy machine may take more
                # than 50 ms, which would be a ConnectTimeout.
                timeout = stack.httpx.Timeout(10.0, read=0.05)
                with pytest.raises(stack.httpx.ReadTimeout):
                    await client.get(f"http://127.0.0.1:{server.port}/", timeout=timeout)

    asyncio.run(run())


def test_a_write_the_peer_does_not_read_times_out_as_httpcore_does() -> None:
    async def run() -> None:
        async with Server(_never_reads) as server:
            stream = await _connect(server)
            with pytest.raises(httpcore.WriteTimeout):
                for _ in range(64):  # more than the kernel's buffers take
                    await stream.write(bytes(1024 * 1024), timeout=0.1)
            await stream.aclose()

    async def _never_reads(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await asyncio.sleep(10)

    asyncio.run(run())


def test_the_end_of_the_stream_reads_as_no_bytes_after_what_came_before() -> None:
    async def answer_and_close(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(RESPONSE)  # and the connection closed

    async def run() -> list[bytes]:
        async with Server(answer_and_close) as server:
            stream = await _connect(server)
            await _until_readable(stream)
            reads = [await stream.read(65536, timeout=5.0) for _ in range(3)]
            await stream.aclose()
            return reads

    assert asyncio.run(run()) == [RESPONSE, b"", b""]


def test_a_server_that_half_closes_still_receives_what_follows() -> None:
    """Over plain TCP the end of the server's half leaves the client's half open (as anyio's
    streams and sockets do): the rest of a request still goes out."""
    received: list[bytes] = []

    async def answer_and_half_close(
        reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        writer.write(RESPONSE)
        writer.write_eof()
        received.append(await reader.read())

    async def run() -> None:
        async with Server(answer_and_half_close) as server:
            stream = await _connect(server)
            assert await stream.read(65536, timeout=5.0) == RESPONSE
            assert await stream.read(65536, timeout=5.0) == b""
            await stream.write(bytes(COALESCE_TEST_BYTES), timeout=5.0)
            await stream.aclose()
            await asyncio.wait_for(server.closed.wait(), 5.0)

    asyncio.run(run())
    assert received == [bytes(COALESCE_TEST_BYTES)]


def test_an_idle_connection_is_readable_once_the_server_closes_it() -> None:
    async def close_later(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readexactly(1)  # and the connection closed

    async def run() -> None:
        async with Server(close_later) as server:
            stream = await _connect(server)
            await asyncio.sleep(0.05)
            assert not stream.get_extra_info("is_readable")
            await stream.write(bytes(COALESCE_TEST_BYTES))  # large enough to leave at once
            await _until_readable(stream)
            await stream.aclose()

    asyncio.run(run())


COALESCE_TEST_BYTES = 64 * 1024


def test_a_reset_connection_reads_as_a_read_error() -> None:
    async def reset(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        sock = writer.get_extra_info("socket")
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        writer.transport.abort()  # closed with SO_LINGER 0: a reset

    async def run() -> None:
        async with Server(reset) as server:
            stream = await _connect(server)
            with pytest.raises(httpcore.ReadError):
                while await stream.read(65536, timeout=5.0):
                    pass
            await stream.aclose()

    asyncio.run(run())


def test_a_closed_stream_neither_reads_nor_writes() -> None:
    async def run() -> None:
        async with Server(_silent) as server:
            stream = await _connect(server)
            await stream.aclose()
            with pytest.raises(httpcore.ReadError):
                await stream.read(1)
            with pytest.raises(httpcore.WriteError):
                await stream.write(bytes(COALESCE_TEST_BYTES))
            await server.closed.wait()

    asyncio.run(run())


def test_a_refused_connection_is_a_connect_error() -> None:
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]

    async def run() -> None:
        with pytest.raises(httpcore.ConnectError) as ours:
            await AsyncioBackend().connect_tcp("127.0.0.1", port, timeout=5.0)
        # In the words of httpcore's own (anyio) backend: a framework may show them.
        with pytest.raises(httpcore.ConnectError) as theirs:
            await httpcore.AnyIOBackend().connect_tcp("127.0.0.1", port, timeout=5.0)
        assert str(ours.value) == str(theirs.value)
        async with make_async_client() as client:
            with pytest.raises(httpx.ConnectError):
                await client.get(f"http://127.0.0.1:{port}/")

    asyncio.run(run())


def test_socket_options_are_set_on_the_connection() -> None:
    async def run() -> int:
        async with Server(_silent) as server:
            stream = await AsyncioBackend().connect_tcp(
                "127.0.0.1",
                server.port,
                socket_options=[(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)],
            )
            value: int = stream.get_extra_info("socket").getsockopt(
                socket.SOL_SOCKET, socket.SO_KEEPALIVE
            )
            assert stream.get_extra_info("server_addr") == ("127.0.0.1", server.port)
            assert stream.get_extra_info("client_addr")[0] == "127.0.0.1"
            assert stream.get_extra_info("ssl_object") is None
            assert stream.get_extra_info("anything else") is None
            await stream.aclose()
            return value

    assert asyncio.run(run()) == 1


async def _cancelled_while_waiting(work: Coroutine[Any, Any, object]) -> None:
    """Run ``work`` as a task, and cancel it once it waits (for an answer that never comes)."""
    task = asyncio.create_task(work)
    await asyncio.sleep(0.1)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


def test_a_task_cancelled_while_reading_leaves_no_connection_open() -> None:
    """httpcore closes the stream of a request whose task is cancelled (``aclose``): the
    server sees the connection end."""

    async def run() -> None:
        async with Server(_silent) as server, make_async_client() as client:
            await _cancelled_while_waiting(client.get(f"http://127.0.0.1:{server.port}/"))
            await asyncio.wait_for(server.closed.wait(), 5.0)

    asyncio.run(run())


@pytest.mark.parametrize("end", ["timeout", "cancelled"])
def test_a_tls_handshake_without_an_answer_leaves_no_connection_open(end: str) -> None:
    """Whether it times out (httpcore's ``ConnectTimeout``) or its task is cancelled."""

    async def run() -> None:
        async with Server(_silent) as server:
            stream = await _connect(server)
            timeout = 0.1 if end == "timeout" else None
            handshake = stream.start_tls(ssl.create_default_context(), "localhost", timeout)
            if end == "timeout":
                with pytest.raises(httpcore.ConnectTimeout):
                    await handshake
            else:
                await _cancelled_while_waiting(handshake)
            await asyncio.wait_for(server.closed.wait(), 5.0)

    asyncio.run(run())


def test_a_large_body_is_buffered_within_bounds_and_arrives_whole() -> None:
    body = bytes(range(256)) * (64 * 1024)  # 16 MiB

    async def send_body(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(body)
        await writer.drain()

    async def run() -> list[bytes]:
        async with Server(send_body) as server:
            stream = await _connect(server)
            protocol = stream._protocol
            await asyncio.sleep(0.3)  # the server writes as fast as the client lets it
            assert protocol.reading_paused
            assert BUFFER_BYTES <= protocol.size < BUFFER_BYTES + LARGE_READ_BYTES
            chunks, received = [], 0
            while received < len(body):
                chunks.append(await stream.read(65536, timeout=5.0))
                received += len(chunks[-1])
                assert protocol.size < BUFFER_BYTES + LARGE_READ_BYTES
            await stream.aclose()
            return chunks

    chunks = asyncio.run(run())
    assert b"".join(chunks) == body
    # The first read asks for READ_BYTES, and gets them all: the next ones ask for more.
    assert [len(chunk) for chunk in chunks[:2]] == [READ_BYTES, LARGE_READ_BYTES]


def test_a_unix_socket_round_trip(tmp_path: Path) -> None:
    path = str(tmp_path / "server.sock")

    async def run() -> bytes:
        async with Server(_respond, path=path):
            stream = await AsyncioBackend().connect_unix_socket(path, timeout=5.0)
            await stream.write(b"GET / HTTP/1.1\r\nhost: x\r\n\r\n")
            data = await stream.read(65536, timeout=5.0)
            await stream.aclose()
            return data

    assert asyncio.run(run()) == RESPONSE


# -- TLS ----------------------------------------------------------------------------------------


def _tls_contexts(tmp_path: Path, name: str) -> tuple[ssl.SSLContext, ssl.SSLContext]:
    """The server's context (ALPN ``http/1.1``) and a client context trusting its
    certificate."""
    cert_path, key_path = self_signed_certificate(tmp_path, name)
    server_context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_context.load_cert_chain(cert_path, key_path)
    server_context.set_alpn_protocols(["http/1.1"])
    client_context = ssl.create_default_context(cafile=str(cert_path))
    return server_context, client_context


def test_a_tls_round_trip_through_httpcore(tmp_path: Path) -> None:
    """httpcore sets ALPN on the context and the server name; the answer (a large one: read in
    large pieces under TLS too) comes back decrypted."""
    server_context, client_context = _tls_contexts(tmp_path, "localhost")
    body = bytes(range(256)) * 8192  # 2 MiB

    async def send_body(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: %d\r\n\r\n" % len(body) + body)
        await reader.read()

    async def run() -> tuple[list[bytes], str | None]:
        async with (
            Server(send_body, server_context) as server,
            httpcore.AsyncConnectionPool(
                ssl_context=client_context, network_backend=_AsyncLargeReadBackend()
            ) as pool,
            pool.stream("GET", f"https://localhost:{server.port}/") as response,
        ):
            stream = response.extensions["network_stream"]
            assert isinstance(stream, AsyncioStream)
            alpn = stream.get_extra_info("ssl_object").selected_alpn_protocol()
            assert stream.get_extra_info("server_addr")[1] == server.port
            return [chunk async for chunk in response.aiter_stream()], alpn

    chunks, alpn = asyncio.run(run())
    assert b"".join(chunks) == body
    assert alpn == "http/1.1"
    assert max(map(len, chunks)) > 64 * 1024


def test_a_certificate_for_another_name_is_a_connect_error(tmp_path: Path) -> None:
    server_context, client_context = _tls_contexts(tmp_path, "other.example")

    async def run() -> None:
        async with Server(_silent, server_context) as server:
            stream = await _connect(server)
            with pytest.raises(httpcore.ConnectError):
                await stream.start_tls(client_context, "localhost", timeout=5.0)
            assert stream._transport.is_closing()

    asyncio.run(run())
