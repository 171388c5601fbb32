"""``tls_share``: under ``install()`` the SDK's default HTTP client factory makes the same clients
as the SDK's, sharing the process's TLS context (one per CA setting of the environment) instead
of building and loading one each; nothing else in the process is changed, certificates are
still verified, and ``uninstall()`` puts everything back."""

from __future__ import annotations

import ssl
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import httpx2
import mcp.shared._httpx_utils as sdk_httpx_utils
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcpstream._httpbase.stack import stack_named
from mcpstream.sdk import install, uninstall
from mcpstream.sdk.tls_share import sharing_factory, wrap_stack

from tests.plain_http.tls import self_signed_certificate

from .conftest import run
from .test_host_h1 import Tap

# In a tuple, not a module global: install() rebinds every module global holding the SDK's
# factory, and this one must stay the SDK's.
_SDK_FACTORY = (sdk_httpx_utils.create_mcp_http_client,)


@pytest.fixture(autouse=True)
def _uninstalled() -> Iterator[None]:
    uninstall()
    assert sdk_httpx_utils.create_mcp_http_client is _SDK_FACTORY[0]
    yield
    uninstall()
    assert sdk_httpx_utils.create_mcp_http_client is _SDK_FACTORY[0]


def _context_of(client: Any) -> ssl.SSLContext:
    context = client._transport._pool._ssl_context
    assert isinstance(context, ssl.SSLContext)
    return context


def _settings(client: Any) -> tuple[object, ...]:
    return (
        type(client),
        client.timeout,
        client.follow_redirects,
        dict(client.headers),
        client.auth,
        client.trust_env,
        _context_of(client).verify_mode,
        _context_of(client).check_hostname,
    )


def test_the_sdks_default_clients_share_one_context_once_installed_and_not_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cert, _ = self_signed_certificate(tmp_path)
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    sdk_made = [_SDK_FACTORY[0](headers={"X-Host": "1"}) for _ in range(2)]
    assert _context_of(sdk_made[0]) is not _context_of(sdk_made[1])

    install()
    factory = sdk_httpx_utils.create_mcp_http_client
    assert factory is not _SDK_FACTORY[0]
    shared = [factory(headers={"X-Host": "1"}) for _ in range(2)]
    # The same clients as the SDK's function makes, one context between them.
    assert _settings(shared[0]) == _settings(sdk_made[0])
    assert _context_of(shared[0]) is _context_of(shared[1])
    # Its CA setting is the environment's, as the SDK's clients read it.
    assert _context_of(shared[0]).cert_store_stats()["x509_ca"] in (0, 1)
    # A client made anywhere else in the process builds its own, as before.
    stack_module = httpx if isinstance(shared[0], httpx.AsyncClient) else httpx2
    elsewhere = stack_module.AsyncClient()
    assert _context_of(elsewhere) is not _context_of(shared[0])

    uninstall()
    after = [sdk_httpx_utils.create_mcp_http_client() for _ in range(2)]
    assert _context_of(after[0]) is not _context_of(after[1])
    for client in (*sdk_made, *shared, elsewhere, *after):
        run(client.aclose())


def test_an_explicit_verification_setting_is_never_shared() -> None:
    stack = stack_named("httpx2")
    assert wrap_stack(stack)
    try:

        def factory(**kwargs: Any) -> Any:
            return httpx2.AsyncClient(**kwargs)

        sharing = sharing_factory(factory, stack)
        defaults = [sharing(), sharing()]
        unverified = sharing(verify=False)
        no_env = sharing(trust_env=False)
        assert _context_of(defaults[0]) is _context_of(defaults[1])
        for client in (unverified, no_env):
            assert _context_of(client) is not _context_of(defaults[0])
        assert _context_of(unverified).verify_mode is ssl.CERT_NONE
        for client in (*defaults, unverified, no_env):
            run(client.aclose())
    finally:
        uninstall()


@pytest.mark.parametrize("trusted", [True, False], ids=["CA in SSL_CERT_FILE", "untrusted"])
def test_sessions_over_https_verify_certificates_through_the_shared_context(
    mcp_server_urls: dict[str, str],
    tmp_path: Path,
    trusted: bool,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # As langchain-mcp-adapters opens a session per call: the SDK's factory, then the transport.
    cert, key = self_signed_certificate(tmp_path)
    server_context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_context.load_cert_chain(cert, key)
    if trusted:
        monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    install()

    async def sessions() -> list[str]:
        outcomes: list[str] = []
        contexts: set[int] = set()
        async with Tap(mcp_server_urls["sse"], server_context) as tap:
            for _ in range(2):
                http_client = sdk_httpx_utils.create_mcp_http_client()
                contexts.add(id(_context_of(http_client)))
                async with http_client:
                    try:
                        async with Client(
                            streamable_http_client(tap.url, http_client=http_client)
                        ) as client:
                            result = await client.call_tool("echo", {"text": "shared"})
                            text = result.content[0]
                            assert isinstance(text, types.TextContent)
                            outcomes.append(text.text)
                    except Exception as exc:
                        outcomes.append(f"failed {type(exc).__name__}")
        assert len(contexts) == 1
        return outcomes

    outcomes = run(sessions())
    if trusted:
        assert outcomes == ["shared", "shared"]
    else:
        # Refused: the shared context verifies as the client's own would.
        assert all(outcome.startswith("failed ") for outcome in outcomes), outcomes
