"""HTTP/1.1 framing for a client, in pure Python: the twin of the native ``http1`` module.

``Http1Response`` is a state machine fed the bytes read from a connection (no I/O): interim
(1xx) heads are skipped, the final head is parsed within ``max_head_bytes`` and
``max_headers`` by the grammar ``httparse`` applies (the native backend's parser), and the body
is framed by RFC 9112 section 6. ``encode_request_head`` writes a request head. The contract,
messages included, is in ``mcpstream/_native.pyi``.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Iterable
from typing import Final, final

from ..errors import CodecError

__all__ = [
    "DEFAULT_MAX_HEADERS",
    "DEFAULT_MAX_HEAD_BYTES",
    "Http1Response",
    "encode_request_head",
]

DEFAULT_MAX_HEAD_BYTES: Final = 64 * 1024
DEFAULT_MAX_HEADERS: Final = 100
MAX_CHUNK_LINE_BYTES: Final = 4096

_TOKEN = frozenset(b"!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
_VALUE = frozenset([0x09, *range(0x20, 0x7F), *range(0x80, 0x100)])
_HEX = frozenset(b"0123456789abcdefABCDEF")
# A run of token bytes, a run of value bytes (the fast paths of the head grammar).
_TOKEN_RUN = re.compile(rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]*")
_VALUE_RUN = re.compile(rb"[\t\x20-\x7e\x80-\xff]*")
_U64_MAX: Final = 2**64 - 1

BAD_VERSION = "invalid HTTP response head: bad HTTP version"
BAD_STATUS_LINE = "invalid HTTP response head: bad status line"
BAD_HEADER_NAME = "invalid HTTP response head: bad header name"
BAD_HEADER_VALUE = "invalid HTTP response head: bad header value"
BAD_LINE_ENDING = "invalid HTTP response head: bad line ending"
SWITCHING_PROTOCOLS = "HTTP 101 Switching Protocols is not supported"
BAD_CONTENT_LENGTH = "invalid HTTP Content-Length"
CL_WITH_TE = "HTTP response has both Transfer-Encoding and Content-Length"
UNSUPPORTED_TE = "unsupported HTTP Transfer-Encoding (only chunked is supported)"
TE_IN_HTTP10 = "HTTP/1.0 response with Transfer-Encoding"
BAD_CHUNK_SIZE = "invalid HTTP chunk-size line"
BAD_CHUNK_END = "HTTP chunk data not followed by CRLF"
BAD_TRAILER = "invalid HTTP trailer line"
CLOSED_IN_HEAD = "connection closed before the end of the HTTP response head"
CLOSED_IN_BODY = "connection closed before the end of the HTTP response body"

# The states of a response.
_HEAD, _LENGTH, _CHUNK_SIZE, _CHUNK_DATA, _CHUNK_END, _TRAILERS, _UNTIL_CLOSE, _DONE = range(8)

_Head = tuple[int, int, bytes, list[tuple[bytes, bytes]]]
"""(minor version, status, reason, headers)"""


class _Partial(Exception):
    """The bytes end before the head does."""


def _expect_lf(buf: bytes, i: int, message: str) -> int:
    """The index after the LF that must follow a CR at ``i - 1``."""
    if i >= len(buf):
        raise _Partial
    if buf[i] != 0x0A:
        raise CodecError(message)
    return i + 1


def parse_head(buf: bytes, max_headers: int) -> tuple[int, _Head] | None:
    """One response head at the start of ``buf``, by httparse's grammar (leading empty lines
    skipped): ``None`` while incomplete, else its length and ``(version, status, reason,
    headers)``. Raises ``CodecError`` where httparse fails, at the same bytes."""
    try:
        return _parse_head(buf, max_headers)
    except _Partial:
        return None


def _parse_head(buf: bytes, max_headers: int) -> tuple[int, _Head]:
    n = len(buf)
    i = 0
    while True:  # empty lines before the status line
        if i >= n:
            raise _Partial
        if buf[i] == 0x0D:
            i = _expect_lf(buf, i + 1, BAD_LINE_ENDING)
        elif buf[i] == 0x0A:
            i += 1
        else:
            break
    if n - i >= 8:
        version_bytes = buf[i : i + 8]
        if version_bytes == b"HTTP/1.1":
            version = 1
        elif version_bytes == b"HTTP/1.0":
            version = 0
        else:
            raise CodecError(BAD_VERSION)
        i += 8
    else:
        if not b"HTTP/1.".startswith(buf[i : i + 7]):
            raise CodecError(BAD_VERSION)
        raise _Partial
    if i >= n:
        raise _Partial
    if buf[i] != 0x20:
        raise CodecError(BAD_VERSION)
    i += 1
    status = 0
    for _ in range(3):
        if i >= n:
            raise _Partial
        digit = buf[i] - 0x30
        if not 0 <= digit <= 9:
            raise CodecError(BAD_STATUS_LINE)
        status = status * 10 + digit
        i += 1
    if i >= n:
        raise _Partial
    b = buf[i]
    i += 1
    if b == 0x20:
        start = i
        while True:
            if i >= n:
                raise _Partial
            b = buf[i]
            i += 1
            if b == 0x0D:
                reason = buf[start : i - 1]
                i = _expect_lf(buf, i, BAD_STATUS_LINE)
                break
            if b == 0x0A:
                reason = buf[start : i - 1]
                break
            if b not in _VALUE or b == 0x7F:
                raise CodecError(BAD_STATUS_LINE)
    elif b == 0x0D:
        reason = b""
        i = _expect_lf(buf, i, BAD_STATUS_LINE)
    elif b == 0x0A:
        reason = b""
    else:
        raise CodecError(BAD_STATUS_LINE)
    headers: list[tuple[bytes, bytes]] = []
    while True:
        if i >= n:
            raise _Partial
        b = buf[i]
        i += 1
        if b == 0x0D:
            i = _expect_lf(buf, i, BAD_LINE_ENDING)
            return i, (version, status, reason, headers)
        if b == 0x0A:
            return i, (version, status, reason, headers)
        if b not in _TOKEN:
            raise CodecError(BAD_HEADER_NAME)
        start = i - 1
        match = _TOKEN_RUN.match(buf, i)
        i = match.end() if match else i
        if i >= n:
            raise _Partial
        if buf[i] != 0x3A:
            raise CodecError(BAD_HEADER_NAME)
        name = buf[start:i]
        i += 1
        while True:  # whitespace after the colon
            if i >= n:
                raise _Partial
            if buf[i] not in (0x20, 0x09):
                break
            i += 1
        start = i
        match = _VALUE_RUN.match(buf, i)
        i = match.end() if match else i
        if i >= n:
            raise _Partial
        b = buf[i]
        value = buf[start:i].rstrip(b" \t")
        i += 1
        if b == 0x0D:
            i = _expect_lf(buf, i, BAD_HEADER_VALUE)
        elif b != 0x0A:
            raise CodecError(BAD_HEADER_VALUE)
        if len(headers) == max_headers:
            raise CodecError(f"HTTP response head has more than {max_headers} header fields")
        headers.append((name, value))


def _parse_content_length(digits: bytes) -> int:
    if not digits or not digits.isdigit() or not digits.isascii():
        raise CodecError(BAD_CONTENT_LENGTH)
    length = int(digits)
    if length > _U64_MAX:
        raise CodecError(BAD_CONTENT_LENGTH)
    return length


def _parse_chunk_size(line: bytes) -> int:
    """A chunk-size line without its LF (see the native ``parse_chunk_size``)."""
    if not line.endswith(b"\r"):
        raise CodecError(BAD_CHUNK_SIZE)
    line = line[:-1]
    digits = 0
    while digits < len(line) and line[digits] in _HEX:
        digits += 1
    if digits == 0:
        raise CodecError(BAD_CHUNK_SIZE)
    size = int(line[:digits], 16)
    if size > _U64_MAX:
        raise CodecError(BAD_CHUNK_SIZE)
    rest = line[digits:]
    stripped = rest.lstrip(b" \t")
    if stripped.startswith(b";"):
        if not all(b in _VALUE and b != 0x7F for b in stripped[1:]):
            raise CodecError(BAD_CHUNK_SIZE)
    elif rest:
        raise CodecError(BAD_CHUNK_SIZE)
    return size


@final
class Http1Response:
    """One HTTP/1.1 response, framed from the bytes of a connection as they arrive (no I/O).

    See ``mcpstream/_native.pyi`` for the rules.
    """

    __slots__ = (
        "_buf",
        "_error",
        "_framing",
        "_head",
        "_head_request",
        "_keep_alive",
        "_max_head_bytes",
        "_max_headers",
        "_remaining",
        "_state",
        "_trailer_bytes",
        "_trailing",
    )

    def __init__(
        self,
        head_request: bool = False,
        max_head_bytes: int = DEFAULT_MAX_HEAD_BYTES,
        max_headers: int = DEFAULT_MAX_HEADERS,
    ) -> None:
        if not isinstance(head_request, bool):
            raise TypeError(f"head_request must be a bool, not {type(head_request).__name__}")
        max_head_bytes = operator.index(max_head_bytes)
        max_headers = operator.index(max_headers)
        if max_head_bytes < 0 or max_headers < 0:
            raise OverflowError("can't convert negative int to unsigned")
        if max_head_bytes == 0 or max_headers == 0:
            raise ValueError("max_head_bytes and max_headers must be positive integers")
        self._head_request = head_request
        self._max_head_bytes = max_head_bytes
        self._max_headers = max_headers
        self._state = _HEAD
        self._buf = bytearray()
        self._head: _Head | None = None
        self._framing: str | None = None
        self._keep_alive = False
        self._remaining = 0
        self._trailer_bytes = 0
        self._trailing = bytearray()
        self._error: CodecError | None = None

    def __init_subclass__(cls) -> None:
        raise TypeError("type 'Http1Response' is not an acceptable base type")

    def feed(self, data: bytes) -> list[bytes]:
        """Take the next bytes read from the connection; return the body data they complete."""
        if not isinstance(data, bytes):
            raise TypeError(f"data must be bytes, not {type(data).__name__}")
        if self._error is not None:
            raise CodecError(str(self._error))
        body: list[bytes] = []
        try:
            self._feed(data, body)
        except CodecError as exc:
            self._error = exc
            self._buf = bytearray()
            raise
        return body

    def _feed(self, data: bytes, body: list[bytes]) -> None:
        view = memoryview(data)
        pos = 0
        end = len(data)
        while True:
            state = self._state
            if state == _DONE:
                self._trailing += view[pos:]
                return
            if state == _UNTIL_CLOSE:
                if pos < end:
                    body.append(data[pos:] if pos else data)
                return
            if state == _HEAD:
                self._buf += view[pos:]
                length = self._parse_head()
                if length is None:
                    return
                data = bytes(self._buf)
                self._buf = bytearray()
                view = memoryview(data)
                pos = length
                end = len(data)
            elif state in (_LENGTH, _CHUNK_DATA):
                take = min(self._remaining, end - pos)
                if take:
                    body.append(data[pos : pos + take] if take < len(data) else data)
                pos += take
                if self._consume_body(take):
                    return
            elif state == _CHUNK_END:
                while self._remaining < 2:
                    if pos >= end:
                        return
                    if data[pos] != b"\r\n"[self._remaining]:
                        raise CodecError(BAD_CHUNK_END)
                    self._remaining += 1
                    pos += 1
                self._state = _CHUNK_SIZE
                self._remaining = 0
            elif state == _CHUNK_SIZE:
                lf = data.find(b"\n", pos)
                if lf < 0:
                    if len(self._buf) + end - pos > MAX_CHUNK_LINE_BYTES:
                        raise CodecError(
                            f"HTTP chunk-size line exceeds {MAX_CHUNK_LINE_BYTES} bytes"
                        )
                    self._buf += view[pos:]
                    return
                if len(self._buf) + lf - pos > MAX_CHUNK_LINE_BYTES:
                    raise CodecError(f"HTTP chunk-size line exceeds {MAX_CHUNK_LINE_BYTES} bytes")
                self._buf += view[pos:lf]
                size = _parse_chunk_size(bytes(self._buf))
                self._buf.clear()
                pos = lf + 1
                if size:
                    self._state = _CHUNK_DATA
                    self._remaining = size
                else:
                    self._state = _TRAILERS
                    self._trailer_bytes = 0
            else:  # _TRAILERS: read, bounded and ignored (RFC 9112, 7.1.2)
                limit = self._max_head_bytes
                lf = data.find(b"\n", pos)
                if lf < 0:
                    if self._trailer_bytes + len(self._buf) + end - pos > limit:
                        raise CodecError(f"HTTP trailer section exceeds {limit} bytes")
                    self._buf += view[pos:]
                    return
                self._buf += view[pos:lf]
                line_len = len(self._buf)
                self._trailer_bytes += line_len + 1
                if self._trailer_bytes > limit:
                    raise CodecError(f"HTTP trailer section exceeds {limit} bytes")
                if not self._buf.endswith(b"\r"):
                    raise CodecError(BAD_TRAILER)
                self._buf.clear()
                pos = lf + 1
                if line_len == 1:
                    self._state = _DONE

    def _consume_body(self, take: int) -> int:
        """``take`` bytes of the body data left were read: the next state; what is left of the
        body or chunk."""
        self._remaining -= take
        if not self._remaining:
            self._state = _DONE if self._state == _LENGTH else _CHUNK_END
        return self._remaining

    @property
    def body_ahead(self) -> int:
        """How many of the next bytes of the connection are body data for sure: what is left of
        a ``Content-Length`` body or of the chunk being read (0 anywhere else)."""
        return self._remaining if self._state in (_LENGTH, _CHUNK_DATA) else 0

    def skip_body(self, count: int) -> None:
        """Take ``count`` bytes of body data read past ``feed`` (straight into a buffer of the
        caller's); ``count`` must not pass ``body_ahead``."""
        count = operator.index(count)
        if count < 0:
            raise OverflowError("can't convert negative int to unsigned")
        ahead = self.body_ahead
        if count > ahead:
            raise ValueError(f"skip_body({count}) passes the {ahead} bytes of body data ahead")
        if count:
            self._consume_body(count)

    def _parse_head(self) -> int | None:
        """The length of the final head in ``_buf`` once complete (interim heads dropped)."""
        limit = self._max_head_bytes
        while True:
            parsed = parse_head(bytes(self._buf[:limit]), self._max_headers)
            if parsed is None:
                if len(self._buf) >= limit:
                    raise CodecError(f"HTTP response head exceeds {limit} bytes")
                return None
            length, head = parsed
            status = head[1]
            if status < 100:
                raise CodecError(BAD_STATUS_LINE)
            if status == 101:
                raise CodecError(SWITCHING_PROTOCOLS)
            if status < 200:
                del self._buf[:length]
                continue
            self._start_body(head)
            return length

    def _start_body(self, head: _Head) -> None:
        version, status, _, headers = head
        content_length: int | None = None
        codings: list[bytes] | None = None
        close = False
        for name, value in headers:
            lowered = name.lower()
            if lowered == b"content-length":
                for item in value.split(b","):
                    length = _parse_content_length(item.strip(b" \t"))
                    if content_length is not None and content_length != length:
                        raise CodecError(BAD_CONTENT_LENGTH)
                    content_length = length
            elif lowered == b"transfer-encoding":
                codings = [*(codings or ()), value]
            elif lowered == b"connection":
                close |= any(t.strip(b" \t").lower() == b"close" for t in value.split(b","))
        if self._head_request or status in (204, 304):
            framing = "empty"
        elif codings is not None:
            if version == 0:
                raise CodecError(TE_IN_HTTP10)
            if content_length is not None:
                raise CodecError(CL_WITH_TE)
            items = b",".join(codings).split(b",")
            if len(items) != 1 or items[0].strip(b" \t").lower() != b"chunked":
                raise CodecError(UNSUPPORTED_TE)
            framing = "chunked"
        elif content_length is not None:
            framing = "content-length"
        else:
            framing = "close"
        self._keep_alive = version == 1 and not close and framing != "close"
        if framing == "empty" or (framing == "content-length" and content_length == 0):
            self._state = _DONE
        elif framing == "content-length":
            self._state = _LENGTH
            self._remaining = content_length or 0
        elif framing == "chunked":
            self._state = _CHUNK_SIZE
        else:
            self._state = _UNTIL_CLOSE
        self._framing = framing
        self._head = head

    def feed_eof(self) -> None:
        """The connection closed (EOF): ends a body read until the close, or raises."""
        if self._error is not None:
            raise CodecError(str(self._error))
        if self._state == _DONE:
            return
        if self._state == _UNTIL_CLOSE:
            self._state = _DONE
            return
        self._error = CodecError(CLOSED_IN_HEAD if self._state == _HEAD else CLOSED_IN_BODY)
        self._buf = bytearray()
        raise self._error

    @property
    def status(self) -> int | None:
        """The final status code, ``None`` until the final head has arrived."""
        return None if self._head is None else self._head[1]

    @property
    def reason(self) -> bytes | None:
        """The reason phrase as received, ``None`` until the final head has arrived."""
        return None if self._head is None else self._head[2]

    @property
    def http_version(self) -> bytes | None:
        """``b"HTTP/1.1"`` or ``b"HTTP/1.0"``, ``None`` until the final head has arrived."""
        if self._head is None:
            return None
        return b"HTTP/1.1" if self._head[0] else b"HTTP/1.0"

    @property
    def headers(self) -> list[tuple[bytes, bytes]] | None:
        """The header fields ``(name, value)`` in order, ``None`` until the final head."""
        return None if self._head is None else list(self._head[3])

    def fields(self) -> dict[str, str] | None:
        """The header fields as a dict: names in lower case, the values of a repeated name
        joined with ``", "`` (what ``dict(httpx.Headers(headers).items())`` gives), when every
        name and value is ASCII; ``None`` otherwise (the stack's ``Headers`` decode the
        others), and until the final head has arrived."""
        if self._head is None:
            return None
        fields: dict[str, str] = {}
        for name, value in self._head[3]:
            if not (name.isascii() and value.isascii()):
                return None
            key = name.decode("ascii").lower()
            text = value.decode("ascii")
            fields[key] = f"{fields[key]}, {text}" if key in fields else text
        return fields

    @property
    def framing(self) -> str | None:
        """How the body is delimited: ``"empty"``, ``"content-length"``, ``"chunked"`` or
        ``"close"``; ``None`` until the final head has arrived."""
        return self._framing

    @property
    def complete(self) -> bool:
        """Whether the whole response has been read."""
        return self._state == _DONE and self._error is None

    @property
    def keep_alive(self) -> bool:
        """Whether the connection may carry another request."""
        return self.complete and self._keep_alive and not self._trailing

    @property
    def trailing(self) -> bytes:
        """The bytes received past the end of the response."""
        return bytes(self._trailing)


def encode_request_head(
    method: bytes,
    target: bytes,
    headers: Iterable[tuple[bytes, bytes]],
    content_length: int | None = None,
) -> bytes:
    """The head of an HTTP/1.1 request: request line, fields, ``Content-Length`` when given,
    blank line."""
    for arg in (method, target):
        if not isinstance(arg, bytes):
            raise TypeError(f"expected bytes, got {type(arg).__name__}")
    if content_length is not None and not 0 <= content_length <= _U64_MAX:
        raise OverflowError("content_length out of range")
    fields = list(headers)
    if not method or not all(b in _TOKEN for b in method):
        raise ValueError("invalid HTTP method")
    if not target or not all(0x20 < b != 0x7F for b in target):
        raise ValueError("invalid HTTP request target")
    parts = [method, b" ", target, b" HTTP/1.1\r\n"]
    for field in fields:
        if not isinstance(field, tuple) or len(field) != 2:
            raise TypeError("each header must be a (name, value) tuple of bytes")
        name, value = field
        if not isinstance(name, bytes) or not isinstance(value, bytes):
            raise TypeError("each header must be a (name, value) tuple of bytes")
        if not name or not all(b in _TOKEN for b in name):
            raise ValueError("invalid HTTP header name")
        if not all(b in _VALUE and b != 0x7F for b in value):
            raise ValueError("invalid HTTP header value")
        if content_length is not None and name.lower() == b"content-length":
            raise ValueError("content_length given and a Content-Length header too")
        parts += (name, b": ", value, b"\r\n")
    if content_length is not None:
        parts.append(b"Content-Length: %d\r\n" % content_length)
    parts.append(b"\r\n")
    return b"".join(parts)
