"""The core's completion, logging, resource-subscription and roots flows
(``mcpstream.client._core``, ``_features``) without a server: run by the scripted driver of
``test_core``, in each era, checked step by step."""

from __future__ import annotations

from typing import Any

import pytest
from mcpstream.client._core import Listen, Negotiate, Notify, Request, Step
from mcpstream.client._features import LOG_LEVEL_META_KEY, completion_params, with_log_level
from mcpstream.client.features import (
    Completion,
    LogMessage,
    PromptReference,
    ResourceTemplateReference,
    ResourceUpdated,
)
from mcpstream.errors import McpError, McpHttpTransportProtocolError, McpProtocolError
from mcpstream.transport_http import Negotiated

from .test_core import INITIALIZE_RESULT, Answer, ScriptedDriver, expired, make_core, server

DISCOVER_RESULT = {"serverInfo": {"name": "scripted", "version": "1"}, "capabilities": {}}


class EraDriver(ScriptedDriver):
    """The scripted driver, negotiating the 2026-07-28 era when ``modern``; ``listen`` answers
    each ``Listen`` step (the acknowledged filter), and notifications are recorded."""

    def __init__(self, answer: Answer, *, modern: bool, listen: Any = None) -> None:
        super().__init__(answer)
        self.modern = modern
        self.listen = listen if listen is not None else honor_all

    def do(self, step: Step) -> Any:
        if isinstance(step, Negotiate) and self.modern:
            return Negotiated(True, "2026-07-28", DISCOVER_RESULT)
        if isinstance(step, Notify):
            return None
        if isinstance(step, Listen):
            return self.listen(step)
        return super().do(step)

    def sent(self) -> list[tuple[str, Any]]:
        """The requests, notifications and listen filters sent, in order (no handshake)."""
        sent: list[tuple[str, Any]] = []
        for step in self.steps:
            if isinstance(step, Request | Notify):
                sent.append((step.method, step.params))
            elif isinstance(step, Listen):
                sent.append(("subscriptions/listen", step.resources))
        return sent


def honor_all(step: Listen) -> dict[str, Any]:
    return {"toolsListChanged": True, "resourceSubscriptions": list(step.resources)}


# -- completion -----------------------------------------------------------------------------------


@pytest.mark.parametrize("modern", [False, True])
def test_complete_sends_the_reference_argument_and_context_and_types_the_answer(
    modern: bool,
) -> None:
    answer = {"completion": {"values": ["fr", "en"], "total": 7, "hasMore": True}}
    driver = EraDriver(server({"completion/complete": answer}), modern=modern)
    core = make_core()
    completion = driver.run(
        core.complete(PromptReference("greet"), {"name": "language", "value": ""}, {"a": "b"}, None)
    )
    assert completion == Completion(values=("fr", "en"), total=7, has_more=True)
    ((method, params),) = driver.sent()
    assert method == "completion/complete"
    assert params["ref"] == {"type": "ref/prompt", "name": "greet"}
    assert params["argument"] == {"name": "language", "value": ""}
    assert params["context"] == {"arguments": {"a": "b"}}


def test_completion_params_take_the_dict_references_and_refuse_others() -> None:
    ref = {"type": "ref/resource", "uri": "demo://note/{name}"}
    params = completion_params(ref, {"name": "name", "value": "a"}, None)
    assert params == {"ref": ref, "argument": {"name": "name", "value": "a"}}
    assert completion_params(ResourceTemplateReference("x://{y}"), {"name": "y", "value": ""}, {})[
        "ref"
    ] == {"type": "ref/resource", "uri": "x://{y}"}
    for bad in ({"type": "ref/prompt"}, {"type": "ref/tool", "name": "x"}, "greet", None):
        with pytest.raises(ValueError, match="ref must be"):
            completion_params(bad, {"name": "n", "value": ""}, None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="argument must be"):
        completion_params(PromptReference("p"), {"name": "n"}, None)


@pytest.mark.parametrize(
    "result", [{}, {"completion": {}}, {"completion": {"values": [1]}}, {"completion": None}]
)
def test_a_completion_without_string_values_is_a_protocol_error(result: Any) -> None:
    with pytest.raises(McpProtocolError, match="completion"):
        Completion.from_dict(result)


# -- logging --------------------------------------------------------------------------------------


def test_at_the_handshake_era_the_level_is_set_with_logging_set_level() -> None:
    driver = EraDriver(server({"logging/setLevel": {}, "tools/list": {"tools": []}}), modern=False)
    core = make_core()
    driver.run(core.set_logging_level("warning", None))
    driver.run(core.list_tools(None))
    assert driver.sent() == [("logging/setLevel", {"level": "warning"}), ("tools/list", None)]


def test_at_2026_07_28_the_level_travels_in_every_request_s_meta() -> None:
    results = {"tools/list": {"tools": []}, "tools/call": {"content": []}}
    driver = EraDriver(server(results), modern=True)
    core = make_core()
    driver.run(core.list_tools(None))
    driver.run(core.set_logging_level("error", None))
    driver.run(core.list_tools(None))
    driver.run(core.call_tool("t", {}, None, None, {LOG_LEVEL_META_KEY: "debug"}))
    sent = driver.sent()
    assert sent[0] == ("tools/list", None)  # no opt-in before the level was set
    assert [method for method, _ in sent] == ["tools/list", "tools/list", "tools/call"]
    assert sent[1][1] == {"_meta": {LOG_LEVEL_META_KEY: "error"}}
    assert sent[2][1]["_meta"][LOG_LEVEL_META_KEY] == "debug"  # the host's own is kept


