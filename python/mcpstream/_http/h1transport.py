"""``Http1Transport``: an ``httpx.BaseTransport`` for HTTP/1.1 over keep-alive connections.

The framing is the codec's (``Http1Response`` and ``encode_request_head``, Rust or pure Python,
no I/O); the reads and writes are Python's ``socket`` and ``ssl``, so TLS is configured as httpx
configures it (``verify``, ``cert``, an ``ssl.SSLContext`` of the host's). A host puts it under
its own client::

    client = httpx.Client(transport=Http1Transport())

It speaks HTTP/1.1 only, to ``http`` and ``https`` URLs, without proxies: httpx's own transport
stays the path for anything else. Opt-in: mcpstream's transports do not use it yet.

The pool's rules:

* a connection goes back to the pool only when its response was read to its end, was HTTP/1.1
  without ``Connection: close``, and nothing followed it; closing a response early closes its
  connection;
* an idle connection is dropped after ``keepalive_expiry`` seconds, and before reuse it is
  checked for a close (or any byte) from the server while it was idle;
* a request is sent again (once, on a new connection) only when a reused connection failed
  before a single byte of it was written: a request that may have reached the server is
  never repeated;
* every wait obeys the request's ``timeout`` extension (``connect``, ``read``, ``write``;
  ``pool`` does not apply: a request never waits for a connection), and the ``io_deadline``
  of mcpstream's operation under way on the thread (as mcpstream's own clients do).

Failures are httpx's exceptions, as httpx's own transport raises them: ``ConnectError``,
``ConnectTimeout``, ``ReadError``, ``ReadTimeout``, ``WriteError``, ``WriteTimeout``,
``RemoteProtocolError`` (a response this client does not read, or a server that closed without
one), ``LocalProtocolError`` (a request head that cannot be written), ``UnsupportedProtocol``.
"""

from __future__ import annotations

import contextlib
import select
import socket
import ssl
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx

from .. import codec
from ..codec import load_backend
from ..errors import CodecError

# the io_deadline of mcpstream's drivers (a ContextVar of that module): one reader of it
from .httpx_clients import _bounded

__all__ = ["Http1Transport"]

_framing = load_backend(codec.BACKEND)
Http1Response = _framing.Http1Response
encode_request_head = _framing.encode_request_head

_READ_SIZE = 64 * 1024
_DEFAULT_PORTS = {b"http": 80, b"https": 443}

_Key = tuple[bytes, bytes, int]


class _Connection:
    """One socket (plain or TLS) to one origin, and when it was last idle."""

    __slots__ = ("idle_since", "key", "sock")

    def __init__(self, key: _Key, sock: socket.socket) -> None:
        self.key = key
        self.sock = sock
        self.idle_since = 0.0

    def is_stale(self) -> bool:
        """Whether the server closed the idle connection, or sent something unasked (either
        way it cannot carry a request)."""
        if isinstance(self.sock, ssl.SSLSocket) and self.sock.pending():
            return True
        try:
            readable, _, _ = select.select([self.sock], [], [], 0)
        except (OSError, ValueError):
            return True
        return bool(readable)

    def close(self) -> None:
        """Close the socket, ignoring errors (the peer may be gone). The shutdown first wakes
        a thread blocked reading it (a host closing a stream another thread iterates)."""
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        with contextlib.suppress(OSError):
            self.sock.close()


class _DeadlinePassed(Exception):
    """The ``io_deadline`` of the operation under way passed (turned into httpx's timeout)."""


def _wait(request: httpx.Request, kind: str, expired: type[httpx.TimeoutException]) -> float | None:
    """How long the next ``kind`` wait (connect, read, write) of ``request`` may take: its
    ``timeout`` extension, cut to what is left of the ``io_deadline`` of mcpstream's operation
    under way on this thread (so that a server trickling its head a byte at a time cannot
    stretch a call past its deadline); ``expired`` once nothing is left."""
    timeouts = request.extensions.get("timeout") or {}
    try:
        return _bounded(timeouts.get(kind), _DeadlinePassed)
    except _DeadlinePassed as exc:
        raise expired(str(exc), request=request) from None


