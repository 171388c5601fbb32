"""``BodyBuffer`` in pure Python: the twin of the native ``pybody`` module (a response body
received into one buffer). The native one fills the ``bytes`` object it hands on; this one fills
a ``bytearray`` and copies it out once, at ``take``. The contract is in
``mcpstream/_native.pyi``."""

from __future__ import annotations

import operator
from typing import final

__all__ = ["BodyBuffer"]


@final
class BodyBuffer:
    """One body, received into one buffer. See ``mcpstream/_native.pyi``."""

    __slots__ = ("_data", "_filled", "_taken", "_window")

    def __init__(self, capacity: int) -> None:
        capacity = _size(capacity)
        self._data = bytearray(capacity)
        self._filled = 0
        self._window = 0
        self._taken = False

    def __init_subclass__(cls) -> None:
        raise TypeError("type 'BodyBuffer' is not an acceptable base type")

    def __len__(self) -> int:
        return self._filled

    def renew(self, capacity: int) -> None:
        """Start a new body in this buffer, with room for ``capacity`` bytes (new storage: the
        body taken was a copy)."""
        capacity = _size(capacity)
        try:
            del self._data[:]  # refused while a view is exported, as the native buffer refuses
        except BufferError:
            raise BufferError(
                "the buffer cannot be renewed while a view of it is exported"
            ) from None
        self._data = bytearray(capacity)
        self._filled = 0
        self._window = 0
        self._taken = False

    def _check_open(self) -> None:
        if self._taken:
            raise ValueError("the body was taken from this buffer")

    def reserve(self, additional: int) -> None:
        """Make room for ``additional`` more bytes (not while a view is exported)."""
        self._check_open()
        needed = self._filled + _size(additional)
        capacity = len(self._data)
        if needed > capacity:
            # at least double, as the native buffer grows; a bytearray with a view exported
            # refuses to grow (BufferError), as the native buffer does
            self._data.extend(bytes(max(needed, 2 * capacity) - capacity))

    def extend(self, data: bytes) -> None:
        """Copy ``data`` in after the bytes received (growing as needed)."""
        self._check_open()
        size = len(data)
        self.reserve(size)
        self._data[self._filled : self._filled + size] = data
        self._filled += size
        self._window = max(self._window - size, 0)

    def open(self, size: int) -> int:
        """Let the next views cover the ``size`` bytes after those received; returns
        ``size``."""
        self._check_open()
        size = _size(size)
        self.reserve(size)
        self._window = size
        return size

    def view(self) -> memoryview:
        """A writable ``memoryview`` of the ``window`` bytes after those received."""
        if self._taken:
            raise BufferError("the body was taken from this buffer")
        return memoryview(self._data)[self._filled : self._filled + self._window]

    @property
    def window(self) -> int:
        """The bytes the views still cover."""
        return self._window

    def advance(self, count: int) -> None:
        """``count`` bytes arrived in the view last exported (after those received)."""
        self._check_open()
        count = _size(count)
        if count > self._window:
            raise ValueError(f"advance({count}) passes the {self._window} bytes of the view")
        self._filled += count
        self._window -= count

    def take(self) -> bytes:
        """The body: the bytes received. The buffer can be used no more."""
        self._check_open()
        self._taken = True
        self._window = 0
        return bytes(memoryview(self._data)[: self._filled])


def _size(value: int) -> int:
    size = operator.index(value)
    if size < 0:
        raise OverflowError("can't convert negative int to unsigned")
    return size
