"""Utf8Decoder: incremental, strict UTF-8 with stream offsets in its errors."""

from __future__ import annotations

from types import ModuleType

import pytest
from mcpstream.errors import CodecError, InvalidUtf8Error

SAMPLE = "ascii, é, 日本語, 🚀, \u2028 and \x00"


def test_ascii_chunks_decode_to_the_same_text(backend: ModuleType) -> None:
    decoder = backend.Utf8Decoder()
    assert decoder.decode(b"hello, ") == "hello, "
    assert decoder.decode(b"world") == "world"
    assert decoder.finish() == ""


def test_text_cut_at_every_byte_decodes_to_the_same_text(backend: ModuleType) -> None:
    data = SAMPLE.encode()
    for cut in range(len(data) + 1):
        decoder = backend.Utf8Decoder()
        text = decoder.decode(data[:cut]) + decoder.decode(data[cut:]) + decoder.finish()
        assert text == SAMPLE, cut


def test_a_code_point_split_over_chunks_is_returned_when_its_last_byte_arrives(
    backend: ModuleType,
) -> None:
    decoder = backend.Utf8Decoder()
    rocket = "🚀".encode()
    assert decoder.decode(b"a" + rocket[:1]) == "a"
    assert decoder.decode(rocket[1:2]) == ""
    assert decoder.decode(rocket[2:3]) == ""
    assert decoder.decode(rocket[3:] + b"b") == "🚀b"


def test_an_empty_chunk_decodes_to_nothing_and_keeps_a_pending_sequence(
    backend: ModuleType,
) -> None:
    decoder = backend.Utf8Decoder()
    assert decoder.decode(b"\xe6") == ""
    assert decoder.decode(b"") == ""
    assert decoder.decode(b"\x97\xa5") == "日"


def test_a_bom_is_decoded_as_text_not_dropped(backend: ModuleType) -> None:
    assert backend.Utf8Decoder().decode(b"\xef\xbb\xbfx") == "\ufeffx"


def test_line_separators_and_nul_are_ordinary_text(backend: ModuleType) -> None:
    text = "a\u2028b\u2029c\x85d\x0b\x0c\x00"
    assert backend.Utf8Decoder().decode(text.encode()) == text


@pytest.mark.parametrize(
    ("chunks", "offset"),
    [
        ([b"\xff"], 0),
        ([b"abc\xfe"], 3),
        ([b"ab", b"c\x80"], 3),  # a lone continuation byte
        ([b"\xc0\x80"], 0),  # overlong NUL
        ([b"\xe0\x80\x80"], 0),  # overlong
        ([b"x\xed\xa0\x80"], 1),  # UTF-16 surrogate U+D800
        ([b"\xf4\x90\x80\x80"], 0),  # above U+10FFFF
        ([b"\xf5\x80\x80\x80"], 0),
        ([b"\xe2\x82x"], 0),  # truncated by an ASCII byte
        ([b"12345", b"\xe2", b"\x82", b"y"], 5),  # truncated across chunks
        ([b"ok\xe2\x82\xac", b"\xe2\xe2"], 5),
    ],
)
def test_invalid_bytes_raise_with_their_stream_offset(
    backend: ModuleType, chunks: list[bytes], offset: int
) -> None:
    decoder = backend.Utf8Decoder()
    with pytest.raises(InvalidUtf8Error) as info:
        for chunk in chunks:
            decoder.decode(chunk)
        decoder.finish()
    assert str(info.value) == f"invalid UTF-8 at byte offset {offset}"
    assert info.value.offset == offset
    assert isinstance(info.value, CodecError)


@pytest.mark.parametrize(
    "tail", [b"\xed\xa0", b"\xe0\x80", b"\xf0\x80", b"\xf4\x90", b"\xc1", b"\xf8"]
)
def test_a_chunk_ending_in_bytes_that_can_never_complete_raises_at_once(
    backend: ModuleType, tail: bytes
) -> None:
    decoder = backend.Utf8Decoder()
    with pytest.raises(InvalidUtf8Error) as info:
        decoder.decode(b"ab" + tail)
    assert info.value.offset == 2


