"""Type stubs of ``mcpstream._native``, the Rust hot path (PyO3).

``mcpstream._pure`` implements exactly the same names, signatures, results and errors in pure
Python. ``mcpstream.codec`` re-exports whichever backend is in use. This file is the contract of
both backends; the rules below are normative.

Errors (classes from ``mcpstream.errors``, imported by the native module so both backends raise
the same types; messages are identical in both backends unless said otherwise):

* ``InvalidUtf8Error(message, offset)``:
  ``"invalid UTF-8 at byte offset {offset}"`` for a bad byte, and
  ``"incomplete UTF-8 sequence at end of stream (byte offset {offset})"`` for a truncated code
  point left when the stream ends. ``offset`` counts bytes from the start of the stream (a BOM
  included) and points at the first byte of the sequence that cannot be decoded (the same index
  Python's ``UnicodeDecodeError.start`` and Rust's ``Utf8Error::valid_up_to`` give).
* ``SseEventTooLargeError(message, limit)``:
  ``"SSE event exceeds the limit of {limit} bytes (max_event_bytes)"``.
* ``JsonRpcProtocolError(message)``: see ``parse_jsonrpc_line``.

Classes and arguments (both backends):

* ``SseEvent``, ``JsonRpcRequest``, ``JsonRpcNotification`` and ``JsonRpcResponse`` take keyword
  arguments only and store the values as given, without checking them (the decoders only build
  well-formed ones). ``JsonRpcEvent`` cannot be constructed from Python (``TypeError``).
* Every class is final (subclassing raises ``TypeError``). Instances of the value classes are
  immutable: setting or deleting any attribute raises ``AttributeError``. ``SseEvent`` is
  hashable; the JSON-RPC classes have ``__eq__`` and are unhashable. ``__eq__`` with an object of
  another class returns ``NotImplemented`` (so ``==`` is ``False``).
* A body chunk must be ``bytes``; anything else raises ``TypeError``.
* ``JsonRpcId`` and ``JsonRpcMessage`` are typing aliases: ``mcpstream.codec`` defines them at
  run time; a backend module need not.
"""

from collections.abc import Iterable
from typing import Any, Final, Self, TypeAlias, final

__all__ = [
    "DEFAULT_MAX_EVENT_BYTES",
    "DEFAULT_MAX_HEADERS",
    "DEFAULT_MAX_HEAD_BYTES",
    "BodyBuffer",
    "Http1Response",
    "JsonRpcEvent",
    "JsonRpcNotification",
    "JsonRpcRequest",
    "JsonRpcResponse",
    "SseDecoder",
    "SseEvent",
    "Utf8Decoder",
    "encode_jsonrpc_message",
    "encode_request_head",
    "parse_jsonrpc_line",
    "sole_sse_message",
]

# Type aliases for annotations only; the runtime module does not define them.
JsonRpcId: TypeAlias = int | str
JsonRpcMessage: TypeAlias = "JsonRpcRequest | JsonRpcNotification | JsonRpcResponse"

DEFAULT_MAX_EVENT_BYTES: Final[int]
"""64 MiB: the default cap on the size of one SSE event (the transports' documented default)."""

@final
class Utf8Decoder:
    """Incremental, strict UTF-8 decoder for body chunks.

    A code point split across chunks is returned once its last byte arrives. Invalid bytes raise
    ``InvalidUtf8Error`` with the stream offset. After an error the decoder is failed: every later
    call raises ``InvalidUtf8Error`` again with the same message and offset.

    Bytes ending a chunk that can never complete a code point (``ED A0``, the start of a
    surrogate; ``F4 90``; ``C1``) raise at once, not when the next chunk arrives. A BOM is
    ordinary text here (``"\\ufeff"``). A successful ``finish`` starts a new stream: offsets count
    from 0 again.
    """

    def __new__(cls) -> Self: ...
    def decode(self, chunk: bytes) -> str:
        """Decode ``chunk``; return the text of every code point completed so far."""

    def finish(self) -> str:
        """End of stream: return ``""``, or raise if an incomplete sequence is left over."""

