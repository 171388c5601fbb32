"""``Http1Transport``: an ``httpx.BaseTransport`` (or httpx2's) for HTTP/1.1 over a keep-alive
pool of Python sockets, with the framing of mcpstream's codec (see the package).

Every wait obeys the request's ``timeout`` extension (``connect``, ``read``, ``write``, and
``pool`` for a free connection when ``max_connections`` are in use) and the ``io_deadline`` of
mcpstream's operation under way on the thread (as mcpstream's own clients do).
"""

from __future__ import annotations

import contextlib
import math
import mmap
import select
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx

from ...errors import CodecError
from .base import Http1Base, fill_room, renewed, stream_type, whole_capacity
from .pool import (
    SMALL_BODY,
    BodyBuffer,
    Ended,
    Key,
    Prepared,
    may_resend,
    new_framing,
    prepare,
)

__all__ = ["Http1Transport", "Sent", "SyncHttp1"]

_POLL: Callable[[], Any] | None = getattr(select, "poll", None)
"""``select.poll`` where the platform has it (not on Windows: there every socket waits by its
timeout)."""
_DONTWAIT = getattr(socket, "MSG_DONTWAIT", 0)
_LONGEST_POLL_S = (2**31 - 1) / 1000
"""The longest wait ``poll`` takes (its milliseconds are a C ``int``): longer ones (24 days and
more: mcpstream's "no limit") wait without a bound."""

READ_BUFFER = 256 * 1024
"""The most one read takes: each connection reads into a buffer of this size, kept for its life,
and copies out what arrived. The buffer is a private anonymous mapping (``read_buffer``), not
memory of the C heap."""
# perf: a ``recv`` of this size would allocate it for every read, a mapping of its own for the
# allocator, even for a small answer.

_PRIVATE_MAPPING: dict[str, int] = (
    {"flags": mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS} if hasattr(mmap, "MAP_PRIVATE") else {}
)
"""Private (a forked child gets a copy of its own, not the parent's pages); Windows has no
flags: an anonymous mapping is the process's own there."""


def read_buffer() -> memoryview:
    """A connection's read buffer: ``READ_BUFFER`` bytes mapped on their own, unmapped when
    the connection is dropped.

    Not a ``bytearray``: once glibc's mmap threshold has risen (it follows the largest block
    freed, and a large answer frees blocks of several hundred KiB), a ``bytearray`` of this
    size comes from the C heap, in the arena of whichever thread first reads the connection
    (often a short-lived reader thread), and lives as long as the connection. A server that
    restarts every few seconds then leaves one such hole after another among the
    longer-lived objects allocated meanwhile, and the allocator keeps the freed memory: RSS
    of the sync transport grew by hundreds of KiB per 1,000 calls in the soak, with nothing
    held (``docs/benchmarks.md``, "Soak"). A mapping of its own goes back to the system when
    the connection goes, and only the pages a read wrote count (a ``bytearray`` is zeroed,
    all of it, when made)."""
    return memoryview(mmap.mmap(-1, READ_BUFFER, **_PRIVATE_MAPPING))


