"""The relay rules (``core.relay``) and the core's parts for a host's own session: the route of
each message, the era taken from the host's stamps, cancellation in each era, resumption
tokens (``Checkpoint``), ``resume_flow`` and answers decided by the host (``ForwardedAnswer``),
on a fake clock."""

from __future__ import annotations

from typing import Any

import pytest
from mcpstream import errors
from mcpstream._http.core import call_flow
from mcpstream._http.core import steps as s
from mcpstream._http.core.protocol import ForwardedAnswer
from mcpstream._http.core.relay import Relay, Route

from ..fault_server import notification, result, server_request, sse
from .script import Answer, Script, json_answer, protocol, resuming, sse_answer

MODERN = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call"}
LEGACY = {"MCP-Protocol-Version": "2025-11-25"}


def out(relay: Relay, method: str | None, request_id: Any = None, **kw: Any) -> Any:
    return relay.outbound(
        method=method,
        request_id=request_id,
        params=kw.get("params"),
        headers=kw.get("headers"),
        resumption_token=kw.get("token"),
    )


def test_requests_notifications_and_answers_take_their_routes() -> None:
    relay = Relay(protocol(session_id="s1"))
    assert out(relay, "initialize", 1).route is Route.CALL
    assert out(relay, "tools/call", 2, token="ev-3").route is Route.RESUME
    initialized = out(relay, "notifications/initialized", headers=LEGACY)
    assert initialized.route is Route.POST and initialized.starts_listening
    # An answer nobody waits for is POSTed; one a stream waits for is handed to it.
    assert out(relay, None, 7).route is Route.POST
    relay.server_request_waiting(7)
    assert out(relay, None, 7).route is Route.ANSWER
    assert out(relay, None, 7).route is Route.POST  # answered once


def test_the_version_stamp_is_taken_over_and_says_the_era() -> None:
    core = protocol()
    relay = Relay(core)
    sent = out(relay, "server/discover", 1, headers=MODERN)
    assert sent.headers == {"Mcp-Method": "tools/call"}  # the version is the protocol's now
    assert core.protocol_version == "2026-07-28" and relay.modern
    # The handshake drops a probe's stamp: no version rides on initialize.
    out(relay, "initialize", 2, headers=MODERN)
    assert core.protocol_version is None and not relay.modern
    out(relay, "tools/list", 3, headers=LEGACY)
    assert core.protocol_version == "2025-11-25" and not relay.modern


def test_no_get_stream_is_opened_without_a_session() -> None:
    relay = Relay(protocol())
    assert not out(relay, "notifications/initialized", headers=LEGACY).starts_listening


def test_no_get_stream_is_opened_at_2026() -> None:
    relay = Relay(protocol())
    out(relay, "tools/list", 1, headers=MODERN)
    assert not out(relay, "notifications/initialized", headers=MODERN).starts_listening


def test_cancellation_follows_the_era_the_request_was_sent_in() -> None:
    relay = Relay(protocol())
    out(relay, "tools/call", 1, headers=MODERN)
    cancel = {"requestId": 1, "reason": "timeout"}
    assert out(relay, "notifications/cancelled", params=cancel).route is Route.ABORT
    relay.finished(1)
    # Not in flight any more: at 2026-07-28 nothing reaches the wire.
    assert out(relay, "notifications/cancelled", params=cancel).route is Route.DROP
    out(relay, "tools/call", 2, headers=LEGACY)
    assert out(relay, "notifications/cancelled", params={"requestId": 2}).route is Route.POST
    relay.finished(2)
    assert out(relay, "notifications/cancelled", params={"requestId": 2}).route is Route.POST


def test_ids_are_typed_and_a_reused_id_supersedes() -> None:
    relay = Relay(protocol())
    assert not out(relay, "tools/call", 1).supersedes
    assert not out(relay, "tools/call", "1").supersedes  # "1" is not 1
    assert out(relay, "tools/call", 1).supersedes


