"""The call flow without a server: every status and content type of an answer, the quiet
window, resumption, the 401/403 flows, server requests and notifications, on a fake clock."""

from __future__ import annotations

from typing import Any

import pytest
from mcpstream import errors
from mcpstream._http.core import CallExchange, ReconnectPolicy, call_flow, complete_answer
from mcpstream._http.core import steps as s
from mcpstream._http.core.flows import ACCEPTED
from mcpstream._http.core.protocol import QUIET_WINDOW_S
from mcpstream.jsonrpc import JsonRpcResponse
from mcpstream.server_requests import McpServerRequestHandlerError

from ..fault_server import notification, result, server_request, sse
from .script import (
    Answer,
    Fail,
    Hook,
    Pause,
    Script,
    dumps,
    failure,
    json_answer,
    protocol,
    sse_answer,
)

PING = dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"})


def request(script: Script, core: Any = None, *, method: str = "ping", timeout_s: float = 5.0):
    """Run a request with id 1 and return its response."""
    core = core or protocol()
    flow = call_flow(core, PING, method=method, expected_id=1, timeout_s=timeout_s, now=script.now)
    return script.run(flow)


def notify(script: Script, core: Any = None) -> Any:
    flow = call_flow(
        core or protocol(),
        b"{}",
        method="notifications/x",
        expected_id=None,
        timeout_s=5.0,
        now=script.now,
    )
    return script.run(flow)


def ok(request_id: Any = 1, value: Any = None) -> bytes:
    return result(request_id, value if value is not None else {}).encode()


# -- statuses and content types ----------------------------------------------------------------


@pytest.mark.parametrize("status", [202, 204])
def test_a_notification_accepted_without_a_body_reads_nothing(status: int) -> None:
    script = Script([Answer(status)])
    assert notify(script) is None
    assert [type(step) for step in script.steps] == [s.Send]
    sent = script.sent[0]
    assert sent.method == "POST" and sent.body == b"{}"
    assert sent.headers["Accept"] == "application/json, text/event-stream"
    assert sent.headers["Content-Type"] == "application/json"
    assert sent.headers["X-Static"] == "1"


def test_a_json_response_is_matched_and_the_session_id_taken_from_initialize() -> None:
    core = protocol()
    script = Script(
        [json_answer({"jsonrpc": "2.0", "id": 1, "result": {"v": 1}}, **{"mcp-session-id": "abc"})]
    )
    response = request(script, core, method="initialize")
    assert isinstance(response, JsonRpcResponse) and response.result == {"v": 1}
    assert core.session_id == "abc"
    script = Script([json_answer({"jsonrpc": "2.0", "id": 1, "result": {}})])
    request(script, core)
    assert script.sent[0].headers["MCP-Session-Id"] == "abc"


def test_a_json_body_answering_a_notification_is_discarded() -> None:
    script = Script([json_answer({"jsonrpc": "2.0", "result": {}})])
    assert notify(script) is None


def test_a_json_response_with_another_id_is_a_protocol_error() -> None:
    script = Script([json_answer({"jsonrpc": "2.0", "id": 7, "result": {}})])
    with pytest.raises(errors.McpHttpTransportProtocolError, match="id 7"):
        request(script)


@pytest.mark.parametrize(
    ("status", "error", "match"),
    [
        (400, errors.McpHttpTransportProtocolError, "refused with HTTP 400: bad input"),
        (401, errors.McpHttpTransportAuthRequiredError, "requires authentication"),
        (403, errors.McpHttpTransportProtocolError, "refused with HTTP 403"),
        (500, errors.McpHttpTransportRemoteError, "server error HTTP 500"),
        (503, errors.McpHttpTransportRemoteError, "HTTP 503"),
    ],
)
def test_error_statuses_map_to_errors_with_a_snippet_of_the_body(
    status: int, error: type[Exception], match: str
) -> None:
    script = Script([Answer(status, {"content-type": "text/plain"}, [b"bad input"])])
    with pytest.raises(error, match=match):
        request(script)
    assert [type(step) for step in script.steps] == [s.Send, s.ReadSnippet]


