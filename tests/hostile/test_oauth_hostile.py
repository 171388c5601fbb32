"""OAuth against hand-made hostile servers, one test (sync and async) per class of issue 11:
the URL policy (1, 2), the deadline per operation (3), the byte budget per document (4), and
only documented errors from server input (5)."""

from __future__ import annotations

import asyncio
import functools
import json
import os
import shlex
import socket
import subprocess
import sys
import time
import webbrowser
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from mcpstream.oauth import (
    AsyncHeadlessRedirectHandler,
    HeadlessRedirectHandler,
    LoopbackRedirectHandler,
    McpOAuthAuthorizationError,
    McpOAuthDiscoveryError,
    McpOAuthTokenExchangeError,
    adiscover_oauth,
    discover_oauth,
)
from mcpstream.oauth._flow import AuthorizationPrompt
from mcpstream.oauth.login import probe_www_authenticate
from mcpstream.oauth.metadata import McpAuthorizationServerMetadata
from mcpstream.oauth.policy import InsecureOAuthUrlError, check_oauth_url
from mcpstream.oauth.session import login_command
from mcpstream.oauth.tokens import arefresh_access_token, refresh_access_token

from .conftest import Serve
from .server import Connection, HostileServer, gzip_bomb, response_head

PRM_PATH = "/.well-known/oauth-protected-resource/mcp"
AS_PATH = "/.well-known/oauth-authorization-server"


def _discover(server: HostileServer, mode: str, timeout_s: float = 5.0) -> Any:
    options: dict[str, Any] = {
        "server_id": "srv",
        "resource_server_url": f"{server.url}/mcp",
        "timeout_s": timeout_s,
    }
    if mode == "sync":
        return discover_oauth(**options)
    return asyncio.run(adiscover_oauth(**options))


def _metadata_routes(url_of: Callable[[], str], **as_fields: Any) -> dict[str, Any]:
    """PRM and AS metadata of a server at ``url_of()``, the AS metadata with ``as_fields``."""

    def prm(connection: Connection) -> None:
        connection.json({"resource": f"{url_of()}/mcp", "authorization_servers": [url_of()]})

    def metadata(connection: Connection) -> None:
        document = {
            "issuer": url_of(),
            "token_endpoint": f"{url_of()}/token",
            "authorization_endpoint": f"{url_of()}/authorize",
            "code_challenge_methods_supported": ["S256"],
        }
        document.update(as_fields)
        connection.json(document)

    return {PRM_PATH: prm, AS_PATH: metadata}


def _hostile_metadata(hostile: Serve, **as_fields: Any) -> HostileServer:
    holder: list[HostileServer] = []
    server = hostile(_metadata_routes(lambda: holder[0].url, **as_fields))
    holder.append(server)
    return server


# -- class 1 and 2: one URL policy --------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "file:///etc/passwd",
        "javascript:alert(1)",
        "ms-msdt:/id PCWDiagnostic",
        "\\\\attacker\\share\\x",
        "//attacker.example/authorize",
        "http://attacker.example/authorize",
        "https://as.example/a\r\nb",
        "https://as.example/\x1b]0;x\x07",
        "https://as.example/a b",
    ],
)
def test_the_url_policy_refuses_what_is_not_https_or_loopback_http(url: str) -> None:
    with pytest.raises(InsecureOAuthUrlError):
        check_oauth_url(url)
    for allowed in ("https://as.example/x", "http://127.0.0.5:8/x", "http://[::1]/x"):
        assert check_oauth_url(allowed) == allowed
    assert check_oauth_url("http://localhost:9/cb") == "http://localhost:9/cb"


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize(
    "field",
    [
        {"authorization_endpoint": "file:///etc/passwd"},
        {"authorization_endpoint": "javascript:alert(document.cookie)"},
        {"registration_endpoint": "ms-msdt:/id PCWDiagnostic"},
        {"token_endpoint": "http://attacker.example/token"},  # a secret in clear text
    ],
)
def test_metadata_naming_a_refused_url_is_refused_by_discovery(
    hostile: Serve, mode: str, field: dict[str, str]
) -> None:
    server = _hostile_metadata(hostile, **field)
    refused = r"refuses|needs https://|not a well-formed URL"
    with pytest.raises(McpOAuthDiscoveryError, match=refused) as caught:
        _discover(server, mode)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_the_driver_sends_no_request_to_a_refused_url(hostile: Serve, mode: str) -> None:
    """Even metadata built by hand (no parse to check it) cannot send a secret over http://."""
    metadata = McpAuthorizationServerMetadata(
        issuer="https://as.example", token_endpoint="http://as.example/token"
    )
    options: dict[str, Any] = {
        "server_id": "srv",
        "authorization_server_metadata": metadata,
        "resource_server_url": "https://mcp.example/mcp",
        "client_id": "client",
        "refresh_token": "rt-secret",
        "requested_scopes": None,
        "existing_granted_scopes": None,
        "timeout_s": 5.0,
    }
    with pytest.raises(McpOAuthTokenExchangeError, match="plain http://") as caught:
        if mode == "sync":
            refresh_access_token(**options)
        else:
            asyncio.run(arefresh_access_token(**options))
    assert "rt-secret" not in str(caught.value)