@final
class SseEvent:
    """One dispatched Server-Sent Event.

    ``event``: the value of the last ``event`` field of this event, ``None`` if it had none (an
    empty ``event:`` line gives ``""``). ``data``: the ``data`` lines joined with ``"\\n"``, ``""``
    when there were none. ``id``: the value of the last valid ``id`` field of this event, ``None``
    if it had none. ``retry``: the value of the last valid ``retry`` field of this event, or
    ``None``. Immutable; equal when all four fields are equal;
    ``repr`` is ``SseEvent(event=..., data=..., id=..., retry=...)`` with the values' reprs.
    """

    def __new__(
        cls,
        *,
        event: str | None = None,
        data: str = "",
        id: str | None = None,
        retry: int | None = None,
    ) -> Self: ...
    @property
    def event(self) -> str | None: ...
    @property
    def data(self) -> str: ...
    @property
    def id(self) -> str | None: ...
    @property
    def retry(self) -> int | None: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class JsonRpcRequest:
    """A JSON-RPC request: has ``method`` and an ``id`` (``int`` or ``str``).

    ``params`` is the parsed ``params`` value (dict or list), ``None`` when absent or null.
    Immutable; equal when all fields are equal; ``repr`` is
    ``JsonRpcRequest(id=..., method=..., params=...)``.
    """

    def __new__(cls, *, id: JsonRpcId, method: str, params: Any = None) -> Self: ...
    @property
    def id(self) -> JsonRpcId: ...
    @property
    def method(self) -> str: ...
    @property
    def params(self) -> Any: ...
    def __eq__(self, other: object, /) -> bool: ...

@final
class JsonRpcNotification:
    """A JSON-RPC notification: has ``method`` and no ``id``.

    ``repr`` is ``JsonRpcNotification(method=..., params=...)``.
    """

    def __new__(cls, *, method: str, params: Any = None) -> Self: ...
    @property
    def method(self) -> str: ...
    @property
    def params(self) -> Any: ...
    def __eq__(self, other: object, /) -> bool: ...

@final
class JsonRpcResponse:
    """A JSON-RPC response: exactly one of ``result`` / ``error`` was present.

    ``id`` is ``int`` or ``str``; ``None`` only in an error response (JSON-RPC allows a null id
    when the request id could not be read). ``result`` is the parsed result (``None`` for a JSON
    null result and for error responses). ``error`` is the error object as a dict (an ``int``
    ``"code"``, a ``str`` ``"message"`` and optionally ``"data"``), ``None`` for a result.
    ``repr`` is ``JsonRpcResponse(id=..., result=..., error=...)``.
    """

    def __new__(
        cls, *, id: JsonRpcId | None, result: Any = None, error: dict[str, Any] | None = None
    ) -> Self: ...
    @property
    def id(self) -> JsonRpcId | None: ...
    @property
    def result(self) -> Any: ...
    @property
    def error(self) -> dict[str, Any] | None: ...
    @property
    def is_error(self) -> bool:
        """True when this response carries an ``error`` object."""

    def __eq__(self, other: object, /) -> bool: ...

@final
class JsonRpcEvent:
    """The JSON-RPC content of one SSE event, from ``SseDecoder.feed_jsonrpc``.

    ``id`` and ``event`` are the SSE event's fields (as in ``SseEvent``). ``messages`` holds the
    parsed message (one) or batch (several). ``error`` is the ``JsonRpcProtocolError`` that
    parsing the data raised, with ``messages == ()``: a bad event does not stop the stream, and
    the events around it are not lost. ``repr`` is
    ``JsonRpcEvent(id=..., event=..., messages=..., error=...)``.
    """

    @property
    def id(self) -> str | None: ...
    @property
    def event(self) -> str | None: ...
    @property
    def messages(self) -> tuple[JsonRpcMessage, ...]: ...
    @property
    def error(self) -> Exception | None: ...
    def __eq__(self, other: object, /) -> bool:
        """Equal when id, event and messages are equal and both errors are None, or both are
        errors with the same class and message."""

