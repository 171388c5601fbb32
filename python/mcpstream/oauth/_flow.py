"""Sans-I/O plumbing: every OAuth exchange is written once as a generator that yields what it
needs done and receives the outcome; a sync driver (``httpx.Client``) and an async driver
(``httpx.AsyncClient``) run the same generators.

A flow yields an ``httpx.Request`` (and receives the read ``httpx.Response``, or has the
``httpx.HTTPError`` thrown into it) or an :class:`AuthorizationPrompt` (and receives the callback
URL the user's browser was sent to).
"""

from __future__ import annotations

import asyncio
import inspect
import json
from collections.abc import Awaitable, Callable, Generator
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar, runtime_checkable

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


def run_sync(
    flow: Flow[T],
    client: httpx.Client | None,
    redirect_handler: McpOAuthRedirectHandler | None = None,
) -> T:
    """Run ``flow`` with a blocking client (a private one when ``client`` is ``None``)."""
    owned = client is None
    http = client if client is not None else httpx.Client(follow_redirects=False)
    try:
        step = next(flow)
        while True:
            if isinstance(step, httpx.Request):
                try:
                    reply: Any = http.send(step, follow_redirects=False)
                except httpx.HTTPError as exc:
                    step = flow.throw(exc)
                    continue
            else:
                if redirect_handler is None:  # pragma: no cover - flows check first
                    raise RuntimeError("this OAuth flow needs a redirect handler")
                reply = redirect_handler.authorize(step)
            step = flow.send(reply)
    except StopIteration as stop:
        result: T = stop.value
        return result
    finally:
        flow.close()
        if owned:
            http.close()


async def run_async(
    flow: Flow[T],
    client: httpx.AsyncClient | None,
    redirect_handler: AsyncMcpOAuthRedirectHandler | McpOAuthRedirectHandler | None = None,
) -> T:
    """Run ``flow`` with an async client. A blocking redirect handler runs in a worker thread."""
    owned = client is None
    http = client if client is not None else httpx.AsyncClient(follow_redirects=False)
    try:
        step = next(flow)
        while True:
            if isinstance(step, httpx.Request):
                try:
                    reply: Any = await http.send(step, follow_redirects=False)
                except httpx.HTTPError as exc:
                    step = flow.throw(exc)
                    continue
            else:
                if redirect_handler is None:  # pragma: no cover - flows check first
                    raise RuntimeError("this OAuth flow needs a redirect handler")
                if inspect.iscoroutinefunction(redirect_handler.authorize):
                    reply = await redirect_handler.authorize(step)
                else:
                    reply = await asyncio.to_thread(redirect_handler.authorize, step)
            step = flow.send(reply)
    except StopIteration as stop:
        result: T = stop.value
        return result
    finally:
        flow.close()
        if owned:
            await http.aclose()
