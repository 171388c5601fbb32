"""langchain-mcp-adapters (on the SDK's 1.x line) over mcpstream: by ``install()`` (its
``MultiServerMCPClient`` binds the SDK's ``streamable_http_client`` at import) and by its own
hook (``load_mcp_tools(session)`` with a session opened on ``mcpstream.sdk``)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import anyio
import langchain_mcp_adapters.sessions as sessions
import mcp.client.streamable_http as sdk_module
import mcpstream.sdk
import pytest
from langchain_mcp_adapters.callbacks import CallbackContext, Callbacks
from langchain_mcp_adapters.client import MultiServerMCPClient
from langchain_mcp_adapters.sessions import StreamableHttpConnection
from langchain_mcp_adapters.tools import load_mcp_tools
from mcp import ClientSession

from .conftest import (
    HOST_TIMEOUT_S,
    LARGE,
    STEPS,
    Relays,
    gives_the_sdk_transport_back,
    leaves,
    times_out_as_over_the_sdk,
)


def _client(
    url: str, callbacks: Callbacks | None = None, timeout: timedelta | None = None
) -> MultiServerMCPClient:
    connection: StreamableHttpConnection = {"url": url, "transport": "streamable_http"}
    if timeout is not None:  # the host's HTTP timeouts, as the connection takes them
        connection["timeout"] = connection["sse_read_timeout"] = timeout
    return MultiServerMCPClient({"server": connection}, callbacks=callbacks)


def _text(output: Any) -> str:
    # The tool's output: a string, or LangChain's content blocks.
    if isinstance(output, str):
        return output
    return "".join(block["text"] if isinstance(block, dict) else str(block) for block in output)


@pytest.mark.usefixtures("installed")
def test_tools_a_call_and_a_large_result_by_install(server_url: str, relays: Relays) -> None:
    async def main() -> tuple[list[str], str, int]:
        tools = {tool.name: tool for tool in await _client(server_url).get_tools()}
        echoed = _text(await tools["echo"].ainvoke({"text": "over mcpstream"}))
        large = _text(await tools["big_text"].ainvoke({"size": LARGE}))
        return sorted(tools), echoed, len(large)

    names, echoed, size = anyio.run(main)
    assert names == ["big_text", "count", "echo"]
    assert echoed == "over mcpstream"
    assert size == LARGE
    assert relays.made >= 3  # langchain opens a session for the listing and for each call


def test_its_own_hook_a_session_opened_on_mcpstream(server_url: str, relays: Relays) -> None:
    async def main() -> tuple[list[str], str, str | None]:
        async with (
            mcpstream.sdk.streamable_http_client(server_url) as (read, write, session_id),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            tools = {tool.name: tool for tool in await load_mcp_tools(session)}
            echoed = _text(await tools["echo"].ainvoke({"text": "hook"}))
            return sorted(tools), echoed, session_id()

    names, echoed, session_id = anyio.run(main)
    assert names == ["big_text", "count", "echo"]
    assert echoed == "hook"
    assert session_id  # the 1.x triple's get_session_id, from mcpstream's transport
    assert relays.made == 1


def _progress_seen() -> tuple[Callbacks, list[tuple[float, float | None, str | None]]]:
    """Callbacks whose ``on_progress`` records what it receives, and that record."""
    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(
        progress: float, total: float | None, message: str | None, context: CallbackContext
    ) -> None:
        seen.append((progress, total, message))

    return Callbacks(on_progress=on_progress), seen


COUNTED = [(float(step), float(STEPS), f"step {step}") for step in range(1, STEPS + 1)]
"""What ``on_progress`` receives of ``count``."""


@pytest.mark.usefixtures("installed")
def test_progress_reaches_its_callback_by_install(server_url: str, relays: Relays) -> None:
    callbacks, seen = _progress_seen()

    async def main() -> str:
        client = _client(server_url, callbacks)
        tools = {tool.name: tool for tool in await client.get_tools()}
        return _text(await tools["count"].ainvoke({"steps": STEPS}))

    assert anyio.run(main) == f"counted {STEPS}"
    assert seen == COUNTED
    assert relays.made == 2  # the listing's session and the call's


def test_progress_reaches_its_callback_by_its_own_hook(server_url: str, relays: Relays) -> None:
    callbacks, seen = _progress_seen()

    async def main() -> str:
        async with (
            mcpstream.sdk.streamable_http_client(server_url) as (read, write, _),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            tools = {tool.name: tool for tool in await load_mcp_tools(session, callbacks=callbacks)}
            return _text(await tools["count"].ainvoke({"steps": STEPS}))

    assert anyio.run(main) == f"counted {STEPS}"
    assert seen == COUNTED
    assert relays.made == 1


def test_uninstall_gives_the_sdk_transport_back(server_url: str, relays: Relays) -> None:
    async def main() -> list[str]:
        return sorted(tool.name for tool in await _client(server_url).get_tools())

    gives_the_sdk_transport_back(
        lambda: anyio.run(main), ["big_text", "count", "echo"], relays, sdk_module, sessions
    )


def test_the_server_down_fails_as_over_the_sdk_transport(down_url: str) -> None:
    async def failure() -> BaseException:
        try:
            await _client(down_url).get_tools()
        except BaseException as exc:
            return exc
        raise AssertionError("no failure")

    over_sdk = anyio.run(failure)
    mcpstream.sdk.install()
    try:
        over_mcpstream = anyio.run(failure)
    finally:
        mcpstream.sdk.uninstall()
    assert type(over_mcpstream) is type(over_sdk)
    assert leaves(over_mcpstream) == leaves(over_sdk)


def test_the_hosts_timeout_ends_the_wait_for_a_silent_server(
    silent_url: str, relays: Relays
) -> None:
    """The connection's ``timeout`` and ``sse_read_timeout`` (the host's HTTP timeouts) end the
    wait as over the SDK's transport: the same failure, near the same time."""
    limit = timedelta(seconds=HOST_TIMEOUT_S)

    async def attempt() -> None:
        await _client(silent_url, timeout=limit).get_tools()

    times_out_as_over_the_sdk(attempt, relays)


@pytest.mark.usefixtures("installed")
def test_a_session_per_call_shares_one_tls_context_by_install(server_url: str) -> None:
    # langchain calls the SDK's create_mcp_http_client for every session: under install() each
    # of those clients takes the process's TLS context instead of building and loading one.
    contexts: list[object] = []
    factory = sessions.create_mcp_http_client

    def recording(*args: Any, **kwargs: Any) -> Any:
        client = factory(*args, **kwargs)
        contexts.append(client._transport._pool._ssl_context)
        return client

    async def main() -> str:
        connection: StreamableHttpConnection = {
            "url": server_url,
            "transport": "streamable_http",
            "httpx_client_factory": recording,
        }
        tools = {t.name: t for t in await MultiServerMCPClient({"s": connection}).get_tools()}
        return _text(await tools["echo"].ainvoke({"text": "shared"}))

    assert anyio.run(main) == "shared"
    assert len(contexts) >= 2 and all(context is contexts[0] for context in contexts)