def test_the_browser_is_never_handed_a_refused_url(monkeypatch: pytest.MonkeyPatch) -> None:
    opened: list[str] = []
    monkeypatch.setattr(webbrowser, "open", lambda url, *a, **k: opened.append(url) or True)
    with LoopbackRedirectHandler(timeout_s=1) as handler:
        for url in ("file:///etc/passwd", "javascript:alert(1)", "ms-msdt:/id x"):
            prompt = AuthorizationPrompt(url, handler.redirect_uri, "state")
            with pytest.raises(McpOAuthAuthorizationError, match="authorization URL"):
                handler.authorize(prompt)
    assert opened == []


def test_the_login_hint_quotes_server_scopes_for_the_shell() -> None:
    scope = "mcp:read; rm -rf ~ $(id) `id`\x1b]0;pwned\x07"
    command = login_command("srv", "https://mcp.example/mcp", ("ok", scope))
    assert "\x1b" not in command and "\x07" not in command
    words = shlex.split(command)
    assert words[:4] == ["mcpstream", "auth", "login", "https://mcp.example/mcp"]
    # The scope is one word: nothing in it runs.
    assert words[-1].startswith("mcp:read; rm -rf ~ $(id) `id`")
    assert words.count("--scope") == 2


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_2025_03_26_server_s_metadata_must_name_an_issuer_at_its_origin(
    hostile: Serve, mode: str
) -> None:
    holder: list[HostileServer] = []
    routes = _metadata_routes(lambda: holder[0].url, issuer="https://attacker.example")
    del routes[PRM_PATH]  # no protected resource metadata: the 2025-03-26 rules
    server = hostile(routes)
    holder.append(server)
    with pytest.raises(McpOAuthDiscoveryError, match="not at the MCP server's origin"):
        _discover(server, mode)


# -- class 3: one deadline per operation --------------------------------------------------------


def _trickled_headers(connection: Connection) -> None:
    connection.trickle(response_head("200 OK", {"X-Padding": "a" * 400}), 0.05)


def _trickled_body(connection: Connection) -> None:
    connection.send(response_head("200 OK", {"Content-Type": "application/json"}))
    connection.trickle(b'{"authorization_servers": ["' + b"a" * 400 + b'"]}', 0.05)


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("route", [_trickled_headers, _trickled_body])
def test_discovery_obeys_its_deadline_whatever_the_server_trickles(
    hostile: Serve, mode: str, route: Callable[[Connection], None]
) -> None:
    server = hostile({PRM_PATH: route})
    started = time.monotonic()
    with pytest.raises(McpOAuthDiscoveryError, match="ran past its deadline"):
        _discover(server, mode, timeout_s=1.0)
    # Each byte comes well within a per-read timeout; only the deadline stops this.
    assert time.monotonic() - started < 3.0


def test_an_idle_connection_does_not_stall_the_login_listener_past_its_timeout() -> None:
    with LoopbackRedirectHandler(open_browser=False, timeout_s=1.0, output=_Sink()) as handler:
        port = int(handler.redirect_uri.rsplit(":", 1)[1].split("/", 1)[0])
        idle = socket.create_connection(("127.0.0.1", port))
        try:
            prompt = AuthorizationPrompt("https://as.example/authorize", handler.redirect_uri, "s")
            started = time.monotonic()
            with pytest.raises(McpOAuthAuthorizationError, match="no authorization callback"):
                handler.authorize(prompt)
            assert time.monotonic() - started < 2.0
        finally:
            idle.close()


class _Sink:
    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        return None


# -- class 4: one byte budget per document -------------------------------------------------------


def _huge_declared_length(connection: Connection) -> None:
    connection.send(response_head("200 OK", {"Content-Length": str(2 << 30)}))
    connection.send(b"{" * 1000)


def _gzip_bomb(connection: Connection) -> None:
    connection.respond(gzip_bomb(64 << 20), headers={"Content-Encoding": "gzip"})


