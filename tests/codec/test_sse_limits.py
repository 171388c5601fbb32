"""SseDecoder's size cap and error discipline: deferred, sticky and positioned errors."""

from __future__ import annotations

from types import ModuleType

import pytest
from mcpstream import codec
from mcpstream.errors import CodecError, InvalidUtf8Error, SseEventTooLargeError

from .helpers import decode_every_way, event_tuple, run_stream

MiB = 1024 * 1024


def too_large(limit: int) -> tuple[type[SseEventTooLargeError], str]:
    return (
        SseEventTooLargeError,
        f"SSE event exceeds the limit of {limit} bytes (max_event_bytes)",
    )


def test_the_default_cap_is_the_documented_64_mib(backend: ModuleType) -> None:
    assert 64 * MiB == backend.DEFAULT_MAX_EVENT_BYTES == codec.DEFAULT_MAX_EVENT_BYTES


def test_an_event_of_exactly_the_default_cap_passes_and_one_byte_more_fails(
    backend: ModuleType,
) -> None:
    line = b"data: " + b"x" * (64 * MiB - 6)
    assert run_stream(backend, [line, b"\n\n"], backend.DEFAULT_MAX_EVENT_BYTES).events == [
        (None, "x" * (64 * MiB - 6), None, None)
    ]
    decoder = backend.SseDecoder()
    with pytest.raises(SseEventTooLargeError):
        decoder.feed(line + b"x")


def test_no_cap_allows_events_over_the_default(backend: ModuleType) -> None:
    line = b"data: " + b"y" * (64 * MiB + 10)
    assert run_stream(backend, [line[: 32 * MiB], line[32 * MiB :] + b"\n\n"], None).events == [
        (None, "y" * (64 * MiB + 10), None, None)
    ]


@pytest.mark.parametrize(
    ("stream", "passes"),
    [
        (b"data: 1234\n\n", True),  # 10 bytes
        (b"data: 12345\n\n", False),  # 11 bytes
        (b"data: 1234\r\n\r\n", True),  # terminators are not counted
        (b"data:a\nid:b\n\n", True),  # 6 + 4 = 10
        (b"data:a\nid:bc\n\n", False),  # 6 + 5 = 11
        (b"data:a\n:abc\n\n", True),  # a comment is checked: 6 + 4 = 10
        (b"data:a\n:abcd\n\n", False),  # 6 + 5 = 11
    ],
)
def test_the_cap_counts_the_bytes_of_the_lines_of_one_event(
    backend: ModuleType, stream: bytes, passes: bool
) -> None:
    outcome = decode_every_way(backend, stream, 10)
    assert (outcome.error is None) is passes, outcome


def test_every_non_comment_line_counts_even_ignored_ones(backend: ModuleType) -> None:
    for line in (b"retry: no", b"id: \x00x", b"unknown:", b"retry: 1"):
        outcome = decode_every_way(
            backend, line + b"\n" + b"data: " + b"z" * (20 - 6) + b"\n\n", 20
        )
        assert outcome.error == too_large(20), line


def test_an_event_exactly_at_the_cap_passes_and_one_byte_more_fails(backend: ModuleType) -> None:
    # "id: 1" (5) + "data: " and 9 bytes (15) = 20
    assert decode_every_way(backend, b"id: 1\ndata: 123456789\n\n", 20).error is None
    assert decode_every_way(backend, b"id: 1\ndata: 1234567890\n\n", 20).error == too_large(20)


def test_a_blank_line_starts_the_count_again(backend: ModuleType) -> None:
    stream = b"data: 1234\n\ndata: 5678\n\n\ndata: 9012\n\n"
    assert decode_every_way(backend, stream, 10).events == [
        (None, "1234", None, None),
        (None, "5678", None, None),
        (None, "9012", None, None),
    ]


def test_a_blank_line_resets_the_count_even_without_a_dispatch(backend: ModuleType) -> None:
    assert decode_every_way(backend, b"foo: 123\n\ndata: 1234\n\n", 10).error is None


def test_comment_lines_are_checked_against_the_cap_but_not_added(backend: ModuleType) -> None:
    # "data: 12" is 8 bytes; each 2-byte comment fits beside it, and they do not add up.
    assert decode_every_way(backend, b"data: 12\n:a\n:b\n:c\n:d\n\n", 10).error is None
    # A 3-byte comment beside the 8 counted bytes goes over.
    assert decode_every_way(backend, b"data: 12\n:ab\n\n", 10).error == too_large(10)


def test_a_comment_alone_larger_than_the_cap_fails(backend: ModuleType) -> None:
    assert decode_every_way(backend, b":" + b"c" * 10 + b"\n\n", 10).error == too_large(10)
    assert decode_every_way(backend, b":" + b"c" * 9 + b"\n\n", 10).error is None


def test_a_line_fails_as_soon_as_it_grows_past_the_cap_before_its_end(
    backend: ModuleType,
) -> None:
    decoder = backend.SseDecoder(100)
    assert decoder.feed(b"data: " + b"a" * 94) == []  # exactly 100 bytes so far
    with pytest.raises(SseEventTooLargeError) as info:
        decoder.feed(b"a")
    assert (type(info.value), str(info.value)) == too_large(100)
    assert info.value.limit == 100


