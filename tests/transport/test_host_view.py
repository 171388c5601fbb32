"""A view of a host's client over a transport of its own (``mcpstream._http.host_view``): the
GET stream of the sync front end on a host's HTTP/2 client has a connection of its own, so
that no thread reads the TLS socket the calls' threads write to, against the SDK's server under
hypercorn over TLS (a private CA, HTTP/2 by ALPN), on both stacks."""

from __future__ import annotations

import ssl
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import httpx2
import pytest
from mcpstream import Client
from mcpstream._http.host_view import own_connection, speaks_http2
from mcpstream._httpbase.stack import stack_of
from mcpstream.jsonrpc import JsonRpcNotification

from .host_servers import HostServer, tls_server

__all__ = ["tls_server"]

STACKS = {"httpx": httpx, "httpx2": httpx2}
BOUND_S = 45.0
"""What a session of the tests below may take at most: a hang fails the test."""


@pytest.fixture(params=sorted(STACKS))
def stack(request: pytest.FixtureRequest) -> Any:
    """The host's stack: httpx or httpx2."""
    return STACKS[request.param]


def _context(server: HostServer) -> ssl.SSLContext:
    return ssl.create_default_context(cafile=str(server.ca))


def test_a_sync_session_over_an_http2_client_never_hangs(
    tls_server: HostServer, stack: Any
) -> None:
    """Calls from two threads, with the GET stream open on its own thread, then a notification
    on the GET stream: every call answered, the notification delivered, all within the bound
    (calls of several threads at once take turns on the connection: httpcore's sync HTTP/2
    connection does not make them safe, under httpx itself either)."""
    seen: list[str] = []
    notified = threading.Event()
    outcome: dict[str, Any] = {}

    def on_notification(notification: JsonRpcNotification) -> None:
        seen.append(notification.method)
        if notification.method == "notifications/tools/list_changed":
            notified.set()

    def session() -> None:
        with (
            stack.Client(http2=True, verify=_context(tls_server)) as http,
            Client(
                tls_server.url(),
                http_client=http,
                notification_handler=on_notification,
                protocol="legacy",  # the handshake era: the GET stream is open throughout
            ) as c,
        ):
            c.list_tools()
            with ThreadPoolExecutor(2) as pool:  # calls of two threads: one at a time
                texts = pool.map(lambda i: c.call_tool("echo", {"text": f"m{i}"}).text, range(40))
                outcome["texts"] = list(texts)
            outcome["poked"] = c.call_tool("poke", {}).text
            outcome["notified"] = notified.wait(10)
            outcome["http_version"] = http.get(tls_server.origin + "/").http_version

    worker = threading.Thread(target=session, daemon=True)
    worker.start()
    worker.join(BOUND_S)
    assert not worker.is_alive(), "the session hung"
    assert outcome["texts"] == [f"m{i}" for i in range(40)]
    assert outcome["poked"] == "poked"
    assert outcome["notified"], seen
    assert outcome["http_version"] == "HTTP/2"


def test_the_stream_of_an_http2_client_gets_a_connection_of_its_own(
    tls_server: HostServer, stack: Any
) -> None:
    context = _context(tls_server)
    with stack.Client(http2=True, verify=context, headers={"x-host": "1"}) as http:
        own = own_connection(http, stack_of(http))
        assert own is not None
        view, transport = own
        try:
            assert transport is not http._transport
            assert transport._pool._ssl_context is context  # the host's TLS settings
            assert transport._pool._http2 is True
            assert isinstance(view, type(http))
            assert view.headers["x-host"] == "1"  # everything else is the host's client's
            response = view.get(tls_server.origin + "/")
            assert response.http_version == "HTTP/2"
            assert len(transport._pool.connections) == 1
            assert len(http._transport._pool.connections) == 0  # the host's pool untouched
        finally:
            transport.close()
        assert not http.is_closed  # closing the view's transport leaves the host's client


def test_a_client_of_http11_only_or_of_its_own_transport_keeps_its_connections(
    stack: Any,
) -> None:
    with stack.Client() as http:
        assert own_connection(http, stack_of(http)) is None
        assert not speaks_http2(http, stack_of(http))
    own_type = type("OwnTransport", (stack.HTTPTransport,), {})  # a transport of the host's
    with stack.Client(transport=own_type(http2=True)) as http:
        assert own_connection(http, stack_of(http)) is None
        assert not speaks_http2(http, stack_of(http))
    with stack.Client(http2=True) as http:
        assert speaks_http2(http, stack_of(http))  # (its calls take turns: McpHttpTransport)


def test_an_http2_client_with_a_hook_on_its_way_keeps_its_transport_and_never_hangs(
    tls_server: HostServer, stack: Any
) -> None:
    """OpenTelemetry's instrumentation on a host's sync HTTP/2 client: the GET stream is not
    given a connection of its own (its requests would skip the hook on the client's
    transport), nor does it read the calls' connection: the session has no GET stream, every
    request has its span, and calls from two threads are all answered within the bound."""
    from opentelemetry.instrumentation.httpx import (
        HTTPX2ClientInstrumentor,
        HTTPXClientInstrumentor,
    )
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    instrumentor = HTTPX2ClientInstrumentor if stack is httpx2 else HTTPXClientInstrumentor
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    sent: list[str] = []
    outcome: dict[str, Any] = {}

    def session() -> None:
        with stack.Client(
            http2=True,
            verify=_context(tls_server),
            event_hooks={"request": [lambda request: sent.append(request.method)]},
        ) as http:
            instrumentor.instrument_client(http, tracer_provider=provider)
            assert own_connection(http, stack_of(http)) is None
            with (
                Client(tls_server.url(), http_client=http, protocol="legacy") as c,
                ThreadPoolExecutor(2) as pool,
            ):
                texts = pool.map(lambda i: c.call_tool("echo", {"text": f"m{i}"}).text, range(10))
                outcome["texts"] = list(texts)

    worker = threading.Thread(target=session, daemon=True)
    worker.start()
    worker.join(BOUND_S)
    provider.shutdown()
    assert not worker.is_alive(), "the session hung"
    assert outcome["texts"] == [f"m{i}" for i in range(10)]
    assert "GET" not in sent  # no GET stream
    assert len(exporter.get_finished_spans()) == len(sent) >= 12  # a span for every request