def _page(title: str) -> list[bytes]:
    return [f"<html><head><title>{title}</title></head><body>nginx</body></html>".encode()]


@pytest.mark.parametrize(
    ("status", "words"),
    [(502, "bad gateway"), (503, "service unavailable"), (504, "gateway timeout")],
)
@pytest.mark.parametrize("method", ["initialize", "tools/call"])
def test_a_proxys_error_page_is_a_server_or_gateway_error_naming_its_status(
    status: int, words: str, method: str
) -> None:
    page = Answer(status, {"content-type": "text/html"}, _page(f"{status} Bad Gateway"))
    with pytest.raises(errors.McpHttpTransportRemoteError) as caught:
        request(Script([page]), method=method)
    message = str(caught.value)
    assert f"server or gateway error HTTP {status} ({words}" in message
    assert f"HTML page ('{status} Bad Gateway')" in message
    assert "not an MCP endpoint" not in message and "is this the URL" not in message
    assert caught.value.status_code == status  # type: ignore[attr-defined]


@pytest.mark.parametrize("status", [404, 405])
def test_a_web_page_where_the_path_is_likely_wrong_is_still_not_an_mcp_endpoint(
    status: int,
) -> None:
    page = Answer(status, {"content-type": "text/html"}, _page("Welcome to nginx!"))
    with pytest.raises(errors.McpHttpTransportProtocolError) as caught:
        request(Script([page]), method="initialize")
    assert f"not an MCP endpoint: 'initialize' was answered with HTTP {status}" in str(caught.value)


def test_a_404_in_a_session_means_it_expired_before_the_call_ran() -> None:
    script = Script([Answer(404)])
    with pytest.raises(errors.McpHttpTransportSessionExpiredError) as caught:
        request(script, protocol(session_id="abc"))
    assert caught.value.request_delivered is False


def test_a_404_to_initialize_without_a_session_says_no_mcp_endpoint_at_this_path() -> None:
    script = Script([Answer(404)])
    with pytest.raises(errors.McpHttpTransportProtocolError, match="no MCP endpoint at this path"):
        request(script, method="initialize")


def test_a_405_to_initialize_without_a_session_names_the_older_transport() -> None:
    script = Script([Answer(405)])
    with pytest.raises(errors.McpHttpTransportProtocolError, match="older HTTP\\+SSE"):
        request(script, method="initialize")


@pytest.mark.parametrize(
    ("headers", "body", "match"),
    [
        # a web page where MCP was expected: the URL is what to check (at any status)
        (
            {"content-type": "text/html"},
            [b"<p>"],
            "not an MCP endpoint: .* HTTP 200 and an HTML page, the unsupported content type "
            "'text/html' \\(is this the URL of an MCP server\\?\\)",
        ),
        ({"content-type": "text/plain"}, [b"hi"], "unsupported content type 'text/plain'$"),
        ({}, [b"{}"], "has no content type"),
    ],
)
def test_unexpected_content_types_of_a_request_are_protocol_errors(
    headers: dict[str, str], body: list[bytes], match: str
) -> None:
    with pytest.raises(errors.McpHttpTransportProtocolError, match=match):
        request(Script([Answer(200, headers, body)]))


def test_a_notification_answered_without_content_type_must_have_an_empty_body() -> None:
    assert notify(Script([Answer(200, {}, [b"  "])])) is None
    with pytest.raises(errors.McpHttpTransportProtocolError, match="body but no content type"):
        notify(Script([Answer(200, {}, [b"surprise"])]))


def test_a_request_failing_on_the_network_is_mapped_with_the_url_redacted() -> None:
    script = Script([failure(message="cannot reach http://mcp.example/mcp?key=s3cret")])
    with pytest.raises(
        errors.McpHttpTransportError, match="HTTP request for 'ping' failed"
    ) as caught:
        request(script)
    assert "s3cret" not in str(caught.value)
    assert "cannot reach http://mcp.example/mcp" in str(caught.value)
    assert isinstance(caught.value.__cause__, ConnectionError)