@final
class SseDecoder:
    """Incremental Server-Sent Events decoder (WHATWG rules), one call per body chunk.

    Lines end at CRLF, LF or CR and nowhere else; a CR at the end of a chunk is resolved by the
    next chunk (a following LF belongs to it) or by ``finish``. One UTF-8 BOM (EF BB BF) at the
    very start of the stream is dropped. Every line is strictly UTF-8 decoded when it completes.

    Fields: a line starting with ``:`` is a comment. Otherwise the field name is the text before
    the first ``:`` and the value the text after it, minus one leading space; a line without a
    colon is a field with that name and an empty value. ``data`` appends its value to the data
    lines; ``event`` sets the event type; ``id`` sets the event id unless the value contains
    U+0000 (then the line is ignored); ``retry`` sets the retry delay only when the value is one
    or more ASCII digits and at most 2**63 - 1 (anything else is ignored); unknown fields are
    ignored. A blank line dispatches the pending event; ``finish`` dispatches it too. An event is
    dispatched only if at least one of data, event, id or retry was set since the previous one.

    A line ends at its terminator: a CR that ends a chunk ends its line in that ``feed`` call (an
    event that line dispatches is returned by that call); the pending CR only means that a LF
    starting the next chunk is dropped. Every line, comments included, is checked as UTF-8 when its
    terminator arrives: a bad or cut-off sequence in a terminated line is ``invalid UTF-8 ...``;
    the ``incomplete ...`` message is only for an unterminated last line, at ``finish``, that ends
    inside a code point. Offsets count the BOM and start again at 0 after ``finish``. Bytes at the
    start of the stream that may still become a BOM (``EF``, ``EF BB``) are held until decided:
    they do not count against the cap yet, but count as a partly received line for
    ``event_in_progress``; if the stream ends there, they are a line. The BOM is not part of any
    line and does not count in the event size.

    Size cap: the size of the event being assembled is the byte length (terminators excluded) of
    every non-comment line since the last blank line, plus the bytes of the current unterminated
    line. When any line, comments included, would make ``accumulated + len(line)`` exceed
    ``max_event_bytes``, ``SseEventTooLargeError`` is raised; memory stays bounded by the cap.
    Ignored lines (unknown fields, an ``id`` with U+0000, an invalid ``retry``) are non-comment
    lines and count. A partly received line is checked as its bytes arrive. The cap is checked
    before UTF-8, so a line that is both too large and not UTF-8 raises ``SseEventTooLargeError``.

    Errors and ordering: an error belongs to a position in the stream. Events dispatched before
    that position are never lost: if a ``feed`` call completed events before hitting the error,
    it returns them and the error is raised by the next ``feed`` or ``finish`` call instead. Once
    failed, the decoder raises the same error (same class and message) on every later call, its
    ``event_in_progress`` is ``False`` (no event can be completed any more), and
    ``last_event_id`` and ``retry_ms`` keep what the stream before the error set.
    The results (events and errors) do not depend on how the stream is cut into chunks.
    """

    def __new__(cls, max_event_bytes: int | None = 67108864) -> Self:
        """``max_event_bytes``: the cap on one event's size; ``None`` for no cap. Must be > 0.

        0 or less raises ``ValueError("max_event_bytes must be a positive integer or None")``; a
        value that is not an int raises ``TypeError``. Values above 2**63 - 1 are unsupported.
        """

    def feed(self, chunk: bytes) -> list[SseEvent]:
        """Take the next chunk of body bytes; return the events it completed, in order."""

    def finish(self) -> list[SseEvent]:
        """End of stream: process any partial line and dispatch a pending event.

        Raises ``InvalidUtf8Error`` (``incomplete ...`` message) if the stream ends inside a
        code point. After ``finish`` the decoder is reset to its initial state (BOM handling
        included) but keeps ``last_event_id`` and ``retry_ms``.
        """

    def feed_jsonrpc(self, chunk: bytes) -> list[JsonRpcEvent]:
        """Like ``feed``, but return the JSON-RPC content of the completed events.

        Events whose data is empty or only JSON whitespace (space, tab, CR, LF) are skipped, and
        so are events whose type is set and is neither ``""`` nor ``"message"``; both still
        update ``last_event_id`` and ``retry_ms``. The data of every other event goes through
        ``parse_jsonrpc_line``; a parse failure is reported in that event's ``error``.

        The error-deferral rule counts the SSE events the call completed, skipped ones included:
        if every event completed before an error was skipped, the call returns ``[]`` and the
        error is raised by the next call.
        """

    def finish_jsonrpc(self) -> list[JsonRpcEvent]:
        """``finish`` with the same JSON-RPC treatment as ``feed_jsonrpc``."""

    @property
    def event_in_progress(self) -> bool:
        """True while a line is partly received (a pending CR does not count) or a non-comment
        line has been seen since the last dispatch or blank line; ``False`` once failed."""

    @property
    def last_event_id(self) -> str | None:
        """The id of the most recent dispatched event that set one (WHATWG's last event ID);
        ``None`` until an event sets it. An empty ``id:`` sets it to ``""``."""

    @property
    def retry_ms(self) -> int | None:
        """The last valid ``retry`` value seen (it takes effect when its line is read)."""

