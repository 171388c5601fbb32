"""Every exception mcpstream raises, in one tree under one root.

    Exception
    └── McpStreamError           every documented failure below derives from it: an
                                 ``except McpStreamError`` catches them all

The codec (``mcpstream.codec``, both backends) raises only these (each also a ``ValueError``):

    McpStreamError, ValueError
    └── CodecError                    bad bytes or text reached the hot path
        ├── InvalidUtf8Error          body bytes are not UTF-8 (``.offset``: where, in bytes)
        ├── SseEventTooLargeError     one SSE event grew past ``max_event_bytes`` (``.limit``)
        └── JsonRpcProtocolError      text is not valid JSON, or not a valid JSON-RPC 2.0 message

The transports (``mcpstream.transport_http``, sync and async) raise only these, and for a server
with ``oauth`` settings the OAuth errors below, as the OAuth session raised them:

    McpStreamError
    └── McpTransportError                        any failure to exchange messages with a server
        ├── McpTimeoutError                      a call did not complete within its time budget
        ├── McpProtocolError                     the server broke the MCP / JSON-RPC / SSE rules
        ├── McpRemoteError                       the server reported its own failure (HTTP 5xx)
        ├── McpAuthError                         the server wants credentials it did not get
        └── McpHttpTransportError                the Streamable HTTP transport (network errors too)
            ├── McpHttpTransportTimeoutError         also an McpTimeoutError
            ├── McpHttpTransportProtocolError        also an McpProtocolError
            │   └── McpHttpTransportResponseTooLargeError  a body or SSE event past its byte
            │                                              budget (``.limit``), after decoding
            ├── McpHttpTransportRemoteError          also an McpRemoteError
            ├── McpHttpTransportAuthRequiredError    also an McpAuthError (HTTP 401)
            └── McpHttpTransportSessionExpiredError  HTTP 404 for a request that carried a session
                                                     (``.request_delivered``: the call may have run)

OAuth (``mcpstream.oauth``, ``mcpstream.oauth_store``; defined here, and importable from
``mcpstream.oauth`` too) raises these, all under ``McpAuthError`` and carrying ``server_id`` and
``authorization_server_url``:

    McpAuthError
    └── McpOAuthError
        ├── McpOAuthAuthRequiredError            no usable credentials: log in (names the command)
        │   └── McpOAuthReLoginRequired          stored credentials unusable or unrefreshable
        ├── McpOAuthDiscoveryError               resource / authorization server metadata missing,
        │   │                                    naming another resource or issuer, a URL the
        │   │                                    policy refuses, over its byte budget or deadline
        │   └── McpOAuthPkceNotSupportedError    the metadata does not list S256
        ├── McpOAuthRegistrationError            no pre-registration, CIMD or DCR could be used,
        │                                        or the client id is another issuer's
        ├── McpOAuthConfigurationError           settings that cannot work (no key, bad method)
        ├── McpOAuthAuthorizationError           callback error, state mismatch, no code, timeout,
        │   │                                    an authorization URL the browser must not get
        │   └── McpOAuthIssuerMismatchError      the response's iss is not the issuer (RFC 9207)
        ├── McpOAuthTokenExchangeError           the token endpoint refused (``.oauth_error``),
        │   │                                    or answered with a token that is not ASCII
        │   └── McpOAuthAssertionRejectedError   a JWT bearer grant or token exchange refused
        │                                        (``.reason``: expired, wrong_audience...)
        ├── McpOAuthInsufficientScopeError       403 insufficient_scope beyond the step-up limit
        ├── McpOAuthDPoPError                    the server asked for a DPoP nonce twice
        └── McpOAuthTokenStoreError              the store file is unreadable or corrupt, not a
                                                 regular file of ours, in an o+w dir (``.path``)

The clients (``mcpstream.Client``, ``mcpstream.AsyncClient``) raise the transport errors above
(an unusable answer to ``initialize``, such as a protocol version mcpstream does not speak, is an
``McpProtocolError``), the OAuth errors above, and, for a request the server answered with a
JSON-RPC error, this one:

    McpStreamError
    └── McpError                                 a JSON-RPC error (``code``, ``message``, ``data``)

and, for the skills extension (``list_skills``, ``get_skill``, ``read_skill``), these:

    McpStreamError
    └── McpSkillError                            a skill that cannot be found or used
        ├── McpSkillsNotSupportedError           the server does not declare the extension
        └── McpSkillIntegrityError               a skill file is not what its entry lists
                                                 (``.check``: size, digest, frontmatter,
                                                 unlisted; the content is not handed out)

and, for tasks (``call_tool(..., as_task=True)``, the task handles, ``list_tasks``; both the
2025-11-25 tasks and the 2026-07-28 ``io.modelcontextprotocol/tasks`` extension), these
(a task that failed with a JSON-RPC error raises that error, as ``McpError``):

    McpStreamError
    └── McpTaskError                             a task that cannot be used (``.task_id``)
        ├── McpTasksNotSupportedError            the server or its era lacks the operation
        ├── McpTaskCancelledError                the task ended cancelled
        ├── McpTaskTimeoutError                  not done within the time given (also an
        │                                        ``McpTimeoutError``; the task goes on)
        └── McpTaskProtocolError                 a malformed task object (also an
                                                 ``McpProtocolError``)

``mcpstream.sdk.install()`` refuses an official MCP SDK it was not built for (a release outside
the ``sdk`` extra's range, or a ``streamable_http_client`` whose parameters mcpstream's does not
take) with this one, before it changes anything:

    McpStreamError
    └── McpSdkUnsupportedError                   the installed ``mcp`` (``.sdk_version``) cannot
                                                 be run over mcpstream (``.reason``)

The reference transport's classes keep their names and bases (``McpTransportError`` and its
tree); the root is their base's base. Exceptions a host's own server-request handler raises
(``McpServerRequestHandlerError``...) are the host's signals, not failures, and stay outside.

Each transport error has a class-level ``error_code`` (a stable string for hosts to branch on and
log) and ``retryable`` (whether sending the same call again may succeed as it is).

The native backend imports the codec classes from here, so both backends raise the very same
types. Messages never quote the offending payload or a credential: codec errors name the rule and
the position only, and transport errors name the server id and its URL without userinfo, query or
fragment, so no token or user data can leak through an error.
"""

