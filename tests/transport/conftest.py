"""Fixtures of the transport tests: the servers, and a transport of each kind.

The codec backend is chosen for the whole run by ``MCPSTREAM_BACKEND`` (``python`` or
``native``), since the transports bind it at import; the suite is run once per backend. The
``transport_kind`` fixture runs every test that uses ``make_transport`` with the sync and the
async transport; the async one is driven through ``AsyncFacade`` on a background event loop, so
one test body serves both.

``client_stack`` runs them again over a host's ``httpx2`` client: ``own`` is the client the
transport makes (httpx), ``httpx2`` one ``httpx2.Client`` (or ``AsyncClient``) of the test's,
shared by every transport the test makes, as a host would share its client.
``MCPSTREAM_TEST_CLIENT_STACKS`` (a comma-separated list) picks some of them. Tests of what only
the transport's own client does (its fast paths, its GET stream's own client) are marked
``own_client`` and run with ``own`` alone (deselected otherwise, not skipped).
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Coroutine, Iterator
from concurrent.futures import Future
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest
from mcpstream import codec
from mcpstream.models import ResolvedMcpServer
from mcpstream.transport_http import AsyncMcpHttpTransport, McpHttpTransport

from .fault_server import FaultServer
from .forgetful import ForgetfulServer

T = TypeVar("T")
HERE = Path(__file__).parent


def pytest_report_header() -> str:
    """Say which codec backend the transports run on, which line of httpx ``httpx`` is
    (``httpx2`` under ``MCPSTREAM_TEST_ALIAS_HTTPX``), and whether the own clients are on the
    HTTP/1.1 transport (the default) or on httpx's (``MCPSTREAM_H1_TRANSPORT=0``)."""
    from mcpstream._http.httpx_clients import h1_enabled

    header = f"mcpstream codec backend: {codec.BACKEND}; the module httpx is {httpx.__name__}'s"
    if h1_enabled():
        return header + "; mcpstream's own clients on its HTTP/1.1 transport"
    return header + "; mcpstream's own clients on httpx's transport (MCPSTREAM_H1_TRANSPORT=0)"


