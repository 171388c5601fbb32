"""Fuzzing the transport's response handling: the I/O-free core's call flow gets fuzzed answers
(statuses, content types, SSE and JSON bodies well-formed, mutated or random, cut into chunks,
with pauses and broken connections) from the scripted driver of ``tests/transport/core`` on its
fake clock, and may only return a response or raise a documented transport error, within a
bounded number of steps (no hang, whatever the server sends).

It uses the codec backend ``mcpstream.codec`` picked at import: scripts/test.sh runs this file
once per backend.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from mcpstream._http.core import ReconnectPolicy, call_flow
from mcpstream._http.core import steps as s
from mcpstream.errors import McpTransportError
from mcpstream.jsonrpc import JsonRpcResponse
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
@given(script_answers=st.lists(answers(), min_size=1, max_size=4), session=st.booleans())
def test_a_call_returns_a_response_or_raises_a_transport_error_whatever_the_server_sends(
    script_answers: list[Answer], session: bool
) -> None:
    core = protocol(
        session_id="s1" if session else None,
        policy=ReconnectPolicy(),
    )
    script = FuzzScript(script_answers)
    flow = call_flow(core, PING, method="ping", expected_id=1, timeout_s=5.0, now=script.now)
    try:
        response: Any = script.run(flow)
    except McpTransportError:
        return
    assert isinstance(response, JsonRpcResponse), response
