"""``mcpstream.sdk.install()``: the SDK's own ``mcp.Client`` (which binds the SDK's
``streamable_http_client`` at import) reaches the SDK's server over mcpstream once installed, and
over the SDK's transport again after ``uninstall()``; every module global holding the SDK's
function is rebound, found by identity; an SDK it was not built for is refused untouched."""

from __future__ import annotations

import logging
import sys
import threading
import types
from collections.abc import Iterator
from typing import Any

import mcp.client.client
import mcp.client.session_group
import mcp.client.streamable_http as sdk_module
import mcpstream.sdk
import mcpstream.sdk.client
import mcpstream.sdk.installer as installer
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client as bound_at_import
from mcpstream.errors import McpSdkUnsupportedError, McpStreamError
from mcpstream.sdk import install, installed, uninstall

from .conftest import run
from .relays import Relays

# Kept in a tuple, not as a module global: install() rebinds every module global that holds
# the SDK's function (as this module's ``bound_at_import`` shows), and this one must not move.
_ORIGINAL = (sdk_module.streamable_http_client,)


@pytest.fixture(autouse=True)
def _uninstalled() -> Iterator[None]:
    """Every test starts and ends with the SDK's own function in place."""
    uninstall()
    assert sdk_module.streamable_http_client is _ORIGINAL[0]
    yield
    uninstall()


def _echo(url: str, text: str) -> str:
    """Call ``echo`` through the SDK's ``mcp.Client`` given a URL (the SDK picks the
    transport: its module global ``streamable_http_client``)."""

    async def main() -> str:
        async with Client(url) as client:
            result = await client.call_tool("echo", {"text": text})
            return result.content[0].text  # type: ignore[union-attr]

    return run(main())


def test_mcp_client_runs_over_mcpstream_once_installed_and_over_the_sdk_after(
    mcp_server_urls: dict[str, str], relays: Relays
) -> None:
    url = mcp_server_urls["sse"]
    assert _echo(url, "before") == "before"
    assert relays.made == 0  # the SDK's own transport
    install()
    assert installed()
    assert _echo(url, "during") == "during"
    assert relays.made == 1  # mcp.Client opened mcpstream's transport
    uninstall()
    assert not installed()
    assert _echo(url, "after") == "after"
    assert relays.made == 1


def test_every_module_global_that_held_the_sdk_function_is_rebound(
    mcp_server_urls: dict[str, str], relays: Relays
) -> None:
    install()
    installed_function = sdk_module.streamable_http_client
    assert installed_function is not _ORIGINAL[0]
    assert installed_function.__name__ == "streamable_http_client"
    # Modules that bound the SDK's function at their import, before install(): this test
    # module (under the name it chose), the SDK's own mcp.Client and session group.
    assert globals()["bound_at_import"] is installed_function
    assert mcp.client.client.streamable_http_client is installed_function
    assert mcp.client.session_group.streamable_http_client is installed_function

    async def main() -> str:
        async with Client(bound_at_import(mcp_server_urls["json"])) as client:
            result = await client.call_tool("echo", {"text": "rebound"})
            return result.content[0].text  # type: ignore[union-attr]

    assert run(main()) == "rebound"
    assert relays.made == 1


def test_uninstall_restores_every_one_and_leaves_mcpstreams_own_name_alone() -> None:
    install()
    # A module imported while installed takes the installed function from the SDK's module.
    late = types.ModuleType("tests_sdk_late_importer")
    exec("from mcp.client.streamable_http import streamable_http_client as late", vars(late))
    sys.modules[late.__name__] = late
    try:
        assert late.late is sdk_module.streamable_http_client
        uninstall()
        assert late.late is _ORIGINAL[0]
    finally:
        del sys.modules[late.__name__]
    assert sdk_module.streamable_http_client is _ORIGINAL[0]
    assert bound_at_import is _ORIGINAL[0]
    assert mcp.client.client.streamable_http_client is _ORIGINAL[0]
    assert mcp.client.session_group.streamable_http_client is _ORIGINAL[0]
    # A host's explicit use of mcpstream's function is not the SDK's, installed or not.
    assert mcpstream.sdk.streamable_http_client is mcpstream.sdk.client.streamable_http_client
    assert mcpstream.sdk.streamable_http_client is not _ORIGINAL[0]


