"""The content codings mcpstream asks servers for: one rule for the transports and OAuth.

Only the codings that ``bodies.BodyDecoder`` undoes a bounded piece at a time are asked for, so
every body's byte budget is counted after decompression; httpx would add ``br`` and ``zstd``
when their packages are installed. This module imports nothing, so the I/O-free core, the
decompressor and the OAuth drivers can all take the constant from here.
"""

from __future__ import annotations

__all__ = ["ACCEPT_ENCODING"]

ACCEPT_ENCODING = "gzip, deflate"
"""The ``Accept-Encoding`` of every request mcpstream makes."""
