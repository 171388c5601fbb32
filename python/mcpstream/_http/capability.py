"""Whether the private attributes the speed work reads are there, checked by what they are
rather than by a version string.

The speed work reaches into httpx, its core (httpcore or httpcore2) and h11 where they offer no
public way (``httpx_clients``, ``receive_buffer``). Each reach is a ``HOOKS`` entry, probed once
per stack on objects built here with known settings: the attribute is there, of the type and
with the value the settings give, and where it matters the behaviour relied on happens (h11
hands a large body piece back as the very object received). A hook whose probe fails is left
off (the client keeps its stack's own transport or buffer, as before), and the first use of it
logs one WARNING per process and reason on the ``mcpstream`` logger, naming the package, its
version and what to do. ``verdicts`` gives every probe's outcome (``mcpstream doctor`` shows
them); ``usable`` is the gate the hooks go through.

A probe builds clients, pools, connections and an h11 connection but opens no socket and loads
no certificate: about 1 ms per stack, once per process (7 ms for the first, which also imports
what httpx loads lazily).
"""

from __future__ import annotations

import logging
import ssl
import threading
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import h11

from .._httpbase.stack import HttpStack

__all__ = ["HOOKS", "Verdict", "hooks_fit", "reset_warnings", "usable", "verdicts"]

logger = logging.getLogger("mcpstream")

HOOKS = ("pool", "connection", "response_stream", "receive_buffer")
"""What the speed work reads. ``pool``: the client's transport (``_transport``, and
``_transport_for_url`` finding it) and its connection pool, built with a network backend of
mcpstream's and read back for its settings (``host_h1_transport``).
``connection``: the core's HTTP/1.1 connection (its read size, network stream and h11 state;
the ``trace`` event in front of sending a head). ``response_stream``: the chain of streams from
a response down to its connection. ``receive_buffer``: h11's receive buffer, swapped for one
that hands a large body piece on uncopied."""


@dataclass(frozen=True)
class Verdict:
    """The outcome of one probe: ``hook`` (one of ``HOOKS``) on the package ``package`` at
    ``version``; ``reason`` says what does not fit (empty when it fits)."""

    hook: str
    package: str
    version: str
    reason: str = ""

    @property
    def fits(self) -> bool:
        """Whether the hook's probe found what it reads."""
        return not self.reason

    def advice(self) -> str:
        """What a user can do about a hook that does not fit."""
        return f"pin {self.package}<{_minor(self.version)} or upgrade mcpstream"


class _Misfit(Exception):
    """A probe found something other than what a hook reads: the package, and what."""

    def __init__(self, package: ModuleType, reason: str) -> None:
        super().__init__(reason)
        self.package = package
        self.reason = reason


def _version(module: ModuleType) -> str:
    return str(getattr(module, "__version__", "unknown"))


def _minor(version: str) -> str:
    """``2.18`` of ``2.18.1``: the release line a pin below excludes."""
    parts = version.split(".")
    return ".".join(parts[:2]) if len(parts) >= 2 else version


def _expect(package: ModuleType, holds: bool, reason: str) -> None:
    if not holds:
        raise _Misfit(package, reason)


def _sets(cls: Any, attribute: str) -> bool:
    """Whether ``cls.__init__`` assigns ``attribute`` (its name is in the code's names)."""
    code = getattr(getattr(cls, "__init__", None), "__code__", None)
    return code is not None and attribute in code.co_names


def _private(package: ModuleType, path: str) -> Any:
    """The class at the dotted ``path`` under ``package``, or a misfit naming it."""
    found: Any = package
    for name in path.split("."):
        found = getattr(found, name, None)
        _expect(package, found is not None, f"{package.__name__}.{path} is gone")
    _expect(package, isinstance(found, type), f"{package.__name__}.{path} is not a class")
    return found


