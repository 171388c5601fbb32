"""The table of what differs between httpx and httpx2 (``mcpstream._httpbase.stack``): which stack a
client is on, how every failure of either is sorted, and the capability probes that keep the
private hooks of the speed work off cores of another shape."""

from __future__ import annotations

import types

import httpcore2
import httpx
import httpx2
import pytest
from mcpstream._http import capability, wire
from mcpstream._http.httpx_clients import deadline_trace, direct_transport, make_client
from mcpstream._httpbase.stack import (
    HTTPX,
    HttpStack,
    StackErrors,
    as_httpx_error,
    http_errors,
    raised_on_any,
    stack_named,
    stack_of,
)

HTTPX2 = stack_named("httpx2")


def _request_errors(module: types.ModuleType) -> dict[str, type[Exception]]:
    """Every ``RequestError`` class of ``module`` (an httpx line), by name."""
    return {
        name: value
        for name in module.__all__
        if isinstance(value := getattr(module, name), type)
        and issubclass(value, module.RequestError)
    }


def test_a_client_brings_its_stack_and_a_name_picks_one() -> None:
    with httpx.Client() as one, httpx2.Client() as two:
        assert stack_of(one) is HTTPX and stack_of(two) is HTTPX2
        assert stack_of(httpx.AsyncClient()) is HTTPX
        assert stack_of(httpx2.AsyncClient()) is HTTPX2
    assert stack_named(None) is HTTPX and stack_named("httpx") is HTTPX
    # Under ``alias_httpx`` the module ``httpx`` is httpx2's: one stack then, named httpx2.
    assert HTTPX.name == httpx.__name__ and HTTPX2.name == "httpx2"
    assert (HTTPX is HTTPX2) is (httpx is httpx2)
    with pytest.raises(ValueError, match="http_stack"):
        stack_named("aiohttp")


def test_every_httpx2_failure_is_sorted_as_its_httpx_twin() -> None:
    twins = _request_errors(httpx)
    theirs = _request_errors(httpx2)
    assert set(twins) <= set(theirs)
    for name, ours in twins.items():
        mine = wire.failure(ours("x")).kind
        other = wire.failure(theirs[name]("x")).kind
        assert other is mine, name
        assert isinstance(theirs[name]("x"), http_errors())
        assert type(as_httpx_error(theirs[name]("x"), httpx.Request("GET", "http://h/"))) is ours
    assert wire.failure(httpx2.ConnectTimeout("x")).kind is wire.FailureKind.CONNECT_TIMEOUT
    assert wire.failure(httpx2.ReadTimeout("x")).kind is wire.FailureKind.TIMEOUT
    assert wire.failure(httpx2.ConnectError("x")).kind is wire.FailureKind.NETWORK
    assert set(raised_on_any(lambda r: r.ConnectError)) == {httpx.ConnectError, httpx2.ConnectError}


def test_each_stack_raises_its_own_classes_checked_when_the_stack_is_made() -> None:
    for stack, module in ((HTTPX, httpx), (HTTPX2, httpx2)):
        for name in StackErrors.__slots__:
            assert getattr(stack.raises, name) is getattr(module, name)
        assert stack.raises.timeout("read") is module.ReadTimeout
        assert stack.raises.timeout("pool") is module.PoolTimeout
    moved = types.SimpleNamespace(**vars(httpx2))
    del moved.ReadError
    with pytest.raises(TypeError, match="ReadError"):
        StackErrors.of(moved)
    moved.ReadError = ValueError  # there, but no TransportError of the stack
    with pytest.raises(TypeError, match="ReadError"):
        StackErrors.of(moved)


@pytest.mark.httpcore_client
def test_a_core_of_another_shape_gets_no_private_hook() -> None:
    # Whether the hooks fit is probed by what the core has, not by its version
    # (``capability``): a newer httpcore2 of the same shape fits; an empty module does not.
    newer = types.ModuleType("httpcore2")
    newer.__dict__.update({k: v for k, v in vars(httpcore2).items() if not k.startswith("__")})
    newer.__version__ = "3.0.0"  # type: ignore[attr-defined]
    assert capability.hooks_fit(HttpStack.of_modules(httpx2, newer))
    empty = types.ModuleType("httpcore2")
    empty.__version__ = "3.0.0"  # type: ignore[attr-defined]
    assert not capability.hooks_fit(HttpStack.of_modules(httpx2, empty))
    # A core whose pool is another class: httpx2's client keeps its own.
    other = types.ModuleType("httpcore2")
    other.__dict__.update(newer.__dict__)
    other.ConnectionPool = object  # type: ignore[attr-defined]
    unfit = HttpStack.of_modules(httpx2, other)
    assert not capability.hooks_fit(unfit)
    # The installed releases fit (the constraints' and the newest: CI runs both).
    assert capability.hooks_fit(HTTPX) and capability.hooks_fit(HTTPX2)
    with make_client(unfit) as client:
        assert isinstance(client, httpx2.Client)
        assert direct_transport(client) is None  # httpx2's own pool, left as it is
        assert type(client._transport._pool._network_backend) is httpcore2.SyncBackend
    assert deadline_trace(unfit) is not None  # its connection still fits: that hook stays
    with make_client(HTTPX2) as client:
        assert direct_transport(client) is not None