class Http1Transport(httpx.BaseTransport):
    """HTTP/1.1 over a keep-alive pool of Python sockets, with the framing of mcpstream's codec.

    ``verify`` and ``cert`` mean what they mean to ``httpx.Client`` (an ``ssl.SSLContext``
    given as ``verify`` is used as it is, and must allow HTTP/1.1 if it offers ALPN).
    ``max_keepalive_connections``: the idle connections kept, in all; ``keepalive_expiry``: the
    seconds an idle connection is kept. ``max_head_bytes`` and ``max_headers`` bound each
    response head (and the trailers of a chunked body). Safe to share between threads.
    """

    def __init__(
        self,
        *,
        verify: ssl.SSLContext | str | bool = True,
        cert: Any = None,
        trust_env: bool = True,
        max_keepalive_connections: int = 20,
        keepalive_expiry: float = 5.0,
        max_head_bytes: int = 64 * 1024,
        max_headers: int = 100,
    ) -> None:
        if isinstance(verify, ssl.SSLContext):
            self._ssl_context = verify
        else:
            self._ssl_context = httpx.create_ssl_context(
                verify=verify, cert=cert, trust_env=trust_env
            )
            self._ssl_context.set_alpn_protocols(["http/1.1"])
        self._max_idle = max_keepalive_connections
        self._expiry = keepalive_expiry
        self._limits = {"max_head_bytes": max_head_bytes, "max_headers": max_headers}
        self._idle: list[_Connection] = []
        self._lock = threading.Lock()
        self._closed = False

    # -- the pool --------------------------------------------------------------------------

    def _take_idle(self, key: _Key) -> _Connection | None:
        now = time.monotonic()
        with self._lock:
            expired = [c for c in self._idle if now - c.idle_since > self._expiry]
            self._idle = [c for c in self._idle if now - c.idle_since <= self._expiry]
            found = None
            for index in range(len(self._idle) - 1, -1, -1):
                if self._idle[index].key == key:
                    found = self._idle.pop(index)
                    break
        for connection in expired:
            connection.close()
        if found is not None and found.is_stale():
            found.close()
            return self._take_idle(key)
        return found

    def _release(self, connection: _Connection) -> None:
        """Put a connection whose response was read to its end back in the pool."""
        connection.idle_since = time.monotonic()
        with self._lock:
            if not self._closed:
                self._idle.append(connection)
                dropped = self._idle[: -self._max_idle] if self._max_idle else self._idle[:]
                self._idle = self._idle[len(dropped) :]
            else:
                dropped = [connection]
        for old in dropped:
            old.close()

    def _connect(self, key: _Key, request: httpx.Request) -> _Connection:
        scheme, host, port = key
        timeout = _wait(request, "connect", httpx.ConnectTimeout)
        hostname = host.decode("ascii")
        try:
            sock = socket.create_connection((hostname, port), timeout=timeout)
        except TimeoutError as exc:
            raise httpx.ConnectTimeout(str(exc) or "timed out", request=request) from exc
        except OSError as exc:
            raise httpx.ConnectError(str(exc), request=request) from exc
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if scheme == b"https":
                sock = self._ssl_context.wrap_socket(sock, server_hostname=hostname)
                if sock.selected_alpn_protocol() not in (None, "http/1.1"):
                    raise httpx.ConnectError(
                        "the server chose a protocol other than HTTP/1.1", request=request
                    )
        except TimeoutError as exc:
            sock.close()
            raise httpx.ConnectTimeout(str(exc) or "timed out", request=request) from exc
        except OSError as exc:  # ssl.SSLError included
            sock.close()
            raise httpx.ConnectError(str(exc), request=request) from exc
        except BaseException:
            sock.close()
            raise
        return _Connection(key, sock)

    # -- one exchange ----------------------------------------------------------------------

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        """Send ``request`` on a pooled or new connection; return the response once its head
        has arrived (the body streams as it is read)."""
        if self._closed:
            raise RuntimeError("the transport is closed")
        url = request.url
        scheme = url.raw_scheme
        if scheme not in _DEFAULT_PORTS:
            raise httpx.UnsupportedProtocol(
                f"Request URL has an unsupported protocol '{url.scheme}://'.", request=request
            )
        key: _Key = (scheme, url.raw_host, url.port or _DEFAULT_PORTS[scheme])
        head = self._request_head(request)
        body = request.stream
        chunked = any(
            name.lower() == b"transfer-encoding" and value.strip().lower() == b"chunked"
            for name, value in request.headers.raw
        )
        while True:
            connection = self._take_idle(key)
            reused = connection is not None
            if connection is None:
                connection = self._connect(key, request)
            sent = self._send(connection, request, head, body, chunked, reused)
            if sent:
                break
            # a reused connection refused the very first byte: the server had closed it, and
            # nothing of the request reached it, so a new connection may carry it
        return self._receive(connection, request)

    def _request_head(self, request: httpx.Request) -> bytes:
        try:
            return bytes(
                encode_request_head(
                    request.method.encode("ascii"), request.url.raw_path, request.headers.raw
                )
            )
        except (ValueError, UnicodeEncodeError) as exc:
            raise httpx.LocalProtocolError(str(exc), request=request) from exc

    def _send(
        self,
        connection: _Connection,
        request: httpx.Request,
        head: bytes,
        body: Any,
        chunked: bool,
        reused: bool,
    ) -> bool:
        """Write the request; ``False`` when a reused connection failed before its first byte
        was written (the caller may then use another connection)."""
        sock = connection.sock
        written = 0
        try:
            sock.settimeout(_wait(request, "write", httpx.WriteTimeout))
            if isinstance(body, httpx.ByteStream):
                # the whole body is known: one write with the head when small
                content = b"".join(body)
                if chunked and content:
                    content = b"%x\r\n%b\r\n0\r\n\r\n" % (len(content), content)
                elif chunked:
                    content = b"0\r\n\r\n"
                written += self._write(sock, head + content if len(content) < 65536 else head)
                if len(content) >= 65536:
                    written += self._write(sock, content)
                return True
            written += self._write(sock, head)
            for chunk in body:
                if not chunk:
                    continue
                framed = b"%x\r\n%b\r\n" % (len(chunk), chunk) if chunked else chunk
                written += self._write(sock, framed)
            if chunked:
                written += self._write(sock, b"0\r\n\r\n")
            return True
        except TimeoutError as exc:
            connection.close()
            raise httpx.WriteTimeout(str(exc) or "timed out", request=request) from exc
        except OSError as exc:
            connection.close()
            if reused and written == 0 and isinstance(exc, _WriteFailed) and exc.sent == 0:
                return False
            raise httpx.WriteError(str(exc), request=request) from exc
        except BaseException:
            connection.close()
            raise

    @staticmethod
    def _write(sock: socket.socket, data: bytes) -> int:
        """Write all of ``data``; an ``OSError`` says how much was written (``_WriteFailed``)."""
        view = memoryview(data)
        sent = 0
        while sent < len(view):
            try:
                sent += sock.send(view[sent:])
            except TimeoutError:
                raise
            except OSError as exc:
                raise _WriteFailed(exc, sent) from exc
        return sent

    def _receive(self, connection: _Connection, request: httpx.Request) -> httpx.Response:
        method = request.method
        framing = Http1Response(head_request=method == "HEAD", **self._limits)
        stream = _ResponseStream(self, connection, framing, request)
        stream.read_head()
        extensions = {
            "http_version": framing.http_version,
            "reason_phrase": framing.reason,
        }
        return httpx.Response(
            framing.status,
            headers=framing.headers,
            stream=stream,
            extensions=extensions,
            request=request,
        )

    def close(self) -> None:
        """Close every idle connection; responses still being read close theirs when done."""
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for connection in idle:
            connection.close()


