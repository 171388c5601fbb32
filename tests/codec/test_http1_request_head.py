"""encode_request_head: the request line and fields of an HTTP/1.1 request."""

from __future__ import annotations

from types import ModuleType

import h11
import pytest


def test_a_request_head_is_written_in_order(backend: ModuleType) -> None:
    head = backend.encode_request_head(
        b"POST", b"/mcp?a=1", [(b"Host", b"example.com:8000"), (b"Accept", b"*/*")], 12
    )
    assert head == (
        b"POST /mcp?a=1 HTTP/1.1\r\nHost: example.com:8000\r\nAccept: */*\r\n"
        b"Content-Length: 12\r\n\r\n"
    )
    assert backend.encode_request_head(b"GET", b"/", ()) == b"GET / HTTP/1.1\r\n\r\n"


def test_h11_reads_the_head_we_write(backend: ModuleType) -> None:
    head = backend.encode_request_head(
        b"PUT", b"/x", [(b"Host", b"h"), (b"X-Obs", b"\xe9 \tz")], content_length=3
    )
    server = h11.Connection(h11.SERVER)
    server.receive_data(head + b"abc")
    request = server.next_event()
    assert isinstance(request, h11.Request)
    assert (request.method, request.target) == (b"PUT", b"/x")
    assert list(request.headers) == [
        (b"host", b"h"),
        (b"x-obs", b"\xe9 \tz"),
        (b"content-length", b"3"),
    ]
    assert server.next_event() == h11.Data(data=b"abc")


@pytest.mark.parametrize(
    ("method", "target", "headers", "message"),
    [
        (b"", b"/", [], "invalid HTTP method"),
        (b"GE T", b"/", [], "invalid HTTP method"),
        (b"GET\r\n", b"/", [], "invalid HTTP method"),
        (b"GET", b"", [], "invalid HTTP request target"),
        (b"GET", b"/ HTTP/1.1\r\nX: y", [], "invalid HTTP request target"),
        (b"GET", b"/\x7f", [], "invalid HTTP request target"),
        (b"GET", b"/", [(b"", b"v")], "invalid HTTP header name"),
        (b"GET", b"/", [(b"A:", b"v")], "invalid HTTP header name"),
        (b"GET", b"/", [(b"A B", b"v")], "invalid HTTP header name"),
        (b"GET", b"/", [(b"A", b"v\r\nInjected: 1")], "invalid HTTP header value"),
        (b"GET", b"/", [(b"A", b"v\nX")], "invalid HTTP header value"),
        (b"GET", b"/", [(b"A", b"\x00")], "invalid HTTP header value"),
    ],
)
def test_what_cannot_be_written_is_refused(
    backend: ModuleType,
    method: bytes,
    target: bytes,
    headers: list[tuple[bytes, bytes]],
    message: str,
) -> None:
    with pytest.raises(ValueError, match=message):
        backend.encode_request_head(method, target, headers)


def test_content_length_twice_is_refused(backend: ModuleType) -> None:
    with pytest.raises(ValueError, match="content_length given and a Content-Length header too"):
        backend.encode_request_head(b"POST", b"/", [(b"content-length", b"1")], 1)
    assert backend.encode_request_head(b"POST", b"/", [(b"Content-Length", b"1")]).endswith(
        b"Content-Length: 1\r\n\r\n"
    )


@pytest.mark.parametrize("headers", [[b"Host"], [(b"Host",)], [("Host", "x")], [(b"Host", "x")], 5])
def test_headers_must_be_pairs_of_bytes(backend: ModuleType, headers: object) -> None:
    with pytest.raises(TypeError):
        backend.encode_request_head(b"GET", b"/", headers)


def test_a_negative_content_length_is_refused(backend: ModuleType) -> None:
    with pytest.raises(OverflowError):
        backend.encode_request_head(b"GET", b"/", [], -1)
