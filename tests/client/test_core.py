"""The client's I/O-free core (``mcpstream.client._core``) without any server: its flows are run
by a scripted driver that answers each step, and checked step by step."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

import pytest
from mcpstream.client._core import (
    HANDSHAKE_ATTEMPTS,
    Finished,
    Flow,
    Locked,
    Negotiate,
    Request,
    SessionCore,
    Step,
    advance,
)
from mcpstream.client._notify import NotificationRouter
from mcpstream.client._settings import ClientSettings, build_server
from mcpstream.client._tasks import Answer as InputAnswer
from mcpstream.client._tasks import Sleep
from mcpstream.client.events import ElicitationResponse, Progress
from mcpstream.client.handlers import ServerRequestRouter, ServerRequests
from mcpstream.errors import McpError, McpHttpTransportSessionExpiredError, McpProtocolError
from mcpstream.jsonrpc import JsonRpcNotification, JsonRpcResponse
from mcpstream.server_requests import McpServerRequestContext, McpUnsupportedServerRequestError
from mcpstream.transport_http import Negotiated

URL = "http://127.0.0.1:1/mcp"
INITIALIZE_RESULT = {
    "protocolVersion": "2025-11-25",
    "serverInfo": {"name": "scripted", "version": "1"},
    "capabilities": {"tools": {}},
}


class FakeState:
    """The transport's session state, as the core sets it."""

    def __init__(self) -> None:
        self.events: list[str] = []

    def set_negotiated_protocol_version(self, protocol_version: str | None) -> None:
        self.events.append(f"version {protocol_version}")

    def reset_session_state(self) -> None:
        self.events.append("reset")


Answer = Callable[[Request], Any]


class ScriptedDriver:
    """Runs flows as the drivers do: ``answer`` gives each request's result (a JSON-RPC result,
    a ``JsonRpcResponse``, or an exception to throw in); every step is recorded, but for the
    sleeps (``sleeps``, on a clock of its own, ``clock``). ``modern``: the negotiation finds a
    2026-07-28 server (whose ``server/discover`` result is the answer to ``initialize``);
    ``inputs`` answers the input requests of tasks (``Answer`` steps)."""

    def __init__(
        self,
        answer: Answer,
        *,
        modern: bool = False,
        inputs: Callable[[InputAnswer], Any] | None = None,
    ) -> None:
        self.answer = answer
        self.modern = modern
        self.inputs = inputs
        self.steps: list[Step] = []
        self.sleeps: list[float] = []
        self.clock = 1000.0
        self.locked = 0

    def run(self, flow: Flow[Any]) -> Any:
        step = advance(flow)
        while not isinstance(step, Finished):
            if isinstance(step, Sleep):
                self.sleeps.append(step.seconds)
                self.clock += step.seconds
                step = advance(flow, self.clock)
                continue
            self.steps.append(step)
            outcome = self.do(step)
            failed = isinstance(outcome, BaseException)
            step = advance(flow, error=outcome) if failed else advance(flow, outcome)
        return step.value

    def do(self, step: Step) -> Any:
        """The step's outcome, or the exception to throw into the flow."""
        if isinstance(step, Locked):
            self.locked += 1
            try:
                return self.run(step.flow)
            except Exception as exc:
                return exc
            finally:
                self.locked -= 1
        if isinstance(step, Negotiate):
            # The transport's negotiation with a server of the handshake era (``initialize``
            # answered by ``answer``, then ``notifications/initialized``).
            answer = self.answer(Request("initialize", None, step.timeout_s))
            if isinstance(answer, BaseException):
                return answer
            if self.modern:
                return Negotiated(True, "2026-07-28", answer)
            return Negotiated(False, answer["protocolVersion"], answer)
        if isinstance(step, InputAnswer):
            assert self.inputs is not None, "no input answers scripted"
            try:
                return self.inputs(step)
            except Exception as exc:
                return exc
        answer = self.answer(step)
        if isinstance(answer, BaseException | JsonRpcResponse):
            return answer
        return JsonRpcResponse(id=1, result=answer)

    def of(self, kind: type[Any]) -> list[Any]:
        """The recorded steps of class ``kind``."""
        return [step for step in self.steps if isinstance(step, kind)]

    def methods(self) -> list[str]:
        methods: list[str] = []
        for step in self.steps:
            if isinstance(step, Negotiate):
                methods += ["initialize", "notifications/initialized"]
            elif isinstance(step, Request):
                methods.append(step.method)
        return methods


