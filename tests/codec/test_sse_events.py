"""SseDecoder fields and dispatch; SseEvent as a value; the decoder's state properties."""

from __future__ import annotations

from types import ModuleType

import pytest

from .helpers import events_of, run_stream

MAX = 2**63 - 1


def test_data_lines_are_joined_with_newlines(backend: ModuleType) -> None:
    assert events_of(backend, b"data: one\ndata: two\ndata: three\n\n") == [
        (None, "one\ntwo\nthree", None, None)
    ]


def test_a_data_line_without_a_colon_appends_an_empty_line(backend: ModuleType) -> None:
    assert events_of(backend, b"data\ndata\n\n") == [(None, "\n", None, None)]
    assert events_of(backend, b"data\n\n") == [(None, "", None, None)]


@pytest.mark.parametrize(
    ("line", "value"),
    [
        (b"data:x", "x"),
        (b"data: x", "x"),
        (b"data:  x", " x"),
        (b"data:\tx", "\tx"),
        (b"data: x ", "x "),
        (b"data: ", ""),
        (b"data:", ""),
        (b"data: a:b: c", "a:b: c"),
    ],
)
def test_only_one_leading_space_is_removed_from_a_value(
    backend: ModuleType, line: bytes, value: str
) -> None:
    assert events_of(backend, line + b"\n\n") == [(None, value, None, None)]


def test_the_event_field_sets_the_type_and_the_last_one_wins(backend: ModuleType) -> None:
    assert events_of(backend, b"event: first\nevent: second\ndata: x\n\n") == [
        ("second", "x", None, None)
    ]


def test_an_empty_event_field_gives_an_empty_type(backend: ModuleType) -> None:
    assert events_of(backend, b"event:\ndata: x\n\nevent\ndata: y\n\n") == [
        ("", "x", None, None),
        ("", "y", None, None),
    ]


def test_an_event_without_an_event_field_has_type_none(backend: ModuleType) -> None:
    assert events_of(backend, b"event: a\ndata: 1\n\ndata: 2\n\n") == [
        ("a", "1", None, None),
        (None, "2", None, None),
    ]


def test_the_id_field_sets_the_event_id_and_the_last_one_wins(backend: ModuleType) -> None:
    assert events_of(backend, b"id: 1\nid: 2\ndata: x\n\n") == [(None, "x", "2", None)]


def test_an_id_containing_nul_is_ignored(backend: ModuleType) -> None:
    stream = b"id: good\nid: b\x00d\ndata: x\n\nid: \x00\ndata: y\n\n"
    assert events_of(backend, stream) == [(None, "x", "good", None), (None, "y", None, None)]


def test_a_non_ascii_id_is_kept_as_text(backend: ModuleType) -> None:
    # What the transport may send back in Last-Event-ID is its decision, not the decoder's.
    stream = "id: caf\u00e9-\u2713-\U0001f600\ndata: x\n\n".encode()
    decoder = backend.SseDecoder()
    assert [e.id for e in decoder.feed(stream)] == ["caf\u00e9-\u2713-\U0001f600"]
    assert decoder.last_event_id == "caf\u00e9-\u2713-\U0001f600"


def test_an_empty_id_field_gives_an_empty_id(backend: ModuleType) -> None:
    assert events_of(backend, b"id\ndata: a\n\nid:\ndata: b\n\n") == [
        (None, "a", "", None),
        (None, "b", "", None),
    ]


@pytest.mark.parametrize(
    ("value", "retry"),
    [
        (b"0", 0),
        (b"3000", 3000),
        (b"007", 7),
        (str(MAX).encode(), MAX),
        (b"0" * 30 + b"12", 12),
    ],
)
def test_a_retry_of_ascii_digits_up_to_2_63_minus_1_is_taken(
    backend: ModuleType, value: bytes, retry: int
) -> None:
    assert events_of(backend, b"retry: " + value + b"\ndata: x\n\n") == [(None, "x", None, retry)]


@pytest.mark.parametrize(
    "value",
    [
        "",
        str(MAX + 1),
        "1" * 5000,
        str(2**64),
        "9" * 20,
        "0" * 5000 + "1" * 20,
        "²",
        "\uff11\uff12",  # fullwidth digits
        "٣",  # Arabic-Indic digit three
        "-1",
        "+1",
        "1.5",
        "1e3",
        " 1",  # the second space stays in the value
        "1 ",
        "0x10",
    ],
)
def test_a_retry_that_is_not_ascii_digits_in_range_is_ignored(
    backend: ModuleType, value: str
) -> None:
    stream = f"retry: 5\nretry: {value}\ndata: x\n\n".encode()
    decoder = backend.SseDecoder()
    assert [e.retry for e in decoder.feed(stream)] == [5]
    assert decoder.retry_ms == 5


