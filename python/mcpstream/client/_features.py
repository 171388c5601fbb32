"""The messages of completion, logging and resource subscriptions, without I/O: the params of
``completion/complete``, the log level checked and stamped into a request's ``_meta`` (the
2026-07-28 opt-in), and the set of resources a client subscribed to."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .features import LOG_LEVELS, CompletionReference, LogLevel

__all__ = [
    "LOG_LEVEL_META_KEY",
    "ResourceSubscriptions",
    "check_log_level",
    "completion_params",
    "with_log_level",
]

LOG_LEVEL_META_KEY = "io.modelcontextprotocol/logLevel"
"""The ``_meta`` key of a 2026-07-28 request that opts in to the server's log messages at that
level and above (``logging/setLevel`` is gone there)."""


_REFERENCE_KEYS = {"ref/prompt": "name", "ref/resource": "uri"}
"""The field that names what each kind of reference refers to."""


def _reference(ref: CompletionReference) -> dict[str, Any]:
    to_dict = getattr(ref, "to_dict", None)
    if callable(to_dict):
        reference: dict[str, Any] = to_dict()
        return reference
    if isinstance(ref, Mapping):
        key = _REFERENCE_KEYS.get(str(ref.get("type")))
        if key is not None and isinstance(ref.get(key), str):
            return dict(ref)
    raise ValueError(
        "ref must be a PromptReference, a ResourceTemplateReference, or their dict form "
        '({"type": "ref/prompt", "name": ...} or {"type": "ref/resource", "uri": ...})'
    )


def completion_params(
    ref: CompletionReference,
    argument: Mapping[str, str],
    context_arguments: Mapping[str, str] | None,
) -> dict[str, Any]:
    """The params of ``completion/complete``: ``argument`` is ``{"name": ..., "value": ...}``
    (the argument and what the user typed so far), ``context_arguments`` the values of the
    other arguments already chosen."""
    name, value = argument.get("name"), argument.get("value")
    if not isinstance(name, str) or not isinstance(value, str):
        raise ValueError('argument must be {"name": <argument name>, "value": <text so far>}')
    params: dict[str, Any] = {"ref": _reference(ref), "argument": {"name": name, "value": value}}
    if context_arguments:
        params["context"] = {"arguments": dict(context_arguments)}
    return params


def check_log_level(level: str) -> LogLevel:
    """``level`` when it is an MCP log level; ``ValueError`` otherwise."""
    for known in LOG_LEVELS:
        if level == known:
            return known
    raise ValueError(f"level must be one of {', '.join(LOG_LEVELS)}, not {level!r}")


def with_log_level(params: Any, level: LogLevel) -> Any:
    """``params`` (an object or None) with the log level opt-in in ``_meta``; a level the host
    put there itself is kept. Params that are not an object are left as they are."""
    if params is not None and not isinstance(params, Mapping):
        return params
    stamped = dict(params or {})
    meta = stamped.get("_meta")
    meta = dict(meta) if isinstance(meta, Mapping) else {}
    meta.setdefault(LOG_LEVEL_META_KEY, level)
    stamped["_meta"] = meta
    return stamped


class ResourceSubscriptions:
    """The URIs a client subscribed to, in the order of subscription (each once)."""

    def __init__(self) -> None:
        self._uris: dict[str, None] = {}

    @property
    def uris(self) -> tuple[str, ...]:
        """The subscribed URIs."""
        return tuple(self._uris)

    def add(self, uri: str) -> bool:
        """Subscribe to ``uri``; False when it already was."""
        if uri in self._uris:
            return False
        self._uris[uri] = None
        return True

    def discard(self, uri: str) -> bool:
        """Unsubscribe from ``uri``; False when it was not subscribed."""
        if uri not in self._uris:
            return False
        del self._uris[uri]
        return True

    def clear(self) -> None:
        """Forget every subscription (the server lost the session that held them)."""
        self._uris.clear()
