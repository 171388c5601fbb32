"""Every exception mcpstream raises, in one tree.

The codec (``mcpstream.codec``, both backends) raises only these::

    ValueError
    └── CodecError                    bad bytes or text reached the hot path
        ├── InvalidUtf8Error          body bytes are not UTF-8 (``.offset``: byte offset in the stream)
        ├── SseEventTooLargeError     one SSE event grew past ``max_event_bytes`` (``.limit``)
        └── JsonRpcProtocolError      text is not valid JSON, or not a valid JSON-RPC 2.0 message

The native backend imports these classes from here, so both backends raise the very same types.
Messages never quote the offending payload: they name the rule and the position only, so no token
or user data can leak through an error.
"""

from __future__ import annotations

__all__ = [
    "CodecError",
    "InvalidUtf8Error",
    "JsonRpcProtocolError",
    "SseEventTooLargeError",
]


class CodecError(ValueError):
    """Base class of the errors raised by the hot path (UTF-8, SSE and JSON-RPC decoding)."""


class InvalidUtf8Error(CodecError):
    """The body is not valid UTF-8.

    ``offset`` is the byte offset in the whole stream (counted from its first byte, a BOM
    included) of the first byte that cannot be decoded, or of the incomplete sequence left at
    the end of the stream.
    """

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.offset = offset


class SseEventTooLargeError(CodecError):
    """One SSE event grew past the decoder's ``max_event_bytes`` limit (``.limit``)."""

    def __init__(self, message: str, limit: int) -> None:
        super().__init__(message)
        self.limit = limit


class JsonRpcProtocolError(CodecError):
    """Text that is not valid JSON, or JSON that is not a valid JSON-RPC 2.0 message or batch."""