def _endless_chunks(connection: Connection) -> None:
    connection.send(response_head("200 OK", {"Transfer-Encoding": "chunked"}))
    chunk = b"%x\r\n%s\r\n" % (65536, b" " * 65536)
    for _ in range(64):  # 4 MiB, then the server stops
        if not connection.send(chunk):
            return


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("route", [_huge_declared_length, _gzip_bomb, _endless_chunks])
def test_an_oauth_document_is_held_to_its_byte_budget(
    hostile: Serve, mode: str, route: Callable[[Connection], None]
) -> None:
    server = hostile({PRM_PATH: route})
    with pytest.raises(McpOAuthDiscoveryError, match="limit of an OAuth document"):
        _discover(server, mode)


MiB = 1 << 20
BOMB_MIB = 256
"""The inflated size of the bombs below (some 260 KB on the wire)."""


@functools.cache
def _oauth_bomb() -> bytes:
    return gzip_bomb(BOMB_MIB * MiB)


def _oauth_servers(hostile: Serve, bombed: str) -> HostileServer:
    """An MCP server, its protected resource metadata, an authorization server (metadata,
    registration, token endpoint) and an identity provider's token endpoint, all on one hostile
    server, whose ``bombed`` path answers with a gzip bomb: a 200 of ``BOMB_MIB`` MiB once
    inflated (JSON spaces), with an honest ``Content-Length`` of its compressed size."""
    holder: list[HostileServer] = []

    def url() -> str:
        return holder[0].url

    def mcp(connection: Connection) -> None:
        challenge = f'Bearer resource_metadata="{url()}{PRM_PATH}"'
        connection.json(
            {"error": "invalid_token"},
            status="401 Unauthorized",
            headers={"WWW-Authenticate": challenge},
        )

    def prm(connection: Connection) -> None:
        connection.json({"resource": f"{url()}/mcp", "authorization_servers": [url()]})

    def metadata(connection: Connection) -> None:
        connection.json(
            {
                "issuer": url(),
                "authorization_endpoint": f"{url()}/authorize",
                "token_endpoint": f"{url()}/token",
                "registration_endpoint": f"{url()}/register",
                "code_challenge_methods_supported": ["S256"],
                "grant_types_supported": [
                    "authorization_code",
                    "client_credentials",
                    "urn:ietf:params:oauth:grant-type:jwt-bearer",
                ],
            }
        )

    def bomb(connection: Connection) -> None:
        connection.respond(_oauth_bomb(), headers={"Content-Encoding": "gzip"})

    routes: dict[str, Callable[[Connection], None]] = {
        "/mcp": mcp,
        PRM_PATH: prm,
        AS_PATH: metadata,
    }
    routes[bombed] = bomb
    server = hostile(routes)
    holder.append(server)
    return server


