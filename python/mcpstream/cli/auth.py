"""``mcpstream auth login|status|logout``: OAuth credentials kept in the token store."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time
from typing import Any

from ..errors import McpOAuthConfigurationError
from ..oauth import (
    LoopbackRedirectHandler,
    McpOAuthClientSettings,
    McpOAuthTokenStoreError,
    default_server_id,
    login,
)
from ..oauth.settings import GRANT_AUTHORIZATION_CODE, GRANT_CLIENT_CREDENTIALS, GRANTS
from ..oauth.urls import safe_url
from ..oauth_store import McpOAuthTokenRecord, default_oauth_token_store
from ._common import add_command
from ._output import plain

__all__ = ["register"]


def _from_env(what: str) -> dict[str, Any]:
    """The settings of an option naming the environment variable that holds ``what`` (a
    secret is never given on the command line, where other users' ``ps`` would show it)."""
    return {"metavar": "VAR", "help": f"read {what} from this environment variable"}


_LOGIN_OPTIONS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("--server-id", {"help": "store the credentials under this id (default: the server's URL)"}),
    ("--scope", {"action": "append", "default": [], "help": "a scope to request (repeatable)"}),
    ("--client-id", {"help": "a pre-registered client id"}),
    ("--client-secret-env", _from_env("the pre-registered client's secret")),
    ("--client-metadata-url", {"help": "this client's Client ID Metadata Document URL"}),
    (
        "--authorization-server",
        {"help": "use this authorization server instead of discovering it"},
    ),
    (
        "--token-endpoint-auth-method",
        {"choices": ["client_secret_basic", "client_secret_post", "private_key_jwt", "none"]},
    ),
    (
        "--client-credentials",
        {
            "action": "store_true",
            "help": "machine client: use the client-credentials grant (no browser; "
            "--grant client_credentials)",
        },
    ),
    (
        "--grant",
        {
            "choices": list(GRANTS),
            "help": "authorization_code (a browser login, the default), client_credentials, "
            "jwt_bearer (workload identity) or enterprise (an ID token exchanged at the "
            "identity provider): see the assertion grants' options",
        },
    ),
    (
        "--private-key-file",
        {"help": "PEM private key for private_key_jwt client authentication"},
    ),
    (
        "--dpop",
        {
            "action": argparse.BooleanOptionalAction,
            "default": None,
            "help": "DPoP-bound tokens (RFC 9449): --dpop always, --no-dpop never "
            "(default: when the server asks for them)",
        },
    ),
    ("--no-browser", {"action": "store_true", "help": "print the login URL instead of opening it"}),
    (
        "--timeout",
        {"type": float, "default": 300.0, "help": "seconds to wait for the browser login"},
    ),
)

_ASSERTION_OPTIONS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("--assertion-file", {"metavar": "PATH", "help": "jwt_bearer: the workload's JWT file"}),
    ("--assertion-env", _from_env("the workload's JWT (jwt_bearer)")),
    ("--id-token-file", {"metavar": "PATH", "help": "enterprise: the user's ID token file"}),
    ("--id-token-env", _from_env("the user's ID token (enterprise)")),
    ("--idp-token-endpoint", {"metavar": "URL", "help": "the identity provider's token endpoint"}),
    ("--idp-client-id", {"help": "this client's id at the identity provider"}),
    ("--idp-client-secret-env", _from_env("the identity provider client's secret")),
)
"""The options of the assertion grants (``--grant jwt_bearer`` and ``--grant enterprise``),
read where they point at every use, so that a rotated file or variable is picked up."""

_PASSED_AS_GIVEN = (
    "assertion_file",
    "assertion_env",
    "id_token_file",
    "id_token_env",
    "idp_token_endpoint",
    "idp_client_id",
)
"""The assertion grants' options that are settings of the same name."""


def register(subparsers: Any) -> None:
    """Add the ``auth`` command group."""
    auth = subparsers.add_parser("auth", help="log in to OAuth-protected MCP servers")
    commands = auth.add_subparsers(dest="auth_command", metavar="SUBCOMMAND", required=True)

    summary = "log in to a server (browser + loopback redirect, or a machine grant)"
    login_parser = add_command(commands, "login", run_login, summary, guard=False)
    login_parser.add_argument("server_url", help="the MCP endpoint URL")
    for flag, options in _LOGIN_OPTIONS:
        login_parser.add_argument(flag, **options)
    assertion = login_parser.add_argument_group("assertion grants (jwt_bearer, enterprise)")
    for flag, options in _ASSERTION_OPTIONS:
        assertion.add_argument(flag, **options)

    status_parser = add_command(
        commands, "status", run_status, "show stored OAuth credentials", guard=False
    )
    status_parser.add_argument("--json", action="store_true", help="machine-readable output")

    summary = "forget a server's stored credentials"
    logout_parser = add_command(commands, "logout", run_logout, summary, guard=False)
    logout_parser.add_argument("server", nargs="?", help="the server id or URL")
    logout_parser.add_argument("--all", action="store_true", help="forget every server")


def _env_secret(variable: str | None) -> str | None:
    """The value of the environment ``variable`` (None when no variable is named); an error
    when it is named but not set."""
    if not variable:
        return None
    value = os.environ.get(variable)
    if not value:
        raise McpOAuthConfigurationError(f"environment variable {variable} is not set")
    return value


def _grant(args: argparse.Namespace) -> str:
    if args.client_credentials and args.grant not in (None, GRANT_CLIENT_CREDENTIALS):
        raise McpOAuthConfigurationError(f"--client-credentials contradicts --grant {args.grant}")
    if args.client_credentials:
        return GRANT_CLIENT_CREDENTIALS
    return str(args.grant or GRANT_AUTHORIZATION_CODE)


