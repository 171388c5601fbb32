"""The options of ``mcpstream.sdk.streamable_http_client`` as the SDK defines them, each run
over the SDK's transport and over mcpstream's against the SDK's server: the event cap
(``max_sse_event_size``) caps SSE events only, as the SDK's does; JSON bodies keep
mcpstream's own limit."""

from __future__ import annotations

import inspect

import mcp_types as types
import pytest
from mcp import Client, MCPError
from mcpstream.codec import DEFAULT_MAX_EVENT_BYTES
from mcpstream.sdk.options import RelayOptions

from .conftest import run
from .transports import CAPPED, TRANSPORTS

MIB = 1 << 20
# About 3.9 MB of JSON body: the text grows in JSON (multi-byte characters, U+2028), and at
# 2026-07-28 the server sends it twice (content and structured content).
SIZES = {"legacy": 1_400_000, "auto": 850_000}


@pytest.mark.parametrize("transport", CAPPED)
def test_a_large_json_result_is_not_capped_by_the_event_cap(
    mcp_server_urls: dict[str, str], mode: str, transport: str
) -> None:
    size = SIZES[mode]

    async def main() -> str:
        factory = TRANSPORTS[transport](mcp_server_urls["json"], max_sse_event_size=MIB)
        async with Client(factory, mode=mode) as c:
            result = await c.call_tool("big_text", {"size": size})
            text = result.content[0]
            assert isinstance(text, types.TextContent)
            return text.text

    assert len(run(main(), 120)) == size


@pytest.mark.parametrize("transport", CAPPED)
def test_an_sse_event_past_the_cap_fails_the_request_as_in_the_sdk(
    mcp_server_urls: dict[str, str], transport: str
) -> None:
    # In the handshake era the server in SSE mode answers on an event stream (at 2026-07-28
    # a result comes back as JSON).
    mode = "legacy"

    async def main() -> tuple[MCPError, str]:
        factory = TRANSPORTS[transport](mcp_server_urls["sse"], max_sse_event_size=MIB)
        async with Client(factory, mode=mode) as c:
            with pytest.raises(MCPError) as caught:
                await c.call_tool("big_text", {"size": SIZES[mode]})
            after = (await c.call_tool("echo", {"text": "after"})).content[0]
            assert isinstance(after, types.TextContent)
            return caught.value, after.text

    error, after = run(main(), 120)
    assert error.error.code == types.CONNECTION_CLOSED
    assert error.error.message.startswith("SSE stream failed")
    assert after == "after"  # the session goes on


def test_the_json_budget_is_mcpstreams_own_or_the_cap_if_larger() -> None:
    assert RelayOptions(max_sse_event_size=MIB).max_json_bytes == DEFAULT_MAX_EVENT_BYTES
    assert RelayOptions(max_sse_event_size=128 * MIB).max_json_bytes == 128 * MIB
    assert RelayOptions(max_sse_event_size=None).max_json_bytes is None


def test_the_event_cap_is_taken_whatever_the_sdks_release() -> None:
    # mcp before 2.2 has no max_sse_event_size: mcpstream's keyword is accepted all the same.
    assert "mcpstream" in CAPPED
    assert "max_sse_event_size" in inspect.signature(TRANSPORTS["mcpstream"]).parameters
