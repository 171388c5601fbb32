"""Property tests: random streams and values, checked against references and across backends.

* SSE streams come from a grammar of lines (fields, comments, blank lines, CR/LF/CRLF, a BOM,
  multibyte text, occasional huge lines and occasional invalid bytes) and are cut into random
  chunks. Each backend must give what the reference model (``sse_model``) says after every
  chunk, and the same events and error as for the whole stream in one chunk.
* ``Utf8Decoder`` is checked against ``bytes.decode``; ``parse_jsonrpc_line`` against the
  contract's rules (``jsonrpc_model``); ``encode_jsonrpc_message`` against ``json.dumps``.
* Tests marked ``both_backends`` feed both backends the same input and require identical results,
  call by call (events as tuples of fields, errors as class and message).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcpstream.errors import CodecError, InvalidUtf8Error, JsonRpcProtocolError

from .helpers import cut, error_tuple, event_tuple, run_stream
from .jsonrpc_model import expected_parse, message_tuple
from .sse_model import BOM, model

# --- SSE streams -------------------------------------------------------------------------------

FIELD_NAMES = ["data"] * 6 + ["event", "event", "id", "id", "retry", "retry", "Data", "x", ""]
SPECIAL_VALUES = [
    "",
    " ",
    "  x",
    "²",
    "12",
    "007",
    str(2**63 - 1),
    str(2**63),
    "\x00",
    "a\x00b",
    "\u2028",
    "\x85",
    "\x0b\x0c",
    "🚀",
    "日本語",
    "message",
    ":",
    " : ",
    "é",
]
values = st.one_of(
    st.text(
        alphabet=st.characters(exclude_categories=["Cs"], exclude_characters="\r\n"), max_size=10
    ),
    st.sampled_from(SPECIAL_VALUES),
)
INVALID_BYTES = [b"\xff", b"\xc0\x80", b"\xe2\x82", b"\xed\xa0\x80", b"\xf0\x9f\x92", b"\x80"]
LINE_KINDS = ["field"] * 24 + ["comment"] * 3 + ["blank"] * 6 + ["huge", "invalid"]


@st.composite
def sse_lines(draw: st.DrawFn) -> bytes:
    """One line of an SSE stream, without its terminator."""
    kind = draw(st.sampled_from(LINE_KINDS))
    if kind == "blank":
        return b""
    if kind == "comment":
        return (":" + draw(values)).encode()
    if kind == "huge":
        return b"data: " + draw(st.sampled_from([b"h", "日".encode()])) * draw(
            st.integers(500, 30_000)
        )
    name = draw(st.sampled_from(FIELD_NAMES))
    separator = draw(st.sampled_from([": ", ": ", ":", ":  ", ""]))
    line = (name + separator + draw(values)).encode()
    if kind == "invalid":
        at = draw(st.integers(0, len(line)))
        line = line[:at] + draw(st.sampled_from(INVALID_BYTES)) + line[at:]
    return line


@st.composite
def sse_streams(draw: st.DrawFn) -> bytes:
    """A whole SSE body: maybe a BOM, lines with mixed terminators, maybe a last partial line."""
    parts = [draw(st.sampled_from([b""] * 6 + [BOM, BOM, BOM[:1], BOM[:2], BOM + BOM]))]
    for line in draw(st.lists(sse_lines(), max_size=24)):
        parts += [line, draw(st.sampled_from([b"\n", b"\n", b"\r", b"\r\n"]))]
    if draw(st.booleans()):
        parts.append(draw(sse_lines()))
    return b"".join(parts)


limits = st.one_of(
    st.none(), st.just(16 * 1024 * 1024), st.integers(1, 200), st.integers(200, 40_000)
)


def draw_chunks(data: st.DataObject, stream: bytes) -> list[bytes]:
    """``stream`` cut at random places; small streams are sometimes fed byte by byte."""
    if len(stream) <= 400 and data.draw(st.integers(0, 4)) == 0:
        return [stream[i : i + 1] for i in range(len(stream))]
    positions = data.draw(st.lists(st.integers(0, len(stream)), max_size=24), label="cuts")
    return cut(stream, positions)


def state_of(decoder: Any) -> tuple[bool, str | None, int | None]:
    return (decoder.event_in_progress, decoder.last_event_id, decoder.retry_ms)


@given(stream=sse_streams(), limit=limits, data=st.data())
def test_any_chunking_gives_the_events_and_error_of_the_whole_stream(
    backend: ModuleType, stream: bytes, limit: int | None, data: st.DataObject
) -> None:
    chunks = draw_chunks(data, stream)
    assert run_stream(backend, chunks, limit) == run_stream(backend, [stream], limit)


@given(stream=sse_streams(), limit=limits, data=st.data())
def test_the_decoder_follows_the_reference_model_chunk_by_chunk(
    backend: ModuleType, stream: bytes, limit: int | None, data: st.DataObject
) -> None:
    decoder = backend.SseDecoder(limit)
    seen: list[Any] = []
    fed = b""
    deferred = None
    for chunk in [*draw_chunks(data, stream), None]:
        if chunk is None:
            expected = model(stream, limit, at_end=True)
            call: Callable[[], list[Any]] = decoder.finish
        else:
            fed += chunk
            expected = model(fed, limit, at_end=False)
            call = lambda chunk=chunk: decoder.feed(chunk)  # noqa: E731
        if deferred is not None:
            # The error was after the events the previous call returned: raised now.
            with pytest.raises(CodecError) as info:
                call()
            assert error_tuple(info.value) == deferred
            break
        if expected.error is not None and len(expected.events) == len(seen):
            with pytest.raises(CodecError) as info:
                call()
            assert error_tuple(info.value) == expected.error
            break
        seen += [event_tuple(event) for event in call()]
        assert seen == expected.events
        if expected.error is not None:
            deferred = expected.error
            continue
        assert state_of(decoder) == (
            expected.event_in_progress,
            expected.last_event_id,
            expected.retry_ms,
        )
    else:
        assert decoder.event_in_progress is False  # finish reset the decoder
        return
    # Failed: every later call raises the same error.
    failure = error_tuple(info.value)
    for again in (lambda: decoder.feed(b"data: x\n\n"), decoder.finish, decoder.finish_jsonrpc):
        with pytest.raises(CodecError) as info:
            again()
        assert error_tuple(info.value) == failure


def calls_of(decoder: Any, chunks: list[bytes], jsonrpc: bool) -> list[Any]:
    """Every call's outcome: the events (as tuples) or the error, and the state after it."""
    outcomes: list[Any] = []
    feed = decoder.feed_jsonrpc if jsonrpc else decoder.feed
    finish = decoder.finish_jsonrpc if jsonrpc else decoder.finish
    steps: list[Callable[[], list[Any]]] = [lambda c=c: feed(c) for c in chunks]
    steps += [finish, lambda: feed(b"data: more\n\n"), finish]
    for step in steps:
        try:
            result = step()
        except CodecError as exc:
            outcomes.append(error_tuple(exc))
        else:
            outcomes.append([jsonrpc_event_tuple(e) if jsonrpc else event_tuple(e) for e in result])
        outcomes.append(state_of(decoder))
    return outcomes


