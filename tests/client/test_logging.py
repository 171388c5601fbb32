"""Log messages and the log level against the official SDK's server (the demo server), in both
eras, sync and async: ``set_logging_level`` (``logging/setLevel``, or the 2026-07-28 ``_meta``
opt-in) and ``logging_handler``; and ``send_roots_list_changed``."""

from __future__ import annotations

import asyncio

import pytest
from mcpstream import AsyncClient, Client, LogMessage, Notification
from mcpstream.demo import DemoServer

ERAS = ["legacy", "modern"]


def levels(messages: list[LogMessage]) -> list[str]:
    return [message.level for message in messages]


@pytest.mark.parametrize("era", ERAS)
def test_log_messages_reach_the_handler_typed_at_the_level_set(
    sse_server: DemoServer, era: str
) -> None:
    logs: list[LogMessage] = []
    notes: list[Notification] = []
    with Client(
        sse_server.url, protocol=era, logging_handler=logs.append, on_notification=notes.append
    ) as client:
        client.call_tool("log_levels")
        # Without a level: the handshake era's server logs everything, the stateless era's
        # nothing (its log delivery is an opt-in of each request).
        assert levels(logs) == ([] if era == "modern" else ["debug", "info", "warning", "error"])
        logs.clear()
        client.set_logging_level("warning")
        assert client.call_tool("log_levels").text == "logged"
        # On the call's own stream: all delivered before the call returned, in order.
        assert logs == [
            LogMessage("warning", {"message": "a warning message"}, "demo"),
            LogMessage("error", {"message": "a error message"}, "demo"),
        ]
        logs.clear()
        client.set_logging_level("debug")
        client.call_tool("log_levels")
        assert levels(logs) == ["debug", "info", "warning", "error"]
    # The handler took them: the notification callback got none.
    assert not [note for note in notes if note.method == "notifications/message"]


def test_without_a_logging_handler_log_messages_go_to_the_notification_callback(
    sse_server: DemoServer,
) -> None:
    notes: list[Notification] = []
    with Client(sse_server.url, protocol="modern", on_notification=notes.append) as client:
        client.set_logging_level("error")
        client.call_tool("log_levels")
    messages = [note.params for note in notes if note.method == "notifications/message"]
    assert [message["level"] for message in messages] == ["error"]


@pytest.mark.parametrize("era", ERAS)
def test_the_async_client_awaits_a_coroutine_logging_handler(
    sse_server: DemoServer, era: str
) -> None:
    logs: list[LogMessage] = []

    async def on_log(message: LogMessage) -> None:
        await asyncio.sleep(0)
        logs.append(message)

    async def scenario() -> None:
        async with AsyncClient(sse_server.url, protocol=era, logging_handler=on_log) as client:
            await client.set_logging_level("error")
            await client.call_tool("log_levels")

    asyncio.run(scenario())
    assert logs == [LogMessage("error", {"message": "a error message"}, "demo")]


def test_an_unknown_level_is_refused(sse_server: DemoServer) -> None:
    with Client(sse_server.url) as client, pytest.raises(ValueError, match="level must be"):
        client.set_logging_level("WARNING")


@pytest.mark.parametrize("era", ERAS)
def test_roots_list_changed_is_sent_at_the_handshake_era_and_a_no_op_after(
    sse_server: DemoServer, era: str
) -> None:
    async def scenario() -> str:
        async with AsyncClient(sse_server.url, protocol=era, roots=["/srv"]) as client:
            await client.send_roots_list_changed()
            await client.send_roots_list_changed()
            return (await client.call_tool("roots_changes")).text

    with Client(sse_server.url, protocol=era, roots=["/srv"]) as client:
        client.send_roots_list_changed()
        changes = client.call_tool("roots_changes").text
    assert changes == ("0" if era == "modern" else "1")
    assert asyncio.run(scenario()) == ("0" if era == "modern" else "2")
