"""Per-transport protocol state and rules of the Streamable HTTP transport; no I/O.

Each transport has one ``McpHttpProtocol``, and the flows (``flows``) consult it at every
step. It builds the requests (their headers, the session id, the timeouts left of an
operation), captures the session the server gives and forgets it on a 404, maps a failure or
an HTTP status to the transport's error with a message a user can act on (credentials
scrubbed), and queues the server's notifications or marks them for the host's callback. While
the transport speaks the stateless era, ``ModernState`` holds what it knows of it
(``modern``); the HTTP+SSE transport of 2024-11-05 sets ``sse_endpoint``.
"""

from __future__ import annotations

import logging
import threading
import weakref
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any
from urllib.parse import urljoin, urlsplit

from ..._httpbase.codings import ACCEPT_ENCODING
from ..._text import sanitize
from ..._version import __version__
from ...errors import (
    CodecError,
    McpHttpTransportAuthRequiredError,
    McpHttpTransportError,
    McpHttpTransportProtocolError,
    McpHttpTransportRemoteError,
    McpHttpTransportResponseTooLargeError,
    McpHttpTransportSessionExpiredError,
    McpHttpTransportTimeoutError,
)
from ...jsonrpc import (
    JsonRpcNotification,
    JsonRpcRequest,
    build_jsonrpc_error_response,
    build_jsonrpc_result_response,
    encode_jsonrpc_message,
)
from ...models import ResolvedMcpServer
from ...redaction import redact_url, scrub_secrets
from ...server_requests import (
    JSONRPC_INTERNAL_ERROR,
    JSONRPC_METHOD_NOT_FOUND,
    McpServerRequestHandlerError,
    McpUnsupportedServerRequestError,
)
from . import era
from .advice import body_excerpt, html_title, likely_endpoint, tls_mismatch
from .steps import Failed, FailureKind, Head, HttpRequest

__all__ = [
    "ACCEPT_ENCODING",
    "ACCEPT_HEADER",
    "AUTH_CHALLENGE_STATUSES",
    "DEFAULT_MAX_QUEUED_NOTIFICATIONS",
    "DELETE_TIMEOUT_S",
    "ERROR_BODY_READ_LIMIT",
    "EVENT_ID_MAX_CHARS",
    "INITIALIZED_NOTIFICATION",
    "MAX_REDIRECTS",
    "MESSAGE_CHAR_LIMIT",
    "QUIET_WINDOW_S",
    "USER_AGENT",
    "BodyKind",
    "ForwardedAnswer",
    "McpHttpProtocol",
    "ModernState",
    "ReconnectPolicy",
    "Resume",
    "ServerRequestReply",
    "carried_event_id",
    "failed_while_streaming",
    "mark_delivered",
    "mark_streaming",
    "normalized_content_type",
    "resumable_event_id",
    "same_origin",
    "stream_ended",
]

logger = logging.getLogger("mcpstream.transport")

ACCEPT_HEADER = "application/json, text/event-stream"
USER_AGENT = f"mcpstream/{__version__}"
_REMEMBERED_CREDENTIALS = 8
"""How many of the hook's latest ``Authorization`` values and credentials ``scrub`` knows (a
refresh or a step-up replaces the token; the old one may still be echoed for a while)."""
QUIET_WINDOW_S = 0.1
"""After the response of an open-ended SSE stream, the stream is read on until it has been quiet
(no bytes, no event half-received) for this long, so that trailing notifications are not lost."""
ERROR_BODY_READ_LIMIT = 16 * 1024
"""At most this many bytes of an error response are read, for the snippet in the message."""
DELETE_TIMEOUT_S = 2.0
"""The deadline of the DELETE that ends the session (at most the call timeout), end to end."""
DEFAULT_MAX_QUEUED_NOTIFICATIONS = 10_000
"""The default bound of the queue of ``drain_notifications`` (``max_queued_notifications``)."""
MESSAGE_CHAR_LIMIT = 2000
"""Error messages are cut to this many characters (server text in them is cut shorter)."""
EVENT_ID_MAX_CHARS = 1024
"""The longest SSE event id kept for ``Last-Event-ID`` (see ``resumable_event_id``)."""
INITIALIZED_NOTIFICATION = "notifications/initialized"
_SESSION_ID_CHARS = frozenset(chr(code) for code in range(0x21, 0x7F))

MAX_REDIRECTS = 5
"""At most this many redirects are followed for one request (see ``redirect_target``), unless
the host's client says otherwise (``McpHttpProtocol.max_redirects``)."""
_DEFAULT_PORTS = {"http": 80, "https": 443}

AUTH_CHALLENGE_STATUSES = frozenset({401, 403})
"""The statuses a transport hands to its auth hook before mapping them to errors."""
_EVENT_ID_CHARS = frozenset(chr(code) for code in range(0x20, 0x7F))


def resumable_event_id(event_id: str | None) -> str | None:
    """``event_id`` if it can be sent back as ``Last-Event-ID``, else None: an id with
    characters outside printable ASCII (which no HTTP header can carry as they are) or longer
    than ``EVENT_ID_MAX_CHARS`` is ignored, as if the event had none; a stream of such ids
    cannot be resumed. The empty id is nothing to resume from either."""
    if not event_id or len(event_id) > EVENT_ID_MAX_CHARS:
        return None
    if event_id.isascii() and event_id.isprintable():
        return event_id
    return None