def test_retry_ms_takes_effect_when_the_line_is_read(backend: ModuleType) -> None:
    decoder = backend.SseDecoder()
    assert decoder.retry_ms is None
    assert decoder.feed(b"retry: 1500\n") == []
    assert decoder.retry_ms == 1500


def test_retry_ms_outlives_the_event_and_finish(backend: ModuleType) -> None:
    decoder = backend.SseDecoder()
    decoder.feed(b"retry: 10\ndata: a\n\ndata: b\n\n")
    decoder.finish()
    assert decoder.retry_ms == 10


def test_a_retry_only_event_is_dispatched_with_empty_data(backend: ModuleType) -> None:
    assert events_of(backend, b"retry: 20\n\n") == [(None, "", None, 20)]


def test_comments_are_ignored(backend: ModuleType) -> None:
    stream = b": a comment\ndata: x\n:\n:data: y\n\n: only a comment\n\n"
    assert events_of(backend, stream) == [(None, "x", None, None)]


@pytest.mark.parametrize(
    "line", [b"Data: x", b"DATA: x", b"data : x", b" data: x", b"datas: x", b"foo: x", b"foo"]
)
def test_unknown_fields_are_ignored(backend: ModuleType, line: bytes) -> None:
    assert events_of(backend, line + b"\n\n") == []
    assert events_of(backend, line + b"\ndata: y\n\n") == [(None, "y", None, None)]


def test_blank_lines_without_fields_dispatch_nothing(backend: ModuleType) -> None:
    assert events_of(backend, b"\n\n\r\n\r\r\n") == []


@pytest.mark.parametrize(
    ("stream", "event"),
    [
        (b"event: ping\n\n", ("ping", "", None, None)),
        (b"id: 3\n\n", (None, "", "3", None)),
        (b"retry: 3\n\n", (None, "", None, 3)),
        (b"data\n\n", (None, "", None, None)),
    ],
)
def test_an_event_with_any_field_set_is_dispatched(
    backend: ModuleType, stream: bytes, event: tuple[object, ...]
) -> None:
    assert events_of(backend, stream) == [event]


@pytest.mark.parametrize(
    "stream", [b"id: \x00\n\n", b"retry: x\n\n", b"foo: 1\n\n", b": c\n\n", b"event:\x00\n\n"]
)
def test_an_event_with_only_ignored_lines_is_not_dispatched_unless_a_field_was_set(
    backend: ModuleType, stream: bytes
) -> None:
    expected = [("\x00", "", None, None)] if stream.startswith(b"event") else []
    assert events_of(backend, stream) == expected


@pytest.mark.parametrize("tail", [b"data: x", b"data: x\n", b"data: x\r"])
def test_finish_dispatches_the_pending_event(backend: ModuleType, tail: bytes) -> None:
    decoder = backend.SseDecoder()
    assert decoder.feed(tail) == []
    assert decoder.finish() == [backend.SseEvent(data="x")]


def test_finish_without_a_pending_event_returns_nothing(backend: ModuleType) -> None:
    decoder = backend.SseDecoder()
    assert decoder.feed(b"data: x\n\n: comment") == [backend.SseEvent(data="x")]
    assert decoder.finish() == []


def test_finish_resets_the_decoder_but_keeps_last_event_id_and_retry_ms(
    backend: ModuleType,
) -> None:
    decoder = backend.SseDecoder()
    decoder.feed(b"id: 7\nretry: 99\ndata: a\n\ndata: partial")
    assert decoder.finish() == [backend.SseEvent(data="partial")]
    assert decoder.event_in_progress is False
    assert decoder.last_event_id == "7"
    assert decoder.retry_ms == 99
    assert decoder.feed(b"data: next\n\n") == [backend.SseEvent(data="next")]


def test_last_event_id_is_the_id_of_the_latest_event_that_set_one(backend: ModuleType) -> None:
    decoder = backend.SseDecoder()
    assert decoder.last_event_id is None
    decoder.feed(b"id: 1\ndata: a\n\n")
    assert decoder.last_event_id == "1"
    decoder.feed(b"data: b\n\n")  # no id: the last event id stays
    assert decoder.last_event_id == "1"
    decoder.feed(b"id\ndata: c\n\n")
    assert decoder.last_event_id == ""


