"""Differential fuzzing of the two codec backends: the same input, cut the same way, must give
the same events, messages and text, or the same documented error; and nothing else may come out.

What counts as the same: equal values (compared through their reprs, which the contract makes
identical), or errors of the same class with the same message, except that the rest of an
"invalid JSON: ..." message may be worded differently (the contract allows it). Every error
must be one the contract documents: a ``CodecError`` from the decoders and the parser, a
``TypeError`` or ``ValueError`` from the encoder.
"""

from __future__ import annotations

import json
import math
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from mcpstream.errors import CodecError, JsonRpcProtocolError

from .budget import fuzz_settings
from .strategies import chunked, for_backend, json_texts, payloads, sse_streams

pytestmark = pytest.mark.both_backends

Outcome = tuple[str, Any]


def error_outcome(exc: BaseException) -> Outcome:
    """An error as (class name, message), the wording after "invalid JSON: " left out (for text
    with more than one problem, which one each backend names first differs too: a pure parse
    checks the nesting before anything else)."""
    message = str(exc)
    if isinstance(exc, JsonRpcProtocolError) and message.startswith("invalid JSON: "):
        message = "invalid JSON"
    return (type(exc).__name__, message)


def sse_outcome(backend: ModuleType, chunks: list[bytes], cap: int | None, jsonrpc: bool) -> Any:
    """Everything a decoder fed ``chunks`` (then finish) gave: per call, the results or the
    error, and its state at the end."""
    decoder = backend.SseDecoder(cap)
    feed, finish = (
        (decoder.feed_jsonrpc, decoder.finish_jsonrpc)
        if jsonrpc
        else (decoder.feed, decoder.finish)
    )
    calls: list[Outcome] = []
    for call, chunk in [*((feed, c) for c in chunks), (finish, None)]:
        try:
            results = call(chunk) if chunk is not None else call()
        except CodecError as exc:
            calls.append(error_outcome(exc))
            continue
        calls.append(("ok", [event_summary(r) for r in results]))
    return calls, decoder.event_in_progress, decoder.last_event_id, decoder.retry_ms


def event_summary(event: Any) -> Any:
    """An ``SseEvent`` or ``JsonRpcEvent`` as plain values."""
    if hasattr(event, "messages"):
        error = None if event.error is None else error_outcome(event.error)
        assert event.error is None or isinstance(event.error, JsonRpcProtocolError)
        return (event.id, event.event, repr(event.messages), error)
    return (event.event, event.data, event.id, event.retry)


def events_only(outcome: Any) -> Any:
    """The events and the final error of an outcome, whatever the chunking: the calls' results
    joined, up to the first error."""
    calls, _, last_id, retry = outcome
    events: list[Any] = []
    for status, value in calls:
        if status != "ok":
            return events, (status, value), last_id, retry
        events.extend(value)
    return events, None, last_id, retry


@fuzz_settings
@given(
    data=st.data(),
    stream=sse_streams(),
    cap=st.sampled_from([None, 16 * 1024 * 1024, 1, 7, 64]),
    jsonrpc=st.booleans(),
)
def test_sse_decoders_agree_on_any_stream_and_chunking(
    pure: ModuleType,
    native: ModuleType,
    data: st.DataObject,
    stream: bytes,
    cap: int | None,
    jsonrpc: bool,
) -> None:
    chunks = data.draw(chunked(stream))
    outcome = sse_outcome(pure, chunks, cap, jsonrpc)
    assert sse_outcome(native, chunks, cap, jsonrpc) == outcome
    # the results do not depend on the chunking
    assert events_only(sse_outcome(pure, [stream], cap, jsonrpc)) == events_only(outcome)


@fuzz_settings
@given(stream=sse_streams(), cap=st.sampled_from([None, 16 * 1024 * 1024, 1, 7, 64]))
def test_the_sole_message_of_any_stream_is_what_its_decoder_gives(
    pure: ModuleType, native: ModuleType, stream: bytes, cap: int | None
) -> None:
    """``sole_sse_message`` of both backends: equal, and the one message of the native
    decoder's one event when the stream is that alone (no error, no id, no retry set)."""
    sole = native.sole_sse_message(stream, cap)
    assert repr(pure.sole_sse_message(stream, cap)) == repr(sole)
    decoder = native.SseDecoder(cap)
    try:
        events = [*decoder.feed_jsonrpc(stream), *decoder.finish_jsonrpc()]
    except CodecError:
        events = []
    if (
        len(events) == 1
        and decoder.last_event_id is None
        and decoder.retry_ms is None
        and events[0].error is None
        and len(events[0].messages) == 1
    ):
        assert sole is not None and repr(sole) == repr(events[0].messages[0])
    else:
        assert sole is None


def parse_outcome(backend: ModuleType, text: str | bytes) -> Outcome:
    try:
        return ("ok", repr(backend.parse_jsonrpc_line(text)))
    except JsonRpcProtocolError as exc:
        return error_outcome(exc)


@fuzz_settings
@given(raw=json_texts(), as_str=st.booleans())
def test_parsers_agree_on_any_text(
    pure: ModuleType, native: ModuleType, raw: bytes, as_str: bool
) -> None:
    text: str | bytes = raw.decode("utf-8", "surrogateescape") if as_str else raw
    assert parse_outcome(native, text) == parse_outcome(pure, text)


def encode_outcome(backend: ModuleType, payload: Any) -> Outcome:
    try:
        return ("ok", backend.encode_jsonrpc_message(payload))
    except (TypeError, ValueError) as exc:
        return (type(exc).__name__, str(exc))


def json_compatible(value: Any) -> bool:
    """Whether ``json.dumps`` must give the encoders' text for ``value``."""
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, (list, tuple)):
        return all(json_compatible(v) for v in value)
    if isinstance(value, dict):
        return all(
            isinstance(k, (str, int, bool, type(None)))
            or (isinstance(k, float) and math.isfinite(k))
            for k in value
        ) and all(json_compatible(v) for v in value.values())
    return value is None or isinstance(value, (str, int))


@fuzz_settings
@given(payload=payloads())
def test_encoders_agree_on_any_payload(pure: ModuleType, native: ModuleType, payload: Any) -> None:
    outcome = encode_outcome(pure, payload)
    assert encode_outcome(native, for_backend(payload, native)) == outcome
    if outcome[0] == "ok":
        if json_compatible(payload):
            assert outcome[1] == json.dumps(
                payload, ensure_ascii=False, separators=(",", ":"), allow_nan=False
            )
        # what was encoded parses back to the same JSON
        assert json.loads(outcome[1]) == json.loads(outcome[1])


@fuzz_settings
@given(data=st.binary(max_size=64), cuts=st.data())
def test_utf8_decoders_agree(
    pure: ModuleType, native: ModuleType, data: bytes, cuts: st.DataObject
) -> None:
    chunks = cuts.draw(chunked(data))

    def run(backend: ModuleType) -> list[Outcome]:
        decoder = backend.Utf8Decoder()
        out: list[Outcome] = []
        for chunk in [*chunks, None]:
            try:
                out.append(("ok", decoder.decode(chunk) if chunk is not None else decoder.finish()))
            except CodecError as exc:
                out.append((type(exc).__name__, (str(exc), getattr(exc, "offset", None))))
        return out

    outcome = run(pure)
    assert run(native) == outcome
    text = "".join(v for status, v in outcome if status == "ok")
    if all(status == "ok" for status, _ in outcome):
        assert text == data.decode("utf-8")
