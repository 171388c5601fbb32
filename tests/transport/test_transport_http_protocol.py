"""Both transports against the fault server: headers, statuses, sessions, server requests,
resumption, the GET stream, closing, and secrets kept out of errors."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from mcpstream import __version__
from mcpstream._http.core import ListenStream
from mcpstream.errors import (
    McpAuthError,
    McpHttpTransportAuthRequiredError,
    McpHttpTransportError,
    McpHttpTransportProtocolError,
    McpHttpTransportRemoteError,
    McpHttpTransportSessionExpiredError,
    McpProtocolError,
    McpRemoteError,
)
from mcpstream.server_requests import (
    McpServerRequestHandlerError,
    McpUnsupportedServerRequestError,
)
from mcpstream.transport_http import ReconnectPolicy

from .conftest import EventLoopThread
from .fault_server import Conn, FaultServer, Request, notification, result, server_request, sse
from .helpers import ScriptedHandler, close_shared_pools, free_port, open_sockets_to

SESSION = "session-abc"


def wait_until(predicate: Any, timeout_s: float = 5.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not predicate():
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.01)


def primed_then_ended(event_id: str = "e1", retry_ms: int = 10) -> Any:
    """An ``on_call`` for ``session_server``: the server takes the call and primes its stream
    (one event id, a retry delay), then the stream ends before the response."""

    async def on_call(request: Request, conn: Conn) -> None:
        await conn.sse_body([sse("", id=event_id, retry=retry_ms)])

    return on_call


def session_server(*, on_call: Any = None, on_get: Any = None, on_delete: Any = None) -> Any:
    """A handler that plays a server with a session: initialize assigns ``SESSION``; other
    POSTs go to ``on_call`` (default: an empty result), GETs to ``on_get`` (default: 405)."""

    async def handler(request: Request, conn: Conn) -> None:
        if request.method in ("GET", "DELETE"):
            custom = on_get if request.method == "GET" else on_delete
            if custom is not None:
                await custom(request, conn)
            else:
                await conn.respond(405 if request.method == "GET" else 200, content_type=None)
            return
        body = request.json
        if "method" not in body or "id" not in body:
            await conn.accept()
            return
        if body["method"] == "initialize":
            answer = result(body["id"], {"protocolVersion": "2025-11-25", "capabilities": {}})
            await conn.respond(200, answer.encode(), headers={"Mcp-Session-Id": SESSION})
            return
        if on_call is None:
            await conn.respond(200, result(body["id"], {}).encode())
        else:
            await on_call(request, conn)

    return handler


def handshake(transport: Any) -> None:
    transport.request(method="initialize", params={"protocolVersion": "2025-11-25"}, timeout_s=5)
    transport.set_negotiated_protocol_version("2025-11-25")
    transport.send_notification(method="notifications/initialized", params=None)


# -- headers and session ---------------------------------------------------------------------


def test_requests_carry_the_mcp_headers_and_the_static_headers(
    make_transport: Any, fault_server: FaultServer
) -> None:
    url = fault_server.route(session_server())
    transport = make_transport(url, headers={"X-Api-Key": "k1"}, listen=False)
    handshake(transport)
    transport.request(method="ping", params=None, timeout_s=5)
    initialize_post, initialized_post, ping_post = fault_server.recorded(url)
    for post in (initialize_post, initialized_post, ping_post):
        assert post.headers["accept"] == "application/json, text/event-stream"
        assert post.headers["content-type"] == "application/json"
        assert post.headers["user-agent"] == f"mcpstream/{__version__}"
        assert post.headers["x-api-key"] == "k1"
    assert "mcp-session-id" not in initialize_post.headers
    assert "mcp-protocol-version" not in initialize_post.headers
    assert ping_post.headers["mcp-session-id"] == SESSION
    assert ping_post.headers["mcp-protocol-version"] == "2025-11-25"
    assert ping_post.json == {"jsonrpc": "2.0", "id": 2, "method": "ping"}
    assert transport.session_negotiated


@pytest.mark.parametrize("name", ["User-Agent", "user-agent", "USER-AGENT"])
def test_a_configured_user_agent_is_sent_instead_of_mcpstreams(
    make_transport: Any, fault_server: FaultServer, name: str
) -> None:
    url = fault_server.route(session_server())
    transport = make_transport(url, headers={name: "host/1"}, listen=False)
    handshake(transport)
    transport.request(method="ping", params=None, timeout_s=5)
    # One User-Agent in what is sent (the recording keeps the last of a repeated name).
    names = [key for key in transport._protocol.post_headers() if key.lower() == "user-agent"]
    assert names == [name]
    transport.close()
    recorded = fault_server.recorded(url)
    assert [request.method for request in recorded] == ["POST", "POST", "POST", "DELETE"]
    assert {request.headers["user-agent"] for request in recorded} == {"host/1"}


def test_a_404_with_a_session_means_the_session_expired(
    make_transport: Any, fault_server: FaultServer
) -> None:
    async def on_call(request: Request, conn: Conn) -> None:
        await conn.respond(404, b"gone", content_type="text/plain")

    transport = make_transport(fault_server.route(session_server(on_call=on_call)), listen=False)
    handshake(transport)
    with pytest.raises(McpHttpTransportSessionExpiredError) as raised:
        transport.request(method="tools/call", params=None, timeout_s=5)
    # The 404 answered the call's own POST: the call did not run (``request_delivered``).
    assert raised.value.request_delivered is False
    assert raised.value.error_code == "mcp_http_transport_session_expired"
    assert raised.value.retryable is False
    transport.reset_session_state()
    assert not transport.session_negotiated
    assert transport.negotiated_protocol_version is None


@pytest.mark.parametrize(
    ("status", "method", "error_class", "bases", "pattern"),
    [
        (401, "tools/list", McpHttpTransportAuthRequiredError, (McpAuthError,), "401"),
        (404, "tools/list", McpHttpTransportProtocolError, (McpProtocolError,), "404"),
        (400, "initialize", McpHttpTransportProtocolError, (McpProtocolError,), "initialize"),
        (404, "initialize", McpHttpTransportProtocolError, (McpProtocolError,), "initialize"),
        (405, "initialize", McpHttpTransportProtocolError, (McpProtocolError,), "initialize"),
        (500, "tools/list", McpHttpTransportRemoteError, (McpRemoteError,), "500"),
        (503, "initialize", McpHttpTransportRemoteError, (McpRemoteError,), "503"),
        (403, "tools/list", McpHttpTransportProtocolError, (McpProtocolError,), "403"),
        (409, "tools/list", McpHttpTransportProtocolError, (McpProtocolError,), "409"),
    ],
)
def test_statuses_map_to_the_reference_error_classes(
    make_transport: Any,
    fault_server: FaultServer,
    status: int,
    method: str,
    error_class: type[Exception],
    bases: tuple[type[Exception], ...],
    pattern: str,
) -> None:
    async def handler(request: Request, conn: Conn) -> None:
        await conn.respond(status, b"server says " + b"y" * 5000, content_type="text/plain")

    url = fault_server.route(handler) + "?token=s3cr3t#frag"
    with pytest.raises(error_class, match=pattern) as raised:
        make_transport(url).request(method=method, params=None, timeout_s=5)
    assert type(raised.value) is error_class
    assert isinstance(raised.value, bases)
    message = str(raised.value)
    assert "server says yyy" in message
    assert message.endswith("...(truncated)")
    assert len(message) < 1300
    assert "s3cr3t" not in message and "frag" not in message
    assert url.split("?")[0] in message


def test_a_refused_connection_is_a_transport_error_without_the_url_secrets(
    make_transport: Any,
) -> None:
    url = f"http://user:pa55@127.0.0.1:{free_port()}/mcp?api_key=s3cr3t"
    transport = make_transport(url)
    with pytest.raises(McpHttpTransportError) as raised:
        transport.request(method="ping", params=None, timeout_s=5)
    for text in (str(raised.value), repr(transport), repr(transport.server)):
        assert "s3cr3t" not in text and "pa55" not in text


def test_header_values_never_show_in_reprs_or_errors(
    make_transport: Any, fault_server: FaultServer
) -> None:
    async def handler(request: Request, conn: Conn) -> None:
        await conn.respond(401, b"", content_type=None)

    transport = make_transport(
        fault_server.route(handler), headers={"Authorization": "Bearer t0ken-value"}
    )
    with pytest.raises(McpHttpTransportAuthRequiredError) as raised:
        transport.request(method="ping", params=None, timeout_s=5)
    for text in (str(raised.value), repr(transport), repr(transport.server)):
        assert "t0ken-value" not in text
    assert "Authorization" in repr(transport.server)


# -- server-initiated requests ---------------------------------------------------------------


def elicit_then_answer(request: Request, conn: Conn) -> Any:
    """A tools/call that asks the client something on its SSE stream before answering."""

    async def run() -> None:
        await conn.start(200)
        await conn.send(sse(server_request("srv-1", "elicitation/create", {"message": "hi"})))
        await conn.send(sse(result(request.jsonrpc_id, "done")))
        await conn.end()

    return run()


def test_a_server_request_is_answered_with_the_handler_result(
    make_transport: Any, fault_server: FaultServer
) -> None:
    url = fault_server.route(session_server(on_call=elicit_then_answer))
    handler = ScriptedHandler({"elicitation/create": {"action": "decline"}})
    transport = make_transport(url, server_request_handler=handler, listen=False)
    handshake(transport)
    assert transport.request(method="tools/call", params=None, timeout_s=5).result == "done"
    assert handler.calls == [("elicitation/create", "srv-1", {"message": "hi"})]
    reply = fault_server.recorded(url)[-1]
    assert reply.json == {"jsonrpc": "2.0", "id": "srv-1", "result": {"action": "decline"}}
    assert reply.headers["mcp-session-id"] == SESSION


@pytest.mark.parametrize(
    ("raised", "code", "message"),
    [
        (McpServerRequestHandlerError(-32042, "user said no"), -32042, "user said no"),
        (McpUnsupportedServerRequestError(), -32601, "Method not found: elicitation/create"),
        (RuntimeError("secret detail"), -32603, "Internal error"),
    ],
)
def test_a_handler_failure_is_answered_with_a_jsonrpc_error_and_fails_the_call(
    make_transport: Any,
    fault_server: FaultServer,
    raised: Exception,
    code: int,
    message: str,
) -> None:
    url = fault_server.route(session_server(on_call=elicit_then_answer))
    handler = ScriptedHandler({"elicitation/create": raised})
    transport = make_transport(url, server_request_handler=handler, listen=False)
    handshake(transport)
    with pytest.raises(McpHttpTransportProtocolError, match="elicitation/create"):
        transport.request(method="tools/call", params=None, timeout_s=5)
    error = fault_server.recorded(url)[-1].json["error"]
    assert error["code"] == code
    assert error["message"].startswith(message)
    assert "secret detail" not in json.dumps(error)


def test_a_server_request_without_a_handler_is_refused_with_method_not_found(
    make_transport: Any, fault_server: FaultServer
) -> None:
    url = fault_server.route(session_server(on_call=elicit_then_answer))
    transport = make_transport(url, listen=False)
    handshake(transport)
    with pytest.raises(McpHttpTransportProtocolError, match="no handler"):
        transport.request(method="tools/call", params=None, timeout_s=5)
    assert fault_server.recorded(url)[-1].json["error"]["code"] == -32601


def test_a_handler_result_that_is_not_json_is_answered_as_an_internal_error(
    make_transport: Any, fault_server: FaultServer
) -> None:
    url = fault_server.route(session_server(on_call=elicit_then_answer))
    handler = ScriptedHandler({"elicitation/create": {"bad": object()}})
    transport = make_transport(url, server_request_handler=handler, listen=False)
    handshake(transport)
    with pytest.raises(McpHttpTransportProtocolError):
        transport.request(method="tools/call", params=None, timeout_s=5)
    assert fault_server.recorded(url)[-1].json["error"]["code"] == -32603


def test_a_server_request_in_a_json_body_is_a_protocol_error(
    make_transport: Any, fault_server: FaultServer
) -> None:
    async def handler(request: Request, conn: Conn) -> None:
        await conn.respond(200, server_request(5, "ping").encode())

    transport = make_transport(
        fault_server.route(handler), server_request_handler=ScriptedHandler({"ping": {}})
    )
    with pytest.raises(McpHttpTransportProtocolError, match="ping"):
        transport.request(method="tools/call", params=None, timeout_s=5)


# -- resumption (SEP-1699) -------------------------------------------------------------------


def resumable_server(*, retry_ms: int | None, gets_before_answer: int = 1) -> Any:
    """tools/call: a priming event with an id, then the stream closes. Each GET with
    Last-Event-ID closes again after a new priming event until ``gets_before_answer`` GETs came;
    then the GET carries a notification and the response."""
    pending: dict[str, Any] = {}
    counter = iter(range(1, 1000))

    async def on_call(request: Request, conn: Conn) -> None:
        pending["id"] = request.jsonrpc_id
        pending["gets"] = 0
        await conn.sse_body([sse("", id=f"e{next(counter)}", retry=retry_ms)])

    async def on_get(request: Request, conn: Conn) -> None:
        if "last-event-id" not in request.headers:
            await conn.respond(405, content_type=None)
            return
        pending["gets"] += 1
        if pending["gets"] < gets_before_answer:
            await conn.sse_body([sse("", id=f"e{next(counter)}")])
            return
        await conn.start(200)
        await conn.send(
            sse(notification("notifications/progress", {"p": 1}), id=f"e{next(counter)}")
        )
        await conn.send(sse(result(pending["id"], "resumed"), id=f"e{next(counter)}"), pause_s=5)
        conn.drop()

    return session_server(on_call=on_call, on_get=on_get)


def test_a_stream_closed_after_an_event_id_is_resumed_after_the_retry_delay(
    make_transport: Any, fault_server: FaultServer
) -> None:
    url = fault_server.route(resumable_server(retry_ms=300))
    transport = make_transport(url)
    handshake(transport)
    started = time.monotonic()
    assert transport.request(method="tools/call", params=None, timeout_s=5).result == "resumed"
    elapsed = time.monotonic() - started
    assert 0.3 <= elapsed < 1.5
    [get] = [
        r for r in fault_server.recorded(url) if r.method == "GET" and "last-event-id" in r.headers
    ]
    assert get.headers["last-event-id"] == "e1"
    assert get.headers["accept"] == "text/event-stream"
    assert get.headers["mcp-session-id"] == SESSION
    assert [n.params for n in transport.drain_notifications()] == [{"p": 1}]


def test_resumption_without_a_retry_field_uses_the_default_backoff_and_carries_the_newest_id(
    make_transport: Any, fault_server: FaultServer
) -> None:
    url = fault_server.route(resumable_server(retry_ms=None, gets_before_answer=3))
    policy = ReconnectPolicy(initial_delay_s=0.05, multiplier=1.0)
    transport = make_transport(url, reconnect_policy=policy)
    handshake(transport)
    assert transport.request(method="tools/call", params=None, timeout_s=5).result == "resumed"
    ids = [
        r.headers["last-event-id"]
        for r in fault_server.recorded(url)
        if r.method == "GET" and "last-event-id" in r.headers
    ]
    assert ids == ["e1", "e2", "e3"]


def test_resumption_gives_up_after_the_bounded_attempts_without_progress(
    make_transport: Any, fault_server: FaultServer
) -> None:
    on_call = primed_then_ended("only")

    async def on_get(request: Request, conn: Conn) -> None:
        await conn.sse_body([b": nothing new\n\n"])

    url = fault_server.route(session_server(on_call=on_call, on_get=on_get))
    transport = make_transport(url, reconnect_policy=ReconnectPolicy(max_attempts=3), listen=False)
    handshake(transport)
    with pytest.raises(McpHttpTransportProtocolError, match="ended before the response"):
        transport.request(method="tools/call", params=None, timeout_s=5)
    gets = [r for r in fault_server.recorded(url) if r.method == "GET"]
    assert len(gets) == 3


def test_a_resumption_get_refused_by_the_server_raises_its_status_error(
    make_transport: Any, fault_server: FaultServer
) -> None:
    on_call = primed_then_ended()

    async def on_get(request: Request, conn: Conn) -> None:
        await conn.respond(500, b"replay failed", content_type="text/plain")

    url = fault_server.route(session_server(on_call=on_call, on_get=on_get))
    transport = make_transport(url, listen=False)
    handshake(transport)
    with pytest.raises(McpHttpTransportRemoteError, match="replay failed"):
        transport.request(method="tools/call", params=None, timeout_s=5)


def test_a_connection_dropped_after_an_event_id_is_resumed(
    make_transport: Any, fault_server: FaultServer
) -> None:
    pending: dict[str, Any] = {}

    async def on_call(request: Request, conn: Conn) -> None:
        pending["id"] = request.jsonrpc_id
        await conn.start(200)
        await conn.send(sse("", id="e1", retry=20))
        await conn.send(b'data: {"jsonrpc"')
        conn.drop()

    async def on_get(request: Request, conn: Conn) -> None:
        await conn.sse_body([sse(result(pending["id"], "back"), id="e2")])

    url = fault_server.route(session_server(on_call=on_call, on_get=on_get))
    transport = make_transport(url, listen=False)
    handshake(transport)
    assert transport.request(method="tools/call", params=None, timeout_s=5).result == "back"


def test_a_resumption_delay_beyond_the_deadline_is_a_timeout(
    make_transport: Any, fault_server: FaultServer
) -> None:
    on_call = primed_then_ended(retry_ms=60_000)
    transport = make_transport(fault_server.route(session_server(on_call=on_call)), listen=False)
    handshake(transport)
    started = time.monotonic()
    with pytest.raises(McpHttpTransportError, match="did not complete"):
        transport.request(method="tools/call", params=None, timeout_s=2)
    assert time.monotonic() - started < 1.0


# -- the GET stream --------------------------------------------------------------------------


def test_the_get_stream_queues_notifications_and_answers_server_requests(
    make_transport: Any, fault_server: FaultServer
) -> None:
    async def on_get(request: Request, conn: Conn) -> None:
        await conn.start(200)
        await conn.send(sse(notification("notifications/resources/list_changed"), id="g1"))
        await conn.send(sse(server_request(77, "roots/list"), id="g2"), pause_s=10)
        conn.drop()

    url = fault_server.route(session_server(on_get=on_get))
    handler = ScriptedHandler({"roots/list": {"roots": []}})
    transport = make_transport(url, server_request_handler=handler)
    handshake(transport)
    wait_until(
        lambda: any(r.is_client_reply for r in fault_server.recorded(url) if r.method == "POST")
    )
    reply = next(r for r in fault_server.recorded(url) if r.method == "POST" and r.is_client_reply)
    assert reply.json == {"jsonrpc": "2.0", "id": 77, "result": {"roots": []}}
    assert [n.method for n in transport.drain_notifications()] == [
        "notifications/resources/list_changed"
    ]
    get = next(r for r in fault_server.recorded(url) if r.method == "GET")
    assert get.headers["accept"] == "text/event-stream"
    assert get.headers["mcp-session-id"] == SESSION
    assert get.headers["mcp-protocol-version"] == "2025-11-25"
    assert transport.listening


def test_a_get_stream_request_without_a_handler_is_refused_with_method_not_found(
    make_transport: Any, fault_server: FaultServer
) -> None:
    async def on_get(request: Request, conn: Conn) -> None:
        await conn.start(200)
        await conn.send(sse(server_request(78, "sampling/createMessage")), pause_s=10)
        conn.drop()

    url = fault_server.route(session_server(on_get=on_get))
    transport = make_transport(url)
    handshake(transport)
    wait_until(
        lambda: any(r.is_client_reply for r in fault_server.recorded(url) if r.method == "POST")
    )
    reply = next(r for r in fault_server.recorded(url) if r.method == "POST" and r.is_client_reply)
    assert reply.json["error"]["code"] == -32601


def test_a_server_without_a_get_stream_is_left_alone_after_405(
    make_transport: Any, fault_server: FaultServer
) -> None:
    url = fault_server.route(session_server())
    transport = make_transport(url)
    handshake(transport)
    wait_until(lambda: any(r.method == "GET" for r in fault_server.recorded(url)))
    time.sleep(0.2)
    assert [r.method for r in fault_server.recorded(url)].count("GET") == 1
    assert not transport.listening
    assert transport.request(method="ping", params=None, timeout_s=5).result == {}


def test_a_get_stream_closed_by_the_server_is_reopened_with_last_event_id(
    make_transport: Any, fault_server: FaultServer
) -> None:
    async def on_get(request: Request, conn: Conn) -> None:
        count = len([r for r in fault_server.recorded(url) if r.method == "GET"])
        await conn.sse_body(
            [sse(notification("notifications/n", {"i": count}), id=f"g{count}", retry=20)]
        )

    url = fault_server.route(session_server(on_get=on_get))
    transport = make_transport(url)
    handshake(transport)
    wait_until(lambda: len([r for r in fault_server.recorded(url) if r.method == "GET"]) >= 3)
    gets = [r for r in fault_server.recorded(url) if r.method == "GET"]
    assert "last-event-id" not in gets[0].headers
    assert gets[1].headers["last-event-id"] == "g1"
    assert gets[2].headers["last-event-id"] == "g2"


def test_the_get_stream_is_answered_before_the_next_call_without_holding_up_initialized(
    make_transport: Any, fault_server: FaultServer
) -> None:
    """The server sees the GET before the requests that follow the initialization. Sent from
    its own thread or task without waiting, the GET could arrive after the next call, and a
    server that takes a GET as the place for a pending response (the conformance suite's
    ``sse-retry`` server does) then put that call's response on the GET stream. The wait is
    the next call's: ``notifications/initialized`` returns before the GET has its answer."""
    events: list[str] = []

    async def on_get(request: Request, conn: Conn) -> None:
        await asyncio.sleep(0.3)
        events.append("GET answered")
        await conn.start(200)
        await conn.send(b"", pause_s=10)
        conn.drop()

    async def on_call(request: Request, conn: Conn) -> None:
        events.append(request.json["method"])
        await conn.respond(200, result(request.jsonrpc_id, {}).encode())

    url = fault_server.route(session_server(on_call=on_call, on_get=on_get))
    transport = make_transport(url)
    handshake(transport)
    assert events == []
    transport.request(method="ping", params=None, timeout_s=5)
    assert events == ["GET answered", "ping"]