def jsonrpc_event_tuple(item: Any) -> tuple[Any, ...]:
    error = item.error
    if isinstance(error, JsonRpcProtocolError) and str(error).startswith("invalid JSON: "):
        error = (type(error), "invalid JSON: ")  # the rest of the wording may differ
    elif error is not None:
        error = error_tuple(error)
    return (item.id, item.event, tuple(message_tuple(m) for m in item.messages), error)


@pytest.mark.both_backends
@given(stream=sse_streams(), limit=limits, data=st.data(), jsonrpc=st.booleans())
def test_both_backends_agree_call_by_call(
    pure: ModuleType,
    native: ModuleType,
    stream: bytes,
    limit: int | None,
    data: st.DataObject,
    jsonrpc: bool,
) -> None:
    chunks = draw_chunks(data, stream)
    assert calls_of(pure.SseDecoder(limit), chunks, jsonrpc) == calls_of(
        native.SseDecoder(limit), chunks, jsonrpc
    )


# --- JSON-RPC over SSE -------------------------------------------------------------------------

json_leaves = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=6),
)
json_values = st.recursive(
    json_leaves,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)
ids = st.one_of(
    st.integers(-(2**70), 2**70),
    st.text(max_size=4),
    st.none(),
    st.booleans(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.just([]),
)
error_objects = st.one_of(
    st.fixed_dictionaries(
        {
            "code": st.one_of(
                st.integers(-40000, 40000),
                st.booleans(),
                st.floats(allow_nan=False, allow_infinity=False),
                st.text(max_size=2),
            ),
            "message": st.one_of(st.text(max_size=5), st.integers()),
        },
        optional={"data": json_values},
    ),
    json_values,
)
messages = st.fixed_dictionaries(
    {},
    optional={
        "jsonrpc": st.sampled_from(["2.0"] * 8 + ["1.0", 2.0, None]),
        "id": ids,
        "method": st.one_of(st.text(max_size=6), json_leaves),
        "params": json_values,
        "result": json_values,
        "error": error_objects,
        "extra": json_values,
    },
)
jsonrpc_values = st.one_of(
    messages, messages, st.lists(st.one_of(messages, json_values), max_size=4), json_values
)


@st.composite
def jsonrpc_texts(draw: st.DrawFn) -> str:
    """The JSON text of a JSON-RPC-ish value, maybe indented and padded with whitespace."""
    value = draw(jsonrpc_values)
    text = json.dumps(
        value, ensure_ascii=draw(st.booleans()), indent=draw(st.sampled_from([None, 1]))
    )
    pad = draw(st.sampled_from(["", " ", "\n", "\t\r\n "]))
    return pad + text + pad


@given(text=jsonrpc_texts())
def test_parsing_follows_the_contracts_rules(backend: ModuleType, text: str) -> None:
    expected = expected_parse(json.loads(text))
    for argument in (text, text.encode()):
        try:
            got: list[Any] | str = [message_tuple(m) for m in backend.parse_jsonrpc_line(argument)]
        except JsonRpcProtocolError as exc:
            got = str(exc)
        assert got == expected


@pytest.mark.both_backends
@given(text=jsonrpc_texts(), nan=st.sampled_from(["", "NaN", "-Infinity", "1e999"]))
def test_both_backends_parse_jsonrpc_alike(
    pure: ModuleType, native: ModuleType, text: str, nan: str
) -> None:
    if nan and text.count("null") == 1:
        text = text.replace("null", nan)

    def outcome(module: ModuleType) -> Any:
        try:
            return [message_tuple(m) for m in module.parse_jsonrpc_line(text)]
        except JsonRpcProtocolError as exc:
            message = str(exc)
            return "invalid JSON" if message.startswith("invalid JSON: ") else message

    assert repr(outcome(pure)) == repr(outcome(native))


@st.composite
def jsonrpc_sse_streams(draw: st.DrawFn) -> bytes:
    """SSE events whose data is JSON-RPC-ish text, sometimes split over data lines."""
    parts = []
    for value in draw(st.lists(jsonrpc_values, max_size=8)):
        text = json.dumps(value, indent=draw(st.sampled_from([None, 1])))
        event_type = draw(st.sampled_from([None, None, "message", "", "ping"]))
        if event_type is not None:
            parts.append(f"event: {event_type}\n")
        if draw(st.booleans()):
            parts.append(f"id: {draw(st.integers(0, 99))}\n")
        parts += [f"data: {line}\n" for line in text.split("\n")]
        parts.append("\n")
    return "".join(parts).encode()


@given(stream=jsonrpc_sse_streams(), data=st.data())
def test_feed_jsonrpc_parses_what_feed_dispatches(
    backend: ModuleType, stream: bytes, data: st.DataObject
) -> None:
    chunks = draw_chunks(data, stream)
    events = run_stream(backend, chunks).events
    expected = []
    for event_type, body, event_id, _retry in events:
        if event_type not in (None, "", "message") or not body.strip(" \t\r\n"):
            continue
        try:
            parsed: Any = (tuple(message_tuple(m) for m in backend.parse_jsonrpc_line(body)), None)
        except JsonRpcProtocolError as exc:
            parsed = ((), error_tuple(exc))
        expected.append((event_id, event_type, *parsed))
    decoder = backend.SseDecoder()
    got = []
    for chunk in [*chunks, None]:
        items = decoder.feed_jsonrpc(chunk) if chunk is not None else decoder.finish_jsonrpc()
        for item in items:
            error = None if item.error is None else error_tuple(item.error)
            got.append((item.id, item.event, tuple(message_tuple(m) for m in item.messages), error))
    assert got == expected


# --- Encoding ----------------------------------------------------------------------------------

keys = st.one_of(
    st.text(max_size=4),
    st.integers(-5, 5),
    st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(),
    st.none(),
)
encodable = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(2**80), 2**80),
        st.floats(allow_nan=False, allow_infinity=False),
        st.text(max_size=8),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.lists(inner, max_size=3).map(tuple),
        st.dictionaries(keys, inner, max_size=3),
    ),
    max_leaves=10,
)


