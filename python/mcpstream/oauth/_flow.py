"""Sans-I/O plumbing: every OAuth exchange is written once as a generator that yields what it
needs done and receives the outcome; a sync driver (``httpx.Client``) and an async driver
(``httpx.AsyncClient``) run the same generators.

A flow yields an ``httpx.Request`` (and receives the read ``httpx.Response``, or has the
``httpx.HTTPError`` thrown into it; with an ``httpx2`` client the drivers send its httpx2 twin
and hand back httpx's response and error classes, so that the flows speak httpx alone), an
:class:`AuthorizationPrompt` (and receives the callback URL the user's browser was sent to)
or a :class:`HostCall` (and receives what the host's function returned, or has its exception
thrown into it).

The drivers hold every limit of an OAuth exchange, so no flow can forget one:

- the URL policy (:mod:`.policy`): each request's URL, and each prompt's authorization URL,
  is checked before it is sent or shown;
- one deadline per operation: the HTTP steps of one flow run share the flow's ``timeout_s``
  (each request carries it) end to end, connect, TLS, headers and body together; the clock
  starts again after the user's browser step (a person takes the time they need there) and
  after a :class:`HostCall` (the host's own code, such as an assertion source, is not the
  server's time);
- one byte budget per document: a body larger than :data:`MAX_DOCUMENT_BYTES` after
  decompression (``Content-Length`` is checked first) is refused, unread. Every document, on
  every path (discovery, registration, the token endpoint, the identity provider's), is read
  by :func:`_read_document`: through the transports' decompressor (``_httpbase.bodies``, which
  undoes gzip or deflate ``PIECE_BYTES`` at a time), counted after decompression, and stopped
  within a piece of the budget whatever the ratio of a bomb. Only the codings it undoes are
  asked for.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import json
import socket
import threading
import time
from collections.abc import Awaitable, Callable, Generator, Iterator
from contextlib import closing, nullcontext, suppress
from dataclasses import dataclass
from typing import Any, Generic, NoReturn, Protocol, TypeVar, runtime_checkable

import httpx

from .._httpbase.bodies import ACCEPT_ENCODING, abody_chunks, body_chunks
from .._httpbase.stack import as_httpx_error, as_httpx_request, raised_on_any, stack_of
from .._version import __version__
from ..errors import McpOAuthAuthorizationError
from .policy import InsecureOAuthUrlError, check_oauth_url

__all__ = [
    "MAX_DOCUMENT_BYTES",
    "AsyncMcpOAuthRedirectHandler",
    "AuthorizationPrompt",
    "Flow",
    "HostCall",
    "McpOAuthRedirectHandler",
    "OAuthTransferRefused",
    "build_request",
    "http_step",
    "prompt_step",
    "response_json",
    "run_async",
    "run_sync",
]

T = TypeVar("T")
USER_AGENT = f"mcpstream/{__version__}"
MAX_DOCUMENT_BYTES = 1 << 20
"""The byte budget of one OAuth document (metadata, registration, token response), after
decompression: 1 MiB, a thousand times what a real one needs."""


class OAuthTransferRefused(httpx.TransportError):
    """An OAuth request the driver would not send, or a response it stopped reading: a URL the
    policy refuses, a body over its byte budget, the operation's deadline passed. Its message is
    safe to show, and the flow's error quotes it."""


@dataclass(frozen=True)
class AuthorizationPrompt:
    """A request for the user's browser to visit ``authorization_url``; the answer is the URL
    the authorization server redirected back to (``redirect_uri`` with ``code`` and ``state``).
    ``state`` lets a listener ignore callbacks that are not for this request."""

    authorization_url: str
    redirect_uri: str
    state: str


@dataclass(frozen=True)
class HostCall:
    """A call into the host's code (an assertion source): the driver calls ``function`` with
    no arguments and answers with what it returned. The async driver runs it in a worker
    thread (it may block: a file, a metadata server) and awaits an awaitable answer (an async
    function's coroutine); the blocking driver hands an awaitable back as it is."""

    function: Callable[[], Any]


@runtime_checkable
class McpOAuthRedirectHandler(Protocol):
    """Takes the user through the authorization step (a browser and a loopback listener, or a
    headless fetch for test servers)."""

    @property
    def redirect_uri(self) -> str:
        """The ``redirect_uri`` to register and send."""
        ...

    def authorize(self, prompt: AuthorizationPrompt) -> str:
        """Have the authorization URL visited; return the callback URL it redirected to."""
        ...


