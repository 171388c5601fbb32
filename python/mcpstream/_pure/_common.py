"""Pieces the pure-Python backend modules share: error builders, the frozen-object base.

The error messages are part of the contract (``mcpstream/_native.pyi``); building them in one place
keeps the two decoders (``Utf8Decoder`` and ``SseDecoder``) word for word the same.
"""

from __future__ import annotations

import inspect
from typing import Any, ClassVar, NoReturn

from ..errors import CodecError, InvalidUtf8Error, SseEventTooLargeError

__all__ = [
    "Frozen",
    "copy_error",
    "event_too_large",
    "incomplete_utf8",
    "invalid_utf8",
    "member_setters",
    "new_object",
]

new_object = object.__new__


def invalid_utf8(offset: int) -> InvalidUtf8Error:
    """The error for a byte that cannot be decoded at stream offset ``offset``."""
    return InvalidUtf8Error(f"invalid UTF-8 at byte offset {offset}", offset)


def incomplete_utf8(offset: int) -> InvalidUtf8Error:
    """The error for a code point cut off by the end of the stream, starting at ``offset``."""
    return InvalidUtf8Error(
        f"incomplete UTF-8 sequence at end of stream (byte offset {offset})", offset
    )


def event_too_large(limit: int) -> SseEventTooLargeError:
    """The error for an SSE event that grew past ``limit`` bytes."""
    return SseEventTooLargeError(
        f"SSE event exceeds the limit of {limit} bytes (max_event_bytes)", limit
    )


def copy_error(error: CodecError) -> CodecError:
    """A fresh exception equal to ``error`` (same class, message and attributes).

    A failed decoder raises the same error on every later call. Raising one instance again and
    again would chain an ever longer traceback onto it, so each call raises a copy.
    """
    if isinstance(error, InvalidUtf8Error):
        return InvalidUtf8Error(str(error), error.offset)
    if isinstance(error, SseEventTooLargeError):
        return SseEventTooLargeError(str(error), error.limit)
    return type(error)(*error.args)


def member_setters(cls: type[Frozen]) -> tuple[Any, ...]:
    """The raw setters of the ``_fields`` of ``cls``, in order; they bypass
    ``Frozen.__setattr__``."""
    return tuple(cls.__dict__[name].__set__ for name in cls._fields)


class Frozen:
    """Base of the immutable value classes: attributes cannot be set or deleted.

    Like PyO3's frozen classes, setting or deleting any attribute raises ``AttributeError``, and
    the classes cannot be subclassed. Instances are built with the slots' raw setters.
    """

    __slots__ = ()
    _fields: ClassVar[tuple[str, ...]] = ()
    """The fields in the order of the constructor and the ``repr``: the order of the class's
    annotations (one per slot)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # The classes deriving from Frozen directly are the final value classes; deriving from
        # one of those is refused, as for a PyO3 class without ``subclass``.
        for base in cls.__bases__:
            if base is not Frozen and issubclass(base, Frozen):
                raise TypeError(f"type '{base.__name__}' is not an acceptable base type")
        super().__init_subclass__(**kwargs)
        cls._fields = tuple(inspect.get_annotations(cls))
        assert set(cls._fields) == set(cls.__slots__), f"{cls.__name__}: a slot per annotation"

    def __setattr__(self, name: str, value: object) -> NoReturn:
        raise AttributeError(f"'{type(self).__name__}' object attribute '{name}' is read-only")

    def __delattr__(self, name: str) -> NoReturn:
        raise AttributeError(f"'{type(self).__name__}' object attribute '{name}' is read-only")

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields)
        return f"{type(self).__name__}({fields})"