@given(payload=encodable)
def test_encoding_equals_json_dumps(backend: ModuleType, payload: Any) -> None:
    expected = json.dumps(payload, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    assert backend.encode_jsonrpc_message(payload) == expected


@given(payload=encodable, bad=st.sampled_from([math.nan, math.inf, -math.inf]))
def test_a_non_finite_float_anywhere_raises_value_error(
    backend: ModuleType, payload: Any, bad: float
) -> None:
    with pytest.raises(ValueError) as info:
        backend.encode_jsonrpc_message([payload, {"x": [bad]}])
    assert str(info.value) == "cannot encode NaN or Infinity as JSON"


# --- UTF-8 ------------------------------------------------------------------------------------

byte_soups = st.lists(
    st.one_of(st.text(max_size=6).map(str.encode), st.binary(max_size=3)), max_size=12
).map(b"".join)


@given(data_bytes=byte_soups, data=st.data())
@settings(max_examples=300)
def test_utf8_decoder_agrees_with_bytes_decode(
    backend: ModuleType, data_bytes: bytes, data: st.DataObject
) -> None:
    chunks = draw_chunks(data, data_bytes)
    decoder = backend.Utf8Decoder()
    text = ""
    try:
        for chunk in chunks:
            text += decoder.decode(chunk)
        text += decoder.finish()
    except InvalidUtf8Error as exc:
        with pytest.raises(UnicodeDecodeError) as reference:
            data_bytes.decode()
        start = reference.value.start
        incomplete = reference.value.reason == "unexpected end of data"
        expected = (
            f"incomplete UTF-8 sequence at end of stream (byte offset {start})"
            if incomplete
            else f"invalid UTF-8 at byte offset {start}"
        )
        assert (str(exc), exc.offset) == (expected, start)
        assert data_bytes[:start].decode().startswith(text)
    else:
        assert text == data_bytes.decode()