class Connection:
    """One socket (plain or TLS) to one origin. It is also the ``network_stream`` extension of
    its responses (``get_extra_info``, as httpcore's streams), whose every read obeys the
    ``io_deadline`` (``deadline_bound``)."""

    __slots__ = (
        "_buffer",
        "_readable",
        "_timeout",
        "_writable",
        "key",
        "sock",
        "tls_kept",
        "whole",
    )

    deadline_bound = True

    def __init__(self, key: Key, sock: socket.socket) -> None:
        self.key = key
        self.sock = sock
        self.tls_kept = False
        """Its TLS session was kept for resumption (``Http1Base._keep_tls_session``), or it
        has none."""
        self._timeout: float | None = -1.0  # what settimeout was last given (-1: never)
        self._buffer: memoryview | None = None
        self.whole: Any = None
        """The ``BodyBuffer`` its whole bodies are read into (``renewed``)."""
        self._readable: Any = None
        self._writable: Any = None
        if _POLL is not None and _DONTWAIT and not isinstance(sock, ssl.SSLSocket):
            # A plain socket stays blocking and its waits are polls of its own. TLS sockets
            # keep their timeout: their reads wait on the TLS layer's records.
            # perf: a socket with a timeout is polled by Python before every read and write,
            # and every ``settimeout`` is a system call; a small exchange pays both many times.
            sock.settimeout(None)
            self._timeout = None
            self._readable = _POLL()
            self._readable.register(sock, select.POLLIN)

    def _wait_for(self, poller: Any, timeout: float | None) -> None:
        """Wait until ``poller`` says the socket is ready (or closed, or failed: the next call
        on it says which), for ``timeout`` seconds at most (None: no bound): ``TimeoutError``
        after it, as a socket's own timeout raises."""
        if timeout is None or timeout > _LONGEST_POLL_S:
            ready = poller.poll(None)
        else:
            ready = poller.poll(math.ceil(max(timeout, 0.0) * 1000))
        if not ready:
            raise TimeoutError("timed out")

    def recv(self, timeout: float | None) -> bytes:
        """One read of up to ``READ_BUFFER`` bytes (``b""`` at the end of the stream), waiting
        ``timeout`` seconds at most (``TimeoutError``)."""
        buffer = self._buffer
        if buffer is None:
            buffer = self._buffer = read_buffer()
        self._until_readable(timeout)
        count = self.sock.recv_into(buffer)
        return bytes(buffer[:count])

    def recv_into(self, buffer: Any, timeout: float | None) -> int:
        """One read straight into the window of ``buffer`` (a ``BodyBuffer``): the count of
        bytes it took (0 at the end of the stream); ``timeout`` as ``recv``."""
        self._until_readable(timeout)
        with buffer.view() as view:
            count: int = self.sock.recv_into(view)
        return count

    def _until_readable(self, timeout: float | None) -> None:
        """Bound the next read by ``timeout``: a plain socket polled until it is readable, a
        TLS one given the timeout (its read then waits for it)."""
        if self._readable is not None:
            self._wait_for(self._readable, timeout)
        else:
            self.settimeout(timeout)

    def write(self, data: bytes | memoryview, timeout: float | None) -> int:
        """Write all of ``data``, each wait for room ``timeout`` seconds at most
        (``TimeoutError``); an ``OSError`` says how much was written (``_WriteFailed``)."""
        polled = self._readable is not None
        if not polled:  # the socket waits for room itself, within its timeout
            self.settimeout(timeout)
        sock, flags, sent, view = self.sock, _DONTWAIT if polled else 0, 0, None
        while True:
            try:
                # (most often all of it at once: no view made)
                sent += sock.send(data if view is None else view[sent:], flags)
            except BlockingIOError as exc:  # a polled socket's send buffer is full
                if not polled:
                    raise _WriteFailed(exc, sent) from exc
                self._wait_for(self._room_poller(), timeout)
                continue
            except TimeoutError:
                raise
            except OSError as exc:
                raise _WriteFailed(exc, sent) from exc
            if sent >= len(data):
                return sent
            view = memoryview(data)

    def _room_poller(self) -> Any:
        """The poller of a polled socket's room to write (made when first needed)."""
        if self._writable is None:
            assert _POLL is not None  # (``_readable`` is one)
            self._writable = _POLL()
            self._writable.register(self.sock, select.POLLOUT)
        return self._writable

    def settimeout(self, timeout: float | None) -> None:
        """``sock.settimeout``, skipped when unchanged (one system call less per read)."""
        if timeout != self._timeout:
            self.sock.settimeout(timeout)
            self._timeout = timeout

    def is_stale(self) -> bool:
        """Whether the server closed the idle connection, or sent something unasked (either
        way it cannot carry a request)."""
        if self._readable is not None:
            return bool(self._readable.poll(0))
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

    def get_extra_info(self, info: str) -> Any:
        """httpcore's ``NetworkStream.get_extra_info``: ``socket``, ``ssl_object``,
        ``client_addr``, ``server_addr``, ``is_readable``."""
        sock = self.sock
        if info == "socket":
            return sock
        if info == "ssl_object":
            return sock if isinstance(sock, ssl.SSLSocket) else None
        with contextlib.suppress(OSError):
            if info == "client_addr":
                return sock.getsockname()
            if info == "server_addr":
                return sock.getpeername()
        if info == "is_readable":
            return self.is_stale()
        return None


class _WriteFailed(OSError):
    """A write that failed after ``sent`` bytes of its data."""

    def __init__(self, cause: OSError, sent: int) -> None:
        super().__init__(cause.errno, cause.strerror or str(cause))
        self.sent = sent


