"""Tasks (``mcpstream.client._tasks``, the handles of ``mcpstream.client.tasks``): the 2025-11-25
tasks and the 2026-07-28 ``io.modelcontextprotocol/tasks`` extension behind one API.

Against a real server: the official SDK's ``MCPServer`` serving tasks through its own extension
points (``tasks_server``: the SDK serves no tasks by itself), both eras, in both of its modes,
with ``Client`` and ``AsyncClient``; and the demo server, which offers no tasks. The rules
no server breaks on cue (the poll interval's bounds, the deadline, hostile task objects by the
dozen) are checked on the core's flows with the scripted driver of ``test_core``.
"""

from __future__ import annotations

import asyncio
import inspect
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from conformance.client import LoopThread
from mcpstream import AsyncClient, Client, close_pools
from mcpstream._http.core.era import request_headers
from mcpstream.client import (
    AsyncTaskHandle,
    ElicitationRequest,
    ElicitationResponse,
    Notification,
    TaskHandle,
)
from mcpstream.client._core import Request
from mcpstream.client._tasks import (
    MAX_POLL_INTERVAL_S,
    MAX_TASK_ID_CHARS,
    MIN_POLL_INTERVAL_S,
    TASKS_EXTENSION,
    Answer,
    asks_for_task,
    parse_task,
)
from mcpstream.demo import DemoServer
from mcpstream.errors import (
    McpError,
    McpProtocolError,
    McpTaskCancelledError,
    McpTaskError,
    McpTaskProtocolError,
    McpTasksNotSupportedError,
    McpTaskTimeoutError,
    McpTimeoutError,
)

from .skills_server import skills_server
from .tasks_server import TasksServer, tasks_server
from .test_core import ScriptedDriver, make_core

ERAS = {"legacy": "legacy", "modern": None}  # the client's ``protocol=`` for each era


# -- the task objects -----------------------------------------------------------------------------


def wire(**fields: Any) -> dict[str, Any]:
    task: dict[str, Any] = {
        "taskId": "t-1",
        "status": "working",
        "createdAt": "2026-07-28T10:30:00Z",
        "lastUpdatedAt": "2026-07-28T10:30:00Z",
    }
    task.update(fields)
    return {key: value for key, value in task.items() if value is not ...}


def test_a_task_of_either_era_is_read_with_its_own_field_names() -> None:
    legacy = parse_task(wire(ttl=60_000, pollInterval=250), modern=False, detailed=False)
    modern = parse_task(wire(ttlMs=60_000, pollIntervalMs=250), modern=True, detailed=False)
    for task in (legacy, modern):
        assert (task.task_id, task.status, task.ttl_s, task.poll_interval_s) == (
            "t-1",
            "working",
            60.0,
            0.25,
        )
        assert not task.terminal
    # Each era ignores the other's names, and ttl null means unlimited.
    other = parse_task(wire(ttl=None, pollIntervalMs=250), modern=False, detailed=False)
    assert other.ttl_s is None and other.poll_interval_s is None
    # A CreateTaskResult's payload fields are not used (the extension says MUST NOT).
    created = parse_task(wire(status="completed", result="junk"), modern=True, detailed=False)
    assert created.terminal and created.result is None


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ("a string", "not an object"),
        (wire(taskId=...), "taskId"),
        (wire(taskId=7), "taskId"),
        (wire(taskId=""), "taskId"),
        (wire(taskId="x" * (MAX_TASK_ID_CHARS + 1)), "taskId"),
        (wire(taskId="id\r\nSet-Cookie: x"), "control characters"),
        (wire(status=...), "status"),
        (wire(status="exploded"), "status"),
        (wire(status=["working"]), "status"),
        (wire(statusMessage=5), "statusMessage"),
        (wire(createdAt={"at": 1}), "createdAt"),
        (wire(ttlMs="60000"), "ttlMs"),
        (wire(ttlMs=-1), "ttlMs"),
        (wire(ttlMs=True), "ttlMs"),
        (wire(pollIntervalMs=float("nan")), "pollIntervalMs"),
        (wire(pollIntervalMs=-5), "pollIntervalMs"),
        (wire(status="completed"), "without its 'result'"),
        (wire(status="completed", result=[1]), "without its 'result'"),
        (wire(status="failed"), "without its 'error'"),
        (wire(status="input_required"), "inputRequests"),
        (wire(status="input_required", inputRequests={"k": {"params": {}}}), "method"),
        (wire(status="input_required", inputRequests={"k": "elicit"}), "method"),
    ],
)
def test_a_malformed_task_is_refused_with_the_documented_error(raw: Any, reason: str) -> None:
    with pytest.raises(McpTaskProtocolError, match=reason) as caught:
        parse_task(raw, modern=True, detailed=True)
    assert isinstance(caught.value, McpProtocolError) and isinstance(caught.value, McpTaskError)
    assert "Set-Cookie" not in str(caught.value)  # the server's text is never quoted