def test_every_two_byte_start_of_a_sequence_is_kept_exactly_when_it_can_complete(
    backend: ModuleType,
) -> None:
    # Only the second byte of a sequence has a narrowed range (Unicode table 3-7); any later
    # byte is 80..BF, so padding with 80 finds a completion whenever one exists.
    for lead in range(0xC0, 0x100):
        for second in range(0x80, 0xC0):
            start = bytes([lead, second])
            can_complete = any(_decodes(start + b"\x80" * n) for n in (0, 1, 2))
            decoder = backend.Utf8Decoder()
            try:
                text = decoder.decode(start)
            except InvalidUtf8Error:
                assert not can_complete, start
            else:
                assert can_complete, start
                assert text == (start.decode() if _decodes(start) else "")


def _decodes(data: bytes) -> bool:
    try:
        data.decode()
    except UnicodeDecodeError:
        return False
    return True


@pytest.mark.parametrize(
    ("chunks", "offset"),
    [([b"\xe2\x82"], 0), ([b"abc", b"\xf0\x9f\x9a"], 3), ([b"\xc3"], 0), ([b"x\xf0"], 1)],
)
def test_a_sequence_cut_off_by_the_end_of_the_stream_raises_incomplete_at_finish(
    backend: ModuleType, chunks: list[bytes], offset: int
) -> None:
    decoder = backend.Utf8Decoder()
    for chunk in chunks:
        decoder.decode(chunk)
    with pytest.raises(InvalidUtf8Error) as info:
        decoder.finish()
    assert str(info.value) == (f"incomplete UTF-8 sequence at end of stream (byte offset {offset})")
    assert info.value.offset == offset


def test_after_an_error_every_call_raises_the_same_error(backend: ModuleType) -> None:
    decoder = backend.Utf8Decoder()
    decoder.decode(b"good ")
    with pytest.raises(InvalidUtf8Error) as first:
        decoder.decode(b"bad \xff")
    for call in (lambda: decoder.decode(b"fine"), decoder.finish, lambda: decoder.decode(b"")):
        with pytest.raises(InvalidUtf8Error) as again:
            call()
        assert str(again.value) == str(first.value) == "invalid UTF-8 at byte offset 9"
        assert again.value.offset == 9


def test_after_an_incomplete_end_every_call_raises_the_same_error(backend: ModuleType) -> None:
    decoder = backend.Utf8Decoder()
    decoder.decode(b"\xe2\x82")
    with pytest.raises(InvalidUtf8Error):
        decoder.finish()
    with pytest.raises(InvalidUtf8Error) as again:
        decoder.decode(b"\xac")
    assert str(again.value) == "incomplete UTF-8 sequence at end of stream (byte offset 0)"


def test_finish_starts_a_new_stream_with_offsets_from_zero(backend: ModuleType) -> None:
    decoder = backend.Utf8Decoder()
    assert decoder.decode(b"first stream") == "first stream"
    assert decoder.finish() == ""
    with pytest.raises(InvalidUtf8Error) as info:
        decoder.decode(b"ab\xff")
    assert info.value.offset == 2


@pytest.mark.parametrize("chunk", ["text", bytearray(b"text"), memoryview(b"text"), None])
def test_a_chunk_that_is_not_bytes_is_a_type_error_that_changes_nothing(
    backend: ModuleType, chunk: object
) -> None:
    decoder = backend.Utf8Decoder()
    assert decoder.decode(b"\xe6\x97") == ""
    with pytest.raises(TypeError):
        decoder.decode(chunk)
    assert decoder.decode(b"\xa5") == "日"


def test_the_decoder_cannot_be_subclassed(backend: ModuleType) -> None:
    with pytest.raises(TypeError):
        type("Sub", (backend.Utf8Decoder,), {})