def test_the_partial_line_counts_with_the_lines_before_it(backend: ModuleType) -> None:
    decoder = backend.SseDecoder(20)
    assert decoder.feed(b"data: 123456789\n") == []  # 15 bytes
    assert decoder.feed(b"id: 4") == []  # 15 + 5 = 20
    with pytest.raises(SseEventTooLargeError):
        decoder.feed(b"5")


def test_the_bom_does_not_count_against_the_cap(backend: ModuleType) -> None:
    stream = b"\xef\xbb\xbfdata: 1234\n\n"
    assert decode_every_way(backend, stream, 10).events == [(None, "1234", None, None)]


def test_bytes_that_begin_like_a_bom_count_once_they_are_not_one(backend: ModuleType) -> None:
    assert decode_every_way(backend, b"\xef\xbb", 1).error == too_large(1)


def test_many_small_events_pass_a_small_cap(backend: ModuleType) -> None:
    stream = b"".join(b"data: %04d\n\n" % i for i in range(2000))
    assert len(run_stream(backend, [stream], 10).events) == 2000


@pytest.mark.parametrize("value", [0, -1, -(2**62)])
def test_a_cap_below_one_is_a_value_error(backend: ModuleType, value: int) -> None:
    with pytest.raises(ValueError) as info:
        backend.SseDecoder(value)
    assert str(info.value) == "max_event_bytes must be a positive integer or None"


def test_the_cap_may_be_given_by_keyword(backend: ModuleType) -> None:
    decoder = backend.SseDecoder(max_event_bytes=5)
    with pytest.raises(SseEventTooLargeError):
        decoder.feed(b"data: x")


@pytest.mark.parametrize("value", ["10", 1.5, b"1"])
def test_a_cap_that_is_not_an_int_is_a_type_error(backend: ModuleType, value: object) -> None:
    with pytest.raises(TypeError):
        backend.SseDecoder(value)


def test_a_cap_of_2_63_minus_1_is_accepted(backend: ModuleType) -> None:
    decoder = backend.SseDecoder(2**63 - 1)
    assert decoder.feed(b"data: x\n\n") == [backend.SseEvent(data="x")]


# Errors and their position in the stream


def test_events_completed_before_an_error_in_the_same_feed_are_returned_first(
    backend: ModuleType,
) -> None:
    decoder = backend.SseDecoder()
    events = decoder.feed(b"data: a\n\ndata: b\n\ndata: \xff\n\ndata: c\n\n")
    assert [event_tuple(e) for e in events] == [(None, "a", None, None), (None, "b", None, None)]
    with pytest.raises(InvalidUtf8Error) as info:
        decoder.feed(b"data: d\n\n")
    assert str(info.value) == "invalid UTF-8 at byte offset 24"


def test_a_deferred_error_is_raised_by_finish_too(backend: ModuleType) -> None:
    decoder = backend.SseDecoder(12)
    assert len(decoder.feed(b"data: a\n\ndata: 1234567")) == 1
    with pytest.raises(SseEventTooLargeError):
        decoder.finish()


def test_a_deferred_error_is_raised_by_feed_jsonrpc_too(backend: ModuleType) -> None:
    decoder = backend.SseDecoder()
    assert len(decoder.feed(b'data: {"jsonrpc":"2.0","method":"m"}\n\n\xff\n')) == 1
    with pytest.raises(InvalidUtf8Error):
        decoder.feed_jsonrpc(b"")


def test_an_error_without_events_before_it_is_raised_at_once(backend: ModuleType) -> None:
    decoder = backend.SseDecoder()
    decoder.feed(b"data: a\n\n")
    with pytest.raises(InvalidUtf8Error):
        decoder.feed(b"data: \xfe\n\n")


@pytest.mark.parametrize(
    ("stream", "limit", "error"),
    [
        (b"data: \xff\n", None, (InvalidUtf8Error, "invalid UTF-8 at byte offset 6")),
        (b"data: " + b"x" * 50 + b"\n", 20, too_large(20)),
    ],
)
def test_a_failed_decoder_raises_the_same_error_on_every_call(
    backend: ModuleType, stream: bytes, limit: int | None, error: tuple[type, str]
) -> None:
    decoder = backend.SseDecoder(limit)
    with pytest.raises(CodecError) as first:
        decoder.feed(stream)
    assert (type(first.value), str(first.value)) == error
    calls = [
        lambda: decoder.feed(b"data: fine\n\n"),
        lambda: decoder.feed(b""),
        decoder.finish,
        lambda: decoder.feed_jsonrpc(b"data: {}\n\n"),
        decoder.finish_jsonrpc,
        decoder.finish,
    ]
    for call in calls:
        with pytest.raises(CodecError) as again:
            call()
        assert (type(again.value), str(again.value)) == error
        assert vars_of(again.value) == vars_of(first.value)