class EventLoopThread:
    """An asyncio event loop on a thread of its own, to run coroutines from sync tests."""

    def __init__(
        self, new_loop: Callable[[], asyncio.AbstractEventLoop] = asyncio.new_event_loop
    ) -> None:
        self.loop = new_loop()
        self._thread = threading.Thread(target=self._run, name="test-event-loop", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_forever()

    def run(self, coroutine: Coroutine[Any, Any, T], timeout_s: float = 60.0) -> T:
        """Run ``coroutine`` on the loop and return its result (or raise its exception)."""
        future: Future[T] = asyncio.run_coroutine_threadsafe(coroutine, self.loop)
        return future.result(timeout_s)

    def stop(self) -> None:
        """Stop the loop and join its thread."""
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(10)
        self.loop.close()


class AsyncFacade:
    """``AsyncMcpHttpTransport`` behind the sync API, for tests shared by both transports."""

    def __init__(self, runner: EventLoopThread, transport: AsyncMcpHttpTransport) -> None:
        self._runner = runner
        self.inner = transport

    def request(self, *, method: str, params: Any, timeout_s: float) -> Any:
        """See ``AsyncMcpHttpTransport.request``."""
        return self._runner.run(
            self.inner.request(method=method, params=params, timeout_s=timeout_s)
        )

    def send_notification(
        self, *, method: str, params: Any, completion_timeout_s: float | None = None
    ) -> None:
        """See ``AsyncMcpHttpTransport.send_notification``."""
        self._runner.run(
            self.inner.send_notification(
                method=method, params=params, completion_timeout_s=completion_timeout_s
            )
        )

    def close(self) -> None:
        """See ``AsyncMcpHttpTransport.close``."""
        self._runner.run(self.inner.close())

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


@pytest.fixture(scope="session")
def fault_server() -> Iterator[FaultServer]:
    """The misbehaving server, shared by the session (each test takes its own path)."""
    server = FaultServer()
    server.start()
    yield server
    server.stop()


def _start_mcp_server(mode: str) -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen(
        [sys.executable, str(HERE / "mcp_sdk_server.py"), mode],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    if not line.startswith("READY "):
        process.kill()
        raise RuntimeError(f"the MCP SDK server ({mode}) did not start: {line!r}")
    return process, f"http://127.0.0.1:{int(line.split()[1])}/mcp"


@pytest.fixture(scope="session")
def mcp_server_urls() -> Iterator[dict[str, str]]:
    """The official SDK's MCP server in SSE mode, JSON mode and stateless mode (each speaks both
    eras): ``{"sse": url, "json": url, "stateless": url}``."""
    started = {mode: _start_mcp_server(mode) for mode in ("sse", "json", "stateless")}
    yield {mode: url for mode, (_, url) in started.items()}
    for process, _ in started.values():
        process.terminate()
    for process, _ in started.values():
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()


@pytest.fixture(scope="session")
def forgetful_server() -> Iterator[ForgetfulServer]:
    """The official SDK's server that loses sessions on command (``forgetful``)."""
    server = ForgetfulServer()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def http_sse_server() -> Iterator[str]:
    """The official SDK's server on the deprecated HTTP+SSE transport (its ``sse_app``):
    ``http://127.0.0.1:<port>`` (the stream is ``/sse``, the request counts ``/stats``)."""
    process, url = _start_mcp_server("http-sse")
    yield url.removesuffix("/mcp")
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()


@pytest.fixture(scope="session")
def event_loop_thread() -> Iterator[EventLoopThread]:
    """The background event loop that drives the async transport."""
    runner = EventLoopThread()
    yield runner
    runner.stop()


@pytest.fixture(scope="session")
def uvloop_thread() -> Iterator[EventLoopThread]:
    """An event loop of uvloop's (what a host may choose instead of asyncio's own) on a thread
    of its own."""
    import uvloop

    runner = EventLoopThread(uvloop.new_event_loop)
    yield runner
    runner.stop()


@pytest.fixture(params=["sync", "async"])
def transport_kind(request: pytest.FixtureRequest) -> str:
    """Which transport a shared test runs with."""
    return str(request.param)


MakeTransport = Callable[..., Any]


CLIENT_STACKS = ("own", "httpx2")


def selected_client_stacks() -> tuple[str, ...]:
    """The client stacks under test (``MCPSTREAM_TEST_CLIENT_STACKS``, default both)."""
    raw = os.environ.get("MCPSTREAM_TEST_CLIENT_STACKS", "")
    chosen = tuple(name.strip() for name in raw.split(",") if name.strip())
    unknown = set(chosen) - set(CLIENT_STACKS)
    if unknown:
        raise pytest.UsageError(f"MCPSTREAM_TEST_CLIENT_STACKS: unknown {sorted(unknown)}")
    return chosen or CLIENT_STACKS


@pytest.fixture(params=selected_client_stacks())
def client_stack(request: pytest.FixtureRequest) -> str:
    """Whose HTTP client the transports of ``make_transport`` use (see the module)."""
    return str(request.param)


@pytest.fixture
def host_httpx2_client(transport_kind: str, event_loop_thread: EventLoopThread) -> Iterator[Any]:
    """One ``httpx2`` client of the kind of the test's transports, closed after the test."""
    import httpx2

    if transport_kind == "sync":
        client: Any = httpx2.Client()
        yield client
        client.close()
        return

    async def build() -> httpx2.AsyncClient:
        return httpx2.AsyncClient()

    aclient = event_loop_thread.run(build())
    yield aclient
    event_loop_thread.run(aclient.aclose())


@pytest.fixture
def make_transport(
    transport_kind: str,
    client_stack: str,
    event_loop_thread: EventLoopThread,
    tmp_path: Path,
    request: pytest.FixtureRequest,
) -> Iterator[MakeTransport]:
    """Build transports of the current kind for ``url``, on the current ``client_stack`` (a
    ``client`` given by the test wins); all are closed after the test."""
    made: list[Any] = []
    if client_stack == "httpx2":
        host_client = request.getfixturevalue("host_httpx2_client")

    def make(
        url: str,
        *,
        call_timeout_s: float = 10.0,
        headers: dict[str, str] | None = None,
        **kwargs: Any,
    ) -> Any:
        server = ResolvedMcpServer(
            id="test", url=url, headers=headers or {}, call_timeout_s=call_timeout_s
        )
        if client_stack == "httpx2":
            kwargs.setdefault("client", host_client)
        transport: Any
        if transport_kind == "sync":
            transport = McpHttpTransport(server=server, workspace_root=tmp_path, **kwargs)
        else:

            async def build() -> AsyncMcpHttpTransport:
                return AsyncMcpHttpTransport(server=server, workspace_root=tmp_path, **kwargs)

            transport = AsyncFacade(event_loop_thread, event_loop_thread.run(build()))
        made.append(transport)
        return transport

    yield make
    for transport in made:
        transport.close()


@pytest.fixture(autouse=True, scope="session")
def _report_backend_choice() -> None:
    """Fail early when the requested backend is not the one in use."""
    wanted = os.environ.get("MCPSTREAM_BACKEND", "").strip().lower()
    if wanted:
        assert wanted == codec.BACKEND