def _probe_pool(stack: HttpStack) -> None:
    module, core = stack.httpx, stack.httpcore
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    limits = module.Limits(max_connections=7, max_keepalive_connections=3, keepalive_expiry=4.0)
    auto = _private(core, "_backends.auto.AutoBackend")
    kinds = (
        (module.Client, module.HTTPTransport, core.ConnectionPool, core.SyncBackend),
        (module.AsyncClient, module.AsyncHTTPTransport, core.AsyncConnectionPool, auto),
    )
    for client_type, transport_type, pool_type, backend_type in kinds:
        transport = transport_type(verify=context, limits=limits)
        client = client_type(transport=transport, trust_env=False)
        _expect(module, getattr(client, "_transport", None) is transport, "no Client._transport")
        # ``sdk.host``'s view of a host's client sets ``_transport``, which httpx finds here.
        route = getattr(client, "_transport_for_url", None)
        url = module.URL("http://127.0.0.1/")
        _expect(module, route is not None and route(url) is transport, "_transport_for_url")
        pool = getattr(transport, "_pool", None)
        _expect(module, type(pool) is pool_type, "the transport's _pool is not the core's pool")
        # What ``host_h1_transport`` reads, with the values the settings above give.
        expected = {
            "_ssl_context": context,
            "_proxy": None,
            "_uds": None,
            "_local_address": None,
            "_retries": 0,
            "_http1": True,
            "_http2": False,
            "_max_connections": 7,
            "_max_keepalive_connections": 3,
            "_keepalive_expiry": 4.0,
        }
        for name, value in expected.items():
            found = getattr(pool, name, _probe_pool)
            _expect(core, found is value or found == value, f"the pool's {name} is not its setting")
        _expect(core, not getattr(pool, "_socket_options", 1), "the pool's _socket_options")
        backend = getattr(pool, "_network_backend", None)
        _expect(core, type(backend) is backend_type, "the pool's _network_backend")
        # ``_reading_in_large_pieces`` builds the pool with a backend of its own.
        own = backend_type()
        rebuilt = pool_type(network_backend=own, ssl_context=context, max_connections=7)
        _expect(core, getattr(rebuilt, "_network_backend", None) is own, "network_backend")


def _probe_connection(stack: HttpStack) -> None:
    core = stack.httpcore
    origin = core.Origin(b"http", b"127.0.0.1", 80)
    kinds = ((core.HTTP11Connection, core.NetworkStream), (core.AsyncHTTP11Connection, None))
    for connection_type, stream_type in kinds:
        stream = (stream_type or core.AsyncNetworkStream)()
        connection = connection_type(origin=origin, stream=stream)
        size = getattr(connection, "READ_NUM_BYTES", None)
        _expect(core, type(size) is int, "HTTP11Connection.READ_NUM_BYTES is not an int")
        _expect(core, getattr(connection, "_network_stream", None) is stream, "no _network_stream")
        state = getattr(connection, "_h11_state", None)
        _expect(core, type(state) is h11.Connection, "no h11 Connection in _h11_state")
    # ``deadline_trace`` waits for this trace event of the sync connection's handle_request.
    handle = getattr(core.HTTP11Connection.handle_request, "__code__", None)
    consts = () if handle is None else handle.co_consts
    _expect(core, "send_request_headers" in consts, "no send_request_headers trace")


def _probe_response_stream(stack: HttpStack) -> None:
    module, core = stack.httpx, stack.httpcore
    chain = (
        (module, "_client.BoundAsyncStream", "_stream"),
        (module, "_client.BoundSyncStream", "_stream"),
        (module, "_transports.default.AsyncResponseStream", "_httpcore_stream"),
        (module, "_transports.default.ResponseStream", "_httpcore_stream"),
        (core, "_async.connection_pool.PoolByteStream", "_stream"),
        (core, "_sync.connection_pool.PoolByteStream", "_stream"),
        (core, "_async.http11.HTTP11ConnectionByteStream", "_connection"),
        (core, "_sync.http11.HTTP11ConnectionByteStream", "_connection"),
    )
    for package, path, attribute in chain:
        cls = _private(package, path)
        _expect(package, _sets(cls, attribute), f"{path} keeps no {attribute}")