def _settings(args: argparse.Namespace) -> McpOAuthClientSettings:
    secret = _env_secret(args.client_secret_env)
    private_key = None
    if args.private_key_file:
        try:
            with open(args.private_key_file, encoding="utf-8") as handle:
                private_key = handle.read()
        except OSError as exc:
            raise McpOAuthConfigurationError(
                f"cannot read {args.private_key_file}: {exc.strerror}"
            ) from None
    try:
        return McpOAuthClientSettings(
            client_id=args.client_id,
            client_secret=secret,
            scopes=tuple(args.scope),
            authorization_server_url=args.authorization_server,
            token_endpoint_auth_method=args.token_endpoint_auth_method,
            client_metadata_url=args.client_metadata_url,
            grant_type=_grant(args),
            private_key_pem=private_key,
            dpop=args.dpop,
            idp_client_secret=_env_secret(args.idp_client_secret_env),
            # The assertion and the ID token are read where the settings say, at every use,
            # so that a rotated file or variable is picked up (and no value is copied here).
            **{name: getattr(args, name) for name in _PASSED_AS_GIVEN},
        )
    except ValueError as exc:
        raise McpOAuthConfigurationError(str(exc)) from None


def _token_text(record: McpOAuthTokenRecord, now: float) -> str:
    bound = "DPoP-bound, " if record.token_type == "DPoP" else ""
    return bound + _expiry_text(record, now)


def _expiry_text(record: McpOAuthTokenRecord, now: float) -> str:
    if record.expires_at is None:
        return "no expiry given"
    remaining = record.expires_at - now
    if remaining <= 0:
        return "expired" + (" (refreshable)" if record.refresh_token else "")
    if remaining < 120:
        return f"expires in {remaining:.0f}s"
    if remaining < 7200:
        return f"expires in {remaining / 60:.0f} min"
    return f"expires in {remaining / 3600:.1f} h"


def run_login(args: argparse.Namespace) -> int:
    """Log in to an MCP server with OAuth and store the credentials."""
    settings = _settings(args)
    try:
        server_id = args.server_id or default_server_id(args.server_url)
    except ValueError as exc:
        raise McpOAuthConfigurationError(str(exc)) from None
    if settings.is_machine_client:
        record = login(
            server_url=args.server_url,
            server_id=server_id,
            settings=settings,
            redirect_handler=None,
        )
    else:
        with LoopbackRedirectHandler(
            open_browser=not args.no_browser, timeout_s=args.timeout
        ) as handler:
            record = login(
                server_url=args.server_url,
                server_id=server_id,
                settings=settings,
                redirect_handler=handler,
            )
    scopes = " ".join(record.granted_scopes) or "(none)"
    print(f"Logged in to {safe_url(args.server_url)}")
    print(f"  server id: {plain(server_id)}")
    print(f"  scopes:    {plain(scopes)}")
    print(f"  token:     {_token_text(record, time.time())}")
    return 0


def run_status(args: argparse.Namespace) -> int:
    """Show the OAuth credentials in the token store."""
    store = default_oauth_token_store()
    records = store.list_records()
    now = time.time()
    if args.json:
        entries: list[dict[str, Any]] = []
        for server_id, item in sorted(records.items()):
            if isinstance(item, McpOAuthTokenStoreError):
                entries.append({"server_id": server_id, "error": str(item)})
                continue
            registration = item.client_registration
            entries.append(
                {
                    "server_id": server_id,
                    "server_url": safe_url(item.server_url) if item.server_url else None,
                    "issuer": item.issuer,
                    "scopes": list(item.granted_scopes),
                    "expires_at": item.expires_at,
                    "expired": item.expires_at is not None and item.expires_at <= now,
                    "refreshable": bool(item.refresh_token),
                    "grant_type": item.grant_type,
                    "token_type": item.token_type,
                    "client_id": registration.client_id if registration else None,
                    "registration": registration.method if registration else None,
                }
            )
        json.dump({"store": str(store.path), "servers": entries}, sys.stdout, indent=2)
        print()
        return 0
    print(f"Token store: {store.path}")
    if not records:
        print("No stored OAuth credentials. Log in with: mcpstream auth login <server-url>")
        return 0
    for server_id, item in sorted(records.items()):
        print(f"\n{plain(server_id)}")
        if isinstance(item, McpOAuthTokenStoreError):
            print(f"  unreadable: {plain(str(item))}")
            continue
        registration = item.client_registration
        if item.server_url:
            print(f"  server:   {safe_url(item.server_url)}")
        print(f"  issuer:   {plain(item.issuer or '(unknown)')}")
        print(f"  scopes:   {plain(' '.join(item.granted_scopes) or '(none)')}")
        print(f"  token:    {_token_text(item, now)}")
        print(f"  refresh:  {'yes' if item.refresh_token else 'no'}")
        if registration is not None:
            print(f"  client:   {plain(registration.client_id)} ({plain(registration.method)})")
    return 0


def run_logout(args: argparse.Namespace) -> int:
    """Forget the stored OAuth credentials of one server, or of every server."""
    store = default_oauth_token_store()
    if args.all:
        removed = 0
        for server_id in list(store.list_records()):
            removed += store.delete(server_id)
        print(f"Forgot the credentials of {removed} server(s).")
        return 0
    if not args.server:
        raise McpOAuthConfigurationError("name a server (its id or URL), or pass --all")
    candidates = [args.server]
    with contextlib.suppress(ValueError):
        candidates.append(default_server_id(args.server))
    for server_id in candidates:
        if store.delete(server_id):
            print(f"Forgot the credentials of {server_id}.")
            return 0
    print(f"No stored credentials for {args.server}.", file=sys.stderr)
    return 1
