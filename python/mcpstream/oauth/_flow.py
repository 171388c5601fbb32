"""Sans-I/O plumbing: every OAuth exchange is written once as a generator that yields what it
needs done and receives the outcome; a sync driver (``httpx.Client``) and an async driver
(``httpx.AsyncClient``) run the same generators.

A flow yields an ``httpx.Request`` (and receives the read ``httpx.Response``, or has the
``httpx.HTTPError`` thrown into it) or an :class:`AuthorizationPrompt` (and receives the callback
URL the user's browser was sent to).
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import json
from collections.abc import Awaitable, Callable, Generator, Iterator
from contextlib import closing, nullcontext
from dataclasses import dataclass
from typing import Any, Generic, NoReturn, Protocol, TypeVar, runtime_checkable

import httpx

from .. import __version__

__all__ = [
    "AsyncMcpOAuthRedirectHandler",
    "AuthorizationPrompt",
    "Flow",
    "McpOAuthRedirectHandler",
    "build_request",
    "http_step",
    "prompt_step",
    "response_json",
    "run_async",
    "run_sync",
]

T = TypeVar("T")
USER_AGENT = f"mcpstream/{__version__}"


@dataclass(frozen=True)
class AuthorizationPrompt:
    """A request for the user's browser to visit ``authorization_url``; the answer is the URL
    the authorization server redirected back to (``redirect_uri`` with ``code`` and ``state``).
    ``state`` lets a listener ignore callbacks that are not for this request."""

    authorization_url: str
    redirect_uri: str
    state: str


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


Step = httpx.Request | AuthorizationPrompt
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
    merged = {"Accept": "application/json", "User-Agent": USER_AGENT}
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
    except (ValueError, UnicodeDecodeError):
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

    def fail(self, error: httpx.HTTPError) -> None:
        """Raise ``error`` in the flow, at its step."""
        self._resume = functools.partial(self._flow.throw, error)


def _no_redirect_handler() -> NoReturn:  # pragma: no cover - flows check first
    raise RuntimeError("this OAuth flow needs a redirect handler")


def run_sync(
    flow: Flow[T],
    client: httpx.Client | None,
    redirect_handler: McpOAuthRedirectHandler | None = None,
) -> T:
    """Run ``flow`` with a blocking client (a private one when ``client`` is ``None``)."""
    steps = _Steps(flow)
    # A private client is closed at the end; the caller's is left open.
    connection = httpx.Client(follow_redirects=False) if client is None else nullcontext(client)
    with closing(flow), connection as http:
        for step in steps:
            if not isinstance(step, httpx.Request):
                if redirect_handler is None:  # pragma: no cover - flows check first
                    _no_redirect_handler()
                steps.reply(redirect_handler.authorize(step))
                continue
            try:
                steps.reply(http.send(step, follow_redirects=False))
            except httpx.HTTPError as exc:
                steps.fail(exc)
    return steps.result


async def run_async(
    flow: Flow[T],
    client: httpx.AsyncClient | None,
    redirect_handler: AsyncMcpOAuthRedirectHandler | McpOAuthRedirectHandler | None = None,
) -> T:
    """Run ``flow`` with an async client. A blocking redirect handler runs in a worker thread."""
    steps = _Steps(flow)
    # A private client is closed at the end; the caller's is left open.
    connection = (
        httpx.AsyncClient(follow_redirects=False) if client is None else nullcontext(client)
    )
    with closing(flow):
        async with connection as http:
            for step in steps:
                if isinstance(step, httpx.Request):
                    try:
                        steps.reply(await http.send(step, follow_redirects=False))
                    except httpx.HTTPError as exc:
                        steps.fail(exc)
                    continue
                if redirect_handler is None:  # pragma: no cover - flows check first
                    _no_redirect_handler()
                authorize = redirect_handler.authorize
                if inspect.iscoroutinefunction(authorize):
                    steps.reply(await authorize(step))
                else:
                    steps.reply(await asyncio.to_thread(authorize, step))
    return steps.result
