"""Resource subscriptions against the official SDK's server (the demo server), one host API in
both eras, sync and async: ``resources/subscribe`` at the handshake era, the
``subscriptions/listen`` stream's ``resourceSubscriptions`` at 2026-07-28; the updates reach
``on_resource_updated`` in the order the server sent them."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable

import pytest
from mcpstream import AsyncClient, Client, Notification, ResourceUpdated
from mcpstream.demo import DemoServer

ERAS = ["legacy", "modern"]
WAIT_S = 10.0


def note(name: str) -> str:
    return f"demo://note/{name}"


class Updates:
    """The updates a client got, in order; ``wait`` for a number of them."""

    def __init__(self) -> None:
        self.uris: list[str] = []
        self._arrived = threading.Condition()

    def __call__(self, update: ResourceUpdated) -> None:
        with self._arrived:
            self.uris.append(update.uri)
            self._arrived.notify_all()

    def wait(self, count: int) -> list[str]:
        with self._arrived:
            self._arrived.wait_for(lambda: len(self.uris) >= count, WAIT_S)
            return list(self.uris)


@pytest.mark.parametrize("era", ERAS)
def test_updates_of_the_subscribed_resources_arrive_in_the_order_sent(
    server: DemoServer, era: str
) -> None:
    updates = Updates()
    with Client(server.url, protocol=era, on_resource_updated=updates) as client:
        assert client.era == era
        client.subscribe_resource(note("alpha"))
        client.subscribe_resource(note("beta"))
        client.subscribe_resource(note("beta"))  # already: changes nothing
        sent = ["alpha", "gamma", "beta", "alpha"] + ["beta", "alpha"] * 10
        client.call_tool("update_notes", {"names": sent})
        expected = [note(name) for name in sent if name != "gamma"]  # gamma: not subscribed
        assert updates.wait(len(expected)) == expected
        assert client.read_resource(note("alpha"))[0].text.startswith("note alpha: version")

        client.unsubscribe_resource(note("alpha"))
        client.call_tool("update_notes", {"names": ["alpha", "beta"]})
        # One stream carries both, in order: once beta's update is here, alpha's would be too.
        assert updates.wait(len(expected) + 1)[len(expected) :] == [note("beta")]


@pytest.mark.parametrize("era", ERAS)
def test_the_async_client_delivers_updates_to_a_coroutine_callback(
    sse_server: DemoServer, era: str
) -> None:
    async def scenario() -> list[str]:
        seen: list[str] = []
        arrived = asyncio.Event()

        async def on_update(update: ResourceUpdated) -> None:
            await asyncio.sleep(0)
            seen.append(update.uri)
            if len(seen) == 5:
                arrived.set()

        async with AsyncClient(
            sse_server.url, protocol=era, on_resource_updated=on_update
        ) as client:
            await client.subscribe_resource(note("delta"))
            await client.subscribe_resource(note("gamma"))
            names = ["gamma", "beta", "delta", "gamma", "gamma", "delta"]
            await client.call_tool("update_notes", {"names": names})
            await asyncio.wait_for(arrived.wait(), WAIT_S)
            await client.unsubscribe_resource(note("gamma"))
            await client.unsubscribe_resource(note("delta"))
        return seen

    assert asyncio.run(scenario()) == [
        note(n) for n in ("gamma", "delta", "gamma", "gamma", "delta")
    ]


def test_at_2026_07_28_each_change_reopens_the_listen_stream_acknowledged(
    sse_server: DemoServer,
) -> None:
    acknowledged: list[object] = []

    def on_notification(notification: Notification) -> None:
        if notification.method == "notifications/subscriptions/acknowledged":
            acknowledged.append(notification.params["notifications"].get("resourceSubscriptions"))

    with Client(sse_server.url, protocol="modern", on_notification=on_notification) as client:
        wait_for(lambda: len(acknowledged) == 1)  # the stream opened after discovery
        client.subscribe_resource(note("alpha"))
        client.subscribe_resource(note("beta"))
        client.unsubscribe_resource(note("alpha"))
        client.unsubscribe_resource(note("beta"))
    # subscribe_resource returns once the server acknowledged: no waiting needed here.
    assert acknowledged == [
        None,
        [note("alpha")],
        [note("alpha"), note("beta")],
        [note("beta")],
        None,
    ]


def wait_for(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + WAIT_S
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert condition()


def test_a_new_session_after_a_server_restart_has_the_subscriptions_and_level_again(
    restartable_server: DemoServer,
) -> None:
    updates = Updates()
    logs: list[str] = []
    port = restartable_server.port
    with Client(
        restartable_server.url,
        protocol="legacy",
        on_resource_updated=updates,
        logging_handler=lambda message: logs.append(message.level),
    ) as client:
        client.subscribe_resource(note("alpha"))
        client.set_logging_level("error")
        restartable_server.stop()
        restartable_server.port = port
        restartable_server.start()
        # The new process knows neither the session nor what it asked for: the client's new
        # session subscribes and sets the level again before the call is sent again.
        client.call_tool("update_notes", {"names": ["beta", "alpha"]})
        assert client.session_renewals == 1
        assert updates.wait(1) == [note("alpha")]
        client.call_tool("log_levels")
        assert logs == ["error"]


@pytest.mark.parametrize("era", ERAS)
def test_a_callback_may_read_the_resource_and_subscribe_to_another(
    sse_server: DemoServer, era: str
) -> None:
    # The usual host: read what changed. At 2026-07-28 the subscription from the callback
    # reopens the very stream the callback runs on.
    read: list[str] = []
    updates = Updates()
    holder: list[Client] = []

    def on_update(update: ResourceUpdated) -> None:
        (contents,) = holder[0].read_resource(update.uri)
        read.append(contents.text or "")
        if update.uri == note("alpha"):
            holder[0].subscribe_resource(note("delta"))
        updates(update)

    with Client(sse_server.url, protocol=era, on_resource_updated=on_update) as client:
        holder.append(client)
        client.subscribe_resource(note("alpha"))
        client.call_tool("update_notes", {"names": ["alpha"]})
        assert updates.wait(1) == [note("alpha")]
        client.call_tool("update_notes", {"names": ["delta"]})
        assert updates.wait(2) == [note("alpha"), note("delta")]
    assert [text.split(":")[0] for text in read] == ["note alpha", "note delta"]


@pytest.mark.parametrize("era", ERAS)
def test_an_async_callback_may_subscribe_from_the_stream_it_runs_on(
    sse_server: DemoServer, era: str
) -> None:
    async def scenario() -> list[str]:
        seen: list[str] = []
        first, second = asyncio.Event(), asyncio.Event()
        holder: list[AsyncClient] = []

        async def on_update(update: ResourceUpdated) -> None:
            (contents,) = await holder[0].read_resource(update.uri)
            seen.append(contents.text or "")
            if update.uri == note("alpha"):
                await holder[0].subscribe_resource(note("delta"))
                first.set()
            else:
                second.set()

        async with AsyncClient(
            sse_server.url, protocol=era, on_resource_updated=on_update
        ) as client:
            holder.append(client)
            await client.subscribe_resource(note("alpha"))
            await client.call_tool("update_notes", {"names": ["alpha"]})
            await asyncio.wait_for(first.wait(), WAIT_S)
            await client.call_tool("update_notes", {"names": ["delta"]})
            await asyncio.wait_for(second.wait(), WAIT_S)
        return [text.split(":")[0] for text in seen]

    assert asyncio.run(scenario()) == ["note alpha", "note delta"]