@runtime_checkable
class AsyncMcpOAuthRedirectHandler(Protocol):
    """The async form of :class:`McpOAuthRedirectHandler`."""

    @property
    def redirect_uri(self) -> str:
        """The ``redirect_uri`` to register and send."""
        ...

    def authorize(self, prompt: AuthorizationPrompt) -> Awaitable[str]:
        """Have the authorization URL visited; return the callback URL it redirected to."""
        ...


Step = httpx.Request | AuthorizationPrompt | HostCall
Flow = Generator[Step, Any, T]


def build_request(
    method: str,
    url: str,
    *,
    timeout_s: float,
    headers: dict[str, str] | None = None,
    data: dict[str, str] | None = None,
    json_body: Any = None,
) -> httpx.Request:
    """A request carrying its own timeout, so any client honours it."""
    merged = {
        "Accept": "application/json",
        "Accept-Encoding": ACCEPT_ENCODING,
        "User-Agent": USER_AGENT,
    }
    merged.update(headers or {})
    return httpx.Request(
        method,
        url,
        headers=merged,
        data=data,
        json=json_body,
        extensions={"timeout": httpx.Timeout(timeout_s).as_dict()},
    )


def http_step(
    request: httpx.Request, failure: Callable[[str], Exception]
) -> Generator[Step, Any, httpx.Response]:
    """Yield ``request``; return the response the driver sends back. A network error becomes
    ``failure(name of the httpx error)``, raised with the error chained to it."""
    try:
        response = yield request
    except OAuthTransferRefused as exc:
        raise failure(str(exc)) from exc
    except httpx.HTTPError as exc:
        raise failure(type(exc).__name__) from exc
    if not isinstance(response, httpx.Response):  # pragma: no cover - driver bug
        raise TypeError("the OAuth driver answered an HTTP request with something else")
    return response


def prompt_step(prompt: AuthorizationPrompt) -> Generator[Step, Any, str]:
    """Yield ``prompt``; return the callback URL the driver sends back."""
    callback = yield prompt
    if not isinstance(callback, str):  # pragma: no cover - driver bug
        raise TypeError("the OAuth driver answered an authorization prompt with something else")
    return callback


def response_json(response: httpx.Response) -> Any:
    """The JSON body of ``response``, or ``None`` when it is not JSON."""
    try:
        return json.loads(response.content)
    except (ValueError, RecursionError):
        # RecursionError: a hostile document nested deeper than the interpreter's stack.
        return None


class _Steps(Generic[T]):
    """A flow as the drivers walk it: iterating gives each step, which the driver answers with
    :meth:`reply` or :meth:`fail` before asking for the next; once the iteration ends,
    :attr:`result` is what the flow returned."""

    result: T

    def __init__(self, flow: Flow[T]) -> None:
        self._flow = flow
        self._resume: Callable[[], Step] = flow.__next__

    def __iter__(self) -> Iterator[Step]:
        return self

    def __next__(self) -> Step:
        try:
            return self._resume()
        except StopIteration as stop:
            self.result = stop.value
            raise

    def reply(self, value: Any) -> None:
        """Send ``value`` to the flow as the outcome of its step."""
        self._resume = functools.partial(self._flow.send, value)

    def fail(self, error: Exception) -> None:
        """Raise ``error`` in the flow, at its step."""
        self._resume = functools.partial(self._flow.throw, error)


def _no_redirect_handler() -> NoReturn:  # pragma: no cover - flows check first
    raise RuntimeError("this OAuth flow needs a redirect handler")


class _Deadline:
    """The deadline of one operation: started by its first HTTP step, with the budget that step
    carries, and restarted after a browser step."""

    def __init__(self) -> None:
        self._at: float | None = None

    def start(self, request: httpx.Request) -> float:
        """Start the clock if it is not running; set ``request``'s timeouts to what remains,
        and return that (raises :class:`OAuthTransferRefused` once nothing remains)."""
        if self._at is None:
            budget = (request.extensions.get("timeout") or {}).get("read") or 10.0
            self._at = time.monotonic() + float(budget)
        remaining = self.remaining()
        request.extensions["timeout"] = httpx.Timeout(remaining).as_dict()
        return remaining

    def remaining(self) -> float:
        """Seconds left; raises :class:`OAuthTransferRefused` when none are."""
        left = (self._at or 0.0) - time.monotonic()
        if left <= 0:
            raise OAuthTransferRefused("the OAuth operation ran past its deadline")
        return left

    def restart(self) -> None:
        """Forget the clock (after the user's browser step)."""
        self._at = None


