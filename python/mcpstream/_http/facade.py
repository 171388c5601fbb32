"""What ``McpHttpTransport`` and ``AsyncMcpHttpTransport`` share that does no I/O.

``HttpTransportBase`` is the base of both drivers. Its constructor wires one transport: the
HTTP stack and client (the host's, or one made here), the protocol core
(``core.protocol.McpHttpProtocol``), the auth hook and the telemetry. Its ``_*_flow`` methods
build the core's flows for the handshake, a request, a notification, a relayed message and the
closing DELETE; each driver (``sync``, ``aio``) runs them and does their I/O. ``_one_shot``
says whether a request may be POSTed before its flow starts (the one-shot path), and the
properties only read or set the core's state.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import httpx

from .._eras import Negotiated, Negotiation
from .._httpbase.stack import HttpStack, StackName, stack_named, stack_of
from .._telemetry import Message, Negotiating, Telemetry
from .._timeouts import call_timeout, check_connect_timeout
from .._urls import check_url
from ..codec import DEFAULT_MAX_EVENT_BYTES
from ..errors import McpHttpTransportError
from ..jsonrpc import (
    JsonRpcId,
    JsonRpcIdGenerator,
    JsonRpcNotification,
    JsonRpcRequest,
    JsonRpcResponse,
    build_jsonrpc_notification,
    build_jsonrpc_request,
)
from ..models import ResolvedMcpServer
from ..oauth_store import McpOAuthTokenStore
from ..server_requests import McpServerRequestContext
from . import wire
from .auth import StoredCredentials, login_hint
from .core import (
    DEFAULT_MAX_QUEUED_NOTIFICATIONS,
    INITIALIZED_NOTIFICATION,
    McpHttpProtocol,
    ReconnectPolicy,
    call_flow,
    delete_flow,
    discovery,
    resume_flow,
)
from .core.cancel import cancellable
from .core.modern import Channel, modern_request_flow, negotiate_flow
from .core.relay import Relay
from .core.sse_legacy import SseStream, host_initialize_flow, sse_call_flow
from .core.steps import Flow, HttpRequest
from .host_settings import host_max_redirects, host_url

if TYPE_CHECKING:
    from .._telemetry.otel import Operation

ClientT = TypeVar("ClientT", bound=httpx.Client | httpx.AsyncClient)
AuthT = TypeVar("AuthT", bound=StoredCredentials)
HandlerT = TypeVar("HandlerT")
RedirectT = TypeVar("RedirectT")
CallbackT = TypeVar("CallbackT")


def _resolve_stack(client: object, http_stack: str | None) -> HttpStack:
    """The stack of a transport: that of the host's ``client`` when one is given (an
    ``http_stack`` naming another is a ``ValueError``), else the one ``http_stack`` names
    (httpx by default)."""
    if client is None:
        return stack_named(http_stack)
    stack = stack_of(client)
    if http_stack is not None and stack_named(http_stack) is not stack:
        raise ValueError(f"http_stack={http_stack!r} but the client given is {stack.name}'s")
    return stack


_CWD: list[Path] = [Path()]
"""The current directory as last seen (``current_directory``)."""


def current_directory() -> Path:
    """``Path.cwd()``, one object while the directory stays the same (a session per call does
    not parse it again)."""
    current = os.getcwd()
    known = _CWD[0]
    if str(known) != current:
        known = _CWD[0] = Path(current)
    return known


def _resolved(path: Path) -> Path:
    """``path.resolve()``, but for the current directory on POSIX, which ``getcwd`` gives
    absolute and without symlinks, ``.`` or ``..`` already (a session per call walks none of
    it)."""
    if os.name == "posix" and str(path) == os.getcwd():
        return path
    return path.resolve()


class HttpTransportBase(Generic[ClientT, AuthT, HandlerT, RedirectT, CallbackT]):
    """The base of both HTTP transports: their constructor (the keywords of the reference
    transport, typed by each driver), the protocol core, the server, the workspace, the context
    for server-initiated requests and the ids of requests. A driver makes its own client and
    auth hook (``_make_client``, ``_resolve_auth``) and sets up its own state (``_init_driver``)."""

    def __init__(
        self,
        *,
        server: ResolvedMcpServer,
        workspace_root: Path,
        client: ClientT | None = None,
        server_request_context: McpServerRequestContext | None = None,
        server_request_handler: HandlerT | None = None,
        max_event_bytes: int | None = DEFAULT_MAX_EVENT_BYTES,
        max_queued_notifications: int | None = DEFAULT_MAX_QUEUED_NOTIFICATIONS,
        listen: bool = True,
        reconnect_policy: ReconnectPolicy | None = None,
        oauth_store: McpOAuthTokenStore | None = None,
        oauth_redirect_handler: RedirectT | None = None,
        connect_timeout_s: float | None = None,
        on_notification: CallbackT | None = None,
        http_stack: StackName | None = None,
        telemetry: bool = True,
    ) -> None:
        """See the transport's class."""
        self._stack: HttpStack = _resolve_stack(client, http_stack)
        if client is not None and server.url:  # a relative endpoint under its base_url
            url = host_url(server.url, client)
            if url != server.url:
                server = dataclasses.replace(server, url=url)
        self._protocol = McpHttpProtocol(
            server,
            max_event_bytes=max_event_bytes,
            reconnect_policy=reconnect_policy or ReconnectPolicy(),
            connect_timeout_s=check_connect_timeout(connect_timeout_s),
            max_queued_notifications=max_queued_notifications,
            login_hint=partial(login_hint, server),
        )
        # Raised here rather than as httpx's InvalidURL at the first request: the ValueError
        # Client raises, naming the bad part (the protocol above refused a missing URL).
        check_url(self._protocol.url)
        if client is not None:
            self._protocol.max_redirects = host_max_redirects(client)
        self.server = server
        self.workspace_root = _resolved(workspace_root)
        self._context = server_request_context or McpServerRequestContext(
            server_id=server.id, workspace_root=self.workspace_root
        )
        self._ids = JsonRpcIdGenerator()
        self._listen_enabled = listen
        self._listen_at_open = True
        """Whether the end of the handshake opens the GET stream (the stateless era's listen
        stream): ``Client`` and ``AsyncClient`` leave it closed when nothing of theirs would
        receive what it carries (``start_listening`` and a resource subscription open it)."""
        self._listen_resources: tuple[str, ...] = ()
        """The resource subscriptions of the stateless era's listen stream."""
        self._handler = server_request_handler
        self._on_notification = on_notification
        self._owns_client = client is None
        self._client: ClientT = client if client is not None else self._make_client()
        self._auth: AuthT | None = self._resolve_auth(oauth_store, oauth_redirect_handler)
        self._protocol.has_auth = self._auth is not None
        self._protocol.has_handler = server_request_handler is not None
        self._protocol.push_notifications = on_notification is not None
        self._negotiated: Negotiated | None = None
        self._relay: Relay | None = None
        self._telemetry = Telemetry(self._protocol.url, trace_context=True) if telemetry else None
        """OpenTelemetry of the messages the host sends through ``request``,
        ``send_notification`` and ``negotiate`` (None: a ``Client``'s transport, whose client
        records them itself)."""
        self._lane: tuple[tuple[object, ...], wire.Lane | None] | None = None
        """The lane of one-shot POSTs, and the session's headers it was made for."""
        self._sse: SseStream | None = None
        """The HTTP+SSE stream (2024-11-05) the transport speaks over, set by the driver when
        a flow opens one (``OpenStream``); None over Streamable HTTP."""
        self._init_driver()

    def _make_client(self) -> ClientT:
        """The HTTP client of a transport given none."""
        raise NotImplementedError

    def _resolve_auth(
        self, store: McpOAuthTokenStore | None, redirect_handler: RedirectT | None
    ) -> AuthT | None:
        """The auth hook for the server (an OAuth session), or None."""
        raise NotImplementedError

    def _init_driver(self) -> None:
        """Set up the driver's own state."""

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(server_id={self.server.id!r}, "
            f"url={self._protocol.redacted_url!r}, closed={self.closed})"
        )

    # -- state ---------------------------------------------------------------------------------

    @property
    def http_stack(self) -> str:
        """The line of httpx the transport runs on: ``"httpx"`` or ``"httpx2"`` (that of the
        host's client, or the one ``http_stack`` asked for)."""
        return self._stack.name

    @property
    def closed(self) -> bool:
        """True once ``close`` was called."""
        return self._protocol.closed

    @property
    def session_negotiated(self) -> bool:
        """True once the server assigned a session id (in its answer to ``initialize``)."""
        return self._protocol.session_negotiated

    @property
    def session_id(self) -> str | None:
        """The session id the server assigned in its answer to ``initialize`` (None before, and
        in the 2026-07-28 era, which has no sessions)."""
        return self._protocol.session_id

    @property
    def negotiated_protocol_version(self) -> str | None:
        """The protocol version set by ``set_negotiated_protocol_version``."""
        return self._protocol.protocol_version

    def set_negotiated_protocol_version(self, protocol_version: str | None) -> None:
        """Send ``MCP-Protocol-Version: protocol_version`` from now on (blank or None: none)."""
        self._protocol.set_protocol_version(protocol_version)

    def stderr_tail(self) -> str:
        """An HTTP server has no stderr: always ``""`` (kept for hosts that also run stdio)."""
        return ""

    def drain_notifications(self) -> tuple[JsonRpcNotification, ...]:
        """Take every notification received so far, oldest first (always empty when the
        transport was given ``on_notification``: they went to it)."""
        return self._protocol.drain_notifications()

    @property
    def dropped_notifications(self) -> int:
        """How many notifications the full queue dropped (oldest first) so far; see
        ``max_queued_notifications``."""
        return self._protocol.dropped_notifications

    def relay_rules(self, *, error_bodies_answer: bool = True) -> Relay:
        """The rules for carrying the messages of a host's own MCP session over this transport
        (``mcpstream.sdk``; see ``relay``), one set per transport, made on the first call
        (``error_bodies_answer``: a non-2xx answer carrying a JSON-RPC error is the request's
        response, in any era)."""
        if self._relay is None:
            self._relay = Relay(self._protocol, error_bodies_answer=error_bodies_answer)
        return self._relay

    # -- flows ---------------------------------------------------------------------------------

    @property
    def negotiated(self) -> Negotiated | None:
        """What ``negotiate`` found (the era, the version, the server's answer), or None."""
        return self._negotiated

    @property
    def modern(self) -> bool:
        """True when the transport speaks the stateless era (2026-07-28): every request is
        stamped, and there is no session, GET stream or DELETE."""
        return self._protocol.modern is not None

    @property
    def http_sse(self) -> bool:
        """True while the transport speaks the 2024-11-05 HTTP+SSE transport (the server
        refused the ``initialize`` POST with 400, 404 or 405 and offered its event stream, or
        ``protocol="http+sse"`` pinned it): every message is POSTed to the stream's endpoint
        and answered on the stream."""
        return self._active_sse() is not None

    def _active_sse(self) -> SseStream | None:
        """The HTTP+SSE stream once it named its endpoint (until the session is reset)."""
        stream = self._sse
        return stream if stream is not None and self._protocol.sse_endpoint else None

    def _end_sse(self, stream: object) -> bool:
        """After its flow was stopped: end ``stream`` if it is an HTTP+SSE stream still
        running (True: its waiting calls are to be woken, to fail with the closed error)."""
        if not isinstance(stream, SseStream) or stream.over:
            return False
        stream.end(self._protocol.closed_error())
        return True

    def _traced(self, step: Message | Negotiating) -> Operation | None:
        """The recording of a message the host sends (``_telemetry``), or None."""
        telemetry = self._telemetry
        if telemetry is None:
            return None
        negotiated = self._negotiated
        version = negotiated.version if negotiated is not None else None
        return telemetry.begin(step, version or self._protocol.protocol_version, self)

    def _end_telemetry(self) -> None:
        """The session's duration, recorded as the transport closes."""
        if self._telemetry is not None:
            self._telemetry.end_session()

    def _negotiate_flow(self, negotiation: Negotiation, now: float) -> Flow[Negotiated]:
        # The process's cache of discovery answers, for a transport whose requests carry
        # nothing but its configured headers (``discovery``: no host client, no auth hook).
        identity = (
            discovery.identity(self.server.headers)
            if self._owns_client and self._auth is None
            else None
        )
        negotiated = yield from negotiate_flow(
            self._protocol,
            negotiation,
            next_id=self._ids.next,
            timeout_s=negotiation.timeout_s or self.server.call_timeout_s,
            now=now,
            discovery_identity=identity,
        )
        self._negotiated = negotiated
        return negotiated

    def _one_shot(self, method: str, params: Any | None) -> tuple[JsonRpcId, bytes] | None:
        """The id and body of a request that may take the one-shot path (the driver sends its
        POST and takes a whole plain answer itself: ``complete_answer``; anything else goes on
        in ``_request_flow`` given them), or None: the request takes the flow from its start.
        Only a Streamable HTTP request of the handshake era with no auth hook qualifies, whose
        flow's first step is that POST."""
        if not self._one_shot_allowed(method):
            return None
        request_id = self._ids.next()
        payload = build_jsonrpc_request(request_id=request_id, method=method, params=params)
        return request_id, self._protocol.encode(payload)

    def _one_shot_notification(self, method: str, params: Any | None) -> bytes | None:
        """The body of a notification that may take the one-shot path, as a request does
        (``_one_shot``; an answer accepting it with nothing to read ends it:
        ``core.ACCEPTED``; anything else goes on in ``_notification_flow`` given the body), or
        None: the notification takes the flow from its start."""
        if not self._one_shot_allowed(method):
            return None
        return self._protocol.encode(build_jsonrpc_notification(method=method, params=params))

    def _one_shot_allowed(self, method: str) -> bool:
        """Whether a message of ``method`` may take the one-shot path (see ``_one_shot``)."""
        protocol = self._protocol
        return not (
            protocol.modern is not None
            or method == "initialize"
            or self._auth is not None
            or protocol.closed
            or protocol.lost_session is not None  # the flow refuses it (``expired_before_sending``)
            or protocol.sse_endpoint is not None
            or self._sse is not None
        )

    def _one_shot_request(self, body: bytes, timeout_s: float) -> HttpRequest:
        """The POST of a one-shot request, as its flow's first step sends it."""
        protocol = self._protocol
        return protocol.request("POST", protocol.post_headers(), remaining_s=timeout_s, body=body)

    def _one_shot_lane(self, body: bytes, timeout_s: float) -> wire.Lane | None:
        """The ``wire.Lane`` of the one-shot POSTs (``body`` and ``timeout_s``: this one's),
        made again when the session's headers change; None when the client sends them
        (``wire.lane``)."""
        state = self._protocol.post_state
        known = self._lane
        if known is not None and known[0] == state:
            return known[1]
        made = wire.lane(self._client, self._one_shot_request(body, timeout_s))
        self._lane = (state, made)
        return made

    def _request_flow(
        self,
        method: str,
        params: Any | None,
        timeout_s: float,
        now: float,
        one_shot: tuple[JsonRpcId, bytes] | None = None,
    ) -> Flow[JsonRpcResponse]:
        """A request's flow (``one_shot``: the id and body of ``_one_shot``, whose POST the
        driver sent already: its outcome answers the flow's first ``Send``)."""
        state = self._protocol.modern
        if state is not None:
            auth = self._auth
            channel = Channel(self._protocol, state, self._ids.next, timeout_s)
            cache_key = (auth.stored_authorization_header() or "") if auth else ""
            try:
                return (
                    yield from modern_request_flow(
                        channel, method, params, now=now, cache_key=cache_key
                    )
                )
            except McpHttpTransportError:
                if state.discovery_key is not None:  # (the next session discovers again)
                    discovery.DISCOVERED.drop(state.discovery_key)
                raise
        request_id: JsonRpcId
        if one_shot is None:
            request_id = self._ids.next()
            payload = build_jsonrpc_request(request_id=request_id, method=method, params=params)
            body = self._protocol.encode(payload)
        else:
            request_id, body = one_shot
        sse = self._active_sse()
        if sse is None and method == "initialize":
            # A host's own handshake (the reference transport's API): the HTTP+SSE fallback.
            return (
                yield from host_initialize_flow(
                    self._protocol,
                    body,
                    request_id=request_id,
                    timeout_s=timeout_s,
                    now=now,
                    call_timeout_s=self.server.call_timeout_s,
                )
            )
        # The one stream of the HTTP+SSE transport carries the answer, else the POST's own.
        protocol = self._protocol
        call = partial(sse_call_flow, sse) if sse is not None else partial(call_flow, protocol)
        response = yield from call(
            body,
            method=method,
            expected_id=request_id,
            timeout_s=timeout_s,
            now=now,
            cancel_at_server=cancellable(method, modern=False, params=params),
        )
        assert response is not None
        return response

    def _resubscribe(self, resources: Sequence[str]) -> bool:
        """Take the resource subscriptions of the listen stream; True when the driver is to
        reopen it with them (the stateless era's stream, unless ``listen=False``)."""
        self._listen_resources = tuple(resources)
        return not self.closed and self._listen_enabled and self.modern

    def _notification_timeout(self, completion_timeout_s: float | None) -> float:
        """The time a notification may take to be accepted."""
        return call_timeout(completion_timeout_s, self.server.call_timeout_s)

    def _opens_listener(self, method: str) -> bool:
        """Whether a notification of ``method``, accepted, opens the GET stream."""
        return self._listen_enabled and self._listen_at_open and method == INITIALIZED_NOTIFICATION

    def _notification_flow(
        self,
        method: str,
        params: Any | None,
        completion_timeout_s: float | None,
        now: float,
        one_shot: bytes | None = None,
    ) -> Flow[bool]:
        """Send a notification; return True when it should open the GET stream. ``one_shot``:
        the body of ``_one_shot_notification``, whose POST the driver sent already (its
        outcome answers the flow's first ``Send``)."""
        if self._protocol.modern is not None and method == INITIALIZED_NOTIFICATION:
            return False  # the stateless era has no handshake to end
        timeout_s = self._notification_timeout(completion_timeout_s)
        body = one_shot
        if body is None:
            body = self._protocol.encode(build_jsonrpc_notification(method=method, params=params))
        sse = self._active_sse()
        if sse is not None:  # the stream carries everything: no GET stream to open
            yield from sse_call_flow(
                sse, body, method=method, expected_id=None, timeout_s=timeout_s, now=now
            )
            return False
        yield from call_flow(
            self._protocol, body, method=method, expected_id=None, timeout_s=timeout_s, now=now
        )
        return self._opens_listener(method)

    def _relay_flow(
        self,
        body: bytes,
        *,
        method: str,
        expected_id: Any,
        timeout_s: float,
        headers: dict[str, str] | None,
        checkpoint: Any,
        resume_from: str | None,
        now: float,
    ) -> Flow[JsonRpcResponse | None]:
        sse = self._active_sse()
        if sse is not None:
            return (
                yield from sse_call_flow(
                    sse,
                    body,
                    method=method,
                    expected_id=expected_id,
                    timeout_s=timeout_s,
                    now=now,
                )
            )
        if resume_from is not None:
            return (
                yield from resume_flow(
                    self._protocol,
                    last_event_id=resume_from,
                    method=method,
                    expected_id=expected_id,
                    timeout_s=timeout_s,
                    now=now,
                    checkpoint=checkpoint,
                )
            )
        return (
            yield from call_flow(
                self._protocol,
                body,
                method=method,
                expected_id=expected_id,
                timeout_s=timeout_s,
                now=now,
                headers=headers,
                checkpoint=checkpoint,
            )
        )

    def _delete_flow(self) -> Flow[None]:
        auth = self._auth
        return delete_flow(
            self._protocol,
            authorization=auth.stored_authorization_header() if auth is not None else None,
            call_timeout_s=self.server.call_timeout_s,
        )

    def _handler_arguments(self, request: JsonRpcRequest) -> dict[str, Any]:
        """The keywords of the server request handler's ``handle_request`` for ``request``."""
        return {
            "context": self._context,
            "method": request.method,
            "request_id": request.id,
            "params": request.params,
        }
