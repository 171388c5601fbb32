"""``install()``: every use of the official SDK's Streamable HTTP client in the process runs over
mcpstream, the way ``uvloop.install()`` swaps the event loop policy.

Frameworks reach the SDK's ``mcp.client.streamable_http.streamable_http_client`` in two ways:
some look it up on the SDK's module at each call, and many (FastMCP, Google ADK, LiteLLM,
llama-index, the SDK's own ``mcp.Client``) bind it into their own module with ``from ... import``
when they are imported. Replacing the SDK's module attribute alone misses the second kind, so
``install()`` also rebinds every module global in ``sys.modules`` that holds the SDK's function,
found by identity (no list of framework names to keep up to date). A module imported afterwards
takes the rebound attribute from the SDK's module. ``uninstall()`` puts the SDK's function back
everywhere the installed one is found, including modules imported while it was in effect.

What the installed function is: a thin forwarder to ``mcpstream.sdk.streamable_http_client`` of
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

from ..errors import McpSdkUnsupportedError
from .client import streamable_http_client

__all__ = ["install", "installed", "uninstall"]

logger = logging.getLogger(__name__)

SDK_ATTRIBUTE = "streamable_http_client"
"""The name of the SDK's Streamable HTTP client in ``mcp.client.streamable_http``."""
SUPPORTED_MAJOR = 2
"""The SDK line ``install()`` is built for (the ``sdk`` extra: ``mcp>=2.0.0,<3``)."""


@dataclass
class _Installed:
    """What one ``install()`` changed: the SDK's function, the forwarder put in its place, and
    every ``(module, name)`` that held the SDK's function."""

    sdk_function: Callable[..., Any]
    forwarder: Callable[..., Any]
    rebound: list[tuple[ModuleType, str]] = field(default_factory=list)


_lock = threading.Lock()
_state: _Installed | None = None


def install() -> None:
    """Run every use of the SDK's ``streamable_http_client`` in this process over mcpstream.

    Rebinds the SDK's module attribute and every module global that holds the SDK's function
    (logged at INFO on the ``mcpstream.sdk.installer`` logger). Opt-in and process-wide; calling
    it again while installed does nothing; thread-safe. Raises
    :class:`~mcpstream.errors.McpSdkUnsupportedError`, before changing anything, for an SDK
    release outside the 2.x line or whose ``streamable_http_client`` takes a parameter
    mcpstream's does not.
    """
    global _state
    with _lock:
        if _state is not None:
            return
        sdk_function = getattr(sdk_module, SDK_ATTRIBUTE)
        _check_sdk(sdk_function)
        forwarder = _forwarder()
        state = _Installed(sdk_function, forwarder)
        for module, name in _holders(sdk_function):
            setattr(module, name, forwarder)
            state.rebound.append((module, name))
        _state = state
    logger.info(
        "mcpstream.sdk.install(): the SDK's streamable_http_client now runs over mcpstream in %s",
        ", ".join(f"{module.__name__}.{name}" for module, name in state.rebound),
    )


def uninstall() -> None:
    """Undo :func:`install`: every module global holding the installed function (those it
    rebound, and those of modules imported since) gets the SDK's function back. Does nothing
    when not installed; thread-safe."""
    global _state
    with _lock:
        state = _state
        if state is None:
            return
        restored = _holders(state.forwarder)
        for module, name in restored:
            setattr(module, name, state.sdk_function)
        _state = None
    logger.info(
        "mcpstream.sdk.uninstall(): the SDK's own streamable_http_client is back in %s",
        ", ".join(f"{module.__name__}.{name}" for module, name in restored) or "no module",
    )


def installed() -> bool:
    """True while :func:`install` is in effect."""
    return _state is not None


def _forwarder() -> Callable[..., Any]:
    """A function of its own identity that calls ``mcpstream.sdk.streamable_http_client``, with
    its name, docstring and signature (``inspect.signature`` follows ``__wrapped__``)."""

    def forward(*args: Any, **kwargs: Any) -> Any:
        return streamable_http_client(*args, **kwargs)

    return functools.wraps(streamable_http_client)(forward)


def _holders(target: object) -> list[tuple[ModuleType, str]]:
    """Every ``(module, name)`` in ``sys.modules`` whose global ``name`` is ``target``."""
    found: list[tuple[ModuleType, str]] = []
    # list() copies in one step, so an import on another thread cannot break the iteration.
    for module in list(sys.modules.values()):
        if not isinstance(module, ModuleType):
            continue  # a None entry (a blocked import) or a stand-in object
        try:
            namespace = vars(module)
        except TypeError:
            continue
        found.extend((module, name) for name, value in list(namespace.items()) if value is target)
    return found


def _check_sdk(sdk_function: Callable[..., Any]) -> None:
    """Raise ``McpSdkUnsupportedError`` unless mcpstream's ``streamable_http_client`` can stand in
    for ``sdk_function``: the 2.x line, every SDK parameter taken by ours with the same kind, and
    no parameter ours requires that the SDK's lacks."""
    version = _sdk_version()
    major = version.split(".", 1)[0]
    if not major.isdigit() or int(major) != SUPPORTED_MAJOR:
        _refuse(version, f"install() is built for the SDK's {SUPPORTED_MAJOR}.x line")
    try:
        theirs = inspect.signature(sdk_function).parameters
    except (TypeError, ValueError):
        _refuse(version, "its streamable_http_client has no signature to check")
    ours = inspect.signature(streamable_http_client).parameters
    for name, parameter in theirs.items():
        mine = ours.get(name)
        if mine is None:
            _refuse(version, f"its streamable_http_client takes {name!r}, which mcpstream's lacks")
        if mine.kind is not parameter.kind:
            _refuse(version, f"its streamable_http_client takes {name!r} as {parameter.kind}")
    for name, mine in ours.items():
        if mine.default is inspect.Parameter.empty and name not in theirs:
            _refuse(version, f"its streamable_http_client lacks the parameter {name!r}")


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
