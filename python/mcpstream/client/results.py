"""What the client returns: the server's answers as typed, frozen dataclasses.

Each keeps the server's dict in ``raw`` (fields this module does not model stay available), and
each is built by a ``from_dict`` that checks the fields the client relies on and raises
``McpProtocolError`` when the server broke the schema there.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..errors import McpProtocolError
from ._drafts import draft_type
from ._fields import (
    dict_or_empty,
    dict_or_none,
    int_or_none,
    optional_strs,
    required_str,
    str_or_none,
)
from .content import Content, TextContent, parse_content

__all__ = [
    "Prompt",
    "PromptArgument",
    "PromptMessage",
    "PromptResult",
    "Resource",
    "ResourceTemplate",
    "ServerInfo",
    "Task",
    "Tool",
    "ToolResult",
]


@dataclass(frozen=True, slots=True)
class ServerInfo:
    """The server's answer to ``initialize``: who it is, the protocol version agreed on, what it
    can do (``capabilities``, as sent) and its ``instructions`` for the model, if any."""

    protocol_version: str
    name: str
    version: str
    capabilities: dict[str, Any]
    instructions: str | None = None
    title: str | None = None
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    era: str = "legacy"
    """``"modern"`` (2026-07-28, from ``server/discover``) or ``"legacy"`` (``initialize``)."""
    transport: str = "streamable-http"
    """How the client reaches the server: ``"streamable-http"``, or ``"http+sse"`` for the
    deprecated HTTP+SSE transport of 2024-11-05 (the handshake era; see docs/http-sse.md)."""

    @property
    def era_label(self) -> str:
        """The era as the command shows it: ``"modern era"``, ``"legacy era"``, or
        ``"legacy HTTP+SSE"`` over the HTTP+SSE transport."""
        return "legacy HTTP+SSE" if self.transport == "http+sse" else f"{self.era} era"

    @classmethod
    def from_dict(
        cls, result: Any, *, version: str | None = None, era: str = "legacy"
    ) -> ServerInfo:
        """Parse the ``initialize`` result (or, with the ``version`` spoken and the ``era``,
        a ``server/discover`` one)."""
        if version is None:
            version = required_str(result, "protocolVersion", "an initialize result")
        info = dict_or_empty(result.get("serverInfo"))
        if not info:  # 2026-07-28: in the result's _meta
            meta = dict_or_empty(result.get("_meta"))
            info = dict_or_empty(meta.get("io.modelcontextprotocol/serverInfo"))
        return cls(
            protocol_version=version,
            name=str_or_none(info.get("name")) or "",
            version=str_or_none(info.get("version")) or "",
            capabilities=dict_or_empty(result.get("capabilities")),
            instructions=str_or_none(result.get("instructions")),
            title=str_or_none(info.get("title")),
            raw=result,
            era=era,
        )

    def supports(self, capability: str) -> bool:
        """True when the server announced ``capability`` (``"tools"``, ``"resources"``, ...)."""
        return capability in self.capabilities

    def supports_extension(self, extension: str) -> bool:
        """True when the server declared ``extension`` under ``capabilities.extensions``
        (``"io.modelcontextprotocol/skills"``, ...)."""
        extensions = self.capabilities.get("extensions")
        return isinstance(extensions, dict) and extension in extensions


@dataclass(frozen=True, slots=True)
class Tool:
    """A tool the server offers: its ``name``, ``description`` and JSON Schemas (as sent,
    untouched, whatever their dialect)."""

    name: str
    description: str | None = None
    input_schema: dict[str, Any] = field(default_factory=dict)
    output_schema: dict[str, Any] | None = None
    title: str | None = None
    annotations: dict[str, Any] | None = None
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_dict(cls, item: Any) -> Tool:
        """Parse one entry of ``tools/list``."""
        name = required_str(item, "name", "a tool")
        return cls(
            name=name,
            input_schema=dict_or_empty(item.get("inputSchema")),
            output_schema=dict_or_none(item.get("outputSchema")),
            annotations=dict_or_none(item.get("annotations")),
            raw=item,
            **optional_strs(item, "description", "title"),
        )


@dataclass(frozen=True, slots=True)
class ToolResult:
    """The result of ``tools/call``. ``is_error`` is the tool's own failure (the call itself
    worked; the content says what went wrong); ``structured_content`` is the result's
    ``structuredContent`` (the name the SDK's ``CallToolResult`` uses; ``structured`` is the
    same value, the name of earlier releases)."""

    content: tuple[Content, ...]
    is_error: bool = False
    structured_content: Any = None
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_dict(cls, result: Any) -> ToolResult:
        """Parse the ``tools/call`` result."""
        items = result.get("content", []) if isinstance(result, dict) else None
        if not isinstance(items, list):
            raise McpProtocolError("the server sent a tool result without a 'content' list")
        content = tuple(map(parse_content, items))
        if cls is not ToolResult:  # a subclass: its own ``__init__``
            return cls(
                content, result.get("isError") is True, result.get("structuredContent"), result
            )
        made = _ToolResultDraft()  # (``draft_type``: a ``ToolResult`` made for less)
        made.content, made.is_error = content, result.get("isError") is True
        made.structured_content, made.raw = result.get("structuredContent"), result
        made.__class__ = ToolResult
        result_made: ToolResult = made
        return result_made

    @property
    def structured(self) -> Any:
        """``structured_content`` under its earlier name (kept as an alias)."""
        return self.structured_content

    @property
    def text(self) -> str:
        """The text items joined by newlines (``""`` when there is none)."""
        content = self.content
        if len(content) == 1:  # (the most common result: no list made)
            item = content[0]
            return item.text if isinstance(item, TextContent) else ""
        return "\n".join([item.text for item in content if isinstance(item, TextContent)])


_ToolResultDraft = draft_type(ToolResult)


@dataclass(frozen=True, slots=True)
class Resource:
    """A resource the server offers (one entry of ``resources/list``)."""

    uri: str
    name: str
    description: str | None = None
    mime_type: str | None = None
    size: int | None = None
    title: str | None = None
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_dict(cls, item: Any) -> Resource:
        """Parse one entry of ``resources/list``."""
        uri = required_str(item, "uri", "a resource")
        return cls(
            uri=uri,
            name=str_or_none(item.get("name")) or uri,
            size=int_or_none(item.get("size")),
            raw=item,
            **optional_strs(item, "description", "mimeType", "title"),
        )


@dataclass(frozen=True, slots=True)
class ResourceTemplate:
    """A parametrized resource (one entry of ``resources/templates/list``)."""

    uri_template: str
    name: str
    description: str | None = None
    mime_type: str | None = None
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_dict(cls, item: Any) -> ResourceTemplate:
        """Parse one entry of ``resources/templates/list``."""
        template = required_str(item, "uriTemplate", "a resource template")
        return cls(
            uri_template=template,
            name=str_or_none(item.get("name")) or template,
            raw=item,
            **optional_strs(item, "description", "mimeType"),
        )


@dataclass(frozen=True, slots=True)
class PromptArgument:
    """One argument a prompt takes."""

    name: str
    description: str | None = None
    required: bool = False


@dataclass(frozen=True, slots=True)
class Prompt:
    """A prompt template the server offers (one entry of ``prompts/list``)."""

    name: str
    description: str | None = None
    arguments: tuple[PromptArgument, ...] = ()
    title: str | None = None
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_dict(cls, item: Any) -> Prompt:
        """Parse one entry of ``prompts/list``."""
        name = required_str(item, "name", "a prompt")
        arguments = item.get("arguments")
        return cls(
            name=name,
            arguments=tuple(
                PromptArgument(
                    name=required_str(argument, "name", "a prompt argument"),
                    description=str_or_none(argument.get("description")),
                    required=argument.get("required") is True,
                )
                for argument in (arguments if isinstance(arguments, list) else [])
            ),
            raw=item,
            **optional_strs(item, "description", "title"),
        )


@dataclass(frozen=True, slots=True)
class PromptMessage:
    """One message of a rendered prompt: ``role`` (``"user"`` or ``"assistant"``) and one
    content item."""

    role: str
    content: Content
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


@dataclass(frozen=True, slots=True)
class PromptResult:
    """The result of ``prompts/get``: the rendered messages."""

    messages: tuple[PromptMessage, ...]
    description: str | None = None
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_dict(cls, result: Any) -> PromptResult:
        """Parse the ``prompts/get`` result."""
        if not isinstance(result, dict) or not isinstance(result.get("messages"), list):
            raise McpProtocolError("the server sent a prompt without a 'messages' list")
        messages = tuple(
            PromptMessage(
                role=required_str(item, "role", "a prompt message"),
                content=parse_content(item.get("content")),
                raw=item,
            )
            for item in result["messages"]
        )
        return cls(
            messages=messages, description=str_or_none(result.get("description")), raw=result
        )


# -- tasks -----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Task:
    """What the server last said of a task (``tasks/get``, the answer that created it, a
    ``tasks/list`` entry), in either era: 2025-11-25 tasks or the 2026-07-28
    ``io.modelcontextprotocol/tasks`` extension. Built by ``mcpstream.client._tasks``, which
    checks every field it holds (a malformed one raises ``McpTaskProtocolError``).

    ``status`` is ``working``, ``input_required``, ``completed``, ``failed`` or ``cancelled``;
    ``ttl_s`` and ``poll_interval_s`` are in seconds as the server sent them (``ttl``/``ttlMs``,
    ``pollInterval``/``pollIntervalMs``; the client bounds the interval it polls at).
    ``result``, ``error`` and ``input_requests`` are the 2026-07-28 status payloads of a
    ``tasks/get`` (the final tool result, the JSON-RPC error, the server's requests by key);
    at 2025-11-25 the result is fetched with ``tasks/result`` instead."""

    task_id: str = field(repr=False)  # a server may make its task ids bearer tokens
    status: str
    status_message: str | None = None
    created_at: str | None = None
    last_updated_at: str | None = None
    ttl_s: float | None = None
    poll_interval_s: float | None = None
    result: dict[str, Any] | None = field(default=None, repr=False)
    error: dict[str, Any] | None = field(default=None, repr=False)
    input_requests: dict[str, dict[str, Any]] = field(default_factory=dict, repr=False)

    @property
    def terminal(self) -> bool:
        """True once the task is ``completed``, ``failed`` or ``cancelled`` (it ends there)."""
        return self.status in ("completed", "failed", "cancelled")