def test_a_connect_timeout_shorter_than_the_call_is_named_and_bounds_connecting() -> None:
    script = Script([failure(s.FailureKind.CONNECT_TIMEOUT)])
    with pytest.raises(errors.McpHttpTransportTimeoutError, match=r"connect timeout of 0\.250s"):
        request(script, protocol(connect_timeout_s=0.25))
    assert script.sent[0].connect_s == 0.25 and script.sent[0].timeout_s == 5.0
    # With less left of the call than the connect timeout, the call's deadline bounds it.
    script = Script([json_answer({"jsonrpc": "2.0", "id": 1, "result": {}})])
    request(script, protocol(connect_timeout_s=10.0))
    assert script.sent[0].connect_s is None


def test_a_json_body_slower_than_the_deadline_times_out() -> None:
    script = Script([Answer(200, {"content-type": "application/json"}, [Pause(9), b"{}"])])
    with pytest.raises(errors.McpHttpTransportTimeoutError, match=r"within 2\.000s"):
        request(script, timeout_s=2.0)


# -- SSE ---------------------------------------------------------------------------------------


def test_an_sse_answer_queues_notifications_and_returns_the_response() -> None:
    core = protocol()
    script = Script(
        [sse_answer(sse(notification("n/1")), sse(result(1, {"ok": True})), length=True)]
    )
    response = request(script, core)
    assert response.result == {"ok": True}
    assert [n.method for n in core.drain_notifications()] == ["n/1"]
    assert script.of(s.Deliver) == []


def test_with_a_callback_notifications_are_delivered_in_order_before_the_call_returns() -> None:
    core = protocol(push=True)
    body = sse(notification("n/1")) + sse(notification("n/2"))
    script = Script([sse_answer(body, sse(notification("n/3")), sse(result(1, {})), length=True)])
    request(script, core)
    assert [n.method for n in script.delivered] == ["n/1", "n/2", "n/3"]
    assert core.drain_notifications() == ()
    assert isinstance(script.steps[-1], s.ReadChunk | s.Deliver)


def test_notifications_decoded_before_an_error_are_still_delivered() -> None:
    core = protocol(push=True)
    body = sse(notification("n/1")) + sse(result(1, {})) + sse(result(1, {}))
    script = Script([sse_answer(body, length=True)])
    with pytest.raises(errors.McpHttpTransportProtocolError, match="more than one"):
        request(script, core)
    assert [n.method for n in script.delivered] == ["n/1"]


def test_an_open_ended_stream_is_read_on_for_the_quiet_window_after_the_response() -> None:
    core = protocol()
    late = QUIET_WINDOW_S * 0.5
    script = Script(
        [
            sse_answer(
                sse(result(1, {})),
                Pause(late),
                sse(notification("n/trailing")),
                Pause(60),  # the server keeps the stream open
                sse(notification("n/too-late")),
            )
        ]
    )
    started = script.now
    request(script, core)
    assert [n.method for n in core.drain_notifications()] == ["n/trailing"]
    waits = [step.wait_s for step in script.of(s.ReadChunk)]
    assert waits[-1] == pytest.approx(QUIET_WINDOW_S)
    assert script.now - started == pytest.approx(late + QUIET_WINDOW_S)


def test_a_stream_with_a_length_after_the_response_may_carry_nothing_else() -> None:
    body = sse(result(1, {})) + sse(notification("n/after"))
    with pytest.raises(errors.McpHttpTransportProtocolError, match="after the response"):
        request(Script([sse_answer(body, length=True)]))


def test_a_stream_silent_past_the_deadline_times_out_with_bounded_waits() -> None:
    script = Script([sse_answer(Pause(30), sse(result(1, {})))])
    with pytest.raises(errors.McpHttpTransportTimeoutError):
        request(script, timeout_s=3.0)
    assert all(0 < step.wait_s <= 3.0 for step in script.of(s.ReadChunk))
    assert script.now == pytest.approx(103.0)


def test_a_broken_stream_after_the_response_ends_the_call_quietly() -> None:
    from .script import Fail

    script = Script([sse_answer(sse(result(1, {"v": 2}), id="e1"), Fail())])
    assert request(script).result == {"v": 2}
    assert script.of(s.Sleep) == []


