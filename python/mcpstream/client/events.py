"""What the server sends on its own: notifications, progress, and requests to the client
(elicitation, sampling), as typed objects given to the callbacks and handlers of a client."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from ._fields import dict_or_empty, number_or_none, optional_strs, str_or_none

__all__ = [
    "ElicitationRequest",
    "ElicitationResponse",
    "Notification",
    "Progress",
    "SamplingRequest",
    "SamplingResponse",
]


@dataclass(frozen=True, slots=True)
class Notification:
    """A notification from the server (``notifications/message``,
    ``notifications/tools/list_changed``, ...), with its ``params`` as sent."""

    method: str
    params: Any = None


@dataclass(frozen=True, slots=True)
class Progress:
    """One ``notifications/progress`` of a call: ``progress`` so far, out of ``total`` when the
    server knows it, with an optional human-readable ``message``."""

    progress: float
    total: float | None = None
    message: str | None = None

    @classmethod
    def from_params(cls, params: Any) -> Progress | None:
        """Parse the params of ``notifications/progress`` (None when they are unusable)."""
        if not isinstance(params, dict):
            return None
        progress = number_or_none(params.get("progress"))
        if progress is None:
            return None
        return cls(
            progress=progress,
            total=number_or_none(params.get("total")),
            message=str_or_none(params.get("message")),
        )

    @property
    def fraction(self) -> float | None:
        """``progress / total`` when the total is known and positive."""
        if self.total is None or self.total <= 0:
            return None
        return self.progress / self.total


@dataclass(frozen=True, slots=True)
class ElicitationRequest:
    """The server asks the user for input (``elicitation/create``).

    ``mode`` is ``"form"`` (answer with ``content`` matching ``requested_schema``) or ``"url"``
    (the user is to open ``url``; answer ``accept`` once they agreed to).
    """

    message: str
    mode: str = "form"
    requested_schema: dict[str, Any] = field(default_factory=dict)
    url: str | None = None
    elicitation_id: str | None = None
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_params(cls, params: Any) -> ElicitationRequest:
        """Parse the params of ``elicitation/create``."""
        item = dict_or_empty(params)
        return cls(
            message=str_or_none(item.get("message")) or "",
            mode=str_or_none(item.get("mode")) or "form",
            requested_schema=dict_or_empty(item.get("requestedSchema")),
            raw=item,
            **optional_strs(item, "url", "elicitationId"),
        )


@dataclass(frozen=True, slots=True)
class ElicitationResponse:
    """The user's answer to an elicitation: ``accept`` (with ``content`` for a form),
    ``decline`` or ``cancel``."""

    action: Literal["accept", "decline", "cancel"]
    content: dict[str, Any] | None = None

    def to_result(self) -> dict[str, Any]:
        """The JSON-RPC result sent back to the server."""
        result: dict[str, Any] = {"action": self.action}
        if self.action == "accept" and self.content is not None:
            result["content"] = self.content
        return result


@dataclass(frozen=True, slots=True)
class SamplingRequest:
    """The server asks the client's model for a completion (``sampling/createMessage``)."""

    messages: tuple[dict[str, Any], ...]
    max_tokens: int | None = None
    system_prompt: str | None = None
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_params(cls, params: Any) -> SamplingRequest:
        """Parse the params of ``sampling/createMessage``."""
        item = dict_or_empty(params)
        messages = item.get("messages")
        max_tokens = item.get("maxTokens")
        return cls(
            messages=tuple(m for m in (messages or []) if isinstance(m, dict)),
            max_tokens=max_tokens if isinstance(max_tokens, int) else None,
            system_prompt=str_or_none(item.get("systemPrompt")),
            raw=item,
        )


@dataclass(frozen=True, slots=True)
class SamplingResponse:
    """A text completion to answer ``sampling/createMessage`` with."""

    text: str
    model: str
    stop_reason: str | None = "endTurn"

    def to_result(self) -> dict[str, Any]:
        """The JSON-RPC result sent back to the server."""
        result: dict[str, Any] = {
            "role": "assistant",
            "content": {"type": "text", "text": self.text},
            "model": self.model,
        }
        if self.stop_reason is not None:
            result["stopReason"] = self.stop_reason
        return result
