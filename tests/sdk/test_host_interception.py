"""What a host or its platform installed on its client's way runs under ``mcpstream.sdk`` for
every request, as over the SDK's own transport: OpenTelemetry's httpx instrumentation (on the
client and on the classes), respx's pass-through route, a wrapper of the host's on the client's
transport or on the client; found too when installed after the session opened. Each against
the SDK's server under ``mcp.Client``, on both stacks and in both eras, the requests counted on
the wire by a tap in front of the server (``Tap``)."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import httpx
import httpx2
import mcpstream._http.interception as interception_module
import pytest
import respx
from mcp import Client
from mcp.client.streamable_http import streamable_http_client as sdk_transport
from mcpstream._http.httpx_clients import H1_ENV
from mcpstream._http.interception import Interception, interception
from mcpstream._httpbase.stack import stack_named
from mcpstream.sdk import streamable_http_client
from mcpstream.sdk.host import HostClient
from opentelemetry.instrumentation.httpx import HTTPX2ClientInstrumentor, HTTPXClientInstrumentor
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from .conftest import run
from .relays import Relays
from .test_host_h1 import Tap, _echo

STACKS = {"httpx2": httpx2, "httpx": httpx}
INSTRUMENTORS: dict[str, Any] = {
    "httpx2": HTTPX2ClientInstrumentor,
    "httpx": HTTPXClientInstrumentor,
}
"""OpenTelemetry's instrumentation of each stack."""


