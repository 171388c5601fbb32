"""Thread helpers of the sync transport: a body reader thread and a way to stop it at once."""

from __future__ import annotations

import contextlib
import queue
import socket
import threading
from collections.abc import Iterator
from enum import Enum

import httpx

__all__ = ["ChunkKind", "ChunkPump", "abort_network_stream", "abort_response"]

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
    """Reads a streamed response body on a thread of its own and hands the chunks over through a
    bounded queue, so that the calling thread can wait for them with a timeout.

    ``stop`` always ends the thread: it shuts the socket down (see ``abort_response``), drains
    the queue and joins the thread. The response itself is closed by its owner afterwards.
    """

    def __init__(self, response: httpx.Response, *, name: str) -> None:
        self._response = response
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
        chunks: Iterator[bytes] = self._response.iter_bytes()
        try:
            for chunk in chunks:
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

    def get(self, timeout_s: float) -> tuple[ChunkKind, bytes | BaseException | None] | None:
        """The next item, or None when nothing came within ``timeout_s``."""
        try:
            return self._queue.get(timeout=max(timeout_s, 0.0))
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
