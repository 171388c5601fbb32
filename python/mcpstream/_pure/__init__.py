"""The pure-Python backend of the hot path: the same names, results and errors as the native one.

``mcpstream.codec`` uses it when the Rust extension (``mcpstream._native``) is not installed, or
when ``MCPSTREAM_BACKEND=python`` asks for it. The contract of every name is written in
``mcpstream/_native.pyi``.
"""

from __future__ import annotations

# Each module's ``__all__`` is its share of the contract, so the package re-exports exactly the
# contract's names and lists none of them again.
from . import body, http1, jsonrpc, sse, utf8
from .body import *  # noqa: F403
from .http1 import *  # noqa: F403
from .jsonrpc import *  # noqa: F403
from .sse import *  # noqa: F403
from .utf8 import *  # noqa: F403

__all__ = [*body.__all__, *http1.__all__, *jsonrpc.__all__, *sse.__all__, *utf8.__all__]