class SyncHttp1(Http1Base[Connection]):
    """The sync transport's logic, on the HTTP stack of ``_stack`` (its requests, responses and
    exceptions); ``Http1Transport`` is it on httpx, ``transport_types`` makes it on httpx2. The
    options are ``Http1Base``'s. Safe to share between threads.
    """

    def _init_driver(self) -> None:
        self._mutex = threading.RLock()
        """The pool's lock (taken as itself: ``Condition``'s own ``with`` is Python code)."""
        self._freed = threading.Condition(self._mutex)
        """Notified when a connection's place is free, for the requests waiting for one."""
        self._waiting = 0
        """Requests waiting on ``_freed`` (none: no notification to make)."""
        self._body_type = stream_type(_Body, self._stack, "SyncByteStream")
        self._polls = _POLL is not None and bool(_DONTWAIT)
        """Plain sockets wait by ``poll`` and send without waiting (``Connection``)."""

    # -- the pool --------------------------------------------------------------------------

    def _acquire(self, key: Key, request: Any, reuse: bool = True) -> tuple[Connection, bool]:
        """A connection to ``key``: an idle one checked for staleness (unless not ``reuse``),
        else a new one (within ``max_connections``, waiting for room within the ``pool``
        timeout); and whether it was reused."""
        deadline: float | None = None
        while True:
            with self._mutex:
                to_close, found, new = self._pool.claim(key, time.monotonic(), reuse)
                if found is None and not new:
                    wait = self._wait(request, "pool")
                    if wait is not None:
                        now = time.monotonic()
                        deadline = now + wait if deadline is None else deadline
                        wait = deadline - now
                        if wait <= 0:
                            raise self._error(
                                self._stack.raises.PoolTimeout,
                                "no connection free within the timeout",
                                request,
                            )
                    self._waiting += 1
                    try:
                        self._freed.wait(wait)
                    finally:
                        self._waiting -= 1
            for connection in to_close:
                connection.close()
            if found is not None:
                if not found.is_stale():
                    return found, True
                self._lost(found)
            elif new:
                try:
                    return self._connect(key, request), False
                except BaseException:
                    self._discard()
                    raise

    def _discard(self) -> None:
        with self._mutex:
            self._pool.discard()
            if self._waiting:
                self._freed.notify()

    def _release(self, connection: Connection, expiry: float) -> None:
        """Put a connection whose response was read to its end back in the pool, idle for
        ``expiry`` seconds at most."""
        if not connection.tls_kept:
            connection.tls_kept = self._keep_tls_session(connection.key, connection.sock)
        with self._mutex:
            dropped = self._pool.put(connection, connection.key, time.monotonic(), expiry)
            if self._waiting:
                self._freed.notify()
        for old in dropped:
            old.close()

    def _connect(self, key: Key, request: Any) -> Connection:
        scheme, host, port = key
        timeout = self._wait(request, "connect")
        hostname = host.decode("ascii")
        try:
            sock = socket.create_connection((hostname, port), timeout=timeout)
        except OSError as exc:  # TimeoutError included
            raise self._connect_error(exc, request) from exc
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if scheme == b"https":
                sock = self._tls_context().wrap_socket(
                    sock, server_hostname=hostname, session=self._tls_session(key)
                )
                refused = self._refused_protocol(sock.selected_alpn_protocol(), request)
                if refused is not None:
                    raise refused
        except OSError as exc:  # ssl.SSLError and TimeoutError included
            sock.close()
            raise self._connect_error(exc, request) from exc
        except BaseException:
            sock.close()
            raise
        connection = Connection(key, sock)
        trace = request.extensions.get("trace")
        if trace is not None:
            # what httpcore announces (mcpstream's GET stream keeps the stream to abort it)
            trace("connection.connect_tcp.complete", {"return_value": connection})
        return connection

    # -- one exchange ----------------------------------------------------------------------

    def handle_request(self, request: Any) -> Any:
        """Send ``request`` on a pooled or new connection; return the response once its head
        has arrived (the body streams as it is read)."""
        return self._response(*self.exchange(request), request)

    def exchange(
        self, request: Any, prepared: Prepared | None = None
    ) -> tuple[Any, Any, Connection]:
        """``handle_request`` short of the stack's response: the framing holding the head, the
        body (the stack's ``SyncByteStream``) and the connection (``network_stream``).
        ``prepared``: the request already made ready to write (``wire.Lane``)."""
        return self.receive(self.send(request, prepared))

    def send(self, request: Any, prepared: Prepared | None = None) -> Sent:
        """The first half of ``exchange``: ``request`` written on a pooled or new connection.
        The caller may do work of its own before the second half (``receive``), while the
        server works on the request; ``receive`` or ``Sent.abandon`` must follow."""
        if prepared is None:
            prepared = prepare(self._stack, request, self._heads)
        elif self._polls and (sent := self._send_on_idle(request, prepared)) is not None:
            return sent
        return self._send_on(request, prepared, reuse=True)

    def _send_on(self, request: Any, prepared: Prepared, reuse: bool) -> Sent:
        """``send`` the usual way: on a connection ``_acquire`` gives (a new one when not
        ``reuse``)."""
        while True:
            connection, reused = self._acquire(prepared.key, request, reuse)
            try:
                outcome = self._send(connection, request, prepared, reused)
            except BaseException:
                self._lost(connection)
                raise
            if outcome is not None:
                break
            # a reused connection refused the very first byte: the server had closed it, and
            # nothing of the request reached it, so a new connection may carry it
            self._lost(connection)
        return Sent(self, connection, request, prepared, outcome, reused)

    def _send_on_idle(self, request: Any, prepared: Prepared) -> Sent | None:
        """The common case of ``send``, straight: a small request with its whole body, written
        by one send on the newest idle connection to its origin, a plain socket (polled: its
        send never waits). None when the case is another and nothing was written: ``send``
        then goes the usual way (a connection found closed by the server is closed first)."""
        body, key = prepared.body, prepared.key
        if body is None or len(body) >= SMALL_BODY or key[0] != b"http":
            return None
        with self._mutex:
            connection = self._pool.take_fresh(key, time.monotonic())
        if connection is None:
            return None
        if connection.is_stale():
            self._lost(connection)
            return None
        data = prepared.head + body
        try:
            written = connection.sock.send(data, _DONTWAIT)
        except BlockingIOError:  # (no room: the rest below waits for it)
            written = 0
        except OSError:  # closed by the server while idle: nothing of the request went out
            self._lost(connection)
            return None
        outcome: bool | Exception = True
        if written < len(data):  # the rest the usual way (waiting for room)
            try:
                rest = self._send(connection, request, prepared, True, written)
            except BaseException:
                self._lost(connection)
                raise
            if rest is None:  # nothing was written, the connection closed: the usual way
                self._lost(connection)
                return None
            outcome = rest
        return Sent(self, connection, request, prepared, outcome, True)

    def receive(self, sent: Sent) -> tuple[Any, Any, Connection]:
        """The second half of ``exchange``: the answer to the ``Sent`` request read up to its
        final head. A request whose reused connection closed before a byte of the answer is
        sent again, once, on a new connection (``pool.may_resend``), and that answer read."""
        connection, request, prepared = sent.connection, sent.request, sent.prepared
        framing = new_framing(request, self._limits)
        written = not isinstance(sent.outcome, Exception)
        stream = self._body_type(self, connection, framing, request, prepared, written)
        try:
            stream.read_head()
        except self._stack.raises.TransportError:
            again = self._again(sent, stream.ended)
            if again is not None:
                return self.receive(again)
            if written:
                raise
            # The write failed part way: the server may have answered before it stopped
            # reading (a 413, a 401): that answer is the outcome, else the write error.
            assert isinstance(sent.outcome, Exception)
            raise sent.outcome from sent.outcome.__cause__
        return framing, stream, connection

    def _again(self, sent: Sent, ended: Ended | None) -> Sent | None:
        """The request of ``sent`` sent again on a new connection when its connection
        ``ended`` so that ``may_resend`` allows it; else None (the connection is closed
        already either way)."""
        if not may_resend(sent.reused, sent.prepared, ended):
            return None
        return self._send_on(sent.request, sent.prepared, reuse=False)

    def _send(
        self,
        connection: Connection,
        request: Any,
        prepared: Prepared,
        reused: bool,
        written: int = 0,
    ) -> bool | Exception | None:
        """Write the request (a small one's first ``written`` bytes went out already): True
        once written; None when a reused connection failed before its first byte (another
        connection may carry it); the stack's ``WriteError`` when a write failed after bytes
        went out (the caller looks for an answer first)."""
        try:
            timeout = self._wait(request, "write")
            head, body = prepared.head, prepared.body
            if body is not None:
                if len(body) < SMALL_BODY:
                    data = head + body
                    written += connection.write(
                        memoryview(data)[written:] if written else data, timeout
                    )
                else:
                    written += connection.write(head, timeout)
                    written += connection.write(body, timeout)
                return True
            written += connection.write(head, timeout)
            for chunk in request.stream:
                if not chunk:
                    continue
                timeout = self._wait(request, "write")
                written += connection.write(prepared.frame(chunk), timeout)
            if prepared.chunked:
                written += connection.write(prepared.tail, timeout)
            return True
        except TimeoutError as exc:
            raise self._timed_out("write", exc, request) from exc
        except _WriteFailed as exc:
            if reused and written == 0 and exc.sent == 0:
                return None
            error = self._error(self._stack.raises.WriteError, exc, request)
            error.__cause__ = exc
            return error
        except OSError as exc:
            raise self._error(self._stack.raises.WriteError, exc, request) from exc

    def receive_whole(self, sent: Sent) -> tuple[Any, Any, Connection, bytes | None]:
        """``receive``, with the common case of a small call taken straight: the framing
        holding the head, the body, the connection, and the whole body when the whole answer
        came in one read (then the body is None: the response is complete, its connection
        back in the pool or closed); else None (the body reads on, as ``receive`` gives it).
        Over TLS too: one read takes what one record holds, a small answer's whole (a server
        writes it at once), and an answer in more records reads on as any other."""
        connection = sent.connection
        if sent.outcome is not True:
            return (*self.receive(sent), None)
        request, prepared = sent.request, sent.prepared
        framing = new_framing(request, self._limits)
        data = b""
        try:
            data = connection.recv(self._wait(request, "read"))
            pieces: list[bytes] = framing.feed(data) if data else []
        except BaseException as exc:
            self._lost(connection)
            if isinstance(exc, OSError | CodecError):
                if isinstance(exc, OSError) and (again := self._again(sent, (False, exc))):
                    return self.receive_whole(again)
                raise self._read_error(exc, bool(data), framing, data[:16], request) from exc
            raise
        if not data:
            self._lost(connection)
            if again := self._again(sent, (False, None)):
                return self.receive_whole(again)
            raise self._read_error(None, False, framing, b"", request)
        if framing.complete:
            self._finish(connection, True, framing, prepared)
            return framing, None, connection, b"".join(pieces)
        stream = self._body_type(self, connection, framing, request, prepared, True)
        stream.took(data, pieces)
        stream.read_head()
        return framing, stream, connection, None

    def read_body(self, framing: Any, whole: bytes, request: Any) -> Any:
        """The body (the stack's ``SyncByteStream``) of a response ``receive_whole`` took
        whole: ``whole``, its connection already back in the pool or closed."""
        stream = self._body_type(self, None, framing, request, None, True)
        stream.took(whole, [whole] if whole else [])
        return stream

    def expire_idle(self, now: float) -> float | None:
        """Close the idle connections expired at ``now`` (``time.monotonic()``); when the next
        one expires (None: none idle). For a pool that outlives its sessions (the process's,
        ``shared_pools``), whose reaper closes idle connections by time rather than at the
        next request."""
        with self._mutex:
            expired = self._pool.expire(now)
            soonest = self._pool.next_expiry()
            if expired and self._waiting:
                self._freed.notify()
        for connection in expired:
            connection.close()
        return soonest

    def close(self) -> None:
        """Close every idle connection; responses still being read close theirs when done."""
        with self._mutex:
            idle = self._pool.close()
            self._freed.notify_all()
        for connection in idle:
            connection.close()