from __future__ import annotations

from typing import Any, ClassVar

__all__ = [
    "CodecError",
    "InvalidUtf8Error",
    "JsonRpcProtocolError",
    "McpAuthError",
    "McpError",
    "McpHttpTransportAuthRequiredError",
    "McpHttpTransportError",
    "McpHttpTransportProtocolError",
    "McpHttpTransportRemoteError",
    "McpHttpTransportResponseTooLargeError",
    "McpHttpTransportSessionExpiredError",
    "McpHttpTransportTimeoutError",
    "McpOAuthAssertionRejectedError",
    "McpOAuthAuthRequiredError",
    "McpOAuthAuthorizationError",
    "McpOAuthConfigurationError",
    "McpOAuthDPoPError",
    "McpOAuthDiscoveryError",
    "McpOAuthError",
    "McpOAuthInsufficientScopeError",
    "McpOAuthIssuerMismatchError",
    "McpOAuthPkceNotSupportedError",
    "McpOAuthReLoginRequired",
    "McpOAuthRegistrationError",
    "McpOAuthTokenExchangeError",
    "McpOAuthTokenStoreError",
    "McpProtocolError",
    "McpRemoteError",
    "McpSdkUnsupportedError",
    "McpSkillError",
    "McpSkillIntegrityError",
    "McpSkillsNotSupportedError",
    "McpStreamError",
    "McpTaskCancelledError",
    "McpTaskError",
    "McpTaskProtocolError",
    "McpTaskTimeoutError",
    "McpTasksNotSupportedError",
    "McpTimeoutError",
    "McpTransportError",
    "SseEventTooLargeError",
]


class McpStreamError(Exception):
    """The root of every error mcpstream raises on purpose: ``except McpStreamError`` catches
    any documented failure of the codec, the transports, the clients, OAuth, skills and tasks
    (a ``ValueError`` or ``TypeError`` for a bad argument is not one of them)."""


