"""The drop-in transports' edges, as ``Client``'s: a malformed URL refused when the transport is
made, with the ``ValueError`` ``Client`` raises (naming the bad part, never a secret of the
URL), not httpx's ``InvalidURL`` at the first request; a call's timeout of zero, a negative
value or NaN refused with ``ValueError`` (None: no limit), against the SDK's server; and an
``http://`` URL to a port that speaks TLS explained, against a real TLS server on loopback."""

from __future__ import annotations

import asyncio
import math
import ssl
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcpstream import Client
from mcpstream.errors import McpHttpTransportError
from mcpstream.models import ResolvedMcpServer
from mcpstream.transport_http import AsyncMcpHttpTransport, McpHttpTransport
from plain_http.tls import tls_site

from .conftest import MakeTransport
from .helpers import initialize

SECRET = "s3cret"

# Each malformed URL carries a secret (a password, a token in the query) and the words its
# error must say.
MALFORMED = [
    (f"http://user:{SECRET}@127.0.0.1:99999/mcp?token={SECRET}", "port '99999' is not a port"),
    (f"http://127.0.0.1:80a/mcp?token={SECRET}", "port '80a' is not a port number"),
    (f"http://user:{SECRET[:3]}/{SECRET[3:]}@127.0.0.1/mcp", "port is not a port number"),
    (f"http://[::1/mcp?token={SECRET}", "the server URL is malformed"),
    (f"http://127.0.0.1\x00:8000/mcp?token={SECRET}", "contains a control character"),
    (f"127.0.0.1:8000/mcp?token={SECRET}", "did you mean http://127.0.0.1:8000/mcp?"),
    (f"ftp://user:{SECRET}@127.0.0.1/mcp", "scheme 'ftp' is not http or https"),
    (f"http://user:{SECRET}@/mcp", "the server URL has no host"),
    (f"http://xn--a.com\u0300:8000/mcp?token={SECRET}", "httpx cannot parse it"),
]


def make_both(url: str, tmp_path: Path) -> list[BaseException]:
    """What making each transport for ``url`` raised."""
    server = ResolvedMcpServer(id="edges", url=url)
    raised: list[BaseException] = []
    with pytest.raises(ValueError) as sync_caught:
        McpHttpTransport(server=server, workspace_root=tmp_path)
    raised.append(sync_caught.value)

    async def build() -> None:
        AsyncMcpHttpTransport(server=server, workspace_root=tmp_path)

    with pytest.raises(ValueError) as async_caught:
        asyncio.run(build())
    raised.append(async_caught.value)
    return raised


@pytest.mark.parametrize(("url", "named"), MALFORMED)
def test_a_malformed_url_is_refused_when_the_transport_is_made(
    url: str, named: str, tmp_path: Path
) -> None:
    with pytest.raises(ValueError) as client_caught:
        Client(url)
    for error in make_both(url, tmp_path):
        assert not isinstance(error, httpx.InvalidURL)
        assert str(error) == str(client_caught.value)  # one check, one message
        assert named in str(error)
        assert SECRET not in str(error) and SECRET[:3] not in str(error)


def test_a_well_formed_url_with_a_bad_port_was_httpx_s_invalid_url() -> None:
    """What the transports raised before: httpx's own error, quoting the port."""
    with pytest.raises(httpx.InvalidURL, match="80a"):
        httpx.URL(MALFORMED[1][0])


BAD_TIMEOUTS = [0, 0.0, -1, -0.5, math.nan]


@pytest.mark.parametrize("mode", ["sse", "json"])
def test_a_call_timeout_of_zero_negative_or_nan_is_refused(
    make_transport: MakeTransport, mcp_server_urls: dict[str, str], mode: str
) -> None:
    transport: Any = make_transport(mcp_server_urls[mode], listen=False)
    for bad in BAD_TIMEOUTS:
        with pytest.raises(ValueError, match=r"timeout_s must be greater than 0"):
            transport.request(method="ping", params=None, timeout_s=bad)
    initialize(transport)
    for bad in BAD_TIMEOUTS:
        with pytest.raises(ValueError, match=r"timeout_s must be greater than 0"):
            transport.request(method="tools/list", params=None, timeout_s=bad)
        with pytest.raises(ValueError, match=r"timeout_s must be greater than 0"):
            transport.send_notification(
                method="notifications/roots/list_changed", params=None, completion_timeout_s=bad
            )
    # None and math.inf: no limit; the session is intact after the refusals.
    for unbounded in (None, math.inf):
        listed = transport.request(method="tools/list", params=None, timeout_s=unbounded)
        assert listed.error is None and listed.result["tools"]


def test_a_connect_timeout_of_zero_or_nan_is_refused(tmp_path: Path) -> None:
    server = ResolvedMcpServer(id="edges", url="http://127.0.0.1:9/mcp")
    for bad in (0, -1, math.nan):
        with pytest.raises(ValueError, match="connect_timeout_s must be greater than 0"):
            McpHttpTransport(server=server, workspace_root=tmp_path, connect_timeout_s=bad)


def first_request_error(url: str, tmp_path: Path) -> list[McpHttpTransportError]:
    """What the first request of each transport to ``url`` raised (``initialize``)."""
    server = ResolvedMcpServer(id="edges", url=url, call_timeout_s=10.0)
    raised: list[McpHttpTransportError] = []
    with (
        pytest.raises(McpHttpTransportError) as caught,
        McpHttpTransport(server=server, workspace_root=tmp_path) as transport,
    ):
        initialize(transport)
    raised.append(caught.value)

    async def run() -> None:
        async with AsyncMcpHttpTransport(server=server, workspace_root=tmp_path) as transport:
            await transport.request(method="initialize", params=INIT, timeout_s=10.0)

    with pytest.raises(McpHttpTransportError) as async_caught:
        asyncio.run(run())
    raised.append(async_caught.value)
    return raised


INIT = {
    "protocolVersion": "2025-11-25",
    "capabilities": {},
    "clientInfo": {"name": "edges", "version": "0"},
}


def answers_over_https(origin: str, cert_path: Path) -> None:
    """The server is a real TLS server: ``https://`` reaches it."""
    context = ssl.create_default_context(cafile=str(cert_path))
    secure = origin.replace("http://", "https://")
    assert httpx.get(f"{secure}/", verify=context).text == "hello"


def test_http_to_a_port_that_answers_in_tls_is_explained(tmp_path: Path) -> None:
    with tls_site("alert") as (origin, cert_path):
        answers_over_https(origin, cert_path)
        url = f"http://user:{SECRET}@{origin.removeprefix('http://')}/mcp?token={SECRET}"
        errors = first_request_error(url, tmp_path)
    secure = origin.replace("http://", "https://") + "/mcp"
    for error in errors:
        message = str(error)
        assert "the server's answer is not HTTP: it begins as a TLS record does" in message
        assert f"try {secure}" in message
        assert SECRET not in message


def test_http_to_a_tls_port_that_closes_says_it_may_speak_tls(tmp_path: Path) -> None:
    with tls_site("close") as (origin, cert_path):
        answers_over_https(origin, cert_path)
        errors = first_request_error(f"{origin}/mcp", tmp_path)
    secure = origin.replace("http://", "https://") + "/mcp"
    for error in errors:
        assert "this port may speak TLS" in str(error), str(error)
        assert f"try {secure}" in str(error)