def test_an_answer_about_another_task_is_refused() -> None:
    with pytest.raises(McpTaskProtocolError, match="another task") as caught:
        parse_task(wire(taskId="t-2"), modern=False, detailed=False, expected_id="t-1")
    assert caught.value.task_id == "t-1"


def test_a_handle_and_a_task_keep_the_task_id_out_of_their_reprs() -> None:
    task = parse_task(wire(taskId="secret-bearer-id"), modern=True, detailed=False)
    assert "secret-bearer-id" not in repr(task)


def test_task_requests_name_their_task_in_the_mcp_name_header() -> None:
    for method in ("tasks/get", "tasks/update", "tasks/cancel"):
        headers = request_headers(method, {"taskId": "t-1"}, version="2026-07-28", tool_paths={})
        assert headers["Mcp-Name"] == "t-1" and headers["Mcp-Method"] == method


# -- the flows, on the scripted driver ------------------------------------------------------------


DISCOVER = {"supportedVersions": ["2026-07-28"], "capabilities": {"extensions": {}}}
LEGACY_INIT = {
    "protocolVersion": "2025-11-25",
    "serverInfo": {"name": "scripted", "version": "1"},
    "capabilities": {"tasks": {"cancel": {}, "requests": {"tools": {"call": {}}}}},
}


TOOLS = [
    {"name": "t", "inputSchema": {}, "execution": {"taskSupport": "optional"}},
    {"name": "must", "inputSchema": {}, "execution": {"taskSupport": "required"}},
    {"name": "never", "inputSchema": {}, "execution": {"taskSupport": "forbidden"}},
    {"name": "plain", "inputSchema": {}},
]


def scripted(
    polls: list[dict[str, Any]],
    *,
    modern: bool = True,
    created: dict[str, Any] | None = None,
    inputs: Callable[[Answer], Any] | None = None,
    always_task: bool = False,
) -> tuple[ScriptedDriver, list[Request]]:
    """A driver whose server creates a task (2025-11-25: when asked, or ``always_task``) and
    answers each ``tasks/get`` with the next of ``polls`` (the last one again once they run
    out); the requests are recorded."""
    sent: list[Request] = []
    queue = list(polls)

    def answer(step: Request) -> Any:
        if step.method == "initialize":
            return DISCOVER if modern else LEGACY_INIT
        sent.append(step)
        if step.method == "tools/call" and not (modern or always_task or "task" in step.params):
            return {"content": []}  # the tool run inline
        if step.method == "tools/call":
            seed = created or wire(pollIntervalMs=100, pollInterval=100)
            return {"resultType": "task", **seed} if modern else {"task": seed}
        if step.method == "tasks/get":
            return queue.pop(0) if len(queue) > 1 else queue[0]
        if step.method == "tools/list":
            return {"tools": TOOLS}
        return {}

    return ScriptedDriver(answer, modern=modern, inputs=inputs), sent


