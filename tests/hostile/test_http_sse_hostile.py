"""The HTTP+SSE transport (2024-11-05) against hand-made hostile servers, what the SDK's
``sse_app`` never does: an ``endpoint`` event naming another origin, one past the byte cap or
the length limit, one never sent, a stream that ends under a waiting call. Each with the sync
and the async transport. Elapsed times are bounded generously."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import pytest
from mcpstream.errors import (
    McpHttpTransportError,
    McpHttpTransportProtocolError,
    McpHttpTransportSessionExpiredError,
    McpHttpTransportTimeoutError,
)

from .conftest import Serve
from .server import Connection, HostileServer, result


def _initialize(transport: Any, timeout_s: float = 5.0) -> Any:
    return transport.request(
        method="initialize",
        params={"protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "t"}},
        timeout_s=timeout_s,
    )


def _legacy_server(hostile: Serve, stream: Any, *, on_message: Any = None) -> HostileServer:
    """A server of the old transport: 405 to the initialize POST, ``stream`` answering the GET
    of ``/sse``; POSTs to ``/messages`` acknowledged with 202 (``on_message`` sees each)."""

    def sse(conn: Connection) -> None:
        if conn.method == "POST":
            conn.respond(
                b"Method Not Allowed", status="405 Method Not Allowed", content_type="text/plain"
            )
            return
        stream(conn)

    def messages(conn: Connection) -> None:
        conn.respond(b"Accepted", status="202 Accepted", content_type="text/plain")
        if on_message is not None:
            on_message(conn.jsonrpc)

    return hostile({"/sse": sse, "/messages": messages})


def _endpoint(conn: Connection, data: str) -> None:
    conn.stream_head()
    conn.send(f"event: endpoint\ndata: {data}\n\n".encode())


def _hold(conn: Connection, seconds: float) -> None:
    conn.stopping.wait(seconds)
    conn.end()


def test_an_endpoint_on_another_origin_is_refused(make_transport: Any, hostile: Serve) -> None:
    def stream(conn: Connection) -> None:
        _endpoint(conn, "http://127.0.0.2:9/messages?session_id=s3cr3t")
        _hold(conn, 5)

    server = _legacy_server(hostile, stream)
    transport = make_transport(f"{server.url}/sse")
    with pytest.raises(McpHttpTransportProtocolError, match="not on the server's origin") as caught:
        _initialize(transport)
    assert "s3cr3t" not in str(caught.value)
    assert not transport.http_sse
    # Nothing was POSTed anywhere but the first refused initialize.
    assert [r for r in server.requests if r[0] == "POST"] == [("POST", "/sse")]


def test_an_endpoint_with_another_scheme_or_credentials_is_refused(
    make_transport: Any, hostile: Serve
) -> None:
    def stream(conn: Connection) -> None:
        port = conn.sock.getsockname()[1]
        _endpoint(conn, f"http://user:pw@127.0.0.1:{port}/messages")
        _hold(conn, 5)

    server = _legacy_server(hostile, stream)
    with pytest.raises(McpHttpTransportProtocolError, match="not on the server's origin"):
        _initialize(make_transport(f"{server.url}/sse"))


def test_an_endpoint_past_the_byte_cap_is_refused(make_transport: Any, hostile: Serve) -> None:
    def stream(conn: Connection) -> None:
        _endpoint(conn, "/messages?pad=" + "x" * 5000)
        _hold(conn, 5)

    server = _legacy_server(hostile, stream)
    transport = make_transport(f"{server.url}/sse", max_event_bytes=1024)
    with pytest.raises(McpHttpTransportProtocolError, match="could not be decoded"):
        _initialize(transport)


def test_an_endpoint_past_the_length_limit_is_refused(make_transport: Any, hostile: Serve) -> None:
    def stream(conn: Connection) -> None:
        _endpoint(conn, "/messages?pad=" + "x" * 5000)
        _hold(conn, 5)

    server = _legacy_server(hostile, stream)
    with pytest.raises(McpHttpTransportProtocolError, match="longer than 4096"):
        _initialize(make_transport(f"{server.url}/sse"))


def test_an_endpoint_never_sent_fails_within_the_call_timeout(
    make_transport: Any, hostile: Serve
) -> None:
    def stream(conn: Connection) -> None:
        conn.stream_head()
        # Comments and other events, never the endpoint.
        while not conn.stopping.is_set() and conn.send(
            b": keep-alive\n\nevent: other\ndata: x\n\n"
        ):
            time.sleep(0.05)

    server = _legacy_server(hostile, stream)
    transport = make_transport(f"{server.url}/sse", call_timeout_s=1.5)
    started = time.monotonic()
    with pytest.raises(McpHttpTransportTimeoutError, match="no endpoint event"):
        _initialize(transport, timeout_s=1.5)
    assert time.monotonic() - started < 8
    assert not transport.listening


def test_a_stream_that_ends_fails_the_waiting_call_as_a_lost_session(
    make_transport: Any, hostile: Serve
) -> None:
    gate = threading.Event()
    state: dict[str, Any] = {}

    def stream(conn: Connection) -> None:
        state["conn"] = conn  # before the endpoint: the client's first POST may come at once
        _endpoint(conn, "/messages?session_id=abc")
        while not gate.is_set() and not conn.stopping.is_set():
            time.sleep(0.01)
        conn.end()

    def on_message(message: dict[str, Any]) -> None:
        conn = state["conn"]
        if message.get("method") == "initialize":
            payload = result(
                message["id"],
                {
                    "protocolVersion": "2024-11-05",
                    "capabilities": {},
                    "serverInfo": {"name": "hostile"},
                },
            )
            conn.send(f"event: message\ndata: {json.dumps(payload)}\n\n".encode())
        elif message.get("method") == "tools/call":
            gate.set()  # the stream ends under the call: its answer never comes

    server = _legacy_server(hostile, stream, on_message=on_message)
    transport = make_transport(f"{server.url}/sse", call_timeout_s=10)
    assert _initialize(transport).result["serverInfo"]["name"] == "hostile"
    started = time.monotonic()
    with pytest.raises(McpHttpTransportSessionExpiredError) as caught:
        transport.request(method="tools/call", params={"name": "x"}, timeout_s=10)
    assert time.monotonic() - started < 8
    assert caught.value.request_delivered  # it was POSTed: not to be sent again blindly
    assert "abc" not in str(caught.value)
    with pytest.raises(McpHttpTransportSessionExpiredError) as later:
        transport.request(method="ping", params=None, timeout_s=5)
    assert not later.value.request_delivered


def test_a_malformed_message_is_skipped_and_the_stream_goes_on(
    make_transport: Any, hostile: Serve
) -> None:
    state: dict[str, Any] = {}

    def stream(conn: Connection) -> None:
        state["conn"] = conn  # before the endpoint: the client's first POST may come at once
        _endpoint(conn, "/messages")
        _hold(conn, 10)

    def on_message(message: dict[str, Any]) -> None:
        conn = state["conn"]
        conn.send(b"event: message\ndata: {not json\n\n")
        conn.send(
            b"event: message\ndata: "
            + json.dumps(
                result(
                    message["id"],
                    {
                        "protocolVersion": "2024-11-05",
                        "capabilities": {},
                        "serverInfo": {"name": "after junk"},
                    },
                )
            ).encode()
            + b"\n\n"
        )

    server = _legacy_server(hostile, stream, on_message=on_message)
    transport = make_transport(f"{server.url}/sse")
    assert _initialize(transport).result["serverInfo"]["name"] == "after junk"


def test_an_endpoint_that_answers_404_is_a_lost_session(
    make_transport: Any, hostile: Serve
) -> None:
    def stream(conn: Connection) -> None:
        _endpoint(conn, "/gone")
        _hold(conn, 10)

    server = _legacy_server(hostile, stream)
    transport = make_transport(f"{server.url}/sse")
    with pytest.raises(McpHttpTransportError) as caught:
        _initialize(transport)
    assert isinstance(caught.value, McpHttpTransportSessionExpiredError)
