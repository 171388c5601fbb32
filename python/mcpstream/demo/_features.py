"""The demo server's completion, logging, resource subscriptions and roots notifications, in
both eras (imports the ``mcp`` SDK: load it only through ``mcpstream.demo.server``).

* completion (``completion/complete``): the ``language`` and ``name`` arguments of the prompt
  ``greet`` (names in the language chosen, from the context), and the ``name`` of the
  templates ``demo://greeting/{name}`` and ``demo://note/{name}``;
* notes ``demo://note/{name}``, which the tool ``update_notes`` changes one after the other,
  sending ``notifications/resources/updated`` for each: at the handshake era to the sessions
  subscribed with ``resources/subscribe`` (on their GET stream), at 2026-07-28 on the
  subscription bus (to the ``subscriptions/listen`` streams whose filter has the note);
* the tool ``log_levels``, which logs one message at each of four levels on its call's stream:
  at the handshake era those at or above the session's ``logging/setLevel`` level (all without
  one), at 2026-07-28 those at or above the request's ``_meta`` level (the SDK filters);
* ``notifications/roots/list_changed``, counted per session (the tool ``roots_changes``).

The handshake era's per-session state is keyed by the session id (``Mcp-Session-Id``).
"""

from __future__ import annotations

import warnings
from typing import Any

from mcp.server.context import ServerRequestContext
from mcp.server.mcpserver import Context, MCPServer
from mcp_types import (
    CompleteRequestParams,
    CompleteResult,
    Completion,
    CompletionArgument,
    CompletionContext,
    EmptyResult,
    NotificationParams,
    PromptReference,
    ResourceTemplateReference,
    SetLevelRequestParams,
    SubscribeRequestParams,
    UnsubscribeRequestParams,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

__all__ = ["add_feature_demos"]

LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
LOGGED = ("debug", "info", "warning", "error")
"""The levels ``log_levels`` logs at, in this order."""
NAMES = {"en": ("Alice", "Albert", "Bob", "Carol"), "fr": ("Amélie", "Antoine", "Benoît")}
NOTE_NAMES = ("alpha", "beta", "gamma", "delta")


class _Sessions:
    """What the handshake era's sessions asked for, by session id."""

    def __init__(self) -> None:
        self.levels: dict[str | None, str] = {}
        self.subscriptions: dict[str | None, set[str]] = {}
        self.roots_changes: dict[str | None, int] = {}


def _session_id(ctx: ServerRequestContext[Any, Any]) -> str | None:
    request = ctx.request
    headers = getattr(request, "headers", None)
    return headers.get("mcp-session-id") if headers is not None else None


def _modern(ctx: ServerRequestContext[Any, Any]) -> bool:
    return ctx.protocol_version in MODERN_PROTOCOL_VERSIONS


def _matching(values: tuple[str, ...], prefix: str) -> Completion:
    found = [value for value in values if value.lower().startswith(prefix.lower())]
    return Completion(values=found, total=len(found), has_more=False)


def _complete(
    ref: PromptReference | ResourceTemplateReference,
    argument: CompletionArgument,
    context: CompletionContext | None,
) -> Completion | None:
    chosen = (context.arguments if context is not None else None) or {}
    if isinstance(ref, PromptReference) and ref.name == "greet":
        if argument.name == "language":
            return _matching(tuple(NAMES), argument.value)
        if argument.name == "name":
            return _matching(NAMES.get(chosen.get("language", "en"), ()), argument.value)
    if isinstance(ref, ResourceTemplateReference) and argument.name == "name":
        if ref.uri == "demo://greeting/{name}":
            return _matching(NAMES["en"], argument.value)
        if ref.uri == "demo://note/{name}":
            return _matching(NOTE_NAMES, argument.value)
    return None


def add_feature_demos(server: MCPServer) -> None:
    """Register the completion, logging, subscription and roots demos on ``server``."""
    sessions = _Sessions()
    notes: dict[str, int] = {}
    lowlevel = server._lowlevel_server

    @server.prompt()
    async def greet(name: str, language: str = "en") -> str:
        """Greet 'name' in 'language' (en or fr); both arguments complete."""
        return f"{'Bonjour' if language == 'fr' else 'Hello'}, {name}!"

    @server.resource("demo://note/{name}", name="note", mime_type="text/plain")
    async def note(name: str) -> str:
        """The note 'name': how many times update_notes changed it."""
        return f"note {name}: version {notes.get(name, 0)}"

    @server.tool()
    async def update_notes(names: list[str], ctx: Context) -> str:
        """Change the notes 'names' one after the other, announcing each update."""
        request = ctx.request_context
        subscribed = sessions.subscriptions.get(_session_id(request), set())
        for name in names:
            notes[name] = notes.get(name, 0) + 1
            uri = f"demo://note/{name}"
            if _modern(request):
                await ctx.notify_resource_updated(uri)
            elif uri in subscribed:
                await ctx.session.send_resource_updated(uri)
        return f"updated {len(names)} notes"

    @server.tool()
    async def log_levels(ctx: Context) -> str:
        """Log one message at debug, info, warning and error (logger 'demo')."""
        request = ctx.request_context
        floor = sessions.levels.get(_session_id(request), "debug")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for level in LOGGED:
                if _modern(request) or LEVELS.index(level) >= LEVELS.index(floor):
                    await ctx.log(level, {"message": f"a {level} message"}, logger_name="demo")  # type: ignore[arg-type]
        return "logged"

    @server.tool()
    async def roots_changes(ctx: Context) -> int:
        """How many notifications/roots/list_changed this session sent."""
        return sessions.roots_changes.get(_session_id(ctx.request_context), 0)

    async def set_level(
        ctx: ServerRequestContext[Any, Any], params: SetLevelRequestParams
    ) -> EmptyResult:
        sessions.levels[_session_id(ctx)] = params.level
        return EmptyResult()

    async def subscribe(
        ctx: ServerRequestContext[Any, Any], params: SubscribeRequestParams
    ) -> EmptyResult:
        sessions.subscriptions.setdefault(_session_id(ctx), set()).add(str(params.uri))
        return EmptyResult()

    async def unsubscribe(
        ctx: ServerRequestContext[Any, Any], params: UnsubscribeRequestParams
    ) -> EmptyResult:
        sessions.subscriptions.get(_session_id(ctx), set()).discard(str(params.uri))
        return EmptyResult()

    async def complete(
        ctx: ServerRequestContext[Any, Any], params: CompleteRequestParams
    ) -> CompleteResult:
        completion = _complete(params.ref, params.argument, params.context)
        return CompleteResult(completion=completion or Completion(values=[]))

    async def roots_changed(
        ctx: ServerRequestContext[Any, Any], params: NotificationParams
    ) -> None:
        key = _session_id(ctx)
        sessions.roots_changes[key] = sessions.roots_changes.get(key, 0) + 1

    lowlevel.add_request_handler("completion/complete", CompleteRequestParams, complete)
    lowlevel.add_request_handler("logging/setLevel", SetLevelRequestParams, set_level)
    lowlevel.add_request_handler("resources/subscribe", SubscribeRequestParams, subscribe)
    lowlevel.add_request_handler("resources/unsubscribe", UnsubscribeRequestParams, unsubscribe)
    lowlevel.add_notification_handler(
        "notifications/roots/list_changed", NotificationParams, roots_changed
    )