def test_a_server_asking_for_no_wait_is_polled_at_the_minimum_interval_until_the_deadline() -> None:
    driver, sent = scripted([wire(pollIntervalMs=0)])
    core = make_core()
    state = driver.run(core.start_tool_task("t", None, None, None))
    with pytest.raises(McpTaskTimeoutError) as caught:
        driver.run(core.task_result(state, 2.0))
    assert isinstance(caught.value, McpTimeoutError) and caught.value.task_id == "t-1"
    polls = [step for step in sent if step.method == "tasks/get"]
    waits = [seconds for seconds in driver.sleeps if seconds > 0]
    assert all(seconds >= MIN_POLL_INTERVAL_S for seconds in waits[:-1])  # the last: what is left
    # 2 s at the minimum interval: about 40 polls, never more.
    assert 30 <= len(polls) <= 2.0 / MIN_POLL_INTERVAL_S + 1
    assert all(step.timeout_s is not None and step.timeout_s <= 2.0 for step in polls)


def test_a_server_asking_for_years_between_polls_is_polled_at_the_maximum_interval() -> None:
    done = wire(status="completed", result={"content": [{"type": "text", "text": "ok"}]})
    driver, _ = scripted([wire(pollIntervalMs=10**15), done], created=wire(pollIntervalMs=10**15))
    core = make_core()
    state = driver.run(core.start_tool_task("t", None, None, None))
    result = driver.run(core.task_result(state, 1000.0))
    assert result.text == "ok"
    assert max(driver.sleeps) == MAX_POLL_INTERVAL_S


def test_the_last_wait_ends_at_the_deadline() -> None:
    driver, _ = scripted([wire(pollIntervalMs=4000)], created=wire(pollIntervalMs=4000))
    core = make_core()
    state = driver.run(core.start_tool_task("t", None, None, None))
    start = driver.clock
    with pytest.raises(McpTaskTimeoutError):
        driver.run(core.task_result(state, 5.0))
    assert driver.clock - start == pytest.approx(5.0)  # 4 s, then the 1 s left


def test_input_requests_are_answered_once_each_however_often_they_are_listed() -> None:
    asking = wire(
        status="input_required",
        inputRequests={
            "name": {"method": "elicitation/create", "params": {"message": "Name?"}},
            "city": {"method": "elicitation/create", "params": {"message": "City?"}},
        },
    )
    done = wire(status="completed", result={"content": []})
    answered: list[Any] = []

    def inputs(step: Answer) -> Any:
        answered.append(step.params["message"])
        return {"action": "accept", "content": {"value": step.params["message"]}}

    driver, sent = scripted([asking, asking, asking, done], inputs=inputs)
    core = make_core()
    state = driver.run(core.start_tool_task("t", None, None, None))
    driver.run(core.task_result(state, 60.0))
    assert answered == ["Name?", "City?"]
    (update,) = [step for step in sent if step.method == "tasks/update"]
    assert update.params["taskId"] == "t-1"
    assert set(update.params["inputResponses"]) == {"name", "city"}


def test_answers_a_failed_update_did_not_deliver_are_sent_again_without_asking_again() -> None:
    asking = wire(
        status="input_required",
        inputRequests={"name": {"method": "elicitation/create", "params": {"message": "?"}}},
    )
    done = wire(status="completed", result={"content": []})
    asked: list[str] = []
    updates: list[Any] = []
    queue = [asking, asking, done]

    def answer(step: Request) -> Any:
        if step.method == "initialize":
            return DISCOVER
        if step.method == "tools/call":
            return {"resultType": "task", **wire()}
        if step.method == "tasks/get":
            return queue.pop(0)
        updates.append(step.params["inputResponses"])
        if len(updates) == 1:
            return McpTimeoutError("the update timed out")
        return {}

    def inputs(step: Answer) -> Any:
        asked.append(step.method)
        return {"action": "accept", "content": {"name": "Luca"}}

    driver = ScriptedDriver(answer, modern=True, inputs=inputs)
    core = make_core()
    state = driver.run(core.start_tool_task("t", None, None, None))
    with pytest.raises(McpTaskTimeoutError):  # the update given the time left ran out
        driver.run(core.task_result(state, 60.0))
    assert driver.run(core.task_result(state, 60.0)).content == ()
    assert asked == ["elicitation/create"]  # once
    assert updates == [{"name": {"action": "accept", "content": {"name": "Luca"}}}] * 2