class CodecError(McpStreamError, ValueError):
    """Base class of the errors raised by the hot path (UTF-8, SSE and JSON-RPC decoding)."""


class InvalidUtf8Error(CodecError):
    """The body is not valid UTF-8.

    ``offset`` is the byte offset in the whole stream (counted from its first byte, a BOM
    included) of the first byte that cannot be decoded, or of the incomplete sequence left at
    the end of the stream.
    """

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.offset = offset


class SseEventTooLargeError(CodecError):
    """One SSE event grew past the decoder's ``max_event_bytes`` limit (``.limit``)."""

    def __init__(self, message: str, limit: int) -> None:
        super().__init__(message)
        self.limit = limit


class JsonRpcProtocolError(CodecError):
    """Text that is not valid JSON, or JSON that is not a valid JSON-RPC 2.0 message or batch."""


class McpTransportError(McpStreamError):
    """Base class of every failure to exchange MCP messages with a server."""

    error_code: ClassVar[str] = "mcp_transport_error"
    retryable: ClassVar[bool] = False

    def __init_subclass__(
        cls, *, error_code: str | None = None, retryable: bool | None = None, **kwargs: Any
    ) -> None:
        """Let a subclass set ``error_code`` and ``retryable`` in its class statement
        (``class X(McpTransportError, error_code="x", retryable=True)``); one that sets neither
        inherits them."""
        super().__init_subclass__(**kwargs)
        if error_code is not None:
            cls.error_code = error_code
        if retryable is not None:
            cls.retryable = retryable


class McpTimeoutError(McpTransportError, error_code="mcp_timeout", retryable=True):
    """A call did not complete within its time budget; the server may still be working on it."""


class McpProtocolError(McpTransportError, error_code="mcp_protocol_error", retryable=False):
    """The server's answer broke the MCP, JSON-RPC, SSE or HTTP rules the transport relies on."""


class McpRemoteError(McpTransportError, error_code="mcp_remote_error", retryable=True):
    """The server reported a failure of its own (an HTTP 5xx status)."""


class McpAuthError(McpTransportError, error_code="mcp_auth_error", retryable=False):
    """The server refused the call for lack of valid credentials."""


class McpHttpTransportError(McpTransportError):
    """A failure of the Streamable HTTP transport: a network error, or a misuse such as a call on
    a closed transport. The subclasses below narrow it down. ``status_code``: the HTTP status
    of the answer the error reports, None when it reports none (a network error, a timeout)."""

    status_code: int | None = None
    body_excerpt: str | None = None
    """The start of the answer's body when the error reports an HTTP status: a web page named
    by its title, other text cut to 200 characters (secrets the request sent cut out)."""


class McpHttpTransportTimeoutError(McpHttpTransportError, McpTimeoutError):
    """An HTTP call (or the event stream answering it) ran past its timeout."""


class McpHttpTransportProtocolError(
    McpHttpTransportError,
    McpProtocolError,
    error_code="mcp_http_transport_protocol_error",
    retryable=False,
):
    """The HTTP server answered with something the Streamable HTTP transport cannot accept."""


class McpHttpTransportResponseTooLargeError(
    McpHttpTransportProtocolError, error_code="mcp_http_transport_response_too_large"
):
    """The server sent more than the transport accepts for one message: a JSON body or one SSE
    event past ``max_event_bytes`` once decompressed, or a ``Content-Length`` announcing that
    much (refused before reading). ``limit`` is the budget, in bytes."""

    def __init__(self, message: str, limit: int) -> None:
        super().__init__(message)
        self.limit = limit


class McpHttpTransportRemoteError(
    McpHttpTransportError,
    McpRemoteError,
    error_code="mcp_http_transport_remote_error",
    retryable=False,
):
    """The HTTP server answered with a 5xx status."""


class McpHttpTransportAuthRequiredError(
    McpHttpTransportError,
    McpAuthError,
    error_code="mcp_http_transport_auth_required",
    retryable=False,
):
    """The HTTP server answered 401: it requires authentication."""


