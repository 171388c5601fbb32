"""Assertions the host supplies, and what a refusal of one means.

Two grants present a credential mcpstream does not make itself: the JWT bearer grant of
workload identity (RFC 7523: the workload's JWT, from its platform: a Kubernetes service
account token, a SPIFFE JWT-SVID, a cloud identity token) and the token exchange of
enterprise-managed authorization (RFC 8693: the user's ID token from the company's single
sign-on). Each is read from one :class:`AssertionSource` at every use, never cached: a callable
(called each time; an async one with the async transport), a file (re-read each time, as
platforms rotate them in place) or an environment variable (looked up each time).

An assertion is a secret: it appears in no message, log line or ``repr``; a source is shown as
"a callable", its file's path or its variable's name.

A token endpoint that refuses one is believed: no retry, no other grant. The refusal becomes an
:class:`~mcpstream.oauth.McpOAuthAssertionRejectedError` whose ``reason`` the server's ``error``
and ``error_description`` give (:func:`rejection_reason`).
"""

from __future__ import annotations

import inspect
import os
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from .._text import sanitize
from ..errors import (
    McpOAuthAssertionRejectedError,
    McpOAuthConfigurationError,
    McpOAuthError,
    McpOAuthTokenExchangeError,
)
from ..oauth_store import is_header_safe
from ._flow import Flow, HostCall

__all__ = [
    "JWT_BEARER_GRANT",
    "MAX_ASSERTION_BYTES",
    "AssertionCallable",
    "AssertionSource",
    "assertion_rejected",
    "read_assertion_flow",
    "rejection_reason",
]

JWT_BEARER_GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer"
"""The ``grant_type`` of the JWT bearer authorization grant (RFC 7523 section 2.1)."""
AssertionCallable = Callable[[], str] | Callable[[], Awaitable[str]]
"""A function the host gives for an assertion: no arguments, returns the JWT (or, for the async
transport, a coroutine function returning it)."""
MAX_ASSERTION_BYTES = 64 * 1024
"""The largest assertion file read (a JWT is a few KiB; a larger file is not one)."""

_EXPIRED = re.compile(r"expir|\bexp\b", re.IGNORECASE)
_AUDIENCE = re.compile(r"audience|\baud\b", re.IGNORECASE)
_MALFORMED = re.compile(
    r"malformed|signature|verif|decod|pars|invalid (jwt|token|format)|not a (valid )?jwt|format",
    re.IGNORECASE,
)
_ERROR_CODE = re.compile(r"[a-z][a-z0-9_]{0,63}")
_REASON_TEXT = {
    "expired": "it has expired",
    "wrong_audience": "its audience is not this server",
    "malformed": "it is malformed or its signature does not verify",
    "invalid_grant": "the server does not accept it",
    "invalid_scope": "the requested scope is not permitted for it",
    "unauthorized_client": "this client may not use the grant",
    "invalid_client": "the client's authentication failed",
}


@dataclass(frozen=True, repr=False)
class AssertionSource:
    """Where one assertion comes from: exactly one of ``function``, ``path`` and ``env``.
    ``what`` names the assertion in messages (``"workload identity assertion"``, ``"ID
    token"``)."""

    what: str
    function: AssertionCallable | None = None
    path: str | None = None
    env: str | None = None

    @classmethod
    def from_settings(
        cls,
        what: str,
        keywords: tuple[str, str, str],
        function: object,
        path: object,
        env: object,
    ) -> AssertionSource | None:
        """The source the three keywords (named by ``keywords``, for messages) give, ``None``
        when all three are unset; ``ValueError`` for two at once or a value of the wrong kind
        (never quoting it: it may be the secret itself)."""
        given = [
            name
            for name, value in zip(keywords, (function, path, env), strict=True)
            if value is not None
        ]
        if not given:
            return None
        if len(given) > 1:
            raise ValueError(f"give only one of {', '.join(given)} (the {what}'s source)")
        if function is not None and not callable(function):
            raise ValueError(
                f"{keywords[0]} must be a function returning the {what} (a "
                f"{type(function).__name__} was given; for a file use {keywords[1]}=, for an "
                f"environment variable {keywords[2]}=)"
            )
        if path is not None and not isinstance(path, str | os.PathLike):
            raise ValueError(f"{keywords[1]} must be a file path")
        if env is not None and (not isinstance(env, str) or not env or "=" in env):
            raise ValueError(f"{keywords[2]} must be the name of an environment variable")
        return cls(
            what=what,
            function=cast("AssertionCallable | None", function),
            path=os.fspath(cast("str | os.PathLike[str]", path)) if path is not None else None,
            env=env,
        )

    def describe(self) -> str:
        """The source as messages show it (never the assertion)."""
        if self.path is not None:
            return f"the file {sanitize(self.path, 200)}"
        if self.env is not None:
            return f"the environment variable {sanitize(self.env, 100)}"
        return "the callable"

    def __repr__(self) -> str:
        return f"AssertionSource({self.what!r}, {self.describe()})"

    def read(self) -> object:
        """The assertion as the source gives it now: a ``str``, or for an async callable the
        awaitable it returned (checked by :func:`read_assertion_flow`)."""
        if self.path is not None:
            try:
                with Path(self.path).open("rb") as handle:
                    data = handle.read(MAX_ASSERTION_BYTES + 1)
            except OSError as exc:
                raise McpOAuthConfigurationError(
                    f"cannot read the {self.what} from {self.describe()}: "
                    f"{exc.strerror or type(exc).__name__}"
                ) from None
            if len(data) > MAX_ASSERTION_BYTES:
                raise McpOAuthConfigurationError(
                    f"{self.describe()} is larger than {MAX_ASSERTION_BYTES} bytes; it holds no "
                    f"{self.what}"
                )
            return data.decode("utf-8", errors="replace")
        if self.env is not None:
            value = os.environ.get(self.env)
            if value is None:
                raise McpOAuthConfigurationError(f"{self.describe()} (the {self.what}) is not set")
            return value
        assert self.function is not None
        return self.function()


