"""The SDK's default HTTP client under ``install()``, with the process's TLS context.

How this works: every httpx (or httpx2) client builds an SSL context when it is made and loads
a CA bundle into it, even for an ``http://`` URL that never uses it: some 15 to 45 ms of CPU.
Hosts that open a session per call with the SDK's default client pay it for every call
(langchain-mcp-adapters calls the SDK's ``create_mcp_http_client`` for each session), on either
transport, and it is most of what such a session costs. Under ``install()`` the SDK's
``create_mcp_http_client`` is rebound (as ``streamable_http_client`` is) to ``sharing_factory``'s
forwarder, which calls the SDK's function unchanged while the stack's ``create_ssl_context``
hands back the context mcpstream's own clients share (``httpx_clients.stack_ssl_context``: the
stack's default context, for the same CA settings of the environment) instead of building one.

Only a request for the default verification (``verify=True``, no client certificate,
``trust_env=True``) made inside that call is served from the shared context; every other call
of ``create_ssl_context`` in the process goes to the stack's own function untouched (a context
variable tells them apart, so threads and tasks creating clients at the same moment are not
affected). The stack's function is replaced in ``<stack>._transports.default``, where httpx's
transports look it up; where a release does not have it there (``wrap_stack`` checks), the
factory is left as the SDK's and one WARNING says so.
"""

from __future__ import annotations

import functools
import logging
import ssl
from collections.abc import Callable
from contextvars import ContextVar
from types import ModuleType
from typing import Any

from .._http.httpx_clients import stack_ssl_context
from .._httpbase.stack import HttpStack

__all__ = ["sharing_factory", "unwrap_stack", "wrap_stack"]

logger = logging.getLogger("mcpstream")

_sharing: ContextVar[HttpStack | None] = ContextVar("mcpstream_sdk_tls_share", default=None)
"""The stack whose default client is being made by the SDK's factory, inside that call."""

_WRAPPED_MARK = "__mcpstream_shares_tls__"


def _transports_module(stack: HttpStack) -> ModuleType | None:
    """``<stack>._transports.default``, where httpx's transports look up ``create_ssl_context``,
    if it holds the stack's own ``create_ssl_context`` (or mcpstream's wrapper of it)."""
    import sys

    module = sys.modules.get(f"{stack.name}._transports.default")
    public = getattr(stack.httpx, "create_ssl_context", None)
    found = getattr(module, "create_ssl_context", None)
    if module is None or public is None or found is None:
        return None
    if found is public or getattr(found, "__wrapped__", None) is public:
        return module
    return None


def wrap_stack(stack: HttpStack) -> bool:
    """Put the sharing wrapper in front of ``stack``'s ``create_ssl_context`` where its
    transports look it up. False (with one WARNING) where the release keeps it elsewhere."""
    module = _transports_module(stack)
    if module is None:
        version = getattr(stack.httpx, "__version__", "unknown")
        logger.warning(
            "mcpstream: %s %s does not build its transports' SSL context where mcpstream looks"
            " for it; under install() each client the SDK's create_mcp_http_client makes"
            " builds its own (as without mcpstream); a release of mcpstream that knows this"
            " %s release shares one",
            stack.name,
            version,
            stack.name,
        )
        return False
    original: Callable[..., ssl.SSLContext] = getattr(module, "create_ssl_context")  # noqa: B009
    if getattr(original, _WRAPPED_MARK, False):
        return True

    @functools.wraps(original)
    def create_ssl_context(
        verify: Any = True, cert: Any = None, trust_env: bool = True
    ) -> ssl.SSLContext:
        sharing = _sharing.get()
        if sharing is stack and verify is True and not cert and trust_env:
            return stack_ssl_context(stack)
        return original(verify=verify, cert=cert, trust_env=trust_env)

    setattr(create_ssl_context, _WRAPPED_MARK, True)
    setattr(module, "create_ssl_context", create_ssl_context)  # noqa: B010
    return True


def unwrap_stack(stack: HttpStack) -> None:
    """Give ``stack``'s transports their own ``create_ssl_context`` back."""
    module = _transports_module(stack)
    found: Any = getattr(module, "create_ssl_context", None)
    if module is not None and getattr(found, _WRAPPED_MARK, False):
        setattr(module, "create_ssl_context", found.__wrapped__)  # noqa: B010


def sharing_factory(factory: Callable[..., Any], stack: HttpStack) -> Callable[..., Any]:
    """A function of its own identity that calls the SDK's ``factory`` (same arguments, same
    client) with ``stack``'s default SSL context served from the process's shared one."""

    def create_mcp_http_client(*args: Any, **kwargs: Any) -> Any:
        token = _sharing.set(stack)
        try:
            return factory(*args, **kwargs)
        finally:
            _sharing.reset(token)

    return functools.wraps(factory)(create_mcp_http_client)
