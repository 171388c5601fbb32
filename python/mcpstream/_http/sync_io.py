"""The I/O pieces of the sync driver (``mcpstream._http.sync``).

A running flow keeps what it has open in an ``Exchange``: the response of its last request,
the body's iterator and its reader. The driver makes the first reads of a body on the flow's
own thread (``inline_reads``); the rest of a longer body is read by a ``ChunkPump``, a thread
that hands the chunks over through a bounded queue so that the flow can wait for them with a
timeout. A reader blocked on its socket is stopped by shutting the socket down under it
(``abort_response``); one that already saw the end of its body is only joined, so that its
connection goes back to the pool. The GET stream runs its flow on a thread of its own
(``Listener``)."""

from __future__ import annotations

import contextlib
import queue
import socket
import threading
import time
from collections.abc import Callable, Iterator
from enum import Enum
from typing import Any

import httpx

from . import wire
from .core import ListenStream, listen_flow
from .core.sse_legacy import SseStream
from .core.steps import Failed, Flow, Head

__all__ = [
    "ChunkKind",
    "ChunkPump",
    "Exchange",
    "Listener",
    "abort_network_stream",
    "abort_response",
    "read_limited",
]

_QUEUE_CHUNKS = 64
_PUT_POLL_S = 0.05
_JOIN_TIMEOUT_S = 5.0


class ChunkKind(Enum):
    """What a reader thread reports."""

    DATA = "data"
    END = "end"
    ERROR = "error"


def abort_response(response: httpx.Response) -> bool:
    """Shut down the socket under an HTTP/1.1 ``response``, so that a thread blocked reading it
    wakes up at once. Returns False where that is not possible (HTTP/2, a custom transport)."""
    if response.http_version != "HTTP/1.1":
        # The connection of an HTTP/2 stream carries other streams too.
        return False
    return abort_network_stream(response.extensions.get("network_stream"))


def abort_network_stream(stream: object) -> bool:
    """Shut down the socket under an httpcore network ``stream`` (see ``abort_response``).
    Returns False when ``stream`` has no socket to shut down."""
    get_extra_info = getattr(stream, "get_extra_info", None)
    if get_extra_info is None:
        return False
    sock = get_extra_info("socket")
    if not isinstance(sock, socket.socket):
        return False
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
    return True


class ChunkPump:
    """Reads the rest of a streamed response body (``chunks``, its iterator) on a thread of its
    own and hands the chunks over through a bounded queue, so that the calling thread can wait
    for them with a timeout.

    ``stop`` always ends the thread: it shuts the socket down (see ``abort_response``), drains
    the queue and joins the thread. The response itself is closed by its owner afterwards.
    """

    def __init__(self, response: httpx.Response, chunks: Iterator[bytes], *, name: str) -> None:
        self._response = response
        self._chunks = chunks
        self._queue: queue.Queue[tuple[ChunkKind, bytes | BaseException | None]] = queue.Queue(
            _QUEUE_CHUNKS
        )
        self._stopping = threading.Event()
        self._finished = False
        """Set by the reader once it is done with the socket (the body ended or failed)."""
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def _put(self, item: tuple[ChunkKind, bytes | BaseException | None]) -> None:
        while not self._stopping.is_set():
            try:
                self._queue.put(item, timeout=_PUT_POLL_S)
            except queue.Full:
                continue
            return

    def _run(self) -> None:
        try:
            for chunk in self._chunks:
                if self._stopping.is_set():
                    return
                if chunk:
                    self._put((ChunkKind.DATA, chunk))
        except BaseException as exc:
            self._finished = True
            if not self._stopping.is_set():
                self._put((ChunkKind.ERROR, exc))
            return
        self._finished = True
        self._put((ChunkKind.END, None))

    def get(self, timeout_s: float | None) -> tuple[ChunkKind, bytes | BaseException | None] | None:
        """The next item, or None when nothing came within ``timeout_s`` (None: no bound; the
        owner's ``abort_response`` ends the read, and so the wait)."""
        try:
            return self._queue.get(timeout=None if timeout_s is None else max(timeout_s, 0.0))
        except queue.Empty:
            return None

    def stop(self) -> None:
        """End the reader thread and wait for it (its put loop notices ``_stopping`` within
        ``_PUT_POLL_S``, and a read blocked on the socket is woken by the shutdown).

        A reader that already reported the end of the body (or its failure) reads no more: it
        is only joined, so that the connection of a complete response stays in the pool for the
        next call instead of being shut down while the thread winds up."""
        self._stopping.set()
        if self._thread.is_alive() and not self._finished and not abort_response(self._response):
            self._response.close()
        self._thread.join(_JOIN_TIMEOUT_S)