def carried_event_id(current: str | None, received: str | None) -> str | None:
    """The id a stream resumes from once its decoder's last event id is ``received``: that id
    when it can be sent back, ``current`` when none came or it cannot be (it is ignored); None
    after an empty ``id`` field, with which the server reset it (the SSE rule: no
    ``Last-Event-ID`` is sent then)."""
    if received == "":
        return None
    return resumable_event_id(received) or current


_STREAM_FAILURES: weakref.WeakKeyDictionary[BaseException, bool] = weakref.WeakKeyDictionary()
"""The errors marked by ``mark_streaming``, each with its ``ended`` flag."""


def mark_streaming(error: McpHttpTransportError, *, ended: bool = False) -> McpHttpTransportError:
    """Mark ``error`` as the end of a request whose answer had begun as an event stream (its
    head had arrived): the stream broke off, ran out of time or could not be resumed;
    ``ended``: it ended cleanly before the response. A host relaying its own session tells
    such failures apart from those before any answer (the SDK's transport resolves the first
    kind with a JSON-RPC error and raises the second)."""
    _STREAM_FAILURES[error] = _STREAM_FAILURES.get(error, False) or ended
    return error


def failed_while_streaming(error: BaseException) -> bool:
    """Whether ``error`` was marked by ``mark_streaming``."""
    return error in _STREAM_FAILURES


def stream_ended(error: BaseException) -> bool:
    """Whether ``error`` was marked by ``mark_streaming`` as a stream that ended cleanly
    before the response."""
    return _STREAM_FAILURES.get(error, False)


def mark_delivered(error: McpHttpTransportError) -> McpHttpTransportError:
    """Mark a session-expired ``error`` as raised after the call reached the server.

    A 404 on the session normally answers the POST of a call: the server looked the session up
    before doing anything, so the call did not run and may be sent again in a new session. A 404
    that comes later (to the GET resuming the call's event stream, or to the POST answering a
    server request the call's stream carried) means the server took the call and may have run
    it: ``request_delivered`` is set, and a client must not send a ``tools/call`` again.
    """
    if isinstance(error, McpHttpTransportSessionExpiredError):
        error.request_delivered = True
    return error


@dataclass(frozen=True, slots=True)
class ReconnectPolicy:
    """How an SSE stream that ended early is resumed (SEP-1699).

    The server's ``retry`` field, when it sent one, is the delay before reconnecting, clamped to
    ``min_delay_s`` .. ``max_retry_s`` (``retry: 0`` does not reconnect in a loop, a huge one
    does not overflow); otherwise the delay starts at ``initial_delay_s`` and is multiplied by
    ``multiplier`` per attempt, up to ``max_delay_s``. At most ``max_attempts`` reconnections in
    a row may bring nothing new (no new event id) before the stream is given up.
    """

    max_attempts: int = 5
    initial_delay_s: float = 0.5
    max_delay_s: float = 8.0
    multiplier: float = 2.0
    min_delay_s: float = 0.1
    max_retry_s: float = 60.0

    def delay_s(self, *, attempt: int, retry_ms: int | None) -> float:
        """The delay before reconnection number ``attempt`` (1 for the first)."""
        if retry_ms is not None:
            # Clamped as an int first: a retry of a thousand digits is no float.
            delay = min(max(retry_ms, 0), int(self.max_retry_s * 1000)) / 1000.0
        else:
            exponent = min(max(attempt - 1, 0), 64)
            delay = min(self.initial_delay_s * self.multiplier**exponent, self.max_delay_s)
        return float(max(delay, self.min_delay_s))


@dataclass(frozen=True, slots=True)
class Resume:
    """Reconnect with GET and ``Last-Event-ID: last_event_id`` after ``delay_s`` seconds."""

    delay_s: float
    last_event_id: str


class BodyKind(Enum):
    """What to do with the answer to a POST, from its status and content type."""

    CHALLENGE = "challenge"
    """A 401 or 403 while an auth hook is set: the driver reads a snippet of the body and asks
    the hook whether to send the POST again; if not, it raises ``status_error``."""
    ERROR = "error"
    """A non-2xx status: read a snippet of the body and raise ``status_error``."""
    NONE = "none"
    """No body to read: a 202 or 204 answer to a notification."""
    UNTYPED = "untyped"
    """No content type: acceptable for a notification if the body is empty."""
    JSON = "json"
    SSE = "sse"
    ACCEPTED = "accepted"
    """A 2xx answer to a POST of the HTTP+SSE transport: an acknowledgement (the SDK's is a
    202 with the text ``Accepted`` and no content type); a snippet is read and dropped, the
    message's answer comes on the stream."""


@dataclass(frozen=True, slots=True)
class ServerRequestReply:
    """The answer to a server-initiated request: ``body`` (encoded JSON-RPC) to POST back, and
    ``failure``, the error that a call which was waiting when the request came raises once the
    answer is sent (None when the handler answered with a result)."""

    body: bytes
    failure: McpHttpTransportError | None