def make_core(*, state: FakeState | None = None) -> SessionCore:
    settings = ClientSettings(
        server=build_server(URL, headers=None, token=None, server_id=None, call_timeout_s=5.0),
        connect_timeout_s=1.0,
        request_timeout_s=5.0,
        tool_timeout_s=50.0,
        client_info={"name": "test-client", "version": "9"},
    )
    requests = ServerRequests(elicitation_handler=None, sampling_handler=None, roots=None)
    return SessionCore(settings, requests, NotificationRouter(None), state or FakeState())


def server(results: dict[str, Any]) -> Answer:
    """Answers ``initialize`` and the methods of ``results``."""

    def answer(step: Request) -> Any:
        if step.method == "initialize":
            return INITIALIZE_RESULT
        return results[step.method]

    return answer


def expired(*, delivered: bool = False) -> McpHttpTransportSessionExpiredError:
    error = McpHttpTransportSessionExpiredError("session gone")
    error.request_delivered = delivered
    return error


# -- the handshake --------------------------------------------------------------------------------


def test_the_handshake_negotiates_with_the_capabilities_and_client_info() -> None:
    state = FakeState()
    core = make_core(state=state)
    driver = ScriptedDriver(server({}))
    info = driver.run(core.connect())
    assert info.name == "scripted" and core.server_info is info and core.generation == 1
    (negotiate,) = driver.steps[1:]
    assert isinstance(negotiate, Negotiate)
    assert negotiate.negotiation.client_info == {"name": "test-client", "version": "9"}
    assert negotiate.negotiation.capabilities == {
        "elicitation": {"form": {}, "url": {}},
        "extensions": {"io.modelcontextprotocol/tasks": {}},  # any call may become a task
    }
    assert negotiate.timeout_s == 5.0 and negotiate.negotiation.era is None
    assert info.protocol_version == "2025-11-25" and info.era == "legacy"
    # The transport records the version it negotiated: the core sets nothing itself.
    assert state.events == []
    # Connected: a second connect sends nothing.
    driver.steps.clear()
    assert driver.run(core.connect()) is info
    assert driver.methods() == []


def test_the_handshake_runs_under_the_session_lock() -> None:
    seen: list[int] = []
    driver = ScriptedDriver(lambda step: seen.append(driver.locked) or INITIALIZE_RESULT)
    driver.run(make_core().connect())
    assert seen == [1]


def test_a_version_the_client_does_not_speak_is_refused() -> None:
    core = make_core()
    answer = {**INITIALIZE_RESULT, "protocolVersion": "2099-01-01"}
    with pytest.raises(McpProtocolError, match="2099-01-01"):
        ScriptedDriver(lambda step: answer).run(core.connect())
    assert core.server_info is None


# -- requests -------------------------------------------------------------------------------------


def test_the_first_request_initializes_the_session_and_errors_are_mcp_errors() -> None:
    core = make_core()
    error = JsonRpcResponse(id=1, error={"code": -32601, "message": "no such method"})
    driver = ScriptedDriver(server({"a": {"x": 1}, "b": error}))
    assert driver.run(core.request("a", None, None)) == {"x": 1}
    assert driver.methods() == ["initialize", "notifications/initialized", "a"]
    with pytest.raises(McpError) as raised:
        driver.run(core.request("b", None, None))
    assert (raised.value.code, raised.value.message) == (-32601, "no such method")


