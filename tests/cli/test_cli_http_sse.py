"""The command against a server of the deprecated HTTP+SSE transport (the demo server's
``sse_app``): it falls back by itself, and says so ("legacy HTTP+SSE")."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from legacy_server import ts_sdk_2024_server
from mcpstream.demo import DemoServer

from .conftest import RunCommand


@pytest.fixture(scope="module")
def sse_url() -> Iterator[str]:
    """The demo server on the HTTP+SSE transport (``/sse``)."""
    with DemoServer(http_sse=True) as server:
        yield server.url


@pytest.fixture(scope="module")
def ts_sdk_2024() -> Iterator[str]:
    """A real 2024-11-05 server (the TypeScript SDK 1.0.4 on HTTP+SSE), answering
    ``initialize`` with protocol version 2024-11-05."""
    with ts_sdk_2024_server() as url:
        yield url


@pytest.mark.parametrize("pin", [[], ["--protocol", "http+sse"], ["--protocol", "2024-11-05"]])
def test_the_command_speaks_to_a_2024_11_05_server(
    mcpstream_cli: RunCommand, ts_sdk_2024: str, pin: list[str]
) -> None:
    run = mcpstream_cli("tools", ts_sdk_2024, *pin)
    assert run.status == 0, run.err
    assert "ts-sdk-2024 1.0.4 (legacy HTTP+SSE, protocol 2024-11-05): 2 tools" in run.out
    run = mcpstream_cli("call", ts_sdk_2024, "add", "a=2", "b=40", *pin)
    assert run.status == 0, run.err
    assert run.out.strip() == "42"
    run = mcpstream_cli("ping", ts_sdk_2024, *pin)
    assert run.status == 0, run.err
    assert "(legacy HTTP+SSE, protocol 2024-11-05)" in run.out


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
