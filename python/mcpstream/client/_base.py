"""What ``Client`` and ``AsyncClient`` share besides the flows: the constructor (one signature,
generic in the transport, HTTP client and OAuth redirect handler types), the transport call of
each step and the I/O-free views of the session."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, TypedDict, TypeVar

from .._http.facade import current_directory
from .._http.host_settings import host_url
from .._httpbase.stack import StackName
from .._telemetry import Telemetry
from .._version import __version__
from ..models import ResolvedMcpServer
from ..oauth_store import McpOAuthTokenStore
from ._core import Listen, Negotiate, Notify, Request, SessionCore, SessionState
from ._notify import (
    LoggingHandler,
    NotificationCallback,
    NotificationRouter,
    ResourceUpdatedCallback,
)
from ._settings import (
    DEFAULT_CONNECT_TIMEOUT_S,
    DEFAULT_REQUEST_TIMEOUT_S,
    DEFAULT_TOOL_TIMEOUT_S,
    ClientSettings,
    OAuthOption,
    build_server,
    check_connect_timeout,
    check_protocol,
    check_timeout,
    oauth_config,
)
from .handlers import ElicitationHandler, SamplingHandler, ServerRequestRouter, ServerRequests
from .results import ServerInfo

if TYPE_CHECKING:
    from ..transport_http import McpHttpTransport
    from ..transport_http_async import AsyncMcpHttpTransport

__all__ = ["ClientBase", "TransportOptions", "send"]


class Transport(SessionState, Protocol):
    """What the client sets on its transport besides the core's ``SessionState``."""

    _listen_at_open: bool
    """Whether the handshake opens the GET stream (``ClientBase._listens``)."""


TransportT = TypeVar("TransportT", bound=Transport)
HttpClientT = TypeVar("HttpClientT")
RedirectT = TypeVar("RedirectT")


class TransportOptions(TypedDict):
    """The transport's constructor arguments that do not depend on the driver."""

    server: ResolvedMcpServer
    workspace_root: Path
    client: Any
    http_stack: StackName | None
    oauth_store: McpOAuthTokenStore | None
    oauth_redirect_handler: Any
    connect_timeout_s: float | None
    server_request_handler: ServerRequestRouter
    telemetry: bool


