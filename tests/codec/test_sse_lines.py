"""SseDecoder line splitting: CR, LF and CRLF only, a CR resolved across chunks, the BOM.

Every stream here is decoded whole, cut at every single position and fed byte by byte
(``events_of``); all of them must give the same events.
"""

from __future__ import annotations

from types import ModuleType

import pytest
from mcpstream.errors import InvalidUtf8Error

from .helpers import cut, decode_every_way, event_tuple, events_of, run_stream

BOM = b"\xef\xbb\xbf"


def message(data: str) -> tuple[None, str, None, None]:
    return (None, data, None, None)


@pytest.mark.parametrize("end", [b"\n", b"\r", b"\r\n"])
def test_lf_cr_and_crlf_each_end_a_line(backend: ModuleType, end: bytes) -> None:
    stream = b"data: a" + end + b"data: b" + end + end + b"data: c" + end + end
    assert events_of(backend, stream) == [message("a\nb"), message("c")]


def test_line_endings_may_be_mixed_in_one_stream(backend: ModuleType) -> None:
    stream = b"data: a\rdata: b\ndata: c\r\n\r\ndata: d\n\r"
    assert events_of(backend, stream) == [message("a\nb\nc"), message("d")]


@pytest.mark.parametrize(
    "separator",
    ["\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e"],
    ids=["U+2028", "U+2029", "U+0085", "VT", "FF", "FS", "GS", "RS"],
)
def test_unicode_line_separators_are_ordinary_characters(
    backend: ModuleType, separator: str
) -> None:
    stream = f"data: one{separator}two\n\n".encode()
    assert events_of(backend, stream) == [message(f"one{separator}two")]


def test_a_cr_then_lf_in_the_next_chunk_is_one_line_end(backend: ModuleType) -> None:
    # Were the CR and the LF two line ends, the empty line between them would dispatch "a".
    assert run_stream(backend, [b"data: a\r", b"\ndata: b\n\n"]).events == [message("a\nb")]


def test_a_cr_at_the_end_of_a_chunk_ends_its_line_at_once(backend: ModuleType) -> None:
    decoder = backend.SseDecoder()
    assert decoder.feed(b"data: a\n\r") == [backend.SseEvent(data="a")]
    assert decoder.feed(b"\n") == []  # the LF belongs to the CR
    assert decoder.feed(b"data: b\n\n") == [backend.SseEvent(data="b")]


def test_a_cr_at_the_end_of_a_chunk_followed_by_text_was_a_line_end(backend: ModuleType) -> None:
    assert run_stream(backend, [b"data: a\r", b"data: b\r", b"\r"]).events == [message("a\nb")]


def test_a_pending_cr_survives_empty_chunks(backend: ModuleType) -> None:
    assert run_stream(backend, [b"data: a\r", b"", b"", b"\ndata: b\n\n"]).events == [
        message("a\nb")
    ]


def test_a_cr_at_the_end_of_the_stream_ends_the_last_line(backend: ModuleType) -> None:
    assert events_of(backend, b"data: a\r") == [message("a")]


def test_two_crs_make_a_blank_line(backend: ModuleType) -> None:
    assert events_of(backend, b"data: a\r\rdata: b\r\r") == [message("a"), message("b")]


def test_lf_then_cr_makes_a_blank_line_not_a_crlf(backend: ModuleType) -> None:
    assert events_of(backend, b"data: a\n\rdata: b\n\n") == [message("a"), message("b")]


def test_a_line_spanning_many_chunks_is_reassembled(backend: ModuleType) -> None:
    payload = "x" * 5000 + "日本語" + "y" * 5000
    stream = f"data: {payload}\n\n".encode()
    chunks = [stream[i : i + 7] for i in range(0, len(stream), 7)]
    assert run_stream(backend, chunks).events == [message(payload)]


def test_a_long_line_finished_by_a_chunk_with_more_lines_keeps_them(backend: ModuleType) -> None:
    long_line = b"data: " + b"z" * 10000
    chunks = [long_line[:6000], long_line[6000:], b"\r\ndata: tail\r\n\r\ndata: next\n\n"]
    assert run_stream(backend, chunks).events == [message("z" * 10000 + "\ntail"), message("next")]


