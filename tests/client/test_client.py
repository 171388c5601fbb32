"""``mcpstream.Client`` against the official SDK's server (the demo server) on loopback."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest
from mcpstream import (
    Client,
    ElicitationRequest,
    ElicitationResponse,
    McpError,
    Notification,
    Progress,
    SamplingRequest,
    SamplingResponse,
    TextContent,
    close_pools,
)
from mcpstream.demo import DEMO_TEXT_UNIT, DemoServer
from mcpstream.errors import McpHttpTransportError
from transport.helpers import free_port, open_sockets_to

DEMO_TOOLS = {
    "echo",
    "add",
    "big_text",
    "count",
    "announce",
    "ask_name",
    "summarize",
    "list_roots",
    "sleep",
    "fail",
    "update_notes",
    "log_levels",
    "roots_changes",
    "render",
}


def test_the_handshake_agrees_on_2025_11_25_and_describes_the_server(server: DemoServer) -> None:
    with Client(server.url, protocol="legacy") as client:
        info = client.server_info
        assert info is not None
        assert info.protocol_version == "2025-11-25" == client.protocol_version
        assert info.name == "mcpstream-demo"
        assert info.supports("tools") and info.supports("prompts")
        assert info.instructions and "demo" in info.instructions
        assert info.raw["serverInfo"]["name"] == "mcpstream-demo"


def test_the_client_negotiates_2026_07_28_with_a_server_that_speaks_it(server: DemoServer) -> None:
    # The SDK's server speaks both eras: unpinned, the client takes the stateless one.
    with Client(server.url) as client:
        info = client.server_info
        assert info is not None
        assert client.era == info.era == "modern"
        assert info.protocol_version == "2026-07-28" == client.protocol_version
        assert info.name == "mcpstream-demo" and info.supports("tools")
        assert {tool.name for tool in client.list_tools()} == DEMO_TOOLS
        assert client.call_tool("add", {"a": 2, "b": 3}).text in ("5", "5.0")
        assert client.ping() >= 0
    with Client(server.url, protocol="legacy") as client:
        assert client.era == "legacy" and client.protocol_version == "2025-11-25"


def test_list_tools_gathers_every_page(sse_server: DemoServer, json_server: DemoServer) -> None:
    # The SSE server answers tools/list in pages of four; the JSON one in a single page.
    for demo in (sse_server, json_server):
        with Client(demo.url) as client:
            tools = client.list_tools()
        assert {tool.name for tool in tools} == DEMO_TOOLS
        assert len(tools) == len(DEMO_TOOLS)
    add = next(tool for tool in tools if tool.name == "add")
    assert add.description == "Add two numbers."
    assert add.input_schema["required"] == ["a", "b"]
    assert add.raw["name"] == "add"


def test_call_tool_returns_typed_content_and_the_structured_result(server: DemoServer) -> None:
    with Client(server.url) as client:
        result = client.call_tool("add", {"a": 2, "b": 3.5})
    assert not result.is_error
    assert result.content == (TextContent(text="5.5"),)
    assert result.text == "5.5"
    assert result.structured == {"result": 5.5}
    assert result.raw["structuredContent"] == {"result": 5.5}


def test_a_large_result_arrives_whole_with_its_multibyte_text(server: DemoServer) -> None:
    size = 1_500_000
    with Client(server.url) as client:
        result = client.call_tool("big_text", {"size": size})
    assert result.text == (DEMO_TEXT_UNIT * (size // len(DEMO_TEXT_UNIT) + 1))[:size]


def test_a_failing_tool_is_a_result_with_is_error_not_an_exception(server: DemoServer) -> None:
    with Client(server.url) as client:
        result = client.call_tool("fail", {"message": "boom"})
    assert result.is_error
    assert result.text


def test_a_json_rpc_error_is_raised_as_mcp_error_with_code_and_message(server: DemoServer) -> None:
    with Client(server.url) as client, pytest.raises(McpError) as caught:
        client.request("no/such/method")
    assert caught.value.code == McpError.METHOD_NOT_FOUND
    assert caught.value.method == "no/such/method"
    assert "-32601" in str(caught.value) and caught.value.message


def test_progress_reaches_the_callback_while_the_tool_is_still_running(
    sse_server: DemoServer,
) -> None:
    seen: list[tuple[float, Progress]] = []
    with Client(sse_server.url) as client:
        result = client.call_tool(
            "count",
            {"steps": 5, "delay": 0.1},
            progress=lambda progress: seen.append((time.monotonic(), progress)),
        )
        finished = time.monotonic()
    assert result.text == "counted to 5"
    assert [progress.progress for _, progress in seen] == [1, 2, 3, 4, 5]
    assert seen[0][1] == Progress(progress=1, total=5, message="step 1 of 5")
    assert seen[-1][1].fraction == 1.0
    # The first step was delivered while the other four (0.4 s of delays) were still to come.
    assert finished - seen[0][0] > 0.25


def test_notifications_reach_the_notification_callback(sse_server: DemoServer) -> None:
    notes: list[Notification] = []
    with Client(sse_server.url, protocol="legacy", on_notification=notes.append) as client:
        client.call_tool("announce", {"message": "hello from the server"})
        # Progress of a call without a progress callback goes to the notification callback too.
        client.call_tool("count", {"steps": 2})
    messages = [note for note in notes if note.method == "notifications/message"]
    assert [note.params["data"] for note in messages] == ["hello from the server"]
    assert sum(note.method == "notifications/progress" for note in notes) == 0


def test_a_raising_callback_does_not_break_the_call(sse_server: DemoServer) -> None:
    def explode(progress: Progress) -> None:
        raise RuntimeError("callback bug")

    with Client(sse_server.url) as client:
        assert client.call_tool("count", {"steps": 3}, progress=explode).text == "counted to 3"


def test_elicitation_is_declined_by_default(sse_server: DemoServer) -> None:
    with Client(sse_server.url, protocol="legacy") as client:
        assert client.call_tool("ask_name").text == "no name: the user chose decline"


def test_an_elicitation_handler_answers_the_server(sse_server: DemoServer) -> None:
    asked: list[ElicitationRequest] = []

    def answer(request: ElicitationRequest) -> ElicitationResponse:
        asked.append(request)
        return ElicitationResponse(action="accept", content={"name": "Ada"})

    with Client(sse_server.url, protocol="legacy", elicitation_handler=answer) as client:
        assert client.call_tool("ask_name").text == "hello Ada"
    assert asked[0].message == "What is your name?"
    assert asked[0].mode == "form"
    assert "name" in asked[0].requested_schema["properties"]


def test_sampling_is_refused_without_a_handler_and_answered_with_one(
    sse_server: DemoServer,
) -> None:
    with (
        Client(sse_server.url, protocol="legacy") as client,
        pytest.raises(McpHttpTransportError) as caught,
    ):
        client.call_tool("summarize", {"text": "long text"})
    assert "sampling/createMessage" in str(caught.value)

    def sample(request: SamplingRequest) -> SamplingResponse:
        text = request.messages[0]["content"]["text"]
        return SamplingResponse(text=f"summary of {text!r}", model="test-model")

    with Client(sse_server.url, protocol="legacy", sampling_handler=sample) as client:
        assert client.call_tool("summarize", {"text": "long text"}).text == (
            "summary of 'long text'"
        )


def test_roots_are_offered_when_given(sse_server: DemoServer, tmp_path: Path) -> None:
    with Client(sse_server.url, protocol="legacy", roots=[tmp_path, "file:///srv/repo"]) as client:
        result = client.call_tool("list_roots")
    assert result.structured == {"result": [tmp_path.resolve().as_uri(), "file:///srv/repo"]}
    with pytest.raises(ValueError, match="file://"):
        Client(sse_server.url, protocol="legacy", roots=["https://example.com/repo"])


def test_resources_templates_and_reading(server: DemoServer) -> None:
    with Client(server.url) as client:
        # The demo's skill files are resources too (skill://...): the demo's own are demo://.
        (readme,) = [r for r in client.list_resources() if r.uri.startswith("demo://")]
        templates = client.list_resource_templates()
        (contents,) = client.read_resource(readme.uri)
        (greeting,) = client.read_resource("demo://greeting/Ada")
    assert readme.uri == "demo://readme" and readme.mime_type == "text/markdown"
    assert [template.uri_template for template in templates] == [
        "demo://greeting/{name}",
        "demo://note/{name}",
    ]
    assert contents.text is not None and contents.text.startswith("# mcpstream demo server")
    assert greeting.text == "Hello, Ada!"


def test_prompts_are_listed_and_rendered(server: DemoServer) -> None:
    with Client(server.url) as client:
        prompt, greet = client.list_prompts()
        rendered = client.get_prompt("review", {"code": "x = 1"})
    assert prompt.name == "review" and greet.name == "greet"
    assert [(argument.name, argument.required) for argument in prompt.arguments] == [
        ("code", True),
        ("language", False),
    ]
    (message,) = rendered.messages
    assert message.role == "user"
    assert isinstance(message.content, TextContent)
    assert message.content.text == "Please review this python code:\n\nx = 1"


def test_ping_returns_the_round_trip_time(server: DemoServer) -> None:
    with Client(server.url) as client:
        assert 0 < client.ping() < 5


def test_the_client_connects_on_first_use_and_may_be_shared_by_threads(
    sse_server: DemoServer,
) -> None:
    client = Client(sse_server.url)
    try:
        results: list[str] = []
        threads = [
            threading.Thread(
                target=lambda i=i: results.append(client.call_tool("echo", {"text": str(i)}).text)
            )
            for i in range(8)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert sorted(results) == [str(i) for i in range(8)]
        assert client.server_info is not None
    finally:
        client.close()


def test_the_client_starts_a_new_session_once_when_the_server_restarted(
    restartable_server: DemoServer,
) -> None:
    port = restartable_server.port
    with Client(restartable_server.url, protocol="legacy") as client:
        assert client.call_tool("echo", {"text": "before"}).text == "before"
        restartable_server.stop()
        restartable_server.port = port
        restartable_server.start()
        # The new process does not know the session: 404, then a new handshake and the retry.
        assert client.call_tool("echo", {"text": "after"}).text == "after"
        assert client.session_renewals == 1
        assert len(client.list_tools()) == len(DEMO_TOOLS)
        assert client.session_renewals == 1


def test_a_bearer_token_is_sent_and_a_missing_one_is_refused() -> None:
    with DemoServer(bearer_token="s3cret") as guarded:
        with Client(guarded.url, token="s3cret") as client:
            assert client.call_tool("echo", {"text": "in"}).text == "in"
        with Client(guarded.url, headers={"Authorization": "Bearer s3cret"}) as client:
            assert client.ping() > 0
        with pytest.raises(McpHttpTransportError, match="HTTP 401"):
            Client(guarded.url).connect()


def test_oauth_uses_the_stored_login_and_names_the_login_command_without_one(
    config_dir: Path,
) -> None:
    from mcpstream.oauth import McpOAuthAuthRequiredError, default_server_id
    from mcpstream.oauth_store import McpOAuthTokenRecord, save_oauth_token_record

    with DemoServer(bearer_token="oauth-token") as guarded:
        with pytest.raises(McpOAuthAuthRequiredError, match="mcpstream auth login"):
            Client(guarded.url, oauth=True).connect()
        record = McpOAuthTokenRecord(
            access_token="oauth-token", expires_at=time.time() + 3600, server_url=guarded.url
        )
        save_oauth_token_record(default_server_id(guarded.url), record)
        with Client(guarded.url, oauth=True) as client:
            assert client.call_tool("echo", {"text": "authorized"}).text == "authorized"


def test_connection_refused_is_a_transport_error_and_leaves_the_client_closed() -> None:
    client = Client(f"http://127.0.0.1:{free_port()}/mcp", connect_timeout_s=2)
    with pytest.raises(McpHttpTransportError, match="server/discover"), client:
        pass
    assert client.closed


def test_the_context_manager_closes_the_connections_even_when_the_block_raises(
    sse_server: DemoServer,
) -> None:
    with pytest.raises(RuntimeError), Client(sse_server.url) as client:
        client.call_tool("echo", {"text": "x"})
        assert open_sockets_to(sse_server.port) >= 1
        raise RuntimeError("the caller's bug")
    assert client.closed
    close_pools()  # its idle connections went back to the process's pool, closed here
    deadline = time.monotonic() + 2
    while open_sockets_to(sse_server.port) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert open_sockets_to(sse_server.port) == 0
    with pytest.raises(McpHttpTransportError, match="closed"):
        client.ping()
    client.close()  # idempotent


def test_a_tool_call_past_its_timeout_raises_a_timeout_error(sse_server: DemoServer) -> None:
    from mcpstream.errors import McpTimeoutError

    with Client(sse_server.url) as client, pytest.raises(McpTimeoutError):
        client.call_tool("sleep", {"seconds": 2}, timeout_s=0.3)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"url": "ftp://example.com/mcp"}, "http:// or https://"),
        ({"url": "http:///mcp"}, "has no host"),
        (
            {"url": "http://h/mcp", "token": "t", "headers": {"authorization": "x"}},
            "not both",
        ),
        ({"url": "http://h/mcp", "tool_timeout_s": 0}, "tool_timeout_s"),
    ],
)
def test_bad_settings_are_refused_before_anything_is_sent(
    kwargs: dict[str, Any], message: str
) -> None:
    url = kwargs.pop("url")
    with pytest.raises(ValueError, match=message):
        Client(url, **kwargs)
