"""mcpstream: a fast, correct Model Context Protocol Streamable HTTP client transport.

The hot path (UTF-8, SSE and JSON-RPC framing) runs in Rust when the native extension is
installed, and in a pure-Python twin otherwise; see ``mcpstream.codec``.

``Client`` and ``AsyncClient`` are the high-level clients (``mcpstream.client``); the transports
for hosts are in ``mcpstream.transport_http``; the errors in ``mcpstream.errors``.
"""

from __future__ import annotations

__version__ = "0.1.0"

# The version is set before these imports: the transports read it for their User-Agent.
from .client import (
    AsyncClient,
    AudioContent,
    Client,
    Content,
    ElicitationRequest,
    ElicitationResponse,
    EmbeddedResource,
    ImageContent,
    Notification,
    Progress,
    Prompt,
    PromptArgument,
    PromptMessage,
    PromptResult,
    Resource,
    ResourceContents,
    ResourceLink,
    ResourceTemplate,
    SamplingRequest,
    SamplingResponse,
    ServerInfo,
    TextContent,
    Tool,
    ToolResult,
    UnknownContent,
)
from .errors import McpError

__all__ = [
    "AsyncClient",
    "AudioContent",
    "Client",
    "Content",
    "ElicitationRequest",
    "ElicitationResponse",
    "EmbeddedResource",
    "ImageContent",
    "McpError",
    "Notification",
    "Progress",
    "Prompt",
    "PromptArgument",
    "PromptMessage",
    "PromptResult",
    "Resource",
    "ResourceContents",
    "ResourceLink",
    "ResourceTemplate",
    "SamplingRequest",
    "SamplingResponse",
    "ServerInfo",
    "TextContent",
    "Tool",
    "ToolResult",
    "UnknownContent",
    "__version__",
]
