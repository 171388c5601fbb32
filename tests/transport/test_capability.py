"""The probes of what the speed work reads (``mcpstream._http.capability``): a stack of a shape
that does not fit gets no hook, its clients fall back to the stack's own transport as before,
and one WARNING per process and reason names the package, its version and what to do."""

from __future__ import annotations

import asyncio
import logging
import types
from collections.abc import Iterator
from typing import Any

import httpcore2
import httpx2
import pytest
from mcpstream._http import capability
from mcpstream._http.host_probe import host_h1_transport
from mcpstream._http.httpx_clients import (
    H1_ENV,
    deadline_trace,
    direct_transport,
    make_client,
)
from mcpstream._httpbase.stack import HttpStack, stack_named


def _like(module: types.ModuleType, **changes: object) -> types.ModuleType:
    """A module of ``module``'s name with its names, but for ``changes``."""
    twin = types.ModuleType(module.__name__)
    twin.__dict__.update({k: v for k, v in vars(module).items() if not k.startswith("__")})
    twin.__dict__.update(changes)
    return twin


class _PoolWithoutRetries(httpx2.AsyncHTTPTransport):
    """httpx2's async transport whose pool has no ``_retries`` (a release that renamed it)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        del self._pool._retries


class _OddConnection(httpcore2.HTTP11Connection):
    """httpcore2's connection with no read size of its own to raise."""

    READ_NUM_BYTES = None  # type: ignore[assignment]


@pytest.fixture
def warnings_logged(caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    capability.reset_warnings()
    caplog.set_level(logging.WARNING, logger="mcpstream")
    yield caplog
    capability.reset_warnings()


def _warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "mcpstream"]


def test_the_installed_stacks_fit_every_hook() -> None:
    for name in ("httpx", "httpx2"):
        stack = stack_named(name)
        found = capability.verdicts(stack)
        assert all(verdict.fits for verdict in found.values()), found
        assert found["pool"].package == stack.httpcore.__name__
        assert found["receive_buffer"].package == "h11"
        assert capability.hooks_fit(stack)
        assert capability.verdicts(stack) is found  # probed once


def test_a_pool_missing_an_attribute_warns_once_and_keeps_the_hosts_transport(
    warnings_logged: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(H1_ENV, "1")
    module = _like(httpx2, AsyncHTTPTransport=_PoolWithoutRetries)
    core = _like(httpcore2, __version__="2.99.1")
    odd = HttpStack("httpx2", module, core)
    verdict = capability.verdicts(odd)["pool"]
    assert (verdict.fits, verdict.package, verdict.version) == (False, "httpcore2", "2.99.1")
    assert "_retries" in verdict.reason
    assert capability.verdicts(odd)["connection"].fits  # the other hooks still fit

    async def main() -> list[object]:
        async with httpx2.AsyncClient(transport=_PoolWithoutRetries()) as host:
            return [host_h1_transport(host, odd) for _ in range(3)]

    assert asyncio.run(main()) == [None, None, None]  # the host's own transport, as before
    [message] = _warnings(warnings_logged)
    assert "httpcore2 2.99.1" in message and "_retries" in message
    assert "pin httpcore2<2.99 or upgrade mcpstream" in message
    # The real stack, unchanged, gives the host's client mcpstream's transport.
    assert asyncio.run(_h1_for_stock(stack_named("httpx2"))) is not None
    assert len(_warnings(warnings_logged)) == 1


async def _h1_for_stock(stack: HttpStack) -> object:
    async with stack.httpx.AsyncClient() as host:
        transport = host_h1_transport(host, stack)
        if transport is not None:
            await transport.aclose()
        return transport


def test_a_connection_of_another_shape_leaves_the_clients_as_the_stack_makes_them(
    warnings_logged: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(H1_ENV, "0")
    core = _like(httpcore2, __version__="2.98.0", HTTP11Connection=_OddConnection)
    odd = HttpStack("httpx2", httpx2, core)
    assert not capability.hooks_fit(odd)
    assert deadline_trace(odd) is None  # a host's sync client: reads bounded one by one
    assert deadline_trace(odd) is None
    [message] = _warnings(warnings_logged)
    assert "httpcore2 2.98.0" in message and "READ_NUM_BYTES" in message
    # The pool still fits: the clients made off mcpstream's transport still read in large
    # pieces; a stack whose pool does not is left with the stack's own.
    with make_client(odd) as client:
        assert direct_transport(client) is not None
    no_pool = HttpStack("httpx2", httpx2, _like(core, ConnectionPool=object))
    with make_client(no_pool) as client:
        assert direct_transport(client) is None
        assert type(client._transport._pool._network_backend) is httpcore2.SyncBackend
    assert len(_warnings(warnings_logged)) == 2


def test_a_probe_that_raises_is_a_misfit_of_the_core() -> None:
    broken = HttpStack("httpx2", httpx2, _like(httpcore2, __version__="2.97.0", Origin=None))
    verdict = capability.verdicts(broken)["connection"]
    assert not verdict.fits and verdict.package == "httpcore2" and verdict.version == "2.97.0"
    assert "probing failed" in verdict.reason
    assert verdict.advice() == "pin httpcore2<2.97 or upgrade mcpstream"
