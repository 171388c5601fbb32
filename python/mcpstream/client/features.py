"""The typed values of the client's completion, logging and resource-subscription methods:
the references ``complete`` takes and the ``Completion`` it returns, the ``LogMessage`` given to
a ``logging_handler`` and the ``ResourceUpdated`` given to ``on_resource_updated``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ..errors import McpProtocolError
from ._fields import dict_or_empty, int_or_none, str_or_none

__all__ = [
    "LOG_LEVELS",
    "Completion",
    "LogLevel",
    "LogMessage",
    "PromptReference",
    "ResourceTemplateReference",
    "ResourceUpdated",
]

LogLevel = Literal["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]
"""The MCP log levels (those of syslog, RFC 5424)."""
LOG_LEVELS: tuple[LogLevel, ...] = (
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
)
"""The MCP log levels, least severe first."""


@dataclass(frozen=True, slots=True)
class PromptReference:
    """What ``complete`` completes an argument of: the prompt ``name``
    (``{"type": "ref/prompt", "name": ...}`` on the wire)."""

    name: str

    def to_dict(self) -> dict[str, str]:
        """The reference as sent."""
        return {"type": "ref/prompt", "name": self.name}


@dataclass(frozen=True, slots=True)
class ResourceTemplateReference:
    """What ``complete`` completes an argument of: the resource template ``uri``
    (``{"type": "ref/resource", "uri": ...}`` on the wire)."""

    uri: str

    def to_dict(self) -> dict[str, str]:
        """The reference as sent."""
        return {"type": "ref/resource", "uri": self.uri}


CompletionReference = PromptReference | ResourceTemplateReference | Mapping[str, Any]
"""A reference for ``complete``: one of ours, or its dict form as sent."""


@dataclass(frozen=True, slots=True)
class Completion:
    """The server's answer to ``completion/complete``: the suggested ``values`` (at most 100),
    the ``total`` number of matches when it knows it, and whether there are more than these
    (``has_more``)."""

    values: tuple[str, ...]
    total: int | None = None
    has_more: bool = False
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_dict(cls, result: Any) -> Completion:
        """Parse a ``completion/complete`` result; ``McpProtocolError`` without its list of
        string values."""
        completion = dict_or_empty(dict_or_empty(result).get("completion"))
        values = completion.get("values")
        if not isinstance(values, list) or not all(isinstance(value, str) for value in values):
            raise McpProtocolError("the server sent a completion without a list of string values")
        return cls(
            values=tuple(values),
            total=int_or_none(completion.get("total")),
            has_more=completion.get("hasMore") is True,
            raw=completion,
        )


@dataclass(frozen=True, slots=True)
class LogMessage:
    """One ``notifications/message`` of the server: its ``level``, the ``logger`` that wrote it
    (when the server names one) and its ``data`` (any JSON value: a string, an object...)."""

    level: str
    data: Any = None
    logger: str | None = None

    @classmethod
    def from_params(cls, params: Any) -> LogMessage | None:
        """Parse the params of ``notifications/message`` (None when they have no level)."""
        item = dict_or_empty(params)
        level = str_or_none(item.get("level"))
        if level is None:
            return None
        return cls(level=level, data=item.get("data"), logger=str_or_none(item.get("logger")))


@dataclass(frozen=True, slots=True)
class ResourceUpdated:
    """One ``notifications/resources/updated`` of the server: the resource at ``uri`` (one
    subscribed to, or a part of one) changed; read it again to see how."""

    uri: str

    @classmethod
    def from_params(cls, params: Any) -> ResourceUpdated | None:
        """Parse the params of ``notifications/resources/updated`` (None without a URI)."""
        uri = str_or_none(dict_or_empty(params).get("uri"))
        return cls(uri) if uri is not None else None
