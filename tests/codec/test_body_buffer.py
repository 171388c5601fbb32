"""BodyBuffer and Http1Response's ``body_ahead``/``skip_body``: a body received into one buffer
past ``feed``, both backends."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest
from mcpstream.errors import CodecError

OK = b"HTTP/1.1 200 OK\r\n"
CHUNKED = OK + b"Transfer-Encoding: chunked\r\n\r\n"


def receive(backend: ModuleType, data: bytes, most: int) -> tuple[bytes, bool]:
    """``data`` read as a transport reads a body into one buffer: every byte of body data that
    is sure to come (``body_ahead``) is read straight into the buffer's view, ``most`` bytes a
    read at most, and every other byte goes through ``feed`` one at a time (its body data copied
    in). The body and whether the response completed."""
    framing = backend.Http1Response()
    buffer = backend.BodyBuffer(4)
    rest = memoryview(data)
    while rest:
        ahead = framing.body_ahead
        if ahead:
            view = buffer.view() if buffer.window else None
            if view is None:
                buffer.open(min(ahead, most))
                view = buffer.view()
            count = min(len(view), len(rest))
            view[:count] = rest[:count]
            view.release()
            buffer.advance(count)
            framing.skip_body(count)
            rest = rest[count:]
        else:
            for piece in framing.feed(bytes(rest[:1])):
                buffer.extend(piece)
            rest = rest[1:]
    return buffer.take(), framing.complete


@pytest.mark.parametrize("most", [1, 2, 3, 7, 1000])
def test_a_body_read_into_one_buffer_is_the_body_fed(backend: ModuleType, most: int) -> None:
    length = OK + b"Content-Length: 11\r\n\r\nhello world"
    chunked = CHUNKED + b"5\r\nhello\r\n6;x=y\r\n world\r\n0\r\nT: v\r\n\r\n"
    assert receive(backend, length, most) == (b"hello world", True)
    assert receive(backend, chunked, most) == (b"hello world", True)


def test_the_chunk_end_is_still_checked(backend: ModuleType) -> None:
    with pytest.raises(CodecError, match="HTTP chunk data not followed by CRLF"):
        receive(backend, CHUNKED + b"5\r\nhelloXY0\r\n\r\n", 100)


def test_body_ahead_counts_only_body_data(backend: ModuleType) -> None:
    framing = backend.Http1Response()
    assert framing.body_ahead == 0
    with pytest.raises(ValueError, match="passes the 0 bytes"):
        framing.skip_body(1)
    framing.skip_body(0)
    framing.feed(CHUNKED + b"4")
    assert framing.body_ahead == 0  # in a chunk-size line
    assert framing.feed(b"\r\nab") == [b"ab"]
    assert framing.body_ahead == 2
    with pytest.raises(ValueError, match=r"skip_body\(3\) passes the 2 bytes"):
        framing.skip_body(3)
    assert framing.body_ahead == 2  # nothing taken
    framing.skip_body(2)
    assert framing.body_ahead == 0
    with pytest.raises(OverflowError):
        framing.skip_body(-1)
    until_close = backend.Http1Response()
    assert until_close.feed(OK + b"\r\nabc") == [b"abc"]
    assert until_close.body_ahead == 0  # no known length


def test_a_cut_body_is_still_an_error_at_the_close(backend: ModuleType) -> None:
    framing = backend.Http1Response()
    framing.feed(OK + b"Content-Length: 20\r\n\r\n")
    assert framing.body_ahead == 20
    framing.skip_body(5)
    assert framing.body_ahead == 15
    with pytest.raises(
        CodecError, match="connection closed before the end of the HTTP response body"
    ):
        framing.feed_eof()


def test_the_buffer_grows_and_gives_its_bytes(backend: ModuleType) -> None:
    buffer = backend.BodyBuffer(2)
    buffer.extend(b"abc")  # grows
    assert len(buffer) == 3
    assert buffer.open(5) == 5
    assert buffer.window == 5
    view = buffer.view()
    assert len(view) == 5 and not view.readonly
    view[:2] = b"de"
    with pytest.raises(BufferError):
        buffer.reserve(1 << 20)  # not while the view is exported
    view.release()
    buffer.advance(2)
    assert buffer.window == 3
    with pytest.raises(ValueError, match=r"advance\(4\) passes the 3 bytes"):
        buffer.advance(4)
    buffer.extend(b"f")  # copies in past the received bytes, shrinking the window
    assert buffer.window == 2
    body = buffer.take()
    assert type(body) is bytes and body == b"abcdef"
    with pytest.raises(ValueError, match="taken"):
        buffer.extend(b"x")
    with pytest.raises(ValueError, match="taken"):
        buffer.take()
    with pytest.raises(BufferError):
        buffer.view()
    assert body == b"abcdef"  # unchanged by anything after


def test_a_full_buffer_hands_on_its_bytes_also_with_a_view_alive(backend: ModuleType) -> None:
    buffer = backend.BodyBuffer(3)
    buffer.open(3)
    view = buffer.view()
    view[:] = b"xyz"
    buffer.advance(3)
    # asyncio's selector transport holds its view until the read callback returns
    assert buffer.take() == b"xyz"
    view.release()


def test_sizes_are_not_negative(backend: ModuleType) -> None:
    with pytest.raises(OverflowError):
        backend.BodyBuffer(-1)
    buffer = backend.BodyBuffer(0)
    with pytest.raises(OverflowError):
        buffer.open(-1)
    assert buffer.take() == b""


def test_a_large_body_fills_in_place(backend: ModuleType) -> None:
    size = 9 << 20  # past the pre-faulting threshold
    buffer = backend.BodyBuffer(size)
    payload = bytes(range(256)) * (size // 256)
    done = 0
    while done < size:
        buffer.open(min(1 << 20, size - done))
        with buffer.view() as view:
            view[:] = payload[done : done + len(view)]
            count = len(view)
        buffer.advance(count)
        done += count
    assert buffer.take() == payload


def test_not_a_base_type(backend: ModuleType) -> None:
    with pytest.raises(TypeError):
        type("Sub", (backend.BodyBuffer,), {})


def fill(buffer: Any, data: bytes) -> bytes:
    """``data`` received into ``buffer`` through a view, then taken."""
    buffer.open(len(data))
    with buffer.view() as view:
        view[:] = data
    buffer.advance(len(data))
    body: bytes = buffer.take()
    return body


def test_a_renewed_buffer_never_writes_over_a_body_still_held(backend: ModuleType) -> None:
    buffer = backend.BodyBuffer(4)
    held = fill(buffer, b"abcd")
    buffer.renew(4)
    assert fill(buffer, b"wxyz") == b"wxyz"
    assert held == b"abcd"
    with pytest.raises(ValueError, match="taken"):
        buffer.extend(b"!")  # taken again: renew starts the next body
    buffer.renew(2)
    assert fill(buffer, b"ok") == b"ok"


def test_a_renewed_native_buffer_fills_the_storage_given_back(backend: ModuleType) -> None:
    buffer = backend.BodyBuffer(8)
    body = fill(buffer, b"12345678")
    first = id(body)
    hash(body)  # a hash cached on the object must not outlive its content
    del body
    buffer.renew(8)
    again = fill(buffer, b"abcdefgh")
    assert again == b"abcdefgh"
    assert hash(again) == hash(b"abcdefgh")
    if backend.__name__ == "mcpstream._native":  # it filled the same object again
        assert id(again) == first
    buffer.renew(3)  # smaller: the same storage, shrunk
    assert fill(buffer, b"xyz") == b"xyz"
    buffer.renew(1 << 20)  # larger than the storage: a new one
    assert fill(buffer, bytes(1 << 20)) == bytes(1 << 20)


def test_a_buffer_is_not_renewed_while_a_view_is_exported(backend: ModuleType) -> None:
    buffer = backend.BodyBuffer(4)
    buffer.open(4)
    view = buffer.view()
    with pytest.raises(BufferError):
        buffer.renew(4)
    view.release()
    buffer.renew(4)
    assert fill(buffer, b"done") == b"done"