def _probe(operation: str, mode: str, server: HostileServer) -> dict[str, Any]:
    """``tests.hostile.oauth_probe`` run in a process of its own (see there)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    done = subprocess.run(
        [sys.executable, "-m", "tests.hostile.oauth_probe", operation, mode, server.url],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
        check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


_BOMBED_PATHS = [
    ("prm", PRM_PATH, "McpOAuthDiscoveryError"),
    ("as-metadata", AS_PATH, "McpOAuthDiscoveryError"),
    ("registration", "/register", "McpOAuthRegistrationError"),
    ("token", "/token", "McpOAuthTokenExchangeError"),
    ("refresh", "/token", "McpOAuthTokenExchangeError"),
    ("idp", "/idp/token", "McpOAuthTokenExchangeError"),
    ("transport-prm", PRM_PATH, "McpOAuthDiscoveryError"),
]
"""(operation of ``oauth_probe``, the path it finds a bomb on, the error it raises), each run
with a blocking and an async client; and ``mcpstream auth login`` (blocking only)."""


@pytest.mark.parametrize(
    ("operation", "bombed", "error", "mode"),
    [
        *[(*case, mode) for case in _BOMBED_PATHS for mode in ("sync", "async")],
        ("login-prm", PRM_PATH, "McpOAuthDiscoveryError", "sync"),
    ],
)
def test_a_gzip_bomb_on_any_oauth_path_is_refused_within_bounded_memory(
    hostile: Serve, operation: str, bombed: str, error: str, mode: str
) -> None:
    """Every path an OAuth document is read on (discovery at login and in a transport,
    registration, the token endpoint, a refresh, the identity provider's token exchange) reads
    it decompressed piece by piece and stops at the budget: the bomb is refused with the
    path's documented error, and the process grows by a few MiB, not by the bomb (inflated by
    whole network reads, as httpx does, it grew by 130 to 250 MiB)."""
    server = _oauth_servers(hostile, bombed)
    outcome = _probe(operation, mode, server)
    assert outcome["error"] == error, outcome
    assert "limit of an OAuth document" in outcome["message"], outcome
    assert outcome["growth_bytes"] < 32 * MiB, outcome
    assert ("GET" if bombed.startswith("/.well-known") else "POST", bombed) in server.requests


# -- class 5: only documented errors from server input -------------------------------------------


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_deep_json_as_an_oauth_document_is_an_invalid_document(hostile: Serve, mode: str) -> None:
    deep = b"[" * 200_000 + b"]" * 200_000
    server = hostile({PRM_PATH: lambda connection: connection.respond(deep)})
    with pytest.raises(McpOAuthDiscoveryError, match="invalid protected resource metadata"):
        _discover(server, mode)


def _token_route(document: dict[str, Any]) -> Callable[[Connection], None]:
    return lambda connection: connection.json(document)


def _refresh(server: HostileServer, mode: str) -> Any:
    metadata = McpAuthorizationServerMetadata(
        issuer=server.url, token_endpoint=f"{server.url}/token"
    )
    options: dict[str, Any] = {
        "server_id": "srv",
        "authorization_server_metadata": metadata,
        "resource_server_url": f"{server.url}/mcp",
        "client_id": "client",
        "refresh_token": "rt",
        "requested_scopes": None,
        "existing_granted_scopes": None,
        "timeout_s": 5.0,
    }
    if mode == "sync":
        return refresh_access_token(**options)
    return asyncio.run(arefresh_access_token(**options))


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("expires_in", [10**400, 1e308, "9" * 500, None])
def test_an_absurd_expires_in_is_no_lifetime_not_an_overflow(
    hostile: Serve, mode: str, expires_in: Any
) -> None:
    body = json.dumps({"access_token": "at", "token_type": "Bearer", "expires_in": expires_in})
    server = hostile({"/token": lambda connection: connection.respond(body.encode())})
    record = _refresh(server, mode)
    assert record.access_token == "at"
    assert record.expires_at is None


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("token", ["t\u00f6ken", "tok\r\nX-Injected: 1", "tok en"])
def test_an_access_token_that_cannot_be_a_header_is_refused_clearly(
    hostile: Serve, mode: str, token: str
) -> None:
    server = hostile({"/token": _token_route({"access_token": token, "token_type": "Bearer"})})
    with pytest.raises(McpOAuthTokenExchangeError, match="printable ASCII") as caught:
        _refresh(server, mode)
    assert token not in str(caught.value)


def test_a_real_client_reads_the_budgeted_response_unchanged(hostile: Serve) -> None:
    """The driver's re-built response keeps what the flows read: status, headers, JSON."""
    server = hostile(_metadata_routes(lambda: server.url))
    discovery = _discover(server, "sync")
    assert discovery.metadata.token_endpoint == f"{server.url}/token"
    with httpx.Client() as client:
        assert client.get(f"{server.url}{AS_PATH}").status_code == 200


def test_the_login_probe_obeys_its_timeout_whatever_the_server_trickles(hostile: Serve) -> None:
    server = hostile({"/mcp": _trickled_headers})
    started = time.monotonic()
    with httpx.Client() as client, pytest.raises(McpOAuthDiscoveryError, match="no answer"):
        probe_www_authenticate(f"{server.url}/mcp", client=client, timeout_s=1.0)
    assert time.monotonic() - started < 3.0


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_the_headless_handler_obeys_its_timeout_whatever_the_server_trickles(
    hostile: Serve, mode: str
) -> None:
    server = hostile({"/authorize": _trickled_headers})
    prompt = AuthorizationPrompt(f"{server.url}/authorize", "http://127.0.0.1:1/cb", "s")
    started = time.monotonic()
    with pytest.raises(McpOAuthAuthorizationError, match="could not be reached"):
        if mode == "sync":
            HeadlessRedirectHandler(timeout_s=1.0).authorize(prompt)
        else:
            asyncio.run(AsyncHeadlessRedirectHandler(timeout_s=1.0).authorize(prompt))
    assert time.monotonic() - started < 3.0


def test_the_headless_handlers_deadline_holds_when_it_passes_before_the_connection(
    hostile: Serve,
) -> None:
    """The deadline passes while the host's request hook still runs, before any socket is
    open: the connection made after it is shut down at once, not left to the trickle."""
    server = hostile({"/authorize": _trickled_headers})
    prompt = AuthorizationPrompt(f"{server.url}/authorize", "http://127.0.0.1:1/cb", "s")

    def slow_hook(request: httpx.Request) -> None:
        time.sleep(1.5)

    with httpx.Client(event_hooks={"request": [slow_hook]}) as client:
        started = time.monotonic()
        with pytest.raises(McpOAuthAuthorizationError, match="could not be reached"):
            HeadlessRedirectHandler(client=client, timeout_s=1.0).authorize(prompt)
    # The hook's 1.5 s, then the shut-down connection at once (the trickle would take 20 s).
    assert time.monotonic() - started < 4.0
