"""Both protocol eras against the official SDK's server on loopback: the same client code
(``Client``, ``AsyncClient``) reaches its stateful (handshake, SSE) and its stateless mode,
negotiating 2026-07-28 by itself or pinned to the handshake era: tools, a resource, a prompt,
a two-round elicitation (two rounds of ``input_required`` at 2026-07-28, two server requests on
the call's stream before), a large result and progress."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from mcpstream import AsyncClient, Client
from mcpstream.client.events import ElicitationRequest, ElicitationResponse, Progress

from .mcp_sdk_server import BIG_TEXT_UNIT

CASES = [
    ("sse", None, "modern", "2026-07-28"),
    ("sse", "legacy", "legacy", "2025-11-25"),
    ("stateless", None, "modern", "2026-07-28"),
    ("stateless", "legacy", "legacy", "2025-11-25"),
]
BIG = 300_000
STATELESS_HANDSHAKE = ("stateless", "legacy")
"""The SDK's stateless mode has no channel for server requests in the handshake era: no
elicitation there (the 2026-07-28 era asks for input in the result instead)."""


def answer(request: ElicitationRequest) -> ElicitationResponse:
    """Ada, from London."""
    properties = request.requested_schema.get("properties", {})
    if "name" in properties:
        return ElicitationResponse(action="accept", content={"name": "Ada"})
    return ElicitationResponse(action="accept", content={"city": "London"})


def expected_text(size: int) -> str:
    return (BIG_TEXT_UNIT * (size // len(BIG_TEXT_UNIT) + 1))[:size]


@pytest.mark.parametrize(("mode", "protocol", "era", "version"), CASES)
def test_the_client_reaches_both_eras(
    mcp_server_urls: dict[str, str], mode: str, protocol: str | None, era: str, version: str
) -> None:
    seen: list[Progress] = []
    with Client(mcp_server_urls[mode], protocol=protocol, elicitation_handler=answer) as client:
        assert (client.era, client.protocol_version) == (era, version)
        assert client.server_info is not None
        assert client.server_info.name == "mcpstream-test-server"
        assert "ask_two" in {tool.name for tool in client.list_tools()}
        assert client.call_tool("echo", {"text": "h\u00e9"}).text == "h\u00e9"
        if (mode, era) != STATELESS_HANDSHAKE:
            assert client.call_tool("ask_two").text == "Ada lives in London"
        assert client.call_tool("big_text", {"size": BIG}).text == expected_text(BIG)
        assert client.call_tool("count", {"steps": 3}, progress=seen.append).text == "counted 3"
        (readme,) = client.read_resource("mem://readme")
        assert readme.text == "read me"
        prompt = client.get_prompt("greet", {"who": "Bob"})
        assert "Bob" in str(prompt.messages[0].content)
        assert client.ping() >= 0
    assert [progress.progress for progress in seen] == [1, 2, 3]


@pytest.mark.parametrize(("mode", "protocol", "era", "version"), CASES)
def test_the_async_client_reaches_both_eras(
    mcp_server_urls: dict[str, str], mode: str, protocol: str | None, era: str, version: str
) -> None:
    async def scenario() -> dict[str, Any]:
        url = mcp_server_urls[mode]
        async with AsyncClient(url, protocol=protocol, elicitation_handler=answer) as client:
            return {
                "era": (client.era, client.protocol_version),
                "two": (
                    (await client.call_tool("ask_two")).text
                    if (mode, era) != STATELESS_HANDSHAKE
                    else "Ada lives in London"
                ),
                "big": (await client.call_tool("big_text", {"size": BIG})).text,
            }

    outcome = asyncio.run(scenario())
    assert outcome == {
        "era": (era, version),
        "two": "Ada lives in London",
        "big": expected_text(BIG),
    }


def test_a_modern_client_listens_with_subscriptions_listen(mcp_server_urls: dict[str, str]) -> None:
    # No GET stream at 2026-07-28: the server's notifications come on a subscriptions/listen
    # POST stream, which the server acknowledges first.
    notes: list[Any] = []
    with Client(mcp_server_urls["stateless"], on_notification=notes.append) as client:
        assert client.era == "modern"
        deadline = time.monotonic() + 5.0
        while not notes and time.monotonic() < deadline:
            time.sleep(0.02)
    assert notes and notes[0].method == "notifications/subscriptions/acknowledged"
    assert notes[0].params["notifications"]["toolsListChanged"] is True
