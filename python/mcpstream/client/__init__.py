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

from typing import TYPE_CHECKING

from .._client_names import CLIENT_NAMES as _NAMES
from ._messages import (
    LATEST_PROTOCOL_VERSION as LATEST_PROTOCOL_VERSION,
)
from ._messages import (
    SUPPORTED_PROTOCOL_VERSIONS as SUPPORTED_PROTOCOL_VERSIONS,
)
from ._settings import (
    DEFAULT_CONNECT_TIMEOUT_S as DEFAULT_CONNECT_TIMEOUT_S,
)
from ._settings import (
    DEFAULT_REQUEST_TIMEOUT_S as DEFAULT_REQUEST_TIMEOUT_S,
)
from ._settings import (
    DEFAULT_TOOL_TIMEOUT_S as DEFAULT_TOOL_TIMEOUT_S,
)
from .aio import AsyncClient as AsyncClient
from .content import (
    AudioContent as AudioContent,
)
from .content import (
    Content as Content,
)
from .content import (
    EmbeddedResource as EmbeddedResource,
)
from .content import (
    ImageContent as ImageContent,
)
from .content import (
    ResourceContents as ResourceContents,
)
from .content import (
    ResourceLink as ResourceLink,
)
from .content import (
    TextContent as TextContent,
)
from .content import (
    UnknownContent as UnknownContent,
)
from .events import (
    ElicitationRequest as ElicitationRequest,
)
from .events import (
    ElicitationResponse as ElicitationResponse,
)
from .events import (
    Notification as Notification,
)
from .events import (
    Progress as Progress,
)
from .events import (
    SamplingRequest as SamplingRequest,
)
from .events import (
    SamplingResponse as SamplingResponse,
)
from .features import (
    Completion as Completion,
)
from .features import (
    LogMessage as LogMessage,
)
from .features import (
    PromptReference as PromptReference,
)
from .features import (
    ResourceTemplateReference as ResourceTemplateReference,
)
from .features import (
    ResourceUpdated as ResourceUpdated,
)
from .results import (
    Prompt as Prompt,
)
from .results import (
    PromptArgument as PromptArgument,
)
from .results import (
    PromptMessage as PromptMessage,
)
from .results import (
    PromptResult as PromptResult,
)
from .results import (
    Resource as Resource,
)
from .results import (
    ResourceTemplate as ResourceTemplate,
)
from .results import (
    ServerInfo as ServerInfo,
)
from .results import (
    Task as Task,
)
from .results import (
    Tool as Tool,
)
from .results import (
    ToolResult as ToolResult,
)
from .skills import Skill as Skill
from .skills import SkillFile as SkillFile
from .skills import SkillFileContent as SkillFileContent
from .sync import Client as Client
from .tasks import AsyncTaskHandle as AsyncTaskHandle
from .tasks import TaskHandle as TaskHandle

# The names are listed once, in ``mcpstream._client_names`` (the package serves them lazily).
# Type checkers read the ``name as name`` imports above instead: they take a computed
# ``__all__`` for an empty one, which would hide every name.
if not TYPE_CHECKING:
    __all__ = list(_NAMES)
