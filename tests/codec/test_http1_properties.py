"""Http1Response properties: the backends agree on any bytes, cut anywhere; only CodecError."""

from __future__ import annotations

from types import ModuleType

import pytest
from hypothesis import given
from hypothesis import strategies as st

from .helpers import cut
from .http1_helpers import read_response

SAMPLES = [
    b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
    b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
    b"3;x=y\r\nabc\r\n0\r\nT: 1\r\n\r\n",
    b"HTTP/1.0 404 Not Found\nConnection: close\n\nbody",
    b"HTTP/1.1 304 Not Modified\r\nContent-Length: 12\r\n\r\n",
]

# Bytes that matter to the grammar, so that mutations hit its edges.
SPECIAL = st.sampled_from(
    [
        b"\r",
        b"\n",
        b"\r\n",
        b" ",
        b"\t",
        b":",
        b";",
        b",",
        b"0",
        b"f",
        b"\x00",
        b"\x7f",
        b"\xe9",
        b"HTTP/1.1 ",
        b"Content-Length: ",
        b"Transfer-Encoding: chunked",
    ]
)


@st.composite
def responses(draw: st.DrawFn) -> bytes:
    """A sample response mutated: pieces replaced, inserted or removed; or random bytes."""
    if draw(st.booleans()):
        return draw(st.binary(max_size=200))
    data = bytearray(draw(st.sampled_from(SAMPLES)))
    for _ in range(draw(st.integers(0, 4))):
        at = draw(st.integers(0, len(data)))
        span = draw(st.integers(0, 3))
        data[at : at + span] = draw(st.one_of(SPECIAL, st.binary(max_size=3)))
    return bytes(data)


@pytest.mark.both_backends
@given(
    data=responses(),
    cuts=st.lists(st.integers(0, 300), max_size=6),
    head_request=st.booleans(),
    max_head_bytes=st.sampled_from([16, 64, 65536]),
    max_headers=st.sampled_from([1, 2, 100]),
)
def test_the_backends_agree_whatever_the_chunking(
    pure: ModuleType,
    native: ModuleType,
    data: bytes,
    cuts: list[int],
    head_request: bool,
    max_head_bytes: int,
    max_headers: int,
) -> None:
    options = {
        "head_request": head_request,
        "max_head_bytes": max_head_bytes,
        "max_headers": max_headers,
    }
    chunks = cut(data, [c % (len(data) + 1) for c in cuts])
    whole = read_response(native, [data], **options)
    assert read_response(native, chunks, **options) == whole
    assert read_response(pure, [data], **options) == whole
    assert read_response(pure, chunks, **options) == whole
    # body data taken past ``feed`` (into a body's buffer) reads the same
    for skip in (1, 3, 1 << 20):
        assert read_response(native, chunks, skip=skip, **options) == whole
        assert read_response(pure, chunks, skip=skip, **options) == whole


@pytest.mark.both_backends
@given(
    method=st.binary(max_size=8),
    target=st.binary(max_size=8),
    headers=st.lists(st.tuples(st.binary(max_size=6), st.binary(max_size=6)), max_size=3),
    content_length=st.none() | st.integers(0, 2**64 - 1),
)
def test_the_backends_write_the_same_request_heads(
    pure: ModuleType,
    native: ModuleType,
    method: bytes,
    target: bytes,
    headers: list[tuple[bytes, bytes]],
    content_length: int | None,
) -> None:
    def outcome(backend: ModuleType) -> object:
        try:
            return backend.encode_request_head(method, target, headers, content_length)
        except ValueError as exc:
            return str(exc)

    assert outcome(pure) == outcome(native)