def test_an_unknown_level_is_refused_before_anything_is_sent() -> None:
    driver = EraDriver(server({}), modern=False)
    with pytest.raises(ValueError, match="level must be one of debug, info"):
        driver.run(make_core().set_logging_level("verbose", None))
    assert driver.steps == []


def test_with_log_level_leaves_params_that_are_not_an_object() -> None:
    assert with_log_level([1, 2], "info") == [1, 2]
    assert with_log_level(None, "info") == {"_meta": {LOG_LEVEL_META_KEY: "info"}}
    assert with_log_level({"_meta": {"k": 1}}, "info") == {
        "_meta": {"k": 1, LOG_LEVEL_META_KEY: "info"}
    }


def test_log_messages_and_updates_parse_or_are_left_to_the_notification_callback() -> None:
    assert LogMessage.from_params({"level": "info", "data": [1], "logger": "x"}) == LogMessage(
        "info", [1], "x"
    )
    assert LogMessage.from_params({"data": "no level"}) is None
    assert ResourceUpdated.from_params({"uri": "a://b"}) == ResourceUpdated("a://b")
    assert ResourceUpdated.from_params({"uri": 3}) is None


# -- resource subscriptions -----------------------------------------------------------------------


def test_at_the_handshake_era_subscriptions_are_requests() -> None:
    results = {"resources/subscribe": {}, "resources/unsubscribe": {}}
    driver = EraDriver(server(results), modern=False)
    core = make_core()
    driver.run(core.subscribe_resource("a://1", None))
    driver.run(core.unsubscribe_resource("a://1", None))
    assert driver.sent() == [
        ("resources/subscribe", {"uri": "a://1"}),
        ("resources/unsubscribe", {"uri": "a://1"}),
    ]
    assert core.subscriptions.uris == ()


def test_at_2026_07_28_the_listen_stream_is_reopened_only_when_the_set_changes() -> None:
    driver = EraDriver(server({}), modern=True)
    core = make_core()
    for flow in (
        core.subscribe_resource("a://1", None),
        core.subscribe_resource("a://2", None),
        core.subscribe_resource("a://1", None),  # already: nothing to reopen
        core.unsubscribe_resource("a://1", None),
        core.unsubscribe_resource("a://9", None),  # never subscribed: nothing either
        core.unsubscribe_resource("a://2", None),
    ):
        driver.run(flow)
    assert driver.sent() == [
        ("subscriptions/listen", ("a://1",)),
        ("subscriptions/listen", ("a://1", "a://2")),
        ("subscriptions/listen", ("a://2",)),
        ("subscriptions/listen", ()),
    ]
    listens = [step for step in driver.steps if isinstance(step, Listen)]
    assert all(step.timeout_s == 5.0 for step in listens)  # the request timeout


def test_a_listen_stream_not_acknowledged_is_a_protocol_error() -> None:
    driver = EraDriver(server({}), modern=True, listen=lambda step: None)
    core = make_core()
    with pytest.raises(McpHttpTransportProtocolError, match=r"acknowledge .* 2\.5 s"):
        driver.run(core.subscribe_resource("a://1", 2.5))


def test_a_subscription_the_server_does_not_honor_is_refused_and_dropped() -> None:
    driver = EraDriver(server({}), modern=True, listen=lambda step: {"toolsListChanged": True})
    core = make_core()
    with pytest.raises(McpError, match="does not honor") as caught:
        driver.run(core.subscribe_resource("a://1", None))
    assert caught.value.method == "subscriptions/listen"
    assert core.subscriptions.uris == ()


def test_a_new_session_gets_the_level_and_the_subscriptions_again() -> None:
    calls: list[str] = []

    def answer(step: Request) -> Any:
        calls.append(step.method)
        if step.method == "initialize":
            return INITIALIZE_RESULT
        if step.method == "tools/list" and calls.count("tools/list") == 1:
            return expired()
        return {"tools": []} if step.method == "tools/list" else {}

    driver = EraDriver(answer, modern=False)
    core = make_core()
    driver.run(core.set_logging_level("info", None))
    driver.run(core.subscribe_resource("a://1", None))
    driver.run(core.list_tools(None))
    assert calls == [
        "initialize",
        "logging/setLevel",
        "resources/subscribe",
        "tools/list",
        "initialize",
        "logging/setLevel",
        "resources/subscribe",
        "tools/list",
    ]
    assert core.session_renewals == 1


# -- roots ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("modern", [False, True])
def test_roots_list_changed_is_a_notification_at_the_handshake_era_only(modern: bool) -> None:
    driver = EraDriver(server({}), modern=modern)
    driver.run(make_core().send_roots_list_changed())
    expected = [] if modern else [("notifications/roots/list_changed", None)]
    assert driver.sent() == expected
