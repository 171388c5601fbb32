"""``Client``: a blocking MCP client over ``McpHttpTransport``, a thin driver of the flows of
``_core`` (it does their steps on the calling thread)."""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeVar, overload

if TYPE_CHECKING:  # the optional stack (mcpstream[httpx2]): a type only, never imported here
    import httpx  # noqa: F401 (named in the quoted base below)
    import httpx2  # noqa: F401

from .._telemetry import otel_loaded
from ..oauth import McpOAuthRedirectHandler
from ..transport_http import McpHttpTransport
from ._base import ClientBase, TransportOptions, send
from ._core import Flow, Locked, Request, Step
from ._notify import NotificationRouter, ProgressCallback
from ._tasks import Answer, Sleep
from .content import ResourceContents
from .features import Completion, CompletionReference
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
from .skills import Skill, SkillFileContent
from .tasks import TaskHandle

__all__ = ["Client"]

T = TypeVar("T")


class Client(ClientBase[McpHttpTransport, "httpx.Client | httpx2.Client", McpOAuthRedirectHandler]):
    """A blocking client for one MCP server over Streamable HTTP (or the deprecated HTTP+SSE
    transport of 2024-11-05, which it falls back to by itself).

    For example:

        with Client("http://127.0.0.1:8000/mcp") as client:
            tools = client.list_tools()
            result = client.call_tool("add", {"a": 1, "b": 2}, progress=print)
            print(result.text)

    ``connect`` (run by ``with``, or by the first call) negotiates the protocol: it asks for
    2026-07-28, the stateless era, with ``server/discover``; a server of the handshake era gets
    the ``initialize`` handshake, offering 2025-11-25 and accepting any version down to
    2024-11-05 (``SUPPORTED_PROTOCOL_VERSIONS``), over Streamable HTTP or, when the server
    refuses the POST, the HTTP+SSE transport. ``protocol`` pins an era, the transport or a
    version instead.

    Authentication: static ``headers``, a bearer ``token``, or OAuth, done by the transport:
    ``oauth=True`` for the login stored by ``mcpstream auth login URL`` (or an
    ``McpOAuthConfig`` for a pre-registered client, scopes, a machine client). ``oauth_store``
    replaces the token store file, and ``oauth_redirect_handler`` (a ``LoopbackRedirectHandler``,
    say) lets the client log in by itself when it has no usable credentials; both are ignored
    without ``oauth``. With OAuth, ``server_id`` (the store key) defaults to the URL, as for
    ``mcpstream auth login URL``.

    ``http_client``: an ``httpx.Client`` or ``httpx2.Client`` of the host's (proxies, CA,
    mTLS, its own ``Auth``...), which the client uses and does not close; without one the
    transport makes its own, on httpx, or on httpx2 with ``http_stack="httpx2"``.

    Timeouts: ``connect_timeout_s`` bounds establishing each connection (TCP and TLS), so an
    unreachable server fails fast; ``request_timeout_s`` is the budget of the handshake,
    listings, reads and pings, ``tool_timeout_s`` that of tool calls; each call may pass its own
    ``timeout_s`` (None: the client's). A timeout of None (or ``math.inf``) means no limit
    (``connect_timeout_s=None``: a connection may take the call's whole budget); zero, a
    negative value or NaN is refused with ``ValueError``. The defaults are in docs/limits.md.

    ``notification_handler`` (or ``on_notification``, its earlier name) gets every
    notification the server sends (progress of a call with a
    ``progress`` callback goes to that callback instead), pushed by the transport as soon as it
    arrives: on the calling thread for those on a call's answer (all delivered before the call
    returns), on the transport's GET stream thread for the others. Callbacks on different
    threads may run at the same time, and must not block for long. ``elicitation_handler``
    answers the server's questions to the user (default: decline), ``sampling_handler`` its
    requests for a completion (default: refused), and ``roots`` are the roots offered to it.
    ``logging_handler`` gets the server's log messages (``LogMessage``; see
    ``set_logging_level``) and ``resource_updated_handler`` (or ``on_resource_updated``) the
    updates of the resources subscribed to (``ResourceUpdated``; see ``subscribe_resource``), in
    the order the server sent them, instead of ``notification_handler``. The hooks are named as
    FastMCP's ``Client`` names them; the ``on_*`` names are kept as aliases.

    When the server lost the session (it restarted: HTTP 404 to a request with the session id),
    the client initializes a new session once on its own and sends the call again, unless the
    404 came after the server had taken the call (to the GET resuming the call's event stream):
    then the call may have run, and the session-expired error is raised (``request_delivered``);
    the next call starts a new session. JSON-RPC errors are raised as ``McpError``; everything
    else as the transport's errors (``mcpstream.errors``). Safe to share between threads.

    OpenTelemetry (docs/telemetry.md): while the host has a tracer or meter provider
    configured, each message the client sends is a span (by the MCP semantic conventions) and a
    duration measurement, and each message carries its span's trace context in
    ``params._meta`` (keys the host set there are kept); ``trace_context=False`` sends none.
    Without OpenTelemetry loaded, nothing of it is imported or done.
    """

    _awaitable_answers = False

    def _open(self, options: TransportOptions, router: NotificationRouter) -> McpHttpTransport:
        self._lock = threading.RLock()  # reentrant: a callback may call the client back
        return McpHttpTransport(**options, on_notification=router.deliver)

    def _run(self, flow: Flow[T]) -> T:
        """Do ``flow``'s steps on this thread; what it returns (``advance``, written out: the
        loop of every call)."""
        try:
            step = flow.send(None)
            while True:
                try:
                    outcome = self._do(step)
                except BaseException as exc:  # the flow decides, and cleans up in any case
                    step = flow.throw(exc)
                else:
                    step = flow.send(outcome)
        except StopIteration as stop:
            result: T = stop.value
            return result

    def _do(self, step: Step) -> Any:
        if isinstance(step, Request) and not otel_loaded():  # the common step, first (as send)
            # (the transport's own ``request`` less its checks: the step's timeout is checked,
            # ``call_timeout``, and this transport records no telemetry of its own)
            return self._transport._request(step.method, step.params, step.timeout_s)
        if isinstance(step, Locked):
            with self._lock:
                return self._run(step.flow)
        if isinstance(step, Sleep):
            if step.seconds > 0:
                time.sleep(step.seconds)
            return time.monotonic()
        if isinstance(step, Answer):
            return self._answers.answer(step.method, step.params)
        operation = self._telemetry.begin(step, self.protocol_version, self._transport)
        if operation is None:
            return send(self._transport, step)
        with operation as traced:  # the span is current while the message is out
            return operation.done(send(self._transport, traced))

    # -- the MCP methods -------------------------------------------------------------------

    def connect(self) -> ServerInfo:
        """Initialize the session (once); returns the server's info."""
        return self._run(self._core.connect())

    def request(self, method: str, params: Any = None, *, timeout_s: float | None = None) -> Any:
        """Send any request and return its raw result (the escape hatch for methods this class
        has no wrapper for)."""
        return self._run(self._core.request(method, params, timeout_s))

    def ping(self, *, timeout_s: float | None = None) -> float:
        """Ping the server; returns the round trip in seconds."""
        return self._run(self._core.ping(timeout_s))

    def list_tools(self, *, timeout_s: float | None = None) -> list[Tool]:
        """Every tool of the server (all pages)."""
        return self._run(self._core.list_tools(timeout_s))

    @overload
    def call_tool(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        progress: ProgressCallback | None = None,
        timeout_s: float | None = None,
        meta: Mapping[str, Any] | None = None,
        as_task: Literal[False] = False,
    ) -> ToolResult: ...

    @overload
    def call_tool(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        progress: None = None,
        timeout_s: float | None = None,
        meta: Mapping[str, Any] | None = None,
        as_task: Literal[True],
    ) -> TaskHandle: ...

    def call_tool(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        progress: ProgressCallback | None = None,
        timeout_s: float | None = None,
        meta: Mapping[str, Any] | None = None,
        as_task: bool = False,
    ) -> ToolResult | TaskHandle:
        """Call the tool ``name``. ``progress`` gets the call's progress notifications while it
        runs (a progress token is sent in ``_meta``); all of them are delivered before this
        returns. A tool's own failure is ``ToolResult.is_error``, not an exception.

        ``as_task=True`` returns a ``TaskHandle`` instead (``mcpstream.client.tasks``): the
        call runs as a task at the server (2025-11-25: asked for with ``params.task`` when the
        server offers tool tasks; 2026-07-28: the server decides), to wait on, poll or cancel;
        ``progress`` is for plain calls only. A plain call may become a task too (at
        2026-07-28 when the server chooses, at 2025-11-25 for a tool whose
        ``execution.taskSupport`` is ``required``): it is then waited for, within
        ``timeout_s``, and its result returned (``McpTaskTimeoutError``, naming the task, when
        it is not done in time)."""
        if not as_task:
            return self._run(
                self._core.call_tool(name, arguments, progress, timeout_s, meta, time.monotonic())
            )
        state = self._run(self._core.start_tool_task(name, arguments, timeout_s, meta, progress))
        return TaskHandle(self, state)

    def get_task(self, task_id: str, *, timeout_s: float | None = None) -> TaskHandle:
        """A handle on the task ``task_id``, created before (``tasks/get`` for its state)."""
        return TaskHandle(self, self._run(self._core.get_task(task_id, timeout_s)))

    def list_tasks(self, *, timeout_s: float | None = None) -> list[Task]:
        """Every task the server lists (``tasks/list``, all pages): 2025-11-25 only, where the
        server declares ``tasks.list``; else ``McpTasksNotSupportedError`` (2026-07-28 has
        none: a client keeps the ids of its tasks)."""
        return self._run(self._core.list_tasks(timeout_s))

    def list_resources(self, *, timeout_s: float | None = None) -> list[Resource]:
        """Every resource of the server (all pages)."""
        return self._run(self._core.list_resources(timeout_s))

    def list_resource_templates(self, *, timeout_s: float | None = None) -> list[ResourceTemplate]:
        """Every resource template of the server (all pages)."""
        return self._run(self._core.list_resource_templates(timeout_s))

    def read_resource(self, uri: str, *, timeout_s: float | None = None) -> list[ResourceContents]:
        """The contents of the resource ``uri``."""
        return self._run(self._core.read_resource(uri, timeout_s))

    def list_prompts(self, *, timeout_s: float | None = None) -> list[Prompt]:
        """Every prompt of the server (all pages)."""
        return self._run(self._core.list_prompts(timeout_s))

    def get_prompt(
        self,
        name: str,
        arguments: Mapping[str, str] | None = None,
        *,
        timeout_s: float | None = None,
    ) -> PromptResult:
        """The prompt ``name`` rendered with ``arguments``."""
        return self._run(self._core.get_prompt(name, arguments, timeout_s))

    # -- completion, logging, resource subscriptions, roots ---------------------------------

    def complete(
        self,
        ref: CompletionReference,
        argument: Mapping[str, str],
        context_arguments: Mapping[str, str] | None = None,
        *,
        timeout_s: float | None = None,
    ) -> Completion:
        """Suggestions for an argument of a prompt or resource template
        (``completion/complete``): ``ref`` is a ``PromptReference``, a
        ``ResourceTemplateReference`` or their dict form, ``argument`` is ``{"name": ...,
        "value": <what the user typed so far>}``, ``context_arguments`` the values of the
        arguments already chosen. A server without completions raises ``McpError``."""
        return self._run(self._core.complete(ref, argument, context_arguments, timeout_s))

    def set_logging_level(self, level: str, *, timeout_s: float | None = None) -> None:
        """Ask for the server's log messages at ``level`` and above (``"debug"``, ``"info"``,
        ... ``"emergency"``), which go to ``logging_handler``. At the handshake era this is
        ``logging/setLevel``; at 2026-07-28, which removed it, the level is sent in the
        ``_meta`` of every later request (``io.modelcontextprotocol/logLevel``): the server
        then logs on each request's own stream, so its messages arrive before the call
        returns."""
        self._run(self._core.set_logging_level(level, timeout_s))

    def subscribe_resource(self, uri: str, *, timeout_s: float | None = None) -> None:
        """Get ``notifications/resources/updated`` for the resource ``uri`` (at
        ``on_resource_updated``, in the order the server sent them). At the handshake era this
        is ``resources/subscribe`` (the updates come on the GET stream); at 2026-07-28 the
        client's ``subscriptions/listen`` stream is reopened with ``uri`` in its filter and
        this returns once the server acknowledged it (``McpHttpTransportProtocolError`` when it
        does not within the timeout; ``McpError`` when it leaves the subscription out, as a
        server of the handshake era without subscriptions answers). Updates sent while the
        stream is reopened are not replayed: read the resource after subscribing."""
        self._run(self._core.subscribe_resource(uri, timeout_s))

    def unsubscribe_resource(self, uri: str, *, timeout_s: float | None = None) -> None:
        """Stop the updates of ``uri`` (``resources/unsubscribe``, or at 2026-07-28 the listen
        stream reopened without it)."""
        self._run(self._core.unsubscribe_resource(uri, timeout_s))

    def send_roots_list_changed(self) -> None:
        """Tell the server that the roots changed (``notifications/roots/list_changed``), at
        the handshake era; at 2026-07-28, which removed the notification, this does nothing."""
        self._run(self._core.send_roots_list_changed())

    # -- the skills extension (SEP-2640) ---------------------------------------------------

    def list_skills(self, *, timeout_s: float | None = None) -> list[Skill]:
        """Every skill the server lists (all pages of ``skills/list``): each entry's name,
        description, frontmatter and files with their digests. Nothing is read yet: a skill's
        files are read by ``read_skill``, when the host needs them. Raises
        ``McpSkillsNotSupportedError`` when the server does not declare the extension (the
        client then sends no ``skills/`` request at all)."""
        return self._run(self._core.list_skills(timeout_s))

    def get_skill(self, uri: str, *, timeout_s: float | None = None) -> Skill:
        """The entry of the skill whose ``SKILL.md`` is at ``uri`` (``skills/get``), listed or
        not: a fresh one, to verify against after the skill changed."""
        return self._run(self._core.get_skill(uri, timeout_s))

    def read_skill(
        self, skill: Skill | str, path: str = "SKILL.md", *, timeout_s: float | None = None
    ) -> SkillFileContent:
        """Read the file ``path`` of ``skill`` (an entry of ``list_skills`` or ``get_skill``,
        a skill's name, or the URI of its ``SKILL.md``) with ``resources/read``, and verify it
        against the skill's entry: its size and SHA-256 digest and, for ``SKILL.md``, its YAML
        frontmatter field by field. A failure raises ``McpSkillIntegrityError`` (naming the
        check) and the content is dropped; a file the entry does not list is not even read.
        A name or URI is looked up in the last listing (listing first if there is none; a URI
        not listed is fetched with ``skills/get``); a name several skills share raises
        ``McpSkillError``."""
        return self._run(self._core.read_skill(skill, path, timeout_s))

    # -- closing ---------------------------------------------------------------------------

    def close(self) -> None:
        """End the session (DELETE) and its GET stream, close the connections. Idempotent."""
        if self._core.close():
            self._telemetry.end_session()
            self._transport.close()

    def __enter__(self) -> Client:
        try:
            self.connect()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
