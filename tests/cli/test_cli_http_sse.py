"""The command against a server of the deprecated HTTP+SSE transport (the demo server's
``sse_app``): it falls back by itself, and says so ("legacy HTTP+SSE")."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from mcpstream.demo import DemoServer

from .conftest import RunCommand


@pytest.fixture(scope="module")
def sse_url() -> Iterator[str]:
    """The demo server on the HTTP+SSE transport (``/sse``)."""
    with DemoServer(http_sse=True) as server:
        yield server.url


def test_tools_shows_the_http_sse_transport(mcpstream_cli: RunCommand, sse_url: str) -> None:
    run = mcpstream_cli("tools", sse_url)
    assert run.status == 0, run.err
    assert "mcpstream-demo (legacy HTTP+SSE, protocol 2025-11-25): 14 tools" in run.out


def test_call_and_ping_over_http_sse(mcpstream_cli: RunCommand, sse_url: str) -> None:
    run = mcpstream_cli("call", sse_url, "add", "a=2", "b=3", "--protocol", "http+sse")
    assert run.status == 0, run.err
    assert "5" in run.out
    run = mcpstream_cli("ping", sse_url)
    assert run.status == 0, run.err
    assert "(legacy HTTP+SSE, protocol 2025-11-25)" in run.out


def test_tools_json_names_the_transport(mcpstream_cli: RunCommand, sse_url: str) -> None:
    run = mcpstream_cli("tools", sse_url, "--json")
    assert run.status == 0, run.err
    server = json.loads(run.out)["server"]
    assert server["transport"] == "http+sse"
    assert server["era"] == "legacy"