def _check_request(request: httpx.Request) -> None:
    try:
        check_oauth_url(str(request.url), "OAuth endpoint")
    except InsecureOAuthUrlError as exc:
        raise OAuthTransferRefused(str(exc), request=request) from None


def _check_size(response: httpx.Response, limit: int) -> None:
    declared = response.headers.get("Content-Length", "")
    if declared.strip().isdigit() and int(declared) > limit:
        raise OAuthTransferRefused(
            f"the OAuth response declares {declared.strip()} bytes, over the "
            f"{limit}-byte limit of an OAuth document"
        )


_DROPPED_HEADERS = ("content-encoding", "content-length", "transfer-encoding")
"""Headers of the wire form of a body, dropped from the decoded response the flows read."""


class _Document:
    """The body of one OAuth response as it is read: ``Content-Length`` checked first, then
    each decompressed piece counted against the budget, the read refused at the first piece
    past it. The one reading rule of both drivers (they differ only in how they iterate)."""

    def __init__(self, response: httpx.Response, limit: int) -> None:
        _check_size(response, limit)
        self._limit = limit
        self._chunks: list[bytes] = []
        self._size = 0

    def add(self, chunk: bytes) -> None:
        """Take the next decompressed piece (raises :class:`OAuthTransferRefused` past the
        budget)."""
        self._size += len(chunk)
        if self._size > self._limit:
            raise OAuthTransferRefused(
                f"the OAuth response is larger than the {self._limit}-byte limit of an OAuth "
                "document"
            )
        self._chunks.append(chunk)

    def response(self, response: httpx.Response, request: httpx.Request) -> httpx.Response:
        """``response`` as the flows read it: its body decoded, read and held, as an
        ``httpx.Response`` to ``request`` (the flow's, whichever stack's client sent it)."""
        headers = [(k, v) for k, v in response.headers.multi_items() if k not in _DROPPED_HEADERS]
        return httpx.Response(
            response.status_code,
            headers=headers,
            content=b"".join(self._chunks),
            request=request,
        )


def _read_document(
    response: httpx.Response,
    request: httpx.Request,
    limit: int,
    deadline: _Deadline | None = None,
) -> httpx.Response:
    """Read the body of the streamed ``response`` (a blocking client's) as a document of at
    most ``limit`` bytes after decompression (``deadline``: checked after each piece)."""
    document = _Document(response, limit)
    for chunk in body_chunks(response):
        document.add(chunk)
        if deadline is not None:
            deadline.remaining()
    return document.response(response, request)


async def _aread_document(
    response: httpx.Response, request: httpx.Request, limit: int
) -> httpx.Response:
    """:func:`_read_document` of an async client's ``response``."""
    document = _Document(response, limit)
    async for chunk in abody_chunks(response):
        document.add(chunk)
    return document.response(response, request)


class _SocketWatchdog:
    """Bounds the wait for a blocking client's response headers, which per-read timeouts do
    not (a server trickling a byte at a time keeps every read short): at the deadline the
    socket the request opened is shut down, which ends the blocked read. A deadline that
    passes before the socket is known (a connect slower than the deadline, or a thread that
    waited long for the processor) shuts it down as soon as the connection reports it."""

    def __init__(self, request: httpx.Request, remaining: float) -> None:
        self._socket: socket.socket | None = None
        self._fired = False
        self._timer = threading.Timer(remaining, self._fire)
        self._timer.daemon = True
        request.extensions["trace"] = self._trace

    def _trace(self, event: str, info: dict[str, Any]) -> None:
        if event in ("connection.connect_tcp.complete", "connection.start_tls.complete"):
            stream = info.get("return_value")
            sock = stream.get_extra_info("socket") if stream is not None else None
            if isinstance(sock, socket.socket):
                # Set before reading _fired, as _fire sets _fired before reading _socket:
                # whichever of the two threads comes second sees both and shuts it down.
                self._socket = sock
                if self._fired:
                    self._shut_down()

    def _fire(self) -> None:
        self._fired = True
        self._shut_down()

    def _shut_down(self) -> None:
        sock = self._socket
        if sock is not None:
            with suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def __enter__(self) -> _SocketWatchdog:
        self._timer.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._timer.cancel()