def vars_of(exc: BaseException) -> dict[str, object]:
    return {k: v for k, v in vars(exc).items() if not k.startswith("_")}


def test_invalid_utf8_offsets_count_the_bytes_of_earlier_chunks(backend: ModuleType) -> None:
    outcome = run_stream(backend, [b"data: a\n\n", b"data: b", b"c\xff\n\n"])
    assert outcome.events == [(None, "a", None, None)]
    assert outcome.error == (InvalidUtf8Error, "invalid UTF-8 at byte offset 17")


def test_invalid_utf8_in_a_comment_is_an_error(backend: ModuleType) -> None:
    assert decode_every_way(backend, b": \xc3\x28\n\n").error == (
        InvalidUtf8Error,
        "invalid UTF-8 at byte offset 2",
    )


def test_a_sequence_cut_by_a_line_end_is_invalid_not_incomplete(backend: ModuleType) -> None:
    for end in (b"\n", b"\r", b"\r\n"):
        outcome = decode_every_way(backend, b"data: ok\xe2\x82" + end)
        assert outcome.error == (InvalidUtf8Error, "invalid UTF-8 at byte offset 8"), end


def test_a_sequence_cut_by_the_end_of_the_stream_is_incomplete(backend: ModuleType) -> None:
    outcome = decode_every_way(backend, b"data: a\n\ndata: ok\xf0\x9f\x9a")
    assert outcome.events == [(None, "a", None, None)]
    assert outcome.error == (
        InvalidUtf8Error,
        "incomplete UTF-8 sequence at end of stream (byte offset 17)",
    )


def test_an_invalid_byte_in_the_last_unterminated_line_is_invalid_at_finish(
    backend: ModuleType,
) -> None:
    decoder = backend.SseDecoder()
    assert decoder.feed(b"data: x\xffy") == []
    with pytest.raises(InvalidUtf8Error) as info:
        decoder.finish()
    assert str(info.value) == "invalid UTF-8 at byte offset 7"


def test_a_line_is_decoded_when_it_completes_not_before(backend: ModuleType) -> None:
    decoder = backend.SseDecoder()
    assert decoder.feed(b"data: \xff") == []  # not complete yet: no error
    with pytest.raises(InvalidUtf8Error):
        decoder.feed(b"\n")


def test_the_size_error_wins_over_invalid_utf8_in_the_same_line(backend: ModuleType) -> None:
    assert decode_every_way(backend, b"data: \xff" + b"x" * 20 + b"\n", 10).error == too_large(10)


def test_an_error_keeps_the_events_of_the_stream_before_it(backend: ModuleType) -> None:
    stream = b"id: 1\ndata: a\n\nid: 2\ndata: b\n\nid: 3\ndata: \xff\n\ndata: never\n\n"
    outcome = decode_every_way(backend, stream)
    assert outcome.events == [(None, "a", "1", None), (None, "b", "2", None)]
    assert outcome.error == (InvalidUtf8Error, "invalid UTF-8 at byte offset 42")
    assert outcome.last_event_id == "2"


def test_a_failed_decoder_has_no_event_in_progress_and_keeps_id_and_retry(
    backend: ModuleType,
) -> None:
    decoder = backend.SseDecoder()
    events = decoder.feed(b"id: 1\nretry: 5\ndata: a\n\nid: 2\nretry: 6\ndata: b\n\xff\n")
    assert [event_tuple(e) for e in events] == [(None, "a", "1", 5)]
    assert decoder.event_in_progress is False  # failed, though "b" was being assembled
    assert (decoder.last_event_id, decoder.retry_ms) == ("1", 6)
    with pytest.raises(InvalidUtf8Error):
        decoder.feed(b"data: c\n\n")
    assert decoder.event_in_progress is False
    assert (decoder.last_event_id, decoder.retry_ms) == ("1", 6)


@pytest.mark.parametrize("stream", [b"\xef", b"data: x\xe2", b"data: " + b"y" * 30])
def test_a_decoder_that_failed_at_finish_has_no_event_in_progress(
    backend: ModuleType, stream: bytes
) -> None:
    decoder = backend.SseDecoder(20)
    try:
        decoder.feed(stream)
        decoder.finish()
    except CodecError:
        pass
    else:
        pytest.fail("the stream should have failed")
    assert decoder.event_in_progress is False


def test_an_event_at_the_cap_passes_however_its_data_lines_are_cut(backend: ModuleType) -> None:
    # Found by fuzzing: the native decoder counted each LF of a run of data lines taken after
    # a line carried over a cut, and refused this event (29 bytes of lines) in three chunks.
    chunks = [b"d", b'ata\ndata: blt":\nda', b'ta: blt":{}}\n\n']
    outcome = run_stream(backend, chunks, 29)
    assert (outcome.events, outcome.error) == ([(None, '\nblt":\nblt":{}}', None, None)], None)
    assert decode_every_way(backend, b"".join(chunks), 29) == outcome
    assert run_stream(backend, chunks, 28).error == (
        SseEventTooLargeError,
        "SSE event exceeds the limit of 28 bytes (max_event_bytes)",
    )
