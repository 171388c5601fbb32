"""Http1Response: HTTP/1.1 response framing, both backends, every chunking."""

from __future__ import annotations

from types import ModuleType

import pytest
from mcpstream.errors import CodecError

from .http1_helpers import read_every_way, read_response

OK = b"HTTP/1.1 200 OK\r\n"
CHUNKED = OK + b"Transfer-Encoding: chunked\r\n\r\n"


def test_a_content_length_body_is_read_to_its_length(backend: ModuleType) -> None:
    data = OK + b"Content-Length: 5\r\nContent-Type: text/plain\r\n\r\nhello"
    assert read_every_way(backend, data) == (
        "ok",
        200,
        b"OK",
        [(b"Content-Length", b"5"), (b"Content-Type", b"text/plain")],
        b"hello",
        True,
        "content-length",
        b"",
        [("content-length", "5"), ("content-type", "text/plain")],
    )


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        (b"X-A: 1\r\nx-a: 2\r\nY: \r\n", [("x-a", "1, 2"), ("y", "")]),
        (b"X-Name: caf\xc3\xa9\r\nX-A: 1\r\n", None),  # not ASCII: httpx decodes it
        (b"", []),
    ],
    ids=["repeated", "not-ascii", "none"],
)
def test_the_fields_are_those_httpx_gives_for_ascii_heads(
    backend: ModuleType, fields: bytes, expected: list[tuple[str, str]] | None
) -> None:
    outcome = read_every_way(backend, b"HTTP/1.1 204 No Content\r\n" + fields + b"\r\n")
    assert outcome[0] == "ok"
    assert outcome[8] == expected


def test_a_chunked_body_ignores_extensions_and_trailers(backend: ModuleType) -> None:
    data = CHUNKED + b"5;name=value\r\nhello\r\n1 ; x\r\n!\r\n00\r\nExpires: never\r\nX: y\r\n\r\n"
    outcome = read_every_way(backend, data)
    assert outcome[0] == "ok"
    assert outcome[4] == b"hello!"
    assert outcome[5] is True
    assert outcome[6] == "chunked"


def test_the_body_of_a_response_without_length_runs_until_the_close(backend: ModuleType) -> None:
    data = OK + b"\r\nall of it"
    assert read_response(backend, [data], eof=False)[0] == "incomplete"
    outcome = read_every_way(backend, data)
    assert outcome[0] == "ok"
    assert outcome[4:7] == (b"all of it", False, "close")


@pytest.mark.parametrize(
    "data",
    [
        b"HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n",
        b"HTTP/1.1 304 Not Modified\r\nTransfer-Encoding: chunked\r\n\r\n",
    ],
)
def test_204_and_304_have_no_body(backend: ModuleType, data: bytes) -> None:
    outcome = read_every_way(backend, data, eof=False)
    assert outcome[0] == "ok"
    assert outcome[4:7] == (b"", True, "empty")


def test_a_response_to_head_has_no_body(backend: ModuleType) -> None:
    outcome = read_every_way(
        backend, OK + b"Content-Length: 10\r\n\r\n", head_request=True, eof=False
    )
    assert outcome[0] == "ok"
    assert outcome[4:7] == (b"", True, "empty")


def test_interim_responses_are_skipped(backend: ModuleType) -> None:
    data = (
        b"HTTP/1.1 100 Continue\r\n\r\n"
        b"HTTP/1.1 103 Early Hints\r\nLink: </a>; rel=preload\r\n\r\n"
        b"HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok"
    )
    assert read_every_way(backend, data)[:5] == (
        "ok",
        201,
        b"Created",
        [(b"Content-Length", b"2")],
        b"ok",
    )