def _send_sync(
    http: httpx.Client, request: httpx.Request, deadline: _Deadline, limit: int
) -> httpx.Response:
    _check_request(request)
    try:
        with _SocketWatchdog(request, deadline.start(request)):
            sent = as_httpx_request(stack_of(http), request)
            response = http.send(sent, stream=True, follow_redirects=False)
            try:
                document = _read_document(response, request, limit, deadline)
                # A body the watchdog cut short ends like one the server finished.
                deadline.remaining()
            finally:
                response.close()
    except raised_on_any(lambda r: r.TransportError):
        deadline.remaining()  # a read the watchdog ended is reported as the deadline
        raise
    return document


async def _send_async(
    http: httpx.AsyncClient, request: httpx.Request, deadline: _Deadline, limit: int
) -> httpx.Response:
    _check_request(request)
    try:
        async with asyncio.timeout(deadline.start(request)):
            sent = as_httpx_request(stack_of(http), request)
            response = await http.send(sent, stream=True, follow_redirects=False)
            try:
                document = await _aread_document(response, request, limit)
            finally:
                await response.aclose()
    except TimeoutError:
        raise OAuthTransferRefused(
            "the OAuth operation ran past its deadline", request=request
        ) from None
    return document


def _checked_prompt(prompt: AuthorizationPrompt) -> AuthorizationPrompt:
    # The browser is handed only https:// (or loopback http://) URLs, whatever the flow built.
    try:
        check_oauth_url(prompt.authorization_url, "authorization URL")
    except InsecureOAuthUrlError as exc:
        raise McpOAuthAuthorizationError(str(exc)) from None
    return prompt


def run_sync(
    flow: Flow[T],
    client: httpx.Client | None,
    redirect_handler: McpOAuthRedirectHandler | None = None,
    *,
    max_document_bytes: int | None = None,
) -> T:
    """Run ``flow`` with a blocking client (a private one when ``client`` is ``None``); each
    document read is held to ``max_document_bytes`` (:data:`MAX_DOCUMENT_BYTES` by default)."""
    limit = max_document_bytes or MAX_DOCUMENT_BYTES
    steps = _Steps(flow)
    deadline = _Deadline()
    # A private client is closed at the end; the caller's is left open.
    connection = httpx.Client(follow_redirects=False) if client is None else nullcontext(client)
    with closing(flow), connection as http:
        for step in steps:
            if isinstance(step, HostCall):
                try:
                    steps.reply(step.function())
                except Exception as exc:
                    steps.fail(exc)
                deadline.restart()
                continue
            if not isinstance(step, httpx.Request):
                if redirect_handler is None:  # pragma: no cover - flows check first
                    _no_redirect_handler()
                steps.reply(redirect_handler.authorize(_checked_prompt(step)))
                deadline.restart()
                continue
            try:
                steps.reply(_send_sync(http, step, deadline, limit))
            except raised_on_any(lambda r: r.HTTPError) as exc:
                steps.fail(as_httpx_error(exc, step))
    return steps.result


async def run_async(
    flow: Flow[T],
    client: httpx.AsyncClient | None,
    redirect_handler: AsyncMcpOAuthRedirectHandler | McpOAuthRedirectHandler | None = None,
    *,
    max_document_bytes: int | None = None,
) -> T:
    """Run ``flow`` with an async client (see :func:`run_sync`). A blocking redirect handler
    runs in a worker thread."""
    limit = max_document_bytes or MAX_DOCUMENT_BYTES
    steps = _Steps(flow)
    deadline = _Deadline()
    # A private client is closed at the end; the caller's is left open.
    connection = (
        httpx.AsyncClient(follow_redirects=False) if client is None else nullcontext(client)
    )
    with closing(flow):
        async with connection as http:
            for step in steps:
                if isinstance(step, httpx.Request):
                    try:
                        steps.reply(await _send_async(http, step, deadline, limit))
                    except raised_on_any(lambda r: r.HTTPError) as exc:
                        steps.fail(as_httpx_error(exc, step))
                    continue
                if isinstance(step, HostCall):
                    try:
                        answer = await asyncio.to_thread(step.function)
                        steps.reply(await answer if inspect.isawaitable(answer) else answer)
                    except Exception as exc:
                        steps.fail(exc)
                    deadline.restart()
                    continue
                if redirect_handler is None:  # pragma: no cover - flows check first
                    _no_redirect_handler()
                authorize = redirect_handler.authorize
                prompt = _checked_prompt(step)
                if inspect.iscoroutinefunction(authorize):
                    steps.reply(await authorize(prompt))
                else:
                    steps.reply(await asyncio.to_thread(authorize, prompt))
                deadline.restart()
    return steps.result
