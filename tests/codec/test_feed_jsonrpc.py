"""SseDecoder.feed_jsonrpc / finish_jsonrpc: the JSON-RPC content of SSE events."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest
from mcpstream.errors import InvalidUtf8Error, JsonRpcProtocolError

REQUEST = b'{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{}}'
NOTE = b'{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}'
RESULT = b'{"jsonrpc":"2.0","id":1,"result":{"content":[]}}'


def event(
    data: bytes, *, event_type: bytes | None = b"message", event_id: bytes | None = None
) -> bytes:
    out = b""
    if event_id is not None:
        out += b"id: " + event_id + b"\n"
    if event_type is not None:
        out += b"event: " + event_type + b"\n"
    return out + b"data: " + data + b"\n\n"


def summary(item: Any) -> tuple[Any, ...]:
    error = None if item.error is None else (type(item.error), str(item.error))
    return (item.id, item.event, item.messages, error)


def test_each_event_gives_its_message(backend: ModuleType) -> None:
    decoder = backend.SseDecoder()
    items = decoder.feed_jsonrpc(event(NOTE, event_id=b"e1") + event(RESULT, event_id=b"e2"))
    assert type(items) is list
    assert [summary(i) for i in items] == [
        (
            "e1",
            "message",
            (backend.JsonRpcNotification(method="notifications/progress", params={"progress": 1}),),
            None,
        ),
        ("e2", "message", (backend.JsonRpcResponse(id=1, result={"content": []}),), None),
    ]
    assert all(type(i) is backend.JsonRpcEvent for i in items)


def test_a_batch_event_gives_all_its_messages(backend: ModuleType) -> None:
    (item,) = backend.SseDecoder().feed_jsonrpc(event(b"[" + REQUEST + b"," + NOTE + b"]"))
    assert [type(m).__name__ for m in item.messages] == ["JsonRpcRequest", "JsonRpcNotification"]
    assert item.error is None


def test_a_bad_event_is_reported_and_the_stream_goes_on(backend: ModuleType) -> None:
    stream = event(NOTE) + event(b'{"jsonrpc":"1.0"}') + event(b"not json") + event(RESULT)
    items = backend.SseDecoder().feed_jsonrpc(stream)
    assert [len(i.messages) for i in items] == [1, 0, 0, 1]
    assert items[0].error is None and items[3].error is None
    assert type(items[1].error) is JsonRpcProtocolError
    assert str(items[1].error) == 'JSON-RPC message must have "jsonrpc": "2.0"'
    assert type(items[2].error) is JsonRpcProtocolError
    assert str(items[2].error).startswith("invalid JSON: ")


def test_a_bad_batch_item_is_reported_with_its_index(backend: ModuleType) -> None:
    (item,) = backend.SseDecoder().feed_jsonrpc(event(b"[" + NOTE + b",7]"))
    assert item.messages == ()
    assert str(item.error) == "batch item 1: JSON-RPC message must be an object, got number"


@pytest.mark.parametrize("data", [b"", b" ", b"\t", b"  \t "])
def test_events_without_data_or_only_whitespace_are_skipped(
    backend: ModuleType, data: bytes
) -> None:
    assert backend.SseDecoder().feed_jsonrpc(event(data) + event(NOTE))[0].messages[0].method == (
        "notifications/progress"
    )
    assert len(backend.SseDecoder().feed_jsonrpc(event(data))) == 0


def test_data_lines_that_are_only_newlines_are_skipped(backend: ModuleType) -> None:
    assert backend.SseDecoder().feed_jsonrpc(b"data:\ndata: \ndata:\t\n\n") == []


def test_whitespace_that_is_not_json_whitespace_is_parsed_and_fails(backend: ModuleType) -> None:
    (item,) = backend.SseDecoder().feed_jsonrpc(event("\u00a0".encode()))
    assert str(item.error).startswith("invalid JSON: ")


@pytest.mark.parametrize("event_type", [b"ping", b"endpoint", b"Message", b"message "])
def test_events_of_another_type_are_skipped(backend: ModuleType, event_type: bytes) -> None:
    decoder = backend.SseDecoder()
    stream = b"id: 9\nretry: 100\nevent: " + event_type + b"\ndata: " + NOTE + b"\n\n"
    assert decoder.feed_jsonrpc(stream) == []
    assert decoder.last_event_id == "9"
    assert decoder.retry_ms == 100


@pytest.mark.parametrize("event_type", [None, b"", b"message"])
def test_events_without_a_type_or_of_type_message_are_parsed(
    backend: ModuleType, event_type: bytes | None
) -> None:
    (item,) = backend.SseDecoder().feed_jsonrpc(event(NOTE, event_type=event_type))
    assert item.event == (None if event_type is None else event_type.decode())
    assert len(item.messages) == 1


def test_skipped_events_still_set_last_event_id(backend: ModuleType) -> None:
    decoder = backend.SseDecoder()
    assert decoder.feed_jsonrpc(b"id: 5\ndata:\n\n") == []
    assert decoder.last_event_id == "5"
    assert decoder.feed_jsonrpc(b"id: 6\n\n") == []
    assert decoder.last_event_id == "6"


def test_pretty_printed_json_over_many_data_lines_is_parsed(backend: ModuleType) -> None:
    stream = b'data: {\ndata:   "jsonrpc": "2.0",\r\ndata:   "method": "m"\rdata: }\n\n'
    (item,) = backend.SseDecoder().feed_jsonrpc(stream)
    assert item.messages == (backend.JsonRpcNotification(method="m"),)


def test_events_split_over_chunks_are_parsed_when_complete(backend: ModuleType) -> None:
    stream = event(NOTE, event_id=b"a") + event(REQUEST, event_id=b"b")
    decoder = backend.SseDecoder()
    items = []
    for i in range(0, len(stream), 5):
        items += decoder.feed_jsonrpc(stream[i : i + 5])
    items += decoder.finish_jsonrpc()
    assert [i.id for i in items] == ["a", "b"]


def test_finish_jsonrpc_parses_the_pending_event(backend: ModuleType) -> None:
    decoder = backend.SseDecoder()
    assert decoder.feed_jsonrpc(b"id: z\ndata: " + RESULT) == []
    (item,) = decoder.finish_jsonrpc()
    assert (item.id, item.messages) == (
        "z",
        (backend.JsonRpcResponse(id=1, result={"content": []}),),
    )
    assert decoder.finish_jsonrpc() == []


def test_feed_jsonrpc_has_the_same_error_discipline_as_feed(backend: ModuleType) -> None:
    decoder = backend.SseDecoder()
    items = decoder.feed_jsonrpc(event(NOTE) + b"data: \xff\n\n")
    assert len(items) == 1
    for call in (lambda: decoder.feed_jsonrpc(b""), decoder.finish_jsonrpc, decoder.finish):
        with pytest.raises(InvalidUtf8Error) as info:
            call()
        assert info.value.offset == len(event(NOTE)) + 6


def test_a_jsonrpc_event_repr_shows_its_fields(backend: ModuleType) -> None:
    (item,) = backend.SseDecoder().feed_jsonrpc(b"id: 1\ndata: " + NOTE + b"\n\n")
    assert repr(item) == (
        "JsonRpcEvent(id='1', event=None, messages=(JsonRpcNotification("
        "method='notifications/progress', params={'progress': 1}),), error=None)"
    )
    (bad,) = backend.SseDecoder().feed_jsonrpc(b"event: message\ndata: []\n\n")
    assert repr(bad) == (
        "JsonRpcEvent(id=None, event='message', messages=(), "
        "error=JsonRpcProtocolError('empty JSON-RPC batch'))"
    )


def test_jsonrpc_events_compare_by_fields_and_by_error_class_and_message(
    backend: ModuleType,
) -> None:
    def one(stream: bytes) -> Any:
        (item,) = backend.SseDecoder().feed_jsonrpc(stream)
        return item

    assert one(event(NOTE, event_id=b"1")) == one(event(NOTE, event_id=b"1"))
    assert one(event(NOTE, event_id=b"1")) != one(event(NOTE, event_id=b"2"))
    assert one(event(NOTE)) != one(event(NOTE, event_type=None))
    assert one(event(NOTE)) != one(event(RESULT))
    assert one(event(b"[]")) == one(event(b"[]"))  # equal errors: same class and message
    assert one(event(b"[]")) != one(event(b"[1]"))
    assert one(event(b"[]")) != one(event(NOTE))
    assert one(event(NOTE)) != "not an event"


def test_jsonrpc_events_are_immutable_unhashable_final_and_not_constructible(
    backend: ModuleType,
) -> None:
    (item,) = backend.SseDecoder().feed_jsonrpc(event(NOTE))
    for name in ("id", "event", "messages", "error", "other"):
        with pytest.raises(AttributeError):
            setattr(item, name, None)
    with pytest.raises(TypeError):
        hash(item)
    with pytest.raises(TypeError):
        type("Sub", (backend.JsonRpcEvent,), {})
    with pytest.raises(TypeError):
        backend.JsonRpcEvent()


@pytest.mark.parametrize("skipped", [b"event: ping\ndata: x\n\n", b"id: 4\n\n", b"data:\n\n"])
def test_an_error_after_events_that_were_all_skipped_is_still_deferred(
    backend: ModuleType, skipped: bytes
) -> None:
    decoder = backend.SseDecoder()
    assert decoder.feed_jsonrpc(skipped + b"data: \xff\n") == []
    with pytest.raises(InvalidUtf8Error) as info:
        decoder.feed_jsonrpc(b"")
    assert info.value.offset == len(skipped) + 6


def test_an_error_without_completed_events_is_raised_by_feed_jsonrpc_at_once(
    backend: ModuleType,
) -> None:
    with pytest.raises(InvalidUtf8Error):
        backend.SseDecoder().feed_jsonrpc(b"data: \xff\n")
