"""What the client subcommands (``tools``, ``call``, ``ping``, ``demo``) share: the connection
options, building a ``Client`` from them, and turning failures into one line and an exit status.

Exit statuses: 0 success; 1 the server answered with an error (a JSON-RPC error, a tool that
failed) or another failure; 2 bad arguments; 3 the server cannot be reached; 4 authentication
is required or was refused (HTTP 401 or 403); 5 a timeout.
"""

from __future__ import annotations

import argparse
import functools
import inspect
import os
import re
import sys
from collections.abc import Callable
from typing import Any

from rich.console import Console

from .._http.core.advice import tls_mismatch
from .._httpbase.stack import raised_on_any
from .._text import sanitize, terminal_text
from ..client import DEFAULT_CONNECT_TIMEOUT_S, Client, ServerInfo
from ..client._settings import PROTOCOL_CHOICES
from ..errors import (
    McpAuthError,
    McpError,
    McpHttpTransportAuthRequiredError,
    McpHttpTransportError,
    McpTimeoutError,
    McpTransportError,
)
from ..oauth.urls import safe_url
from ..oauth_store import is_header_safe
from ._output import markup_safe, out_console, server_label

__all__ = [
    "EXIT_AUTH",
    "EXIT_ERROR",
    "EXIT_OK",
    "EXIT_STATUS_HELP",
    "EXIT_TIMEOUT",
    "EXIT_UNREACHABLE",
    "EXIT_USAGE",
    "UsageError",
    "add_command",
    "add_connection_options",
    "fail",
    "guarded",
    "open_client",
    "print_listing_header",
]

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_UNREACHABLE = 3
EXIT_AUTH = 4
EXIT_TIMEOUT = 5
EXIT_STATUS_HELP = (
    "exit status: 0 ok, 1 error from the server, 2 bad arguments, 3 server unreachable, "
    "4 authentication required or refused (HTTP 401, 403), 5 timeout"
)

Handler = Callable[[argparse.Namespace], int]


class UsageError(ValueError):
    """Bad arguments found after parsing (exit status 2)."""


def add_command(
    subparsers: Any,
    name: str,
    run: Handler,
    summary: str,
    *,
    connection: bool = False,
    json_output: bool = False,
    guard: bool = True,
) -> argparse.ArgumentParser:
    """Add the subcommand ``name``, run by ``run``; returns its parser for the options of its own.

    ``summary`` is its line in the command list and ``run``'s docstring its description (the
    text stays next to the code it describes). ``connection`` adds the connection options,
    ``json_output`` a ``--json`` flag. A guarded command (the default) turns mcpstream's errors
    into one line and an exit status (:func:`guarded`), and its help lists the exit statuses.
    """
    parser: argparse.ArgumentParser = subparsers.add_parser(
        name,
        help=summary,
        description=inspect.getdoc(run),
        epilog=EXIT_STATUS_HELP if guard else None,
    )
    if connection:
        add_connection_options(parser)
    if json_output:
        parser.add_argument("--json", action="store_true", help="print JSON (for scripts)")
    parser.set_defaults(handler=guarded(run) if guard else run)
    return parser


def add_connection_options(parser: argparse.ArgumentParser) -> None:
    """The server URL and how to reach it: headers, a token, OAuth, timeouts."""
    parser.add_argument("url", help="the MCP endpoint, e.g. http://127.0.0.1:8000/mcp")
    parser.add_argument(
        "-H",
        "--header",
        action="append",
        default=[],
        metavar="'NAME: VALUE'",
        help="send this HTTP header with every request (repeatable)",
    )
    auth = parser.add_mutually_exclusive_group()
    auth.add_argument("--token", help="send 'Authorization: Bearer TOKEN'")
    auth.add_argument(
        "--auth",
        action="store_true",
        help="use the OAuth login stored by 'mcpstream auth login URL'",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        metavar="SECONDS",
        help="time budget of each request, the handshake included (default: 60 s; 600 s for a "
        "tool call)",
    )
    parser.add_argument(
        "--protocol",
        choices=PROTOCOL_CHOICES,
        help="pin the protocol era (modern: 2026-07-28, stateless; legacy: the initialize "
        "handshake), the deprecated HTTP+SSE transport (http+sse) or a version (default: "
        "negotiated with the server)",
    )
    parser.add_argument(
        "--connect-timeout",
        type=float,
        default=DEFAULT_CONNECT_TIMEOUT_S,
        metavar="SECONDS",
        help="how long connecting to the server (TCP and TLS) may take "
        f"(default: {DEFAULT_CONNECT_TIMEOUT_S:g} s)",
    )