def test_a_get_stream_slow_to_answer_holds_up_the_first_call_only_briefly(
    make_transport: Any, fault_server: FaultServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ListenStream, "OPEN_WAIT_S", 0.6)

    async def on_get(request: Request, conn: Conn) -> None:
        await asyncio.sleep(2.0)  # longer than the wait
        await conn.respond(405, content_type=None)

    transport = make_transport(fault_server.route(session_server(on_get=on_get)))
    transport.request(method="initialize", params={"protocolVersion": "2025-11-25"}, timeout_s=5)
    started = time.monotonic()
    transport.send_notification(method="notifications/initialized", params=None)
    assert time.monotonic() - started < 0.4
    assert transport.request(method="ping", params=None, timeout_s=5).result == {}
    assert 0.55 <= time.monotonic() - started < 1.8
    started = time.monotonic()
    assert transport.request(method="ping", params=None, timeout_s=5).result == {}
    assert time.monotonic() - started < 0.4


# -- closing ---------------------------------------------------------------------------------


def test_close_deletes_the_session_and_a_closed_transport_refuses_work(
    make_transport: Any, fault_server: FaultServer
) -> None:
    url = fault_server.route(session_server())
    transport = make_transport(url, headers={"X-Api-Key": "k1"})
    handshake(transport)
    transport.close()
    transport.close()
    assert transport.closed
    deletes = [r for r in fault_server.recorded(url) if r.method == "DELETE"]
    assert len(deletes) == 1
    assert deletes[0].headers["mcp-session-id"] == SESSION
    assert deletes[0].headers["mcp-protocol-version"] == "2025-11-25"
    assert deletes[0].headers["x-api-key"] == "k1"
    with pytest.raises(McpHttpTransportError, match="closed"):
        transport.request(method="ping", params=None, timeout_s=5)
    with pytest.raises(McpHttpTransportError, match="closed"):
        transport.send_notification(method="notifications/x", params=None)


