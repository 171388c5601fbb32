"""smolagents through mcpadapt (on the SDK's 1.x line) over mcpstream by ``install()``: mcpadapt
keeps the SDK's deprecated ``streamablehttp_client`` in a module-level table (``TRANSPORTS``),
which ``install()`` rebinds too."""

from __future__ import annotations

import mcp.client.streamable_http as sdk_module
import mcpadapt.core
import mcpstream.sdk
import pytest
from mcpadapt.core import MCPAdapt
from mcpadapt.smolagents_adapter import SmolAgentsAdapter

from .conftest import LARGE, Relays


@pytest.mark.usefixtures("installed")
def test_tools_a_call_and_a_large_result_by_install(server_url: str, relays: Relays) -> None:
    transport = mcpadapt.core.TRANSPORTS["streamable-http"]
    assert transport is sdk_module.streamablehttp_client  # the installed forwarder
    assert transport.__wrapped__ is mcpstream.sdk.streamablehttp_client
    with MCPAdapt(
        {"url": server_url, "transport": "streamable-http"}, SmolAgentsAdapter()
    ) as tools:
        by_name = {tool.name: tool for tool in tools}
        assert sorted(by_name) == ["big_text", "count", "echo"]
        assert by_name["echo"](text="smol") == "smol"
        assert len(by_name["big_text"](size=LARGE)) == LARGE
    assert relays.made == 1
