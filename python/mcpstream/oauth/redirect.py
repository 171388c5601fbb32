"""Redirect handlers: how the authorization URL gets visited and the callback caught.

- :class:`LoopbackRedirectHandler`: a user's login. Listens on ``127.0.0.1`` on a random port
  (RFC 8252 section 7.3), opens the browser when there is one and always prints the URL, and
  waits for the callback that carries this request's ``state``.
- :class:`HeadlessRedirectHandler` / :class:`AsyncHeadlessRedirectHandler`: authorization
  servers that approve without a user (test servers, the MCP conformance suite). Fetches the
  authorization URL and takes the redirect it answers with.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Generic, TextIO, TypeVar
from urllib.parse import urljoin

import httpx

from .._httpbase.stack import raised_on_any
from ..errors import McpOAuthAuthorizationError
from ._flow import USER_AGENT, AuthorizationPrompt, _SocketWatchdog
from .policy import InsecureOAuthUrlError, check_oauth_url

__all__ = ["AsyncHeadlessRedirectHandler", "HeadlessRedirectHandler", "LoopbackRedirectHandler"]

_C = TypeVar("_C", httpx.Client, httpx.AsyncClient)


def _browser_available() -> bool:
    import webbrowser

    try:
        webbrowser.get()
    except webbrowser.Error:
        return False
    return True


class LoopbackRedirectHandler:
    """Catches the callback on ``http://127.0.0.1:<random port>/callback``.

    The port is bound when the handler is made (so ``redirect_uri`` is known before client
    registration); use it as a context manager, or call :meth:`close`.
    """

    def __init__(
        self,
        *,
        open_browser: bool = True,
        timeout_s: float = 300.0,
        output: TextIO | None = None,
        host: str = "127.0.0.1",
    ) -> None:
        self._open_browser = open_browser
        self._timeout_s = timeout_s
        self._output = output
        # http.server is imported with the first login listener, not with mcpstream.
        from ._callback import CALLBACK_PATH, CallbackHandler, CallbackServer

        self._callback_path = CALLBACK_PATH
        self._server = CallbackServer((host, 0), CallbackHandler)
        self._server.timeout = 0.2
        self._lock = threading.Lock()

    @property
    def redirect_uri(self) -> str:
        """``http://127.0.0.1:<port>/callback``."""
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}{self._callback_path}"

    def authorize(self, prompt: AuthorizationPrompt) -> str:
        """Show or open the authorization URL and wait for this request's callback."""
        output = self._output if self._output is not None else sys.stderr
        try:
            # The drivers check it too; this handler may be called directly.
            check_oauth_url(prompt.authorization_url, "authorization URL")
        except InsecureOAuthUrlError as exc:
            raise McpOAuthAuthorizationError(str(exc)) from None
        opened = False
        if self._open_browser and _browser_available():
            import webbrowser

            try:
                opened = webbrowser.open(prompt.authorization_url)
            except webbrowser.Error:
                opened = False
        if opened:
            output.write(
                "Opened your browser to log in. If it did not open, visit:\n"
                f"  {prompt.authorization_url}\n"
            )
        else:
            output.write(f"Open this URL in a browser to log in:\n  {prompt.authorization_url}\n")
        output.flush()
        with self._lock:
            self._server.expected_state = prompt.state
            self._server.callback_url = None
            deadline = time.monotonic() + self._timeout_s
            self._server.deadline = deadline
            while self._server.callback_url is None:
                if time.monotonic() >= deadline:
                    raise McpOAuthAuthorizationError(
                        f"no authorization callback within {self._timeout_s:.0f}s; log in again"
                    )
                self._server.handle_request()
            return self._server.callback_url

    def close(self) -> None:
        """Stop listening."""
        self._server.server_close()

    def __enter__(self) -> LoopbackRedirectHandler:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _callback_from(response: httpx.Response, prompt: AuthorizationPrompt) -> str:
    location = response.headers.get("Location")
    if response.status_code not in (301, 302, 303, 307, 308) or not location:
        raise McpOAuthAuthorizationError(
            f"the authorization endpoint answered HTTP {response.status_code} without a redirect"
        )
    callback: str = urljoin(str(response.request.url), location)
    return callback


class _HeadlessRedirectHandlerBase(Generic[_C]):
    """What the sync and async headless handlers share; only the GET itself differs."""

    def __init__(
        self,
        *,
        redirect_uri: str = "http://127.0.0.1:8976/callback",
        client: _C | None = None,
        timeout_s: float = 10.0,
    ) -> None:
        self._redirect_uri = redirect_uri
        self._client: _C | None = client
        self._timeout_s = timeout_s

    @property
    def redirect_uri(self) -> str:
        """The redirect URI sent (nothing listens there)."""
        return self._redirect_uri

    def _options(self) -> dict[str, Any]:
        return {"headers": {"User-Agent": USER_AGENT}, "timeout": self._timeout_s}

    @staticmethod
    @contextmanager
    def _reaching_endpoint() -> Iterator[None]:
        try:
            yield
        except raised_on_any(lambda r: r.HTTPError) as exc:
            raise McpOAuthAuthorizationError(
                f"the authorization endpoint could not be reached: {type(exc).__name__}"
            ) from exc


class HeadlessRedirectHandler(_HeadlessRedirectHandlerBase[httpx.Client]):
    """For authorization servers that redirect at once, with no user: GET the authorization
    URL, do not follow the redirect, return its ``Location``."""

    def authorize(self, prompt: AuthorizationPrompt) -> str:
        """Fetch the authorization URL and return the redirect target (only the headers are
        read, within ``timeout_s`` end to end)."""
        with self._reaching_endpoint(), contextlib.ExitStack() as stack:
            client = self._client or stack.enter_context(httpx.Client())
            request = client.build_request("GET", prompt.authorization_url, **self._options())
            with _SocketWatchdog(request, self._timeout_s):
                response = client.send(request, stream=True, follow_redirects=False)
            response.close()
        return _callback_from(response, prompt)


class AsyncHeadlessRedirectHandler(_HeadlessRedirectHandlerBase[httpx.AsyncClient]):
    """The async form of :class:`HeadlessRedirectHandler`."""

    async def authorize(self, prompt: AuthorizationPrompt) -> str:
        """Fetch the authorization URL and return the redirect target (only the headers are
        read, within ``timeout_s`` end to end)."""
        with self._reaching_endpoint():
            async with contextlib.AsyncExitStack() as stack:
                client = self._client
                if client is None:
                    client = await stack.enter_async_context(httpx.AsyncClient())
                request = client.build_request("GET", prompt.authorization_url, **self._options())
                try:
                    async with asyncio.timeout(self._timeout_s):
                        response = await client.send(request, stream=True, follow_redirects=False)
                        await response.aclose()
                except TimeoutError:
                    raise httpx.ReadTimeout("no answer in time", request=request) from None
        return _callback_from(response, prompt)