def test_timeouts_default_per_kind_of_call() -> None:
    core = make_core()
    driver = ScriptedDriver(server({"x": {}, "tools/call": {"content": []}}))
    driver.run(core.request("x", None, None))
    driver.run(core.request("x", None, 2.5))
    driver.run(core.call_tool("t", None, None, None, None))
    driver.run(core.call_tool("t", None, None, 7.0, None))
    timeouts = [step.timeout_s for step in driver.steps if isinstance(step, Request | Negotiate)]
    assert timeouts == [5.0, 5.0, 2.5, 50.0, 7.0]


def test_a_lost_session_is_renewed_once_and_the_request_sent_again(
    caplog: pytest.LogCaptureFixture,
) -> None:
    state = FakeState()
    core = make_core(state=state)
    failures = [expired()]

    def answer(step: Request) -> Any:
        if step.method == "initialize":
            return INITIALIZE_RESULT
        return failures.pop() if failures else {"ok": True}

    driver = ScriptedDriver(answer)
    with caplog.at_level(logging.INFO, logger="mcpstream.client"):
        assert driver.run(core.request("x", None, None)) == {"ok": True}
    assert driver.methods() == [
        *("initialize", "notifications/initialized", "x"),
        *("initialize", "notifications/initialized", "x"),
    ]
    # The transport records the versions; a renewal negotiates the handshake era again at once.
    assert state.events == ["reset"]
    eras = [step.negotiation.era for step in driver.steps if isinstance(step, Negotiate)]
    assert eras == [None, "legacy"]
    assert (core.session_renewals, core.generation) == (1, 2)
    assert "lost the session" in caplog.text


def test_a_session_lost_twice_in_a_row_is_raised() -> None:
    core = make_core()
    driver = ScriptedDriver(
        lambda step: INITIALIZE_RESULT if step.method == "initialize" else expired()
    )
    with pytest.raises(McpHttpTransportSessionExpiredError):
        driver.run(core.request("x", None, None))
    assert driver.methods().count("x") == 2 and core.session_renewals == 1


def test_a_session_lost_during_the_handshake_is_opened_again_at_once() -> None:
    # The server lost the session between its answer to initialize and
    # notifications/initialized (the transport raises the loss from its negotiation).
    state = FakeState()
    core = make_core(state=state)
    answers: list[Any] = [expired(), INITIALIZE_RESULT]
    driver = ScriptedDriver(lambda step: answers.pop(0))
    info = driver.run(core.connect())
    assert info.name == "scripted" and core.generation == 1 and core.session_renewals == 0
    assert driver.methods().count("initialize") == 2
    assert state.events == ["reset"]  # the lost session's remains ended before the next


def test_a_server_losing_every_session_is_asked_twice_per_opening_not_in_a_loop() -> None:
    core = make_core()
    driver = ScriptedDriver(lambda step: expired())
    for opening in (1, 2):
        with pytest.raises(McpHttpTransportSessionExpiredError):
            driver.run(core.connect())
        negotiations = driver.of(Negotiate)
        assert len(negotiations) == HANDSHAKE_ATTEMPTS * opening  # the next opening tries again
    assert core.server_info is None and core.generation == 0


def test_a_renewal_makes_its_handshakes_within_the_call_budget() -> None:
    core = make_core()
    calls = iter([expired(), {"ok": True}])
    handshakes = iter([INITIALIZE_RESULT, expired(), INITIALIZE_RESULT])

    def answer(step: Request) -> Any:
        if step.method != "initialize":
            return next(calls)
        driver.clock += 1.5  # each handshake takes 1.5 s of the fake clock
        return next(handshakes)

    driver = ScriptedDriver(answer)
    assert driver.run(core.request("x", None, 2.0)) == {"ok": True}
    # The first opening has the request timeout; the renewal the call's 2 s, for its two
    # handshakes together (the second gets what the first left).
    assert [step.timeout_s for step in driver.of(Negotiate)] == [5.0, 2.0, 0.5]
    assert core.session_renewals == 1