# -- resumption --------------------------------------------------------------------------------


def test_a_stream_ending_before_the_response_resumes_with_last_event_id_after_retry() -> None:
    script = Script(
        [
            sse_answer(sse(notification("n/1"), id="e1", retry=250)),
            sse_answer(sse(result(1, {"resumed": True}), id="e2")),
        ]
    )
    response = request(script, protocol(session_id="abc"))
    assert response.result == {"resumed": True}
    assert script.sleeps == [0.25]
    get = script.sent[1]
    assert get.method == "GET" and get.body is None
    assert get.headers["Last-Event-ID"] == "e1" and get.headers["Accept"] == "text/event-stream"
    assert get.headers["MCP-Session-Id"] == "abc"


def test_without_retry_the_policy_backs_off_and_gives_up_after_its_attempts() -> None:
    policy = ReconnectPolicy(max_attempts=3, initial_delay_s=0.5, multiplier=2.0, max_delay_s=1.5)
    answers = [sse_answer(sse(notification("n/1"), id="e1"))]
    answers += [sse_answer(sse(notification("n/again"))) for _ in range(3)]
    script = Script(answers)
    with pytest.raises(errors.McpHttpTransportProtocolError, match="ended before the response"):
        request(script, protocol(policy=policy), timeout_s=60)
    assert script.sleeps == [0.5, 1.0, 1.5]
    assert [r.method for r in script.sent] == ["POST", "GET", "GET", "GET"]


def test_a_stream_stalled_past_the_clients_read_timeout_is_resumed_as_one_that_broke_off() -> None:
    # The HTTP client's read timeout before the call's deadline: the stream stalled; it is
    # resumed from its last event id, and the resumed stream answers.
    stalled = sse_answer(sse(notification("n/1"), id="e1", retry=10), Fail(s.FailureKind.TIMEOUT))
    script = Script([stalled, sse_answer(sse(result(1, {"resumed": True}), id="e2"))])
    response = request(script, protocol(policy=ReconnectPolicy(min_delay_s=0.0)), timeout_s=60)
    assert response.result == {"resumed": True}
    assert [r.method for r in script.sent] == ["POST", "GET"]


def test_stalls_count_as_failed_attempts_whatever_ids_they_bring() -> None:
    # Each reconnection GET gets a new priming id and then nothing: the attempts run out, and
    # the error is the stall's (a timeout caused by the client's), not the call's deadline.
    policy = ReconnectPolicy(max_attempts=2, min_delay_s=0.0)
    answers = [sse_answer(sse(notification("n/1"), id="e1", retry=10), Fail(s.FailureKind.TIMEOUT))]
    answers += [
        sse_answer(sse(notification("n/again"), id=f"p{n}"), Fail(s.FailureKind.TIMEOUT))
        for n in range(2)
    ]
    script = Script(answers)
    with pytest.raises(errors.McpHttpTransportTimeoutError, match="read timeout") as caught:
        request(script, protocol(policy=policy), timeout_s=60)
    assert caught.value.__cause__ is not None
    assert [r.method for r in script.sent] == ["POST", "GET", "GET"]


def test_a_stall_without_event_ids_fails_at_once() -> None:
    script = Script([sse_answer(sse(notification("n/1")), Fail(s.FailureKind.TIMEOUT))])
    with pytest.raises(errors.McpHttpTransportTimeoutError, match="read timeout"):
        request(script, timeout_s=60)
    assert script.sleeps == [] and len(script.sent) == 1


def test_a_stream_without_event_ids_cannot_be_resumed() -> None:
    script = Script([sse_answer(sse(notification("n/1")))])
    with pytest.raises(errors.McpHttpTransportProtocolError, match="ended before the response"):
        request(script)
    assert script.sleeps == []


def test_an_empty_event_id_resets_the_id_and_the_stream_cannot_be_resumed() -> None:
    """The SSE rule: after ``id:`` with no value there is no last event id to send back."""
    stream = sse(notification("n/1"), id="e1") + sse(notification("n/2"), id="")
    script = Script([sse_answer(stream)])
    with pytest.raises(errors.McpHttpTransportProtocolError, match="ended before the response"):
        request(script)
    assert script.sleeps == [] and len(script.sent) == 1