def test_last_event_id_changes_only_when_the_event_is_dispatched(backend: ModuleType) -> None:
    decoder = backend.SseDecoder()
    decoder.feed(b"id: 1\n\nid: 2\ndata: x\n")
    assert decoder.last_event_id == "1"
    decoder.feed(b"\n")
    assert decoder.last_event_id == "2"


def test_event_in_progress_follows_lines_and_dispatches(backend: ModuleType) -> None:
    decoder = backend.SseDecoder()
    steps = [
        (b"", False),
        (b": comment\n", False),  # a whole comment line is no event
        (b": part", True),  # a partly received line counts, even a comment
        (b"ial\n", False),
        (b"da", True),
        (b"ta: x\n", True),
        (b"\n", False),
        (b"foo: 1\n", True),  # any non-comment line counts, even an ignored one
        (b"\r", False),  # a blank line; the CR that may be followed by LF does not count
        (b"\n", False),
        (b"data: y\r", True),
        (b"\n\n", False),
    ]
    for chunk, expected in steps:
        decoder.feed(chunk)
        assert decoder.event_in_progress is expected, chunk


def test_event_in_progress_is_true_while_the_start_could_still_be_a_bom(
    backend: ModuleType,
) -> None:
    decoder = backend.SseDecoder()
    decoder.feed(b"\xef\xbb")
    assert decoder.event_in_progress is True
    decoder.feed(b"\xbf")
    assert decoder.event_in_progress is False


def test_results_are_lists_of_sse_events(backend: ModuleType) -> None:
    events = backend.SseDecoder().feed(b"data: a\n\n")
    assert type(events) is list
    assert type(events[0]) is backend.SseEvent


def test_many_events_in_one_chunk_come_back_in_order(backend: ModuleType) -> None:
    stream = b"".join(b"id: %d\ndata: %d\n\n" % (i, i) for i in range(500))
    assert run_stream(backend, [stream]).events == [
        (None, str(i), str(i), None) for i in range(500)
    ]


# SseEvent, the value class


def test_sse_event_defaults(backend: ModuleType) -> None:
    event = backend.SseEvent()
    assert (event.event, event.data, event.id, event.retry) == (None, "", None, None)


def test_sse_event_takes_keywords_only(backend: ModuleType) -> None:
    with pytest.raises(TypeError):
        backend.SseEvent("message", "data")
    with pytest.raises(TypeError):
        backend.SseEvent(colour="red")


def test_sse_events_with_equal_fields_are_equal_and_hash_alike(backend: ModuleType) -> None:
    a = backend.SseEvent(event="e", data="d", id="1", retry=5)
    b = backend.SseEvent(event="e", data="d", id="1", retry=5)
    assert a == b
    assert (a != b) is False
    assert hash(a) == hash(b)
    assert len({a, b}) == 1


@pytest.mark.parametrize(
    "other", [{"event": "x"}, {"data": "x"}, {"id": "x"}, {"retry": 1}, {"event": ""}, {"id": ""}]
)
def test_sse_events_differing_in_one_field_are_unequal(
    backend: ModuleType, other: dict[str, object]
) -> None:
    assert backend.SseEvent() != backend.SseEvent(**other)


def test_an_sse_event_is_not_equal_to_other_types(backend: ModuleType) -> None:
    event = backend.SseEvent(data="x")
    assert event != (None, "x", None, None)
    assert event != "x"
    assert event is not None


def test_sse_event_repr_shows_the_fields(backend: ModuleType) -> None:
    event = backend.SseEvent(event="message", data='{"a": 1}', id="7", retry=10)
    assert repr(event) == ("SseEvent(event='message', data='{\"a\": 1}', id='7', retry=10)")
    assert repr(backend.SseEvent()) == "SseEvent(event=None, data='', id=None, retry=None)"


@pytest.mark.parametrize("name", ["event", "data", "id", "retry", "other"])
def test_sse_event_attributes_cannot_be_set_or_deleted(backend: ModuleType, name: str) -> None:
    event = backend.SseEvent(data="x")
    with pytest.raises(AttributeError):
        setattr(event, name, "y")
    with pytest.raises(AttributeError):
        delattr(event, name)
    assert event == backend.SseEvent(data="x")


def test_sse_event_cannot_be_subclassed(backend: ModuleType) -> None:
    with pytest.raises(TypeError):
        type("Sub", (backend.SseEvent,), {})


def test_decoder_properties_are_read_only(backend: ModuleType) -> None:
    decoder = backend.SseDecoder()
    for name in ("event_in_progress", "last_event_id", "retry_ms"):
        with pytest.raises(AttributeError):
            setattr(decoder, name, None)