def test_a_handler_that_fails_on_an_input_request_fails_the_wait() -> None:
    asking = wire(
        status="input_required", inputRequests={"k": {"method": "sampling/createMessage"}}
    )

    def inputs(step: Answer) -> Any:
        raise RuntimeError("no model here")

    driver, sent = scripted([asking], inputs=inputs)
    core = make_core()
    state = driver.run(core.start_tool_task("t", None, None, None))
    with pytest.raises(McpTaskError, match="sampling/createMessage"):
        driver.run(core.task_result(state, 60.0))
    assert "tasks/update" not in [step.method for step in sent]


def test_the_2025_11_25_client_asks_for_a_task_only_where_the_server_offers_them() -> None:
    driver, sent = scripted([wire()], modern=False)
    core = make_core()
    driver.run(core.start_tool_task("t", {"a": 1}, None, None))
    assert sent[-1].params["task"] == {}

    plain: list[Request] = []

    def no_tasks(step: Request) -> Any:
        if step.method == "initialize":
            return {**LEGACY_INIT, "capabilities": {"tools": {}}}
        plain.append(step)
        return {"content": [{"type": "text", "text": "inline"}]}

    core = make_core()
    state = ScriptedDriver(no_tasks).run(core.start_tool_task("t", None, None, None))
    assert "task" not in plain[0].params
    assert state.task is None and state.final is not None and state.final.text == "inline"


@pytest.mark.parametrize(
    ("support", "as_task", "asked"),
    [
        ("required", False, True),
        ("required", True, True),
        ("optional", False, False),
        ("optional", True, True),
        ("forbidden", True, False),
        (None, True, False),
    ],
)
def test_the_tools_task_support_decides_at_2025_11_25(
    support: str | None, as_task: bool, asked: bool
) -> None:
    assert asks_for_task(modern=False, offered=True, support=support, as_task=as_task) is asked
    assert not asks_for_task(modern=False, offered=False, support=support, as_task=as_task)
    assert not asks_for_task(modern=True, offered=True, support=support, as_task=as_task)


def test_a_2025_11_25_task_is_asked_for_once_the_tools_are_listed() -> None:
    driver, sent = scripted([wire()], modern=False)
    core = make_core()
    for name in ("t", "never", "plain", "t"):
        driver.run(core.start_tool_task(name, None, None, None))
    methods = [(step.method, "task" in (step.params or {})) for step in sent]
    assert methods == [
        ("tools/list", False),  # once: the tools' execution.taskSupport is kept
        ("tools/call", True),
        ("tools/call", False),
        ("tools/call", False),
        ("tools/call", True),
    ]


def test_a_2025_11_25_task_nobody_asked_for_is_no_tool_result() -> None:
    driver, _ = scripted([wire()], modern=False, always_task=True)
    with pytest.raises(McpProtocolError):
        driver.run(make_core().call_tool("t", None, None, None, None))


def test_a_modern_call_declares_the_extension_and_list_tasks_sends_nothing() -> None:
    driver, sent = scripted([wire()])
    core = make_core()
    driver.run(core.connect())
    (negotiate,) = driver.steps[1:]
    assert TASKS_EXTENSION in negotiate.negotiation.capabilities["extensions"]  # type: ignore[union-attr]
    with pytest.raises(McpTasksNotSupportedError):
        driver.run(core.list_tasks(None))
    assert sent == []


# -- against the SDK server serving tasks ---------------------------------------------------------


