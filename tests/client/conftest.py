"""Fixtures of the client tests: the demo server (the official SDK's ``MCPServer`` under
uvicorn, on a loopback port of this process), in SSE and in JSON mode, the transport tests'
fault server for what the demo server does not do, and a private token store directory for the
OAuth tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from mcpstream.demo import DemoServer
from transport.fault_server import FaultServer
from transport.forgetful import ForgetfulServer

TOOLS_PAGE_SIZE = 4


@pytest.fixture(scope="session")
def sse_server() -> Iterator[DemoServer]:
    """The demo server answering with event streams; ``tools/list`` comes in pages of 4."""
    with DemoServer(tools_page_size=TOOLS_PAGE_SIZE) as server:
        yield server


@pytest.fixture(scope="session")
def json_server() -> Iterator[DemoServer]:
    """The demo server answering with JSON bodies."""
    with DemoServer(json_response=True) as server:
        yield server


@pytest.fixture(params=["sse", "json"])
def server(request: pytest.FixtureRequest) -> DemoServer:
    """Each mode of the demo server in turn."""
    fixture = "sse_server" if request.param == "sse" else "json_server"
    demo: DemoServer = request.getfixturevalue(fixture)
    return demo


@pytest.fixture
def restartable_server() -> Iterator[DemoServer]:
    """A demo server of this test's own, which the test may stop and start again."""
    server = DemoServer().start()
    yield server
    server.stop()


@pytest.fixture
def config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private token store directory (the user's is never touched)."""
    directory = tmp_path / "config"
    monkeypatch.setenv("MCPSTREAM_CONFIG_DIR", str(directory))
    return directory


@pytest.fixture(scope="session")
def fault_server() -> Iterator[FaultServer]:
    """The misbehaving server of the transport tests (each test takes a path of its own)."""
    server = FaultServer()
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def forgetful_server() -> Iterator[ForgetfulServer]:
    """The official SDK's server that loses sessions on command (``transport.forgetful``)."""
    server = ForgetfulServer()
    yield server
    server.stop()