class McpHttpTransportSessionExpiredError(
    McpHttpTransportError, error_code="mcp_http_transport_session_expired", retryable=False
):
    """The HTTP server answered 404 to a call that carried a session id: the session is gone and
    the host has to initialize a new one.

    ``request_delivered`` tells whether the call may have run. False (the usual case): the 404
    answered the call's own POST, so the server looked the session up and did nothing; the call
    may be sent again in a new session. True: the 404 came after the server had taken the call
    (to the GET that resumes the call's interrupted event stream, or to the POST of the answer to
    a server request made during the call), so it may have run; a call with side effects, such
    as ``tools/call``, must not be sent again on its own.
    """

    request_delivered: bool = False


class McpError(McpStreamError):
    """The server answered a request with a JSON-RPC error.

    ``code`` is the JSON-RPC error code (``-32601`` method not found, ``-32602`` invalid params,
    ``-32603`` internal error, or the server's own), ``message`` the server's message, ``data``
    the error's optional ``data`` member (``None`` when absent), and ``method`` the request that
    failed. Not a transport error: the exchange itself worked, and sending the same request again
    gets the same answer.
    """

    METHOD_NOT_FOUND: ClassVar[int] = -32601
    INVALID_PARAMS: ClassVar[int] = -32602
    INTERNAL_ERROR: ClassVar[int] = -32603

    def __init__(self, code: int, message: str, data: Any = None, *, method: str = "") -> None:
        super().__init__(code, message, data)
        self.code = code
        self.message = message
        self.data = data
        self.method = method

    def __str__(self) -> str:
        where = f"'{self.method}' failed: " if self.method else ""
        return f"{where}{self.message} (JSON-RPC error {self.code})"

    def __repr__(self) -> str:
        return f"McpError(code={self.code!r}, message={self.message!r}, method={self.method!r})"


class McpSdkUnsupportedError(McpStreamError):
    """``mcpstream.sdk.install()`` refused the installed official MCP SDK: its release
    (``sdk_version``) or its ``streamable_http_client``'s signature is not one mcpstream's
    transport stands in for (``reason`` says which parameter or range). Nothing was rebound."""

    def __init__(self, message: str, *, sdk_version: str, reason: str) -> None:
        super().__init__(message)
        self.sdk_version = sdk_version
        self.reason = reason


class McpSkillError(McpStreamError):
    """A skill of the skills extension (SEP-2640) that cannot be found or used: no skill of
    that name or URI in the listing, a name that several skills share, a path outside the
    skill. The subclasses below narrow it down."""


class McpSkillsNotSupportedError(McpSkillError):
    """The server does not declare the skills extension (``io.modelcontextprotocol/skills``
    under ``capabilities.extensions``), so the client sends it no ``skills/`` request."""


class McpSkillIntegrityError(McpSkillError):
    """A skill file read from the server is not what the skill's entry lists; its content is
    not handed to the host (a mismatch may be corruption, tampering, or an entry gone stale:
    list the skills again to recover from staleness).

    ``skill`` is the skill's URI (that of its ``SKILL.md``), ``uri`` the file's, ``check`` the
    check that failed: ``"size"`` (the byte length differs from the entry's ``size``),
    ``"digest"`` (the SHA-256 differs from the entry's ``digest``), ``"frontmatter"`` (the
    ``SKILL.md`` YAML frontmatter is missing, malformed, or differs from the entry's; ``field``
    names the first field that differs, when one does), ``"unlisted"`` (the file is not in
    the entry's ``resources``: it was not even read), or ``"limits"`` (the entry lists more
    files or bytes than a skill may have, ``MAX_SKILL_FILES`` and ``MAX_SKILL_BYTES`` of
    ``mcpstream.client.skills``: no file of it is read). The message names them and never
    quotes the content.
    """

    def __init__(
        self, message: str, *, skill: str, uri: str, check: str, field: str | None = None
    ) -> None:
        super().__init__(message)
        self.skill = skill
        self.uri = uri
        self.check = check
        self.field = field


# -- tasks -----------------------------------------------------------------------------------------