def test_a_resumption_that_would_pass_the_deadline_is_a_timeout() -> None:
    script = Script([sse_answer(sse(notification("n/1"), id="e1", retry=5000))])
    with pytest.raises(errors.McpHttpTransportTimeoutError):
        request(script, timeout_s=2.0)
    assert script.sleeps == []


def test_a_failed_reconnection_is_tried_again_and_a_404_then_means_delivered() -> None:
    script = Script(
        [
            sse_answer(sse(notification("n/1"), id="e1", retry=10)),
            failure(s.FailureKind.NETWORK),
            Answer(404),
        ]
    )
    with pytest.raises(errors.McpHttpTransportSessionExpiredError, match="resuming") as caught:
        # No floor on the delay here: the server's 10 ms as they are.
        request(script, protocol(session_id="abc", policy=ReconnectPolicy(min_delay_s=0.0)))
    assert caught.value.request_delivered is True
    assert script.sleeps == [0.01, 0.01]


def test_a_reconnection_answered_with_json_is_tried_again_then_refused() -> None:
    policy = ReconnectPolicy(min_delay_s=0.0)
    json = json_answer({"jsonrpc": "2.0", "id": 1, "result": {}})
    script = Script([sse_answer(sse(notification("n/1"), id="e1", retry=10))] + [json] * 10)
    with pytest.raises(errors.McpHttpTransportProtocolError, match="instead of an event stream"):
        request(script, protocol(policy=policy))
    gets = [r for r in script.sent if r.method == "GET"]
    assert len(gets) == policy.max_attempts


def test_a_reconnection_answered_with_json_then_a_stream_completes() -> None:
    json = json_answer({"jsonrpc": "2.0", "id": 1, "result": {}})
    resumed = sse_answer(sse(result(1, {"ok": 1}), id="e2"))
    script = Script([sse_answer(sse(notification("n/1"), id="e1", retry=10)), json, resumed])
    assert request(script, protocol(policy=ReconnectPolicy(min_delay_s=0.0))).result == {"ok": 1}


def test_a_transport_closed_while_a_call_waits_to_resume_raises_closed() -> None:
    core = protocol()
    script = Script([sse_answer(sse(notification("n/1"), id="e1", retry=10))])
    flow = call_flow(core, PING, method="ping", expected_id=1, timeout_s=5, now=script.now)
    original = script._answer_other

    def close_on_sleep(step: s.Step) -> s.Outcome:
        if isinstance(step, s.Sleep):
            core.closed = True
        return original(step)

    script._answer_other = close_on_sleep  # type: ignore[method-assign]
    with pytest.raises(errors.McpHttpTransportError, match="closed"):
        script.run(flow)
    with pytest.raises(errors.McpHttpTransportError, match="closed"):
        request(Script([]), core)


# -- 401 and 403 -------------------------------------------------------------------------------


def test_a_401_renewed_by_the_hook_is_sent_again_with_the_new_credentials() -> None:
    hook = Hook([True])
    script = Script(
        [
            Answer(401, {"www-authenticate": "Bearer"}, [b"no"]),
            json_answer({"jsonrpc": "2.0", "id": 1, "result": {}}),
        ],
        hook=hook,
    )
    request(script, protocol(has_auth=True), method="tools/call")
    assert [r.headers["Authorization"] for r in script.sent] == ["Bearer t1", "Bearer t2"]
    renew = script.of(s.Renew)[0]
    assert renew.status_code == 401 and renew.body == b"no"
    assert renew.headers["www-authenticate"] == "Bearer"
    # One message: the replay reuses the request scope, whose rule (``replay_allowed`` None:
    # never for tools/call) the hook applies.
    authorizes = script.of(s.Authorize)
    assert authorizes[0].scope is None and authorizes[0].replay_allowed is None
    assert authorizes[1].scope is not None and authorizes[1].scope.method == "tools/call"
    # The snippet was read (and the 401 closed) before the hook was asked.
    kinds = [type(step) for step in script.steps]
    assert kinds.index(s.ReadSnippet) < kinds.index(s.Renew)


