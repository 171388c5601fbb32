"""``mcpstream.sdk.streamable_http_client`` under the SDK's own ``mcp.Client`` and
``ClientSession``, against the SDK's server (SSE, JSON and stateless modes) in both eras."""

from __future__ import annotations

from typing import Any

import httpx
import mcp_types as types
import pytest
from mcp import Client, ClientSession, MCPError
from mcp.client.context import ClientRequestContext
from mcp.shared.message import ClientMessageMetadata
from mcpstream.sdk import streamable_http_client

from .conftest import run
from .transports import leaves

BIG = 16 * 1024 * 1024


class Recorder:
    """An ``httpx.AsyncClient`` (the host's own) that records every request it sends."""

    def __init__(self) -> None:
        self.requests: list[httpx.Request] = []
        self.client = httpx.AsyncClient(event_hooks={"request": [self._record]})

    async def _record(self, request: httpx.Request) -> None:
        self.requests.append(request)

    def methods(self) -> list[str]:
        return [request.method for request in self.requests]


async def _name(context: ClientRequestContext, params: Any) -> types.ElicitResult:
    return types.ElicitResult(action="accept", content={"name": "Ada"})


@pytest.mark.parametrize("server_mode", ["sse", "json", "stateless"])
def test_mcp_client_lists_and_calls_in_each_era_and_server_mode(
    mcp_server_urls: dict[str, str], server_mode: str, mode: str
) -> None:
    async def main() -> tuple[str, str, list[str], str, str]:
        async with Client(streamable_http_client(mcp_server_urls[server_mode]), mode=mode) as c:
            tools = await c.list_tools()
            echoed = await c.call_tool("echo", {"text": "h\u00e9llo \u2028"})
            resource = await c.read_resource("mem://readme")
            prompt = await c.get_prompt("greet", {"who": "Ada"})
            return (
                c.protocol_version,
                _text(echoed),
                sorted(tool.name for tool in tools.tools),
                resource.contents[0].text,  # type: ignore[union-attr]
                prompt.messages[0].content.text,  # type: ignore[union-attr]
            )

    version, echoed, tools, resource, prompt = run(main())
    assert version == ("2025-11-25" if mode == "legacy" else "2026-07-28")
    assert echoed == "h\u00e9llo \u2028"
    assert {"echo", "big_text", "ask_name"} <= set(tools)
    assert resource == "read me"
    assert prompt == "Say hello to Ada."


