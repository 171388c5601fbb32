"""sole_sse_message: the one JSON-RPC message of a whole event stream that holds just that.

Checked against its definition (a fresh ``SseDecoder`` fed the stream and finished: one
``JsonRpcEvent``, one message, no error, no event id or retry set), written out here from the
reference models of the SSE and JSON-RPC rules, which share no code with either backend.
"""

from __future__ import annotations

import json
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from .jsonrpc_model import MessageTuple, expected_parse, message_tuple
from .sse_model import BOM, model
from .test_properties import jsonrpc_values, limits

RESULT = b'{"jsonrpc":"2.0","id":1,"result":{"content":[]}}'
NOTE = b'{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}'


def event(data: bytes, *fields: bytes) -> bytes:
    return b"".join(field + b"\n" for field in fields) + b"data: " + data + b"\n\n"


def defined(stream: bytes, limit: int | None) -> MessageTuple | None:
    """What the contract says ``sole_sse_message(stream, limit)`` returns, as a tuple."""
    state = model(stream, limit, at_end=True)
    if state.error is not None or state.last_event_id is not None or state.retry_ms is not None:
        return None
    datas = [
        data
        for event_type, data, _, _ in state.events
        if event_type in (None, "", "message") and data.strip(" \t\r\n")
    ]
    if len(datas) != 1:
        return None
    try:
        parsed = expected_parse(json.loads(datas[0]))
    except ValueError:
        return None
    if isinstance(parsed, str) or len(parsed) != 1:
        return None
    return parsed[0]


def sole(backend: ModuleType, stream: bytes, limit: int | None = None) -> MessageTuple | None:
    message = backend.sole_sse_message(stream, limit)
    return None if message is None else message_tuple(message)


def test_the_one_response_of_a_stream(backend: ModuleType) -> None:
    message = backend.sole_sse_message(event(RESULT, b"event: message"))
    assert type(message) is backend.JsonRpcResponse
    assert message == backend.JsonRpcResponse(id=1, result={"content": []})


@pytest.mark.parametrize(
    "stream",
    [
        event(RESULT),
        BOM + event(RESULT, b": a comment", b"event:"),
        event(RESULT).replace(b"\n", b"\r\n"),
        b"data: " + RESULT,  # the stream ends the event
        event(b"[" + RESULT + b"]"),  # a batch of one is one message
        event(b"") + event(b" \t") + event(RESULT),  # blank events are skipped
        event(NOTE, b"event: ping") + event(RESULT),  # so are events of another type
        b'data: {"jsonrpc":"2.0",\ndata: "id":1,"result":{}}\n\n',
    ],
)
def test_what_holds_one_message(backend: ModuleType, stream: bytes) -> None:
    got = sole(backend, stream)
    assert got is not None and got == defined(stream, None)


@pytest.mark.parametrize(
    "stream",
    [
        b"",
        b": only a comment\n\n",
        event(RESULT, b"id: 7"),  # the call must note the event id
        event(RESULT, b"id:"),  # an empty id is an id
        event(RESULT, b"retry: 100"),
        event(b"", b"id: 1") + event(RESULT),  # a priming event's id
        event(NOTE, b"event: ping", b"id: 2") + event(RESULT),
        event(RESULT) + event(RESULT),
        event(NOTE) + event(RESULT),
        event(b"[" + NOTE + b"," + RESULT + b"]"),
        event(b"not json"),
        event(b'{"jsonrpc":"1.0","id":1,"result":{}}'),
        event(RESULT) + b"data: \xff\n\n",  # an error after the event
        event(RESULT)[:-1] + b"\xe2\x82",  # the stream ends inside a code point
    ],
)
def test_what_does_not(backend: ModuleType, stream: bytes) -> None:
    assert backend.sole_sse_message(stream) is None
    assert defined(stream, None) is None


def test_the_event_cap_holds(backend: ModuleType) -> None:
    stream = event(RESULT)
    assert backend.sole_sse_message(stream, len(stream)) is not None
    assert backend.sole_sse_message(stream, 10) is None  # too large: the decoder raises
    assert backend.sole_sse_message(stream, None) is not None
    assert backend.sole_sse_message(stream) is not None  # the default cap, 64 MiB


@pytest.mark.parametrize("limit", [0, -1])
def test_a_cap_that_is_not_positive_is_refused(backend: ModuleType, limit: int) -> None:
    with pytest.raises(ValueError, match="max_event_bytes must be a positive integer or None"):
        backend.sole_sse_message(event(RESULT), limit)


def test_not_bytes_is_refused(backend: ModuleType) -> None:
    with pytest.raises(TypeError):
        backend.sole_sse_message("data: {}\n\n")


@st.composite
def few_event_streams(draw: st.DrawFn) -> bytes:
    """Zero to three events of JSON-RPC-ish data (often one response), with or without an id,
    a retry, a type, comments, a BOM; line ends of every kind."""
    parts = [draw(st.sampled_from([b"", b"", BOM]))]
    for _ in range(draw(st.sampled_from([0, 1, 1, 1, 2, 3]))):
        pick = draw(st.integers(0, 4))
        value: Any = (
            draw(jsonrpc_values)
            if pick == 4
            else {"jsonrpc": "2.0", "method": "notifications/message"}
            if pick == 3
            else {"jsonrpc": "2.0", "id": pick, "result": {}}
        )
        text = draw(st.sampled_from(["", " ", "not json"] + [json.dumps(value)] * 5))
        lines = [f"data: {line}" for line in text.split("\n")]
        fields = ["event: message", "event: ping", "event:", "id: 3", "retry: 5"]
        for field in draw(st.lists(st.sampled_from(fields), max_size=2)) * draw(st.booleans()):
            lines.insert(draw(st.integers(0, len(lines))), field)
        if draw(st.booleans()):
            lines.insert(0, ": keep-alive")
        parts.append("\n".join(lines).encode())
        parts.append(b"\n\n")
    stream = b"".join(parts)
    if draw(st.booleans()):
        stream = stream.replace(b"\n", draw(st.sampled_from([b"\r\n", b"\r"])))
    if stream and draw(st.integers(0, 5)) == 0:
        stream = stream[: draw(st.integers(0, len(stream)))]  # cut short
    return stream


@given(stream=few_event_streams(), limit=limits)
def test_follows_its_definition(backend: ModuleType, stream: bytes, limit: int | None) -> None:
    assert sole(backend, stream, limit) == defined(stream, limit)


@pytest.mark.both_backends
@given(stream=few_event_streams(), limit=limits)
def test_both_backends_agree(
    pure: ModuleType, native: ModuleType, stream: bytes, limit: int | None
) -> None:
    assert sole(pure, stream, limit) == sole(native, stream, limit)