def test_a_renewal_out_of_time_makes_no_second_handshake() -> None:
    core = make_core()
    handshakes = iter([INITIALIZE_RESULT, expired()])

    def answer(step: Request) -> Any:
        if step.method != "initialize":
            return expired()
        driver.clock += 2.5
        return next(handshakes)

    driver = ScriptedDriver(answer)
    with pytest.raises(McpHttpTransportSessionExpiredError):
        driver.run(core.request("x", None, 2.0))
    assert len(driver.of(Negotiate)) == 2 and core.server_info is None


def test_a_call_that_may_have_run_is_not_sent_again() -> None:
    core = make_core()
    driver = ScriptedDriver(
        lambda step: INITIALIZE_RESULT if step.method == "initialize" else expired(delivered=True)
    )
    with pytest.raises(McpHttpTransportSessionExpiredError):
        driver.run(core.call_tool("t", None, None, None, None))
    assert driver.methods() == ["initialize", "notifications/initialized", "tools/call"]
    assert core.session_renewals == 0


def test_of_two_calls_that_lost_the_same_session_only_the_first_renews_it() -> None:
    core = make_core()
    driver = ScriptedDriver(server({"x": {}}))
    driver.run(core.connect())
    first, second = core.request("x", None, None), core.request("x", None, None)
    # Both are sent in session 1 (open: read without the session lock) ...
    assert advance(first) == Request("x", None, 5.0)
    assert advance(second) == Request("x", None, 5.0)
    # ... and both find it lost: the first renews it, the second finds it renewed already.
    renew_first = advance(first, error=expired())
    renew_second = advance(second, error=expired())
    assert isinstance(renew_first, Locked) and isinstance(renew_second, Locked)
    driver.steps.clear()
    driver.run(renew_first.flow)
    driver.run(renew_second.flow)
    assert driver.methods() == ["initialize", "notifications/initialized"]
    assert core.session_renewals == 1


def test_a_request_while_the_session_is_renewed_waits_for_the_session_lock() -> None:
    core = make_core()
    driver = ScriptedDriver(server({"x": {}}))
    driver.run(core.connect())
    lost = core.request("x", None, None)
    assert advance(lost) == Request("x", None, 5.0)
    renewal = advance(lost, error=expired())
    assert isinstance(renewal, Locked)
    assert next(renewal.flow) is not None  # the renewal is under way: the session is closed
    assert core.server_info is None
    waiting = core.request("x", None, None)
    assert isinstance(advance(waiting), Locked)


def test_an_unexpected_error_propagates_from_the_flow() -> None:
    core = make_core()
    boom = RuntimeError("boom")
    driver = ScriptedDriver(lambda step: INITIALIZE_RESULT if step.method == "initialize" else boom)
    with pytest.raises(RuntimeError) as raised:
        driver.run(core.request("x", None, None))
    assert raised.value is boom and core.session_renewals == 0


# -- the MCP methods ------------------------------------------------------------------------------


def test_a_listing_follows_the_cursors_to_the_end() -> None:
    pages = {
        None: {"tools": [{"name": "a"}], "nextCursor": "2"},
        "2": {"tools": [{"name": "b"}], "nextCursor": "3"},
        "3": {"tools": [{"name": "c"}]},
    }

    def answer(step: Request) -> Any:
        if step.method == "initialize":
            return INITIALIZE_RESULT
        return pages[(step.params or {}).get("cursor")]

    tools = ScriptedDriver(answer).run(make_core().list_tools(None))
    assert [tool.name for tool in tools] == ["a", "b", "c"]


def test_a_listing_whose_cursors_come_back_is_a_protocol_error() -> None:
    page = {"prompts": [], "nextCursor": "again"}
    with pytest.raises(McpProtocolError, match="do not end"):
        ScriptedDriver(server({"prompts/list": page})).run(make_core().list_prompts(None))