class McpTaskError(McpStreamError):
    """A task (2025-11-25 tasks, or the 2026-07-28 ``io.modelcontextprotocol/tasks``
    extension) that cannot be used; ``task_id`` names it (None when there is no task yet).
    The subclasses below narrow it down. Messages never quote the server's payload."""

    def __init__(self, message: str, *, task_id: str | None = None) -> None:
        super().__init__(message)
        self.task_id = task_id


class McpTasksNotSupportedError(McpTaskError):
    """The operation does not exist for this server: at 2025-11-25 the server does not
    declare it under ``capabilities.tasks`` (``list``, ``cancel``); at 2026-07-28 the
    extension has no ``tasks/list``. Nothing was sent."""


class McpTaskCancelledError(McpTaskError):
    """The task ended in the ``cancelled`` status: it has no result."""


class McpTaskTimeoutError(McpTaskError, McpTimeoutError, error_code="mcp_task_timeout"):
    """The task was not done within the time given; it goes on at the server, and its handle
    may be waited on again (``result``) or cancelled."""

    def __init__(self, message: str, *, task_id: str | None = None) -> None:
        McpTaskError.__init__(self, message, task_id=task_id)


class McpTaskProtocolError(McpTaskError, McpProtocolError, error_code="mcp_task_protocol_error"):
    """A task object the server sent breaks the rules of tasks (no or a bad ``taskId``, an
    unknown ``status``, a field of the wrong type, a completed task without its result, the
    answer about another task than the one asked): the client does not use it."""

    def __init__(self, message: str, *, task_id: str | None = None) -> None:
        McpTaskError.__init__(self, message, task_id=task_id)


# -- OAuth (raised by ``mcpstream.oauth`` and ``mcpstream.oauth_store``) ---------------------------


class McpOAuthError(McpAuthError):
    """Base class of every OAuth failure.

    ``server_id`` names the MCP server the credentials are for and ``authorization_server_url``
    the authorization server involved, when known; both are safe to show and log.
    """

    error_code: ClassVar[str] = "mcp_oauth_error"
    retryable: ClassVar[bool] = False

    def __init__(
        self,
        message: str,
        *,
        server_id: str | None = None,
        authorization_server_url: str | None = None,
    ) -> None:
        super().__init__(message)
        self.server_id = server_id
        self.authorization_server_url = authorization_server_url


class McpOAuthAuthRequiredError(McpOAuthError):
    """No usable credentials: the user has to log in (the message names the command)."""

    error_code: ClassVar[str] = "mcp_oauth_auth_required"


class McpOAuthReLoginRequired(McpOAuthAuthRequiredError):
    """Stored credentials exist but can no longer be used or refreshed: log in again."""

    error_code: ClassVar[str] = "mcp_oauth_relogin_required"


class McpOAuthDiscoveryError(McpOAuthError):
    """Protected resource or authorization server metadata could not be found or is invalid."""

    error_code: ClassVar[str] = "mcp_oauth_discovery_error"


class McpOAuthPkceNotSupportedError(McpOAuthDiscoveryError):
    """The authorization server's metadata does not list ``S256`` in
    ``code_challenge_methods_supported``, so the MCP specification forbids going on."""

    error_code: ClassVar[str] = "mcp_oauth_pkce_not_supported"


class McpOAuthRegistrationError(McpOAuthError):
    """No client registration could be had: none was configured, the server offers neither a
    Client ID Metadata Document nor dynamic registration, or the registration request failed."""

    error_code: ClassVar[str] = "mcp_oauth_registration_error"


class McpOAuthConfigurationError(McpOAuthError):
    """The OAuth settings cannot work as given (a missing private key, an unknown method...)."""

    error_code: ClassVar[str] = "mcp_oauth_configuration_error"


class McpOAuthAuthorizationError(McpOAuthError):
    """The authorization step failed: the server answered with an error, the ``state`` did not
    match, no code came back, or the user did not finish in time. ``oauth_error`` holds the
    server's OAuth error code when it sent one."""

    error_code: ClassVar[str] = "mcp_oauth_authorization_error"

    def __init__(
        self, message: str, *, oauth_error: str | None = None, **where: str | None
    ) -> None:
        super().__init__(message, **where)  # server_id, authorization_server_url
        self.oauth_error = oauth_error