def sole_sse_message(body: bytes, max_event_bytes: int | None = 67108864) -> JsonRpcMessage | None:
    """The JSON-RPC message of a whole event stream (``body``, to its end) that holds just that.

    That is: what a new ``SseDecoder(max_event_bytes)`` fed ``body`` and then finished returns
    as exactly one ``JsonRpcEvent``, holding one message (a batch of one counts) and no
    ``error``, the decoder's ``last_event_id`` and ``retry_ms`` still ``None``. ``None`` for any
    other stream: a decoding error, no such event or more than one, a batch, a malformed message,
    an event id or retry set. The caller then decodes ``body`` with an ``SseDecoder``. The one
    call of the common answer (a complete stream of one response), with no decoder or event made.
    ``max_event_bytes`` is checked as ``SseDecoder`` checks it.
    """

def parse_jsonrpc_line(text: str | bytes) -> tuple[JsonRpcMessage, ...]:
    """Parse one JSON text (a message or a batch array) into typed messages.

    Bytes must be UTF-8. Leading and trailing JSON whitespace is allowed. ``NaN`` and
    ``Infinity`` are not JSON and are refused. Arrays and objects nested deeper than 100 levels
    (the top-level value is level 1) are refused as ``"invalid JSON: nesting deeper than 100
    levels at line L column C"``, naming the bracket that opens level 101; in a thread whose
    stack has no room for that many levels (less than 64 KiB, or a debug build of the native
    backend), the native backend refuses a shallower level as ``"invalid JSON: nesting too deep
    for this thread's stack at line L column C"`` rather than overflow the stack. Returns a
    tuple. Raises ``JsonRpcProtocolError`` with one of these
    messages (in a batch, prefixed by ``"batch item {index}: "``):

    * ``"invalid JSON: ..."`` (the rest names the problem and its position; its wording may
      differ between backends). Also for bytes that are not UTF-8, for a str that is not valid
      Unicode (it holds a lone surrogate), and for an integer of more than 4300 digits (Python's
      limit for ``int()``). A ``\\u`` escape of a lone surrogate is accepted, as ``json.loads``
      accepts it. An argument that is neither str nor bytes raises ``TypeError``.
    * ``"empty JSON-RPC batch"``
    * ``"JSON-RPC message must be an object, got {kind}"`` with kind one of ``array``,
      ``string``, ``number``, ``boolean``, ``null`` (an array inside a batch is not an object)
    * ``'JSON-RPC message must have "jsonrpc": "2.0"'`` (missing or other value)
    * ``'"method" must be a string'``
    * ``'"id" must be a string or an integer'`` (bool and float are not ids; null is an id only
      in an error response: a null id passes this check only in a message with ``"error"`` and
      without ``"method"``)
    * ``'"params" must be an object or an array'`` (null counts as absent; checked in every
      message, responses included)
    * ``'JSON-RPC message must not have both "method" and "result" or "error"'``
    * ``'JSON-RPC response must have exactly one of "result" and "error"'`` (also raised for a
      message with neither ``method`` nor ``result``/``error``)
    * ``'JSON-RPC response must have an "id"'``
    * ``'"error" must be an object with an integer "code" and a string "message"'``

    Classification: ``method`` present → request when ``"id"`` is present, else notification;
    otherwise a response. Unknown members are ignored. A response's ``error`` is the parsed
    object, all its members kept. Checks run in the order listed above
    (jsonrpc, method, id, params, then the response rules), so the first failing rule names the
    error.
    """