def test_call_tool_sends_a_progress_token_routes_its_progress_and_releases_it() -> None:
    core = make_core()
    seen: list[Progress] = []
    tokens: list[str] = []

    def answer(step: Request) -> Any:
        if step.method == "initialize":
            return INITIALIZE_RESULT
        token = step.params["_meta"]["progressToken"]
        tokens.append(token)
        assert step.params["_meta"]["trace"] == "t1"
        core.router.deliver(
            JsonRpcNotification(
                method="notifications/progress", params={"progressToken": token, "progress": 1}
            )
        )
        return {"content": [{"type": "text", "text": "done"}]}

    result = ScriptedDriver(answer).run(
        core.call_tool("t", {"a": 1}, seen.append, None, {"trace": "t1"})
    )
    assert result.text == "done" and seen == [Progress(progress=1.0)]
    assert (
        core.router.route(
            JsonRpcNotification(
                method="notifications/progress", params={"progressToken": tokens[0]}
            )
        )
        is None
    )  # released: with no notification callback, late progress is dropped


def test_call_tool_releases_the_progress_token_when_the_call_fails() -> None:
    core = make_core()
    tokens: list[str] = []

    def answer(step: Request) -> Any:
        if step.method == "initialize":
            return INITIALIZE_RESULT
        tokens.append(step.params["_meta"]["progressToken"])
        return KeyboardInterrupt()

    with pytest.raises(KeyboardInterrupt):
        ScriptedDriver(answer).run(core.call_tool("t", None, lambda p: None, None, None))
    assert tokens and core.router._progress == {}


def test_resources_and_prompts_are_parsed() -> None:
    results = {
        "resources/read": {"contents": [{"uri": "mem://a", "text": "hi"}]},
        "prompts/get": {"messages": [{"role": "user", "content": {"type": "text", "text": "q"}}]},
    }
    core = make_core()
    driver = ScriptedDriver(server(results))
    [contents] = driver.run(core.read_resource("mem://a", None))
    prompt = driver.run(core.get_prompt("p", {"x": "1"}, None))
    assert contents.text == "hi" and prompt.messages[0].role == "user"
    read, get = [step for step in driver.steps if isinstance(step, Request)]
    assert read.params == {"uri": "mem://a"}
    assert get.params == {"name": "p", "arguments": {"x": "1"}}


def test_close_reports_the_first_time_only() -> None:
    core = make_core()
    assert (core.close(), core.close(), core.closed) == (True, False, True)


# -- answers to server requests ------------------------------------------------------------------


def ask(router: ServerRequestRouter, method: str, params: Any = None) -> Any:
    context = McpServerRequestContext(server_id="s")
    return router.handle_request(context=context, method=method, request_id=1, params=params)


def test_server_requests_have_their_defaults() -> None:
    requests = ServerRequests(elicitation_handler=None, sampling_handler=None, roots=None)
    router = ServerRequestRouter(requests, awaitable_answers=False)
    assert ask(router, "ping") == {}
    assert ask(router, "elicitation/create", {"message": "?"}) == {"action": "decline"}
    for method in ("sampling/createMessage", "roots/list", "other"):
        with pytest.raises(McpUnsupportedServerRequestError):
            ask(router, method)


def test_an_awaitable_answer_is_refused_by_the_sync_router_and_awaited_by_the_async_one() -> None:
    async def accept(request: Any) -> ElicitationResponse:
        return ElicitationResponse(action="accept", content={"name": request.message})

    requests = ServerRequests(elicitation_handler=accept, sampling_handler=None, roots=None)
    with pytest.raises(TypeError, match="awaitable"):
        ask(ServerRequestRouter(requests, awaitable_answers=False), "elicitation/create")
    answer = ask(
        ServerRequestRouter(requests, awaitable_answers=True),
        "elicitation/create",
        {"message": "ada"},
    )
    assert asyncio.run(answer) == {"action": "accept", "content": {"name": "ada"}}