class McpOAuthIssuerMismatchError(McpOAuthAuthorizationError):
    """The authorization response failed the RFC 9207 check: its ``iss`` is not, as an exact
    string, the issuer the request was sent to, or it has none although the server's metadata
    advertises ``authorization_response_iss_parameter_supported``. The code is not redeemed and
    any ``error`` the response carries is not believed (a mix-up attack may have forged it)."""

    error_code: ClassVar[str] = "mcp_oauth_issuer_mismatch"


class McpOAuthTokenExchangeError(McpOAuthError):
    """The token endpoint refused a request or answered with something unusable.

    ``oauth_error`` is the OAuth error code (``invalid_grant``...), ``error_description`` the
    server's description (control characters escaped, every secret the request sent cut out)
    and ``status_code`` the HTTP status, when there was an answer.
    """

    error_code: ClassVar[str] = "mcp_oauth_token_exchange_error"

    def __init__(
        self, message: str, *, status_code: int | None = None, **details: str | None
    ) -> None:
        oauth_error = details.pop("oauth_error", None)
        error_description = details.pop("error_description", None)
        super().__init__(message, **details)  # server_id, authorization_server_url
        self.oauth_error = oauth_error
        self.error_description = error_description
        self.status_code = status_code


class McpOAuthAssertionRejectedError(McpOAuthTokenExchangeError):
    """A token request made with an assertion the host supplied was refused: the JWT bearer
    grant (RFC 7523; workload identity, or the ID-JAG of enterprise-managed authorization) at
    the authorization server, or the token exchange (RFC 8693) of the ID token at the
    identity provider. mcpstream does not retry it and does not fall back to another grant.

    ``reason`` says why, from the server's ``error`` and ``error_description``:
    ``"expired"``, ``"wrong_audience"``, ``"malformed"`` (bad signature or claims, not a JWT),
    ``"invalid_grant"`` (refused for another reason), or the OAuth error code itself for the
    other refusals (``"invalid_scope"``, ``"unauthorized_client"``, ``"invalid_client"``,
    ``"invalid_request"``...; ``"refused"`` when the answer names none). ``grant`` is
    ``"jwt-bearer"`` or ``"token-exchange"``. The assertion is never part of the message.
    """

    error_code: ClassVar[str] = "mcp_oauth_assertion_rejected"

    def __init__(
        self,
        message: str,
        *,
        reason: str,
        grant: str = "jwt-bearer",
        status_code: int | None = None,
        **details: str | None,
    ) -> None:
        super().__init__(message, status_code=status_code, **details)
        self.reason = reason
        self.grant = grant


class McpOAuthInsufficientScopeError(McpOAuthError):
    """The server answered 403 ``insufficient_scope`` and stepping up was not possible or did not
    help within the retry limit. ``required_scopes`` holds the scopes the server asked for."""

    error_code: ClassVar[str] = "mcp_oauth_insufficient_scope"

    def __init__(
        self, message: str, *, required_scopes: tuple[str, ...] = (), **where: str | None
    ) -> None:
        super().__init__(message, **where)  # server_id, authorization_server_url
        self.required_scopes = required_scopes


class McpOAuthTokenStoreError(McpOAuthError):
    """The token store file could not be read or written; ``path`` names the file."""

    error_code: ClassVar[str] = "mcp_oauth_token_store_error"

    def __init__(self, message: str, *, path: str | None = None, **where: str | None) -> None:
        super().__init__(message, **where)  # server_id, authorization_server_url
        self.path = path


class McpOAuthDPoPError(McpOAuthError):
    """The MCP server refused the DPoP proof (RFC 9449): it asked for a nonce again
    (``use_dpop_nonce``) after the one retry with the nonce it gave. The token endpoint's
    refusals are :class:`McpOAuthTokenExchangeError` (``oauth_error`` ``use_dpop_nonce``)."""

    error_code: ClassVar[str] = "mcp_oauth_dpop_error"
    oauth_error: ClassVar[str] = "use_dpop_nonce"