def test_client_session_drives_the_streams_directly(mcp_server_urls: dict[str, str]) -> None:
    async def main() -> str:
        async with (
            streamable_http_client(mcp_server_urls["sse"]) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            return _text(await session.call_tool("echo", {"text": "direct"}))

    assert run(main()) == "direct"


def test_a_16_mib_result_arrives_whole(mcp_server_urls: dict[str, str], mode: str) -> None:
    # At 2026-07-28 the server also sends the text as structured content, and its multi-byte
    # characters grow in JSON: half as many characters stay within the 64 MiB event cap.
    size = BIG if mode == "legacy" else BIG // 2

    async def main() -> int:
        async with Client(streamable_http_client(mcp_server_urls["sse"]), mode=mode) as c:
            return len(_text(await c.call_tool("big_text", {"size": size})))

    assert run(main(), 120) == size


def test_the_event_cap_fails_the_request_with_a_json_rpc_error(
    mcp_server_urls: dict[str, str],
) -> None:
    # The handshake era: the server answers on an event stream (at 2026-07-28 a result is a
    # JSON body, which the event cap does not bound, as in the SDK).
    mode = "legacy"

    async def main() -> tuple[MCPError, str]:
        transport = streamable_http_client(mcp_server_urls["sse"], max_sse_event_size=64 * 1024)
        async with Client(transport, mode=mode) as c:
            with pytest.raises(MCPError) as caught:
                await c.call_tool("big_text", {"size": 200_000})
            # The session goes on after the refused message.
            return caught.value, _text(await c.call_tool("echo", {"text": "after"}))

    error, after = run(main())
    assert error.error.data == {"mcpstream_error": "McpHttpTransportResponseTooLargeError"}
    assert "65536" in error.error.message
    assert after == "after"


def test_session_id_get_stream_and_delete_on_close(mcp_server_urls: dict[str, str]) -> None:
    recorder = Recorder()

    async def main() -> tuple[list[str], str]:
        seen: list[Any] = []

        async def on_message(message: Any) -> None:
            seen.append(message)

        transport = streamable_http_client(mcp_server_urls["sse"], http_client=recorder.client)
        async with Client(transport, mode="legacy", message_handler=on_message) as c:
            # The poke tool sends a notification and a ping on the GET stream.
            poked = _text(await c.call_tool("poke", {}))
            for _ in range(100):
                if any(isinstance(m, types.ToolListChangedNotification) for m in seen):
                    break
                await _sleep(0.05)
        await recorder.client.aclose()
        assert any(isinstance(m, types.ToolListChangedNotification) for m in seen)
        return recorder.methods(), poked

    methods, poked = run(main())
    assert poked == "poked"
    session_ids = {r.headers.get("mcp-session-id") for r in recorder.requests[1:]}
    assert len(session_ids) == 1 and None not in session_ids
    assert "mcp-session-id" not in recorder.requests[0].headers  # the initialize POST
    assert "GET" in methods
    assert methods[-1] == "DELETE"
    # The ping on the GET stream was answered by the session: a POST carrying its result.
    answers = [r for r in recorder.requests if r.method == "POST" and b'"result"' in r.content]
    assert answers


def test_no_delete_when_terminate_on_close_is_false(mcp_server_urls: dict[str, str]) -> None:
    recorder = Recorder()

    async def main() -> None:
        transport = streamable_http_client(
            mcp_server_urls["sse"], http_client=recorder.client, terminate_on_close=False
        )
        async with Client(transport, mode="legacy") as c:
            await c.call_tool("echo", {"text": "x"})
        await recorder.client.aclose()

    run(main())
    assert "DELETE" not in recorder.methods()


def test_an_expired_session_is_the_servers_invalid_request(mcp_server_urls: dict[str, str]) -> None:
    recorder = Recorder()

    async def main() -> MCPError:
        transport = streamable_http_client(mcp_server_urls["sse"], http_client=recorder.client)
        async with Client(transport, mode="legacy") as c:
            await c.call_tool("echo", {"text": "x"})
            session_id = next(
                r.headers["mcp-session-id"]
                for r in recorder.requests
                if "mcp-session-id" in r.headers
            )
            # The session ends behind the client's back.
            async with httpx.AsyncClient() as other:
                ended = await other.delete(
                    mcp_server_urls["sse"],
                    headers={"mcp-session-id": session_id, "mcp-protocol-version": "2025-11-25"},
                )
                assert ended.status_code in (200, 204)
            with pytest.raises(MCPError) as caught:
                await c.call_tool("echo", {"text": "x"})
        await recorder.client.aclose()
        return caught.value

    error = run(main())
    # The SDK's server answers 404 with a JSON-RPC error, which the session gets as it is (as
    # from the SDK's transport); a 404 without one is "Session terminated" (test_hostile).
    assert error.error.code == types.INVALID_REQUEST
    # The server's own text: mcp 2.3's, and 2.0's (the lowest the sdk extra allows).
    assert error.error.message in ("Session not found", "Not Found: Session has been terminated")


def test_an_elicitation_during_a_call_is_answered_by_the_session(
    mcp_server_urls: dict[str, str],
) -> None:
    # A request on the call's stream is of the handshake era (at 2026-07-28 the server asks
    # with input_required results, below).
    async def main() -> str:
        transport = streamable_http_client(mcp_server_urls["sse"])
        async with Client(transport, mode="legacy", elicitation_callback=_name) as c:
            return _text(await c.call_tool("ask_name", {}))

    assert run(main()) == "hello Ada"


def test_two_elicitations_in_a_row(mcp_server_urls: dict[str, str], mode: str) -> None:
    async def answer(context: ClientRequestContext, params: Any) -> types.ElicitResult:
        if "name" in params.message:
            return types.ElicitResult(action="accept", content={"name": "Ada"})
        return types.ElicitResult(action="accept", content={"city": "Paris"})

    async def main() -> str:
        transport = streamable_http_client(mcp_server_urls["sse"])
        async with Client(transport, mode=mode, elicitation_callback=answer) as c:
            return _text(await c.call_tool("ask_two", {}))

    assert run(main()) == "Ada lives in Paris"


def test_a_declined_elicitation_is_posted_and_the_call_goes_on(
    mcp_server_urls: dict[str, str],
) -> None:
    async def decline(context: ClientRequestContext, params: Any) -> types.ElicitResult:
        return types.ElicitResult(action="decline")

    async def main() -> str:
        transport = streamable_http_client(mcp_server_urls["sse"])
        async with Client(transport, mode="legacy", elicitation_callback=decline) as c:
            return _text(await c.call_tool("ask_name", {}))

    assert run(main()) == "elicitation decline"


def test_an_error_answer_of_the_session_reaches_the_server_and_the_call_goes_on(
    mcp_server_urls: dict[str, str],
) -> None:
    async def main() -> tuple[MCPError, str]:
        # Without a sampling callback the session answers sampling with an error, which the
        # server's tool raises as its own.
        async with Client(streamable_http_client(mcp_server_urls["sse"]), mode="legacy") as c:
            with pytest.raises(MCPError) as caught:
                await c.call_tool("sample", {"prompt": "hi"})
            return caught.value, _text(await c.call_tool("echo", {"text": "after"}))

    error, after = run(main())
    assert error.error.message == "Sampling not supported"
    assert after == "after"


def test_sampling_and_roots_are_answered_by_the_session(mcp_server_urls: dict[str, str]) -> None:
    async def sampling(context: ClientRequestContext, params: Any) -> types.CreateMessageResult:
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text="sampled"),
            model="test-model",
        )

    async def roots(context: ClientRequestContext) -> types.ListRootsResult:
        return types.ListRootsResult(roots=[types.Root(uri="file:///work")])

    async def main() -> tuple[str, str]:
        transport = streamable_http_client(mcp_server_urls["sse"])
        async with Client(
            transport, mode="legacy", sampling_callback=sampling, list_roots_callback=roots
        ) as c:
            return (
                _text(await c.call_tool("sample", {"prompt": "hi"})),
                _text(await c.call_tool("roots", {})),
            )

    assert run(main()) == ("sampled", "file:///work")