class Exchange:
    """What one running flow has open: its response, with its reader. ``client`` sends,
    ``wake`` cuts its sleeps short, ``listener`` is told about the responses of the GET
    stream."""

    __slots__ = (
        "broken",
        "chunks",
        "client",
        "deadline",
        "inline_reads",
        "listener",
        "preset",
        "pump",
        "response",
        "taken",
        "wake",
        "whole",
    )

    def __init__(
        self, client: httpx.Client, wake: threading.Event, listener: Listener | None = None
    ) -> None:
        self.client, self.wake, self.listener = client, wake, listener
        self.response: httpx.Response | None = None
        self.chunks: Iterator[bytes] | None = None
        self.whole: Callable[[int | None], bytes] | None = None
        """Reads the body into one ``bytes`` at once, where the transport can
        (``wire.whole_body``)."""
        self.pump: ChunkPump | None = None
        self.inline_reads = 0
        """Reads of the body made on the flow's thread."""
        self.broken = False
        """True once such a read ran out of its wait, which ends the body."""
        self.deadline: float | None = None
        """The deadline of the request whose response is open (for its error body)."""
        self.taken: bytes | None = None
        """The whole body of the answer, when it came with its head (``wire.send_whole``: no
        response is open then); ``b""`` once a chunk read took it."""
        self.preset: Head | Failed | Exception | None = None
        """The outcome of the flow's first ``Send``, when the driver sent it already (the
        one-shot path of a request: ``McpHttpTransport._request``)."""

    def open(self, response: httpx.Response, deadline: float | None) -> None:
        self.response, self.chunks = response, wire.body_chunks(response)
        self.whole, self.taken = wire.whole_body(response), None
        self.inline_reads, self.broken, self.deadline = 0, False, deadline
        if self.listener is not None:
            self.listener.track(response)

    def hold(self, answer: wire.Answer, deadline: float | None) -> Head:
        """Hold ``answer`` for the flow's reads (a whole one as ``taken``, else its response
        open); its head."""
        if isinstance(answer, tuple):
            status, fields, self.taken = answer
            self.deadline = deadline
            return Head(time.monotonic(), status, fields)
        self.open(answer, deadline)
        return wire.head(answer)

    def release(self) -> None:
        """Stop the reader and close the response (and its connection, if it was cut)."""
        pump, response = self.pump, self.response
        self.pump = self.response = self.chunks = self.whole = self.taken = None
        if pump is not None:
            pump.stop()
        if response is not None:
            response.close()
            if self.listener is not None:
                self.listener.track(None)

    def __enter__(self) -> Exchange:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.release()


def read_limited(chunks: Iterator[bytes], limit: int) -> bytes:
    """Read at most about ``limit`` bytes of a body's ``chunks`` (for error snippets); never
    raises."""
    snippet = wire.Snippet(limit)
    with contextlib.suppress(*wire.http_errors()):
        for chunk in chunks:
            if snippet.full_with(chunk):
                break
    return snippet.data


class Listener:
    """The thread that runs the GET stream's flow (or ``flow``, the HTTP+SSE stream's).

    When the transport made its HTTP client (or the host's speaks HTTP/2: ``host_view``), the
    GET stream has a client (a connection) of its own, so that
    every connection of that client is the stream's: the last one it opened (seen through
    httpcore's ``trace`` extension) is the GET's from the moment it connects, and ``stop`` shuts
    its socket down even while the GET still waits for the server's answer. A host's client is
    shared with the calls, so that only a GET with an answer can be stopped at once; ``stop``
    then waits for the answer (``ListenStream.HEADERS_TIMEOUT_S`` at most).
    """

    def __init__(
        self,
        run: Callable[[Flow[None], Exchange], None],
        stream: ListenStream | SseStream,
        *,
        client: httpx.Client,
        owns_client: bool,
        call_timeout_s: float,
        flow: Flow[None] | None = None,
        close: Callable[[], object] | None = None,
    ) -> None:
        self.stream = stream
        self.answered = threading.Event()
        self.owns_client = owns_client
        self._close = close or client.close
        """How the stream's own client is closed when the thread ends (``owns_client``: a
        view of a host's client closes only its own transport, see ``host_view``)."""
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._response: httpx.Response | None = None
        self._network_stream: object | None = None
        """The connection of the stream's own client (None with a host's client)."""
        kind = "sse" if isinstance(stream, SseStream) else "get"
        if flow is None:
            assert isinstance(stream, ListenStream)
            flow = listen_flow(stream, call_timeout_s=call_timeout_s)
        exchange = Exchange(client, self._stopping, self)
        self._thread = threading.Thread(
            target=self._run,
            args=(run, flow, exchange),
            name=f"mcpstream-{kind}-{stream.protocol.server.id}",
            daemon=True,
        )
        self._thread.start()

    @property
    def alive(self) -> bool:
        """True while the thread runs."""
        return self._thread.is_alive()

    def _run(
        self, run: Callable[[Flow[None], Exchange], None], flow: Flow[None], exchange: Exchange
    ) -> None:
        try:
            run(flow, exchange)
        finally:
            self.answered.set()
            if self.owns_client:
                self._close()

    def track(self, response: httpx.Response | None) -> None:
        """The GET's response (None once it is closed), for ``stop`` to cut."""
        with self._lock:
            self._response = response

    def trace(self, event: str, info: dict[str, Any]) -> None:
        """httpcore's ``trace`` callback for the stream's own client: keep the network stream of
        each connection it opens (``connection.connect_tcp.complete`` and the like)."""
        network_stream = info.get("return_value")
        if not hasattr(network_stream, "get_extra_info"):
            return
        with self._lock:
            self._network_stream = network_stream
        if self._stopping.is_set():
            abort_network_stream(network_stream)

    def stop(self, *, wait: bool = True) -> None:
        """End the thread: wake a blocked read (or a wait for the answer, see the class) by
        shutting the socket down, then join (unless not ``wait``: the thread then ends on its
        own, once a callback it runs returns)."""
        self.stream.stopping = True
        self._stopping.set()
        self.answered.set()
        with self._lock:
            response, network_stream = self._response, self._network_stream
        if network_stream is not None:
            abort_network_stream(network_stream)
        if response is not None and not abort_response(response):
            response.close()
        if wait and threading.current_thread() is not self._thread:
            # A handler running on this thread may close the transport; the thread then ends
            # on its own once the handler returns.
            self._thread.join(ListenStream.HEADERS_TIMEOUT_S + 1.0)