def test_event_ids_of_a_call_are_reported_once_each() -> None:
    body = [sse("", id="ev-1"), sse(notification("notifications/message"), id="ev-2")]
    body.append(sse(result(1, {"ok": True}), id="ev-3"))
    script = Script([sse_answer(*body)])
    flow = call_flow(
        protocol(),
        b"{}",
        method="tools/call",
        expected_id=1,
        timeout_s=5.0,
        now=script.now,
        checkpoint=print,
    )
    response = script.run(flow)
    assert response.result == {"ok": True}
    assert script.checkpoints == ["ev-1", "ev-2", "ev-3"]
    assert all(step.to is print for step in script.of(s.Checkpoint))


def test_no_checkpoint_without_a_callback() -> None:
    script = Script([sse_answer(sse(result(1, {}), id="ev-1"))])
    script.run(call_flow(protocol(), b"{}", method="m", expected_id=1, timeout_s=5.0, now=100.0))
    assert script.of(s.Checkpoint) == []


def test_resume_flow_gets_with_the_token_and_adopts_the_earlier_response() -> None:
    resumed = sse_answer(sse(result(2, {"v": 1}), id="ev-9"))
    script = Script([resumed])
    flow = resuming(last_event_id="ev-4", expected_id=5, now=script.now)
    response = script.run(flow)
    assert response.result == {"v": 1}  # the earlier request's (id 2) answers this one
    (request,) = script.sent
    assert request.method == "GET" and request.headers["Last-Event-ID"] == "ev-4"
    assert request.body is None


def test_resume_flow_refused_raises_the_transports_error() -> None:
    script = Script([Answer(404, {"content-type": "text/plain"}, [b"gone"])])
    flow = resuming(last_event_id="ev-4", expected_id=5, now=script.now)
    with pytest.raises(errors.McpHttpTransportSessionExpiredError):
        script.run(flow)


@pytest.mark.parametrize(
    "payload",
    [{"result": {"action": "decline"}}, {"error": {"code": -1, "message": "no", "data": [1]}}],
)
def test_a_forwarded_answer_is_posted_as_it_is_and_the_call_goes_on(
    payload: dict[str, Any],
) -> None:
    body = [sse(server_request(41, "elicitation/create"))]
    body.append(sse(result(1, {"done": True})))
    script = Script(
        [sse_answer(*body), Answer(202, {}, [])],
        handler=lambda request: ForwardedAnswer(payload),
    )
    core = protocol()
    core.has_handler = True
    flow = call_flow(core, b"{}", method="tools/call", expected_id=1, timeout_s=5.0, now=100.0)
    assert script.run(flow).result == {"done": True}
    answer = script.posted()[-1]
    assert answer == {"jsonrpc": "2.0", "id": 41, **payload}


def test_status_errors_carry_their_status() -> None:
    script = Script([json_answer({"oops": 1}, status=418)])
    with pytest.raises(errors.McpHttpTransportError) as caught:
        script.run(call_flow(protocol(), b"{}", method="m", expected_id=1, timeout_s=5.0, now=1.0))
    assert caught.value.status_code == 418


def test_a_forwarded_answer_the_host_posted_is_not_posted_again() -> None:
    # mcpstream.sdk POSTs the session's answer itself (a failure of that POST is its own to
    # handle, as the SDK's writer handles it): the call's stream only goes on.
    body = [sse(server_request(41, "elicitation/create")), sse(result(1, {"done": True}))]
    answer = ForwardedAnswer({"result": {"action": "decline"}}, posted=True)
    script = Script([sse_answer(*body)], handler=lambda request: answer)
    core = protocol()
    core.has_handler = True
    flow = call_flow(core, b"{}", method="tools/call", expected_id=1, timeout_s=5.0, now=100.0)
    assert script.run(flow).result == {"done": True}
    assert len(script.sent) == 1  # the call's POST alone
