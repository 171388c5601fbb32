"""Content items of tool results, prompt messages and resources, as typed objects.

Every item keeps the server's dict in ``raw``, so fields this module does not model (``_meta``,
``annotations``, fields of later protocol revisions) stay available. An item of a type this
module does not know becomes an ``UnknownContent``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..errors import McpProtocolError
from ._drafts import draft_type
from ._fields import optional_strs, str_or_none

__all__ = [
    "AudioContent",
    "Content",
    "EmbeddedResource",
    "ImageContent",
    "ResourceContents",
    "ResourceLink",
    "TextContent",
    "UnknownContent",
    "parse_content",
    "parse_read_resource",
    "parse_resource_contents",
]


@dataclass(frozen=True, slots=True)
class ResourceContents:
    """The contents of one resource: ``text`` for a text resource, ``blob`` (base64) for a
    binary one."""

    uri: str
    mime_type: str | None = None
    text: str | None = None
    blob: str | None = None
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


@dataclass(frozen=True, slots=True)
class TextContent:
    """A text item (``type: "text"``)."""

    text: str
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    type: str = "text"


@dataclass(frozen=True, slots=True)
class _MediaContent:
    """What an image and an audio item hold: base64 ``data`` of the given ``mime_type``."""

    data: str
    mime_type: str
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    type: str = ""


@dataclass(frozen=True, slots=True)
class ImageContent(_MediaContent):
    """An image (``type: "image"``): base64 ``data`` of the given ``mime_type``."""

    type: str = "image"


@dataclass(frozen=True, slots=True)
class AudioContent(_MediaContent):
    """Audio (``type: "audio"``): base64 ``data`` of the given ``mime_type``."""

    type: str = "audio"


@dataclass(frozen=True, slots=True)
class ResourceLink:
    """A link to a resource the client may read (``type: "resource_link"``)."""

    uri: str
    name: str | None = None
    description: str | None = None
    mime_type: str | None = None
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    type: str = "resource_link"


@dataclass(frozen=True, slots=True)
class EmbeddedResource:
    """A resource embedded in the result (``type: "resource"``)."""

    resource: ResourceContents
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    type: str = "resource"


@dataclass(frozen=True, slots=True)
class UnknownContent:
    """An item of a ``type`` this version of mcpstream does not model; see ``raw``."""

    type: str
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


Content = (
    TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource | UnknownContent
)
"""Any content item."""


def parse_resource_contents(item: Any) -> ResourceContents:
    """One entry of ``contents`` (``resources/read``) or an embedded resource."""
    if not isinstance(item, dict) or not isinstance(item.get("uri"), str):
        raise McpProtocolError("the server sent resource contents without a 'uri'")
    return ResourceContents(
        uri=item["uri"],
        raw=item,
        **optional_strs(item, "mimeType", "text", "blob"),
    )


_TextDraft = draft_type(TextContent)


def parse_content(item: Any) -> Content:
    """One content item of a tool result or a prompt message."""
    if not isinstance(item, dict):
        raise McpProtocolError("the server sent a content item that is not an object")
    kind = item.get("type")
    if kind == "text" and isinstance(item.get("text"), str):
        made = _TextDraft()  # (``draft_type``: a ``TextContent`` made for less)
        made.text, made.raw, made.type = item["text"], item, "text"
        made.__class__ = TextContent
        text: TextContent = made
        return text
    if kind in ("image", "audio") and isinstance(item.get("data"), str):
        cls = ImageContent if kind == "image" else AudioContent
        return cls(data=item["data"], mime_type=str_or_none(item.get("mimeType")) or "", raw=item)
    if kind == "resource_link" and isinstance(item.get("uri"), str):
        return ResourceLink(
            uri=item["uri"],
            raw=item,
            **optional_strs(item, "name", "description", "mimeType"),
        )
    if kind == "resource" and isinstance(item.get("resource"), dict):
        return EmbeddedResource(resource=parse_resource_contents(item["resource"]), raw=item)
    return UnknownContent(type=str(kind), raw=item)


def parse_read_resource(result: Any) -> tuple[ResourceContents, ...]:
    """Parse the ``resources/read`` result."""
    if not isinstance(result, dict) or not isinstance(result.get("contents"), list):
        raise McpProtocolError("the server sent a resource without a 'contents' list")
    return tuple(parse_resource_contents(item) for item in result["contents"])
