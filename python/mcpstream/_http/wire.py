"""What both drivers translate between the core's descriptions and httpx: requests and their
timeouts, the head of an answer, and failures of the HTTP stack."""

from __future__ import annotations

import logging
import time
from typing import Any

import httpx

from .core.steps import Failed, FailureKind, Head, HttpRequest

__all__ = [
    "HTTP_ERRORS",
    "Snippet",
    "build_request",
    "callback_failed",
    "failure",
    "head",
    "lift_read_timeout",
    "logger",
]

logger = logging.getLogger("mcpstream.transport")

HTTP_ERRORS = (httpx.HTTPError, httpx.StreamError, OSError)
"""What sending a request or reading a body may raise, reported to a flow as ``Failed``."""


def build_request(
    client: httpx.Client | httpx.AsyncClient,
    request: HttpRequest,
    extensions: dict[str, Any] | None = None,
) -> httpx.Request:
    """The httpx request for ``request`` (its timeouts as an ``httpx.Timeout``)."""
    if request.connect_s is None:
        timeout = httpx.Timeout(request.timeout_s)
    else:
        timeout = httpx.Timeout(request.timeout_s, connect=request.connect_s)
    return client.build_request(
        request.method,
        request.url,
        headers=dict(request.headers),
        content=request.body,
        timeout=timeout,
        extensions=extensions,
    )


def head(response: httpx.Response) -> Head:
    """The ``Head`` of ``response`` (header names in lower case, repeated ones joined)."""
    return Head(time.monotonic(), response.status_code, dict(response.headers.items()))


def lift_read_timeout(response: httpx.Response) -> None:
    """Let the body of ``response`` be idle for as long as the server likes (``ReadChunk(None)``).

    The request's read timeout bounded the wait for the head (and for an error body); httpcore
    reads the ``timeout`` request extension again at every read of the body, so clearing
    ``read`` lifts the bound from now on. A client whose transport ignores the extension keeps
    its read timeout, and the GET stream is then reconnected after an idle spell.
    """
    timeouts = response.request.extensions.get("timeout")
    if isinstance(timeouts, dict):
        timeouts["read"] = None


def failure(exc: BaseException) -> Failed:
    """``exc``, raised by the HTTP stack (or a reader thread), as the core's ``Failed``."""
    if isinstance(exc, httpx.ConnectTimeout):
        kind = FailureKind.CONNECT_TIMEOUT
    elif isinstance(exc, httpx.TimeoutException):
        kind = FailureKind.TIMEOUT
    elif isinstance(exc, httpx.TransportError):
        kind = FailureKind.NETWORK
    else:
        kind = FailureKind.OTHER
    return Failed(time.monotonic(), kind, exc)


class Snippet:
    """The first bytes of an error body, at most about ``limit`` of them."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._parts: list[bytes] = []
        self._size = 0

    def full_with(self, chunk: bytes) -> bool:
        """Add ``chunk``; True once the limit is reached."""
        self._parts.append(chunk)
        self._size += len(chunk)
        return self._size >= self.limit

    @property
    def data(self) -> bytes:
        """The bytes so far."""
        return b"".join(self._parts)


def callback_failed(server_id: str) -> None:
    """Log the exception of a notification callback (the stream goes on)."""
    logger.warning("the notification callback of server %r raised", server_id, exc_info=True)
