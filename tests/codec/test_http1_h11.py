"""Http1Response against h11 (httpx's parser today) on a corpus of responses cut every way.

Where the two are meant to differ, the difference is listed with its reason; everything else
must agree: status, reason, headers, body, the keep-alive decision, or an error in both.
"""

from __future__ import annotations

import itertools
from types import ModuleType

import h11
import pytest

from .http1_helpers import Outcome, read_every_way

STATUS_LINES = [
    b"HTTP/1.1 200 OK",
    b"HTTP/1.1 404 Not Found",
    b"HTTP/1.0 200 OK",
    b"HTTP/1.1 200",
    b"HTTP/1.1 299 \xe9t\xe9",
]
FIELDS = [
    [],
    [(b"Content-Type", b"application/json")],
    [(b"Connection", b"close")],
    [(b"connection", b"keep-alive, Close"), (b"X-Empty", b"")],
    [(b"X-Space", b"  a  b  "), (b"Cache-Control", b"no-cache")],
]
BODIES: list[tuple[list[tuple[bytes, bytes]], bytes]] = [
    ([(b"Content-Length", b"5")], b"hello"),
    ([(b"Content-Length", b"0")], b""),
    ([(b"Transfer-Encoding", b"chunked")], b"3\r\nhel\r\n2;ext=1\r\nlo\r\n0\r\n\r\n"),
    ([(b"Transfer-Encoding", b"Chunked")], b"A\r\n0123456789\r\n0\r\nT: 1\r\n\r\n"),
    ([], b"until the close"),
]
INTERIM = [b"", b"HTTP/1.1 100 Continue\r\n\r\n", b"HTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\n"]


def build(status: bytes, fields: list[tuple[bytes, bytes]], eol: bytes = b"\r\n") -> bytes:
    lines = [status, *(name + b": " + value for name, value in fields)]
    return b"".join(line + eol for line in lines) + eol


def corpus() -> list[bytes]:
    """A spread of valid responses: status lines, fields, framings, interim heads, LF ends."""
    cases = []
    for index, (status, fields, (framing, body)) in enumerate(
        itertools.product(STATUS_LINES, FIELDS, BODIES)
    ):
        if status.startswith(b"HTTP/1.0") and framing and framing[0][0].startswith(b"Transfer"):
            continue  # refused by us, see test_where_we_are_stricter_than_h11
        interim = INTERIM[index % len(INTERIM)] if not status.startswith(b"HTTP/1.0") else b""
        eol = b"\n" if index % 7 == 3 else b"\r\n"
        cases.append(interim + build(status, fields + framing, eol) + body)
    cases.append(b"HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n")
    cases.append(b"HTTP/1.1 304 Not Modified\r\nETag: x\r\n\r\n")
    return cases


def h11_outcome(data: bytes, method: bytes = b"GET") -> Outcome:
    """What h11 (as a client that sent one GET) makes of ``data`` followed by the close."""
    connection = h11.Connection(h11.CLIENT)
    connection.send(h11.Request(method=method, target="/", headers=[("Host", "example")]))
    connection.send(h11.EndOfMessage())
    connection.receive_data(data)
    head = None
    body = b""
    closed = False
    try:
        while True:
            event = connection.next_event()
            if event is h11.NEED_DATA and not closed:
                # the close: it ends a body delimited by it, so no keep-alive then
                connection.receive_data(b"")
                closed = True
            elif isinstance(event, h11.Response):
                head = event
            elif isinstance(event, h11.Data):
                body += event.data
            elif isinstance(event, h11.EndOfMessage):
                break
            elif isinstance(event, h11.InformationalResponse):
                continue
            else:
                return ("error", type(event).__name__)
    except h11.RemoteProtocolError as exc:
        return ("error", str(exc))
    assert head is not None
    keep_alive = not closed and connection.their_state is h11.DONE
    headers = [(name, value) for name, value in head.headers.raw_items()]
    return ("ok", head.status_code, bytes(head.reason), headers, body, keep_alive)


def ours(outcome: Outcome) -> Outcome:
    """Our outcome in h11's terms: without framing and trailing bytes, and the value of
    Transfer-Encoding in lower case (h11 normalizes it)."""
    if outcome[0] == "error":
        return outcome
    headers = [
        (name, value.lower() if name.lower() == b"transfer-encoding" else value)
        for name, value in outcome[3]
    ]
    return (*outcome[:3], headers, *outcome[4:6])


@pytest.mark.parametrize("data", corpus())
def test_valid_responses_read_as_h11_reads_them(backend: ModuleType, data: bytes) -> None:
    expected = h11_outcome(data)
    assert expected[0] == "ok", expected
    assert ours(read_every_way(backend, data)) == expected


@pytest.mark.parametrize(
    "data",
    [
        b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhel",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nxy",
        b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nx",
        b"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nA : b\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nA: b\x00\r\n\r\n",
        b"HTTP/2 200 OK\r\n\r\n",
        b"HTTP/1.1 2x0 OK\r\n\r\n",
        b"HTTP/1.1 200 OK\r\n",
    ],
)
def test_broken_responses_are_refused_by_both(backend: ModuleType, data: bytes) -> None:
    assert h11_outcome(data)[0] == "error"
    assert read_every_way(backend, data)[0] == "error"


@pytest.mark.parametrize(
    "data",
    [
        # obs-fold: h11 unfolds it; RFC 9112 5.2 lets a client refuse it, and httparse does
        b"HTTP/1.1 200 OK\r\nA: b\r\n c\r\nContent-Length: 0\r\n\r\n",
        # both framings: h11 lets chunked win; RFC 9112 6.3 says it "ought to be handled as an
        # error" (response splitting)
        b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        # Transfer-Encoding in HTTP/1.0: faulty framing (RFC 9112 6.1)
        b"HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    ],
)
def test_where_we_are_stricter_than_h11(backend: ModuleType, data: bytes) -> None:
    assert h11_outcome(data)[0] == "ok"
    assert read_every_way(backend, data)[0] == "error"


@pytest.mark.parametrize(
    "data",
    [
        # BWS before a chunk extension (RFC 9112 7.1.1 allows it; h11's pattern does not)
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1 ;x\r\na\r\n0\r\n\r\n",
        # empty lines before the status line (RFC 9112 2.2: a recipient SHOULD ignore them)
        b"\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
    ],
)
def test_where_we_are_more_lenient_than_h11(backend: ModuleType, data: bytes) -> None:
    assert h11_outcome(data)[0] == "error"
    assert read_every_way(backend, data)[0] == "ok"


def test_a_response_to_head_reads_as_h11_reads_it(backend: ModuleType) -> None:
    data = b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n"
    expected = h11_outcome(data, method=b"HEAD")
    assert ours(read_every_way(backend, data, head_request=True)) == expected
