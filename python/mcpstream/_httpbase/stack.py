"""The HTTP stacks mcpstream runs on: httpx with httpcore (the project's dependency) and httpx2
with httpcore2 (pydantic's maintained line of httpx, the official SDK's; the optional extra
``mcpstream[httpx2]``). The two have the same API but their own classes: an ``httpx.Timeout``
given to an ``httpx2.Client`` is no timeout to it, an ``httpx2.ReadTimeout`` is no
``httpx.HTTPError``, and httpcore2's pool maps only httpcore2's exceptions.

``HttpStack`` is the one table of what differs: the modules (every class the wire layer, the
clients made here and the OAuth driver use is looked up on them) and the groups of exceptions a
failure is sorted by. Whether the private hooks of the speed work fit a stack's releases is the
transport's to probe (``_http.capability.hooks_fit``). ``stack_of(client)`` gives the stack of a
host's client; ``stack_named`` the one a transport asked for by name makes its clients on.

Under ``httpx2.alias_httpx()`` the module ``httpx`` *is* ``httpx2`` (and ``httpcore`` is
``httpcore2``): both names then give one and the same stack, named ``httpx2``.

httpx2 is imported only when a host's client is one of its clients (it is then imported
already) or a transport asks for it: importing mcpstream never needs it.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Literal

import httpcore
import httpx

__all__ = [
    "HttpStack",
    "StackErrors",
    "StackName",
    "as_httpx_error",
    "as_httpx_request",
    "failure_groups",
    "http_errors",
    "loaded_stacks",
    "raised_on_any",
    "stack_named",
    "stack_of",
]

StackName = Literal["httpx", "httpx2"]


@dataclass(frozen=True, slots=True)
class StackErrors:
    """The exception classes of one stack that mcpstream raises and catches, looked up once per
    stack (``of``). httpx's classes type both stacks' here: httpx2's are twins of the same
    signatures, not their subclasses."""

    HTTPError: type[httpx.HTTPError]
    """The root of the others, which OAuth, the CLI and the SDK route catch (``raised_on_any``)."""
    ConnectError: type[httpx.TransportError]
    ConnectTimeout: type[httpx.TransportError]
    LocalProtocolError: type[httpx.TransportError]
    PoolTimeout: type[httpx.TransportError]
    ReadError: type[httpx.TransportError]
    ReadTimeout: type[httpx.TransportError]
    RemoteProtocolError: type[httpx.TransportError]
    TransportError: type[httpx.TransportError]
    UnsupportedProtocol: type[httpx.TransportError]
    WriteError: type[httpx.TransportError]
    WriteTimeout: type[httpx.TransportError]

    @classmethod
    def of(cls, httpx_module: Any) -> StackErrors:
        """The classes of ``httpx_module``; ``TypeError`` names one it lacks or one that is no
        ``TransportError`` (``HTTPError`` itself aside) of it, so a release that moved one fails
        when its stack is made: httpx's at import, httpx2's when first asked for."""
        found: dict[str, Any] = {}
        for name in cls.__slots__:
            base_name = "HTTPError" if name == "HTTPError" else "TransportError"
            base = getattr(httpx_module, base_name, None)
            kind = getattr(httpx_module, name, None)
            if not (isinstance(kind, type) and isinstance(base, type) and issubclass(kind, base)):
                raise TypeError(f"{httpx_module.__name__}.{name} is not a {base_name} class")
            found[name] = kind
        return cls(**found)

    def timeout(self, kind: str) -> type[httpx.TransportError]:
        """The timeout of a wait of ``kind`` (``connect``, ``read``, ``write``, ``pool``)."""
        timeouts = {
            "connect": self.ConnectTimeout,
            "read": self.ReadTimeout,
            "write": self.WriteTimeout,
            "pool": self.PoolTimeout,
        }
        return timeouts[kind]


@dataclass(frozen=True, eq=False)
class HttpStack:
    """One line of httpx: its module (``httpx``), its core (``httpcore``), and what the
    transports look up on them.

    ``name``: the real name of the httpx module (``httpx2`` under ``alias_httpx``).
    ``errors``: what sending a request or reading a body may raise (the stack's ``HTTPError``
    and ``StreamError``, and ``OSError``). ``raises``: the classes the HTTP/1.1 transports
    raise (``StackErrors``).
    """

    name: str
    httpx: Any
    httpcore: Any
    errors: tuple[type[BaseException], ...] = field(init=False)
    raises: StackErrors = field(init=False)

    def __post_init__(self) -> None:
        errors = (self.httpx.HTTPError, self.httpx.StreamError, OSError)
        object.__setattr__(self, "errors", errors)
        object.__setattr__(self, "raises", StackErrors.of(self.httpx))

    @classmethod
    def of_modules(cls, httpx_module: ModuleType, httpcore_module: ModuleType) -> HttpStack:
        """The stack of an httpx module and its core."""
        return cls(httpx_module.__name__, httpx_module, httpcore_module)

    @property
    def client_types(self) -> tuple[type[Any], type[Any]]:
        """``(Client, AsyncClient)`` of the stack."""
        return (self.httpx.Client, self.httpx.AsyncClient)

    def timeout(self, timeout_s: float | None, connect_s: float | None = None) -> Any:
        """The stack's ``Timeout`` (``connect_s`` None: the same as the others)."""
        # All four given: ``Timeout(timeout_s)`` checks a number against ``SupportsFloat``, a
        # runtime protocol whose ``isinstance`` costs more than the rest of building a request.
        connect = timeout_s if connect_s is None else connect_s
        return self.httpx.Timeout(connect=connect, read=timeout_s, write=timeout_s, pool=timeout_s)

    def __repr__(self) -> str:
        return f"HttpStack({self.name!r})"