def encode_jsonrpc_message(payload: Any) -> str:
    """Encode a JSON-RPC payload to compact JSON text.

    The result is exactly ``json.dumps(payload, ensure_ascii=False, separators=(",", ":"),
    allow_nan=False)`` for payloads of dict, list, tuple, str, int, float, bool and None
    (subclasses included; dict keys of str, int, float, bool or None are converted as json
    does). ``JsonRpcRequest``, ``JsonRpcNotification`` and ``JsonRpcResponse`` objects are
    encoded as their JSON-RPC 2.0 objects (``"jsonrpc"`` first, then id, method, params /
    result / error; a None params is left out; a response has ``"error"`` when its error is not
    None, else ``"result"``). Raises ``ValueError`` with
    ``"cannot encode NaN or Infinity as JSON"`` for non-finite floats (dict keys included),
    ``TypeError`` with ``"cannot encode object of type {type name} as JSON"`` for other types
    (``type(obj).__name__``; for a dict key of another type, the key's type), and ``ValueError``
    with ``"cannot encode: circular reference or nesting too deep"`` for a circular structure.
    The first bad item in json's order (depth first, a dict key before its value) names the
    error. A str holding a lone surrogate is copied into the output, as ``json.dumps`` does.
    A list, tuple, dict or message nested deeper than 100 levels (the payload is level 1) gives
    that error too, in both backends (and, in the native one, a shallower level in a thread whose
    stack has no room for 100: see ``parse_jsonrpc_line``).
    """

DEFAULT_MAX_HEAD_BYTES: Final[int]
"""64 KiB: the default cap on one HTTP/1.1 response head, and on a chunked body's trailers."""

DEFAULT_MAX_HEADERS: Final[int]
"""100: the default cap on the header fields of one HTTP/1.1 response head."""