@pytest.mark.parametrize(
    ("head", "keep_alive"),
    [
        (b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", True),
        (b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n", False),
        (b"HTTP/1.1 200 OK\r\nConnection: keep-alive, CLOSE\r\nContent-Length: 0\r\n\r\n", False),
        (b"HTTP/1.1 200 OK\r\nConnection: closed\r\nContent-Length: 0\r\n\r\n", True),
        (b"HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n", False),
        (b"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n", False),
    ],
)
def test_the_keep_alive_decision(backend: ModuleType, head: bytes, keep_alive: bool) -> None:
    outcome = read_every_way(backend, head, eof=False)
    assert outcome[0] == "ok"
    assert outcome[5] is keep_alive


def test_bytes_past_the_end_are_trailing_and_forbid_reuse(backend: ModuleType) -> None:
    response = backend.Http1Response()
    assert response.feed(OK + b"Content-Length: 2\r\n\r\nokHTTP/1.1") == [b"ok"]
    assert response.feed(b" 200") == []
    assert response.complete
    assert response.trailing == b"HTTP/1.1 200"
    assert not response.keep_alive


def test_the_head_is_exposed_once_complete(backend: ModuleType) -> None:
    response = backend.Http1Response()
    assert response.feed(OK + b"Content-Length: 3\r\n") == []
    assert (response.status, response.reason, response.headers, response.framing) == (None,) * 4
    assert response.http_version is None
    assert response.feed(b"\r\nab") == [b"ab"]
    assert response.status == 200
    assert response.http_version == b"HTTP/1.1"
    assert not response.complete
    assert response.feed(b"c") == [b"c"]
    assert response.complete


def test_lenient_forms_httparse_accepts(backend: ModuleType) -> None:
    # LF line ends, leading empty lines, no reason phrase, obs-text in the reason, empty value,
    # whitespace around values
    data = b"\r\n\nHTTP/1.1 200\nA:\nB: \t x y \t\nContent-Length: 1\n\nz"
    assert read_every_way(backend, data)[:5] == (
        "ok",
        200,
        b"",
        [(b"A", b""), (b"B", b"x y"), (b"Content-Length", b"1")],
        b"z",
    )
    data = b"HTTP/1.1 599 \xe9t\xe9 \t!\r\nContent-Length: 0\r\n\r\n"
    assert read_every_way(backend, data)[1:3] == (599, b"\xe9t\xe9 \t!")


def test_equal_content_lengths_are_one(backend: ModuleType) -> None:
    data = OK + b"Content-Length: 2, 02\r\ncontent-length: 2\r\n\r\nok"
    assert read_every_way(backend, data)[4] == b"ok"


HOSTILE = [
    (OK + b"A: b\r\n folded\r\n\r\n", "invalid HTTP response head: bad header name"),
    (OK + b"A : b\r\n\r\n", "invalid HTTP response head: bad header name"),
    (OK + b" A: b\r\n\r\n", "invalid HTTP response head: bad header name"),
    (OK + b"A: b\x00c\r\n\r\n", "invalid HTTP response head: bad header value"),
    (OK + b"A: b\x7f\r\n\r\n", "invalid HTTP response head: bad header value"),
    (OK + b"A: b\rc\r\n\r\n", "invalid HTTP response head: bad header value"),
    (OK + b"A: b\r\n\rx", "invalid HTTP response head: bad line ending"),
    (b"HTTP/2.0 200 OK\r\n\r\n", "invalid HTTP response head: bad HTTP version"),
    (b"HTTP/1.", "connection closed before the end of the HTTP response head"),
    (b"HTTX", "invalid HTTP response head: bad HTTP version"),
    (b"HTTP/1.1  200 OK\r\n\r\n", "invalid HTTP response head: bad status line"),
    (b"HTTP/1.1 20 OK\r\n\r\n", "invalid HTTP response head: bad status line"),
    (b"HTTP/1.1 2000 OK\r\n\r\n", "invalid HTTP response head: bad status line"),
    (b"HTTP/1.1 200 O\x01K\r\n\r\n", "invalid HTTP response head: bad status line"),
    (b"HTTP/1.1 099 Low\r\n\r\n", "invalid HTTP response head: bad status line"),
    (b"HTTP/1.1 101 Switching Protocols\r\n\r\n", "HTTP 101 Switching Protocols is not supported"),
    (OK + b"Content-Length: 1\r\nContent-Length: 2\r\n\r\nx", "invalid HTTP Content-Length"),
    (OK + b"Content-Length: 1, 2\r\n\r\nx", "invalid HTTP Content-Length"),
    (OK + b"Content-Length: -1\r\n\r\n", "invalid HTTP Content-Length"),
    (OK + b"Content-Length: +1\r\n\r\nx", "invalid HTTP Content-Length"),
    (OK + b"Content-Length: 0x10\r\n\r\n", "invalid HTTP Content-Length"),
    (OK + b"Content-Length: \r\n\r\n", "invalid HTTP Content-Length"),
    (OK + b"Content-Length: 1,\r\n\r\nx", "invalid HTTP Content-Length"),
    (OK + b"Content-Length: 18446744073709551616\r\n\r\n", "invalid HTTP Content-Length"),
    (OK + b"Content-Length: \xd9\xa1\r\n\r\n", "invalid HTTP Content-Length"),
    (
        OK + b"Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        "HTTP response has both Transfer-Encoding and Content-Length",
    ),
    (
        OK + b"Transfer-Encoding: gzip, chunked\r\n\r\n",
        "unsupported HTTP Transfer-Encoding (only chunked is supported)",
    ),
    (
        OK + b"Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n",
        "unsupported HTTP Transfer-Encoding (only chunked is supported)",
    ),
    (
        OK + b"Transfer-Encoding: identity\r\n\r\n",
        "unsupported HTTP Transfer-Encoding (only chunked is supported)",
    ),
    (
        b"HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        "HTTP/1.0 response with Transfer-Encoding",
    ),
    (CHUNKED + b"1" * 17 + b"\r\n", "invalid HTTP chunk-size line"),
    (CHUNKED + b"10000000000000000\r\n", "invalid HTTP chunk-size line"),
    (CHUNKED + b"-1\r\n", "invalid HTTP chunk-size line"),
    (CHUNKED + b"+1\r\nx\r\n0\r\n\r\n", "invalid HTTP chunk-size line"),
    (CHUNKED + b"0x1\r\nx\r\n0\r\n\r\n", "invalid HTTP chunk-size line"),
    (CHUNKED + b"g\r\n", "invalid HTTP chunk-size line"),
    (CHUNKED + b"\r\n", "invalid HTTP chunk-size line"),
    (CHUNKED + b" 1\r\nx\r\n0\r\n\r\n", "invalid HTTP chunk-size line"),
    (CHUNKED + b"1\nx\r\n0\r\n\r\n", "invalid HTTP chunk-size line"),
    (CHUNKED + b"1 x\r\nx\r\n0\r\n\r\n", "invalid HTTP chunk-size line"),
    (CHUNKED + b"1;a\x00\r\nx\r\n0\r\n\r\n", "invalid HTTP chunk-size line"),
    (CHUNKED + b"1\r\nxy\r\n0\r\n\r\n", "HTTP chunk data not followed by CRLF"),
    (CHUNKED + b"1\r\nx\n0\r\n\r\n", "HTTP chunk data not followed by CRLF"),
    (CHUNKED + b"0\r\nT: v\n\r\n", "invalid HTTP trailer line"),
    (CHUNKED + b"0\r\n\n", "invalid HTTP trailer line"),
    (CHUNKED + b"5\r\nhel", "connection closed before the end of the HTTP response body"),
    (CHUNKED + b"0\r\n", "connection closed before the end of the HTTP response body"),
    (
        OK + b"Content-Length: 5\r\n\r\nhel",
        "connection closed before the end of the HTTP response body",
    ),
    (b"", "connection closed before the end of the HTTP response head"),
    (
        b"HTTP/1.1 100 Continue\r\n\r\n",
        "connection closed before the end of the HTTP response head",
    ),
]


@pytest.mark.parametrize(("data", "message"), HOSTILE)
def test_hostile_responses_are_refused_whatever_the_chunking(
    backend: ModuleType, data: bytes, message: str
) -> None:
    assert read_every_way(backend, data) == ("error", message)


def test_a_failed_response_raises_the_same_error_again(backend: ModuleType) -> None:
    response = backend.Http1Response()
    with pytest.raises(CodecError, match="bad HTTP version"):
        response.feed(b"HTTP/9")
    for call in (lambda: response.feed(b""), response.feed_eof):
        with pytest.raises(CodecError, match="bad HTTP version"):
            call()
    assert not response.complete
    assert not response.keep_alive


def test_a_head_at_the_limit_is_read_and_one_byte_more_is_refused(backend: ModuleType) -> None:
    head = OK + b"A: " + b"x" * 50 + b"\r\nContent-Length: 0\r\n\r\n"
    assert read_every_way(backend, head, max_head_bytes=len(head))[0] == "ok"
    assert read_every_way(backend, head, max_head_bytes=len(head) - 1) == (
        "error",
        f"HTTP response head exceeds {len(head) - 1} bytes",
    )
    # a head that never ends is refused once the limit is reached, not buffered on
    response = backend.Http1Response(max_head_bytes=100)
    response.feed(OK + b"A: " + b"x" * 70)
    with pytest.raises(CodecError, match="exceeds 100 bytes"):
        response.feed(b"x" * 1_000_000)


def test_each_interim_head_has_the_limit_of_its_own(backend: ModuleType) -> None:
    interim = b"HTTP/1.1 103 Early Hints\r\nLink: " + b"x" * 40 + b"\r\n\r\n"
    final = OK + b"Content-Length: 0\r\n\r\n"
    assert read_every_way(backend, interim * 3 + final, max_head_bytes=len(interim))[0] == "ok"


def test_the_header_count_limit(backend: ModuleType) -> None:
    head = OK + b"A: b\r\n" * 4 + b"\r\n"
    assert read_every_way(backend, head, max_headers=4)[0] == "ok"
    assert read_every_way(backend, head, max_headers=3) == (
        "error",
        "HTTP response head has more than 3 header fields",
    )


def test_the_chunk_size_line_limit(backend: ModuleType) -> None:
    def line(length: int) -> bytes:
        return (
            CHUNKED + (b"1;" + b"x" * (length - 3)).ljust(length - 1, b"x") + b"\r\nx\r\n0\r\n\r\n"
        )

    assert read_response(backend, [line(4096)])[0] == "ok"
    message = "HTTP chunk-size line exceeds 4096 bytes"
    assert read_response(backend, [line(4097)]) == ("error", message)
    assert read_response(backend, [line(4097)[:-20], line(4097)[-20:]]) == ("error", message)
    assert read_response(backend, [CHUNKED + b"1;" + b"x" * 5000]) == ("error", message)


def test_the_trailer_section_limit(backend: ModuleType) -> None:
    trailers = b"T: v\r\n" * 10 + b"\r\n"
    data = CHUNKED + b"0\r\n" + trailers
    head_bytes = len(CHUNKED)
    assert read_response(backend, [data], max_head_bytes=max(head_bytes, len(trailers)))[0] == "ok"
    assert read_response(backend, [data], max_head_bytes=len(trailers) - 1) == (
        "error",
        f"HTTP trailer section exceeds {len(trailers) - 1} bytes",
    )


def test_huge_chunks_and_lengths_are_framed_without_buffering(backend: ModuleType) -> None:
    response = backend.Http1Response()
    assert response.feed(CHUNKED + b"ffffffffffffffff\r\nabc") == [b"abc"]
    assert response.framing == "chunked"
    response = backend.Http1Response()
    assert response.feed(OK + b"Content-Length: 18446744073709551615\r\n\r\nabc") == [b"abc"]
    assert not response.complete


def test_arguments_are_checked(backend: ModuleType) -> None:
    with pytest.raises(ValueError, match="positive"):
        backend.Http1Response(max_head_bytes=0)
    with pytest.raises(ValueError, match="positive"):
        backend.Http1Response(max_headers=0)
    with pytest.raises(OverflowError):
        backend.Http1Response(max_headers=-1)
    with pytest.raises(TypeError):
        backend.Http1Response(head_request="yes")
    with pytest.raises(TypeError):
        backend.Http1Response(1024)
    with pytest.raises(TypeError):
        backend.Http1Response().feed(bytearray(b"HTTP/1.1"))
    with pytest.raises(TypeError):
        type("Sub", (backend.Http1Response,), {})


def test_huge_limits_cost_nothing_up_front(backend: ModuleType) -> None:
    response = backend.Http1Response(max_head_bytes=2**40, max_headers=2**40)
    assert response.feed(OK + b"A: b\r\nContent-Length: 1\r\n\r\nx") == [b"x"]
    assert response.complete