@pytest.mark.parametrize(
    ("status", "error", "match"),
    [
        (401, errors.McpHttpTransportAuthRequiredError, "requires authentication"),
        (403, errors.McpHttpTransportProtocolError, "HTTP 403"),
    ],
)
def test_a_challenge_the_hook_does_not_renew_is_mapped(
    status: int, error: type[Exception], match: str
) -> None:
    script = Script([Answer(status)], hook=Hook([False]))
    with pytest.raises(error, match=match):
        request(script, protocol(has_auth=True))
    assert len(script.sent) == 1


def test_an_oauth_error_of_the_hook_reaches_the_caller_as_it_is() -> None:
    script = Script([Answer(403)], hook=Hook([errors.McpAuthError("log in again")]))
    with pytest.raises(errors.McpAuthError, match="log in again"):
        request(script, protocol(has_auth=True))


def test_time_spent_renewing_counts_against_the_deadline() -> None:
    hook = Hook([True], cost_s=0.5)
    script = Script(
        [Answer(401), json_answer({"jsonrpc": "2.0", "id": 1, "result": {}})], hook=hook
    )
    request(script, protocol(has_auth=True), timeout_s=2.0)
    assert script.sent[1].timeout_s == pytest.approx(1.5)


def test_a_renewal_that_outlasts_the_deadline_ends_the_call_with_its_timeout() -> None:
    hook = Hook([True], cost_s=10.0)
    script = Script([Answer(401)], hook=hook)
    with pytest.raises(errors.McpHttpTransportTimeoutError, match=r"within 2\.000s"):
        request(script, protocol(has_auth=True), timeout_s=2.0)
    assert len(script.sent) == 1  # not sent again


def test_without_a_hook_no_credentials_are_asked_for() -> None:
    script = Script([json_answer({"jsonrpc": "2.0", "id": 1, "result": {}})])
    request(script)
    assert script.of(s.Authorize) == [] and "Authorization" not in script.sent[0].headers


def test_a_401_to_the_resuming_get_is_renewed_and_the_get_may_always_be_replayed() -> None:
    script = Script(
        [
            sse_answer(sse(notification("n/1"), id="e1", retry=10)),
            Answer(401),
            sse_answer(sse(result(1, {}), id="e2")),
        ],
        hook=Hook([True]),
    )
    request(script, protocol(has_auth=True))
    assert [step.replay_allowed for step in script.of(s.Authorize)] == [None, True, True]
    assert script.sent[2].headers["Last-Event-ID"] == "e1"
    assert script.sent[2].headers["Authorization"] == "Bearer t2"


# -- server requests ---------------------------------------------------------------------------


def answer_body(script: Script) -> Any:
    replies = [body for body in script.posted() if "method" not in body]
    assert len(replies) == 1
    return replies[0]


def test_a_handled_server_request_is_answered_before_the_response_is_read() -> None:
    seen = []

    def handler(request: Any) -> Any:
        seen.append((request.method, request.params))
        return {"action": "accept"}

    script = Script(
        [
            sse_answer(
                sse(server_request(90, "elicitation/create", {"q": 1})),
                Pause(0.01),
                sse(result(1, {"done": True})),
            ),
            Answer(202),
        ],
        handler=handler,
    )
    response = request(script, protocol(has_handler=True))
    assert response.result == {"done": True}
    assert seen == [("elicitation/create", {"q": 1})]
    assert answer_body(script) == {"jsonrpc": "2.0", "id": 90, "result": {"action": "accept"}}
    # The answer went out while the call's stream stayed open, as a flow of its own.
    assert len(script.of(s.Run)) == 1 and script.sent[1].method == "POST"


def test_without_a_handler_a_server_request_gets_method_not_found_and_the_call_fails() -> None:
    script = Script([sse_answer(sse(server_request(5, "sampling/createMessage"))), Answer(202)])
    with pytest.raises(errors.McpHttpTransportProtocolError, match="no handler"):
        request(script)
    body = answer_body(script)
    assert body["id"] == 5 and body["error"]["code"] == -32601
    assert script.of(s.Handle) == []