def test_a_leading_bom_is_dropped(backend: ModuleType) -> None:
    assert events_of(backend, BOM + b"data: a\n\n") == [message("a")]


@pytest.mark.parametrize("cuts", [[1], [2], [1, 2], [1, 3], [3]])
def test_a_bom_split_across_chunks_is_dropped(backend: ModuleType, cuts: list[int]) -> None:
    stream = BOM + b"data: a\n\n"
    chunks = cut(stream, cuts)
    assert run_stream(backend, chunks).events == [message("a")]


def test_only_one_bom_is_dropped(backend: ModuleType) -> None:
    # The second BOM is the start of a field name "\ufeffdata", an unknown field.
    assert events_of(backend, BOM + BOM + b"data: a\n\ndata: b\n\n") == [message("b")]


def test_a_bom_after_the_start_of_the_stream_is_kept(backend: ModuleType) -> None:
    stream = b"data: a\n\n" + BOM + b"data: b\n\ndata: \xef\xbb\xbfc\n\n"
    assert events_of(backend, stream) == [message("a"), message("\ufeffc")]


def test_a_stream_that_is_only_a_bom_has_no_events(backend: ModuleType) -> None:
    assert events_of(backend, BOM) == []


def test_bytes_that_begin_like_a_bom_but_are_not_one_are_part_of_the_line(
    backend: ModuleType,
) -> None:
    outcome = decode_every_way(backend, b"\xef\xbbdata: a\n\n")
    assert outcome.events == []
    assert outcome.error == (InvalidUtf8Error, "invalid UTF-8 at byte offset 0")


def test_a_stream_cut_off_inside_a_bom_ends_in_an_incomplete_sequence(
    backend: ModuleType,
) -> None:
    outcome = decode_every_way(backend, b"\xef\xbb")
    assert outcome.error == (
        InvalidUtf8Error,
        "incomplete UTF-8 sequence at end of stream (byte offset 0)",
    )


def test_error_offsets_count_the_bom(backend: ModuleType) -> None:
    outcome = decode_every_way(backend, BOM + b"data: \xff\n\n")
    assert outcome.error == (InvalidUtf8Error, "invalid UTF-8 at byte offset 9")


def test_finish_starts_a_new_stream_whose_bom_is_dropped_again(backend: ModuleType) -> None:
    decoder = backend.SseDecoder()
    assert decoder.feed(BOM + b"data: a\n\n") == [backend.SseEvent(data="a")]
    assert decoder.finish() == []
    assert decoder.feed(BOM[:2]) == []
    assert decoder.feed(BOM[2:] + b"data: b\n\n") == [backend.SseEvent(data="b")]


def test_error_offsets_restart_at_zero_after_finish(backend: ModuleType) -> None:
    decoder = backend.SseDecoder()
    decoder.feed(b"data: a\n\n")
    decoder.finish()
    with pytest.raises(InvalidUtf8Error) as info:
        decoder.feed(b"data: \xff\n")
    assert info.value.offset == 6


def test_empty_chunks_change_nothing(backend: ModuleType) -> None:
    decoder = backend.SseDecoder()
    events = []
    for chunk in [b"", b"da", b"", b"ta: x", b"", b"\n", b"", b"\n", b""]:
        events += decoder.feed(chunk)
    assert [event_tuple(e) for e in events] == [message("x")]


@pytest.mark.parametrize(
    "chunk", ["data: x\n\n", bytearray(b"data: x\n\n"), memoryview(b"data: x\n\n"), None]
)
def test_a_chunk_that_is_not_bytes_is_a_type_error_that_changes_nothing(
    backend: ModuleType, chunk: object
) -> None:
    decoder = backend.SseDecoder()
    assert decoder.feed(b"data: a\n") == []
    for feed in (decoder.feed, decoder.feed_jsonrpc):
        with pytest.raises(TypeError):
            feed(chunk)
    assert decoder.feed(b"\n") == [backend.SseEvent(data="a")]