def _close_awaitable(value: object) -> None:
    close = getattr(value, "close", None)
    if callable(close):  # a coroutine never awaited: close it (no "never awaited" warning)
        close()


def read_assertion_flow(source: AssertionSource, *, server_id: str | None = None) -> Flow[str]:
    """Read the assertion from ``source`` now (the driver calls the host's code): the text,
    stripped; :class:`McpOAuthConfigurationError` when the source fails or gives something
    that is no token (empty, not printable ASCII, not a ``str``; an async callable with the
    blocking transport)."""

    def failure(problem: str) -> McpOAuthConfigurationError:
        return McpOAuthConfigurationError(f"{source.describe()} {problem}", server_id=server_id)

    try:
        value: Any = yield HostCall(source.read)
    except McpOAuthError as exc:
        if exc.server_id is None:
            exc.server_id = server_id
        raise
    except Exception as exc:
        # The host's own exception stays chained for its debugging; the message names its type.
        raise failure(f"failed to give the {source.what} ({type(exc).__name__})") from exc
    if inspect.isawaitable(value):
        _close_awaitable(value)
        raise failure(
            f"is an async function: it gives the {source.what} only with the async transport "
            "(AsyncMcpHttpTransport, AsyncClient); give a plain function here"
        )
    if isinstance(value, bytes):
        value = value.decode("ascii", errors="replace")
    if not isinstance(value, str):
        raise failure(f"gave a {type(value).__name__}, not the {source.what} as a str")
    text: str = value.strip()
    if not text:
        raise failure(f"gave an empty {source.what}")
    if not is_header_safe(text):
        raise failure(f"gave a {source.what} with characters other than printable ASCII")
    return text


def rejection_reason(error: str | None, description: str | None) -> str:
    """Why a token endpoint refused an assertion, from its ``error`` and ``error_description``
    (see :class:`~mcpstream.oauth.McpOAuthAssertionRejectedError`)."""
    if not error or not _ERROR_CODE.fullmatch(error):
        return "refused"
    if error != "invalid_grant":
        return error
    text = description or ""
    for reason, pattern in (
        ("expired", _EXPIRED),
        ("wrong_audience", _AUDIENCE),
        ("malformed", _MALFORMED),
    ):
        if pattern.search(text):
            return reason
    return "invalid_grant"


def assertion_rejected(
    refusal: McpOAuthTokenExchangeError, *, what: str, where: str, grant: str
) -> McpOAuthAssertionRejectedError:
    """The :class:`McpOAuthAssertionRejectedError` for the token endpoint's ``refusal`` of the
    ``grant`` request that carried the ``what`` (``where`` names the server)."""
    reason = rejection_reason(refusal.oauth_error, refusal.error_description)
    because = _REASON_TEXT.get(reason, "it was refused")
    detail = f"HTTP {refusal.status_code}"
    if refusal.oauth_error:
        detail += f", {sanitize(refusal.oauth_error, 64)}"
    if refusal.error_description:
        detail += f": {refusal.error_description}"
    return McpOAuthAssertionRejectedError(
        f"{where} rejected the {what}: {because} ({detail}); mcpstream does not retry the "
        f"{grant} request or fall back to another grant",
        reason=reason,
        grant=grant,
        status_code=refusal.status_code,
        oauth_error=refusal.oauth_error,
        error_description=refusal.error_description,
        server_id=refusal.server_id,
        authorization_server_url=refusal.authorization_server_url,
    )