class Sent:
    """A request ``SyncHttp1.send`` wrote on ``connection``, whose answer is yet to be read
    (``outcome``: True, or the stack's ``WriteError`` when the write failed part way;
    ``reused``: the connection was taken idle from the pool)."""

    __slots__ = ("connection", "outcome", "prepared", "request", "reused", "transport")

    def __init__(
        self,
        transport: SyncHttp1,
        connection: Connection,
        request: Any,
        prepared: Prepared,
        outcome: bool | Exception,
        reused: bool,
    ) -> None:
        self.transport, self.connection, self.request = transport, connection, request
        self.prepared, self.outcome, self.reused = prepared, outcome, reused

    def abandon(self) -> None:
        """Give up the answer (an error before ``receive``): the connection is closed."""
        self.transport._lost(self.connection)


class _Body:
    """The body of one response, read from its connection as the host iterates it (the base of
    the stack's ``SyncByteStream`` made by ``base.stream_type``)."""

    def __init__(
        self,
        transport: SyncHttp1,
        connection: Connection | None,
        framing: Any,
        request: Any,
        prepared: Prepared | None,
        keep: bool,
    ) -> None:
        self._transport = transport
        self._connection: Connection | None = connection
        self._framing = framing
        self._request = request
        self._prepared = prepared
        self._keep = keep
        self._pending: list[bytes] = []
        self._received = False
        self._first = b""
        self.ended: Ended | None = None
        """How the connection ended, if it did (not a timeout)."""

    def _read(self, into: Any = None) -> list[bytes]:
        """One read from the socket, fed to the framing: the body data it completes. With
        ``into`` (a ``BodyBuffer`` with a window open on body data sure to come), the read goes
        straight into it instead, and the framing takes it as body data (none is returned)."""
        connection = self._connection
        assert connection is not None
        request, transport = self._request, self._transport
        try:
            timeout = transport._wait(request, "read")
            if into is not None:
                count = connection.recv_into(into, timeout)
                if count:
                    into.advance(count)
                    self._framing.skip_body(count)
                    return []
                data = b""
            else:
                data = connection.recv(timeout)
        except OSError as exc:  # (a timeout included)
            if not isinstance(exc, TimeoutError):
                self.ended = (self._received, exc)
            self._drop()
            raise self._failure(exc) from exc
        try:
            if data:
                if not self._received:
                    self._received = True
                    self._first = data[:16]
                pieces: list[bytes] = self._framing.feed(data)  # (a new list)
                return pieces
            if not self._received:
                self.ended = (False, None)
                self._drop()
                raise self._failure(None)
            self._framing.feed_eof()
            return []
        except CodecError as exc:
            self._drop()
            raise self._failure(exc) from exc

    def _failure(self, exc: BaseException | None) -> Exception:
        """The stack's exception for the response broken by ``exc`` (None: the end)."""
        return self._transport._read_error(
            exc, self._received, self._framing, self._first, self._request
        )

    def took(self, first: bytes, pieces: list[bytes]) -> None:
        """The data of a read the transport made itself, fed to the framing: ``first``, which
        gave the body ``pieces`` (kept, as a read's are)."""
        self._received, self._first = True, first[:16]
        self._pending.extend(pieces)

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

    def read_whole(self, limit: int | None) -> bytes:
        """The rest of the body as one ``bytes`` object: to its end, or until ``limit`` bytes
        or more came (None: no bound). Body data of a known length (``fill_room``) is read
        straight into the body's buffer, not framed piece by piece and joined."""
        framing, connection = self._framing, self._connection
        pending, self._pending = self._pending, []
        capacity = whole_capacity(framing, sum(map(len, pending)), limit)
        if connection is None:  # all of it was read
            buffer = BodyBuffer(capacity)
        else:
            buffer = connection.whole = renewed(connection.whole, capacity)
        for piece in pending:
            buffer.extend(piece)
        try:
            while self._connection is not None and not framing.complete:
                if limit is not None and len(buffer) >= limit:
                    break
                if room := fill_room(framing, len(buffer), limit):
                    buffer.open(room)
                    self._read(into=buffer)
                else:
                    for piece in self._read():
                        buffer.extend(piece)
                self._settle()
        except BaseException:
            self._drop()
            raise
        body: bytes = buffer.take()
        return body

    def _settle(self) -> None:
        """Once the response is complete: its connection back to the pool, or closed."""
        connection = self._connection
        if connection is None or not self._framing.complete:
            return
        self._connection = None
        prepared = self._prepared
        assert prepared is not None  # (a body without one was read whole: ``read_body``)
        self._transport._finish(connection, self._keep, self._framing, prepared)

    def _drop(self) -> None:
        connection, self._connection = self._connection, None
        if connection is not None:
            self._transport._lost(connection)

    def close(self) -> None:
        """Closing before the end closes the connection: a body left unread cannot be
        skipped safely."""
        self._settle()
        self._drop()


class Http1Transport(SyncHttp1, httpx.BaseTransport):
    """HTTP/1.1 over a keep-alive pool of Python sockets, with the framing of mcpstream's codec,
    for an ``httpx.Client`` (``transport_types`` gives httpx2's). See ``Http1Base`` for the
    options."""
