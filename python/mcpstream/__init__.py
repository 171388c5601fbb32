"""mcpstream: a fast, correct Model Context Protocol Streamable HTTP client transport.

The hot path (UTF-8, SSE and JSON-RPC framing) runs in Rust when the native extension is
installed, and in a pure-Python twin otherwise; see ``mcpstream.codec``.

``Client`` and ``AsyncClient`` are the high-level clients (``mcpstream.client``); the transports
for hosts are in ``mcpstream.transport_http``; the errors in ``mcpstream.errors``.

``import mcpstream`` itself loads only the version and the errors: the names of
``mcpstream.client`` below are imported at their first use (``mcpstream.Client``,
``from mcpstream import Client``), so a host pays for the client and its transports when it
uses them, and a command that only names mcpstream's errors never does. ``doctor()`` (what
mcpstream runs with: ``mcpstream doctor``) is imported at its first use too, and so is
``close_pools()`` (close the idle connections the sessions of mcpstream's own clients share).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._version import __version__
from .errors import McpError, McpStreamError

if TYPE_CHECKING:
    # For type checkers and the API reference (a star import re-exports mcpstream.client's
    # __all__); at run time __getattr__ below serves the names.
    from ._doctor import Diagnosis as Diagnosis
    from ._doctor import HttpStackDiagnosis as HttpStackDiagnosis
    from ._doctor import doctor as doctor
    from ._http.shared_pools import close_pools as close_pools
    from .client import *  # noqa: F403

_CLIENT_NAMES = (
    "DEFAULT_CONNECT_TIMEOUT_S",
    "DEFAULT_REQUEST_TIMEOUT_S",
    "DEFAULT_TOOL_TIMEOUT_S",
    "LATEST_PROTOCOL_VERSION",
    "SUPPORTED_PROTOCOL_VERSIONS",
    "AsyncClient",
    "AsyncTaskHandle",
    "AudioContent",
    "Client",
    "Completion",
    "Content",
    "ElicitationRequest",
    "ElicitationResponse",
    "EmbeddedResource",
    "ImageContent",
    "LogMessage",
    "Notification",
    "Progress",
    "Prompt",
    "PromptArgument",
    "PromptMessage",
    "PromptReference",
    "PromptResult",
    "Resource",
    "ResourceContents",
    "ResourceLink",
    "ResourceTemplate",
    "ResourceTemplateReference",
    "ResourceUpdated",
    "SamplingRequest",
    "SamplingResponse",
    "ServerInfo",
    "Skill",
    "SkillFile",
    "SkillFileContent",
    "Task",
    "TaskHandle",
    "TextContent",
    "Tool",
    "ToolResult",
    "UnknownContent",
)
"""``mcpstream.client.__all__`` (a test keeps the two equal), served from here lazily."""

_DOCTOR_NAMES = ("Diagnosis", "HttpStackDiagnosis", "doctor")
"""``mcpstream._doctor.__all__``, served from here lazily."""

_POOL_NAMES = ("close_pools",)
"""``close_pools`` of ``mcpstream._http.shared_pools`` (the connections the sessions of
mcpstream's own clients share), served from here lazily."""

__all__ = [
    "McpError",
    "McpStreamError",
    "__version__",
    *_CLIENT_NAMES,
    *_DOCTOR_NAMES,
    *_POOL_NAMES,
]


def __getattr__(name: str) -> Any:
    # PEP 562: the first use of a client name imports mcpstream.client (and with it the
    # transports); the name is then set here, so this runs once per name.
    if name in _CLIENT_NAMES:
        from . import client

        value = getattr(client, name)
        globals()[name] = value
        return value
    if name in _DOCTOR_NAMES:
        from . import _doctor

        value = getattr(_doctor, name)
        globals()[name] = value
        return value
    if name in _POOL_NAMES:
        from ._http import shared_pools

        value = getattr(shared_pools, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_CLIENT_NAMES, *_DOCTOR_NAMES, *_POOL_NAMES})
