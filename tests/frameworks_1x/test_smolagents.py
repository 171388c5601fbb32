"""smolagents through mcpadapt (on the SDK's 1.x line) over mcpstream by ``install()``: mcpadapt
keeps the SDK's deprecated ``streamablehttp_client`` in a module-level table (``TRANSPORTS``),
which ``install()`` rebinds too. mcpadapt does not pass progress on (its calls take no progress
callback), so there is no progress step here."""

from __future__ import annotations

from typing import Any

import mcp.client.streamable_http as sdk_module
import mcpadapt.core
import mcpstream.sdk
import pytest
from mcpadapt.core import MCPAdapt
from mcpadapt.smolagents_adapter import SmolAgentsAdapter

from .conftest import HOST_TIMEOUT_S, LARGE, Relays, times_out_as_over_the_sdk


@pytest.mark.usefixtures("installed")
def test_tools_a_call_and_a_large_result_by_install(server_url: str, relays: Relays) -> None:
    transport = mcpadapt.core.TRANSPORTS["streamable-http"]
    assert transport is sdk_module.streamablehttp_client  # the installed forwarder
    assert transport.__wrapped__ is mcpstream.sdk.streamablehttp_client  # type: ignore[attr-defined]
    with MCPAdapt(
        {"url": server_url, "transport": "streamable-http"}, SmolAgentsAdapter()
    ) as tools:
        by_name = {tool.name: tool for tool in tools}
        assert sorted(by_name) == ["big_text", "count", "echo"]
        assert by_name["echo"](text="smol") == "smol"
        assert len(by_name["big_text"](size=LARGE)) == LARGE
    assert relays.made == 1


def test_the_hosts_timeout_ends_the_wait_for_a_silent_server(
    silent_url: str, relays: Relays
) -> None:
    """The server's ``timeout`` and ``sse_read_timeout`` (the host's HTTP timeouts, passed on to
    the transport) end the wait as over the SDK's transport. mcpadapt's synchronous entry waits
    out its own ``connect_timeout`` whatever the transport raised (over either transport), so
    the transport's failure is seen through its asynchronous one."""
    params: dict[str, Any] = {
        "url": silent_url,
        "transport": "streamable-http",
        "timeout": HOST_TIMEOUT_S,
        "sse_read_timeout": HOST_TIMEOUT_S,
    }

    async def attempt() -> None:
        async with MCPAdapt(params, SmolAgentsAdapter()):
            pass

    times_out_as_over_the_sdk(attempt, relays)
