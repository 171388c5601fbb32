"""The high-level MCP client, sync (``Client``) and asyncio (``AsyncClient``).

Both connect to one server over Streamable HTTP, or the deprecated HTTP+SSE transport (the
transports of ``mcpstream.transport_http`` underneath), negotiate the protocol (2026-07-28
first, else the ``initialize`` handshake of 2025-11-25 down to 2024-11-05), and offer the MCP
methods with typed results:
``list_tools``, ``call_tool`` (with progress), ``list_resources``, ``read_resource``,
``list_prompts``, ``get_prompt``, ``ping``, and the skills extension (``list_skills``,
``get_skill``, ``read_skill``: every file verified, see ``mcpstream.client.skills``),
``complete``, ``set_logging_level`` (log messages at ``logging_handler``),
``subscribe_resource`` / ``unsubscribe_resource`` (updates at ``on_resource_updated``),
``send_roots_list_changed``, and tasks (``call_tool(..., as_task=True)``, ``get_task``,
``list_tasks``: see ``mcpstream.client.tasks``), in both eras. See ``Client`` for the details.
"""

from __future__ import annotations

from ._messages import LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS
from ._settings import DEFAULT_CONNECT_TIMEOUT_S, DEFAULT_REQUEST_TIMEOUT_S, DEFAULT_TOOL_TIMEOUT_S
from .aio import AsyncClient
from .content import (
    AudioContent,
    Content,
    EmbeddedResource,
    ImageContent,
    ResourceContents,
    ResourceLink,
    TextContent,
    UnknownContent,
)
from .events import (
    ElicitationRequest,
    ElicitationResponse,
    Notification,
    Progress,
    SamplingRequest,
    SamplingResponse,
)
from .features import (
    Completion,
    LogMessage,
    PromptReference,
    ResourceTemplateReference,
    ResourceUpdated,
)
from .results import (
    Prompt,
    PromptArgument,
    PromptMessage,
    PromptResult,
    Resource,
    ResourceTemplate,
    ServerInfo,
    Task,
    Tool,
    ToolResult,
)
from .skills import Skill, SkillFile, SkillFileContent
from .sync import Client
from .tasks import AsyncTaskHandle, TaskHandle

__all__ = [
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
]
