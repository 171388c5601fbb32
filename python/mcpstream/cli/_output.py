"""Output helpers of the client subcommands: JSON for scripts, rich for people.

Every string a server controls (names, descriptions, results, messages) is shown through
:func:`plain` (printed as it is) or :func:`markup_safe` (inside rich markup): terminal escape
sequences are removed and control characters escaped (:func:`mcpstream._text.terminal_text`),
and rich markup is escaped, so a tool named ``[/]`` prints as ``[/]``."""

from __future__ import annotations

import json
import sys
from typing import Any

from rich.console import Console
from rich.markup import escape

from .._text import terminal_text
from ..client import (
    AudioContent,
    Content,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    ServerInfo,
    TextContent,
)

__all__ = [
    "content_text",
    "err_console",
    "markup_safe",
    "one_line",
    "out_console",
    "plain",
    "print_json",
    "server_json",
    "server_label",
]


def out_console() -> Console:
    """A console on stdout (plain text when stdout is not a terminal)."""
    return Console(file=sys.stdout, highlight=False, soft_wrap=False)


def err_console() -> Console:
    """A console on stderr, for progress bars."""
    return Console(file=sys.stderr, highlight=False)


def plain(text: str) -> str:
    """Server text fit to print on a terminal: no escape sequences, control characters
    escaped (newlines and tabs kept)."""
    return terminal_text(text)


def markup_safe(text: str) -> str:
    """Server text fit to put inside rich markup: :func:`plain`, with the markup escaped."""
    return escape(terminal_text(text))


def print_json(value: Any) -> None:
    """Print ``value`` as indented JSON on stdout."""
    json.dump(value, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")


def one_line(text: str, limit: int = 300) -> str:
    """``text`` with its whitespace runs collapsed to single spaces, cut at ``limit``."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "\u2026"


def server_label(info: ServerInfo) -> str:
    """``name version`` of the server."""
    return " ".join(part for part in (info.name or "(unnamed server)", info.version) if part)


def server_json(info: ServerInfo) -> dict[str, Any]:
    """The server's identity for JSON output."""
    return {
        "name": info.name,
        "version": info.version,
        "protocolVersion": info.protocol_version,
        "era": info.era,
        "transport": info.transport,
        "capabilities": info.capabilities,
    }


def content_text(item: Content) -> str:
    """How one content item is shown to a person."""
    if isinstance(item, TextContent):
        return item.text
    if isinstance(item, ImageContent | AudioContent):
        kind = "image" if isinstance(item, ImageContent) else "audio"
        return f"[{kind} {item.mime_type or '?'}, {len(item.data) * 3 // 4} bytes]"
    if isinstance(item, ResourceLink):
        return f"[resource link {item.uri}]"
    if isinstance(item, EmbeddedResource):
        resource = item.resource
        if resource.text is not None:
            return resource.text
        return f"[resource {resource.uri}, {resource.mime_type or 'binary'}]"
    return f"[{item.type} content]"
