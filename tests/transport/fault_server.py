"""A small HTTP/1.1 server that misbehaves on purpose, for what real MCP servers don't do.

It runs an asyncio server on 127.0.0.1 in a thread of its own. Each test registers a handler
under a fresh path (``FaultServer.route``); the handler gets every request to that path (POST,
GET, DELETE) and writes raw bytes through ``Conn``: exact framing, chunk boundaries, pauses,
dropped connections. Every request is recorded for the test to inspect.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

Handler = Callable[["Request", "Conn"], Awaitable[None]]


@dataclass
class Request:
    """One request as the server received it (header names in lower case)."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> Any:
        """The body parsed as JSON (None when empty)."""
        return json.loads(self.body) if self.body else None

    @property
    def jsonrpc_id(self) -> Any:
        """The JSON-RPC id of a request body."""
        return self.json["id"]

    @property
    def is_client_reply(self) -> bool:
        """True for a POST carrying the client's answer to a server request."""
        body = self.json
        return isinstance(body, dict) and "method" not in body and "id" in body


def sse(
    data: str | None = None,
    *,
    id: str | None = None,
    event: str | None = None,
    retry: int | None = None,
) -> bytes:
    """One SSE event, LF-framed."""
    lines = []
    if event is not None:
        lines.append(f"event: {event}")
    if id is not None:
        lines.append(f"id: {id}")
    if retry is not None:
        lines.append(f"retry: {retry}")
    if data is not None:
        lines.extend(f"data: {line}" for line in data.split("\n"))
    return ("\n".join(lines) + "\n\n").encode()


def result(request_id: Any, value: Any) -> str:
    """A JSON-RPC result response, as text."""
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "result": value})


def notification(method: str, params: Any = None) -> str:
    """A JSON-RPC notification, as text."""
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        message["params"] = params
    return json.dumps(message)


def server_request(request_id: Any, method: str, params: Any = None) -> str:
    """A JSON-RPC request from the server, as text."""
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return json.dumps(message)