def _headers(values: list[str]) -> dict[str, str]:
    headers: dict[str, str] = {}
    for value in values:
        name, sep, content = value.partition(":")
        if (
            not sep
            or not name.strip()
            or not re.fullmatch(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+", name.strip())
        ):
            # The value is not quoted: it is often a secret (an API key).
            shown = sanitize(name.strip(), 60) if sep else "a header without ':'"
            raise UsageError(f"--header takes 'Name: value', not {shown!r}")
        if not _header_value_ok(content.strip()):
            raise UsageError(
                f"--header {sanitize(name.strip(), 60)}: the value has control characters "
                "(a line break?); it is not shown, since it may be a secret"
            )
        headers[name.strip()] = content.strip()
    return headers


def _header_value_ok(value: str) -> bool:
    return not any((ord(ch) < 0x20 and ch != "\t") or ord(ch) == 0x7F for ch in value)


def _token(value: str | None) -> str | None:
    if value is not None and not is_header_safe(value.strip()):
        raise UsageError(
            "--token must be printable ASCII without spaces (a line break?); it is not shown"
        )
    return value.strip() if value is not None else None


def open_client(args: argparse.Namespace, **kwargs: Any) -> Client:
    """A ``Client`` for the connection options in ``args`` (not yet connected)."""
    for name in ("timeout", "connect_timeout"):
        value = getattr(args, name, None)
        if value is not None and not value > 0:
            raise UsageError(f"--{name.replace('_', '-')} must be a positive number of seconds")
    if args.timeout is not None:
        kwargs.setdefault("request_timeout_s", args.timeout)
        kwargs.setdefault("tool_timeout_s", args.timeout)
    try:
        return Client(
            args.url,
            headers=_headers(args.header),
            token=_token(args.token),
            oauth=True if args.auth else None,
            connect_timeout_s=args.connect_timeout,
            protocol=getattr(args, "protocol", None),
            **kwargs,
        )
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def _unreachable_reason(exc: BaseException, url: str | None) -> str | None:
    """Why the server could not be reached, when ``exc`` was caused by that (an https:// URL
    to a port that speaks plain HTTP explained as such, not as OpenSSL words it)."""
    cause = exc.__cause__
    if not isinstance(
        cause, raised_on_any(lambda r: r.ConnectError, lambda r: r.UnsupportedProtocol)
    ):
        return None
    text = str(cause) or type(cause).__name__
    tls = tls_mismatch(url or "", text)
    if tls is not None:
        return tls
    text = re.sub(r"^\[Errno -?\d+\]\s*", "", text)
    return text[:1].lower() + text[1:]


def _gave_credentials(args: argparse.Namespace | None) -> bool:
    """True when the command was given a token (``--token``, or an Authorization header)."""
    if args is None:
        return False
    headers = getattr(args, "header", None) or []
    named = any(h.partition(":")[0].strip().lower() == "authorization" for h in headers)
    return bool(getattr(args, "token", None)) or named


def _describe(
    exc: BaseException, url: str | None, args: argparse.Namespace | None = None
) -> tuple[str, int]:
    """The one-line message and exit status for ``exc`` (``args``: the command's, for a hint
    that fits what it was given). With ``--auth``, a 401 reaches here as the OAuth session's
    error, which names ``mcpstream auth login`` for the URL itself."""
    where = safe_url(url) if url else "the server"
    if isinstance(exc, UsageError):
        return str(exc), EXIT_USAGE
    if isinstance(exc, McpError):
        return f"the server answered with an error: {exc}", EXIT_ERROR
    if isinstance(exc, McpHttpTransportAuthRequiredError):
        if _gave_credentials(args):
            return (
                f"{where} refused the credentials given (HTTP 401): check --token (or the "
                f"Authorization header), or log in with 'mcpstream auth login {where}' and "
                "use --auth instead",
                EXIT_AUTH,
            )
        return (
            f"{where} requires authentication (HTTP 401): log in with "
            f"'mcpstream auth login {where}' and add --auth, or pass --token or --header",
            EXIT_AUTH,
        )
    if isinstance(exc, McpAuthError):
        return str(exc), EXIT_AUTH
    if isinstance(exc, McpHttpTransportError) and exc.status_code == 403:
        why = (
            "the credentials given do not allow it"
            if _gave_credentials(args) or getattr(args, "auth", False)
            else "it may want credentials: --token, --header or --auth"
        )
        return f"{where} refused access (HTTP 403: forbidden; {why})", EXIT_AUTH
    if isinstance(exc, McpTimeoutError):
        return str(exc), EXIT_TIMEOUT
    reason = _unreachable_reason(exc, url)
    if reason is not None:
        return f"cannot connect to {where}: {reason}", EXIT_UNREACHABLE
    return str(exc) or type(exc).__name__, EXIT_ERROR


def print_listing_header(info: ServerInfo, count: int, noun: str) -> Console:
    """Print the first line of a listing (the server, its era and protocol, how many ``noun``
    it lists) on a stdout console; returns the console, for the rest."""
    console = out_console()
    console.print(
        f"{markup_safe(server_label(info))} "
        f"({info.era_label}, protocol {markup_safe(info.protocol_version)}): "
        f"{count} {noun}{'s' if count != 1 else ''}"
    )
    return console


def fail(message: str, status: int) -> int:
    """Print ``message`` as the command's one error line; returns ``status``."""
    # Messages quote server text (a JSON-RPC error's message, a tool's output).
    print(f"mcpstream: error: {terminal_text(message)}", file=sys.stderr)
    return status


def guarded(handler: Handler) -> Handler:
    """Run ``handler``; turn mcpstream's errors into one line on stderr and an exit status (a
    traceback only with ``--debug``)."""

    @functools.wraps(handler)
    def run(args: argparse.Namespace) -> int:
        try:
            return handler(args)
        except (McpError, McpTransportError, UsageError) as exc:
            if getattr(args, "debug", False):
                raise
            message, status = _describe(exc, getattr(args, "url", None), args)
            return fail(message, status)
        except BrokenPipeError:
            # The reader went away (``| head``): stop writing, without a traceback at exit.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return EXIT_ERROR

    return run
