"""``AsyncHttp1Transport``: an ``httpx.AsyncBaseTransport`` (or httpx2's) for HTTP/1.1 over a
keep-alive pool of asyncio connections, with the framing of mcpstream's codec (see the package).

Each connection is an ``asyncio.Protocol`` of its own (``Connection``) that feeds what the
socket delivers straight into the response's framing: the body data is ready when the
response's reader wakes, one future per wait. A response has one timer of the event loop for
all its waits (``_Timer``): it is set for the first wait and, when it fires while data kept
arriving, set again for the current wait's end, rather than a timer made and cancelled per
read. Reading from the socket pauses while more than ``BUFFER_BYTES`` of body wait unread.

Timeouts are the request's ``timeout`` extension (``connect``, ``read``, ``write``, and
``pool`` for a free connection when ``max_connections`` are in use), each wait cut to what is
left of the ``io_deadline`` of the task's operation under way (``deadline``: the one timer of a
one-shot call); mcpstream's async driver runs its other operations under ``asyncio.timeout`` of
what is left of them, and a cancelled request or body closes its connection.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import socket
from collections.abc import AsyncIterator
from typing import Any

import httpx

from ...errors import CodecError
from ..aio_flow import BUFFER_BYTES, FlowProtocol, wake
from ..low_water import LowWater, lower_water
from .base import NEXT_TLS_SESSION, Http1Base, fill_room, renewed, stream_type, whole_capacity
from .pool import BodyBuffer, Ended, Key, Prepared, may_resend, new_framing, prepare

__all__ = ["BUFFER_BYTES", "AsyncHttp1", "AsyncHttp1Transport"]


class _Timer:
    """One timer of the loop for every wait of one response (see the module). ``wait`` returns
    False when its timeout passed first."""

    __slots__ = ("_at", "_handle", "_loop", "_span", "_waiter")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._handle: asyncio.TimerHandle | None = None
        self._at = 0.0
        """The end of the current wait."""
        self._span = 0.0
        """The current wait's timeout."""
        self._waiter: asyncio.Future[bool] | None = None

    def touch(self) -> None:
        """Data arrived without waking the current wait (``_Fill``): its timeout runs from
        now, as a wait begun now would."""
        if self._waiter is not None:
            self._at = self._loop.time() + self._span

    async def wait(self, waiter: asyncio.Future[bool], timeout: float | None) -> bool:
        if timeout is None:
            return await waiter
        loop = self._loop
        self._span = timeout
        self._at = at = loop.time() + timeout
        handle = self._handle
        if handle is None or handle.when() > at:
            if handle is not None:
                handle.cancel()
            self._handle = loop.call_at(at, self._fire)
        self._waiter = waiter
        try:
            return await waiter
        finally:
            self._waiter = None

    def _fire(self) -> None:
        self._handle = None
        waiter = self._waiter
        if waiter is None or waiter.done():
            return
        if self._loop.time() >= self._at:
            waiter.set_result(False)
        else:  # the wait under way began after this timer was set: its own end is later
            self._handle = self._loop.call_at(self._at, self._fire)

    def cancel(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None


class Connection(FlowProtocol):
    """One asyncio connection to one origin, and the response it is reading (``framing``;
    None while idle: anything the server sends or a close then makes it ``stale``). It is also
    the ``network_stream`` extension of its responses (``get_extra_info``). Its flow control is
    ``FlowProtocol``'s."""

    def __init__(self, loop: asyncio.AbstractEventLoop, key: Key) -> None:
        super().__init__(loop)
        self.key = key
        self.framing: Any = None
        self.body: list[bytes] = []
        self.buffered = 0
        self.received = False
        """Some byte of the current response arrived."""
        self.first = b""
        """The first bytes of the current response."""
        self.error: BaseException | None = None
        """The framing's error (a ``CodecError``), or the connection's."""
        self.stale = False
        self.whole: Any = None
        """The ``BodyBuffer`` its whole bodies are read into (``renewed``)."""
        self.tls_kept = False
        """Its TLS session was kept for resumption (``Http1Base._keep_tls_session``)."""

    # -- asyncio.Protocol ------------------------------------------------------------------

    def data_received(self, data: bytes) -> None:
        framing = self.framing
        if framing is None:
            self.stale = True  # unasked bytes: the connection cannot carry a request
            return
        if not self.received:
            self.received = True
            self.first = data[:16]
        if self.error is None:
            try:
                pieces = framing.feed(data)
            except CodecError as exc:
                self.error = exc
            else:
                if pieces:
                    self.body += pieces
                    self.buffered += sum(map(len, pieces))
                    self.pause_reading_at(self.buffered)
        wake(self.read_waiter)

    def _ended(self) -> None:
        framing = self.framing
        if framing is None:
            self.stale = True
            return
        if self.error is None and self.received:
            try:
                framing.feed_eof()
            except CodecError as exc:
                self.error = exc
        wake(self.read_waiter)

    def eof_received(self) -> bool:
        self.eof = True
        self._ended()
        return super().eof_received()

    def connection_lost(self, exc: Exception | None) -> None:
        if exc is not None and self.error is None and not (self.framing and self.framing.complete):
            self.error = exc
        if not self.eof:
            self._ended()
        super().connection_lost(exc)

    # -- for the transport -----------------------------------------------------------------

    def ended(self) -> Ended | None:
        """How the connection ended while the current answer was awaited, if it did (None
        while it is open)."""
        if not (self.eof or self.lost):
            return None
        return self.received, self.error

    def usable(self) -> bool:
        """Whether an idle connection may carry a request (the server neither closed it nor
        sent anything meanwhile)."""
        transport = self.transport
        return not (self.stale or self.eof or transport is None or transport.is_closing())

    def begin(self, framing: Any) -> None:
        """A new response is expected."""
        self.framing = framing
        self.body = []
        self.buffered = 0
        self.received = False
        self.first = b""
        self.error = None

    def idle(self) -> None:
        """The response was read to its end: unasked bytes from now on make the connection
        stale."""
        self.framing = None

    def take(self) -> list[bytes]:
        """The body data received and not taken yet (reading resumed if it was paused)."""
        pieces, self.body, self.buffered = self.body, [], 0
        self.resume_reading()
        return pieces

    def close(self) -> None:
        """Abort the connection (nothing is left to flush: a connection is closed only when
        its response is done with or broken); of a loop closed since, close its socket now
        (``close_now``)."""
        self.framing = None
        transport = self.transport
        if transport is None:
            return
        if self.loop.is_closed():
            close_now(transport)
            return
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile (another thread)
            transport.abort()

    def get_extra_info(self, info: str) -> Any:
        """httpcore's ``AsyncNetworkStream.get_extra_info``."""
        if info == "is_readable":
            return not self.usable()
        name = {
            "ssl_object": "ssl_object",
            "client_addr": "sockname",
            "server_addr": "peername",
            "socket": "socket",
        }.get(info)
        if name is None or self.transport is None:
            return None
        return self.transport.get_extra_info(name)


def close_now(transport: asyncio.BaseTransport) -> None:
    """Close the socket under asyncio's ``transport`` (plain or TLS) of an event loop that is
    closed, here and now. Its ``abort`` would leave the socket's close to a callback the
    closed loop never runs, and so to the garbage collector, which warns of it
    (``ResourceWarning: unclosed transport``). A transport of another event loop
    implementation (no such attributes) is left as it is."""
    raw: Any = transport
    ssl_protocol = getattr(transport, "_ssl_protocol", None)
    if ssl_protocol is not None:
        raw._closed = True  # (as its abort marks it)
        raw = getattr(ssl_protocol, "_transport", None)
    if getattr(raw, "_sock", None) is None:
        return  # closed already (or not asyncio's selector transport)
    # The loop's part of a close, run at once: the protocol is told (what it would schedule
    # on the loop fails), and the socket is closed whatever it raised.
    with contextlib.suppress(RuntimeError):
        raw._call_connection_lost(None)


class _Fill(asyncio.BufferedProtocol):
    """The protocol of a connection while body data of a known length is read straight into
    the body's buffer (``_Body.read_whole``): each read of the socket lands in the buffer's
    window, is taken by the framing as body data (``skip_body``) and keeps the read's timer
    running from now; the window full, the connection's own protocol takes the reads again and
    the reader wakes. The end of the stream and of the connection go to the connection. With a
    ``LowWater`` mark on the socket (a large window over plain TCP), the mark follows the rest of
    the window down."""

    __slots__ = ("buffer", "connection", "mark", "timer")

    def __init__(
        self, connection: Connection, buffer: Any, timer: _Timer, mark: LowWater | None
    ) -> None:
        self.connection = connection
        self.buffer = buffer
        self.timer = timer
        self.mark = mark

    def get_buffer(self, sizehint: int) -> memoryview:
        view: memoryview = self.buffer.view()
        return view

    def buffer_updated(self, nbytes: int) -> None:
        connection, buffer = self.connection, self.buffer
        buffer.advance(nbytes)
        connection.framing.skip_body(nbytes)
        if window := buffer.window:
            if self.mark is not None:
                self.mark.follow(window)
            self.timer.touch()
            return
        if connection.transport is not None:
            connection.transport.set_protocol(connection)
        wake(connection.read_waiter)

    def eof_received(self) -> bool:
        return self.connection.eof_received()

    def connection_lost(self, exc: Exception | None) -> None:
        self.connection.connection_lost(exc)

    def pause_writing(self) -> None:
        self.connection.pause_writing()

    def resume_writing(self) -> None:
        self.connection.resume_writing()


class AsyncHttp1(Http1Base[Connection]):
    """The async transport's logic, on the HTTP stack of ``_stack``; ``AsyncHttp1Transport`` is
    it on httpx, ``transport_types`` makes it on httpx2. The options are ``Http1Base``'s. One
    event loop at a time: the pool belongs to the loop of its first request (a loop that closed
    leaves connections the next loop does not reuse)."""

    _TIMEOUT_WORDS = ""

    def _init_driver(self) -> None:
        self._waiting: collections.deque[asyncio.Future[bool]] = collections.deque()
        self._reaper: asyncio.TimerHandle | None = None
        """The loop's timer that closes idle connections as they expire (``_reap``)."""
        self._body_type = stream_type(_Body, self._stack, "AsyncByteStream")

    # -- the pool --------------------------------------------------------------------------

    async def _acquire(self, key: Key, request: Any, reuse: bool = True) -> tuple[Connection, bool]:
        """A connection to ``key``: an idle one still usable (unless not ``reuse``), else a new
        one (within ``max_connections``, waiting for room within the ``pool`` timeout); and
        whether it was reused."""
        loop = asyncio.get_running_loop()
        pool = self._pool
        while True:
            to_close, found, new = pool.claim(key, loop.time(), reuse)
            for old in to_close:
                old.close()
            if found is not None:
                if found.usable() and found.loop is loop:
                    return found, True
                self._lost(found)
                continue
            if new:
                try:
                    return await self._connect(loop, key, request), False
                except BaseException:
                    self._discard()
                    raise
            waiter: asyncio.Future[bool] = loop.create_future()
            self._waiting.append(waiter)
            try:
                async with asyncio.timeout(self._wait(request, "pool")):
                    await waiter
            except TimeoutError:
                raise self._error(
                    self._stack.raises.PoolTimeout, "no connection free within the timeout", request
                ) from None
            finally:
                if waiter in self._waiting:
                    self._waiting.remove(waiter)

    def _notify(self) -> None:
        while self._waiting:
            waiter = self._waiting.popleft()
            if not waiter.done():
                waiter.set_result(True)
                return

    def _discard(self) -> None:
        self._pool.discard()
        self._notify()

    def _release(self, connection: Connection, expiry: float) -> None:
        connection.idle()
        if connection.tls and not connection.tls_kept:
            ssl_object = connection.get_extra_info("ssl_object")
            connection.tls_kept = self._keep_tls_session(connection.key, ssl_object)
        for old in self._pool.put(connection, connection.key, connection.loop.time(), expiry):
            old.close()
        self._notify()
        reaper = self._reaper
        if reaper is None:
            self._reap_later(connection.loop)
        elif connection.loop.time() + expiry < reaper.when():  # (a server's shorter timeout)
            reaper.cancel()
            self._reap_later(connection.loop)

    def _reap_later(self, loop: asyncio.AbstractEventLoop) -> None:
        """Set the timer for the first idle connection's expiry. Idle connections are closed
        when they expire, not only when a request next looks for one: a pool that outlives
        its sessions (the one a host client's sessions share) holds no socket past its
        ``keepalive_expiry``, whatever becomes of the client."""
        at = self._pool.next_expiry()
        if at is not None:
            # a moment past it: ``expire`` drops what is idle for longer than the expiry
            self._reaper = loop.call_at(at + 0.001, self._reap, loop)

    def _reap(self, loop: asyncio.AbstractEventLoop) -> None:
        self._reaper = None
        for old in self._pool.expire(loop.time()):
            old.close()
            self._notify()
        self._reap_later(loop)

    async def _connect(self, loop: asyncio.AbstractEventLoop, key: Key, request: Any) -> Connection:
        scheme, host, port = key
        hostname = host.decode("ascii")
        tls = scheme == b"https"
        connection = Connection(loop, key)
        connection.tls = tls
        connected = False
        try:
            async with asyncio.timeout(self._wait(request, "connect")):
                transport, _ = await loop.create_connection(lambda: connection, hostname, port)
                connected = True
                if tls:
                    # The handshake apart from the connection, as httpx's own transport does
                    # it, so that a failure of each reads as there.
                    resumed = NEXT_TLS_SESSION.set(self._tls_session(key))
                    try:
                        connection.transport = await loop.start_tls(
                            transport, connection, self._tls_context(), server_hostname=hostname
                        )
                    finally:
                        NEXT_TLS_SESSION.reset(resumed)
        except OSError as exc:  # ssl.SSLError and TimeoutError included
            connection.close()
            if not connected and not isinstance(exc, TimeoutError | socket.gaierror):
                raise self._attempts_failed(request) from exc
            raise self._connect_error(exc, request) from exc
        except BaseException:
            connection.close()
            raise
        if tls:
            ssl_object = connection.get_extra_info("ssl_object")
            if ssl_object is not None:
                refused = self._refused_protocol(ssl_object.selected_alpn_protocol(), request)
                if refused is not None:
                    connection.close()
                    raise refused
        return connection

    # -- one exchange ----------------------------------------------------------------------

    async def handle_async_request(self, request: Any) -> Any:
        """Send ``request`` on a pooled or new connection; return the response once its head
        has arrived (the body streams as it is read)."""
        return self._response(*await self.exchange(request), request)

    async def exchange(
        self, request: Any, prepared: Prepared | None = None
    ) -> tuple[Any, Any, Connection]:
        """``handle_async_request`` short of the stack's response: the framing holding the
        head, the body (the stack's ``AsyncByteStream``) and the connection
        (``network_stream``). ``prepared``: the request already made ready to write
        (``wire.Lane``)."""
        if prepared is None:
            prepared = prepare(self._stack, request, self._heads)
        reuse = True
        while True:
            connection, reused = await self._acquire(prepared.key, request, reuse)
            timer = _Timer(connection.loop)
            framing = new_framing(request, self._limits)
            body = self._body_type(self, connection, framing, timer, request, prepared)
            connection.begin(framing)
            try:
                written = await self._send(connection, timer, request, prepared)
                await body.read_head(written)
            except self._stack.raises.TransportError:
                timer.cancel()
                body.drop()
                # (a connection that closed before a byte of the answer, taken idle: the
                # request was not read, a new connection carries it, once)
                if not may_resend(reused, prepared, connection.ended()):
                    raise
                reuse = False
                continue
            except BaseException:
                timer.cancel()
                body.drop()
                raise
            return framing, body, connection

    async def _send(
        self, connection: Connection, timer: _Timer, request: Any, prepared: Prepared
    ) -> Exception | None:
        """Write the request; the stack's ``WriteError`` when the connection broke while it
        was written (the caller looks for an answer first), else None."""
        transport = connection.transport
        assert transport is not None
        head, body = prepared.head, prepared.body
        if body is not None:
            transport.write(head + body)
        else:
            transport.write(head)
            async for chunk in request.stream:
                if not chunk:
                    continue
                if connection.lost:
                    break
                transport.write(prepared.frame(chunk))
                wait = self._wait(request, "write")
                if not await connection.drained(timer.wait, wait):
                    raise self._timed_out("write", None, request)
            if prepared.chunked and not connection.lost:
                transport.write(prepared.tail)
        if not await connection.drained(timer.wait, self._wait(request, "write")):
            raise self._timed_out("write", None, request)
        if connection.lost and not connection.received:
            return self._error(
                self._stack.raises.WriteError, connection.error or "connection lost", request
            )
        return None

    async def aclose(self) -> None:
        """Close every idle connection; responses still being read close theirs when done."""
        self.close_idle()

    def close_idle(self) -> None:
        """``aclose`` from outside the event loop (a finalizer): the pool closed, its idle
        connections closed, the requests waiting for one woken to fail."""
        reaper, self._reaper = self._reaper, None
        if reaper is not None:
            reaper.cancel()
        for connection in self._pool.close():
            connection.close()
        while self._waiting:
            waiter = self._waiting.popleft()
            if not waiter.done():
                waiter.set_result(False)


class _Body:
    """The body of one response, as its connection's protocol frames it (the base of the
    stack's ``AsyncByteStream`` made by ``base.stream_type``)."""

    def __init__(
        self,
        transport: AsyncHttp1,
        connection: Connection,
        framing: Any,
        timer: _Timer,
        request: Any,
        prepared: Prepared,
    ) -> None:
        self._transport = transport
        self._connection: Connection | None = connection
        self._framing = framing
        self._timer = timer
        self._request = request
        self._prepared = prepared
        self._keep = False

    def _fail(self, connection: Connection) -> Exception:
        """The stack's error for what broke the response."""
        error = connection.error
        failure = self._transport._read_error(
            error, connection.received, self._framing, connection.first, self._request
        )
        failure.__cause__ = error
        return failure

    async def _more(self, mark: LowWater | None = None) -> None:
        """Wait for more of the response (or its end, or its error). With a ``mark`` on the
        socket, data below it that arrived within the read timeout is not a timeout."""
        connection = self._connection
        assert connection is not None
        if connection.error is not None or (connection.eof and not self._framing.complete):
            raise self._fail(connection)
        timeout = self._transport._wait(self._request, "read")
        if not await connection.readable(self._timer.wait, timeout):
            if mark is not None and mark.pending():
                return
            raise self._transport._timed_out("read", None, self._request)

    async def read_head(self, write_error: Exception | None) -> None:
        """Wait for the final head (body data that came with it is kept); a ``write_error``
        is raised when no answer came."""
        connection = self._connection
        assert connection is not None
        try:
            while self._framing.status is None:
                await self._more()
        except self._transport._stack.raises.TransportError:
            if write_error is not None:
                raise write_error from write_error.__cause__
            raise
        # after a broken write the connection is not reused, whatever the answer says
        self._keep = write_error is None
        self._settle()

    def _settle(self) -> None:
        """Once the response is complete and its data taken: its connection back to the pool,
        or closed."""
        connection = self._connection
        if connection is None or connection.body or not self._framing.complete:
            return
        self._connection = None
        self._timer.cancel()
        self._transport._finish(connection, self._keep, self._framing, self._prepared)

    def drop(self) -> None:
        """Close the connection (a response broken, cancelled or closed before its end)."""
        connection, self._connection = self._connection, None
        self._timer.cancel()
        if connection is not None:
            self._transport._lost(connection)

    def arrived_whole(self) -> bytes | None:
        """The whole body when all of it arrived (the response is complete and nothing of it
        was taken yet), else None. Reads nothing, takes nothing."""
        if not self._framing.complete:
            return None
        connection = self._connection
        return b"" if connection is None else b"".join(connection.body)

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            while (connection := self._connection) is not None:
                if connection.body:
                    pieces = connection.take()
                    self._settle()
                    for piece in pieces:
                        yield piece
                elif self._framing.complete:
                    self._settle()
                else:
                    await self._more()
        except BaseException:
            self.drop()
            raise

    async def read_whole(self, limit: int | None) -> bytes:
        """The rest of the body as one ``bytes`` object: to its end, or until ``limit`` bytes
        or more came (None: no bound). Body data of a known length (``fill_room``) is read
        straight into the body's buffer (``_Fill``), not framed piece by piece and joined; the
        read timeout bounds each wait for data, as when iterating."""
        connection = self._connection
        framing = self._framing
        if connection is None:  # all of it was read
            buffer = BodyBuffer(0)
        else:
            capacity = whole_capacity(framing, connection.buffered, limit)
            buffer = connection.whole = renewed(connection.whole, capacity)
        try:
            while (connection := self._connection) is not None:
                if limit is not None and len(buffer) >= limit:
                    break
                if connection.body:
                    for piece in connection.take():
                        buffer.extend(piece)
                    self._settle()
                elif framing.complete:
                    self._settle()
                elif room := fill_room(framing, len(buffer), limit):
                    await self._fill(connection, buffer, room)
                else:
                    await self._more()
        except BaseException:
            self.drop()
            raise
        body: bytes = buffer.take()
        return body

    async def _fill(self, connection: Connection, buffer: Any, room: int) -> None:
        """Read the next ``room`` bytes of body data straight into ``buffer``."""
        transport = connection.transport
        assert transport is not None
        buffer.open(room)
        # fewer, larger reads (``low_water``); not under TLS, where reads are not measured
        mark = None if connection.tls else lower_water(transport, room)
        fill = _Fill(connection, buffer, self._timer, mark)
        transport.set_protocol(fill)
        try:
            while buffer.window:
                await self._more(mark)
        finally:
            if mark is not None:
                mark.close()
            if transport.get_protocol() is fill:
                transport.set_protocol(connection)

    async def aclose(self) -> None:
        """Closing before the end closes the connection: a body left unread cannot be
        skipped safely."""
        connection = self._connection
        if connection is not None and self._framing.complete:
            connection.take()  # all of it was read off the socket: the connection is clean
            self._settle()
        else:
            self.drop()


class AsyncHttp1Transport(AsyncHttp1, httpx.AsyncBaseTransport):
    """HTTP/1.1 over a keep-alive pool of asyncio connections, with the framing of mcpstream's
    codec, for an ``httpx.AsyncClient`` (``transport_types`` gives httpx2's). See ``Http1Base``
    for the options."""