def test_progress_notifications_reach_the_callback_in_order(
    mcp_server_urls: dict[str, str], mode: str
) -> None:
    async def main() -> tuple[list[float], str]:
        seen: list[float] = []

        async def progress(value: float, total: float | None, message: str | None) -> None:
            seen.append(value)

        async with Client(streamable_http_client(mcp_server_urls["sse"]), mode=mode) as c:
            result = await c.call_tool("count", {"steps": 50}, progress_callback=progress)
            return seen, _text(result)

    seen, text = run(main())
    assert text == "counted 50"
    assert seen == [float(step) for step in range(1, 51)]


def test_a_broken_stream_is_resumed_and_its_tokens_reported(
    mcp_server_urls: dict[str, str],
) -> None:
    async def main() -> tuple[str, list[str], str]:
        tokens: list[str] = []

        async def on_token(token: str) -> None:
            tokens.append(token)

        async with (
            streamable_http_client(mcp_server_urls["sse"]) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            request = types.CallToolRequest(
                params=types.CallToolRequestParams(name="resumable", arguments={})
            )
            metadata = ClientMessageMetadata(on_resumption_token_update=on_token)
            result = await session.send_request(request, types.CallToolResult, metadata=metadata)
            # A request resumed from a token the session kept: GET with Last-Event-ID, no POST.
            again = ClientMessageMetadata(resumption_token=tokens[0])
            replayed = await session.send_request(
                types.CallToolRequest(
                    params=types.CallToolRequestParams(name="resumable", arguments={})
                ),
                types.CallToolResult,
                metadata=again,
            )
            return _text(result), tokens, _text(replayed)

    text, tokens, replayed = run(main())
    assert text == "resumed"
    assert tokens and all(token.startswith("ev-") for token in tokens)
    assert len(set(tokens)) == len(tokens)
    assert replayed == "resumed"


def test_modern_cancellation_closes_the_stream_and_posts_nothing(
    mcp_server_urls: dict[str, str],
) -> None:
    recorder = Recorder()

    async def main() -> str:
        transport = streamable_http_client(mcp_server_urls["sse"], http_client=recorder.client)
        async with Client(transport, mode="auto") as c:
            with pytest.raises(MCPError):
                await c.call_tool("sleep", {"seconds": 5}, read_timeout_seconds=0.5)
            after = _text(await c.call_tool("echo", {"text": "after"}))
        await recorder.client.aclose()
        return after

    assert run(main()) == "after"
    bodies = [r.content for r in recorder.requests if r.method == "POST"]
    assert not any(b"notifications/cancelled" in body for body in bodies)


def test_legacy_cancellation_is_posted(mcp_server_urls: dict[str, str]) -> None:
    recorder = Recorder()

    async def main() -> None:
        transport = streamable_http_client(mcp_server_urls["sse"], http_client=recorder.client)
        async with Client(transport, mode="legacy") as c:
            with pytest.raises(MCPError):
                await c.call_tool("sleep", {"seconds": 5}, read_timeout_seconds=0.5)
            await c.call_tool("echo", {"text": "after"})
        await recorder.client.aclose()

    run(main())
    bodies = [r.content for r in recorder.requests if r.method == "POST"]
    assert any(b"notifications/cancelled" in body for body in bodies)


def test_import_mcpstream_does_not_import_the_sdk() -> None:
    import subprocess
    import sys

    code = "import sys, mcpstream, mcpstream.transport_http; print('mcp' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


async def _sleep(seconds: float) -> None:
    import asyncio

    await asyncio.sleep(seconds)


def _text(result: types.CallToolResult) -> str:
    content = result.content[0]
    assert isinstance(content, types.TextContent)
    return content.text


def test_errors_name_the_server_by_its_url_not_sdk(mcp_server_urls: dict[str, str]) -> None:
    url = mcp_server_urls["json"]
    base = url.rsplit("/", 1)[0]
    host = base.removeprefix("http://")

    async def main() -> None:
        async with Client(streamable_http_client(f"{base}/wrong-path"), mode="legacy"):
            pass

    with pytest.raises(ExceptionGroup) as caught:
        run(main())
    errors = leaves(caught.value)
    assert len(errors) == 1 and isinstance(errors[0], MCPError)
    message = errors[0].error.message
    assert f"MCP server '{host}' at {base}/wrong-path" in message
    assert "'sdk'" not in message
    assert "no MCP endpoint at this path" in message