@final
class Http1Response:
    """One HTTP/1.1 response, framed from the bytes a client reads from its connection (no I/O).

    Feed it every byte read after the request was sent, then ``feed_eof`` if the connection
    closes. The outcome (head, body, error) does not depend on how the bytes are cut into reads.

    Head: interim responses (100-199 but 101) are read and dropped. The final head is parsed by
    the grammar of the ``httparse`` crate: leading empty lines skipped; ``HTTP/1.0`` or
    ``HTTP/1.1``, one space, three digits, then a line end or a space and a reason phrase (HTAB,
    SP, VCHAR, obs-text); fields ``name:value`` with a token name directly followed by the colon
    (so obs-fold and a space before the colon are refused), the value's HTAB, SP, VCHAR and
    obs-text, trimmed of SP and HTAB; lines end at CRLF or LF. The head is parsed within its first
    ``max_head_bytes`` bytes: a head that does not end within them is too large; more than
    ``max_headers`` fields are refused. A status below 100 is refused, and so is 101.

    Body framing (RFC 9112, 6.3), from the final head: none for a response to HEAD
    (``head_request``), 204 and 304; otherwise ``Transfer-Encoding`` must be exactly
    ``chunked`` (any other coding is refused, so is a ``Transfer-Encoding`` in an HTTP/1.0
    response or beside a ``Content-Length``); else ``Content-Length`` (1*DIGIT, at most
    2**64 - 1; several values, in one field or several, must be equal); else the body runs until
    the connection closes. Every ``Content-Length`` of a final head is checked, whatever the
    framing. Chunked: a chunk-size line is ``1*HEXDIG`` (at most 2**64 - 1), then optionally SP/HTAB
    and ``;`` and extension bytes (HTAB, SP, VCHAR, obs-text; ignored), then CRLF, at most 4096
    bytes before its LF; chunk data is followed by CRLF; the trailer section (lines ending in
    CRLF, at most ``max_head_bytes`` in all) is read and ignored.

    ``keep_alive``: the response is complete, its version is HTTP/1.1, no ``Connection`` field
    holds the token ``close``, the body was not delimited by the close, and no byte followed the
    response (``trailing``).

    Errors: ``CodecError`` (of ``mcpstream.errors``) with one of these messages, the same in
    both backends; once failed, every later call raises the same error again:

    * ``"invalid HTTP response head: bad HTTP version"``, ``"... bad status line"``,
      ``"... bad header name"``, ``"... bad header value"``, ``"... bad line ending"``
    * ``"HTTP response head has more than {max_headers} header fields"``
    * ``"HTTP response head exceeds {max_head_bytes} bytes"``
    * ``"HTTP 101 Switching Protocols is not supported"``
    * ``"invalid HTTP Content-Length"``
    * ``"HTTP response has both Transfer-Encoding and Content-Length"``
    * ``"unsupported HTTP Transfer-Encoding (only chunked is supported)"``
    * ``"HTTP/1.0 response with Transfer-Encoding"``
    * ``"invalid HTTP chunk-size line"``, ``"HTTP chunk-size line exceeds 4096 bytes"``
    * ``"HTTP chunk data not followed by CRLF"``
    * ``"invalid HTTP trailer line"``, ``"HTTP trailer section exceeds {max_head_bytes} bytes"``
    * ``"connection closed before the end of the HTTP response head"`` and ``"... body"``
      (``feed_eof``)
    """

    def __new__(
        cls,
        head_request: bool = False,
        max_head_bytes: int = 65536,
        max_headers: int = 100,
    ) -> Self:
        """0 for either limit raises ``ValueError``; a negative one ``OverflowError``."""

    def feed(self, data: bytes) -> list[bytes]:
        """Take the next bytes read from the connection; return the body data they complete.

        Bytes past the end of the response are kept in ``trailing``, not returned."""

    def feed_eof(self) -> None:
        """The connection closed (EOF): ends a body read until the close, or raises."""

    @property
    def body_ahead(self) -> int:
        """How many of the next bytes of the connection are body data for sure: what is left of
        a ``Content-Length`` body or of the chunk being read; 0 anywhere else (a head, a
        chunk-size line, trailers, a body read until the close, the end, a failed response)."""

    def skip_body(self, count: int) -> None:
        """Take ``count`` bytes of body data that were read past ``feed`` (straight into a
        ``BodyBuffer``), as ``feed`` would have taken them (without returning them). ``count``
        may not pass ``body_ahead``: ``ValueError`` then, and nothing is taken."""

    @property
    def status(self) -> int | None:
        """The final status code, ``None`` until the final head has arrived."""

    @property
    def reason(self) -> bytes | None:
        """The reason phrase as received, ``None`` until the final head has arrived."""

    @property
    def http_version(self) -> bytes | None:
        """``b"HTTP/1.1"`` or ``b"HTTP/1.0"``, ``None`` until the final head has arrived."""

    @property
    def headers(self) -> list[tuple[bytes, bytes]] | None:
        """The header fields ``(name, value)`` in order, names as received; ``None`` until the
        final head has arrived."""

    def fields(self) -> dict[str, str] | None:
        """The header fields as a dict: names in lower case, the values of a repeated name
        joined with ``", "`` (what ``dict(httpx.Headers(headers).items())`` gives), when every
        name and value is ASCII; ``None`` otherwise (the stack's ``Headers`` decode the
        others), and until the final head has arrived."""

    @property
    def framing(self) -> str | None:
        """How the body is delimited: ``"empty"``, ``"content-length"``, ``"chunked"`` or
        ``"close"``; ``None`` until the final head has arrived."""

    @property
    def complete(self) -> bool:
        """Whether the whole response has been read (``False`` once failed)."""

    @property
    def keep_alive(self) -> bool:
        """Whether the connection may carry another request (see the class)."""

    @property
    def trailing(self) -> bytes:
        """The bytes received past the end of the response."""