@dataclass(frozen=True, slots=True)
class ForwardedAnswer:
    """What a handler returns when the answer to a server request was decided elsewhere (the
    SDK's session, under ``mcpstream.sdk``): ``payload`` is its JSON-RPC ``result`` or
    ``error`` member (``{"result": ...}`` or ``{"error": {...}}``), POSTed as it is with the
    request's id. Either is a complete answer: the call that was waiting goes on (an error the
    session chose to send is not a failure of the call). ``posted``: the host POSTed the answer
    itself (as the SDK's writer does, whose failure is the host's to handle), so nothing is
    POSTed here."""

    payload: Mapping[str, Any]
    posted: bool = False


_PLAIN_TYPES = frozenset({"application/json", "text/event-stream"})
"""The media types of MCP's answers, as servers most often send them (no parameters)."""


def normalized_content_type(value: str | None) -> str:
    """The media type of a Content-Type header value, lower case, without parameters."""
    if not value:
        return ""
    if value in _PLAIN_TYPES:  # already in its normal form
        return value
    return value.split(";", 1)[0].strip().lower()


@dataclass(slots=True)
class ModernState:
    """What a modern transport knows: the version it speaks, what it says of itself in every
    request's ``_meta``, the ``x-mcp-header`` paths of the tools it listed, the server's
    ``server/discover`` answer and the list cache."""

    version: str
    capabilities: dict[str, Any]
    client_info: dict[str, Any]
    max_rounds: int = 8
    tool_paths: dict[str, era.HeaderPaths] = field(default_factory=dict)
    discovered: dict[str, Any] | None = None
    cache: dict[tuple[str, str, str], tuple[float, Any]] = field(default_factory=dict)
    discovery_key: tuple[str, str, str] | None = None
    """The ``discovery.DISCOVERED`` entry the ``server/discover`` answer came from or went
    to (None: not cached), dropped when a request of the session fails."""

    def stamp(self, method: str, params: Any) -> tuple[dict[str, Any], dict[str, str]]:
        """The params of a request with ``_meta``, and the headers mirroring them."""
        stamped = era.stamp_meta(
            params,
            version=self.version,
            capabilities=self.capabilities,
            client_info=self.client_info,
        )
        headers = era.request_headers(
            method, stamped, version=self.version, tool_paths=self.tool_paths
        )
        return stamped, headers