def test_close_without_a_session_sends_no_delete_and_ignores_delete_failures(
    make_transport: Any, fault_server: FaultServer
) -> None:
    async def on_delete(request: Request, conn: Conn) -> None:
        conn.drop()

    url = fault_server.route(session_server(on_delete=on_delete))
    plain = make_transport(url)
    plain.request(method="ping", params=None, timeout_s=5)
    plain.close()
    assert "DELETE" not in [r.method for r in fault_server.recorded(url)]
    with_session = make_transport(url)
    handshake(with_session)
    with_session.close()
    assert with_session.closed


@pytest.mark.own_client
def test_close_is_prompt_while_the_get_stream_waits_for_its_answer(
    make_transport: Any,
    fault_server: FaultServer,
    transport_kind: str,
    monkeypatch: pytest.MonkeyPatch,
    event_loop_thread: EventLoopThread,
) -> None:
    """A GET the server never answers holds up neither ``close`` (the sync transport shuts
    the socket of the GET's connection down, the async one cancels its task) nor leaves the
    GET's thread, task or connection behind."""

    async def on_get(request: Request, conn: Conn) -> None:
        await asyncio.Event().wait()  # never answers

    monkeypatch.setattr(ListenStream, "OPEN_WAIT_S", 0.1)
    close_shared_pools(event_loop_thread)  # (earlier tests' idle connections)
    sockets_before = open_sockets_to(fault_server.port)
    url = fault_server.route(session_server(on_get=on_get))
    transport = make_transport(url)
    handshake(transport)
    wait_until(lambda: any(r.method == "GET" for r in fault_server.recorded(url)))
    started = time.monotonic()
    transport.close()
    elapsed = time.monotonic() - started
    assert elapsed < 1.0, f"close took {elapsed:.2f} s"
    assert not [t for t in threading.enumerate() if t.name.startswith("mcpstream-get-")]
    if transport_kind == "async":
        assert transport.inner._listen_task is None
    assert any(r.method == "DELETE" for r in fault_server.recorded(url))
    close_shared_pools(event_loop_thread)  # the DELETE's idle connection: the pool's
    assert open_sockets_to(fault_server.port) <= sockets_before


