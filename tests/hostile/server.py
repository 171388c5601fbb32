"""A hand-made hostile HTTP server on 127.0.0.1, for the tests of what mcpstream does when a
server misbehaves as no real one would (trickled headers, lying ``Content-Length``, gzip bombs,
hostile metadata).

Each route is a function that writes raw bytes to the connection; helpers build the usual
answers. The server is bounded: it listens on loopback only, and stops by itself after
``lifetime_s`` (closing every connection), even if a test forgets to stop it.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import socket
import threading
import time
import zlib
from collections.abc import Callable
from typing import Any

Route = Callable[["Connection"], None]


class Connection:
    """One accepted connection: the request line and headers, and a way to write back that
    gives up once the server is stopping."""

    def __init__(self, sock: socket.socket, stopping: threading.Event) -> None:
        self.sock = sock
        self.stopping = stopping
        self.method = ""
        self.path = ""
        self.headers: dict[str, str] = {}
        self.body = b""

    def read_request(self) -> bool:
        data = b""
        self.headers = {}  # a kept-alive connection's next request has its own
        self.sock.settimeout(5.0)
        while b"\r\n\r\n" not in data:
            chunk = self.sock.recv(65536)
            if not chunk:
                return False
            data += chunk
        head, _, rest = data.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        self.method, self.path, _ = lines[0].split(" ", 2)
        for line in lines[1:]:
            name, _, value = line.partition(":")
            self.headers[name.strip().lower()] = value.strip()
        length = int(self.headers.get("content-length", "0") or 0)
        while len(rest) < length:
            chunk = self.sock.recv(65536)
            if not chunk:
                break
            rest += chunk
        self.body = rest
        return True

    def send(self, data: bytes) -> bool:
        """Write ``data``; ``False`` once the peer or the server went away."""
        if self.stopping.is_set():
            return False
        try:
            self.sock.sendall(data)
        except OSError:
            return False
        return True

    def trickle(self, data: bytes, every_s: float) -> None:
        """Write ``data`` a byte at a time, one every ``every_s``."""
        for index in range(len(data)):
            if not self.send(data[index : index + 1]) or self.stopping.wait(every_s):
                return

    def respond(
        self,
        body: bytes,
        *,
        status: str = "200 OK",
        content_type: str = "application/json",
        headers: dict[str, str] | None = None,
    ) -> None:
        """A whole response at once (``Content-Length`` from ``body`` unless given)."""
        merged = {"Content-Type": content_type, "Content-Length": str(len(body))}
        merged.update(headers or {})
        self.send(response_head(status, merged) + body)

    def json(self, value: Any, **kwargs: Any) -> None:
        """A JSON response."""
        self.respond(json.dumps(value).encode(), **kwargs)

    @property
    def jsonrpc(self) -> dict[str, Any]:
        """The JSON-RPC message of a POST (``{}`` for another request)."""
        if not self.body:
            return {}
        message: dict[str, Any] = json.loads(self.body)
        return message

    def stream_head(self, headers: dict[str, str] | None = None) -> bool:
        """The head of an SSE answer whose body ends when the connection does."""
        merged = {"Content-Type": "text/event-stream", "Connection": "close"}
        merged.update(headers or {})
        return self.send(response_head("200 OK", merged))

    def end(self) -> None:
        """Close the connection (the end of a body without a length)."""
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)


def response_head(status: str, headers: dict[str, str]) -> bytes:
    """The status line and headers of a response."""
    lines = [f"HTTP/1.1 {status}", *(f"{k}: {v}" for k, v in headers.items()), "", ""]
    return "\r\n".join(lines).encode("latin-1")


def gzip_bomb(size: int, *, prefix: bytes = b"", coding: str = "gzip") -> bytes:
    """``prefix`` and ``size`` bytes of spaces, compressed (a thousand to one) with ``coding``
    (``gzip``, or ``deflate``: zlib-wrapped), made a MiB at a time."""
    if size <= 1 << 20 and not prefix and coding == "gzip":
        return gzip.compress(b" " * size, compresslevel=9)
    wbits = zlib.MAX_WBITS | 16 if coding == "gzip" else zlib.MAX_WBITS
    compressor = zlib.compressobj(9, zlib.DEFLATED, wbits)
    block = b" " * (1 << 20)
    parts = [compressor.compress(prefix)]
    parts.extend(compressor.compress(block) for _ in range(max(size >> 20, 1)))
    parts.append(compressor.flush())
    return b"".join(parts)


def sse_event(data: Any, *, event_id: str | None = None, retry: int | None = None) -> bytes:
    """One SSE event carrying ``data`` as JSON (``event_id``, ``retry``: its fields)."""
    lines = []
    if retry is not None:
        lines.append(f"retry: {retry}")
    if event_id is not None:
        lines.append(f"id: {event_id}")
    lines.append(f"data: {json.dumps(data)}")
    return ("\n".join(lines) + "\n\n").encode()


def notification(method: str = "notifications/message", **params: Any) -> dict[str, Any]:
    """A JSON-RPC notification."""
    return {"jsonrpc": "2.0", "method": method, "params": params}


def result(request_id: Any, value: Any = "ok") -> dict[str, Any]:
    """A JSON-RPC result."""
    return {"jsonrpc": "2.0", "id": request_id, "result": value}


def chunked(*parts: bytes) -> bytes:
    """``parts`` as a chunked transfer-encoded body, with its last chunk."""
    return b"".join(b"%x\r\n%s\r\n" % (len(part), part) for part in parts) + b"0\r\n\r\n"


class HostileServer:
    """Serves ``routes`` (path without query -> route) on ``127.0.0.1``; 404 for other paths.
    A context manager; stops by itself after ``lifetime_s``."""

    def __init__(self, routes: dict[str, Route], *, lifetime_s: float = 30.0) -> None:
        self.routes = routes
        self.requests: list[tuple[str, str]] = []
        self._stopping = threading.Event()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.1)
        self._deadline = time.monotonic() + lifetime_s
        self._connections: list[socket.socket] = []
        self._thread = threading.Thread(target=self._serve, daemon=True)

    @property
    def url(self) -> str:
        """``http://127.0.0.1:<port>``."""
        return f"http://127.0.0.1:{self._listener.getsockname()[1]}"

    def __enter__(self) -> HostileServer:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def stop(self) -> None:
        """Stop serving and close every connection."""
        self._stopping.set()
        self._thread.join(timeout=5)

    def _serve(self) -> None:
        while not self._stopping.is_set() and time.monotonic() < self._deadline:
            try:
                sock, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                break
            self._connections.append(sock)
            threading.Thread(target=self._handle, args=(sock,), daemon=True).start()
        self._stopping.set()
        self._listener.close()
        for sock in self._connections:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()

    def _handle(self, sock: socket.socket) -> None:
        connection = Connection(sock, self._stopping)
        try:
            while connection.read_request():
                self.requests.append((connection.method, connection.path))
                route = self.routes.get(connection.path.split("?", 1)[0])
                if route is None:
                    connection.respond(
                        b"not found", status="404 Not Found", content_type="text/plain"
                    )
                else:
                    route(connection)
                if connection.headers.get("connection", "").lower() == "close":
                    break
        except (OSError, ValueError):
            pass
