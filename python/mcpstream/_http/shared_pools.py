"""The connection pools that the sessions of mcpstream's own clients share in one process.

A ``Client``, an ``AsyncClient`` or a transport made without an ``http_client`` used to make an
HTTP client, and so a pool, of its own, closed with the session: a host opening a session per
operation paid a TCP connection (and a TLS handshake) for every one. The clients made by
``httpx_clients`` now send over one HTTP/1.1 transport (``h1``) per HTTP stack and SSL context
(and, for the async ones, per event loop), owned by the process rather than by a session:

* a session's client borrows it (``borrowed``): closing the client leaves the transport open,
  and the connections the session used go back to its pool, for the next session to the same
  origin;
* an idle connection is closed after ``KEEPALIVE_EXPIRY`` seconds (sooner when the server's
  ``Keep-Alive: timeout=`` says so), by a timer of the event loop (async) or by a reaper
  thread that runs only while a sync pool holds idle connections (``_Reaper``); at most
  ``MAX_IDLE`` idle connections are kept per pool; the connections open at once are not
  bounded (a session's request never waits for another session's connection: each session
  had a pool of its own before);
* an async pool belongs to one event loop, and is closed when the loop shuts its asynchronous
  generators down (``asyncio.run`` and ``asyncio.Runner`` do, as they end: ``_loop_guard``);
  a connection is never used from another loop;
* the transport that the sessions over one host client share on an event loop
  (``mcpstream.sdk``'s) is bound to the loop (``bind_to_loop``): its idle connections close
  with the loop's pools, and at ``close_pools()``;
* ``close_pools()`` closes every idle connection of every pool now (a host or a test that
  wants nothing left open); the pools are made again when next needed;
* ``SHARED_ENV=0`` (``MCPSTREAM_SHARED_POOL=0``) opts out: each client gets a pool of its
  own again, closed with it.

A TLS connection to an origin the pool connected to before resumes the TLS session of an
earlier one (``h1.base.Http1Base``).
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import ssl
import threading
import time
import weakref
from collections.abc import AsyncGenerator, Callable, Mapping
from typing import Any, TypeVar

from .._httpbase.stack import HttpStack
from .h1 import transport_types

__all__ = [
    "KEEPALIVE_EXPIRY",
    "MAX_IDLE",
    "SHARED_ENV",
    "LoopShared",
    "async_shared",
    "bind_to_loop",
    "borrowed",
    "close_pools",
    "hand_to_running_loops",
    "shared_enabled",
    "sync_shared",
]

SHARED_ENV = "MCPSTREAM_SHARED_POOL"
"""The environment variable that opts out of the shared pools: ``0`` gives each client made
without an ``http_client`` a pool of its own (closed with it); unset, empty or anything else
shares. Read when a client is made."""

MAX_IDLE = 100
"""The idle connections a shared pool keeps at most (the oldest are closed first)."""

HeldT = TypeVar("HeldT")

KEEPALIVE_EXPIRY = 5.0
"""The seconds an idle connection of a shared pool is kept (httpx's default)."""


def shared_enabled() -> bool:
    """Whether the clients made now share the process's pools (``SHARED_ENV`` is not ``0``)."""
    return os.environ.get(SHARED_ENV, "") != "0"


def _settings(context: ssl.SSLContext) -> dict[str, Any]:
    return {
        "verify": context,
        "max_connections": None,
        "max_keepalive_connections": MAX_IDLE,
        "keepalive_expiry": KEEPALIVE_EXPIRY,
    }


_LOCK = threading.Lock()
_SYNC: dict[tuple[str, ssl.SSLContext], Any] = {}
"""The sync pools, by stack name and SSL context."""


def sync_shared(stack: HttpStack, context: ssl.SSLContext) -> Any:
    """The process's sync HTTP/1.1 transport on ``stack`` with ``context``, made on first use."""
    key = (stack.name, context)
    transport = _SYNC.get(key)
    if transport is None:
        with _LOCK:
            transport = _SYNC.get(key)
            if transport is None:
                transport = _SYNC[key] = _shared_sync_type(stack)(**_settings(context))
    return transport


_SYNC_TYPES: dict[str, type[Any]] = {}


def _shared_sync_type(stack: HttpStack) -> type[Any]:
    """The stack's sync transport whose connections, once idle, are watched by the reaper."""
    made = _SYNC_TYPES.get(stack.name)
    if made is None:
        base = transport_types(stack)[0]

        def _release(self: Any, connection: Any, expiry: float) -> None:
            base._release(self, connection, expiry)
            _REAPER.wake(time.monotonic() + expiry)

        made = _SYNC_TYPES[stack.name] = type(
            "SharedHttp1Transport", (base,), {"_release": _release}
        )
    return made


class _Reaper:
    """One daemon thread that closes the idle connections of the sync pools as they expire,
    running only while some pool holds idle connections (it ends when none is left, and
    ``close_pools`` ends it at once)."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None
        self._stopping = False
        self._next = 0.0
        """When the running thread looks at the pools next (it then finds any later expiry)."""

    def wake(self, at: float) -> None:
        """A connection went idle until ``at``: make sure the thread runs and looks at the
        pools by then (the common case, a thread already due earlier, costs no switch)."""
        if self._thread is not None and at >= self._next:
            return  # (read without the lock: at worst the thread is woken for nothing)
        with self._cond:
            if self._thread is None or not self._thread.is_alive():
                self._stopping = False
                self._next = 0.0
                self._thread = threading.Thread(
                    target=self._run, name="mcpstream-pool-reaper", daemon=True
                )
                self._thread.start()
            elif at < self._next:
                self._next = at
                self._cond.notify()

    def stop(self) -> None:
        """End the thread (``close_pools``) and wait for it."""
        with self._cond:
            thread, self._thread = self._thread, None
            self._stopping = True
            self._cond.notify()
        if thread is not None and thread is not threading.current_thread():
            thread.join()

    def _run(self) -> None:
        while True:
            soonest = None
            for transport in list(_SYNC.values()):
                at = transport.expire_idle(time.monotonic())
                if at is not None and (soonest is None or at < soonest):
                    soonest = at
            with self._cond:
                if self._stopping or soonest is None:
                    if threading.current_thread() is self._thread:
                        self._thread = None
                    return
                # (a moment past it: ``expire`` drops what is idle for longer than the expiry)
                self._next = soonest
                self._cond.wait(max(0.0, soonest - time.monotonic()) + 0.001)
                if self._stopping:
                    return


_REAPER = _Reaper()


class LoopShared:
    """Stands for the async transport of one stack and SSL context in ``_DIRECT``: the pool
    of the running event loop (``current``), made on first use in each loop."""

    __slots__ = ("_context", "_last", "_stack")

    def __init__(self, stack: HttpStack, context: ssl.SSLContext) -> None:
        self._stack, self._context = stack, context
        self._last: tuple[weakref.ref[asyncio.AbstractEventLoop], Any] | None = None

    def current(self) -> Any:
        """The transport of the running loop (a ``RuntimeError`` outside one)."""
        loop = asyncio.get_running_loop()
        last = self._last
        if last is not None and last[0]() is loop and not last[1]._pool.closed:
            return last[1]
        transport = async_shared(self._stack, self._context, loop)
        self._last = (weakref.ref(loop), transport)
        return transport


_ASYNC: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[tuple[str, Any], Any]] = (
    weakref.WeakKeyDictionary()
)
"""The async pools of each event loop, by stack name and SSL context."""


_GUARD = ("guard", None)
_BOUND = ("bound", None)
"""The keys of a loop's entry in ``_ASYNC`` for its guard and for ``bind_to_loop``'s
transports (a ``WeakSet``); the others are its pools."""


def _loop_pools(loop: asyncio.AbstractEventLoop) -> dict[tuple[str, Any], Any]:
    """The entry of ``loop`` (the running one) in ``_ASYNC``, made with the guard that closes
    its pools when the loop ends (``_loop_guard``) on first use."""
    pools = _ASYNC.get(loop)
    if pools is None:
        pools = _ASYNC[loop] = {_BOUND: weakref.WeakSet()}
        guard = _loop_guard(pools)
        # Started here (its first step runs at once): the loop's hooks register it, and
        # ``shutdown_asyncgens`` closes it as the loop ends, which runs its ``finally``.
        with contextlib.suppress(StopIteration):
            guard.asend(None).send(None)
        pools[_GUARD] = guard  # (kept alive by the loop's entry)
        weakref.finalize(loop, _close_all, pools)
    return pools


def async_shared(stack: HttpStack, context: ssl.SSLContext, loop: asyncio.AbstractEventLoop) -> Any:
    """The async HTTP/1.1 transport of ``loop`` (the running one) on ``stack`` with
    ``context``, made on first use; the loop's first one starts the guard that closes them
    all when the loop ends (``_loop_guard``)."""
    pools = _loop_pools(loop)
    key = (stack.name, context)
    transport = pools.get(key)
    if transport is None or transport._pool.closed:
        transport = pools[key] = transport_types(stack)[1](**_settings(context))
    return transport


def bind_to_loop(loop: asyncio.AbstractEventLoop, transport: Any) -> None:
    """Close the idle connections of ``transport`` (an async HTTP/1.1 transport of someone
    else's, used on ``loop``, the running one) as the loop's own pools' are: when the loop
    ends (``asyncio.run``, ``asyncio.Runner``), and at ``close_pools``. The loop holds it
    weakly: a transport dropped by its owner goes as it would."""
    _loop_pools(loop)[_BOUND].add(transport)


async def _loop_guard(pools: dict[tuple[str, Any], Any]) -> AsyncGenerator[None, None]:
    try:
        yield
    finally:
        _close_all(pools)


def _close_all(pools: dict[tuple[str, Any], Any]) -> None:
    for name, transport in list(pools.items()):
        if name == _BOUND:
            for bound in list(transport):
                bound.close_idle()
        elif name != _GUARD:
            transport.close_idle()
            pools.pop(name, None)


def close_pools() -> None:
    """Close every idle connection of the pools the sessions of mcpstream's own clients share,
    and of those the sessions over one host client share (``bind_to_loop``); connections in
    use close when their responses are done with. The pools are made again when next needed.
    For a host (or a test) that wants nothing left open: the pools would
    otherwise close their idle connections after ``KEEPALIVE_EXPIRY`` seconds, and an event
    loop's pools when it ends. The idle connections of an event loop running on another
    thread are closed by that loop, at its next round (an async pool is used from its loop
    alone)."""
    # The pools stay open: a session still open goes on with them (it connects again).
    for transport in list(_SYNC.values()):
        transport.expire_idle(math.inf)
    _REAPER.stop()
    # An async pool is the loop's alone (no lock): another thread's running loop closes its
    # idle connections itself, at its next round.
    for pools in hand_to_running_loops(_ASYNC, _expire_all):
        _expire_all(pools)


def hand_to_running_loops(
    by_loop: Mapping[asyncio.AbstractEventLoop, HeldT], act: Callable[[HeldT], object]
) -> list[HeldT]:
    """Hand each object of ``by_loop`` (one event loop's alone) whose loop runs on another
    thread to that loop, which calls ``act`` on it at its next round; the others, which this
    thread may act on at once (those of its running loop and of a loop not running)."""
    try:
        running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    here: list[HeldT] = []
    for loop, held in list(by_loop.items()):
        if loop is running or not loop.is_running():
            here.append(held)
            continue
        with contextlib.suppress(RuntimeError):  # it closed meanwhile
            loop.call_soon_threadsafe(act, held)
    return here


def _expire_all(pools: dict[tuple[str, Any], Any]) -> None:
    """Close the idle connections of one loop's pools (on the loop's thread, or with the loop
    stopped)."""
    for name, held in list(pools.items()):
        if name != _GUARD:
            for transport in list(held) if name == _BOUND else [held]:
                for connection in transport._pool.expire(math.inf):
                    connection.close()  # (of a loop closed since: its socket closed now)


class _Borrowed:
    """A client's view of a shared transport: requests go to it, closing does nothing."""

    _target: Any

    def handle_request(self, request: Any) -> Any:
        target = self._target
        return (target.current() if type(target) is LoopShared else target).handle_request(request)

    async def handle_async_request(self, request: Any) -> Any:
        target = self._target
        if type(target) is LoopShared:
            target = target.current()
        return await target.handle_async_request(request)

    def close(self) -> None:
        """The pool is the process's: nothing to close."""

    async def aclose(self) -> None:
        """The pool is the process's: nothing to close."""


_BORROWED: dict[tuple[str, bool], type[Any]] = {}


def borrowed(stack: HttpStack, target: Any, asynchronous: bool) -> Any:
    """A transport of ``stack`` (its ``AsyncBaseTransport`` when ``asynchronous``) for one
    client, sending through ``target`` (a shared sync transport, or a ``LoopShared``) and
    leaving it open when the client closes."""
    made = _BORROWED.get((stack.name, asynchronous))
    if made is None:
        base = stack.httpx.AsyncBaseTransport if asynchronous else stack.httpx.BaseTransport
        made = type("BorrowedTransport", (_Borrowed, base), {})
        _BORROWED[stack.name, asynchronous] = made
    transport = made()
    transport._target = target
    return transport
