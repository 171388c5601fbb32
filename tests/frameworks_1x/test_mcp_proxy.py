"""mcp-proxy's client side (the stdio server that bridges to a Streamable HTTP server, what
``mcp-proxy --transport streamablehttp URL`` runs) over mcpstream by ``install()``: its module
binds the SDK's ``streamablehttp_client`` at import, which ``install()`` rebinds. The proxy runs
in-process, in a thread, on its own entry function, with its stdin and stdout on pipes; the test
is its host, writing and reading JSON-RPC lines as a stdio MCP client does."""

from __future__ import annotations

import json
import logging
import os
import select
import sys
import threading
import time
from typing import Any

import anyio
import pytest
from mcp_proxy.streamablehttp_client import run_streamablehttp_client

from .conftest import STEPS, Relays

WAIT_S = 30.0
"""The bound on each wait for the proxy (a hang fails the test instead of the suite)."""


class ProxyStdio:
    """The host's end of the proxy's stdin and stdout: JSON-RPC messages, one a line."""

    def __init__(self, to_proxy: int, from_proxy: int) -> None:
        self.to_proxy = to_proxy
        self.from_proxy = from_proxy
        self._pending = b""

    def send(self, message: dict[str, Any]) -> None:
        """Write ``message`` to the proxy's stdin."""
        os.write(self.to_proxy, json.dumps({"jsonrpc": "2.0", **message}).encode() + b"\n")

    def receive(self) -> dict[str, Any]:
        """The next message the proxy wrote."""
        deadline = time.monotonic() + WAIT_S
        while b"\n" not in self._pending:
            ready, _, _ = select.select([self.from_proxy], [], [], deadline - time.monotonic())
            assert ready, "the proxy did not answer"
            chunk = os.read(self.from_proxy, 1 << 20)
            assert chunk, "the proxy ended its stdout"
            self._pending += chunk
        line, _, self._pending = self._pending.partition(b"\n")
        message: dict[str, Any] = json.loads(line)
        return message


@pytest.mark.usefixtures("installed")
def test_a_call_through_the_proxy_runs_over_mcpstream(
    server_url: str,
    relays: Relays,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, "mcp_proxy.httpx_client")
    proxy_in, host_out = os.pipe()
    host_in, proxy_out = os.pipe()
    # The proxy's stdio server reads sys.stdin and writes sys.stdout (their binary buffers).
    proxy_stdin = open(proxy_in, encoding="utf-8")  # noqa: SIM115  # closed below
    proxy_stdout = open(proxy_out, "w", encoding="utf-8")  # noqa: SIM115
    monkeypatch.setattr(sys, "stdin", proxy_stdin)
    monkeypatch.setattr(sys, "stdout", proxy_stdout)
    failures: list[BaseException] = []

    def proxy() -> None:
        try:
            anyio.run(run_streamablehttp_client, server_url)
        except BaseException as exc:  # reported by the test
            failures.append(exc)

    thread = threading.Thread(target=proxy, daemon=True)
    thread.start()
    host = ProxyStdio(host_out, host_in)
    try:
        host.send(
            {
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "host", "version": "0"},
                },
            }
        )
        initialized = host.receive()
        host.send({"method": "notifications/initialized"})
        host.send({"id": 2, "method": "tools/list"})
        listed = host.receive()
        host.send(
            {
                "id": 3,
                "method": "tools/call",
                "params": {"name": "echo", "arguments": {"text": "via proxy"}},
            }
        )
        echoed = host.receive()
        host.send(
            {
                "id": 4,
                "method": "tools/call",
                "params": {
                    "name": "count",
                    "arguments": {"steps": STEPS},
                    "_meta": {"progressToken": "p"},
                },
            }
        )
        counted = [host.receive() for _ in range(STEPS + 1)]
    finally:
        os.close(host_out)  # the proxy's stdin ends: it closes its session and stops
        thread.join(WAIT_S)
        os.close(host_in)
        proxy_stdin.close()
        proxy_stdout.close()
    assert not thread.is_alive()
    assert failures == []
    # The proxy answers with the remote server's name, tools and results.
    assert initialized["result"]["serverInfo"]["name"] == "frameworks-1x"
    assert sorted(tool["name"] for tool in listed["result"]["tools"]) == [
        "big_text",
        "count",
        "echo",
    ]
    assert echoed["result"]["content"][0]["text"] == "via proxy"
    progress = [message["params"] for message in counted[:-1]]
    assert [(p["progressToken"], p["progress"]) for p in progress] == [
        ("p", step) for step in range(1, STEPS + 1)
    ]
    assert counted[-1]["result"]["content"][0]["text"] == f"counted {STEPS}"
    assert relays.made == 1
    # mcp-proxy's own HTTP client (its factory's, with its logging hooks) made the requests.
    requests = [r.getMessage() for r in caplog.records if r.name == "mcp_proxy.httpx_client"]
    assert f"HTTP Request: POST {server_url}" in requests