class BlockingAsync:
    """An ``AsyncClient`` (or one of its task handles) driven from this thread on a loop of
    its own: the same calls, awaited there."""

    def __init__(self, loop: LoopThread, target: Any) -> None:
        self._loop = loop
        self._target = target

    def __getattr__(self, name: str) -> Any:
        member = getattr(self._target, name)
        if not callable(member):
            return member

        def call(*args: Any, **kwargs: Any) -> Any:
            outcome = self._loop.run(member(*args, **kwargs))
            return (
                BlockingAsync(self._loop, outcome)
                if isinstance(outcome, AsyncTaskHandle)
                else outcome
            )

        return call


@pytest.fixture(scope="module", params=["sse", "json"])
def served(request: pytest.FixtureRequest) -> Iterator[TasksServer]:
    with tasks_server(json_response=request.param == "json") as server:
        yield server


@pytest.fixture(params=sorted(ERAS))
def era(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(params=["sync", "async"])
def make_client(request: pytest.FixtureRequest, served: TasksServer, era: str) -> Iterator[Any]:
    """``make_client(**options)``: a connected ``Client`` or ``AsyncClient`` of the era to the
    tasks server; the server's log cleared. Threads are counted: none is left behind."""
    served.extension.clear()
    opened: list[Callable[[], None]] = []
    threads = threading.active_count()

    def make(**options: Any) -> Any:
        options.setdefault("protocol", ERAS[era])
        target = served.url
        if request.param == "sync":
            client: Any = Client(target, **options)
            opened.append(client.close)
        else:
            loop = LoopThread()
            client = BlockingAsync(loop, loop.make(lambda: AsyncClient(target, **options)))
            opened.append(lambda: loop.finish(client._target.close()))
        client.connect()
        return client

    yield make
    for close in opened:
        close()
    # The process's pools keep a closed session's idle connections (and, for sync clients,
    # a reaper thread while they do): a host wanting nothing left open closes them.
    close_pools()
    assert threading.active_count() <= threads + 1  # the server's own may come and go


def calls(served: TasksServer, method: str) -> int:
    return sum(1 for name, _ in served.extension.calls if name == method)


def test_a_task_goes_from_working_to_completed_and_gives_the_tool_result(
    make_client: Any, served: TasksServer, era: str
) -> None:
    client = make_client()
    handle = client.call_tool("slow_echo", {"text": "caf\u00e9 \u2713"}, as_task=True)
    assert handle.status == "working" and handle.era == era and handle.task_id
    assert handle.task_id not in repr(handle) and handle.task_id not in repr(handle.task)
    assert handle.refresh().status == "working"  # the server's first poll
    assert handle.status == "working"
    result = handle.result(timeout_s=30)
    assert result.text == "caf\u00e9 \u2713" and not result.is_error
    assert served.extension.polls(handle.task_id) >= 2
    if era == "legacy":  # the result is fetched once the task is done
        assert calls(served, "tasks/result") == 1
        assert handle.status in ("working", "completed")
    else:  # tasks/get carries it
        assert calls(served, "tasks/result") == 0 and handle.status == "completed"
    assert handle.result() is result  # kept: not fetched again


def test_a_failed_task_raises_the_calls_json_rpc_error(make_client: Any) -> None:
    handle = make_client().call_tool("fails", as_task=True)
    with pytest.raises(McpError) as caught:
        handle.result(timeout_s=30)
    assert (caught.value.code, caught.value.message) == (-32603, "backend down")
    assert caught.value.method == "tools/call"


def test_a_cancelled_task_ends_cancelled(make_client: Any, served: TasksServer, era: str) -> None:
    client = make_client()
    handle = client.call_tool("never_ends", as_task=True)
    task = handle.cancel()
    assert handle.cancel_requested and calls(served, "tasks/cancel") == 1
    # 2025-11-25 answers the cancelled task; 2026-07-28 only acknowledges.
    assert task is not None and task.status == ("cancelled" if era == "legacy" else "working")
    with pytest.raises(McpTaskCancelledError) as caught:
        handle.result(timeout_s=30)
    assert caught.value.task_id == handle.task_id and handle.status == "cancelled"
    # Cancelling a task that ended is the server's to refuse.
    with pytest.raises(McpError):
        handle.cancel()


def test_a_task_not_done_in_time_goes_on_and_can_be_waited_on_again(
    make_client: Any, served: TasksServer
) -> None:
    handle = make_client().call_tool("never_ends", as_task=True)
    with pytest.raises(McpTaskTimeoutError) as caught:
        handle.result(timeout_s=0.5)
    assert caught.value.task_id == handle.task_id
    # Polls at 50 ms for 0.5 s: the deadline bounds them.
    assert 1 <= served.extension.polls(handle.task_id) <= 0.5 / MIN_POLL_INTERVAL_S + 2
    handle.cancel()
    with pytest.raises(McpTaskCancelledError):
        handle.result(timeout_s=30)


def test_a_task_is_found_again_by_its_id(make_client: Any) -> None:
    first = make_client().call_tool("slow_echo", {"text": "again"}, as_task=True)
    again = make_client().get_task(first.task_id)
    assert again.task_id == first.task_id and again.status == "working"
    assert again.result(timeout_s=30).text == "again"
    with pytest.raises(McpError) as caught:
        make_client().get_task("no-such-task")
    assert caught.value.code == -32602


@pytest.mark.parametrize("tool", ["bad_status", "no_id", "switch_id", "no_result"])
def test_a_hostile_task_is_refused(make_client: Any, tool: str, era: str) -> None:
    client = make_client()
    with pytest.raises(McpProtocolError) as caught:
        client.call_tool(tool, as_task=True).result(timeout_s=30)
    if era == "modern" or tool != "no_result":  # 2025-11-25: a bad tasks/result, no bad task
        assert isinstance(caught.value, McpTaskProtocolError)
    assert client.call_tool("slow_echo", {"text": "ok"}, as_task=True).result().text == "ok"


def test_listing_tasks_pages_through_them_where_the_era_has_it(
    make_client: Any, served: TasksServer, era: str
) -> None:
    client = make_client()
    handles = [client.call_tool("slow_echo", {"text": str(i)}, as_task=True) for i in range(3)]
    if era == "modern":
        with pytest.raises(McpTasksNotSupportedError):
            client.list_tasks()
        assert calls(served, "tasks/list") == 0
        return
    tasks = client.list_tasks()
    assert [task.task_id for task in tasks] == [handle.task_id for handle in handles]
    assert calls(served, "tasks/list") == 2  # pages of two
    assert {task.status for task in tasks} == {"working"}


def test_a_plain_call_the_server_makes_a_task_of_is_waited_for(
    make_client: Any, served: TasksServer, era: str
) -> None:
    result = make_client().call_tool("slow_echo", {"text": "plain"})
    if era == "modern":  # the server decided: the client polled the task to its end
        assert result.text == "plain" and calls(served, "tasks/get") >= 2
    else:  # nobody asked for a task: the tool ran inline
        assert result.text == "slow_echo ran inline: plain"
        assert served.extension.calls == [("tools/call", "plain")]


def test_a_plain_call_whose_task_outlives_the_calls_time_names_the_task(
    make_client: Any, served: TasksServer, era: str
) -> None:
    client = make_client()
    if era == "legacy":
        assert client.call_tool("never_ends", timeout_s=0.5).text.startswith("never_ends ran")
        return
    with pytest.raises(McpTaskTimeoutError) as caught:
        client.call_tool("never_ends", timeout_s=0.5)
    assert caught.value.task_id is not None
    client.get_task(caught.value.task_id).cancel()
    assert served.extension.tasks[caught.value.task_id].status == "cancelled"


def test_a_tasks_input_requests_go_to_the_elicitation_handler_once(
    make_client: Any, served: TasksServer, era: str
) -> None:
    asked: list[str] = []
    notified: list[Notification] = []

    def answer(request: ElicitationRequest) -> ElicitationResponse:
        asked.append(request.message)
        return ElicitationResponse(action="accept", content={"name": "Luca"})

    client = make_client(elicitation_handler=answer, on_notification=notified.append)
    if era == "modern":  # the server decides: a plain call
        assert client.call_tool("asks").text == "Hello, Luca!"
        assert calls(served, "tasks/update") == 1
    else:  # asked on the stream of tasks/result
        handle = client.call_tool("asks", as_task=True)
        assert handle.result(timeout_s=30).text == "Hello, Luca!"
        assert handle.status == "input_required"  # what tasks/get said before tasks/result
        assert calls(served, "tasks/update") == 0 and calls(served, "tasks/result") == 1
        # On the stream of tasks/result (SSE), or on the GET stream (JSON): soon, then.
        deadline = time.monotonic() + 10.0
        while not notified and time.monotonic() < deadline:
            time.sleep(0.01)
        (status,) = [note for note in notified if note.method == "notifications/tasks/status"]
        assert status.params["taskId"] == handle.task_id
    assert asked == ["Please enter your name."]


@pytest.mark.parametrize("era", ["legacy"])
def test_a_tool_that_requires_a_task_is_called_as_one_and_one_that_forbids_it_is_not(
    make_client: Any, served: TasksServer, era: str
) -> None:
    client = make_client()
    # Not listed yet: the server refuses the plain call; listed, it is called as a task.
    assert client.call_tool("must_task", {"text": "required"}).text == "required"
    assert served.extension.calls[:2] == [("tools/call", "plain"), ("tools/call", "task")]
    assert calls(served, "tasks/result") == 1
    handle = client.call_tool("inline_only", {"text": "x"}, as_task=True)
    assert handle.task_id is None and handle.result().text == "inline_only ran inline: x"
    handle = client.call_tool("plain", {"text": "y"}, as_task=True)
    assert handle.task_id is None and handle.result().text == "plain ran inline: y"
    assert served.extension.calls[-2:] == [("tools/call", "plain")] * 2


def test_a_task_of_a_server_without_tasks_is_the_call_run_inline(era: str) -> None:
    # The demo serves tasks for its render tool only: echo is answered inline.
    with DemoServer() as demo, Client(demo.url, protocol=ERAS[era]) as client:
        handle = client.call_tool("echo", {"text": "inline"}, as_task=True)
        assert handle.task_id is None and handle.task is None and handle.status == "completed"
        assert handle.result().text == "inline" and handle.refresh() is None
        assert handle.cancel() is None
    if era == "legacy":  # a server without the tasks capability (the skills server's) lists none
        with (
            skills_server() as served,
            Client(served.url, protocol=ERAS[era]) as client,
            pytest.raises(McpTasksNotSupportedError),
        ):
            client.list_tasks()


def test_progress_is_refused_for_a_task() -> None:
    client = Client("http://127.0.0.1:1/mcp")
    with pytest.raises(ValueError, match="progress"):
        client.call_tool("t", progress=print, as_task=True)  # type: ignore[call-overload]
    client.close()

    async def from_the_async_client() -> None:
        aclient = AsyncClient("http://127.0.0.1:1/mcp")
        with pytest.raises(ValueError, match="progress"):
            await aclient.call_tool("t", progress=print, as_task=True)  # type: ignore[call-overload]
        await aclient.aclose()

    asyncio.run(from_the_async_client())


def test_both_handles_offer_the_same_methods_with_the_same_parameters() -> None:
    def api(cls: type) -> dict[str, Any]:
        return {
            name: list(inspect.signature(member).parameters.values())[1:]
            if inspect.isfunction(member)
            else type(member).__name__
            for name, member in vars(cls).items()
            if not name.startswith("_")
        }

    assert api(TaskHandle) == api(AsyncTaskHandle)
    assert sorted(api(TaskHandle)) == ["cancel", "refresh", "result"]
    for name in ("cancel", "refresh", "result"):
        assert inspect.iscoroutinefunction(getattr(AsyncTaskHandle, name))
        assert not inspect.iscoroutinefunction(getattr(TaskHandle, name))