def test_a_signature_it_was_not_built_for_is_refused_untouched(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The SDK 1.x's deprecated transport's keywords, which mcpstream.sdk does not take.
    def other(url: str, *, headers: Any = None, sse_read_timeout: float = 300) -> Any:
        raise AssertionError("never called")

    monkeypatch.setattr(sdk_module, "streamable_http_client", other)
    with pytest.raises(McpSdkUnsupportedError) as caught:
        install()
    assert isinstance(caught.value, McpStreamError)
    assert "'sse_read_timeout'" in caught.value.reason
    assert "nothing was changed" in str(caught.value)
    assert not installed()
    assert sdk_module.streamable_http_client is other
    assert mcp.client.client.streamable_http_client is _ORIGINAL[0]


def test_a_positional_keyword_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    def positional(url: str, http_client: Any = None) -> Any:
        raise AssertionError("never called")

    monkeypatch.setattr(sdk_module, "streamable_http_client", positional)
    with pytest.raises(McpSdkUnsupportedError, match="'http_client'"):
        install()
    assert not installed()


def test_another_sdk_line_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(installer, "MAJOR", 3)
    monkeypatch.setattr(installer, "_sdk_version", lambda: "3.0.0")
    with pytest.raises(McpSdkUnsupportedError) as caught:
        install()
    assert caught.value.sdk_version == "3.0.0"
    assert "2.x and 1.x" in caught.value.reason
    assert sdk_module.streamable_http_client is _ORIGINAL[0]


def test_a_module_level_table_holding_the_sdk_function_is_rebound_and_restored() -> None:
    # As mcpadapt keeps it: TRANSPORTS = {"streamable-http": streamablehttp_client, ...}.
    table_module = types.ModuleType("tests_sdk_transport_table")
    table_module.TRANSPORTS = {"streamable-http": _ORIGINAL[0], "sse": print}  # type: ignore[attr-defined]
    sys.modules[table_module.__name__] = table_module
    try:
        install()
        transports = table_module.TRANSPORTS  # type: ignore[attr-defined]
        assert transports["streamable-http"] is sdk_module.streamable_http_client
        assert transports["streamable-http"] is not _ORIGINAL[0]
        assert transports["sse"] is print
        uninstall()
        assert transports["streamable-http"] is _ORIGINAL[0]
    finally:
        del sys.modules[table_module.__name__]


def test_install_and_uninstall_twice_are_harmless(caplog: pytest.LogCaptureFixture) -> None:
    uninstall()  # not installed: nothing to do
    assert not installed()
    with caplog.at_level(logging.INFO, logger="mcpstream.sdk.installer"):
        install()
        first = sdk_module.streamable_http_client
        install()
    assert sdk_module.streamable_http_client is first
    assert mcp.client.client.streamable_http_client is first
    messages = [record.getMessage() for record in caplog.records]
    assert len(messages) == 1  # the second call changed nothing
    assert "mcp.client.client.streamable_http_client" in messages[0]
    assert "mcp.client.streamable_http.streamable_http_client" in messages[0]
    uninstall()
    uninstall()
    assert sdk_module.streamable_http_client is _ORIGINAL[0]


def test_concurrent_installs_rebind_once() -> None:
    barrier = threading.Barrier(8)
    seen: list[object] = []

    def racer() -> None:
        barrier.wait()
        install()
        seen.append(sdk_module.streamable_http_client)

    threads = [threading.Thread(target=racer) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert len(seen) == 8
    assert len({id(function) for function in seen}) == 1
    assert seen[0] is not _ORIGINAL[0]
    assert mcp.client.client.streamable_http_client is seen[0]