def _probe_receive_buffer(stack: HttpStack) -> None:
    from . import receive_buffer

    _expect(h11, receive_buffer.available(), "h11._receivebuffer.ReceiveBuffer is gone")
    # The behaviour relied on: h11 reads a large body piece through the buffer's methods, and
    # the piece comes back as the object received.
    client = h11.Connection(h11.CLIENT)
    client.send(h11.Request(method="GET", target="/", headers=[("Host", "h")]))
    client.send(h11.EndOfMessage())
    _expect(h11, receive_buffer.swap(client), "h11.Connection has no ReceiveBuffer to swap")
    body = bytes(receive_buffer.HOLD_BYTES)
    client.receive_data(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(body))
    _expect(h11, type(client.next_event()) is h11.Response, "h11 read no head through it")
    client.receive_data(body)
    data = client.next_event()
    _expect(h11, isinstance(data, h11.Data) and data.data is body, "h11 copied the body")
    _expect(h11, type(client.next_event()) is h11.EndOfMessage, "h11 did not end the body")


_PROBES: dict[str, Callable[[HttpStack], None]] = {
    "pool": _probe_pool,
    "connection": _probe_connection,
    "response_stream": _probe_response_stream,
    "receive_buffer": _probe_receive_buffer,
}

_VERDICTS: dict[int, tuple[HttpStack, dict[str, Verdict]]] = {}
_WARNED: set[tuple[str, str, str]] = set()
_LOCK = threading.Lock()


def _run(stack: HttpStack, hook: str) -> Verdict:
    core = stack.httpcore
    try:
        _PROBES[hook](stack)
    except _Misfit as misfit:
        return Verdict(hook, misfit.package.__name__, _version(misfit.package), misfit.reason)
    except Exception as exc:  # a package of another shape may fail anywhere in a probe
        return Verdict(hook, core.__name__, _version(core), f"probing failed: {exc!r}")
    package = h11 if hook == "receive_buffer" else core
    return Verdict(hook, package.__name__, _version(package))


def verdicts(stack: HttpStack) -> dict[str, Verdict]:
    """The verdict of every hook of ``HOOKS`` on ``stack``, probed once per stack."""
    held = _VERDICTS.get(id(stack))
    if held is not None and held[0] is stack:
        return held[1]
    with _LOCK:
        held = _VERDICTS.get(id(stack))
        if held is None or held[0] is not stack:
            held = _VERDICTS[id(stack)] = (stack, {hook: _run(stack, hook) for hook in HOOKS})
    return held[1]


def hooks_fit(stack: HttpStack) -> bool:
    """Whether every hook of ``HOOKS`` fits ``stack`` (probed once; no warning: ``usable``,
    the hooks' own gate, warns)."""
    return all(verdict.fits for verdict in verdicts(stack).values())


def usable(stack: HttpStack, *hooks: str) -> bool:
    """Whether every one of ``hooks`` fits ``stack``; for each that does not, one WARNING per
    process and reason on the ``mcpstream`` logger (the caller then falls back)."""
    found = verdicts(stack)
    fits = True
    for hook in hooks:
        verdict = found[hook]
        if verdict.fits:
            continue
        fits = False
        key = (verdict.package, verdict.version, verdict.reason)
        if key in _WARNED:
            continue
        with _LOCK:
            if key in _WARNED:
                continue
            _WARNED.add(key)
        logger.warning(
            "mcpstream's fast path is off for %s clients: %s %s does not have what it reads "
            "(%s); they keep %s's own transport, slower on large results. To get it back, %s.",
            stack.name,
            verdict.package,
            verdict.version,
            verdict.reason,
            stack.name,
            verdict.advice(),
        )
    return fits


def reset_warnings() -> None:
    """Forget the warnings logged (for tests: each reason warns once per process)."""
    with _LOCK:
        _WARNED.clear()