class McpHttpProtocol:
    """Per-transport protocol state and rules: headers, session, errors, notifications."""

    def __init__(
        self,
        server: ResolvedMcpServer,
        *,
        max_event_bytes: int | None,
        reconnect_policy: ReconnectPolicy,
        connect_timeout_s: float | None = None,
        max_queued_notifications: int | None = DEFAULT_MAX_QUEUED_NOTIFICATIONS,
        login_hint: Callable[[], str] | None = None,
    ) -> None:
        if server.transport != "http":
            raise McpHttpTransportError(
                f"MCP server '{server.id}' uses the '{server.transport}' transport, not 'http'."
            )
        if not server.url:
            raise McpHttpTransportError(f"MCP server '{server.id}' has no HTTP URL configured.")
        self.server = server
        self.url: str = server.url
        self._user_agent: str | None = USER_AGENT
        self._base_headers = self._headers_of_every_request()
        self.redacted_url = redact_url(server.url)
        self._login_hint = login_hint
        """The command a 401 without credentials tells the user to run (the driver knows how
        OAuth names a login; None: ``mcpstream auth login URL``)."""
        self.max_event_bytes = max_event_bytes
        self._max_json_bytes: int | None = None
        self._own_json_budget = False
        self.reconnect_policy = reconnect_policy
        if connect_timeout_s is not None and not connect_timeout_s > 0:
            raise ValueError("connect_timeout_s must be greater than 0")
        self.connect_timeout_s = connect_timeout_s
        self.max_redirects = MAX_REDIRECTS
        """How many redirects one request follows: the host client's ``max_redirects``, as the
        SDK's transport counts them, when the transport runs on one (set by the facade)."""
        self.session_id: str | None = None
        self.lost_session: str | None = None
        """The session the server answered 404 for (``session_lost``), until a new one opens."""
        self.protocol_version: str | None = None
        self._credentials: tuple[str, ...] = ()
        """The latest ``Authorization`` values of the hook, and their credentials (scrubbed)."""
        self.has_auth = False
        """Set by a driver with an auth hook: requests ask it for credentials, and 401/403
        answers go to it first."""
        self.has_handler = False
        """Set by a driver whose host gave a server request handler (else requests of the
        server are refused with -32601 without asking anyone)."""
        self.push_notifications = False
        """Set by a driver whose host gave a notification callback: notifications are
        delivered to it (``Deliver``) instead of the queue of ``drain_notifications``."""
        self.closed = False
        """Set by the driver's ``close``: a call waiting to resume gives up."""
        self.error_bodies_answer = False
        """Set for a relayed session (``relay``): a non-2xx answer carrying a JSON-RPC error is
        the request's response in any era."""
        self.keeps_lost_sessions = False
        """Set for a relayed session (``relay``): the SDK's rule, not ``session_lost``'s. The
        SDK's transport keeps the session id after a 404 (the server may answer the next
        request), and its session never initializes twice: its host opens a new transport."""
        self.modern: ModernState | None = None
        """Set while the transport speaks (or probes) the stateless era: requests are stamped
        (``modern``), and a 4xx carrying a JSON-RPC error is the request's response."""
        self.sse_endpoint: str | None = None
        """Set while the transport speaks the HTTP+SSE transport (2024-11-05, ``sse_legacy``):
        the URL every message is POSTed to (the stream's ``endpoint`` event, checked to be on
        the server's origin), whose answer is only an acknowledgement."""
        if max_queued_notifications is not None and not max_queued_notifications > 0:
            raise ValueError("max_queued_notifications must be greater than 0, or None")
        self._notifications: deque[JsonRpcNotification] = deque(maxlen=max_queued_notifications)
        self._notifications_lock = threading.Lock()
        self.dropped_notifications = 0
        """Queued notifications dropped (the oldest first) because the queue was full."""

    @property
    def max_json_bytes(self) -> int | None:
        """The budget of one ``application/json`` body: ``max_event_bytes`` unless a driver
        set one of its own (a relayed SDK session caps SSE events only, as the SDK does)."""
        return self._max_json_bytes if self._own_json_budget else self.max_event_bytes

    @max_json_bytes.setter
    def max_json_bytes(self, value: int | None) -> None:
        self._max_json_bytes, self._own_json_budget = value, True

    # -- messages and errors -------------------------------------------------------------------

    def error(
        self, message: str, kind: type[McpHttpTransportError] = McpHttpTransportError
    ) -> McpHttpTransportError:
        """An error of class ``kind`` whose message names the server (id, redacted URL).

        The one place server text reaches a message: control characters are escaped and the
        message is cut to ``MESSAGE_CHAR_LIMIT`` (callers cut long server values shorter, see
        ``quote``)."""
        return kind(self._message(message))

    def _message(self, message: str) -> str:
        text = f"MCP server '{self.server.id}' at {self.redacted_url}: {message}"
        return sanitize(text, MESSAGE_CHAR_LIMIT)

    @staticmethod
    def quote(value: object, limit: int = 200) -> str:
        """``repr(value)`` as an excerpt of at most about ``limit`` characters, for a message
        (a 4 MiB id becomes its first characters, marked as cut)."""
        if isinstance(value, str) and len(value) > limit:
            value = value[: limit + 1]  # the excess still shows as cut
        try:
            text = repr(value)
        except ValueError:  # an int past ``sys.get_int_max_str_digits``
            text = f"<{type(value).__name__} too long to show>"
        return sanitize(text, limit)

    def too_large_error(self, what: str, limit: int) -> McpHttpTransportResponseTooLargeError:
        """The error for a body or event past the byte budget ``limit``."""
        message = self._message(f"{what} exceeds the limit of {limit} bytes (max_event_bytes)")
        return McpHttpTransportResponseTooLargeError(message, limit)

    def scrub(self, text: str) -> str:
        """``text`` with the server's full URL replaced by its redacted form and every echo of a
        static header value (an API key, a token: httpx quotes an invalid one whole) or of the
        credentials the authorization hook gave lately (an OAuth access token) redacted."""
        if self.url in text:
            text = text.replace(self.url, self.redacted_url)
        endpoint = self.sse_endpoint
        if endpoint and endpoint in text:  # its query names the server's session
            text = text.replace(endpoint, redact_url(endpoint))
        return scrub_secrets(text, (*self.server.headers.values(), *self._credentials))

    def _remember_credentials(self, authorization: str) -> None:
        """Keep the hook's ``Authorization`` value (and its credentials without the scheme)
        among the last few, for :meth:`scrub`: a server may echo the request's headers."""
        if authorization in self._credentials:
            return
        token = authorization.partition(" ")[2].strip()
        # One tuple replaced whole: the reader threads read it while a request sets it.
        self._credentials = (*self._credentials, authorization, token)[-_REMEMBERED_CREDENTIALS:]

    def timeout_error(self, method: str, timeout_s: float) -> McpHttpTransportError:
        """The error for a call that ran out of time."""
        return self.error(
            f"'{method}' did not complete within {timeout_s:.3f}s",
            McpHttpTransportTimeoutError,
        )

    def request(
        self,
        method: str,
        headers: Mapping[str, str],
        *,
        remaining_s: float,
        body: bytes | None = None,
    ) -> HttpRequest:
        """An HTTP request to the server of a call with ``remaining_s`` left: every phase is
        bounded by what is left of the call, and connecting also by the connect timeout, when
        the transport has a shorter one."""
        endpoint = self.sse_endpoint
        return HttpRequest(
            method,
            endpoint if endpoint is not None and method == "POST" else self.url,
            headers,
            timeout_s=remaining_s,
            connect_s=self.connect_within(remaining_s),
            body=body,
        )

    def connect_within(self, remaining_s: float) -> float | None:
        """The ``connect_s`` of a request of a call with ``remaining_s`` left: the connect
        timeout when the transport has one shorter, else None (``remaining_s`` bounds it)."""
        connect_s = self.connect_timeout_s
        return connect_s if connect_s is not None and connect_s < remaining_s else None

    @property
    def post_state(self) -> tuple[object, ...]:
        """What the headers of a POST without credentials (``post_headers()``) are made of, in
        the handshake era: equal values, equal headers."""
        return (self._base_headers, self.session_id, self.protocol_version)

    def redirect_target(self, request: HttpRequest, head: Head) -> str | None:
        """Where to send ``request`` again after its answer ``head``, or None (not a redirect
        to follow). As the official SDK does: a redirect is followed only when it keeps the
        method (307 or 308; any redirect status for a GET) and stays on the endpoint's origin
        (the same scheme, host and port, or http to https on the same host with the default
        ports), so that neither credentials nor the session id can be sent elsewhere. Any
        other redirect is the answer (a refusal)."""
        status = head.status_code
        if status not in (307, 308) and not (request.method == "GET" and status in (301, 302, 303)):
            return None
        location = head.headers.get("location", "").strip()
        if not location:
            return None
        target = urljoin(request.url, location)
        return target if _within_origin(self.url, target) else None

    def map_failure(
        self, failed: Failed, *, method: str, timeout_s: float, during: str = "request"
    ) -> McpHttpTransportError:
        """Turn a failure of the HTTP stack (or of a reader) into a transport error."""
        exc = failed.error
        if isinstance(exc, McpHttpTransportError):
            return exc
        connect_s = self.connect_timeout_s
        connect_bound = connect_s is not None and connect_s < timeout_s
        if failed.kind is FailureKind.CONNECT_TIMEOUT and connect_bound:
            return self.error(
                f"could not connect for '{method}' within the connect timeout of {connect_s:.3f}s",
                McpHttpTransportTimeoutError,
            )
        if failed.is_timeout:
            return self.timeout_error(method, timeout_s)
        if isinstance(exc, CodecError):
            return self.error(
                f"the event stream of '{method}' could not be decoded: {exc}",
                McpHttpTransportProtocolError,
            )
        detail = self.scrub(str(exc)) or type(exc).__name__
        # The first request of a session: a TLS port closes every plain HTTP one unanswered.
        first = method in ("initialize", "server/discover")
        tls = tls_mismatch(self.url, detail, first_contact=first)
        if tls is not None:
            return self.error(f"the HTTP {during} for '{method}' failed: {tls}")
        return self.error(f"the HTTP {during} for '{method}' failed: {detail}")

    def closed_error(self) -> McpHttpTransportError:
        """The error for any work asked of a closed transport."""
        return self.error("the transport is closed")

    @property
    def modern_errors(self) -> bool:
        """True when a 4xx with a JSON-RPC error body answers a request (the stateless era,
        and a relayed session in any era, as the SDK's transport reads such bodies)."""
        return self.modern is not None or self.error_bodies_answer

    # -- session state -------------------------------------------------------------------------

    @property
    def session_negotiated(self) -> bool:
        """True once the server assigned a session id."""
        return bool(self.session_id)

    def set_protocol_version(self, protocol_version: str | None) -> None:
        """Record the protocol version the host negotiated (sent as MCP-Protocol-Version)."""
        cleaned = str(protocol_version or "").strip()
        self.protocol_version = cleaned or None

    def reset_session(self) -> None:
        """Forget the session id and the negotiated protocol version (a new session is about to
        be opened: nothing is lost any more)."""
        # Readers take each value on its own: no lock makes the pair change at once.
        self.session_id = None
        self.protocol_version = None
        self.sse_endpoint = None
        self.lost_session = None

    def session_lost(self, session_id: str | None) -> None:
        """The rule of a lost session, whichever request found it (the handshake, its
        notification, a call, the GET stream, the DELETE): the server answered 404 to a request
        that carried ``session_id``, so that session is forgotten at once. No later request
        carries its id (an ``initialize`` with a dead id is refused with 404 for ever), and a
        request sent before a new session is initialized fails as expired without being sent
        (``expired_before_sending``), as the server would refuse it. A 404 for a session that
        is not the current one (a renewal got ahead of it) changes nothing."""
        if self.keeps_lost_sessions or session_id is None or session_id != self.session_id:
            return
        self.session_id = None
        self.protocol_version = None
        self.lost_session = session_id

    def expired_before_sending(self, method: str) -> McpHttpTransportSessionExpiredError | None:
        """The error of a request of ``method`` made while the session is lost (None when it
        is not, or for the ``initialize`` that opens a new one); ``request_delivered`` stays
        False: nothing is sent."""
        if self.lost_session is None or method == "initialize":
            return None
        error = self.error(
            f"the session expired: the server answered 404 for it before '{method}', which was "
            "not sent (initialize a new session)",
            McpHttpTransportSessionExpiredError,
        )
        error.status_code = 404
        assert isinstance(error, McpHttpTransportSessionExpiredError)
        return error

    def capture_session(self, *, method: str, headers: Mapping[str, str]) -> None:
        """Take the session id from the answer to ``initialize`` (a new session: a lost one is
        history, even when the server assigns no id)."""
        if method != "initialize":
            return
        self.lost_session = None
        session_id = (headers.get("mcp-session-id") or "").strip()
        if not session_id:
            return
        if not set(session_id) <= _SESSION_ID_CHARS:
            raise self.error(
                "the server assigned a session id with characters outside visible ASCII",
                McpHttpTransportProtocolError,
            )
        self.session_id = session_id

    # -- headers -------------------------------------------------------------------------------

    @property
    def user_agent(self) -> str | None:
        """mcpstream's ``User-Agent``, sent unless the server's headers set one (under any
        spelling of the name: the user's wins); None: none of mcpstream's, the HTTP client's
        own default headers supply it (a relayed session sends as the SDK's transport does)."""
        return self._user_agent

    @user_agent.setter
    def user_agent(self, value: str | None) -> None:
        self._user_agent = value
        self._base_headers = self._headers_of_every_request()

    def _headers_of_every_request(self) -> dict[str, str]:
        # Made once per protocol (and again if ``user_agent`` is set): the server's headers are
        # a read-only copy (``ResolvedMcpServer``) and ``self.server`` is never replaced.
        headers = dict(self.server.headers)
        names = {name.lower() for name in headers}
        if self._user_agent is not None and "user-agent" not in names:
            headers["User-Agent"] = self._user_agent
        # mcpstream decodes the codings it asks for, and only those: one Accept-Encoding, its own.
        if "accept-encoding" in names:
            for name in [name for name in headers if name.lower() == "accept-encoding"]:
                del headers[name]
        headers["Accept-Encoding"] = ACCEPT_ENCODING
        return headers

    def _common_headers(self, *, authorization: str | None) -> dict[str, str]:
        headers = dict(self._base_headers)
        if authorization is not None:
            self._remember_credentials(authorization)
            # The hook's credentials replace a static Authorization header, however it is spelt.
            for name in [name for name in headers if name.lower() == "authorization"]:
                del headers[name]
            headers["Authorization"] = authorization
        session_id = self.session_id
        if session_id and self.modern is None:
            headers["MCP-Session-Id"] = session_id
        protocol_version = self.protocol_version
        if protocol_version:
            headers["MCP-Protocol-Version"] = protocol_version
        return headers

    def post_headers(self, *, authorization: str | None = None) -> dict[str, str]:
        """Headers of a POST carrying a JSON-RPC message (``authorization``: from the hook)."""
        headers = self._common_headers(authorization=authorization)
        headers["Accept"] = ACCEPT_HEADER
        headers["Content-Type"] = "application/json"
        return headers

    def get_headers(
        self, *, last_event_id: str | None, authorization: str | None = None
    ) -> dict[str, str]:
        """Headers of a GET opening (or resuming) an SSE stream."""
        headers = self._common_headers(authorization=authorization)
        headers["Accept"] = "text/event-stream"
        if last_event_id is not None:
            headers["Last-Event-ID"] = last_event_id
        return headers

    def delete_headers(self, *, authorization: str | None = None) -> dict[str, str]:
        """Headers of the DELETE that ends the session."""
        return self._common_headers(authorization=authorization)

    def encode(self, payload: dict[str, Any]) -> bytes:
        """A JSON-RPC payload as the UTF-8 body of a POST."""
        return encode_jsonrpc_message(payload).encode("utf-8")

    # -- answers -------------------------------------------------------------------------------

    def status_error(
        self, *, status_code: int, body: bytes, method: str, session_id: str | None
    ) -> McpHttpTransportError | None:
        """The error for a non-2xx answer to ``method``, sent with ``session_id`` (None for
        2xx); its ``status_code`` and ``body_excerpt`` are set. A 404 for the session forgets
        it (``session_lost``)."""
        if 200 <= status_code < 300:
            return None
        error = self._status_error(
            status_code=status_code, body=body, method=method, had_session_id=bool(session_id)
        )
        if isinstance(error, McpHttpTransportSessionExpiredError):
            self.session_lost(session_id)
        error.status_code = status_code
        error.body_excerpt = body_excerpt(self.scrub(body.decode("utf-8", errors="replace")))
        return error

    def _status_error(
        self, *, status_code: int, body: bytes, method: str, had_session_id: bool
    ) -> McpHttpTransportError:
        text = self.scrub(body.decode("utf-8", errors="replace"))
        snippet = body_excerpt(text)
        suffix = f": {snippet}" if snippet else ""
        if status_code == 401:
            return self.error(self._auth_hint(suffix), McpHttpTransportAuthRequiredError)
        if status_code == 403:
            why = (
                "the credentials sent do not allow it"
                if self._sends_credentials
                else "it may want credentials"
            )
            return self.error(
                f"'{method}' was refused with HTTP 403 (forbidden: {why}){suffix}",
                McpHttpTransportProtocolError,
            )
        gateway = {
            502: "bad gateway: a proxy in front of the server got no valid answer from it",
            503: "service unavailable: the server, or a proxy in front of it, cannot serve now",
            504: "gateway timeout: a proxy in front of the server got no answer from it in time",
        }.get(status_code)
        if gateway is not None:
            # (before the HTML page's test: a proxy's own error page is no sign of a wrong URL)
            return self.error(
                f"server or gateway error HTTP {status_code} ({gateway}) for '{method}'{suffix}",
                McpHttpTransportRemoteError,
            )
        if html_title(text) is not None and not had_session_id:
            # A web server's error page where MCP was expected: say so rather than the page.
            return self.error(
                f"not an MCP endpoint: '{method}' was answered with HTTP {status_code} and "
                f"{snippet} (is this the URL of an MCP server?)",
                McpHttpTransportRemoteError
                if status_code >= 500
                else McpHttpTransportProtocolError,
            )
        if status_code == 404 and (had_session_id or self.sse_endpoint is not None):
            return self.error(
                f"the session expired: the server answered 404 to '{method}'",
                McpHttpTransportSessionExpiredError,
            )
        if method == "initialize" and not had_session_id and status_code in (400, 404, 405):
            if status_code == 404:
                hint = likely_endpoint(self.url)
                check = f"; check the URL's path (MCP servers usually serve at {hint})"
                message = f"no MCP endpoint at this path: HTTP 404 to the initialize POST{suffix}"
                message += check if hint else ""
            else:
                message = (
                    f"the server refused the initialize POST with HTTP {status_code} (as a "
                    f"server of the older HTTP+SSE transport does){suffix}"
                )
            return self.error(
                message,
                McpHttpTransportProtocolError,
            )
        if status_code >= 500:
            return self.error(
                f"server error HTTP {status_code} for '{method}'{suffix}",
                McpHttpTransportRemoteError,
            )
        return self.error(
            f"'{method}' was refused with HTTP {status_code}{suffix}",
            McpHttpTransportProtocolError,
        )

    @property
    def _sends_credentials(self) -> bool:
        """True when the host's server entry carries an ``Authorization`` header (a token)."""
        return any(name.lower() == "authorization" for name in self.server.headers)

    def _auth_hint(self, suffix: str) -> str:
        """The message of a 401: credentials refused when some were sent (the host gave an
        ``Authorization`` header or token), else what to send and the login command given to
        ``__init__``."""
        if self._sends_credentials:
            return (
                "the server refused the credentials sent (HTTP 401): the token is wrong, "
                f"expired or not for this server{suffix}"
            )
        if self._login_hint is None:
            login = f"mcpstream auth login {self.redacted_url}"
        else:
            login = self._login_hint()
        return (
            "the server requires authentication (HTTP 401) and no credentials were sent: a "
            f"bearer token, or an OAuth login ('{login}'){suffix}"
        )

    def classify_post_answer(
        self,
        *,
        method: str,
        expects_response: bool,
        status_code: int,
        headers: Mapping[str, str],
        challengeable: bool,
    ) -> BodyKind:
        """What to do with the answer to the POST of a call of ``method`` (captures the session
        id). ``expects_response``: the call is a request, not a notification or a response;
        ``challengeable``: an auth hook is set, so 401 and 403 go to it first."""
        if challengeable and status_code in AUTH_CHALLENGE_STATUSES:
            return BodyKind.CHALLENGE
        if not 200 <= status_code < 300:
            return BodyKind.ERROR
        if self.sse_endpoint is not None:
            return BodyKind.ACCEPTED
        if method == "initialize":  # (the one answer that sets it: no call for the others)
            self.capture_session(method=method, headers=headers)
        return self.body_kind(
            method=method,
            status_code=status_code,
            content_type=normalized_content_type(headers.get("content-type")),
            expects_response=expects_response,
        )

    def body_kind(
        self, *, method: str, status_code: int, content_type: str, expects_response: bool
    ) -> BodyKind:
        """How to read the body of a 2xx answer to a POST."""
        if not content_type:
            if not expects_response and status_code in (202, 204):
                return BodyKind.NONE
            if not expects_response:
                return BodyKind.UNTYPED
            error = self.error(
                f"the answer to '{method}' has no content type", McpHttpTransportProtocolError
            )
            error.status_code = status_code
            raise error
        if content_type == "application/json":
            return BodyKind.JSON
        if content_type == "text/event-stream":
            return BodyKind.SSE
        quoted = self.quote(content_type)
        if content_type == "text/html":
            # A web page where MCP was expected (a site's front page, a login page): the URL,
            # not the server, is what to check.
            error = self.error(
                f"not an MCP endpoint: '{method}' was answered with HTTP {status_code} and "
                f"an HTML page, the unsupported content type {quoted} (is this the URL of an "
                "MCP server?)",
                McpHttpTransportProtocolError,
            )
            error.status_code = status_code
            raise error
        raise self.error(
            f"the answer to '{method}' has the unsupported content type {quoted}",
            McpHttpTransportProtocolError,
        )

    def untyped_body_error(self, method: str) -> McpHttpTransportError:
        """The error for a non-empty body without a content type."""
        return self.error(
            f"the answer to '{method}' has a body but no content type",
            McpHttpTransportProtocolError,
        )

    # -- notifications -------------------------------------------------------------------------

    def route_notifications(
        self, notifications: list[JsonRpcNotification]
    ) -> tuple[JsonRpcNotification, ...]:
        """Take the notifications a stream just carried (emptying ``notifications``): queued
        for ``drain_notifications``, or, when they are pushed, returned to be delivered."""
        if not notifications:
            return ()
        taken = tuple(notifications)
        notifications.clear()
        if self.push_notifications:
            return taken
        queue = self._notifications
        with self._notifications_lock:
            before = len(queue)
            queue.extend(taken)  # a full queue drops its oldest (``maxlen``)
            dropped = before + len(taken) - len(queue)
            first_drop = dropped > 0 and self.dropped_notifications == 0
            self.dropped_notifications += dropped
        if first_drop:
            logger.warning(
                "the notification queue of server %r is full (%d): dropping the oldest ones "
                "(drain_notifications, or give the transport on_notification)",
                self.server.id,
                queue.maxlen,
            )
        return ()

    def drain_notifications(self) -> tuple[JsonRpcNotification, ...]:
        """Take every queued notification, oldest first."""
        with self._notifications_lock:
            drained = tuple(self._notifications)
            self._notifications.clear()
        return drained

    # -- server-initiated requests -------------------------------------------------------------

    def reply_to_server_request(
        self,
        request: JsonRpcRequest,
        *,
        during: str,
        outcome: Any = None,
        error: BaseException | None = None,
        handled: bool = True,
    ) -> ServerRequestReply:
        """The answer to ``request``, from what the handler returned (``outcome``) or raised
        (``error``); ``handled=False`` when no handler is set."""
        request_id = request.id
        if isinstance(outcome, ForwardedAnswer) and error is None:
            return self._forwarded(request_id, outcome)
        if not handled or isinstance(error, McpUnsupportedServerRequestError):
            reason = "no handler for server requests is set" if not handled else "unsupported"
            failure = self.error(
                f"the server sent the request '{request.method}' during '{during}', which "
                f"this client refused ({reason})",
                McpHttpTransportProtocolError,
            )
            return self._reply(
                build_jsonrpc_error_response(
                    request_id=request_id,
                    code=JSONRPC_METHOD_NOT_FOUND,
                    message=f"Method not found: {request.method}",
                ),
                failure,
            )
        if error is None:
            try:
                body = self.encode(
                    build_jsonrpc_result_response(request_id=request_id, result=outcome)
                )
            except (TypeError, ValueError) as exc:
                error = exc
            else:
                return ServerRequestReply(body, None)
        if isinstance(error, McpServerRequestHandlerError):
            payload = build_jsonrpc_error_response(
                request_id=request_id, code=error.code, message=error.message
            )
        else:
            payload = build_jsonrpc_error_response(
                request_id=request_id,
                code=JSONRPC_INTERNAL_ERROR,
                message="Internal error in the MCP client while handling the request.",
            )
        failure = self.error(
            f"the handler failed on the server request '{request.method}' during '{during}'",
            McpHttpTransportProtocolError,
        )
        failure.__cause__ = error
        return self._reply(payload, failure)

    def _forwarded(self, request_id: Any, answer: ForwardedAnswer) -> ServerRequestReply:
        payload: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id}
        if "error" in answer.payload:
            payload["error"] = answer.payload["error"]
        else:
            payload["result"] = answer.payload.get("result")
        try:
            return ServerRequestReply(self.encode(payload), None)
        except (TypeError, ValueError):
            return self._reply(
                build_jsonrpc_error_response(
                    request_id=request_id,
                    code=JSONRPC_INTERNAL_ERROR,
                    message="Internal error in the MCP client while handling the request.",
                ),
                self.error("the answer to a server request could not be encoded"),
            )

    def _reply(self, payload: dict[str, Any], failure: McpHttpTransportError) -> ServerRequestReply:
        try:
            body = self.encode(payload)
        except (TypeError, ValueError):
            # A handler's error message or code that JSON cannot carry: send a plain one.
            body = self.encode(
                build_jsonrpc_error_response(
                    request_id=payload["id"],
                    code=JSONRPC_INTERNAL_ERROR,
                    message="Internal error in the MCP client while handling the request.",
                )
            )
        return ServerRequestReply(body, failure)

    def reply_post_failed(
        self, request_method: str, exc: McpHttpTransportError
    ) -> McpHttpTransportError:
        """The error for an answer to a server request that could not be POSTed. The server sent
        the request while handling a message of ours, so a session-expired error is marked as
        coming after delivery (see ``mark_delivered``)."""
        failure = self.error(
            f"could not POST the answer to the server request '{request_method}'", type(exc)
        )
        failure.__cause__ = exc
        return mark_delivered(failure)


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    try:
        port = parts.port or _DEFAULT_PORTS.get(scheme)
    except ValueError:  # a port out of range
        port = None
    return scheme, (parts.hostname or "").lower(), port


def same_origin(url: str, target: str) -> bool:
    """True when ``target`` has exactly the scheme, host and port of ``url`` (no upgrade)."""
    theirs = _origin(target)
    return bool(theirs[1]) and theirs[2] is not None and _origin(url) == theirs


def _within_origin(endpoint: str, target: str) -> bool:
    """True when ``target`` is on the origin of ``endpoint`` (or its https form)."""
    ours, theirs = _origin(endpoint), _origin(target)
    if not theirs[1] or theirs[2] is None:
        return False
    if ours == theirs:
        return True
    return ours == ("http", theirs[1], 80) and theirs[0] == "https" and theirs[2] == 443
