"""The one-shot path of a small request: on the own client's HTTP/1.1 transport its POST goes out
as an ``Http1Request`` (fields encoded once per session, the stack's ``Request`` made only for
an error), and a plain answer that arrived whole is the call's response without a flow; any
other answer goes on in the call's flow with the POST already sent, exactly once."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from mcpstream._http import aio, sync, wire
from mcpstream._http.core.steps import HttpRequest
from mcpstream._http.h1.pool import Http1Request, Http1Response
from mcpstream._http.httpx_clients import make_client
from mcpstream._httpbase.stack import stack_named, stack_of
from mcpstream.errors import McpHttpTransportError, McpHttpTransportProtocolError

from .fault_server import Conn, FaultServer, Request, notification, result, server_request, sse


@pytest.fixture(autouse=True)
def h1_transport(monkeypatch: pytest.MonkeyPatch) -> None:
    """The own client on mcpstream's HTTP/1.1 transport, whose path this is, also in the suite's
    run over httpx's transport (``MCPSTREAM_H1_TRANSPORT=0``)."""
    monkeypatch.setenv("MCPSTREAM_H1_TRANSPORT", "1")


@pytest.fixture
def flows(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """The flows the drivers run (recorded, then run as usual)."""
    run: list[object] = []
    real = sync.Stepper

    def recording(flow: Any) -> Any:
        run.append(flow)
        return real(flow)

    monkeypatch.setattr(sync, "Stepper", recording)
    monkeypatch.setattr(aio, "Stepper", recording)
    return run


def _flows_of_own(flows: list[object], client_stack: str, count: int) -> int:
    """The flows a test expects: ``count`` on the own client, whose answers may be taken whole;
    on a host's client every request runs its flow (its body is httpx's to read)."""
    return count if client_stack == "own" else len(flows)


def _posts(fault_server: FaultServer, url: str) -> list[Request]:
    return [r for r in fault_server.recorded(url) if r.method == "POST"]


def test_a_post_goes_out_with_the_fields_httpx_builds() -> None:
    headers = {"Accept": "application/json", "Content-Type": "application/json", "X-A": "1"}
    body = b'{"jsonrpc":"2.0","id":1,"method":"ping"}'
    with make_client() as client:
        stack = stack_of(client)
        request = HttpRequest("POST", "http://127.0.0.1:9/mcp", headers, timeout_s=5.0, body=body)
        direct = wire._direct_request(client, stack, request, None)
        again = wire._direct_request(client, stack, request, None)
        # what was handed to the transport before: the stack's Request, made each time
        built = wire._stack_request(client, stack, request, {})
    assert isinstance(direct, Http1Request) and isinstance(again, Http1Request)
    assert direct.headers.raw == built.headers.raw == again.headers.raw
    assert direct.headers.raw[-1] == (b"Content-Length", b"%d" % len(body))
    real = direct.materialize()
    assert isinstance(real, httpx.Request) and real is direct.materialize()
    assert real.headers.raw == built.headers.raw and real.content == body
    assert real.extensions["timeout"]["read"] == 5.0


def test_a_header_httpx_refuses_is_refused_as_before() -> None:
    request = HttpRequest(
        "POST", "http://127.0.0.1:9/mcp", {"X-Bad": "caf\u00e9\u2603"}, timeout_s=5.0, body=b"{}"
    )
    with make_client() as client:
        with pytest.raises(UnicodeEncodeError):
            wire.build_request(client, request)
        with pytest.raises(UnicodeEncodeError):
            wire._direct_request(client, stack_of(client), request, None)


@pytest.mark.parametrize(
    "raw",
    [
        [(b"Content-Type", b"text/event-stream"), (b"MCP-Session-Id", b"s 1")],
        [(b"X-A", b"1"), (b"x-a", b"2"), (b"Set-Cookie", b"a=1"), (b"set-cookie", b"b=2")],
        [(b"X-Name", "caf\u00e9".encode()), (b"X-A", b"1"), (b"x-a", b"2")],
        [(b"X-Name", b"caf\xe9"), (b"X-B", b"")],
        [],
    ],
    ids=["ascii", "repeated", "utf-8", "latin-1", "none"],
)
def test_the_head_of_a_received_answer_has_the_fields_httpx_gives(
    raw: list[tuple[bytes, bytes]],
) -> None:
    framing = Http1Response()
    lines = b"".join(b"%b: %b\r\n" % field for field in raw)
    framing.feed(b"HTTP/1.1 204 No Content\r\n%b\r\n" % lines)
    assert framing.headers == raw
    for name in ("httpx", "httpx2"):
        stack = stack_named(name)
        expected = dict(stack.httpx.Headers(raw).items())
        fields = wire.head_fields(stack, framing)
        assert fields == expected and list(fields) == list(expected)


@pytest.mark.parametrize("where", ["before-head", "within-body"])
def test_a_failure_names_the_stacks_own_request(
    make_transport: Any, fault_server: FaultServer, where: str
) -> None:
    async def handler(request: Request, conn: Conn) -> None:
        if where == "within-body":
            await conn.start(200, content_type="application/json", content_length=100)
            await conn.send(b'{"jsonrpc":')
        conn.drop()  # the connection is lost

    transport = make_transport(fault_server.route(handler), listen=False)
    with pytest.raises(McpHttpTransportError) as raised:
        transport.request(method="ping", params=None, timeout_s=5)
    cause = raised.value.__cause__
    assert cause is not None and type(cause).__name__ in ("RemoteProtocolError", "ReadError")
    named = cause.request  # type: ignore[attr-defined]
    assert not isinstance(named, Http1Request) and type(named).__name__ == "Request"
    assert named.method == "POST" and json.loads(named.content)["method"] == "ping"


@pytest.mark.parametrize("framing", ["json", "sse", "sse-length"])
def test_a_plain_answer_that_arrived_whole_runs_no_flow(
    make_transport: Any,
    fault_server: FaultServer,
    flows: list[object],
    client_stack: str,
    framing: str,
) -> None:
    async def handler(request: Request, conn: Conn) -> None:
        answer = result(request.jsonrpc_id, "ok")
        if framing == "json":
            await conn.whole(answer.encode())
        else:
            event = sse(answer, id="e1")
            await conn.whole(event, content_type="text/event-stream", chunked=framing == "sse")

    url = fault_server.route(handler)
    transport = make_transport(url, listen=False)
    for _ in range(3):
        assert transport.request(method="ping", params=None, timeout_s=5).result == "ok"
    assert len(flows) == _flows_of_own(flows, client_stack, 0)
    assert len(_posts(fault_server, url)) == 3


def test_notifications_with_the_answer_go_on_in_the_flow_in_order(
    make_transport: Any, fault_server: FaultServer, flows: list[object], client_stack: str
) -> None:
    async def handler(request: Request, conn: Conn) -> None:
        events = [sse(notification("notifications/message", {"n": n})) for n in range(2)]
        answer = b"".join([*events, sse(result(request.jsonrpc_id, "ok"))])
        await conn.whole(answer, content_type="text/event-stream", chunked=True)

    url = fault_server.route(handler)
    transport = make_transport(url, listen=False)
    assert transport.request(method="ping", params=None, timeout_s=5).result == "ok"
    assert [n.params["n"] for n in transport.drain_notifications()] == [0, 1]
    assert len(flows) == _flows_of_own(flows, client_stack, 1)
    assert len(_posts(fault_server, url)) == 1  # the flow did not send it again


def test_a_server_request_is_answered_by_the_flow(
    make_transport: Any, fault_server: FaultServer, flows: list[object], client_stack: str
) -> None:
    async def handler(request: Request, conn: Conn) -> None:
        if request.is_client_reply:
            await conn.accept()
            return
        await conn.start(200)
        await conn.send(sse(server_request("s1", "ping")))
        await conn.send(sse(result(request.jsonrpc_id, "ok")))
        await conn.end()

    class Handler:
        def handle_request(self, **kwargs: Any) -> Any:
            return {}

    url = fault_server.route(handler)
    transport = make_transport(url, listen=False, server_request_handler=Handler())
    assert transport.request(method="tools/call", params={}, timeout_s=5).result == "ok"
    # the call's flow, and the answer's (run within it)
    assert len(flows) == _flows_of_own(flows, client_stack, 2)
    posts = _posts(fault_server, url)
    assert [p.json.get("method") for p in posts] == ["tools/call", None]
    assert posts[1].json["id"] == "s1"


@pytest.mark.parametrize("answer", ["wrong-id", "empty", "error-status"])
def test_a_refused_answer_raises_the_flows_error(
    make_transport: Any,
    fault_server: FaultServer,
    flows: list[object],
    client_stack: str,
    answer: str,
) -> None:
    async def handler(request: Request, conn: Conn) -> None:
        if answer == "wrong-id":
            await conn.whole(result("other", "ok").encode())
        elif answer == "empty":
            await conn.whole(b"")
        else:
            await conn.respond(500, b"boom", content_type="text/plain")

    url = fault_server.route(handler)
    transport = make_transport(url, listen=False)
    with pytest.raises(McpHttpTransportError) as raised:
        transport.request(method="ping", params=None, timeout_s=5)
    assert len(flows) == _flows_of_own(flows, client_stack, 1)
    if answer == "error-status":
        assert raised.value.status_code == 500
    else:
        assert isinstance(raised.value, McpHttpTransportProtocolError)
    assert len(_posts(fault_server, url)) == 1


def test_a_cookie_with_a_whole_answer_is_kept_for_the_next_request(
    make_transport: Any, fault_server: FaultServer
) -> None:
    seen: list[dict[str, str]] = []

    async def handler(request: Request, conn: Conn) -> None:
        seen.append(request.headers)
        cookie = {"Set-Cookie": "route=a1; Path=/"} if len(seen) == 1 else None
        await conn.whole(result(request.jsonrpc_id, "ok").encode(), headers=cookie)

    transport = make_transport(fault_server.route(handler), listen=False)
    for _ in range(2):
        assert transport.request(method="ping", params=None, timeout_s=5).result == "ok"
    assert "cookie" not in seen[0] and seen[1]["cookie"] == "route=a1"


def test_a_notification_accepted_with_nothing_to_read_runs_no_flow(
    make_transport: Any, fault_server: FaultServer, flows: list[object], client_stack: str
) -> None:
    async def handler(request: Request, conn: Conn) -> None:
        await conn.accept()

    url = fault_server.route(handler)
    transport = make_transport(url, listen=False)
    for _ in range(3):
        transport.send_notification(method="notifications/message", params={"n": 1})
    assert len(flows) == _flows_of_own(flows, client_stack, 0)
    posts = _posts(fault_server, url)
    assert [p.json["method"] for p in posts] == ["notifications/message"] * 3
    assert all("id" not in p.json for p in posts)


@pytest.mark.parametrize("answer", ["error-status", "untyped-text"])
def test_a_notification_refused_raises_the_flows_error(
    make_transport: Any,
    fault_server: FaultServer,
    flows: list[object],
    client_stack: str,
    answer: str,
) -> None:
    async def handler(request: Request, conn: Conn) -> None:
        if answer == "error-status":
            await conn.respond(500, b"boom", content_type="text/plain")
        else:
            await conn.respond(200, b"not empty", content_type=None)

    url = fault_server.route(handler)
    transport = make_transport(url, listen=False)
    with pytest.raises(McpHttpTransportError) as raised:
        transport.send_notification(method="notifications/message", params=None)
    assert len(flows) == _flows_of_own(flows, client_stack, 1)
    if answer == "error-status":
        assert raised.value.status_code == 500
    assert len(_posts(fault_server, url)) == 1  # the flow did not send it again