class Conn:
    """Writes one response, byte by byte if need be."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self._writer = writer
        self._chunked = False
        self.keep_alive = True

    async def start(
        self,
        status: int = 200,
        headers: dict[str, str] | None = None,
        *,
        content_type: str | None = "text/event-stream",
        content_length: int | None = None,
    ) -> None:
        """Send the status line and headers; without ``content_length`` the body is chunked."""
        lines = [f"HTTP/1.1 {status} X"]
        all_headers = dict(headers or {})
        if content_type is not None:
            all_headers["Content-Type"] = content_type
        if content_length is None:
            self._chunked = True
            all_headers["Transfer-Encoding"] = "chunked"
        else:
            all_headers["Content-Length"] = str(content_length)
        lines.extend(f"{name}: {value}" for name, value in all_headers.items())
        self._writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
        await self._writer.drain()

    async def send(self, data: bytes, *, pause_s: float = 0.0) -> None:
        """Send body bytes (as one chunk when chunked), then pause."""
        if data:
            if self._chunked:
                self._writer.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            else:
                self._writer.write(data)
            await self._writer.drain()
        if pause_s:
            await asyncio.sleep(pause_s)

    async def whole(
        self,
        body: bytes,
        *,
        content_type: str = "application/json",
        chunked: bool = False,
        headers: dict[str, str] | None = None,
    ) -> None:
        """A 200 response with ``body`` in one write (head and body arrive together)."""
        if chunked:
            framed = f"{len(body):x}\r\n".encode() + body + b"\r\n0\r\n\r\n"
            length = "Transfer-Encoding: chunked"
        else:
            framed, length = body, f"Content-Length: {len(body)}"
        fields = "".join(f"{name}: {value}\r\n" for name, value in (headers or {}).items())
        head = f"HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\n{fields}{length}\r\n\r\n"
        self._writer.write(head.encode("latin-1") + framed)
        await self._writer.drain()

    async def end(self) -> None:
        """End a chunked body."""
        if self._chunked:
            self._writer.write(b"0\r\n\r\n")
            await self._writer.drain()

    async def respond(
        self,
        status: int = 200,
        body: bytes = b"",
        *,
        content_type: str | None = "application/json",
        headers: dict[str, str] | None = None,
    ) -> None:
        """A complete response with a Content-Length."""
        await self.start(status, headers, content_type=content_type, content_length=len(body))
        await self.send(body)

    async def sse_body(
        self,
        parts: list[bytes],
        *,
        with_length: bool = False,
        pause_s: float = 0.0,
        headers: dict[str, str] | None = None,
    ) -> None:
        """An SSE response made of ``parts`` (each sent on its own), then the end."""
        length = sum(len(part) for part in parts) if with_length else None
        await self.start(200, headers, content_length=length)
        for part in parts:
            await self.send(part, pause_s=pause_s)
        await self.end()

    async def accept(self) -> None:
        """202 Accepted, no body (a notification or the client's answer was taken)."""
        await self.respond(202, content_type=None)

    def drop(self) -> None:
        """Close the connection at once, wherever the response is."""
        self.keep_alive = False
        self._writer.transport.abort()


@dataclass
class FaultServer:
    """The server; ``route`` gives each test a path of its own."""

    host: str = "127.0.0.1"
    port: int = 0
    routes: dict[str, Handler] = field(default_factory=dict)
    requests: dict[str, list[Request]] = field(default_factory=dict)
    _loop: asyncio.AbstractEventLoop | None = None
    _thread: threading.Thread | None = None
    _names: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    def start(self) -> None:
        """Start serving on a free port, on a thread of its own."""
        ready = threading.Event()
        self._loop = asyncio.new_event_loop()

        async def serve() -> None:
            server = await asyncio.start_server(self._serve_connection, self.host, 0)
            self.port = server.sockets[0].getsockname()[1]
            ready.set()
            async with server:
                await server.serve_forever()

        def run() -> None:
            assert self._loop is not None
            asyncio.set_event_loop(self._loop)
            with contextlib.suppress(asyncio.CancelledError):
                self._loop.run_until_complete(serve())

        self._thread = threading.Thread(target=run, name="fault-server", daemon=True)
        self._thread.start()
        ready.wait(10)

    def stop(self) -> None:
        """Stop serving and join the thread."""
        assert self._loop is not None and self._thread is not None

        def cancel_all() -> None:
            for task in asyncio.all_tasks(self._loop):
                task.cancel()

        self._loop.call_soon_threadsafe(cancel_all)
        self._thread.join(10)

    def route(self, handler: Handler) -> str:
        """Register ``handler`` under a new path; return the path's URL."""
        path = f"/fault/{next(self._names)}"
        self.routes[path] = handler
        self.requests[path] = []
        return f"http://{self.host}:{self.port}{path}"

    def recorded(self, url: str) -> list[Request]:
        """The requests received so far on ``url``'s path."""
        path = "/" + url.split("/", 3)[3]
        return list(self.requests[path])

    async def _serve_connection(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        try:
            while True:
                request = await self._read_request(reader)
                if request is None:
                    return
                conn = Conn(writer)
                path = request.path.split("?", 1)[0]
                self.requests.setdefault(path, []).append(request)
                handler = self.routes.get(path)
                if handler is None:
                    await conn.respond(404, b"no such route", content_type="text/plain")
                else:
                    await handler(request, conn)
                if not conn.keep_alive:
                    return
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError):
            return
        finally:
            writer.transport.abort()

    @staticmethod
    async def _read_request(reader: asyncio.StreamReader) -> Request | None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, ConnectionError):
            return None
        request_line, *header_lines = head.decode("latin-1").split("\r\n")
        method, target, _ = request_line.split(" ", 2)
        headers: dict[str, str] = {}
        for line in header_lines:
            if line:
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
        length = int(headers.get("content-length", "0"))
        body = await reader.readexactly(length) if length else b""
        return Request(method, target, headers, body)
