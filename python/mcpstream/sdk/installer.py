"""``install()``: every use of the official SDK's Streamable HTTP client in the process runs over
mcpstream, the way ``uvloop.install()`` swaps the event loop policy.

Frameworks reach the SDK's ``mcp.client.streamable_http.streamable_http_client`` (and on the
1.x line its deprecated ``streamablehttp_client``) in three ways: some look it up on the SDK's
module at each call; many (FastMCP, Google ADK, LiteLLM, llama-index, langchain-mcp-adapters,
mcp-proxy, the SDK's own ``mcp.Client``) bind it into their own module with ``from ... import``
when they are imported; a few keep it in a module-level table (mcpadapt's ``TRANSPORTS``).
Replacing the SDK's module attribute alone misses the last two, so ``install()`` also rebinds
every module global in ``sys.modules`` that holds the SDK's function, and every value of a
module-level ``dict`` that does, found by identity (no list of framework names to keep up to
date). A module imported afterwards takes the rebound attribute from the SDK's module.
``uninstall()`` puts the SDK's function back everywhere the installed one is found, including
modules imported while it was in effect.

What the installed function is: a thin forwarder to mcpstream's function of the same name, of
its own identity (so ``uninstall()`` never touches a host's own explicit
``from mcpstream.sdk import streamable_http_client``), with that function's signature.
"""

from __future__ import annotations

import functools
import importlib.metadata
import inspect
import logging
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, NoReturn

import mcp.client.streamable_http as sdk_module
import mcp.shared._httpx_utils as sdk_httpx_utils

from .._httpbase.stack import HttpStack, stack_named
from ..errors import McpSdkUnsupportedError
from . import client
from .line import MAJOR
from .tls_share import sharing_factory, unwrap_stack, wrap_stack

__all__ = ["install", "installed", "uninstall"]

logger = logging.getLogger(__name__)

SDK_ATTRIBUTES = {
    2: ("streamable_http_client",),
    1: ("streamable_http_client", "streamablehttp_client"),
}
"""The names of the SDK's Streamable HTTP clients in ``mcp.client.streamable_http``, by line."""

_Slot = tuple[dict[str, Any], str, str]
"""Where a function is held: a namespace (a module's, or a module-level dict), the key, and a
name for the log."""


@dataclass
class _Installed:
    """What one ``install()`` changed: for each SDK function replaced, the forwarder put in its
    place, and every slot that held the SDK's function."""

    swaps: dict[str, tuple[Callable[..., Any], Callable[..., Any]]]
    shared_tls: HttpStack | None = None
    rebound: list[str] = field(default_factory=list)


_lock = threading.Lock()
_state: _Installed | None = None


def install() -> None:
    """Run every use of the SDK's ``streamable_http_client`` in this process over mcpstream
    (and of ``streamablehttp_client`` on the SDK's 1.x line).

    Rebinds the SDK's module attributes, every module global and every value of a module-level
    ``dict`` that holds the SDK's function (logged at INFO on the ``mcpstream.sdk.installer``
    logger). Opt-in and process-wide; calling it again while installed does nothing;
    thread-safe. Raises :class:`~mcpstream.errors.McpSdkUnsupportedError`, before changing
    anything, for an SDK release of neither supported line or whose function takes a parameter
    mcpstream's does not.
    """
    global _state
    with _lock:
        if _state is not None:
            return
        swaps: dict[str, tuple[Callable[..., Any], Callable[..., Any]]] = {}
        for name in SDK_ATTRIBUTES.get(MAJOR, ()):
            sdk_function = getattr(sdk_module, name)
            ours = getattr(client, name)
            _check_sdk(sdk_function, ours)
            swaps[name] = (sdk_function, _forwarder(ours))
        if not swaps:
            _refuse(_sdk_version(), "install() is built for the SDK's 2.x and 1.x lines")
        shared_tls = _share_tls(swaps)
        state = _Installed(swaps, shared_tls)
        for sdk_function, forwarder in swaps.values():
            for namespace, key, label in _holders(sdk_function):
                namespace[key] = forwarder
                state.rebound.append(label)
        _state = state
    logger.info(
        "mcpstream.sdk.install(): the SDK's Streamable HTTP client now runs over mcpstream in %s",
        ", ".join(state.rebound),
    )