HTTPX = HttpStack.of_modules(httpx, httpcore)
"""The stack of the module named ``httpx`` (httpx2's under ``alias_httpx``)."""

_STACKS: dict[str, HttpStack] = {HTTPX.name: HTTPX}
_LOCK = threading.Lock()


def _load_httpx2() -> HttpStack:
    stack = _STACKS.get("httpx2")
    if stack is not None:
        return stack
    try:
        import httpcore2
        import httpx2
    except ImportError as exc:
        raise ImportError(
            "the httpx2 stack needs httpx2 installed: pip install 'mcpstream[httpx2]'"
        ) from exc
    with _LOCK:
        stack = _STACKS.get("httpx2")
        if stack is None:
            stack = _STACKS["httpx2"] = HttpStack.of_modules(httpx2, httpcore2)
    return stack


def stack_named(name: str | None) -> HttpStack:
    """The stack called ``name`` (``"httpx"``, the default for None, or ``"httpx2"``).

    Raises ``ValueError`` for another name, ``ImportError`` when httpx2 is asked for and not
    installed."""
    if name is None or name == "httpx":
        return HTTPX
    if name == "httpx2":
        return _load_httpx2()
    raise ValueError(f"http_stack must be 'httpx' or 'httpx2', not {name!r}")


def stack_of(client: object) -> HttpStack:
    """The stack of a host's ``client``, recognised by what it does rather than by its class:
    a stock ``Client`` or ``AsyncClient`` of httpx or httpx2 by its class; anything else (a
    subclass, which may send through a client of the other stack, as a borrowed-client
    subclass that never ran ``__init__`` does; a proxy or wrapper object forwarding to a
    client) by the class of its ``timeout``, the stack's ``Timeout`` its ``build_request``
    takes; failing that, by its class (a subclass), and else httpx's (as before: duck-typed
    clients keep working)."""
    kind = type(client)
    for stack in _client_stacks():
        if kind in stack.client_types:
            return stack
    timeout = _timeout_of(client)
    if timeout is not None:
        for stack in _client_stacks():
            if isinstance(timeout, stack.httpx.Timeout):
                return stack
    for stack in _client_stacks():
        if isinstance(client, stack.client_types):
            return stack
    return HTTPX


def _client_stacks() -> tuple[HttpStack, ...]:
    """The stacks a host's client may be of: httpx's, and httpx2's once it is imported."""
    if "httpx2" in sys.modules:
        stack = _load_httpx2()
        if stack is not HTTPX:
            return (HTTPX, stack)
    return (HTTPX,)


def _timeout_of(client: object) -> object:
    """``client.timeout``, or None where reading it fails (a subclass whose ``__init__`` did
    not run, a proxy that forwards nothing)."""
    try:
        return getattr(client, "timeout", None)
    except Exception:  # a property of the host's code: anything may come out of it
        return None


def loaded_stacks() -> tuple[HttpStack, ...]:
    """The stacks in use in this process (httpx's always; httpx2's once a client of it was
    seen or asked for)."""
    return tuple(_STACKS.values())


def http_errors() -> tuple[type[BaseException], ...]:
    """What sending a request or reading a body may raise, on every stack in use."""
    stacks = _STACKS.values()
    if len(stacks) == 1:
        return HTTPX.errors
    return tuple({error: None for stack in stacks for error in stack.errors})


def failure_groups(exc: BaseException) -> tuple[bool, bool, bool]:
    """``(connect timeout, timeout, transport error)``: which of the groups a failure is sorted
    into ``exc`` belongs to, on whichever stack raised it."""
    for stack in _STACKS.values():
        module = stack.httpx
        if isinstance(exc, module.HTTPError):
            return (
                isinstance(exc, module.ConnectTimeout),
                isinstance(exc, module.TimeoutException),
                isinstance(exc, module.TransportError),
            )
    return (False, False, False)


def raised_on_any(
    *picks: Callable[[StackErrors], type[BaseException]],
) -> tuple[type[BaseException], ...]:
    """The classes ``picks`` choose from the table of every stack in use:
    ``except raised_on_any(lambda r: r.HTTPError):`` catches httpx's and httpx2's."""
    return tuple(pick(stack.raises) for stack in _STACKS.values() for pick in picks)


def as_httpx_request(stack: HttpStack, request: httpx.Request) -> Any:
    """``request`` (an ``httpx.Request`` with its body read, as the OAuth flows build them) as
    a request of ``stack``: itself on httpx, a twin sharing its extensions on httpx2."""
    if isinstance(request, stack.httpx.Request):
        return request
    return stack.httpx.Request(
        request.method,
        str(request.url),
        headers=request.headers.multi_items(),
        content=request.content,
        extensions=request.extensions,
    )


def as_httpx_error(exc: BaseException, request: httpx.Request) -> httpx.HTTPError:
    """``exc``, an ``HTTPError`` of any stack, as httpx's class of the same name (its
    ``TransportError`` for one httpx does not have), with ``exc`` as its cause: the OAuth flows
    speak httpx whichever client runs them."""
    if isinstance(exc, httpx.HTTPError):
        return exc
    twin_type = getattr(httpx, type(exc).__name__, None)
    if not (isinstance(twin_type, type) and issubclass(twin_type, httpx.RequestError)):
        twin_type = httpx.TransportError
    twin = twin_type(str(exc), request=request)
    twin.__cause__ = exc
    return twin