@final
class BodyBuffer:
    """One response body received into one buffer: reads of the socket go straight into it
    (``open`` a window, read into ``view()``, ``advance``), other bytes are copied in
    (``extend``), and ``take`` hands the body on as ``bytes``. The native buffer fills the very
    ``bytes`` object ``take`` returns (no copy); the pure-Python one copies once, there.

    The buffer grows as needed (at least doubling), but not while a view is exported
    (``BufferError``); after ``take`` every method but ``window`` and ``len`` raises
    ``ValueError`` (``view``: ``BufferError``). Sizes are non-negative integers
    (``OverflowError`` for a negative one)."""

    def __new__(cls, capacity: int) -> Self:
        """An empty buffer with room for ``capacity`` bytes."""

    def __len__(self) -> int:
        """The bytes received so far."""

    def renew(self, capacity: int) -> None:
        """Start a new body in this buffer, with room for ``capacity`` bytes (``BufferError``
        while a view is exported). The native buffer fills the storage of the body it last gave
        again where nobody holds that body any more and it is large enough, so that a connection
        reading one large body after another reuses memory already faulted in."""

    def reserve(self, additional: int) -> None:
        """Make room for ``additional`` more bytes after those received."""

    def extend(self, data: bytes) -> None:
        """Copy ``data`` in after the bytes received."""

    def open(self, size: int) -> int:
        """Let the next views cover the ``size`` bytes after those received (room is made for
        them first); returns ``size``."""

    def view(self) -> memoryview:
        """A writable view of the ``window`` bytes after those received."""

    @property
    def window(self) -> int:
        """The bytes the views cover: what ``open`` gave, less what arrived since."""

    def advance(self, count: int) -> None:
        """``count`` bytes were written at the start of the last view: they are received now.
        ``ValueError`` when ``count`` passes ``window``."""

    def take(self) -> bytes:
        """The body (the bytes received); the buffer can be used no more."""

def encode_request_head(
    method: bytes,
    target: bytes,
    headers: Iterable[tuple[bytes, bytes]],
    content_length: int | None = None,
) -> bytes:
    """The head of an HTTP/1.1 request: ``{method} {target} HTTP/1.1``, each field as
    ``{name}: {value}`` in order, ``Content-Length: {content_length}`` when given, and the blank
    line, each line ending in CRLF.

    Raises ``ValueError`` for a method or a header name that is not a token, a target that is
    empty or holds a byte at or below SP or DEL, a value with a byte that is not HTAB, SP, VCHAR
    or obs-text (CR and LF included: no field can be injected), and for ``content_length`` given
    beside a ``Content-Length`` field (messages: ``"invalid HTTP method"``, ``"invalid HTTP
    request target"``, ``"invalid HTTP header name"``, ``"invalid HTTP header value"``,
    ``"content_length given and a Content-Length header too"``). Each header must be a tuple of
    two bytes objects (``TypeError``).
    """