def test_a_transport_for_another_kind_of_server_or_without_url_is_refused(
    make_transport: Any,
) -> None:
    from mcpstream.models import McpOAuthConfig, ResolvedMcpServer
    from mcpstream.transport_http import McpHttpTransport

    with pytest.raises(McpHttpTransportError, match="stdio"):
        McpHttpTransport(
            server=ResolvedMcpServer(id="s", transport="stdio"), workspace_root=Path(".")
        )
    with pytest.raises(McpHttpTransportError, match="URL"):
        McpHttpTransport(server=ResolvedMcpServer(id="s"), workspace_root=Path("."))
    # A server with OAuth settings is accepted (the OAuth tests in tests/oauth drive it).
    McpHttpTransport(
        server=ResolvedMcpServer(
            id="s", url="http://127.0.0.1:1/mcp", oauth=McpOAuthConfig(client_id="c")
        ),
        workspace_root=Path("."),
    ).close()


def test_a_handler_on_the_get_stream_may_close_the_transport(
    make_transport: Any, fault_server: FaultServer, transport_kind: str
) -> None:
    async def on_get(request: Request, conn: Conn) -> None:
        await conn.start(200)
        await conn.send(sse(server_request(90, "ping")), pause_s=5)
        conn.drop()

    holder: dict[str, Any] = {}

    class ClosingHandler:
        def handle_request(self, **kwargs: Any) -> Any:
            if transport_kind == "sync":
                holder["transport"].close()
                return {}

            async def close_then_answer() -> Any:
                await holder["transport"].inner.close()
                return {}

            return close_then_answer()

    url = fault_server.route(session_server(on_get=on_get))
    transport = make_transport(url, server_request_handler=ClosingHandler())
    holder["transport"] = transport
    handshake(transport)
    wait_until(lambda: transport.closed)
    wait_until(lambda: any(r.method == "DELETE" for r in fault_server.recorded(url)))
