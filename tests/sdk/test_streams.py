"""Failures under the SDK's session, compared with the SDK's own transport: each failure runs
over both transports (``mcp.Client``, and ``ClientSession`` for those of the handshake), and
what the host sees must be the same: the same exception classes with the same wrapping (an
``ExceptionGroup`` of the HTTP client's exception where the SDK's transport raises it), or
the same JSON-RPC error code where it answers with one. And the host client's timeouts
govern the waits, as under the SDK's transport."""

from __future__ import annotations

import socket
import time
from typing import Any

import httpx2
import mcp_types as types
import pytest
from mcp import Client, ClientSession, MCPError

from tests.hostile.server import Connection, sse_event

from .conftest import run
from .test_hostile import _server
from .transports import TRANSPORTS, shape

HOST_TIMEOUT_S = 2.0


def _closed_port_url() -> str:
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()  # nothing listens there now: the connection is refused
    return f"http://127.0.0.1:{port}/mcp"


async def _client_outcome(factory: Any, url: str, **options: Any) -> str:
    """What ``mcp.Client`` shows of a handshake and a ``tools/call``: the shape of the
    exception ``async with`` raises, of the call's ``MCPError``, or ``ok``."""
    try:
        async with Client(factory(url, **options), mode="legacy") as client:
            try:
                await client.call_tool("bad", {})
            except MCPError as exc:
                return "call " + shape(exc)
            return "ok"
    except Exception as exc:
        return "session " + shape(exc)


async def _session_outcome(factory: Any, url: str, **options: Any) -> str:
    """The same under ``ClientSession`` over the transport's streams."""
    try:
        async with factory(url, **options) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            try:
                await s.call_tool("bad", {})
            except MCPError as exc:
                return "call " + shape(exc)
            return "ok"
    except Exception as exc:
        return "session " + shape(exc)


def _both(url: str, session: bool = True, **options: Any) -> dict[str, list[str]]:
    async def main() -> dict[str, list[str]]:
        seen: dict[str, list[str]] = {}
        for name, factory in TRANSPORTS.items():
            seen[name] = [await _client_outcome(factory, url, **options)]
            if session:
                seen[name].append(await _session_outcome(factory, url, **options))
        return seen

    return run(main(), 60)


HANDSHAKE_FAILURES = ["refused", "dns", "tls"]


@pytest.mark.parametrize("failure", HANDSHAKE_FAILURES)
def test_a_handshake_failure_is_the_sdks(mcp_server_urls: dict[str, str], failure: str) -> None:
    if failure == "refused":
        url = _closed_port_url()
    elif failure == "dns":
        url = "http://no-such-host.invalid/mcp"
    else:  # TLS to a port that speaks plain HTTP: the handshake fails
        url = mcp_server_urls["sse"].replace("http://", "https://")
    seen = _both(url)
    assert seen["mcpstream"] == seen["sdk"]
    assert seen["sdk"][0] == "session builtins.ExceptionGroup[httpx2.ConnectError]"


def _stream_without_response(connection: Connection, request_id: Any) -> None:
    connection.stream_head()
    connection.send(
        sse_event(
            {
                "jsonrpc": "2.0",
                "method": "notifications/message",
                "params": {"level": "info", "data": "x"},
            }
        )
    )
    connection.end()


CALL_FAILURES: dict[str, Any] = {
    "500": lambda c, i: c.respond(b"boom", status="500 Oops", content_type="text/plain"),
    "400": lambda c, i: c.respond(b"no", status="400 Bad Request", content_type="text/plain"),
    "404 without a session": lambda c, i: c.respond(
        b"gone", status="404 Not Found", content_type="text/plain"
    ),
    "stream ended without a response": _stream_without_response,
    "closed before the answer": lambda c, i: c.end(),
}


@pytest.mark.parametrize("failure", sorted(CALL_FAILURES))
def test_a_call_failure_is_the_sdks(hostile: Any, failure: str) -> None:
    server = hostile({"/mcp": _server(CALL_FAILURES[failure])})
    seen = _both(server.url + "/mcp")
    assert seen["mcpstream"] == seen["sdk"]
    assert seen["sdk"] == [EXPECTED[failure]] * 2


EXPECTED = {
    "500": f"call mcp.shared.exceptions.MCPError({types.INTERNAL_ERROR})",
    "400": f"call mcp.shared.exceptions.MCPError({types.INTERNAL_ERROR})",
    "404 without a session": f"call mcp.shared.exceptions.MCPError({types.METHOD_NOT_FOUND})",
    "stream ended without a response": (
        f"call mcp.shared.exceptions.MCPError({types.CONNECTION_CLOSED})"
    ),
    "closed before the answer": "session builtins.ExceptionGroup[httpx2.RemoteProtocolError]",
}


@pytest.mark.parametrize("transport", sorted(TRANSPORTS))
def test_the_host_clients_timeout_governs_a_silent_server(silent_url: str, transport: str) -> None:
    async def main() -> tuple[str, float]:
        async with httpx2.AsyncClient(timeout=httpx2.Timeout(HOST_TIMEOUT_S)) as client:
            started = time.monotonic()
            outcome = await _client_outcome(TRANSPORTS[transport], silent_url, http_client=client)
            return outcome, time.monotonic() - started

    outcome, elapsed = run(main(), 60)
    assert outcome == "session builtins.ExceptionGroup[httpx2.ReadTimeout]"
    # Near the host's 2 s (mcpstream's own deadline is minutes): margins for a loaded machine.
    assert HOST_TIMEOUT_S * 0.9 <= elapsed < HOST_TIMEOUT_S + 6.0