class ClientBase(Generic[TransportT, HttpClientT, RedirectT]):
    """The constructor and the I/O-free views of ``Client`` and ``AsyncClient``, generic in
    their transport, HTTP client and OAuth redirect handler types. A driver makes its transport
    (``_open``) and runs the core's flows (``self._core``)."""

    _awaitable_answers: ClassVar[bool]
    """Whether the driver awaits what a handler of the server's requests returns."""

    def __init__(
        self,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        token: str | None = None,
        oauth: OAuthOption = None,
        oauth_store: McpOAuthTokenStore | None = None,
        oauth_redirect_handler: RedirectT | None = None,
        connect_timeout_s: float | None = DEFAULT_CONNECT_TIMEOUT_S,
        request_timeout_s: float | None = DEFAULT_REQUEST_TIMEOUT_S,
        tool_timeout_s: float | None = DEFAULT_TOOL_TIMEOUT_S,
        on_notification: NotificationCallback | None = None,
        elicitation_handler: ElicitationHandler | None = None,
        sampling_handler: SamplingHandler | None = None,
        roots: Sequence[str | Path] | None = None,
        client_name: str = "mcpstream",
        client_version: str | None = None,
        server_id: str | None = None,
        http_client: HttpClientT | None = None,
        protocol: str | None = None,
        http_stack: StackName | None = None,
        logging_handler: LoggingHandler | None = None,
        on_resource_updated: ResourceUpdatedCallback | None = None,
        notification_handler: NotificationCallback | None = None,
        resource_updated_handler: ResourceUpdatedCallback | None = None,
        trace_context: bool = True,
    ) -> None:
        # The hooks are named ``<what>_handler`` (as FastMCP's Client names them); the
        # earlier ``on_notification`` and ``on_resource_updated`` stay as aliases.
        on_notification = _one_hook("notification_handler", notification_handler, on_notification)
        on_resource_updated = _one_hook(
            "resource_updated_handler", resource_updated_handler, on_resource_updated
        )
        request_timeout_s = check_timeout("request_timeout_s", request_timeout_s)
        server = build_server(
            host_url(url, http_client),
            headers=headers,
            token=token,
            oauth=oauth_config(oauth),
            server_id=server_id,
            call_timeout_s=request_timeout_s,
        )
        settings = ClientSettings(
            server=server,
            connect_timeout_s=check_connect_timeout(connect_timeout_s),
            request_timeout_s=request_timeout_s,
            tool_timeout_s=check_timeout("tool_timeout_s", tool_timeout_s),
            client_info={"name": client_name, "version": client_version or __version__},
            protocol=check_protocol(protocol),
            trace_context=bool(trace_context),
        )
        self._telemetry = Telemetry(url, trace_context=settings.trace_context)
        requests = ServerRequests(
            elicitation_handler=elicitation_handler, sampling_handler=sampling_handler, roots=roots
        )
        router = NotificationRouter(
            on_notification,
            logging_handler=logging_handler,
            on_resource_updated=on_resource_updated,
        )
        self._answers = ServerRequestRouter(
            requests, awaitable_answers=self._awaitable_answers, telemetry=self._telemetry
        )
        options = TransportOptions(
            server=settings.server,
            workspace_root=current_directory(),
            client=http_client,
            http_stack=http_stack,
            oauth_store=oauth_store,
            oauth_redirect_handler=oauth_redirect_handler,
            connect_timeout_s=settings.connect_timeout_s,
            server_request_handler=self._answers,
            telemetry=False,  # the client records its messages itself
        )
        # The GET stream carries the server's messages outside a call: notifications (dropped
        # when no hook takes them) and requests (a ping, or one only a handler answers). A
        # session with none of those hooks has no use for it, and a session opened for one
        # call would pay a request (and over HTTP/1.1 a connection) for nothing: the driver
        # tells its transport not to open it at the handshake (``_listen_at_open``).
        self._listens = any(
            hook is not None
            for hook in (
                on_notification,
                logging_handler,
                on_resource_updated,
                elicitation_handler,
                sampling_handler,
                roots,
            )
        )
        self._transport = self._open(options, router)
        self._transport._listen_at_open = self._listens
        self._core = SessionCore(settings, requests, router, self._transport)

    def _open(self, options: TransportOptions, router: NotificationRouter) -> TransportT:
        """The driver's transport, made with ``options`` and delivering notifications to
        ``router`` (and the driver's session lock, made here)."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._transport!r})"

    @property
    def server_info(self) -> ServerInfo | None:
        """The server's answer to ``initialize`` (None before ``connect``)."""
        return self._core.server_info

    @property
    def protocol_version(self) -> str | None:
        """The protocol version agreed on (None before ``connect``)."""
        info = self._core.server_info
        return info.protocol_version if info is not None else None

    @property
    def era(self) -> str | None:
        """``"modern"`` (2026-07-28: stateless, every request stamped) or ``"legacy"`` (the
        ``initialize`` handshake and a session), as negotiated (None before ``connect``)."""
        info = self._core.server_info
        return info.era if info is not None else None

    @property
    def transport(self) -> str | None:
        """``"streamable-http"``, or ``"http+sse"`` when the server speaks only the deprecated
        HTTP+SSE transport of 2024-11-05 (see docs/http-sse.md); None before ``connect``."""
        info = self._core.server_info
        return info.transport if info is not None else None

    @property
    def session_renewals(self) -> int:
        """How many times a new session was initialized after the server lost one."""
        return self._core.session_renewals

    @property
    def closed(self) -> bool:
        """True once ``close`` was called."""
        return self._core.closed


HookT = TypeVar("HookT")

_HOOK_ALIASES = {
    "notification_handler": "on_notification",
    "resource_updated_handler": "on_resource_updated",
}


def _one_hook(name: str, given: HookT | None, alias: HookT | None) -> HookT | None:
    """The hook given as ``name`` or under its earlier name; a ``TypeError`` for both."""
    if given is not None and alias is not None:
        raise TypeError(f"give {name} or {_HOOK_ALIASES[name]} (its earlier name), not both")
    return given if given is not None else alias


def send(
    transport: McpHttpTransport | AsyncMcpHttpTransport, step: Request | Negotiate | Notify | Listen
) -> Any:
    """The transport's call that does ``step``: its outcome, or from the async transport an
    awaitable of it (which ``AsyncClient`` awaits)."""
    timeout_s = step.timeout_s
    if isinstance(step, Request):
        return transport.request(method=step.method, params=step.params, timeout_s=timeout_s)
    if isinstance(step, Negotiate):
        return transport.negotiate(step.negotiation)
    if isinstance(step, Notify):
        return transport.send_notification(
            method=step.method, params=step.params, completion_timeout_s=timeout_s
        )
    return transport.listen_for_resources(step.resources, timeout_s=timeout_s)