class _WriteFailed(OSError):
    """A write that failed after ``sent`` bytes of its data."""

    def __init__(self, cause: OSError, sent: int) -> None:
        super().__init__(cause.errno, cause.strerror or str(cause))
        self.sent = sent


class _ResponseStream(httpx.SyncByteStream):
    """The body of one response, read from its connection as the host iterates it."""

    def __init__(
        self,
        transport: Http1Transport,
        connection: _Connection,
        framing: Any,
        request: httpx.Request,
    ) -> None:
        self._transport = transport
        self._connection: _Connection | None = connection
        self._framing = framing
        self._request = request
        self._pending: list[bytes] = []
        self._received = False

    def _read(self) -> list[bytes]:
        """One read from the socket, fed to the framing: the body data it completes."""
        connection = self._connection
        assert connection is not None
        request = self._request
        try:
            connection.sock.settimeout(_wait(request, "read", httpx.ReadTimeout))
            data = connection.sock.recv(_READ_SIZE)
        except TimeoutError as exc:
            self._drop()
            raise httpx.ReadTimeout(str(exc) or "timed out", request=request) from exc
        except OSError as exc:
            self._drop()
            if not self._received:
                raise httpx.RemoteProtocolError(
                    "Server disconnected without sending a response.", request=request
                ) from exc
            raise httpx.ReadError(str(exc), request=request) from exc
        try:
            if data:
                self._received = True
                return list(self._framing.feed(data))
            if not self._received:
                self._drop()
                raise httpx.RemoteProtocolError(
                    "Server disconnected without sending a response.", request=request
                )
            self._framing.feed_eof()
            return []
        except CodecError as exc:
            self._drop()
            raise httpx.RemoteProtocolError(str(exc), request=request) from exc

    def read_head(self) -> None:
        """Read until the final head has arrived (body data read with it is kept)."""
        try:
            while self._framing.status is None:
                self._pending.extend(self._read())
        except BaseException:
            self._drop()
            raise
        self._settle()

    def __iter__(self) -> Iterator[bytes]:
        try:
            if self._pending:
                pending, self._pending = self._pending, []
                yield from pending
            while self._connection is not None and not self._framing.complete:
                pieces = self._read()
                self._settle()
                yield from pieces
        except BaseException:
            self._drop()
            raise

    def _settle(self) -> None:
        """Once the response is complete: its connection back to the pool, or closed."""
        connection = self._connection
        if connection is None or not self._framing.complete:
            return
        self._connection = None
        if self._framing.keep_alive:
            self._transport._release(connection)
        else:
            connection.close()

    def _drop(self) -> None:
        connection, self._connection = self._connection, None
        if connection is not None:
            connection.close()

    def close(self) -> None:
        """Closing before the end closes the connection: a body left unread cannot be
        skipped safely."""
        self._settle()
        self._drop()