def uninstall() -> None:
    """Undo :func:`install`: every module global or module-level ``dict`` value holding an
    installed function (those it rebound, and those of modules imported since) gets the SDK's
    function back. Does nothing when not installed; thread-safe."""
    global _state
    with _lock:
        state = _state
        if state is None:
            return
        restored: list[str] = []
        for sdk_function, forwarder in state.swaps.values():
            for namespace, key, label in _holders(forwarder):
                namespace[key] = sdk_function
                restored.append(label)
        if state.shared_tls is not None:
            unwrap_stack(state.shared_tls)
        _state = None
    logger.info(
        "mcpstream.sdk.uninstall(): the SDK's own Streamable HTTP client is back in %s",
        ", ".join(restored) or "no module",
    )


def installed() -> bool:
    """True while :func:`install` is in effect."""
    return _state is not None


def _share_tls(swaps: dict[str, tuple[Callable[..., Any], Callable[..., Any]]]) -> HttpStack | None:
    """Add the SDK's default client factory to ``swaps``: the same clients, sharing the
    process's TLS context (``tls_share``). The stack whose transports were changed for it, or
    None where that cannot be done (the factory is then left as the SDK's)."""
    factory = getattr(sdk_httpx_utils, "create_mcp_http_client", None)
    if not callable(factory):
        return None
    stack = stack_named("httpx" if MAJOR == 1 else "httpx2")
    if not wrap_stack(stack):
        return None
    swaps["create_mcp_http_client"] = (factory, sharing_factory(factory, stack))
    return stack


def _forwarder(ours: Callable[..., Any]) -> Callable[..., Any]:
    """A function of its own identity that calls ``ours``, with its name, docstring and
    signature (``inspect.signature`` follows ``__wrapped__``)."""

    def forward(*args: Any, **kwargs: Any) -> Any:
        return ours(*args, **kwargs)

    return functools.wraps(ours)(forward)


def _holders(target: object) -> list[_Slot]:
    """Every slot in ``sys.modules`` holding ``target``: a module global, or a value of a
    module-level ``dict`` (one level down, plain dicts only)."""
    found: list[_Slot] = []
    # list() copies in one step, so an import on another thread cannot break the iteration.
    for module in list(sys.modules.values()):
        if not isinstance(module, ModuleType):
            continue  # a None entry (a blocked import) or a stand-in object
        try:
            namespace = vars(module)
        except TypeError:
            continue
        for name, value in list(namespace.items()):
            if value is target:
                found.append((namespace, name, f"{module.__name__}.{name}"))
            elif type(value) is dict and value is not namespace:
                found.extend(
                    (value, key, f"{module.__name__}.{name}[{key!r}]")
                    for key, item in list(value.items())
                    if item is target and isinstance(key, str)
                )
    return found


def _check_sdk(sdk_function: Callable[..., Any], ours: Callable[..., Any]) -> None:
    """Raise ``McpSdkUnsupportedError`` unless ``ours`` can stand in for ``sdk_function``: every
    SDK parameter taken by ours with the same kind, and no parameter ours requires that the
    SDK's lacks."""
    version = _sdk_version()
    name = getattr(sdk_function, "__name__", "streamable_http_client")
    try:
        theirs = inspect.signature(sdk_function).parameters
    except (TypeError, ValueError):
        _refuse(version, f"its {name} has no signature to check")
    mine_all = inspect.signature(ours).parameters
    for parameter_name, parameter in theirs.items():
        mine = mine_all.get(parameter_name)
        if mine is None:
            _refuse(version, f"its {name} takes {parameter_name!r}, which mcpstream's lacks")
        if mine.kind is not parameter.kind:
            _refuse(version, f"its {name} takes {parameter_name!r} as {parameter.kind}")
    for parameter_name, mine in mine_all.items():
        if mine.default is inspect.Parameter.empty and parameter_name not in theirs:
            _refuse(version, f"its {name} lacks the parameter {parameter_name!r}")


def _sdk_version() -> str:
    """The installed ``mcp`` distribution's version."""
    try:
        return importlib.metadata.version("mcp")
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover - a vendored SDK
        return "unknown"


def _refuse(version: str, reason: str) -> NoReturn:
    raise McpSdkUnsupportedError(
        f"mcpstream.sdk.install() does not support the installed MCP SDK (mcp {version}): "
        f"{reason}; nothing was changed",
        sdk_version=version,
        reason=reason,
    )