def test_a_handler_that_raises_answers_an_internal_error_and_fails_the_call() -> None:
    def handler(request: Any) -> Any:
        raise RuntimeError("boom")

    script = Script(
        [sse_answer(sse(server_request(5, "roots/list"))), Answer(202)], handler=handler
    )
    with pytest.raises(errors.McpHttpTransportProtocolError, match="handler failed") as caught:
        request(script, protocol(has_handler=True))
    assert isinstance(caught.value.__cause__, RuntimeError)
    assert answer_body(script)["error"]["code"] == -32603


def test_a_handler_error_with_a_code_is_answered_with_that_code() -> None:
    def handler(request: Any) -> Any:
        raise McpServerRequestHandlerError(-32042, "declined")

    script = Script([sse_answer(sse(server_request(5, "x/y"))), Answer(202)], handler=handler)
    with pytest.raises(errors.McpHttpTransportProtocolError):
        request(script, protocol(has_handler=True))
    assert answer_body(script)["error"] == {"code": -32042, "message": "declined"}


def test_an_answer_that_cannot_be_posted_fails_the_call_as_delivered() -> None:
    script = Script([sse_answer(sse(server_request(5, "x/y"))), Answer(404)], handler=lambda r: {})
    with pytest.raises(
        errors.McpHttpTransportSessionExpiredError, match="could not POST"
    ) as caught:
        request(script, protocol(session_id="abc", has_handler=True))
    assert caught.value.request_delivered is True


def test_a_server_request_on_a_json_answer_is_a_protocol_error() -> None:
    script = Script([json_answer({"jsonrpc": "2.0", "id": 3, "method": "roots/list"})])
    with pytest.raises(errors.McpHttpTransportProtocolError, match="not supported"):
        request(script, protocol(has_handler=True))


# -- the plain case of an answer that arrived whole (the drivers' one-shot path) --------------

_OK = result(1, {"ok": True})
_WHOLE_ANSWERS = {
    "json": json_answer({"jsonrpc": "2.0", "id": 1, "result": {"ok": True}}),
    "sse with a length": sse_answer(sse(_OK), length=True),
    "sse open-ended": sse_answer(sse(_OK, id="e1")),
    "sse, a notification first": sse_answer(sse(notification("n/1")), sse(_OK), length=True),
    "sse, a server request first": sse_answer(sse(server_request(7, "ping")), sse(_OK)),
    "sse, no response": sse_answer(sse(notification("n/1")), length=True),
    "sse, another id": sse_answer(sse(result(2, {"ok": True})), length=True),
    "sse, malformed": sse_answer(b"data: {not json\n\n", length=True),
    "sse, a retry": sse_answer(sse(_OK, retry=50), length=True),
    "sse, a batch of one": sse_answer(sse(f"[{_OK}]"), length=True),
    "sse, two responses": sse_answer(sse(_OK), sse(_OK), length=True),
    "sse, a priming event": sse_answer(sse("", id="p0"), sse(_OK), length=True),
    "an error status": json_answer({"error": "no"}, status=500),
    "json, compressed": json_answer({"x": 1}, **{"content-encoding": "gzip"}),
}


@pytest.mark.parametrize("name", list(_WHOLE_ANSWERS))
def test_a_whole_answer_is_the_plain_case_only_where_the_flow_just_returns_it(name: str) -> None:
    answer = _WHOLE_ANSWERS[name]
    body = b"".join(item for item in answer.body if isinstance(item, bytes))
    call = CallExchange(protocol(), method="ping", expected_id=1, timeout_s=5.0, now=100.0)
    plain = complete_answer(
        call, status_code=answer.status, headers=answer.headers, now=100.0, body=body
    )
    core = protocol(has_handler=True)
    # (a server request is answered, and that answer's POST accepted)
    script = Script([answer, Answer(202)], handler=lambda _: {})
    try:
        by_flow = request(script, core)
    except errors.McpHttpTransportError:
        by_flow = None
    ran_plainly = (
        by_flow is not None
        and not core.drain_notifications()
        and script.of(s.Handle) == []
        and len(script.of(s.Send)) == 1
    )
    if ran_plainly and "content-encoding" not in answer.headers:
        assert isinstance(plain, JsonRpcResponse)
        assert plain.result == by_flow.result
    else:
        assert plain is None


