"""Fuzzing the transport's response handling: the I/O-free core's call flow gets fuzzed answers
(statuses, content types, SSE and JSON bodies well-formed, mutated or random, cut into chunks,
with pauses and broken connections) from the scripted driver of ``tests/transport/core`` on its
fake clock, and may only return a response or raise a documented transport error, within a
bounded number of steps (no hang, whatever the server sends). The GET stream's flow gets fuzzed
streams of server messages (with hostile ``id`` and ``retry`` fields) and must end by itself,
raising nothing, with every reconnection delay inside the policy's bounds and every
``Last-Event-ID`` it sends a short printable ASCII value.

It uses the codec backend ``mcpstream.codec`` picked at import: scripts/test.sh runs this file
once per backend.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from mcpstream._http.core import ListenStream, ReconnectPolicy, call_flow, listen_flow
from mcpstream._http.core import steps as s
from mcpstream.errors import McpTransportError
from mcpstream.jsonrpc import JsonRpcRequest, JsonRpcResponse
from transport.core.script import Answer, Fail, Pause, Script, protocol

from .budget import fuzz_settings
from .strategies import chunked, json_texts, mutated, sse_streams

MAX_STEPS = 2_000
"""Far more than any legitimate exchange takes; more means the flow would loop."""

PING = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode()
RESPONSE = b'{"jsonrpc":"2.0","id":1,"result":{}}'


class TooManySteps(BaseException):
    """The flow ran past ``MAX_STEPS`` (a BaseException: the script must not hand it back)."""


class FuzzScript(Script):
    """``Script`` that counts the steps, and fails a request once the answers run out (a server
    that went away) instead of raising."""

    def _answer(self, step: s.Step, body: list[bytes | Pause | Fail]) -> s.Outcome:
        if len(self.steps) > MAX_STEPS:
            raise TooManySteps(len(self.steps))
        if isinstance(step, s.Send) and not self.answers:
            self.sent.append(step.request)
            return s.Failed(self.now, s.FailureKind.NETWORK, ConnectionError("went away"))
        return super()._answer(step, body)


_CONTENT_TYPES = st.sampled_from(
    [
        "text/event-stream",
        "text/event-stream; charset=utf-8",
        "application/json",
        "application/json; charset=utf-8",
        "text/plain",
        "",
        "TEXT/EVENT-STREAM",
    ]
)

_HEADER_NAMES = st.sampled_from(["mcp-session-id", "content-length", "retry-after", "x-other"])


@st.composite
def bodies(draw: st.DrawFn, content_type: str) -> list[bytes | Pause | Fail]:
    """A body for ``content_type`` (or not): chunks, with pauses and a failure perhaps."""
    if "event-stream" in content_type.lower() and draw(st.booleans()):
        raw = draw(sse_streams())
        if draw(st.booleans()):
            raw += b"data: " + RESPONSE + b"\n\n"  # the answer, after whatever came first
    elif draw(st.booleans()):
        raw = draw(st.sampled_from([RESPONSE, RESPONSE.replace(b"1", b'"1"')]).flatmap(mutated))
    else:
        raw = draw(json_texts())
    items: list[bytes | Pause | Fail] = list(draw(chunked(raw)))
    # Pauses go before some bytes, never last: the scripted driver would answer a whole-body
    # read ending in a pause with the end of the body, which no real driver does.
    for _ in range(draw(st.integers(0, 2)) if items else 0):
        at = draw(st.integers(0, len(items) - 1))
        items.insert(at, Pause(draw(st.sampled_from([0.1, 1.0, 4.0, 30.0]))))
    if draw(st.integers(0, 5)) == 0:
        items.append(Fail(draw(st.sampled_from(list(s.FailureKind)))))
    return items


@st.composite
def answers(draw: st.DrawFn) -> Answer:
    """One fuzzed answer to a request."""
    status = draw(st.sampled_from([200, 200, 200, 202, 204, 400, 401, 403, 404, 405, 500, 503]))
    content_type = draw(_CONTENT_TYPES)
    headers = {"content-type": content_type} if content_type else {}
    for name in draw(st.lists(_HEADER_NAMES, max_size=2)):
        headers[name] = draw(
            st.text(max_size=8) | st.sampled_from(["5", "-1", "99999999999999999999"])
        )
    return Answer(status, headers, draw(bodies(content_type)))


@fuzz_settings
@given(
    script_answers=st.lists(answers(), min_size=1, max_size=4),
    session=st.booleans(),
    cancel=st.booleans(),
)
def test_a_call_returns_a_response_or_raises_a_transport_error_whatever_the_server_sends(
    script_answers: list[Answer], session: bool, cancel: bool
) -> None:
    core = protocol(
        session_id="s1" if session else None,
        policy=ReconnectPolicy(),
    )
    script = FuzzScript(script_answers)
    # ``cancel``: a call that times out POSTs its cancellation, answered by the next answer.
    flow = call_flow(
        core,
        PING,
        method="ping",
        expected_id=1,
        timeout_s=5.0,
        now=script.now,
        cancel_at_server=cancel,
    )
    try:
        response: Any = script.run(flow)
    except McpTransportError:
        return
    assert isinstance(response, JsonRpcResponse), response


_SERVER_MESSAGES = st.sampled_from(
    [
        b'{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"x"}}',
        b'{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}',
        b'{"jsonrpc":"2.0","id":7,"method":"ping"}',
        b'{"jsonrpc":"2.0","id":"r","method":"roots/list","params":{}}',
        b'{"jsonrpc":"2.0","id":8,"method":"no/such"}',
        RESPONSE,
    ]
)
_EVENT_IDS = (
    st.text(max_size=6)
    | st.sampled_from(["\u00e9t\u00e9", "a\x1bb", "x" * 2000, " padded ", "1"])
    | st.text(alphabet="0123456789", min_size=1, max_size=3)
)
_RETRIES = st.sampled_from(["0", "1", "-5", "100", "99999999999999999999999", "1e3", ""])


@st.composite
def server_events(draw: st.DrawFn) -> bytes:
    """One SSE event of the GET stream: a server message (or mutated bytes), perhaps with an
    ``id`` and a ``retry``."""
    message = draw(_SERVER_MESSAGES)
    if draw(st.integers(0, 4)) == 0:
        message = draw(mutated(message))
    lines = [b"data: " + message.replace(b"\n", b"")]
    if draw(st.booleans()):
        lines.insert(0, b"id: " + draw(_EVENT_IDS).encode("utf-8", "surrogatepass"))
    if draw(st.integers(0, 3)) == 0:
        lines.insert(0, b"retry: " + draw(_RETRIES).encode())
    return b"\n".join(lines) + b"\n\n"


@st.composite
def stream_answers(draw: st.DrawFn) -> Answer:
    """An answer to a GET (or to the POST of a reply): mostly an event stream of server
    messages, cut into chunks, with pauses and a broken end perhaps; else any fuzzed answer."""
    if draw(st.integers(0, 3)) == 0:
        return draw(answers())
    raw = b"".join(draw(st.lists(server_events(), max_size=5)))
    items: list[bytes | Pause | Fail] = list(draw(chunked(raw)))
    if items and draw(st.booleans()):
        items.insert(
            draw(st.integers(0, len(items) - 1)), Pause(draw(st.sampled_from([1.0, 90.0])))
        )
    if draw(st.integers(0, 3)) == 0:
        items.append(Fail(draw(st.sampled_from(list(s.FailureKind)))))
    return Answer(200, {"content-type": "text/event-stream"}, items)


def _handle(request: JsonRpcRequest) -> Any:
    """The host's handler of server requests: answers a ping, fails on anything else."""
    if request.method == "ping":
        return {}
    raise ValueError("not handled")


@fuzz_settings
@given(script_answers=st.lists(stream_answers(), min_size=1, max_size=5), session=st.booleans())
def test_the_get_stream_ends_by_itself_within_the_policy_whatever_the_server_sends(
    script_answers: list[Answer], session: bool
) -> None:
    policy = ReconnectPolicy()
    core = protocol(
        session_id="s1" if session else None, policy=policy, has_handler=True, push=True
    )
    script = FuzzScript(script_answers, handler=_handle)
    assert script.run(listen_flow(ListenStream(core), call_timeout_s=30.0)) is None
    assert all(policy.min_delay_s <= delay <= policy.max_retry_s for delay in script.sleeps)
    gets = [request for request in script.sent if request.method == "GET"]
    assert gets  # the stream was opened
    for request in gets:
        event_id = request.headers.get("Last-Event-ID")
        if event_id is not None:
            assert event_id.isascii() and event_id.isprintable() and 0 < len(event_id) <= 1024
    # Every GET after the answers ran out failed: at most max_attempts + 1 of them, then stop.
    assert len(gets) <= len(script_answers) + policy.max_attempts + 1
