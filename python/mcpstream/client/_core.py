"""The client's logic, written once and free of I/O: every MCP method as a flow of steps.

A flow is a generator (as in ``mcpstream.oauth._flow``): it yields a step, the driver
(``Client`` in ``sync.py``, ``AsyncClient`` in ``aio.py``) does it and sends back the outcome,
or throws in the exception it raised. The steps:

* ``Request``: send a JSON-RPC request on the transport; the outcome is its ``JsonRpcResponse``.
* ``Negotiate``: find the server's era and open it (``server/discover`` for 2026-07-28, else
  ``initialize`` and ``notifications/initialized``), done by the transport's core; the outcome
  is its ``Negotiated``.
* ``Locked``: run another flow holding the client's session lock (a ``threading.RLock``, an
  ``asyncio.Lock``), so that one thread or task at a time opens or renews the session; the
  outcome is what that flow returns.
* ``Notify``: send a JSON-RPC notification; the outcome is None once the server accepted it.
* ``Listen``: reopen the 2026-07-28 ``subscriptions/listen`` stream with these resource
  subscriptions and wait for the server's acknowledgement; the outcome is the filter the server
  acknowledged (a dict), or None when it acknowledged none in time.
* ``Sleep`` and ``Answer`` (the flows of tasks, ``_tasks``): wait, and tell the time; run the
  client's handler for an input request of a task.

The order of things (handshake before the first call, a new session once after the server lost
one unless the call may have run, paging, progress tokens) is decided here and nowhere else.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from ..errors import (
    McpError,
    McpHttpTransportProtocolError,
    McpHttpTransportSessionExpiredError,
    McpSkillsNotSupportedError,
    McpTaskProtocolError,
)
from ..transport_http import Negotiated, Negotiation
from ._features import (
    ResourceSubscriptions,
    check_log_level,
    completion_params,
    with_log_level,
)
from ._messages import (
    Pager,
    negotiate,
    prompt_get_params,
    retry_after_expiry,
    tool_call_params,
    unwrap,
)
from ._notify import NotificationRouter, ProgressCallback
from ._settings import ClientSettings, call_timeout
from ._tasks import (
    NOW,
    Answer,
    Sleep,
    TaskState,
    asks_for_task,
    cancel_task,
    created_task,
    declare_tasks,
    offers_tool_tasks,
    parse_task,
    refresh_task,
    require_legacy_operation,
    task_call_params,
    tool_task_support,
    wait_for_result,
)
from .content import ResourceContents, parse_read_resource
from .features import Completion, CompletionReference, LogLevel
from .handlers import ServerRequests
from .results import (
    Prompt,
    PromptResult,
    Resource,
    ResourceTemplate,
    ServerInfo,
    Task,
    Tool,
    ToolResult,
)
from .skills import (
    SKILLS_EXTENSION,
    Skill,
    SkillFileContent,
    check_listed,
    find_skill,
    resource_bytes,
    verify_file,
)

__all__ = [
    "HANDSHAKE_ATTEMPTS",
    "Finished",
    "Flow",
    "Listen",
    "Locked",
    "Negotiate",
    "Notify",
    "Request",
    "SessionCore",
    "SessionState",
    "Step",
    "advance",
]

logger = logging.getLogger("mcpstream.client")
T = TypeVar("T")

HANDSHAKE_ATTEMPTS = 2
"""How many times one opening (or renewal) of a session makes the handshake when the server
loses the session during it: a server that loses every session is not asked in a loop."""


# -- steps ----------------------------------------------------------------------------------------
# (Plain slotted classes, not frozen: one is made for every call, and a frozen dataclass sets
# each field through ``object.__setattr__``, at twice the cost. Nothing changes one once made.)


@dataclass(slots=True)
class Request:
    """Send the JSON-RPC request ``method`` with ``params``; the outcome is its response."""

    method: str
    params: Any
    timeout_s: float


@dataclass(slots=True)
class Negotiate:
    """Negotiate the era with the server (the transport's ``negotiate``)."""

    negotiation: Negotiation
    timeout_s: float


@dataclass(slots=True)
class Locked:
    """Run ``flow`` holding the session lock; the outcome is what it returns."""

    flow: Flow[Any]


@dataclass(slots=True)
class Notify:
    """Send the JSON-RPC notification ``method`` with ``params``; the outcome is None."""

    method: str
    params: Any
    timeout_s: float


@dataclass(slots=True)
class Listen:
    """Reopen the ``subscriptions/listen`` stream subscribed to ``resources`` and wait for its
    acknowledgement (``timeout_s`` at most); the outcome is the acknowledged filter or None."""

    resources: tuple[str, ...]
    timeout_s: float


Step = Request | Negotiate | Locked | Notify | Listen | Sleep | Answer
Flow = Generator[Step, Any, T]
"""A flow yields steps, is sent their outcomes, and returns a ``T``."""


@dataclass(frozen=True, slots=True)
class Finished(Generic[T]):
    """A flow's end: what it returned."""

    value: T


def advance(
    flow: Flow[T], outcome: Any = None, error: BaseException | None = None
) -> Step | Finished[T]:
    """Resume ``flow`` with the outcome of its last step (``error`` is thrown in, else
    ``outcome`` is sent; nothing yet for a new flow): its next step, or how it finished. An
    exception the flow does not handle propagates."""
    try:
        return flow.throw(error) if error is not None else flow.send(outcome)
    except StopIteration as stop:
        return Finished(stop.value)


# -- the session ----------------------------------------------------------------------------------


class SessionState(Protocol):
    """What the core sets on the transport directly, by plain calls that send nothing (both
    HTTP transports have them)."""

    def set_negotiated_protocol_version(self, protocol_version: str | None) -> None:
        """Send this ``MCP-Protocol-Version`` from now on."""
        ...

    def reset_session_state(self) -> None:
        """Forget the session (id, version, GET stream) the server lost."""
        ...


@dataclass(slots=True)
class SessionCore:
    """One client's session and its MCP methods, as flows (see the module docstring).

    ``generation`` counts the sessions initialized: a call remembers the one it was sent in, so
    that of several calls that find that session lost, only the first initializes a new one.
    """

    settings: ClientSettings
    requests: ServerRequests
    router: NotificationRouter
    state: SessionState
    server_info: ServerInfo | None = None
    generation: int = 0
    session_renewals: int = 0
    skills: tuple[Skill, ...] | None = None
    """The last ``skills/list`` (the entries skill files are checked against)."""
    log_level: LogLevel | None = None
    """The level of ``set_logging_level`` (stamped on each 2026-07-28 request)."""
    subscriptions: ResourceSubscriptions = field(default_factory=ResourceSubscriptions)
    """The resources of ``subscribe_resource``."""
    tool_task_support: dict[str, str] = field(default_factory=dict)
    """The tools' ``execution.taskSupport`` (2025-11-25) of the last ``tools/list``."""
    closed: bool = False
    _closing: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def close(self) -> bool:
        """Mark the client closed; True the first time (the driver closes the transport)."""
        with self._closing:
            first, self.closed = not self.closed, True
        return first

    @property
    def _modern(self) -> bool:
        """True when the session negotiated the stateless era (2026-07-28)."""
        return self.server_info is not None and self.server_info.era == "modern"

    # -- the session's own flows (run under the session lock) ---------------------------------

    def _handshake(self, era: str | None = None, budget_s: float | None = None) -> Flow[None]:
        """Open a session. A session the server loses before the handshake ends (a restart
        between its answer to ``initialize`` and ``notifications/initialized``) is forgotten
        and opened again, ``HANDSHAKE_ATTEMPTS`` times at most, all within ``budget_s`` (the
        request timeout by default; a renewal's, that of the call it renews for)."""
        timeout_s = self.settings.request_timeout_s
        now = yield NOW
        deadline = now + min(timeout_s, budget_s if budget_s is not None else timeout_s)
        attempt = 1
        while True:
            left_s = deadline - now
            negotiation = Negotiation(
                declare_tasks(self.requests.capabilities()),
                self.settings.client_info,
                era or self.settings.protocol,
                left_s,
            )
            try:
                negotiated: Negotiated = yield Negotiate(negotiation, left_s)
                break
            except McpHttpTransportSessionExpiredError:
                now = yield NOW
                if attempt >= HANDSHAKE_ATTEMPTS or now >= deadline:
                    raise
            attempt += 1
            logger.info(
                "MCP server %r lost the session during its handshake; opening a new one",
                self.settings.server.id,
            )
            self.state.reset_session_state()  # (the transport forgot the id: this ends the rest)
        self.server_info = negotiate(negotiated)
        self.generation += 1

    def _open(self) -> Flow[tuple[ServerInfo, int]]:
        if self.server_info is None:
            yield from self._handshake()
        assert self.server_info is not None
        return self.server_info, self.generation

    def _session(self) -> Flow[tuple[ServerInfo, int]]:
        """The open session and its generation: initialized first, under the session lock,
        when it is not open (a renewal under way has closed it: its lock is waited for). An
        open one is read without the lock, which would be released before the request is sent
        all the same."""
        server_info = self.server_info
        if server_info is not None:
            return server_info, self.generation
        session: tuple[ServerInfo, int] = yield Locked(self._open())
        return session

    def _renew(self, generation: int, budget_s: float) -> Flow[None]:
        if self.generation != generation:
            return  # another thread or task renewed it already
        logger.info(
            "MCP server %r lost the session; initializing a new one", self.settings.server.id
        )
        self.server_info = None  # first: a request reading it unlocked waits for the lock
        self.state.reset_session_state()
        yield from self._handshake("legacy", budget_s)  # only that era has sessions to lose
        self.session_renewals += 1
        yield from self._restore_session()

    # -- the MCP methods ----------------------------------------------------------------------

    def connect(self) -> Flow[ServerInfo]:
        """Initialize the session unless it is; the server's info."""
        session: tuple[ServerInfo, int] = yield Locked(self._open())
        return session[0]

    def request(self, method: str, params: Any, timeout_s: float | None) -> Flow[Any]:
        """Send a request in the session (initialized first if need be); its result. When the
        server lost the session, a new one is initialized and the request sent again once,
        unless it may have run (``retry_after_expiry``)."""
        if self.server_info is not None:  # open: no flow to run (``_session``)
            generation = self.generation
        else:
            _, generation = yield from self._session()
        if self.log_level is not None and self._modern:
            params = with_log_level(params, self.log_level)  # the 2026-07-28 log opt-in
        step = Request(method, params, call_timeout(timeout_s, self.settings.request_timeout_s))
        try:
            response = yield step
        except McpHttpTransportSessionExpiredError as exc:
            if not retry_after_expiry(exc):
                raise
            yield Locked(self._renew(generation, step.timeout_s))
            response = yield step
        return unwrap(response, method)

    def ping(self, timeout_s: float | None) -> Flow[float]:
        """``ping``; the round trip in seconds. The stateless era has no ``ping`` (2026-07-28
        removed it): there the round trip is that of ``server/discover``."""
        yield Locked(self._open())
        started = time.perf_counter()
        yield from self.request("server/discover" if self._modern else "ping", None, timeout_s)
        return time.perf_counter() - started

    def listing(
        self, method: str, key: str, parse: Callable[[Any], T], timeout_s: float | None
    ) -> Flow[list[T]]:
        """Every item of a paginated listing, each parsed."""
        pager = Pager(method, key)
        items: list[T] = []
        while not pager.done:
            result = yield from self.request(method, pager.params(), timeout_s)
            items.extend(parse(item) for item in pager.take(result))
        return items

    def list_tools(self, timeout_s: float | None) -> Flow[list[Tool]]:
        """``tools/list``, every page (each tool's ``execution.taskSupport`` kept)."""
        tools = yield from self.listing("tools/list", "tools", Tool.from_dict, timeout_s)
        self.tool_task_support = {tool.name: tool_task_support(tool.raw) for tool in tools}
        return tools

    def list_resources(self, timeout_s: float | None) -> Flow[list[Resource]]:
        """``resources/list``, every page."""
        return self.listing("resources/list", "resources", Resource.from_dict, timeout_s)

    def list_resource_templates(self, timeout_s: float | None) -> Flow[list[ResourceTemplate]]:
        """``resources/templates/list``, every page."""
        return self.listing(
            "resources/templates/list", "resourceTemplates", ResourceTemplate.from_dict, timeout_s
        )

    def list_prompts(self, timeout_s: float | None) -> Flow[list[Prompt]]:
        """``prompts/list``, every page."""
        return self.listing("prompts/list", "prompts", Prompt.from_dict, timeout_s)

    def call_tool(
        self,
        name: str,
        arguments: Mapping[str, Any] | None,
        progress: ProgressCallback | None,
        timeout_s: float | None,
        meta: Mapping[str, Any] | None,
        started: float | None = None,
    ) -> Flow[ToolResult]:
        """``tools/call``; ``progress`` gets the call's progress until it returns. A task the
        server makes of the call unasked (2026-07-28), or that a listed tool requires
        (2025-11-25), is waited for within the call's time. ``started``: the driver's
        monotonic time as the call began (when not given, asked for with a step)."""
        timeout_s = call_timeout(timeout_s, self.settings.tool_timeout_s)
        token = self.router.register(progress) if progress is not None else None
        try:
            if started is None:
                started = yield NOW
            outcome = yield from self._tool_call(name, arguments, token, timeout_s, meta, False)
            if isinstance(outcome, ToolResult):
                return outcome
            now = yield NOW
            return (yield from wait_for_result(self.request, outcome, started + timeout_s - now))
        finally:
            if token is not None:
                self.router.release(token)

    def _tool_call(
        self,
        name: str,
        arguments: Mapping[str, Any] | None,
        token: str | None,
        timeout_s: float,
        meta: Mapping[str, Any] | None,
        as_task: bool,
    ) -> Flow[ToolResult | TaskState]:
        params = tool_call_params(name, arguments, progress_token=token, meta=meta)
        if self.server_info is None:
            yield from self._session()
        modern = self._modern
        offered = not modern and offers_tool_tasks(self._capabilities())
        if offered and as_task and name not in self.tool_task_support:
            yield from self.list_tools(None)  # the tool's execution.taskSupport decides
        support = self.tool_task_support.get(name)
        asked = offered and asks_for_task(
            modern=modern, offered=offered, support=support, as_task=as_task
        )
        try:
            call = task_call_params(params, asked=asked)
            result = yield from self.request("tools/call", call, timeout_s)
        except McpError as exc:
            # A 2025-11-25 server refuses a plain call of a tool that requires a task with
            # "method not found": the call did not run; once the tools are listed, it is
            # made again as a task when the tool says so.
            known = name in self.tool_task_support
            if asked or not offered or known or exc.code != McpError.METHOD_NOT_FOUND:
                raise
            yield from self.list_tools(None)
            if self.tool_task_support.get(name) != "required":
                raise
            asked = True
            call = task_call_params(params, asked=True)
            result = yield from self.request("tools/call", call, timeout_s)
        state = created_task(result, modern=modern)
        if state is None:
            return ToolResult.from_dict(result)
        if not modern and not asked:  # 2025-11-25: only the client asks for tasks
            raise McpTaskProtocolError(
                "the server answered a tools/call that asked for no task with a task",
                task_id=state.task_id,
            )
        return state

    # -- tasks (2025-11-25 tasks, the 2026-07-28 extension: ``_tasks``) ------------------------

    def _capabilities(self) -> Mapping[str, Any]:
        return self.server_info.capabilities if self.server_info is not None else {}

    def start_tool_task(
        self,
        name: str,
        arguments: Mapping[str, Any] | None,
        timeout_s: float | None,
        meta: Mapping[str, Any] | None,
        progress: ProgressCallback | None = None,
    ) -> Flow[TaskState]:
        """``tools/call`` as a task: the task's state, or a finished one holding the result
        when the call ran without a task (at 2025-11-25 the server offers no tool tasks or the
        tool forbids them: the tools are listed first if need be; at 2026-07-28 the server
        chose not to make one). ``progress`` is refused (``ValueError``): it is followed for
        plain calls only."""
        if progress is not None:
            raise ValueError("progress is followed for plain calls only, not for a task")
        outcome = yield from self._tool_call(
            name, arguments, None, call_timeout(timeout_s, self.settings.tool_timeout_s), meta, True
        )
        if isinstance(outcome, ToolResult):
            return TaskState(self._modern, None, final=outcome)
        return outcome

    def get_task(self, task_id: str, timeout_s: float | None) -> Flow[TaskState]:
        """The state of the task ``task_id`` (``tasks/get``), to wait on a task created before."""
        yield Locked(self._open())
        state = TaskState(self._modern, Task(task_id=task_id, status="working"))
        yield from refresh_task(self.request, state, timeout_s)
        return state

    def refresh_task(self, state: TaskState, timeout_s: float | None) -> Flow[TaskState]:
        """``tasks/get`` for a task's state (none for a call run without a task)."""
        if state.task is not None:
            yield from refresh_task(self.request, state, timeout_s)
        return state

    def task_result(self, state: TaskState, timeout_s: float | None) -> Flow[ToolResult]:
        """The task's tool result, polled for within ``timeout_s`` (the tool timeout)."""
        return wait_for_result(
            self.request, state, call_timeout(timeout_s, self.settings.tool_timeout_s)
        )

    def cancel_task(self, state: TaskState, timeout_s: float | None) -> Flow[Task | None]:
        """``tasks/cancel`` (see ``_tasks.cancel_task``)."""
        yield Locked(self._open())
        return (yield from cancel_task(self.request, state, self._capabilities(), timeout_s))

    def list_tasks(self, timeout_s: float | None) -> Flow[list[Task]]:
        """``tasks/list``, every page (2025-11-25, where the server declares it)."""
        yield Locked(self._open())
        require_legacy_operation(self._capabilities(), self._modern, "list")

        def parse(raw: Any) -> Task:
            return parse_task(raw, modern=False, detailed=False)

        return (yield from self.listing("tasks/list", "tasks", parse, timeout_s))

    def read_resource(self, uri: str, timeout_s: float | None) -> Flow[list[ResourceContents]]:
        """``resources/read``."""
        result = yield from self.request("resources/read", {"uri": uri}, timeout_s)
        return list(parse_read_resource(result))

    def get_prompt(
        self, name: str, arguments: Mapping[str, str] | None, timeout_s: float | None
    ) -> Flow[PromptResult]:
        """``prompts/get``."""
        params = prompt_get_params(name, arguments)
        result = yield from self.request("prompts/get", params, timeout_s)
        return PromptResult.from_dict(result)

    # -- the skills extension (SEP-2640) ------------------------------------------------------

    def _require_skills(self) -> Flow[None]:
        yield Locked(self._open())
        if self.server_info is None or not self.server_info.supports_extension(SKILLS_EXTENSION):
            raise McpSkillsNotSupportedError(
                f"the server does not declare the skills extension ({SKILLS_EXTENSION})"
            )

    def list_skills(self, timeout_s: float | None) -> Flow[list[Skill]]:
        """``skills/list``, every page (held for ``read_skill``); no file is read."""
        yield from self._require_skills()
        skills = yield from self.listing("skills/list", "skills", Skill.from_dict, timeout_s)
        self.skills = tuple(skills)
        return skills

    def get_skill(self, uri: str, timeout_s: float | None) -> Flow[Skill]:
        """``skills/get``: the entry of the skill whose ``SKILL.md`` is at ``uri``."""
        yield from self._require_skills()
        result = yield from self.request("skills/get", {"uri": uri}, timeout_s)
        return Skill.from_dict(result.get("skill") if isinstance(result, dict) else None)

    def _find_skill(self, key: str, timeout_s: float | None) -> Flow[Skill]:
        if "://" in key:
            held = next((skill for skill in self.skills or () if skill.uri == key), None)
            return held or (yield from self.get_skill(key, timeout_s))
        if self.skills is None:
            yield from self.list_skills(timeout_s)
        return find_skill(self.skills or (), key)

    def read_skill(
        self, skill: Skill | str, path: str, timeout_s: float | None
    ) -> Flow[SkillFileContent]:
        """Read one file of ``skill`` (an entry, a name or a ``SKILL.md`` URI) and verify it
        against the entry (``mcpstream.client.skills``)."""
        entry = (
            skill if isinstance(skill, Skill) else (yield from self._find_skill(skill, timeout_s))
        )
        uri = entry.file_uri(path)
        check_listed(entry, uri)
        contents = yield from self.read_resource(uri, timeout_s)
        data, mime_type = resource_bytes(contents, uri)
        verify_file(entry, uri, data)
        return SkillFileContent(entry, uri, data, mime_type)

    # -- completion, logging, resource subscriptions, roots ------------------------------------

    def complete(
        self,
        ref: CompletionReference,
        argument: Mapping[str, str],
        context_arguments: Mapping[str, str] | None,
        timeout_s: float | None,
    ) -> Flow[Completion]:
        """``completion/complete`` (both eras)."""
        params = completion_params(ref, argument, context_arguments)
        result = yield from self.request("completion/complete", params, timeout_s)
        return Completion.from_dict(result)

    def set_logging_level(self, level: str, timeout_s: float | None) -> Flow[None]:
        """``logging/setLevel`` at the handshake era; at 2026-07-28, which has no such method,
        the level is kept and stamped on every later request (``_meta``), as the opt-in."""
        checked = check_log_level(level)
        yield Locked(self._open())
        if not self._modern:
            yield from self.request("logging/setLevel", {"level": checked}, timeout_s)
        self.log_level = checked

    def subscribe_resource(self, uri: str, timeout_s: float | None) -> Flow[None]:
        """``resources/subscribe`` at the handshake era; at 2026-07-28 the listen stream is
        reopened with ``uri`` in its filter (``_listen``)."""
        yield Locked(self._open())
        if not self._modern:
            yield from self.request("resources/subscribe", {"uri": uri}, timeout_s)
            self.subscriptions.add(uri)
            return
        yield Locked(self._listen(uri, True, timeout_s))

    def unsubscribe_resource(self, uri: str, timeout_s: float | None) -> Flow[None]:
        """``resources/unsubscribe`` at the handshake era; at 2026-07-28 the listen stream is
        reopened without ``uri``."""
        yield Locked(self._open())
        if not self._modern:
            yield from self.request("resources/unsubscribe", {"uri": uri}, timeout_s)
            self.subscriptions.discard(uri)
            return
        yield Locked(self._listen(uri, False, timeout_s))

    def _listen(self, uri: str, subscribe: bool, timeout_s: float | None) -> Flow[None]:
        """Change the set (under the session lock: one reopening at a time) and reopen the
        stream when it changed. A subscription the acknowledgement leaves out is not honored:
        dropped, and refused as the handshake era's server would refuse it."""
        subscriptions = self.subscriptions
        changed = subscriptions.add(uri) if subscribe else subscriptions.discard(uri)
        if not changed:
            return
        timeout_s = call_timeout(timeout_s, self.settings.request_timeout_s)
        honored = yield Listen(subscriptions.uris, timeout_s)
        if not isinstance(honored, dict):
            raise McpHttpTransportProtocolError(
                f"MCP server {self.settings.server.id!r} did not acknowledge its "
                f"subscriptions/listen stream within {timeout_s:g} s"
            )
        granted = honored.get("resourceSubscriptions")
        if subscribe and not (isinstance(granted, list) and uri in granted):
            subscriptions.discard(uri)
            raise McpError(
                McpError.METHOD_NOT_FOUND,
                "the server does not honor a subscription to this resource",
                method="subscriptions/listen",
            )

    def send_roots_list_changed(self) -> Flow[None]:
        """``notifications/roots/list_changed`` at the handshake era; nothing at 2026-07-28,
        which removed it (a server asks for the roots when it needs them)."""
        yield Locked(self._open())
        if not self._modern:
            yield Notify("notifications/roots/list_changed", None, self.settings.request_timeout_s)

    def _restore_session(self) -> Flow[None]:
        """In a new session (the server lost the old one), the log level and the resource
        subscriptions of the old one again; a refusal is logged (the call that found the
        session lost goes on)."""
        again: list[tuple[str, dict[str, str]]] = [
            ("resources/subscribe", {"uri": uri}) for uri in self.subscriptions.uris
        ]
        if self.log_level is not None:
            again.insert(0, ("logging/setLevel", {"level": self.log_level}))
        for method, params in again:
            try:
                unwrap((yield Request(method, params, self.settings.request_timeout_s)), method)
            except Exception as exc:
                logger.warning("%s in the new session failed: %s", method, type(exc).__name__)
