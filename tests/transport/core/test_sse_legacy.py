"""The HTTP+SSE transport's flows (``sse_legacy``) without a server, on the scripted driver and
its fake clock: the stream's GET, its endpoint event and the checks on it, what the stream
routes, files and answers, how it ends; one call on the endpoint; the negotiation cache."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcpstream._eras import Negotiation
from mcpstream._http.core import steps as s
from mcpstream._http.core.modern import negotiate_flow
from mcpstream._http.core.sse_legacy import (
    ENDPOINT_MAX_CHARS,
    NEGOTIATED,
    NegotiationCache,
    SseStream,
    sse_call_flow,
    stream_flow,
)
from mcpstream.errors import (
    McpHttpTransportProtocolError,
    McpHttpTransportSessionExpiredError,
    McpHttpTransportTimeoutError,
)
from mcpstream.jsonrpc import JsonRpcResponse

from ..fault_server import notification, server_request, sse
from .script import URL, Answer, Pause, Script, protocol, sse_answer

ENDPOINT = sse("/messages/?session_id=abc", event="endpoint")


def run_stream(script: Script, core: Any, *, wait_s: float = 5.0) -> SseStream:
    stream = SseStream(core)
    script.run(stream_flow(stream, endpoint_wait_s=wait_s, call_timeout_s=10.0))
    return stream


def response(request_id: int, value: Any = "ok") -> str:
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "result": value})


def test_the_endpoint_is_resolved_and_messages_are_routed() -> None:
    core = protocol(has_handler=True, push=True)
    body = (
        ENDPOINT
        + sse(notification("notifications/progress", {"progress": 1}))
        + sse(response(1, "first"))
        + sse(server_request(9, "roots/list"))
    )
    script = Script([sse_answer(body), Answer(202, {}, [b"Accepted"])], handler=lambda r: {})
    stream = SseStream(core)
    stream.expect(1)
    script.run(stream_flow(stream, endpoint_wait_s=5.0, call_timeout_s=10.0))
    get = script.sent[0]
    assert get.method == "GET" and get.url == URL
    assert get.headers["Accept"] == "text/event-stream"
    assert stream.endpoint == "http://mcp.example/messages/?session_id=abc"
    assert core.sse_endpoint == stream.endpoint
    assert [n.method for n in script.delivered] == ["notifications/progress"]
    assert stream.take(1) == JsonRpcResponse(id=1, result="first")
    # The answer to the server's request went to the endpoint, not the server's URL.
    assert script.sent[1].method == "POST" and script.sent[1].url == stream.endpoint
    assert script.posted() == [{"jsonrpc": "2.0", "id": 9, "result": {}}]
    # The body ended: the session is lost, and the waiters were woken.
    assert isinstance(stream.failure, McpHttpTransportSessionExpiredError)
    assert isinstance(script.steps[-1], s.Notify)
    assert "session_id=abc" not in str(stream.failure)


def test_a_response_no_call_waits_for_is_dropped() -> None:
    stream = run_stream(Script([sse_answer(ENDPOINT + sse(response(5)))]), protocol())
    assert stream.take(5) is None and stream.waiting == 0


def test_a_message_before_the_endpoint_is_ignored() -> None:
    core = protocol(push=True)
    body = sse(notification("early")) + ENDPOINT + sse(notification("late"))
    script = Script([sse_answer(body)])
    run_stream(script, core)
    assert [n.method for n in script.delivered] == ["late"]


@pytest.mark.parametrize(
    "endpoint",
    [
        "http://elsewhere.example/messages",
        "https://mcp.example/messages",  # not even the upgrade a redirect may make
        "http://mcp.example:8080/messages",
        "http://user:pw@mcp.example/messages",
        "//elsewhere.example/messages",
    ],
)
def test_an_endpoint_off_the_servers_origin_is_refused(endpoint: str) -> None:
    core = protocol()
    stream = run_stream(Script([sse_answer(sse(endpoint, event="endpoint"))]), core)
    assert isinstance(stream.failure, McpHttpTransportProtocolError)
    assert "not on the server's origin" in str(stream.failure)
    assert stream.endpoint is None and core.sse_endpoint is None


def test_an_endpoint_too_long_or_not_printable_is_refused() -> None:
    for data in ("/m?" + "x" * ENDPOINT_MAX_CHARS, "/m\x07bell"):
        stream = run_stream(Script([sse_answer(sse(data, event="endpoint"))]), protocol())
        assert isinstance(stream.failure, McpHttpTransportProtocolError)
        assert stream.endpoint is None


def test_the_wait_for_the_endpoint_is_bounded_however_the_stream_trickles() -> None:
    trickle: list[Any] = [item for _ in range(100) for item in (Pause(0.4), b": ping\n\n")]
    script = Script([sse_answer(*trickle)])
    start = script.now
    stream = run_stream(script, protocol(), wait_s=2.0)
    assert isinstance(stream.failure, McpHttpTransportTimeoutError)
    assert "no endpoint event within 2.000s" in str(stream.failure)
    assert script.now - start <= 2.5


def test_a_get_that_is_no_event_stream_fails_with_its_status() -> None:
    stream = run_stream(Script([Answer(405, {}, [b"Method Not Allowed"])]), protocol())
    assert isinstance(stream.failure, McpHttpTransportProtocolError)
    assert stream.failure.status_code == 405
    stream = run_stream(Script([Answer(200, {"content-type": "text/html"})]), protocol())
    assert "not an event stream" in str(stream.failure)


def test_a_stream_that_ends_before_its_endpoint_fails() -> None:
    stream = run_stream(Script([sse_answer(b": nothing\n\n")]), protocol())
    assert "ended before its endpoint event" in str(stream.failure)


def endpoint_stream(core: Any) -> SseStream:
    stream = SseStream(core)
    stream.take_endpoint("/messages/?session_id=abc")
    return stream


class AnsweringScript(Script):
    """A script whose stream files the response of each POSTed request as it is sent."""

    def __init__(self, stream: SseStream, answers: list[Answer]) -> None:
        super().__init__(answers)
        self.stream = stream

    def _answer(self, step: s.Step, body: list[Any]) -> s.Outcome:
        if isinstance(step, s.Send) and step.request.body:
            request_id = json.loads(step.request.body)["id"]
            self.stream.take_messages(response(request_id, "done"))
        return super()._answer(step, body)


def test_a_call_posts_to_the_endpoint_and_takes_its_response_from_the_stream() -> None:
    stream = endpoint_stream(protocol())
    script = AnsweringScript(stream, [Answer(202, {}, [b"Accepted"])])
    body = b'{"jsonrpc":"2.0","id":3,"method":"ping"}'
    flow = sse_call_flow(stream, body, method="ping", expected_id=3, timeout_s=5.0, now=0.0)
    assert script.run(flow) == JsonRpcResponse(id=3, result="done")
    assert script.sent[0].url == stream.endpoint
    assert script.sent[0].headers["Content-Type"] == "application/json"
    assert stream.waiting == 0  # the call forgot its id


def test_a_call_whose_response_never_comes_times_out_and_forgets_its_id() -> None:
    stream = endpoint_stream(protocol())
    script = Script([Answer(202)])
    flow = sse_call_flow(
        stream, b"{}", method="tools/call", expected_id=4, timeout_s=2.0, now=script.now
    )
    with pytest.raises(McpHttpTransportTimeoutError, match="'tools/call' did not complete"):
        script.run(flow)
    assert stream.waiting == 0
    assert [type(step) for step in script.of(s.Await)] == [s.Await]


def test_a_call_on_an_ended_stream_fails_as_a_lost_session() -> None:
    core = protocol()
    stream = endpoint_stream(core)
    stream.end(core.error("the stream ended", McpHttpTransportSessionExpiredError))
    script = Script([])
    with pytest.raises(McpHttpTransportSessionExpiredError) as caught:
        script.run(sse_call_flow(stream, b"{}", method="ping", expected_id=1, timeout_s=1, now=0.0))
    assert not caught.value.request_delivered
    assert script.sent == []


def test_a_404_on_the_endpoint_is_a_lost_session() -> None:
    stream = endpoint_stream(protocol())
    script = Script([Answer(404, {}, [b"Could not find session"])])
    with pytest.raises(McpHttpTransportSessionExpiredError):
        script.run(sse_call_flow(stream, b"{}", method="ping", expected_id=1, timeout_s=1, now=0.0))


def test_the_cache_is_per_origin_and_path_and_bounded() -> None:
    cache = NegotiationCache(max_entries=2)
    cache.put("http://A.example/sse?x=1", "http+sse")
    assert cache.get("http://a.example/sse") == "http+sse"
    assert cache.get("http://a.example/other") is None
    assert cache.get("https://a.example/sse") is None
    cache.put("http://b.example/mcp", "modern")
    cache.put("http://c.example/mcp", "legacy")
    assert cache.get("http://a.example/sse") is None  # the oldest went
    cache.drop("http://b.example/mcp")
    assert cache.get("http://b.example/mcp") is None
    assert cache.get("http://c.example/mcp") == "legacy"


def test_a_cached_http_sse_outcome_goes_straight_to_the_stream() -> None:
    NEGOTIATED.put(URL, "http+sse")
    script = Script([])
    ids = iter(range(1, 10))
    negotiation = Negotiation({}, {"name": "t"})
    with pytest.raises(McpHttpTransportTimeoutError):
        # The scripted driver runs no stream in the background: no endpoint comes.
        script.run(
            negotiate_flow(
                protocol(), negotiation, next_id=lambda: next(ids), timeout_s=1.0, now=0.0
            )
        )
    assert script.sent == []  # no POST: neither server/discover nor initialize
    assert len(script.opened) == 1
    assert NEGOTIATED.get(URL) is None  # it did not work: probed again next time