@pytest.fixture(autouse=True)
def _default_transport(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(H1_ENV, "1")  # the default: a stock client would go over mcpstream's


@pytest.fixture
def spans() -> Iterator[tuple[TracerProvider, InMemorySpanExporter]]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    yield provider, exporter
    provider.shutdown()


def _session(
    url: str, host: Any, mode: str, between: Callable[[], None] | None = None
) -> Awaitable[None]:
    """A session over the host's client: one call, ``between()``, one more call."""

    async def main() -> None:
        async with Client(streamable_http_client(url, http_client=host), mode=mode) as client:
            assert await _echo(client) == "over the host's client"
            if between is not None:
                between()
            assert await _echo(client) == "over the host's client"

    return main()


def _sdk_session(url: str, host: Any, mode: str) -> Awaitable[None]:
    """``_session`` over the SDK's own transport."""

    async def main() -> None:
        async with Client(sdk_transport(url, http_client=host), mode=mode) as client:
            assert await _echo(client) == "over the host's client"
            assert await _echo(client) == "over the host's client"

    return main()


def _kept(relays: Relays) -> bool:
    """Whether the session's requests went through the host's own transport."""
    host_client = relays.each[0].host_client
    assert host_client is not None
    return host_client.own_transport is None


@pytest.mark.parametrize("stack", ["httpx2", "httpx"])
def test_opentelemetrys_client_instrumentation_sees_every_request(
    mcp_server_urls: dict[str, str],
    mode: str,
    stack: str,
    relays: Relays,
    spans: tuple[TracerProvider, InMemorySpanExporter],
) -> None:
    provider, exporter = spans

    async def main() -> tuple[int, bytes]:
        async with Tap(mcp_server_urls["sse"]) as tap, STACKS[stack].AsyncClient() as host:
            INSTRUMENTORS[stack].instrument_client(host, tracer_provider=provider)
            await _session(tap.url, host, mode)
            assert _kept(relays)
            return tap.requests(), tap.sent

    requests, wire = run(main())
    assert requests >= 4  # the handshake or discovery, two calls
    client_spans = [s for s in exporter.get_finished_spans() if s.name in ("POST", "GET", "DELETE")]
    assert len(client_spans) == requests  # one span a request, none skipped
    assert wire.lower().count(b"\r\ntraceparent: 00-") == requests


@pytest.mark.parametrize("stack", ["httpx2", "httpx"])
def test_opentelemetrys_class_instrumentation_sees_every_request(
    mcp_server_urls: dict[str, str],
    mode: str,
    stack: str,
    relays: Relays,
    spans: tuple[TracerProvider, InMemorySpanExporter],
) -> None:
    # instrument() wraps the stack's transport classes, for every client made after it.
    provider, exporter = spans
    instrumentor = INSTRUMENTORS[stack]()
    instrumentor.instrument(tracer_provider=provider)
    try:

        async def main() -> int:
            async with Tap(mcp_server_urls["sse"]) as tap, STACKS[stack].AsyncClient() as host:
                await _session(tap.url, host, mode)
                assert _kept(relays)
                return tap.requests()

        requests = run(main())
    finally:
        instrumentor.uninstrument()
    assert requests >= 4
    assert len(exporter.get_finished_spans()) == requests


@pytest.mark.parametrize("stack", ["httpx2", "httpx"])
@pytest.mark.parametrize("where", ["transport", "client"])
def test_a_wrapper_set_on_the_host_clients_objects_runs_for_every_request(
    mcp_server_urls: dict[str, str], mode: str, stack: str, where: str, relays: Relays
) -> None:
    # An egress control or an audit log of the host's: the transport's handle_async_request,
    # or the client's _send_single_request, wrapped on the object.
    seen: list[str] = []

    async def main() -> int:
        async with Tap(mcp_server_urls["sse"]) as tap, STACKS[stack].AsyncClient() as host:
            owner = host._transport if where == "transport" else host
            name = "handle_async_request" if where == "transport" else "_send_single_request"
            original = getattr(owner, name)

            async def audited(request: Any, *args: Any, **kwargs: Any) -> Any:
                seen.append(request.method)
                return await original(request, *args, **kwargs)

            setattr(owner, name, audited)
            await _session(tap.url, host, mode)
            assert _kept(relays)
            return tap.requests()

    requests = run(main())
    assert requests >= 4
    assert len(seen) == requests


def test_respx_sees_every_request_it_passes_through(
    mcp_server_urls: dict[str, str], mode: str, relays: Relays
) -> None:
    # respx replaces httpcore's pool and connection methods; a pass-through route sends on.
    # The yardstick is the SDK's own transport on the same kind of client: respx's route is
    # called as many times for each request under mcpstream as under it.
    async def main(over_mcpstream: bool) -> tuple[int, int]:
        async with Tap(mcp_server_urls["sse"]) as tap:
            with respx.mock(assert_all_called=True) as mock:
                route = mock.route().pass_through()
                async with httpx.AsyncClient() as host:
                    if over_mcpstream:
                        await _session(tap.url, host, mode)
                        assert _kept(relays)
                    else:
                        await _sdk_session(tap.url, host, mode)
            return tap.requests(), route.call_count

    requests, routed = run(main(True))
    sdk_requests, sdk_routed = run(main(False))
    assert requests >= 4 and sdk_requests >= 4
    assert routed * sdk_requests == sdk_routed * requests
    assert routed >= requests


@pytest.mark.parametrize("stack", ["httpx2", "httpx"])
def test_a_hook_installed_during_the_session_runs_from_the_next_request(
    mcp_server_urls: dict[str, str],
    mode: str,
    stack: str,
    relays: Relays,
    spans: tuple[TracerProvider, InMemorySpanExporter],
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    provider, exporter = spans
    monkeypatch.setattr(interception_module, "_SAID", set())  # (said once per process)
    held: dict[str, Any] = {}

    def instrument() -> None:
        assert not _kept(relays)  # until now a stock client: over mcpstream's transport
        held["before"] = held["tap"].requests()
        INSTRUMENTORS[stack].instrument_client(held["host"], tracer_provider=provider)

    async def main() -> int:
        async with Tap(mcp_server_urls["sse"]) as tap, STACKS[stack].AsyncClient() as host:
            held.update(tap=tap, host=host)
            with caplog.at_level(logging.INFO, logger="mcpstream"):
                await _session(tap.url, host, mode, between=instrument)
            return tap.requests()

    requests = run(main())
    # The second call (and the closing DELETE of the handshake era) went the host's way, each
    # with its span.
    after = requests - held["before"]
    assert after >= 1
    assert len(exporter.get_finished_spans()) == after
    said = [r.getMessage() for r in caplog.records if "keeps its own transport" in r.getMessage()]
    assert len(said) == 1 and "_is_instrumented_by_opentelemetry" in said[0]


@pytest.mark.parametrize("stack", ["httpx2", "httpx"])
def test_a_stock_client_has_nothing_on_its_way(stack: str) -> None:
    # The check's baseline: a stock client of either stack is clear (and goes over mcpstream's
    # transport), so a finding is never the stack's own methods.
    host = STACKS[stack].AsyncClient()
    assert interception(host, stack_named(stack)) is None
    assert HostClient(host).own_transport is not None


@pytest.mark.parametrize("stack", ["httpx2", "httpx"])
def test_each_kind_of_hook_is_named(stack: str, monkeypatch: pytest.MonkeyPatch) -> None:
    module, own = STACKS[stack], stack_named(stack)

    host = module.AsyncClient()
    host._is_instrumented_by_opentelemetry = True
    assert "_is_instrumented_by_opentelemetry" in (interception(host, own) or "")

    host = module.AsyncClient()
    check = Interception(host, own)
    assert check.reason() is None
    # Replaced on the class after the check passed: found at the next one.
    original = module.AsyncClient._send_single_request

    async def replaced(self: Any, request: Any) -> Any:
        return await original(self, request)

    monkeypatch.setattr(module.AsyncClient, "_send_single_request", replaced)
    assert "_send_single_request is not" in (check.reason() or "")
    monkeypatch.undo()
    assert check.reason() is None

    # A functools.wraps wrapper of the core's pool method, on the class.
    import functools

    pool_type = own.httpcore.AsyncConnectionPool
    method = pool_type.handle_async_request

    @functools.wraps(method)
    async def wrapped(self: Any, request: Any) -> Any:
        return await method(self, request)

    monkeypatch.setattr(pool_type, "handle_async_request", wrapped)
    assert "AsyncConnectionPool.handle_async_request" in (check.reason() or "")
    assert HostClient(host).own_transport is None
