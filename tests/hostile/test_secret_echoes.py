"""Servers that echo the credentials they were sent, in the encodings real ones use (issue 21):
the token endpoint echoing the client secret, the identity provider echoing the ID token and
its client secret, the MCP server echoing the access token in an error body. Whatever the
encoding (raw, base64 and base64url alone or of a ``user:secret`` pair, %-encoded, a form
body, a form body quoted in a URL, JSON-escaped), neither the error a host gets (message and
attributes) nor any log line carries the secret or the echo: the scrubber
(``mcpstream.redaction.scrub_secrets``) removes it wherever it stands.
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

import pytest
from mcpstream.errors import McpHttpTransportError
from mcpstream.models import McpOAuthConfig, ResolvedMcpServer
from mcpstream.oauth import (
    McpOAuthAssertionRejectedError,
    McpOAuthClientSettings,
    McpOAuthSession,
    McpOAuthTokenExchangeError,
)
from mcpstream.oauth_store import McpOAuthMemoryTokenStore
from mcpstream.transport_http import AsyncMcpHttpTransport, McpHttpTransport

from .conftest import Serve
from .server import Connection, HostileServer

PRM_PATH = "/.well-known/oauth-protected-resource/mcp"
AS_PATH = "/.well-known/oauth-authorization-server"
CLIENT_ID = "echo-client"
CLIENT_SECRET = 'cs-9f/Q+z=ä "k"'
"""A secret with characters every encoding treats differently (``/``, ``+``, ``=``, a space,
a quote, a non-ASCII letter)."""
ID_TOKEN = "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ1c2VyIn0.idt-S1gn/+="
IDP_CLIENT_SECRET = "idp-s3cret/+= x"
ACCESS_TOKEN = "at-Zq9/+x=AbC.dEf_gh-1"


def _json_escaped(secret: str) -> str:
    return json.dumps(secret)[1:-1].replace("/", "\\/")


ECHOES: dict[str, Callable[[str, str], str]] = {
    "raw": lambda secret, user: secret,
    "base64": lambda secret, user: base64.b64encode(secret.encode()).decode(),
    "base64-pair": lambda secret, user: base64.b64encode(f"{user}:{secret}".encode()).decode(),
    "base64url-pair": lambda secret, user: (
        base64.urlsafe_b64encode(f"{user}:{secret}".encode()).decode().rstrip("=")
    ),
    "percent": lambda secret, user: "".join(f"%{byte:02x}" for byte in secret.encode()),
    "form": lambda secret, user: urlencode({"client_id": user, "client_secret": secret}),
    "form-in-url": lambda secret, user: quote(urlencode({"user": user, "secret": secret})),
    "json": lambda secret, user: _json_escaped(secret),
    "json-unicode": lambda secret, user: "".join(f"\\u{ord(char):04x}" for char in secret),
}
"""Each encoding a server may echo ``secret`` (of the client or user ``user``) in."""


def _servers(hostile: Serve, routes: dict[str, Callable[[Connection], None]]) -> HostileServer:
    """The MCP server (401 without a token), its metadata and an authorization server, with
    ``routes`` on top, on one hostile server."""
    holder: list[HostileServer] = []

    def url() -> str:
        return holder[0].url

    def mcp(connection: Connection) -> None:
        challenge = f'Bearer resource_metadata="{url()}{PRM_PATH}"'
        headers = {"WWW-Authenticate": challenge}
        connection.json({"error": "invalid_token"}, status="401 Unauthorized", headers=headers)

    def prm(connection: Connection) -> None:
        connection.json({"resource": f"{url()}/mcp", "authorization_servers": [url()]})

    def metadata(connection: Connection) -> None:
        connection.json(
            {
                "issuer": url(),
                "authorization_endpoint": f"{url()}/authorize",
                "token_endpoint": f"{url()}/token",
                "code_challenge_methods_supported": ["S256"],
                "token_endpoint_auth_methods_supported": ["client_secret_basic"],
            }
        )

    server = hostile({"/mcp": mcp, PRM_PATH: prm, AS_PATH: metadata, **routes})
    holder.append(server)
    return server


def _refusal(echo: str, *, in_error: bool = False) -> Callable[[Connection], None]:
    """A 400 whose ``error_description`` (and, ``in_error``, whose ``error``) quotes ``echo``."""

    def route(connection: Connection) -> None:
        error = f"invalid_client:{echo}" if in_error else "invalid_client"
        body = {"error": error, "error_description": f"bad credentials [{echo}] sent"}
        connection.json(body, status="400 Bad Request")

    return route


def _no_leak(texts: list[str], secret: str, echo: str) -> None:
    for text in texts:
        assert secret not in text
        assert echo not in text
        for part in secret.split():
            assert len(part) < 6 or part not in text


def _login(server: HostileServer, settings: McpOAuthClientSettings) -> None:
    McpOAuthSession(
        server_id="echo",
        server_url=f"{server.url}/mcp",
        settings=settings,
        store=McpOAuthMemoryTokenStore(),
        timeout_s=10.0,
    ).login()


@pytest.mark.parametrize("in_error", [False, True])
@pytest.mark.parametrize("encoding", sorted(ECHOES))
def test_the_token_endpoint_echoing_the_client_secret_leaks_it_nowhere(
    hostile: Serve, caplog: pytest.LogCaptureFixture, encoding: str, in_error: bool
) -> None:
    echo = ECHOES[encoding](CLIENT_SECRET, CLIENT_ID)
    server = _servers(hostile, {"/token": _refusal(echo, in_error=in_error)})
    settings = McpOAuthClientSettings(
        grant_type="client_credentials", client_id=CLIENT_ID, client_secret=CLIENT_SECRET
    )
    with caplog.at_level(logging.DEBUG), pytest.raises(McpOAuthTokenExchangeError) as caught:
        _login(server, settings)
    error = caught.value
    assert "<redacted>" in str(error)  # the echo reached the message, scrubbed
    texts = [str(error), repr(error), str(error.error_description), str(error.oauth_error)]
    _no_leak([*texts, caplog.text], CLIENT_SECRET, echo)
    if not in_error:
        assert error.oauth_error == "invalid_client"


def test_the_token_endpoint_echoing_the_request_as_it_came_leaks_nothing(
    hostile: Serve, caplog: pytest.LogCaptureFixture
) -> None:
    """The echo is built from the request the server received: its Basic header and body."""

    def token(connection: Connection) -> None:
        echo = f"{connection.headers.get('authorization')} {connection.body.decode()}"
        _refusal(echo)(connection)

    server = _servers(hostile, {"/token": token})
    settings = McpOAuthClientSettings(
        grant_type="client_credentials", client_id=CLIENT_ID, client_secret=CLIENT_SECRET
    )
    with caplog.at_level(logging.DEBUG), pytest.raises(McpOAuthTokenExchangeError) as caught:
        _login(server, settings)
    message = str(caught.value)
    assert "Basic <redacted>" in message and "grant_type=client_credentials" in message
    basic = base64.b64encode(f"{CLIENT_ID}:{quote(CLIENT_SECRET, safe='')}".encode()).decode()
    _no_leak([message, caplog.text], CLIENT_SECRET, basic)


@pytest.mark.parametrize("encoding", sorted(ECHOES))
def test_the_identity_provider_echoing_the_id_token_and_its_secret_leaks_neither(
    hostile: Serve, caplog: pytest.LogCaptureFixture, encoding: str
) -> None:
    token_echo = ECHOES[encoding](ID_TOKEN, "user")
    secret_echo = ECHOES[encoding](IDP_CLIENT_SECRET, "idp-client")
    server = _servers(hostile, {"/idp/token": _refusal(f"{token_echo} {secret_echo}")})
    settings = McpOAuthClientSettings(
        grant_type="enterprise",
        client_id=CLIENT_ID,
        client_secret=CLIENT_SECRET,
        id_token=lambda: ID_TOKEN,
        idp_token_endpoint=f"{server.url}/idp/token",
        idp_client_id="idp-client",
        idp_client_secret=IDP_CLIENT_SECRET,
    )
    with caplog.at_level(logging.DEBUG), pytest.raises(McpOAuthAssertionRejectedError) as caught:
        _login(server, settings)
    error = caught.value
    assert "<redacted>" in str(error)
    texts = [str(error), repr(error), str(error.error_description), caplog.text]
    _no_leak(texts, ID_TOKEN, token_echo)
    _no_leak(texts, IDP_CLIENT_SECRET, secret_echo)


def _token(connection: Connection) -> None:
    connection.json({"access_token": ACCESS_TOKEN, "token_type": "Bearer", "expires_in": 3600})


def _echoing_mcp(encoding: str) -> Callable[[Connection], None]:
    """An MCP server answering an authorized request with a 500 quoting its credentials."""

    def route(connection: Connection) -> None:
        authorization = connection.headers.get("authorization")
        if authorization is None:
            challenge = 'Bearer resource_metadata="http://{host}{path}"'.format(
                host=connection.headers["host"], path=PRM_PATH
            )
            headers = {"WWW-Authenticate": challenge}
            connection.json({"error": "invalid_token"}, status="401 Unauthorized", headers=headers)
            return
        token = authorization.partition(" ")[2]
        text = f"upstream failed for credentials {ECHOES[encoding](token, 'bearer')}"
        connection.respond(
            text.encode(), status="500 Internal Server Error", content_type="text/plain"
        )

    return route


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("encoding", sorted(ECHOES))
def test_an_mcp_server_echoing_the_access_token_in_an_error_leaks_it_nowhere(
    hostile: Serve, caplog: pytest.LogCaptureFixture, tmp_path: Path, encoding: str, mode: str
) -> None:
    server = _servers(hostile, {"/mcp": _echoing_mcp(encoding), "/token": _token})
    config = McpOAuthConfig(
        client_id=CLIENT_ID, client_secret=CLIENT_SECRET, grant_type="client_credentials"
    )
    resolved = ResolvedMcpServer(id="echo", url=f"{server.url}/mcp", oauth=config)
    options: dict[str, Any] = {
        "server": resolved,
        "workspace_root": tmp_path,
        "oauth_store": McpOAuthMemoryTokenStore(),
        "listen": False,
    }
    params = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "e"}}
    with caplog.at_level(logging.DEBUG), pytest.raises(McpHttpTransportError) as caught:
        if mode == "sync":
            with McpHttpTransport(**options) as transport:
                transport.request(method="initialize", params=params, timeout_s=10)
        else:

            async def call() -> None:
                async with AsyncMcpHttpTransport(**options) as transport:
                    await transport.request(method="initialize", params=params, timeout_s=10)

            asyncio.run(call())
    message = str(caught.value)
    assert "HTTP 500" in message and "<redacted>" in message
    _no_leak(
        [message, repr(caught.value), caplog.text],
        ACCESS_TOKEN,
        ECHOES[encoding](ACCESS_TOKEN, "bearer"),
    )