_NOTIFICATION_ANSWERS = {
    "202": Answer(202),
    "204": Answer(204),
    "200, no body, no type": Answer(200),
    "200, untyped text": Answer(200, {}, [b"fine"]),
    "202 with a JSON body": json_answer({"ok": True}, status=202),
    "200, an event stream": sse_answer(sse(notification("n/1")), length=True),
    "an error status": json_answer({"error": "no"}, status=500),
    "404": Answer(404),
}


@pytest.mark.parametrize("name", list(_NOTIFICATION_ANSWERS))
def test_a_notifications_whole_answer_is_accepted_only_where_the_flow_reads_nothing(
    name: str,
) -> None:
    answer = _NOTIFICATION_ANSWERS[name]
    body = b"".join(item for item in answer.body if isinstance(item, bytes))
    call = CallExchange(
        protocol(), method="notifications/x", expected_id=None, timeout_s=5.0, now=1.0
    )
    plain = complete_answer(
        call, status_code=answer.status, headers=answer.headers, now=1.0, body=body
    )
    script = Script([answer])
    try:
        by_flow: Any = notify(script)
    except errors.McpHttpTransportError as exc:
        by_flow = exc
    reads = [step for step in script.steps if not isinstance(step, s.Send)]
    if plain is not None:
        assert plain is ACCEPTED and by_flow is None and reads == []
        assert len(script.of(s.Send)) == 1
    else:
        assert reads or isinstance(by_flow, errors.McpHttpTransportError)


_WHOLE_SSE_BODIES = {
    "one response": sse(_OK),
    "one response, no blank line at the end": sse(_OK).rstrip(b"\n"),
    "an event id": sse(_OK, id="e1"),
    "a retry": sse(_OK, retry=50),
    "a priming event": sse("", id="p0") + sse(_OK),
    "a ping event first": sse(notification("n/0"), event="ping") + sse(_OK),
    "a batch of one": sse(f"[{_OK}]"),
    "a notification first": sse(notification("n/1")) + sse(_OK),
    "a server request first": sse(server_request(7, "ping")) + sse(_OK),
    "two responses": sse(_OK) + sse(_OK),
    "another id": sse(result(2, {"ok": True})),
    "no response": sse(notification("n/1")),
    "malformed": b"data: {not json\n\n",
    "not UTF-8": b"data: \xff\n\n",
}


@pytest.mark.parametrize("open_ended", [False, True])
@pytest.mark.parametrize("name", list(_WHOLE_SSE_BODIES))
def test_a_whole_sse_body_is_taken_as_its_decoder_takes_it(name: str, open_ended: bool) -> None:
    """``take_whole_sse`` (which takes the common body without a decoder) leaves the call as
    ``open_sse(...).whole`` leaves it, and says whether that left anything to do."""
    body = _WHOLE_SSE_BODIES[name]
    headers = {"content-type": "text/event-stream"}
    if not open_ended:
        headers["content-length"] = str(len(body))

    def state(call: CallExchange) -> tuple[Any, ...]:
        return (call.response, call.last_event_id, call.retry_ms, call.notifications)

    taken, decoded = (
        CallExchange(protocol(), method="ping", expected_id=1, timeout_s=5.0, now=100.0)
        for _ in range(2)
    )
    outcome: Any
    try:
        outcome = taken.take_whole_sse(headers=headers, body=body, now=100.0)
    except errors.McpHttpTransportError as exc:
        outcome = type(exc)
    expected: Any
    try:
        requests, resume = decoded.open_sse(headers=headers, now=100.0).whole(body, 100.0)
        expected = not requests and resume is None
    except errors.McpHttpTransportError as exc:
        expected = type(exc)
    assert outcome == expected
    assert state(taken) == state(decoded)
    if name.startswith("one response"):
        assert outcome is True and taken.response is not None
